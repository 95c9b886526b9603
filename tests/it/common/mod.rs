//! Helpers shared by the end-to-end tests.

use std::path::{Path, PathBuf};

use assert_cmd::Command;

/// The crate root.
pub(crate) fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Absolute path of a shipped example.
pub(crate) fn example(rel: &str) -> String {
    root().join("examples").join(rel).display().to_string()
}

/// The driftgate binary, run from the crate root with no inherited driftgate or colour
/// settings.
pub(crate) fn driftgate() -> Command {
    Command::from_std(driftgate_process())
}

/// [`driftgate`] as a `std::process::Command`, for tests that spawn it and signal it.
pub(crate) fn driftgate_process() -> std::process::Command {
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("driftgate"));
    cmd.current_dir(root())
        .env_remove("DRIFTGATE_POLICY")
        .env_remove("DRIFTGATE_REPO")
        .env_remove("DRIFTGATE_INVENTORY")
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR")
        .env_remove("CLICOLOR_FORCE")
        .env("GIT_AUTHOR_NAME", "Test Operator")
        .env("GIT_AUTHOR_EMAIL", "test@example.com")
        .env_remove("GIT_COMMITTER_NAME")
        .env_remove("GIT_COMMITTER_EMAIL");
    cmd
}

/// Stops a server a test started: SIGTERM, then SIGKILL when it is still there after 10 s,
/// and reaped either way, so no server outlives its test.
pub(crate) fn stop_server(child: &mut std::process::Child) {
    use std::time::{Duration, Instant};
    let pid = libc::pid_t::try_from(child.id()).expect("a pid");
    // SAFETY: kill touches no memory; the pid is our child, not yet reaped.
    unsafe { libc::kill(pid, libc::SIGTERM) };
    let deadline = Instant::now() + Duration::from_secs(10);
    while matches!(child.try_wait(), Ok(None)) {
        if Instant::now() > deadline {
            // A server that ignores SIGTERM must not outlive the test all the same.
            let _ = child.kill();
            let _ = child.wait();
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Exit code and standard output of `cmd`.
pub(crate) fn stdout_of(cmd: &mut Command) -> (i32, String) {
    let output = cmd.output().expect("driftgate runs");
    (
        output.status.code().expect("exited normally"),
        String::from_utf8(output.stdout).expect("UTF-8 output"),
    )
}

/// Runs `cmd` with its output captured, and fails the test when it has not exited within
/// `limit` (it is killed first): for a command that must give up on bad input, not hang on it.
pub(crate) fn output_within(
    cmd: &mut std::process::Command,
    limit: std::time::Duration,
) -> std::process::Output {
    use std::io::{Read as _, Seek as _};
    // Files, not pipes: a child that fills a pipe nobody reads yet would seem to hang.
    let mut stdout = tempfile::tempfile().expect("a temporary file");
    let mut stderr = tempfile::tempfile().expect("a temporary file");
    let mut child = cmd
        .stdin(std::process::Stdio::null())
        .stdout(stdout.try_clone().expect("a second handle"))
        .stderr(stderr.try_clone().expect("a second handle"))
        .spawn()
        .expect("driftgate starts");
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("the child's status") {
            break status;
        }
        if started.elapsed() > limit {
            child.kill().expect("the child can be killed");
            child.wait().expect("the killed child is reaped");
            panic!("{cmd:?} still ran after {limit:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let read = |file: &mut std::fs::File| {
        let mut bytes = Vec::new();
        file.rewind().expect("the file rewinds");
        file.read_to_end(&mut bytes).expect("the file reads");
        bytes
    };
    std::process::Output {
        status,
        stdout: read(&mut stdout),
        stderr: read(&mut stderr),
    }
}

/// Writes `text` to a file in a temporary directory and returns both.
pub(crate) fn temp_file(name: &str, text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join(name);
    std::fs::write(&path, text).expect("the temporary file is writable");
    (dir, path)
}

/// Every file below `dir`, at any depth.
pub(crate) fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("a readable directory entry").path();
        if path.is_dir() {
            files.extend(files_under(&path));
        } else {
            files.push(path);
        }
    }
    files
}

/// Copies the tree below `from` into `to`, creating `to` and its folders.
pub(crate) fn copy_dir(from: &Path, to: &Path) {
    for file in files_under(from) {
        let target = to.join(file.strip_prefix(from).expect("below `from`"));
        std::fs::create_dir_all(target.parent().expect("below `to`"))
            .expect("the target folder is writable");
        std::fs::copy(&file, &target).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    }
}

/// Runs the system `git` (for verification only; driftgate itself never runs git).
pub(crate) fn git(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_AUTHOR_NAME", "Test Operator")
        .env("GIT_AUTHOR_EMAIL", "test@example.com")
        .env("GIT_COMMITTER_NAME", "Test Operator")
        .env("GIT_COMMITTER_EMAIL", "test@example.com")
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?} in {}: {}",
        dir.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 git output")
}

/// xorshift64*: reproducible random delays without another dependency.
pub(crate) struct Random(pub u64);

impl Random {
    /// The next number below `below`.
    pub(crate) fn next(&mut self, below: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) % below
    }
}

pub(crate) mod ansible;
pub(crate) mod attribute_classes;
pub(crate) mod browser;
pub(crate) mod capture;
pub(crate) mod damage;
pub(crate) mod examples;
pub(crate) mod fleet;
pub(crate) mod fleet_sim;
pub(crate) mod gate;
pub(crate) mod inventory;
pub(crate) mod junit;
pub(crate) mod lldp_hostile;
pub(crate) mod mockups;
pub(crate) mod nightly;
pub(crate) mod planted;
pub(crate) mod powershell;
pub(crate) mod prometheus;
pub(crate) mod renaming;
pub(crate) mod renumbering;
pub(crate) mod reports;
pub(crate) mod sarif;
pub(crate) mod scripts;
pub(crate) mod simulator;
pub(crate) mod soap_replay;
pub(crate) mod sshd;
pub(crate) mod sushy;
pub(crate) mod vcsim;
pub(crate) mod windows;

/// `rel` in the public reference data (`tests/fixtures/public`), read in place: a test that
/// needs it fails with the one message every crate's tests give when it is absent (none skips
/// silently).
pub(crate) use driftgate_test_data::public_data;
