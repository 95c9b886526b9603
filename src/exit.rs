//! The one place outcomes become exit codes.

use std::process::ExitCode;

use driftgate_compare::Verdict;

use crate::interrupt::Signal;

/// What a command achieved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// A command that does not judge finished.
    Done,
    /// A judging command reached a verdict (`--strict` is already folded in).
    Judged(Verdict),
    /// A signal stopped the command before it finished; nothing was written.
    Interrupted(Signal),
}

/// 0 pass (warnings allowed), 1 blocked, 2 usage/configuration/input error, 3 incomplete;
/// 128 + N when signal N stopped the command, as a shell reports it.
pub fn code(result: &anyhow::Result<Outcome>) -> ExitCode {
    ExitCode::from(match result {
        Ok(Outcome::Done | Outcome::Judged(Verdict::Pass | Verdict::Warn)) => 0,
        Ok(Outcome::Judged(Verdict::Block)) => 1,
        Err(_) => 2,
        Ok(Outcome::Judged(Verdict::Incomplete)) => 3,
        Ok(Outcome::Interrupted(signal)) => signal.exit_code(),
    })
}
