//! The `driftgate` command: parse the command line, run one command, map the outcome to an
//! exit code (0 pass, 1 blocked, 2 usage/configuration/input error, 3 incomplete).

mod cli;
mod exit;
mod interrupt;
mod output;

use std::process::ExitCode;

use clap::Parser;

/// Judging a fleet makes a few small allocations per fact on every core at once; glibc's
/// malloc spent a sixth of a `check --all` there (locks, consolidation), mimalloc's per-thread
/// heaps a fraction of it (BENCHMARKS.md, issue 14). It is built without transparent huge
/// pages (`no_thp`): with them each fresh 2 MiB page was cleared at once, 3 ms more for every
/// short command such as `baseline show`.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    output::init_logging(args.verbose, args.color);
    let printer = output::Printer::new(args.color);
    let context = cli::Context {
        printer: &printer,
        repo: args.repo,
    };
    let result = cli::run(args.command, &context);
    if let Err(error) = &result {
        printer.error(error);
    }
    exit::code(&result)
}
