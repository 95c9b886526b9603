//! Counts of the work that grows with a policy's rules, for the tests that prove loading and
//! judging linear in them by counting, not by timing: a clock measures the machine too. Per
//! thread, so tests running at once do not count each other's work.

use std::cell::Cell;

/// The work counted on this thread since the last [`take`].
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) struct Work {
    /// Bytes of policy text read to number its lines.
    pub lines_read: usize,
    /// Rules whose id was compared to find a rule by its id.
    pub ids_compared: usize,
    /// Globs compiled (a rule's glob is checked when it is read and compiled for the automaton).
    pub globs_compiled: usize,
    /// Automata built to match rule globs.
    pub automata_built: usize,
    /// Patterns in the automata built.
    pub patterns_built: usize,
}

thread_local! {
    static WORK: Cell<Work> = Cell::new(Work::default());
}

/// Adds to this thread's counts.
pub(super) fn add(count: impl FnOnce(&mut Work)) {
    WORK.with(|work| {
        let mut counted = work.get();
        count(&mut counted);
        work.set(counted);
    });
}

/// This thread's counts, which start again from zero.
pub(super) fn take() -> Work {
    WORK.with(|work| work.take())
}
