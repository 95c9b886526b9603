//! `fix plan` and `fix apply` of a run: each host's plan is made from its latest judged step
//! (the last post that captured it, else the pre) and its BMC as it is now; `apply` sends the
//! plan's BMC steps staged for the next reset (or runs its OS steps through the host's
//! transports), reads them back, and records everything in the run directory.

mod apply;
mod earlier;
mod journal;
mod judged;
mod lock;
mod planning;
mod record;
mod verify;

pub use apply::{Applied, ApplyOutcome, ApplyRequest, GRACE, LayerChoice, apply};
pub use judged::{Judged, out_dir, plan as plan_judged};
pub use lock::{Holder, LockEvent};
pub use planning::{Planned, plan_run};
pub use record::{ApplyRecord, HostRecord, Outcome, RECORD_SCHEMA_ID, Request, StepRecord};
pub use verify::checks;
