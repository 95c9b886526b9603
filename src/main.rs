//! The `driftgate` command: parse the command line, run one command, map the outcome to an
//! exit code (0 pass, 1 blocked, 2 usage/configuration/input error, 3 incomplete).

mod cli;
mod exit;
mod interrupt;
mod output;

use std::process::ExitCode;

use clap::FromArgMatches as _;

/// Judging a fleet makes small allocations on every core at once, which mimalloc serves with
/// less CPU than glibc's `malloc`.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    // libgit2 re-hashes every object it reads (SHA-1 with collision detection), which git
    // itself does only in fsck: a 10,000-host fleet folder costs its 500 KB again on each
    // load. The store reads every object bounded and checked first (a loose one against its
    // name), zlib checks every stream, and each baseline carries its own SHA-256 digest. A
    // process-wide option, so the program sets it, never the library.
    git2::opts::strict_hash_verification(false);
    let matches = cli::command().get_matches();
    let args = cli::Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    output::init_logging(args.verbose, args.color);
    let printer = output::Printer::new(args.color);
    let context = cli::Context {
        printer: &printer,
        repo: cli::repo_of(&matches),
    };
    let result = cli::run(args.command, &context);
    if let Err(error) = &result {
        printer.error(error);
    }
    exit::code(&result)
}
