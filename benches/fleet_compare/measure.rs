//! Whole processes timed: wall time by the clock around the child, peak RSS by
//! `/usr/bin/time -f %M` (the child's getrusage), and medians over runs; inputs read into the
//! page cache before each timed run.

use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{Context, Result, bail};

/// One finished child.
pub(crate) struct Timed {
    /// Seconds from spawn to exit.
    pub wall: f64,
    /// Peak resident set, KiB.
    pub rss_kib: u64,
    /// Exit code.
    pub code: i32,
    /// Its standard output.
    pub stdout: Vec<u8>,
}

/// Runs `program args` under `/usr/bin/time`; standard output is kept when `keep_stdout`,
/// else goes to /dev/null. `rss_file` is scratch space for time's report.
pub(crate) fn run(
    program: &Path,
    args: &[&std::ffi::OsStr],
    keep_stdout: bool,
    rss_file: &Path,
) -> Result<Timed> {
    let mut command = Command::new("/usr/bin/time");
    command
        .arg("-f")
        .arg("%M")
        .arg("-o")
        .arg(rss_file)
        .arg(program)
        .args(args)
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .stdout(if keep_stdout {
            Stdio::piped()
        } else {
            Stdio::null()
        });
    let start = Instant::now();
    let output = command
        .output()
        .with_context(|| format!("run /usr/bin/time {}", program.display()))?;
    let wall = start.elapsed().as_secs_f64();
    let report = fs::read_to_string(rss_file).context("read /usr/bin/time's report")?;
    // A child that fails has "Command exited with non-zero status N" before the figure.
    let rss_kib = report
        .lines()
        .rev()
        .find_map(|l| l.trim().parse().ok())
        .with_context(|| format!("no peak RSS in /usr/bin/time's report {report:?}"))?;
    let code = output.status.code().unwrap_or(-1);
    if code != 0 && code != 1 {
        bail!(
            "{} exited {code}: {}",
            program.display(),
            String::from_utf8_lossy(&output.stderr)
                .lines()
                .next_back()
                .unwrap_or("")
        );
    }
    Ok(Timed {
        wall,
        rss_kib,
        code,
        stdout: output.stdout,
    })
}

/// Reads every file under `dirs` (recursively) and discards it, so that the run timed next
/// reads its inputs from the page cache: the VMs this runs on give page cache back to the host
/// all the time (about 25 MB a second), and a run that found part of its 1 GB of inputs evicted
/// was timing the disk. The Python peers' figures are their loop alone, after loading.
pub(crate) fn warm(dirs: &[&Path]) -> Result<()> {
    let mut pending: Vec<std::path::PathBuf> = dirs.iter().map(|d| d.to_path_buf()).collect();
    while let Some(dir) = pending.pop() {
        for entry in fs::read_dir(&dir).with_context(|| format!("read {}", dir.display()))? {
            let path = entry?.path();
            if path.is_dir() {
                pending.push(path);
            } else {
                fs::read(&path).with_context(|| format!("read {}", path.display()))?;
            }
        }
    }
    Ok(())
}

/// The median of `values` (the mean of the middle two of an even count).
pub(crate) fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    match sorted.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => sorted[n / 2],
        n => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
    }
}
