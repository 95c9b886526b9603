//! The compare benchmark: N host snapshot pairs made from the real Dell
//! capture, judged by `driftgate check --all --snapshots` as one whole process, and in the
//! same run, on the same pairs, its peers: the serde_json parse of both sides alone (the
//! floor), PyPI `deepdiff` and PyPI `deepdiff-rs` (benches/peer/deepdiff_pairs.py). Prints a
//! Markdown table: wall time, time per pair, peak RSS, the ratios against the targets.
//!
//!   cargo bench --bench fleet_compare -- [--hosts 10000] [--runs 5] [--peer-sample 1000]
//!                                        [--python PATH] [--keep]
//!
//! The floor is this binary re-run as a child (`--floor LIST`), so it is a whole process as
//! driftgate is: read every file of both sides from disk and `serde_json::from_slice` it into
//! a `Value`, sequentially. The Python peers need the venv scripts/bench.sh makes
//! (target/bench-venv, or `--python`); they run over the first `--peer-sample` pairs and are
//! scaled to N (their time per pair is flat). driftgate also runs at N/10 hosts: its peak RSS
//! must be bounded by the largest pair, not the fleet. Data goes to target/bench/fleet-compare
//! (removed at the end unless --keep); the Dell snapshot is captured once from
//! `driftgate mockup serve` into target/bench/dell.json. Before each timed run of driftgate and
//! of the floor, their input files are read once, untimed (`measure::warm`). The driftgate
//! binary is the one cargo builds for the bench, or `BENCH_DRIFTGATE=PATH`.

#![allow(clippy::print_stdout, clippy::print_stderr)] // a benchmark report is its output

#[path = "fleet_compare/measure.rs"]
mod measure;
#[path = "fleet_compare/pairs.rs"]
mod pairs;

use std::ffi::OsStr;
use std::fs;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{Context, Result, bail};
use driftgate_snapshot::VerifiedSnapshot;

use measure::median;

struct Args {
    hosts: usize,
    runs: usize,
    peer_sample: usize,
    python: Option<PathBuf>,
    keep: bool,
}

fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Args> {
    let mut parsed = Args {
        hosts: 10_000,
        runs: 5,
        peer_sample: 1_000,
        python: None,
        keep: false,
    };
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().with_context(|| format!("{name} needs a value"));
        match arg.as_str() {
            "--hosts" => parsed.hosts = value("--hosts")?.parse().context("--hosts N")?,
            "--runs" => parsed.runs = value("--runs")?.parse().context("--runs N")?,
            "--peer-sample" => {
                parsed.peer_sample = value("--peer-sample")?.parse().context("--peer-sample N")?;
            }
            "--python" => parsed.python = Some(value("--python")?.into()),
            "--keep" => parsed.keep = true,
            "--bench" => {} // what `cargo bench` passes
            other => bail!(
                "unknown argument {other}: --hosts N --runs N --peer-sample N --python PATH --keep"
            ),
        }
    }
    if parsed.hosts < 10 || parsed.runs == 0 || parsed.peer_sample == 0 {
        bail!("--hosts must be at least 10, --runs and --peer-sample at least 1");
    }
    parsed.peer_sample = parsed.peer_sample.min(parsed.hosts);
    Ok(parsed)
}

/// The floor, as a child: every file of LIST (one path a line) read and parsed into a
/// `serde_json::Value`, sequentially. Prints the files and bytes parsed.
fn floor(list: &Path) -> Result<()> {
    let list = fs::read_to_string(list).with_context(|| format!("read {}", list.display()))?;
    let (mut files, mut bytes, mut keys) = (0usize, 0usize, 0usize);
    for file in list.lines() {
        let text = fs::read(file).with_context(|| format!("read {file}"))?;
        let value: serde_json::Value =
            serde_json::from_slice(&text).with_context(|| format!("parse {file}"))?;
        // Used, so the parse is not optimised away.
        keys += value["facts"].as_object().map_or(0, serde_json::Map::len);
        files += 1;
        bytes += text.len();
    }
    println!("{{\"files\": {files}, \"bytes\": {bytes}, \"facts\": {keys}}}");
    Ok(())
}

/// The Dell capture as a sealed snapshot: target/bench/dell.json, captured once from
/// `driftgate mockup serve` of tests/fixtures/public/redfish/libredfish-dell.
fn dell_snapshot(driftgate: &Path, root: &Path, bench_dir: &Path) -> Result<VerifiedSnapshot> {
    let file = bench_dir.join("dell.json");
    if !file.exists() {
        let capture = root.join("tests/fixtures/public/redfish/libredfish-dell");
        if !capture.join("redfish/v1").is_dir() {
            bail!(
                "the real Dell capture is not at {} (the benchmark generates its hosts from it)",
                capture.display()
            );
        }
        eprintln!(
            "fleet_compare: capturing the Dell mockup into {}",
            file.display()
        );
        let mut server = Command::new(driftgate)
            .args(["--color", "never", "mockup", "serve"])
            .arg(&capture)
            .args(["--listen", "127.0.0.1:0"])
            .env("DRIFTGATE_MOCKUP_USERNAME", "bench")
            .env("DRIFTGATE_MOCKUP_PASSWORD", "bench-only")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .context("start driftgate mockup serve")?;
        let stdout = server.stdout.take().context("the simulator's output")?;
        // Kept open until the simulator stops: it may still write to it.
        let mut lines = BufReader::new(stdout).lines();
        let url = lines
            .by_ref()
            .map_while(Result::ok)
            // "serving DIR on URL"
            .find_map(|l| {
                l.strip_prefix("serving ")
                    .and_then(|rest| rest.rsplit(' ').next())
                    .map(str::to_owned)
            });
        let status = url.as_ref().map(|url| {
            Command::new(driftgate)
                .args(["--color", "never", "capture", "--host", "dell", "--source"])
                .arg(format!("redfish={url}"))
                .arg("--out")
                .arg(&file)
                .env("DRIFTGATE_BMC_USERNAME", "bench")
                .env("DRIFTGATE_BMC_PASSWORD", "bench-only")
                .stderr(Stdio::null())
                .status()
        });
        server.kill().context("stop the simulator")?;
        server.wait().context("wait for the simulator")?;
        drop(lines);
        let status = status
            .context("driftgate mockup serve did not say where it serves")?
            .context("run driftgate capture")?;
        if !status.success() {
            bail!("driftgate capture of the Dell mockup failed: {status}");
        }
    }
    let text = fs::read_to_string(&file).with_context(|| format!("read {}", file.display()))?;
    VerifiedSnapshot::parse(&text, &file.display().to_string())
        .with_context(|| format!("{} is not a sealed snapshot", file.display()))
}

/// The medians of one tool's runs.
#[derive(Default)]
struct Series {
    wall: Vec<f64>,
    rss_mib: Vec<f64>,
}

impl Series {
    fn push(&mut self, wall: f64, rss_kib: u64) {
        self.wall.push(wall);
        self.rss_mib.push(rss_kib as f64 / 1024.0);
    }
    fn wall(&self) -> f64 {
        median(&self.wall)
    }
    fn rss(&self) -> f64 {
        median(&self.rss_mib)
    }
}

/// A Python peer's runs: the loop's seconds over the sample, and its whole process.
#[derive(Default)]
struct Peer {
    name: String,
    loop_seconds: Vec<f64>,
    process: Series,
    counts: String,
}

fn run_peer(
    python: &Path,
    script: &Path,
    peer: &str,
    pairs: &Path,
    scratch: &Path,
    into: &mut Peer,
) -> Result<()> {
    let timed = measure::run(
        python,
        &[script.as_os_str(), OsStr::new(peer), pairs.as_os_str()],
        true,
        scratch,
    )?;
    let report: serde_json::Value =
        serde_json::from_slice(&timed.stdout).with_context(|| format!("{peer}'s report"))?;
    into.name = report["peer"].as_str().unwrap_or(peer).to_owned();
    into.loop_seconds
        .push(report["seconds"].as_f64().context("the peer's seconds")?);
    into.process.push(timed.wall, timed.rss_kib);
    into.counts = format!(
        "{} changed, {} added, {} removed",
        report["changed"], report["added"], report["removed"]
    );
    Ok(())
}

/// `driftgate check --all` of `inventory`'s hosts, judged from `snapshots` against `store`.
fn check<'a>(inventory: &'a Path, store: &'a Path, snapshots: &'a Path) -> Vec<&'a OsStr> {
    vec![
        OsStr::new("--color"),
        OsStr::new("never"),
        OsStr::new("check"),
        OsStr::new("--all"),
        OsStr::new("--quiet"),
        OsStr::new("--inventory"),
        inventory.as_os_str(),
        OsStr::new("--repo"),
        store.as_os_str(),
        OsStr::new("--snapshots"),
        snapshots.as_os_str(),
        OsStr::new("--format"),
        OsStr::new("json"),
    ]
}

fn met(ok: bool) -> &'static str {
    if ok { "met" } else { "**NOT MET**" }
}

fn main() -> Result<()> {
    let mut argv = std::env::args().skip(1).peekable();
    if argv.peek().map(String::as_str) == Some("--floor") {
        let list = argv.nth(1).context("--floor LIST")?;
        return floor(Path::new(&list));
    }
    let args = parse_args(argv)?;
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    // The deployed build (scripts/bench.sh passes the `dist` profile's), else cargo's.
    let driftgate = std::env::var_os("BENCH_DRIFTGATE")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_driftgate")));
    let bench_dir = root.join("target/bench");
    fs::create_dir_all(&bench_dir).context("create target/bench")?;
    let dell = dell_snapshot(&driftgate, &root, &bench_dir)?;

    let dir = bench_dir.join("fleet-compare");
    let started = Instant::now();
    let pairs = pairs::generate(&driftgate, &dell, args.hosts, &dir)?;
    let generation = started.elapsed().as_secs_f64();
    let tenth = args.hosts / 10;
    let (inventory, inventory_tenth) =
        (dir.join("inventory.toml"), dir.join("inventory-tenth.toml"));
    pairs.write_inventory(args.hosts, &inventory)?;
    pairs.write_inventory(tenth, &inventory_tenth)?;
    let files = pairs.files(args.hosts);
    let list: String = files
        .iter()
        .flat_map(|(b, s)| [b, s])
        .map(|p| format!("{}\n", p.display()))
        .collect();
    let floor_list = dir.join("floor.txt");
    fs::write(&floor_list, list).context("write the floor's list")?;
    let sample: String = files[..args.peer_sample]
        .iter()
        .map(|(b, s)| format!("{}\t{}\n", b.display(), s.display()))
        .collect();
    let sample_list = dir.join("peer-sample.txt");
    fs::write(&sample_list, sample).context("write the peers' list")?;
    eprintln!(
        "fleet_compare: {} pairs of up to {} facts ({:.0} MB) generated in {generation:.1} s",
        args.hosts,
        pairs.max_facts,
        pairs.bytes as f64 / 1e6
    );

    let python = args
        .python
        .clone()
        .unwrap_or_else(|| root.join("target/bench-venv/bin/python"));
    let script = root.join("benches/peer/deepdiff_pairs.py");
    let have_python = python.exists();
    if !have_python {
        eprintln!(
            "fleet_compare: no Python peers: {} is missing (scripts/bench.sh makes the venv)",
            python.display()
        );
    }
    let this = std::env::current_exe().context("this benchmark's path")?;
    let scratch = dir.join("time.out");
    let (mut full, mut small, mut parse) =
        (Series::default(), Series::default(), Series::default());
    let (mut deepdiff, mut deepdiff_rs) = (Peer::default(), Peer::default());
    let mut verdicts = String::new();
    for run in 1..=args.runs {
        eprintln!("fleet_compare: run {run} of {}", args.runs);
        measure::warm(&[&pairs.store, &pairs.snapshots])?;
        let timed = measure::run(
            &driftgate,
            &check(&inventory, &pairs.store, &pairs.snapshots),
            false,
            &scratch,
        )?;
        full.push(timed.wall, timed.rss_kib);
        measure::warm(&[&pairs.store, &pairs.snapshots])?;
        let timed = measure::run(
            &driftgate,
            &check(&inventory_tenth, &pairs.store, &pairs.snapshots),
            true,
            &scratch,
        )?;
        small.push(timed.wall, timed.rss_kib);
        if run == 1 {
            let report: serde_json::Value =
                serde_json::from_slice(&timed.stdout).context("driftgate's fleet report")?;
            verdicts = format!("exit {}, counts {}", timed.code, report["counts"]);
        }
        measure::warm(&[&pairs.baselines, &pairs.snapshots])?;
        let timed = measure::run(
            &this,
            &[OsStr::new("--floor"), floor_list.as_os_str()],
            false,
            &scratch,
        )?;
        parse.push(timed.wall, timed.rss_kib);
        if have_python {
            run_peer(
                &python,
                &script,
                "deepdiff",
                &sample_list,
                &scratch,
                &mut deepdiff,
            )?;
            run_peer(
                &python,
                &script,
                "deepdiff-rs",
                &sample_list,
                &scratch,
                &mut deepdiff_rs,
            )?;
        }
    }
    if !args.keep {
        fs::remove_dir_all(&dir).with_context(|| format!("remove {}", dir.display()))?;
    }

    let n = args.hosts as f64;
    println!(
        "### Compare: {} host pairs of ~{} facts (the Dell capture, mutated), medians of {} runs\n",
        args.hosts, pairs.max_facts, args.runs
    );
    println!(
        "`driftgate check --all --inventory INV --repo STORE --snapshots DIR --format json > /dev/null` \
         (baselines read from the store's git tree, snapshots from DIR; whole process). The floor \
         reads and `serde_json`-parses both sides' files ({:.0} MB) in one process. The Python peers \
         load both files and run `DeepDiff(baseline[\"facts\"], snapshot[\"facts\"])` per pair over \
         the first {} pairs, their loop time scaled to {} (time per pair is flat); their peak RSS is \
         that process's. Each run of driftgate and of the floor starts with its inputs in the page \
         cache (read untimed just before).\n",
        pairs.bytes as f64 / 1e6,
        args.peer_sample,
        args.hosts
    );
    println!(
        "| tool | pairs run | wall s (at {}) | µs per pair | peak RSS MiB |",
        args.hosts
    );
    println!("|---|---:|---:|---:|---:|");
    let row = |name: &str, ran: usize, wall: f64, rss: f64| {
        println!(
            "| {name} | {ran} | {wall:.2} | {:.0} | {rss:.0} |",
            wall / n * 1e6
        );
    };
    row("driftgate check --all", args.hosts, full.wall(), full.rss());
    println!(
        "| driftgate check --all, N/10 | {tenth} | {:.2} (at {tenth}) | {:.0} | {:.0} |",
        small.wall(),
        small.wall() / tenth as f64 * 1e6,
        small.rss()
    );
    row(
        "serde_json parse floor",
        args.hosts,
        parse.wall(),
        parse.rss(),
    );
    let scaled = |peer: &Peer| median(&peer.loop_seconds) / args.peer_sample as f64 * n;
    for peer in [&deepdiff, &deepdiff_rs] {
        if have_python {
            row(
                &format!("{} (scaled)", peer.name),
                args.peer_sample,
                scaled(peer),
                peer.process.rss(),
            );
        }
    }
    println!("\n| target | measured | |");
    println!("|---|---:|---|");
    let floor_ratio = full.wall() / parse.wall();
    println!(
        "| driftgate ≤ 2× the parse floor | {floor_ratio:.2}× | {} |",
        met(floor_ratio <= 2.0)
    );
    if have_python {
        let ratio = scaled(&deepdiff) / full.wall();
        println!(
            "| ≥ 50× faster than {} | {ratio:.1}× | {} |",
            deepdiff.name,
            met(ratio >= 50.0)
        );
        let ratio = scaled(&deepdiff_rs) / full.wall();
        println!(
            "| ≥ 2× faster than {} | {ratio:.1}× | {} |",
            deepdiff_rs.name,
            met(ratio >= 2.0)
        );
    } else {
        println!("| ≥ 50× faster than deepdiff | not run (no venv) | **NOT MET** |");
        println!("| ≥ 2× faster than deepdiff-rs | not run (no venv) | **NOT MET** |");
    }
    let rss_ratio = full.rss() / small.rss();
    println!(
        "| peak RSS bounded by the largest pair: at {} ≤ 1.5× at {tenth} | {:.0} / {:.0} MiB = {rss_ratio:.2}× | {} |",
        args.hosts,
        full.rss(),
        small.rss(),
        met(rss_ratio <= 1.5)
    );
    println!("\ndriftgate at {tenth} hosts (first run): {verdicts}.");
    if have_python {
        println!(
            "Peers over {} pairs: {} {}; {} {}.",
            args.peer_sample, deepdiff.name, deepdiff.counts, deepdiff_rs.name, deepdiff_rs.counts
        );
    }
    println!("Generation of the pairs and the store: {generation:.1} s.\n");
    Ok(())
}
