//! The process's allocator: mimalloc, or glibc's `malloc` for the commands that read or print
//! one snapshot, chosen from the command line before anything allocates.
//!
//! Judging a fleet makes a few small allocations per fact on every core at once; with glibc's
//! `malloc` the compare bench's pairs took 327 µs each instead of 234 µs (BENCHMARKS.md, issue
//! 14), so mimalloc serves every command by default. But a command such as `baseline show`
//! paid about 90 page faults for mimalloc's free list of each size class and its bitmaps, a
//! sixth of its whole run, for a few hundred allocations on one thread. mimalloc is built
//! without transparent huge pages (`no_thp`): with them each fresh 2 MiB page was cleared at
//! once, 3 ms more for a short command.

use std::alloc::{GlobalAlloc, Layout, System};
use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, Ordering};

use libmimalloc_sys as mi;

unsafe extern "C" {
    /// mimalloc's `mi_is_in_heap_region` (mimalloc.h), which `libmimalloc-sys` binds only
    /// with its `extended` feature and the `cty` crate that feature brings.
    fn mi_is_in_heap_region(p: *const c_void) -> bool;
}

/// The allocator `main.rs` installs.
pub struct Allocator;

/// Whether new blocks come from glibc: set once, before `main`, for the commands
/// [`on_glibc`] names.
static GLIBC: AtomicBool = AtomicBool::new(false);

/// Whether the command line `args` (without the program's name) runs a command that reads or
/// prints one snapshot on one thread, or only prints help or the version. A command line it
/// misreads only costs speed: either allocator serves every command.
fn on_glibc<'a>(args: impl IntoIterator<Item = &'a [u8]>) -> bool {
    let mut args = args.into_iter();
    let mut first = None;
    let mut second = None;
    while let Some(arg) = args.next() {
        // The options that take a value as the next argument, before the subcommand's name.
        if arg == b"--repo" || arg == b"--color" {
            args.next();
        } else if !arg.starts_with(b"-") {
            if first.is_none() {
                first = Some(arg);
            } else {
                second = Some(arg);
                break;
            }
        }
    }
    match first {
        None => true,
        Some(b"diff" | b"policy" | b"schema" | b"snapshot") => true,
        Some(b"baseline") => second == Some(b"show"),
        Some(_) => false,
    }
}

/// Chooses the allocator from the command line, from the executable's constructors: glibc
/// runs them with the process's arguments, on the starting thread, before Rust's runtime
/// allocates anything.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
extern "C" fn choose(
    argc: std::ffi::c_int,
    argv: *const *const std::ffi::c_char,
    _envp: *const *const std::ffi::c_char,
) {
    let count = usize::try_from(argc).unwrap_or(0);
    if argv.is_null() || count == 0 {
        return;
    }
    // SAFETY: glibc passes `argc` valid, NUL-terminated strings; they outlive this call.
    let args = (1..count).map(|i| unsafe { std::ffi::CStr::from_ptr(*argv.add(i)) }.to_bytes());
    if on_glibc(args) {
        GLIBC.store(true, Ordering::Relaxed);
    }
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[used]
#[unsafe(link_section = ".init_array")]
static CHOOSE: extern "C" fn(
    std::ffi::c_int,
    *const *const std::ffi::c_char,
    *const *const std::ffi::c_char,
) = choose;

/// Whether mimalloc made the block at `ptr`.
fn made_by_mimalloc(ptr: *mut u8) -> bool {
    // SAFETY: a lookup in mimalloc's page map, valid for any address; mimalloc set the map up
    // in its own constructor, before `main`.
    unsafe { mi_is_in_heap_region(ptr as *const c_void) }
}

/// Frees `ptr`. With glibc chosen a block is still checked for mimalloc's: one made before
/// the choice (none is, but nothing forbids it) is mimalloc's, since mimalloc is the default.
///
/// # Safety
/// `ptr` is a live block of this allocator's, made with `layout`.
unsafe fn free(glibc: bool, ptr: *mut u8, layout: Layout) {
    if glibc && !made_by_mimalloc(ptr) {
        // SAFETY: a live block of glibc's (the caller's contract).
        unsafe { System.dealloc(ptr, layout) }
    } else {
        // SAFETY: a live block of mimalloc's (the caller's contract).
        unsafe { mi::mi_free(ptr as *mut c_void) }
    }
}

/// Resizes `ptr`, in the allocator that made it.
///
/// # Safety
/// As [`GlobalAlloc::realloc`].
unsafe fn resize(glibc: bool, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
    if glibc && !made_by_mimalloc(ptr) {
        // SAFETY: a live block of glibc's; `new_size` is non-zero (the caller's contract).
        unsafe { System.realloc(ptr, layout, new_size) }
    } else {
        // SAFETY: a live block of mimalloc's; `new_size` is non-zero (the caller's contract).
        unsafe { mi::mi_realloc_aligned(ptr as *mut c_void, new_size, layout.align()) as *mut u8 }
    }
}

// SAFETY: every block comes from one of two allocators that meet `GlobalAlloc`'s contract,
// and is freed or resized by the one that made it.
unsafe impl GlobalAlloc for Allocator {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if GLIBC.load(Ordering::Relaxed) {
            // SAFETY: `layout` has a non-zero size (the caller's contract).
            unsafe { System.alloc(layout) }
        } else {
            // SAFETY: as above.
            unsafe { mi::mi_malloc_aligned(layout.size(), layout.align()) as *mut u8 }
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if GLIBC.load(Ordering::Relaxed) {
            // SAFETY: `layout` has a non-zero size (the caller's contract).
            unsafe { System.alloc_zeroed(layout) }
        } else {
            // SAFETY: as above.
            unsafe { mi::mi_zalloc_aligned(layout.size(), layout.align()) as *mut u8 }
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract.
        unsafe { free(GLIBC.load(Ordering::Relaxed), ptr, layout) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract.
        unsafe { resize(GLIBC.load(Ordering::Relaxed), ptr, layout, new_size) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn glibc(line: &str) -> bool {
        on_glibc(line.split_whitespace().map(str::as_bytes))
    }

    #[test]
    fn one_snapshot_commands_and_help_run_on_glibc_and_the_rest_on_mimalloc() {
        for line in [
            "",
            "--version",
            "-h",
            "baseline show node01",
            "--repo store baseline show node01",
            "-vv --color never baseline --repo store show node01 --rev HEAD~1",
            "diff a.json b.json",
            "policy show",
            "schema snapshot",
            "snapshot validate a.json",
        ] {
            assert!(glibc(line), "{line}");
        }
        for line in [
            "check --all --inventory inv.toml",
            "--repo show check host.json",
            "--color baseline check host.json",
            "baseline promote --fleet lab a.json",
            "baseline log node01",
            "baseline",
            "gate post --promote",
            "capture --bmc https://bmc",
            "report merge a b",
            "mockup serve dir",
        ] {
            assert!(!glibc(line), "{line}");
        }
    }

    #[test]
    fn blocks_are_freed_and_resized_by_the_allocator_that_made_them() {
        let layout = Layout::from_size_align(64, 16).unwrap();
        // SAFETY: non-zero sizes; each block is filled before it is read and freed once.
        unsafe {
            let of_glibc = System.alloc(layout);
            let of_mimalloc = mi::mi_malloc_aligned(64, 16) as *mut u8;
            for (ptr, by_mimalloc) in [(of_glibc, false), (of_mimalloc, true)] {
                assert!(!ptr.is_null());
                assert_eq!(made_by_mimalloc(ptr), by_mimalloc);
                ptr.copy_from_nonoverlapping(b"0123456789abcdef".as_ptr(), 16);
                // With glibc chosen, a block of mimalloc's still goes back to mimalloc.
                let grown = resize(true, ptr, layout, 1 << 20);
                assert!(!grown.is_null());
                assert_eq!(made_by_mimalloc(grown), by_mimalloc);
                assert_eq!(std::slice::from_raw_parts(grown, 16), b"0123456789abcdef");
                free(true, grown, Layout::from_size_align(1 << 20, 16).unwrap());
            }
        }
    }
}
