//! The one place outcomes become exit codes.

use std::process::ExitCode;

use driftgate_compare::Verdict;
use driftgate_gate::fix::ApplyOutcome;

use crate::interrupt::Signal;

/// What a command achieved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// A command that does not judge finished.
    Done,
    /// A judging command reached a verdict (`--strict` is already folded in).
    Judged(Verdict),
    /// `fix apply` finished: its own outcome, not a verdict (a failed write blocks nothing).
    Applied(ApplyOutcome),
    /// A signal stopped the command before it finished; nothing was written.
    Interrupted(Signal),
}

/// 0 pass (warnings allowed), 1 blocked, 2 usage/configuration/input error, 3 incomplete;
/// 128 + N when signal N stopped the command, as a shell reports it.
///
/// `fix apply` keeps those numbers where they mean the same to a script: 0 applied, nothing
/// to do or a dry run; 1 not applied (partly applied or failed: a step refused, conflicting
/// or not taken, a reset refused); 2 refused before sending or an error; 3 a BMC could not
/// be read (nothing sent).
pub(crate) fn code(result: &anyhow::Result<Outcome>) -> ExitCode {
    ExitCode::from(match result {
        Ok(Outcome::Done | Outcome::Judged(Verdict::Pass | Verdict::Warn)) => 0,
        Ok(Outcome::Applied(
            ApplyOutcome::Applied | ApplyOutcome::NothingToDo | ApplyOutcome::DryRun,
        )) => 0,
        Ok(Outcome::Judged(Verdict::Block)) => 1,
        Ok(Outcome::Applied(ApplyOutcome::PartlyApplied | ApplyOutcome::Failed)) => 1,
        Err(_) => 2,
        Ok(Outcome::Judged(Verdict::Incomplete) | Outcome::Applied(ApplyOutcome::Unread)) => 3,
        Ok(Outcome::Interrupted(signal)) => signal.exit_code(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `fix apply` is never "blocked": its failures keep 1 ("not applied") and an unread BMC
    /// keeps 3, the numbers scripts already test.
    #[test]
    fn fix_apply_outcomes_keep_the_numbers_scripts_know() {
        let exit = |outcome| code(&Ok(Outcome::Applied(outcome)));
        for done in [
            ApplyOutcome::Applied,
            ApplyOutcome::NothingToDo,
            ApplyOutcome::DryRun,
        ] {
            assert_eq!(exit(done), ExitCode::from(0), "{done:?}");
        }
        for not in [ApplyOutcome::PartlyApplied, ApplyOutcome::Failed] {
            assert_eq!(exit(not), ExitCode::from(1), "{not:?}");
        }
        assert_eq!(exit(ApplyOutcome::Unread), ExitCode::from(3));
    }
}
