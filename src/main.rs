//! The `driftgate` command: parse the command line, run one command, map the outcome to an
//! exit code (0 pass, 1 blocked, 2 usage/configuration/input error, 3 incomplete).

mod cli;
mod exit;
mod interrupt;
mod output;

use std::process::ExitCode;

use clap::Parser;

/// Judging a fleet makes small allocations on every core at once, which mimalloc serves with
/// less CPU than glibc's `malloc`.
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
