//! Scaling of a policy with its number of rules (a loader quadratic in its rules would take
//! seconds at 8,000 rules and minutes at 100,000): loading it (`Policy::with_file`, what every
//! judging command does first) and judging the Azure Local example's post-update snapshot
//! against its baseline under it. Time per rule must stay flat.
//!
//!   cargo bench --bench policy -- [--rules 2000,4000,8000,100000] [--shapes family,mixed]
//!                                 [--runs 3]
//!
//! Shapes of the generated rules: `family`, every rule a glob of one family
//! (`nic/*/bmc/attr<i>`); `mixed`, a quarter each of that, globs with a first segment of their
//! own (`site<i>/**/x`), globs whose first segment is a wildcard (`**/leaf<i>`) and
//! expectations (`firmware/none<i>/**`). Best of `--runs` runs of each.

#![allow(clippy::print_stdout)] // a benchmark report is its output

use std::fmt::Write as _;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use driftgate_compare::{JudgeOptions, Policy};
use driftgate_snapshot::VerifiedSnapshot;

struct Args {
    rules: Vec<usize>,
    shapes: Vec<Shape>,
    runs: usize,
}

#[derive(Clone, Copy)]
enum Shape {
    Family,
    Mixed,
}

impl Shape {
    fn name(self) -> &'static str {
        match self {
            Shape::Family => "family",
            Shape::Mixed => "mixed",
        }
    }

    /// The `[[rule]]` table of rule `i`.
    fn rule(self, i: usize) -> String {
        let body = match (self, i % 4) {
            (Shape::Family, _) | (Shape::Mixed, 0) => {
                format!("path = \"nic/*/bmc/attr{i}\"\non_change = \"block\"")
            }
            (Shape::Mixed, 1) => format!("path = \"site{i}/**/x\"\non_change = \"warn\""),
            (Shape::Mixed, 2) => format!("path = \"**/leaf{i}\"\non_change = \"info\""),
            (Shape::Mixed, _) => format!("path = \"firmware/none{i}/**\"\nexpect = \"x\""),
        };
        format!("[[rule]]\nid = \"rule-{i}\"\n{body}\n\n")
    }
}

fn parse_args() -> Result<Args> {
    let mut args = Args {
        rules: vec![2_000, 4_000, 8_000, 100_000],
        shapes: vec![Shape::Family, Shape::Mixed],
        runs: 3,
    };
    let mut given = std::env::args().skip(1);
    while let Some(arg) = given.next() {
        let mut value = || given.next().with_context(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--rules" => {
                args.rules = value()?
                    .split(',')
                    .map(|n| {
                        n.trim()
                            .parse()
                            .context("--rules: numbers, comma-separated")
                    })
                    .collect::<Result<_>>()?;
            }
            "--shapes" => {
                args.shapes = value()?
                    .split(',')
                    .map(|s| match s.trim() {
                        "family" => Ok(Shape::Family),
                        "mixed" => Ok(Shape::Mixed),
                        other => bail!("--shapes: family or mixed, not {other}"),
                    })
                    .collect::<Result<_>>()?;
            }
            "--runs" => args.runs = value()?.parse().context("--runs: a number")?,
            "--bench" => {} // what `cargo bench` passes
            other => bail!("unknown argument {other}: --rules N,… --shapes family,mixed --runs N"),
        }
    }
    if args.runs == 0 || args.rules.is_empty() || args.shapes.is_empty() {
        bail!("--runs, --rules and --shapes need at least one");
    }
    Ok(args)
}

fn example(file: &str) -> Result<VerifiedSnapshot> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/azure-local-dcbx/").to_owned() + file;
    let text = std::fs::read_to_string(&path).with_context(|| format!("{path}: cannot read"))?;
    Ok(VerifiedSnapshot::parse(&text, &path)?)
}

/// Seconds `f` took, and what it returned.
fn timed<T>(f: impl FnOnce() -> T) -> (f64, T) {
    let start = Instant::now();
    let result = f();
    (start.elapsed().as_secs_f64(), result)
}

fn main() -> Result<()> {
    let args = parse_args()?;
    let baseline = example("baseline.json")?;
    let post = example("post-update.json")?;
    println!(
        "Policy scaling: `Policy::with_file` of N generated rules, then the first `driftgate_compare::judge` under it of the Azure Local example's post-update snapshot ({} facts) against its baseline; best of {} runs.\n",
        post.snapshot().facts.len(),
        args.runs
    );
    println!("| shape | rules | load ms | load µs/rule | judge ms | judge µs/rule | findings |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for &shape in &args.shapes {
        for &rules in &args.rules {
            let mut text = String::new();
            for i in 0..rules {
                let _ = write!(text, "{}", shape.rule(i));
            }
            // Each run loads the policy afresh and judges once, as a command does: the first
            // judgement under a policy builds its automaton.
            let (mut load, mut judge, mut findings) = (f64::MAX, f64::MAX, 0);
            for _ in 0..args.runs {
                let (secs, policy) = timed(|| Policy::with_file(&text, "bench.toml"));
                let policy = policy.context("the generated policy loads")?;
                load = load.min(secs);
                let (secs, report) = timed(|| {
                    driftgate_compare::judge(
                        &post,
                        Some(&baseline),
                        &policy,
                        &JudgeOptions::default(),
                    )
                });
                judge = judge.min(secs);
                findings = report.findings.len();
            }
            let per_rule = |secs: f64| secs * 1e6 / rules as f64;
            println!(
                "| {} | {rules} | {:.1} | {:.2} | {:.1} | {:.3} | {} |",
                shape.name(),
                load * 1e3,
                per_rule(load),
                judge * 1e3,
                per_rule(judge),
                findings
            );
        }
    }
    Ok(())
}
