//! The baseline store against the git CLI a user would script instead:
//! promote of N new and N changed baselines in one commit, `baseline show`, the read of every
//! baseline at a revision as `check --all` does it, and `baseline log` over 1,000 commits.
//! Every driftgate figure sits beside its peer's, measured in the same run on the same data,
//! generated from the real Dell capture in `tests/fixtures/public/redfish/libredfish-dell`.
//!
//! Run: `cargo bench --bench store -- [--sizes 100,1000,10000] [--runs 5]
//! [--rows promote-new,promote-changed,show,read,log] [--keep DIR]`. The Markdown table goes
//! to standard output (for BENCHMARKS.md), progress to standard error. The driftgate binary
//! is the one cargo builds for the bench, or `BENCH_DRIFTGATE=PATH`.

#![allow(clippy::print_stdout)] // a benchmark report is its output

#[path = "store/data.rs"]
mod data;
#[path = "store/report.rs"]
mod report;
#[path = "store/rows.rs"]
mod rows;
#[path = "store/tools.rs"]
mod tools;

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context as _, bail};

use crate::rows::{Bench, progress};

/// Every row, in the order they run.
const ROWS: [&str; 5] = ["promote-new", "promote-changed", "show", "read", "log"];

/// What the command line asked for.
struct Args {
    sizes: Vec<usize>,
    runs: usize,
    rows: Vec<String>,
    keep: Option<PathBuf>,
}

fn parse_args() -> anyhow::Result<Args> {
    let mut args = Args {
        sizes: vec![100, 1000, 10_000],
        runs: 5,
        rows: ROWS.iter().map(|r| (*r).to_owned()).collect(),
        keep: None,
    };
    let mut given = std::env::args().skip(1);
    while let Some(arg) = given.next() {
        let mut value = || given.next().with_context(|| format!("{arg} needs a value"));
        match arg.as_str() {
            // cargo bench passes --bench to every bench binary.
            "--bench" => {}
            "--sizes" => {
                args.sizes = value()?
                    .split(',')
                    .map(|s| s.trim().parse::<usize>().context("--sizes: a host count"))
                    .collect::<Result<_, _>>()?;
                if args.sizes.contains(&0) {
                    bail!("--sizes: a host count is at least 1");
                }
            }
            "--runs" => {
                args.runs = value()?.parse().context("--runs: a number")?;
                if args.runs == 0 {
                    bail!("--runs: at least 1");
                }
            }
            "--rows" => {
                args.rows = value()?.split(',').map(|r| r.trim().to_owned()).collect();
                if let Some(bad) = args.rows.iter().find(|r| !ROWS.contains(&r.as_str())) {
                    bail!("--rows: unknown row {bad:?} (rows: {})", ROWS.join(","));
                }
            }
            "--keep" => args.keep = Some(PathBuf::from(value()?)),
            other => bail!(
                "unknown argument {other:?}; usage: cargo bench --bench store -- [--sizes 100,1000,10000] [--runs 5] [--rows {}] [--keep DIR]",
                ROWS.join(",")
            ),
        }
    }
    Ok(args)
}

fn main() -> anyhow::Result<()> {
    let args = parse_args()?;
    // The in-process read row reads as the driftgate binary does, which sets this at start.
    git2::opts::strict_hash_verification(false);
    rows::check_git()?;
    let work = args.keep.clone().unwrap_or_else(|| {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("target")
            .join("bench-store")
    });
    std::fs::create_dir_all(&work).with_context(|| format!("create {}", work.display()))?;
    let result = run(&args, &work);
    if args.keep.is_none() {
        std::fs::remove_dir_all(&work).with_context(|| format!("remove {}", work.display()))?;
    } else {
        progress(&format!("data kept in {}", work.display()));
    }
    let table = result?;
    print!("{table}");
    Ok(())
}

fn run(args: &Args, work: &Path) -> anyhow::Result<String> {
    let tools = tools::Tools::new(&work.join("logs"))?;
    let started = Instant::now();
    let capture = data::capture(&tools, &work.join("dell.json"))?;
    let template = data::Template::new(&capture)?;
    progress(&format!(
        "captured the Dell mockup in {:.2} s: {}",
        started.elapsed().as_secs_f64(),
        template.describe()
    ));
    let mut bench = Bench {
        tools: &tools,
        template: &template,
        work: work.to_owned(),
        runs: args.runs,
        lines: Vec::new(),
    };
    let per_size = ["promote-new", "promote-changed", "show", "read"];
    if args.rows.iter().any(|r| per_size.contains(&r.as_str())) {
        for &n in &args.sizes {
            rows::size(&mut bench, n, &args.rows)?;
            if args.keep.is_none() {
                rows::clean_size(work, n)?;
            }
        }
    }
    if args.rows.iter().any(|r| r == "log") {
        rows::log(&mut bench)?;
    }
    let header = format!(
        "### Baseline store against the git CLI ({}; {})",
        git_version()?,
        template.describe()
    );
    Ok(report::markdown(&bench.lines, args.runs, &header))
}

fn git_version() -> anyhow::Result<String> {
    let output = std::process::Command::new("git")
        .arg("--version")
        .output()
        .context("run git --version")?;
    Ok(String::from_utf8_lossy(&output.stdout).trim().to_owned())
}
