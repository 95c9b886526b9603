//! `driftgate capture` of one Redfish source as host `azl-node01`, read back: exit code, the
//! snapshot (as JSON and as written) and standard error.

use serde_json::Value;

use super::driftgate;
use super::simulator::{PASSWORD, USER};

/// What one capture printed.
pub(crate) struct Captured {
    /// Exit code.
    pub code: i32,
    /// The snapshot on standard output.
    pub snapshot: Value,
    /// The same snapshot, as driftgate wrote it.
    pub text: String,
    /// Standard error.
    pub stderr: String,
}

impl Captured {
    /// The snapshot's one source.
    pub(crate) fn source(&self) -> &Value {
        &self.snapshot["sources"][0]
    }

    /// Its status (`complete`, `partial`, `failed`), or "" without one.
    pub(crate) fn status(&self) -> &str {
        self.source()["status"].as_str().unwrap_or("")
    }

    /// Its error, or "" without one.
    pub(crate) fn error(&self) -> &str {
        self.source()["error"].as_str().unwrap_or("")
    }

    /// Asserts an incomplete capture (exit 3) whose source is `status` with an error that
    /// says `says`.
    #[track_caller]
    pub(crate) fn assert_incomplete(&self, status: &str, says: &str) {
        assert_eq!((self.code, self.status()), (3, status), "{}", self.error());
        assert!(self.error().contains(says), "{}", self.error());
    }
}

/// Captures `source` (`redfish=URL`, `redfish=mockup:DIR`) with a 5 s BMC timeout and `extra`
/// arguments; `credentials` passes the simulator's account in the environment.
pub(crate) fn capture(source: &str, extra: &[&str], credentials: bool) -> Captured {
    let mut cmd = driftgate();
    cmd.args(["capture", "--host", "azl-node01", "--source", source])
        .args(["--bmc-timeout", "5"])
        .args(extra);
    if credentials {
        cmd.env("DRIFTGATE_BMC_USERNAME", USER)
            .env("DRIFTGATE_BMC_PASSWORD", PASSWORD);
    }
    let output = cmd.output().expect("driftgate runs");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let text = String::from_utf8(output.stdout).expect("UTF-8 output");
    let snapshot = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {stderr}"));
    Captured {
        code: output.status.code().expect("exited normally"),
        snapshot,
        text,
        stderr,
    }
}
