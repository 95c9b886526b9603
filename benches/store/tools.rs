//! The child processes a row times: driftgate and the git CLI, with a fixed identity and no
//! user or system git configuration, so both sides run the same way on every machine.

use std::fs::File;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail};

/// Where the binaries are, and a folder for the children's error output.
pub(crate) struct Tools {
    driftgate: PathBuf,
    logs: PathBuf,
}

impl Tools {
    /// `driftgate`: `BENCH_DRIFTGATE` or the binary cargo built for this bench.
    pub(crate) fn new(logs: &Path) -> anyhow::Result<Self> {
        let driftgate = std::env::var_os("BENCH_DRIFTGATE")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_driftgate")));
        if !driftgate.is_file() {
            bail!("no driftgate binary at {}", driftgate.display());
        }
        std::fs::create_dir_all(logs).with_context(|| format!("create {}", logs.display()))?;
        Ok(Tools {
            driftgate,
            logs: logs.to_owned(),
        })
    }

    /// `driftgate ARGS…`.
    pub(crate) fn driftgate(&self) -> Command {
        let mut command = Command::new(&self.driftgate);
        command.arg("--color").arg("never");
        identity(&mut command);
        command
    }

    /// `git -C DIR ARGS…`.
    pub(crate) fn git(&self, dir: &Path) -> Command {
        let mut command = Command::new("git");
        command.arg("-C").arg(dir);
        identity(&mut command);
        command
    }

    /// Runs `command` to completion, standard output discarded, and returns its wall time;
    /// fails with its error output when it does not exit 0.
    pub(crate) fn time(&self, command: &mut Command) -> anyhow::Result<Duration> {
        let log = self.logs.join("stderr.txt");
        let stderr = File::create(&log).with_context(|| format!("create {}", log.display()))?;
        command.stdout(Stdio::null()).stderr(stderr);
        let start = Instant::now();
        let status = command
            .status()
            .with_context(|| format!("run {command:?}"))?;
        let elapsed = start.elapsed();
        if !status.success() {
            let mut text = String::new();
            File::open(&log)
                .and_then(|mut f| f.read_to_string(&mut text))
                .with_context(|| format!("read {}", log.display()))?;
            bail!("{command:?} failed ({status}): {}", text.trim());
        }
        Ok(elapsed)
    }

    /// Runs `command` untimed and returns its standard output; fails like [`Tools::time`].
    pub(crate) fn output(&self, command: &mut Command) -> anyhow::Result<String> {
        command.stdin(Stdio::null());
        let output = command
            .output()
            .with_context(|| format!("run {command:?}"))?;
        if !output.status.success() {
            bail!(
                "{command:?} failed ({}): {}",
                output.status,
                String::from_utf8_lossy(&output.stderr).trim()
            );
        }
        String::from_utf8(output.stdout).with_context(|| format!("{command:?}: output not UTF-8"))
    }

    /// Runs `command` untimed, output discarded.
    pub(crate) fn run(&self, command: &mut Command) -> anyhow::Result<()> {
        self.time(command).map(drop)
    }
}

/// Writes back every file's dirty pages (`sync`) before a timed promote of either side: the
/// bench writes a wave's inputs (1.2 GB at 10,000 hosts, both sides' copies) just before
/// driftgate's run, and driftgate writes its work tree just before git's, so without it each
/// side's time includes writing back what was written before it started.
pub(crate) fn settle() -> anyhow::Result<()> {
    let status = Command::new("sync").status().context("run sync")?;
    if !status.success() {
        bail!("sync failed ({status})");
    }
    Ok(())
}

/// The author and committer both sides record, and no configuration from outside the bench
/// (hooks, signing), without touching the user's files.
fn identity(command: &mut Command) {
    command
        .env("GIT_AUTHOR_NAME", "driftgate bench")
        .env("GIT_AUTHOR_EMAIL", "bench@driftgate.invalid")
        .env("GIT_COMMITTER_NAME", "driftgate bench")
        .env("GIT_COMMITTER_EMAIL", "bench@driftgate.invalid")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env_remove("DRIFTGATE_REPO")
        .env_remove("DRIFTGATE_POLICY")
        .stdin(Stdio::null());
}

/// The median of `samples` (the mean of the two middle ones for an even count).
pub(crate) fn median(samples: &mut [Duration]) -> Duration {
    assert!(!samples.is_empty(), "a median needs samples");
    samples.sort();
    let mid = samples.len() / 2;
    if samples.len() % 2 == 1 {
        samples[mid]
    } else {
        (samples[mid - 1] + samples[mid]) / 2
    }
}
