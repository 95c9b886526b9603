//! The five measurements. Each driftgate run is followed by its peer's on the same data, so
//! both see the same machine load.

use std::io::{BufWriter, Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail, ensure};
use driftgate_snapshot::VerifiedSnapshot;
use driftgate_store::Store;

use crate::data::{Template, host_name};
use crate::report::Line;
use crate::tools::{Tools, median, settle};

/// The fleet folder every baseline goes into.
const FLEET: &str = "lab";
/// `baseline show` calls per run (a single call is a few milliseconds).
const SHOW_CALLS: usize = 20;
/// Hosts the per-host `git show` loop is timed on; larger fleets are scaled from it.
const LOOP_SAMPLE: usize = 200;
/// The history `baseline log` walks: hosts in the store, commits, hosts changed per commit.
const LOG_HOSTS: usize = 1000;
const LOG_COMMITS: usize = 1000;
const LOG_CHANGED: usize = 3;
/// The logged host is changed in every this-many-th commit.
const LOG_EVERY: usize = 10;

/// The data and tools of one bench run, and what it measured so far.
pub(crate) struct Bench<'a> {
    pub tools: &'a Tools,
    pub template: &'a Template,
    pub work: PathBuf,
    pub runs: usize,
    pub lines: Vec<Line>,
}

/// One fleet size's folders.
struct Fleet {
    hosts: Vec<usize>,
    new: PathBuf,
    changed: PathBuf,
    store: PathBuf,
    peer: PathBuf,
    /// Whether `store` and `peer` hold every host's baseline.
    populated: bool,
    /// The last firmware wave promoted.
    wave: u32,
}

impl Fleet {
    fn peer_files(&self) -> PathBuf {
        self.peer.join("baselines").join(FLEET)
    }
}

/// Measures one fleet size: the rows of `rows` that apply to it, in order.
pub(crate) fn size(bench: &mut Bench<'_>, n: usize, rows: &[String]) -> anyhow::Result<()> {
    let dir = bench.work.join(format!("n{n}"));
    let mut fleet = Fleet {
        hosts: (1..=n).collect(),
        new: dir.join("new"),
        changed: dir.join("changed"),
        store: dir.join("store"),
        peer: dir.join("peer"),
        populated: false,
        wave: 0,
    };
    let started = Instant::now();
    bench.template.write(&fleet.hosts, 0, &[&fleet.new])?;
    progress(&format!(
        "{n} hosts: generated {n} baselines in {:.2} s",
        started.elapsed().as_secs_f64()
    ));
    let wants = |row: &str| rows.iter().any(|r| r == row);
    if wants("promote-new") {
        promote_new(bench, &mut fleet)?;
    }
    if wants("promote-changed") {
        promote_changed(bench, &mut fleet)?;
    }
    if wants("show") {
        show(bench, &mut fleet)?;
    }
    if wants("read") {
        read(bench, &mut fleet)?;
    }
    Ok(())
}

/// Row 1: N new baselines in one commit, into a fresh store; peer: the same files in a fresh
/// work tree, `git add -A && git commit`.
fn promote_new(bench: &mut Bench<'_>, fleet: &mut Fleet) -> anyhow::Result<()> {
    let n = fleet.hosts.len();
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for run in 0..bench.runs {
        fresh_store(bench.tools, &fleet.store)?;
        fresh_peer(bench.tools, &fleet.peer)?;
        link_all(&fleet.new, &fleet.peer_files(), &fleet.hosts)?;
        promote_against_git(bench, fleet, &fleet.new, run, "new", &mut ours, &mut theirs)?;
    }
    fleet.populated = true;
    bench.lines.push(promote_line(
        "promote N new baselines (one commit)",
        n,
        &mut ours,
        &mut theirs,
    ));
    Ok(())
}

/// Run `run` of a promote row: driftgate promotes `inputs`, git adds and commits the peer's
/// copies of them; the first run also checks that both committed the same blobs.
fn promote_against_git(
    bench: &Bench<'_>,
    fleet: &Fleet,
    inputs: &Path,
    run: usize,
    what: &str,
    ours: &mut Vec<Duration>,
    theirs: &mut Vec<Duration>,
) -> anyhow::Result<()> {
    let n = fleet.hosts.len();
    ours.push(promote(bench.tools, &fleet.store, inputs, &fleet.hosts)?);
    theirs.push(add_commit(bench.tools, &fleet.peer, n)?);
    if run == 0 {
        same_blob(bench.tools, fleet, inputs)?;
    }
    progress(&format!(
        "{n} hosts: promote {what}, run {}: driftgate {:.3} s, git {:.3} s",
        run + 1,
        ours[run].as_secs_f64(),
        theirs[run].as_secs_f64()
    ));
    Ok(())
}

/// The table line of a promote row.
fn promote_line(
    work: &'static str,
    hosts: usize,
    ours: &mut [Duration],
    theirs: &mut [Duration],
) -> Line {
    Line {
        work,
        hosts,
        driftgate: median(ours),
        peer_name: "`git add -A && git commit`",
        peer: median(theirs),
        per_host: true,
        max_ratio: Some(1.2),
        note: None,
    }
}

/// Row 2: every host's firmware version and one BIOS attribute change, one commit over a
/// store holding them all; each run is a new wave (new blobs on both sides).
fn promote_changed(bench: &mut Bench<'_>, fleet: &mut Fleet) -> anyhow::Result<()> {
    populate(bench, fleet)?;
    let n = fleet.hosts.len();
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for run in 0..bench.runs {
        fleet.wave += 1;
        bench.template.write(
            &fleet.hosts,
            fleet.wave,
            &[&fleet.changed, &fleet.peer_files()],
        )?;
        promote_against_git(
            bench,
            fleet,
            &fleet.changed,
            run,
            "changed",
            &mut ours,
            &mut theirs,
        )?;
    }
    bench.lines.push(promote_line(
        "promote N changed baselines (one commit)",
        n,
        &mut ours,
        &mut theirs,
    ));
    Ok(())
}

/// Row 3: one host's baseline in an N-host store, printed to /dev/null.
fn show(bench: &mut Bench<'_>, fleet: &mut Fleet) -> anyhow::Result<()> {
    populate(bench, fleet)?;
    let n = fleet.hosts.len();
    let host = host_name(n.div_ceil(2));
    let path = format!("HEAD:baselines/{FLEET}/{host}.json");
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for _ in 0..bench.runs * SHOW_CALLS {
        ours.push(
            bench.tools.time(
                bench
                    .tools
                    .driftgate()
                    .arg("baseline")
                    .arg("show")
                    .arg("--repo")
                    .arg(&fleet.store)
                    .arg(&host),
            )?,
        );
        theirs.push(
            bench
                .tools
                .time(bench.tools.git(&fleet.store).arg("show").arg(&path))?,
        );
    }
    let (ours, theirs) = (median(&mut ours), median(&mut theirs));
    progress(&format!(
        "{n} hosts: show: driftgate {:.1} ms, git {:.1} ms",
        ours.as_secs_f64() * 1e3,
        theirs.as_secs_f64() * 1e3
    ));
    bench.lines.push(Line {
        work: "`baseline show HOST`",
        hosts: n,
        driftgate: ours,
        peer_name: "`git show HEAD:PATH`",
        peer: theirs,
        per_host: false,
        max_ratio: Some(1.0),
        note: Some(format!(
            "median of {} calls of each, output to /dev/null",
            bench.runs * SHOW_CALLS
        )),
    });
    Ok(())
}

/// Row 4: every baseline at a revision, as `check --all` reads them (in process), against
/// `git ls-tree | git cat-file --batch` and the per-host `git show` loop.
fn read(bench: &mut Bench<'_>, fleet: &mut Fleet) -> anyhow::Result<()> {
    populate(bench, fleet)?;
    let n = fleet.hosts.len();
    let step = n.div_ceil(LOOP_SAMPLE).max(1);
    let sample: Vec<usize> = fleet.hosts.iter().copied().step_by(step).collect();
    let (mut plain, mut parsed, mut batch, mut per_host) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for run in 0..bench.runs {
        let (time, bytes) = read_in_process(&fleet.store, n, false)?;
        plain.push(time);
        parsed.push(read_in_process(&fleet.store, n, true)?.0);
        let (time, batch_bytes) = cat_file_batch(bench.tools, &fleet.store)?;
        ensure!(
            batch_bytes > bytes,
            "git cat-file --batch gave {batch_bytes} bytes, less than the {bytes} bytes of the baselines"
        );
        batch.push(time);
        let started = Instant::now();
        for &host in &sample {
            bench.tools.run(
                bench
                    .tools
                    .git(&fleet.store)
                    .arg("show")
                    .arg(format!("HEAD:baselines/{FLEET}/{}.json", host_name(host))),
            )?;
        }
        let scaled = started.elapsed().as_secs_f64() * n as f64 / sample.len() as f64;
        per_host.push(Duration::from_secs_f64(scaled));
        progress(&format!(
            "{n} hosts: read, run {}: in process {:.3} s (+parse {:.3} s), cat-file {:.3} s, git show loop {:.3} s",
            run + 1,
            plain[run].as_secs_f64(),
            parsed[run].as_secs_f64(),
            batch[run].as_secs_f64(),
            per_host[run].as_secs_f64()
        ));
    }
    let loop_note = (sample.len() < n).then(|| {
        format!(
            "at {} hosts the loop is timed on {} evenly spread hosts and scaled by {n}/{}",
            n,
            sample.len(),
            sample.len()
        )
    });
    let (plain, parsed) = (median(&mut plain), median(&mut parsed));
    let (batch, per_host) = (median(&mut batch), median(&mut per_host));
    for (work, ours, targets) in [
        (
            "read all N baselines at a revision (in process: discover, list, read)",
            plain,
            true,
        ),
        (
            "read all N baselines and parse them (in process, as `check --all`)",
            parsed,
            false,
        ),
    ] {
        bench.lines.push(Line {
            work,
            hosts: n,
            driftgate: ours,
            peer_name: "`git ls-tree -r REV baselines/` \\| `git cat-file --batch`",
            peer: batch,
            per_host: true,
            max_ratio: targets.then_some(1.0),
            note: None,
        });
        bench.lines.push(Line {
            work,
            hosts: n,
            driftgate: ours,
            peer_name: "`git show REV:PATH` per host",
            peer: per_host,
            per_host: true,
            max_ratio: targets.then_some(0.1),
            note: loop_note.clone(),
        });
    }
    Ok(())
}

/// `Store::discover` + `baseline_files` + `read_file` of each (and `VerifiedSnapshot::parse`
/// when `parse`): the time and the bytes read.
fn read_in_process(store: &Path, n: usize, parse: bool) -> anyhow::Result<(Duration, usize)> {
    let started = Instant::now();
    let store = Store::discover(store)?;
    let files = store.baseline_files("HEAD")?;
    let mut bytes = 0;
    for file in &files {
        let content = store.read_file(file)?;
        bytes += content.len();
        if parse {
            let text = std::str::from_utf8(&content)
                .with_context(|| format!("{} is not UTF-8", file.path))?;
            std::hint::black_box(VerifiedSnapshot::parse(text, &file.path)?);
        }
    }
    let elapsed = started.elapsed();
    ensure!(
        files.len() == n,
        "the store lists {} baselines, not {n}",
        files.len()
    );
    Ok((elapsed, bytes))
}

/// `git ls-tree -r --object-only HEAD baselines/ | git cat-file --batch`, its output read
/// here: the time and the bytes it printed.
fn cat_file_batch(tools: &Tools, store: &Path) -> anyhow::Result<(Duration, usize)> {
    let started = Instant::now();
    let mut list = tools
        .git(store)
        .args(["ls-tree", "-r", "--object-only", "HEAD", "baselines/"])
        .stdout(Stdio::piped())
        .spawn()
        .context("start git ls-tree")?;
    let listed = list.stdout.take().context("git ls-tree stdout")?;
    let mut cat = tools
        .git(store)
        .args(["cat-file", "--batch"])
        .stdin(listed)
        .stdout(Stdio::piped())
        .spawn()
        .context("start git cat-file --batch")?;
    let mut out = cat.stdout.take().context("git cat-file stdout")?;
    let mut buffer = vec![0; 1 << 16];
    let mut bytes = 0;
    loop {
        let got = out.read(&mut buffer).context("read git cat-file")?;
        if got == 0 {
            break;
        }
        bytes += got;
    }
    let (a, b) = (list.wait()?, cat.wait()?);
    let elapsed = started.elapsed();
    ensure!(
        a.success() && b.success(),
        "git ls-tree ({a}) | git cat-file ({b}) failed"
    );
    Ok((elapsed, bytes))
}

/// Row 5: `baseline log HOST` over 1,000 commits of a 1,000-host store.
pub(crate) fn log(bench: &mut Bench<'_>) -> anyhow::Result<()> {
    let store = bench.work.join("log").join("store");
    let started = Instant::now();
    let expected = build_history(bench, &store)?;
    progress(&format!(
        "log: {LOG_COMMITS} commits over {LOG_HOSTS} hosts built in {:.1} s",
        started.elapsed().as_secs_f64()
    ));
    let host = host_name(1);
    let path = format!("baselines/{FLEET}/{host}.json");
    let listed = bench.tools.output(
        bench
            .tools
            .git(&store)
            .args(["log", "--oneline", "--"])
            .arg(&path),
    )?;
    ensure!(
        listed.lines().count() == expected,
        "git log lists {} commits of {path}, expected {expected}",
        listed.lines().count()
    );
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for run in 0..bench.runs {
        ours.push(
            bench.tools.time(
                bench
                    .tools
                    .driftgate()
                    .args(["baseline", "log", "--repo"])
                    .arg(&store)
                    .args(["--limit", &(LOG_COMMITS + 1).to_string()])
                    .arg(&host),
            )?,
        );
        theirs.push(
            bench.tools.time(
                bench
                    .tools
                    .git(&store)
                    .args(["log", "--oneline", "--"])
                    .arg(&path),
            )?,
        );
        progress(&format!(
            "log, run {}: driftgate {:.3} s, git {:.3} s",
            run + 1,
            ours[run].as_secs_f64(),
            theirs[run].as_secs_f64()
        ));
    }
    bench.lines.push(Line {
        work: "`baseline log HOST --limit 1001` (1,000 commits, HOST in 101)",
        hosts: LOG_HOSTS,
        driftgate: median(&mut ours),
        peer_name: "`git log --oneline -- PATH`",
        peer: median(&mut theirs),
        per_host: false,
        max_ratio: Some(1.0),
        note: None,
    });
    Ok(())
}

/// A store of 1,000 hosts (one commit) and 1,000 commits after it, each changing a few hosts
/// (host 1 in every tenth), written with `git fast-import` and repacked; returns how many
/// commits changed host 1 (its first one included).
fn build_history(bench: &Bench<'_>, store: &Path) -> anyhow::Result<usize> {
    let tools = bench.tools;
    fresh_store(tools, store)?;
    let branch = tools.output(tools.git(store).args(["symbolic-ref", "HEAD"]))?;
    let parent = tools.output(tools.git(store).args(["rev-parse", "HEAD"]))?;
    let mut import = tools
        .git(store)
        .args(["fast-import", "--quiet"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .context("start git fast-import")?;
    let stdin = import.stdin.take().context("git fast-import stdin")?;
    let mut out = BufWriter::new(stdin);
    let mut time = 1_780_000_000_u64;
    let mut commit = |out: &mut BufWriter<_>,
                      message: &str,
                      changes: &[(usize, u32)],
                      from: Option<&str>|
     -> anyhow::Result<()> {
        time += 60;
        writeln!(out, "commit {}", branch.trim())?;
        writeln!(
            out,
            "author driftgate bench <bench@driftgate.invalid> {time} +0000"
        )?;
        writeln!(
            out,
            "committer driftgate bench <bench@driftgate.invalid> {time} +0000"
        )?;
        writeln!(out, "data {}\n{message}", message.len())?;
        if let Some(from) = from {
            writeln!(out, "from {from}")?;
        }
        for &(host, wave) in changes {
            let text = bench.template.render(host, wave);
            writeln!(
                out,
                "M 100644 inline baselines/{FLEET}/{}.json",
                host_name(host)
            )?;
            writeln!(out, "data {}", text.len())?;
            out.write_all(text.as_bytes())?;
            writeln!(out)?;
        }
        Ok(())
    };
    let all: Vec<(usize, u32)> = (1..=LOG_HOSTS).map(|h| (h, 0)).collect();
    commit(
        &mut out,
        &format!("baseline: promote {LOG_HOSTS} hosts ({FLEET})"),
        &all,
        Some(parent.trim()),
    )?;
    let mut expected = 1;
    for k in 1..=LOG_COMMITS {
        let wave = u32::try_from(k).expect("commit numbers fit in u32");
        let mut changes: Vec<(usize, u32)> = (0..LOG_CHANGED)
            .map(|j| (2 + (k * 7 + j * 331) % (LOG_HOSTS - 1), wave))
            .collect();
        if k % LOG_EVERY == 0 {
            changes[0] = (1, wave);
            expected += 1;
        }
        changes.sort_unstable();
        changes.dedup_by_key(|c| c.0);
        commit(
            &mut out,
            &format!("baseline: promote {} hosts ({FLEET})", changes.len()),
            &changes,
            None,
        )?;
    }
    out.flush()?;
    drop(out);
    let status = import.wait()?;
    if !status.success() {
        bail!("git fast-import into {} failed ({status})", store.display());
    }
    // The work tree and index follow HEAD, as after driftgate's own commits.
    tools.run(tools.git(store).args(["reset", "-q", "--hard"]))?;
    // fast-import stores each version as a delta on the one before it, so the newest is at
    // the end of the longest chain: no store has that layout. A store that was cloned,
    // fetched or gc'd has the pack `git pack-objects` writes (the newest whole, older ones
    // deltas on it), which `repack -f` makes here; both tools read the same pack.
    tools.run(tools.git(store).args(["repack", "-a", "-d", "-f", "-q"]))?;
    Ok(expected)
}

/// Makes sure the store and the peer hold every host's baseline (untimed), for the rows that
/// read or change them.
fn populate(bench: &Bench<'_>, fleet: &mut Fleet) -> anyhow::Result<()> {
    if fleet.populated {
        return Ok(());
    }
    fresh_store(bench.tools, &fleet.store)?;
    fresh_peer(bench.tools, &fleet.peer)?;
    link_all(&fleet.new, &fleet.peer_files(), &fleet.hosts)?;
    promote(bench.tools, &fleet.store, &fleet.new, &fleet.hosts)?;
    add_commit(bench.tools, &fleet.peer, fleet.hosts.len())?;
    progress(&format!(
        "{} hosts: store and peer populated",
        fleet.hosts.len()
    ));
    fleet.populated = true;
    Ok(())
}

/// `driftgate baseline promote --repo STORE --fleet lab HOST.json…`, run in `input`.
fn promote(tools: &Tools, store: &Path, input: &Path, hosts: &[usize]) -> anyhow::Result<Duration> {
    let mut command = tools.driftgate();
    command
        .current_dir(input)
        .args(["baseline", "promote", "--repo"])
        .arg(store)
        .args(["--fleet", FLEET])
        // The real Dell capture has blocking invariant findings (DCBX disabled with RoCE):
        // promote refuses it unless forced, which costs nothing extra.
        .args(["--force", "--reason", "store bench"]);
    command.args(hosts.iter().map(|&h| format!("{}.json", host_name(h))));
    settle()?;
    tools.time(&mut command)
}

/// `git add -A && git commit -q -m MESSAGE` in `peer`.
fn add_commit(tools: &Tools, peer: &Path, n: usize) -> anyhow::Result<Duration> {
    let message = format!("baseline: promote {n} hosts ({FLEET})");
    settle()?;
    let add = tools.time(tools.git(peer).args(["add", "-A"]))?;
    let commit = tools.time(tools.git(peer).args(["commit", "-q", "-m", &message]))?;
    Ok(add + commit)
}

/// A new driftgate store at `dir` (`driftgate baseline init`).
fn fresh_store(tools: &Tools, dir: &Path) -> anyhow::Result<()> {
    remove(dir)?;
    tools.run(tools.driftgate().args(["baseline", "init"]).arg(dir))
}

/// A new git work tree at `dir` with one empty commit, as a store has after `init`.
fn fresh_peer(tools: &Tools, dir: &Path) -> anyhow::Result<()> {
    remove(dir)?;
    std::fs::create_dir_all(dir).with_context(|| format!("create {}", dir.display()))?;
    tools.run(tools.git(dir).args(["init", "-q", "-b", "main"]))?;
    tools.run(
        tools
            .git(dir)
            .args(["commit", "-q", "--allow-empty", "-m", "init"]),
    )
}

/// Hard links (or copies) every host's file from `from` into `to`.
fn link_all(from: &Path, to: &Path, hosts: &[usize]) -> anyhow::Result<()> {
    std::fs::create_dir_all(to).with_context(|| format!("create {}", to.display()))?;
    for &host in hosts {
        let name = format!("{}.json", host_name(host));
        let (source, target) = (from.join(&name), to.join(&name));
        if std::fs::hard_link(&source, &target).is_err() {
            std::fs::copy(&source, &target)
                .with_context(|| format!("copy {} to {}", source.display(), target.display()))?;
        }
    }
    Ok(())
}

/// The blob driftgate committed for host 1 is the input file, byte for byte, and the peer
/// committed the same blob: both sides compressed the same bytes.
fn same_blob(tools: &Tools, fleet: &Fleet, input: &Path) -> anyhow::Result<()> {
    let name = format!("{}.json", host_name(1));
    let file = tools.output(tools.git(input).arg("hash-object").arg(input.join(&name)))?;
    let rev = format!("HEAD:baselines/{FLEET}/{name}");
    let ours = tools.output(tools.git(&fleet.store).args(["rev-parse", &rev]))?;
    let theirs = tools.output(tools.git(&fleet.peer).args(["rev-parse", &rev]))?;
    if file.trim() != ours.trim() || file.trim() != theirs.trim() {
        bail!(
            "{}: the input file is blob {}, driftgate committed {}, git committed {}: the two sides did not store the same bytes",
            input.join(&name).display(),
            file.trim(),
            ours.trim(),
            theirs.trim()
        );
    }
    Ok(())
}

fn remove(dir: &Path) -> anyhow::Result<()> {
    match std::fs::remove_dir_all(dir) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(e).with_context(|| format!("remove {}", dir.display()))
        }
        _ => Ok(()),
    }
}

/// Removes a size's folders once its rows are measured (unless kept).
pub(crate) fn clean_size(work: &Path, n: usize) -> anyhow::Result<()> {
    remove(&work.join(format!("n{n}")))
}

/// A progress line on standard error.
#[allow(clippy::print_stderr)] // progress goes to stderr, the table to stdout
pub(crate) fn progress(text: &str) {
    eprintln!("store bench: {text}");
}

/// `git` is there (the peers need it).
pub(crate) fn check_git() -> anyhow::Result<()> {
    let status = Command::new("git")
        .arg("--version")
        .stdout(Stdio::null())
        .status()
        .context("the store bench needs the git CLI on PATH")?;
    ensure!(status.success(), "git --version failed");
    Ok(())
}
