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

// mimalloc's first arena is 1 GiB of address space, and the bitmaps it writes for it at the
// first allocation were 42 of the 470 pages a `baseline show` touched. A first arena of 64 MiB
// is set up before Rust's runtime allocates (a constructor, which runs before `main`); a
// command that needs more gets mimalloc's usual arenas after it.
#[cfg(target_os = "linux")]
unsafe extern "C" {
    /// mimalloc's `mi_reserve_os_memory` (mimalloc.h), which `libmimalloc-sys` does not bind.
    fn mi_reserve_os_memory(size: usize, commit: bool, allow_large: bool) -> libc::c_int;
}

#[cfg(target_os = "linux")]
extern "C" fn reserve_first_arena() {
    // A failure only leaves mimalloc to reserve its first arena itself.
    // SAFETY: a mimalloc call with no pointers, made before any allocation.
    unsafe { mi_reserve_os_memory(64 << 20, false, false) };
}

#[cfg(target_os = "linux")]
#[used]
#[unsafe(link_section = ".init_array")]
static RESERVE_FIRST_ARENA: extern "C" fn() = reserve_first_arena;

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
