//! The benchmark's inputs: N host snapshot pairs made from the real Dell capture, each host
//! renamed (`node00001`…) with its own MACs, service and asset tags, a baseline and a
//! snapshot with mutations: most hosts a few benign changes (firmware versions, a BIOS
//! attribute), a few the incidents of DESIGN.md (DCBX mode changed, PFC off on priority 3, a
//! fact removed, a fact added), every tenth unchanged.
//!
//! Written as a baseline store (`driftgate baseline init`, then every baseline in one git2
//! commit: the store benchmark measures promote, and the judge is what is measured here), an
//! inventory of fleet `lab`, DIR/snapshots/<host>.json and, for the peers,
//! DIR/baselines/<host>.json (the same bytes as the store's blobs).

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};
use driftgate_snapshot::{FactPath, HostName, Snapshot, VerifiedSnapshot};

/// What each host's snapshot does to its baseline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mutation {
    /// Identical facts, a later capture time.
    Unchanged,
    /// Firmware versions bumped and one BIOS attribute changed.
    Benign,
    /// The NIC's DCBX mode reset from IEEE to disabled (incident 1).
    DcbxMode,
    /// PFC flow control off on priority 3.
    PfcOff,
    /// A fact of the baseline is missing.
    FactRemoved,
    /// A fact the baseline does not have.
    FactAdded,
}

impl Mutation {
    /// Host `index`'s mutation: 2 % of hosts each incident, 10 % unchanged, the rest benign.
    pub(crate) fn of(index: usize) -> Mutation {
        match index % 50 {
            7 => Mutation::DcbxMode,
            17 => Mutation::PfcOff,
            27 => Mutation::FactRemoved,
            37 => Mutation::FactAdded,
            _ if index % 10 == 9 => Mutation::Unchanged,
            _ => Mutation::Benign,
        }
    }
}

/// The generated files.
pub(crate) struct Pairs {
    /// Host names, in order.
    pub hosts: Vec<String>,
    /// The baseline store.
    pub store: PathBuf,
    /// DIR/snapshots, what `check --all --snapshots` reads.
    pub snapshots: PathBuf,
    /// DIR/baselines/<host>.json, the peers' baseline side.
    pub baselines: PathBuf,
    /// Facts per host (the largest pair's).
    pub max_facts: usize,
    /// Bytes of both sides of all pairs.
    pub bytes: u64,
}

impl Pairs {
    /// Writes an inventory of the first `count` hosts (fleet `lab`) to `file`.
    pub(crate) fn write_inventory(&self, count: usize, file: &Path) -> Result<()> {
        let mut text = String::from("[defaults]\nfleet = \"lab\"\n");
        for host in &self.hosts[..count] {
            write!(
                text,
                "\n[[host]]\nname = \"{host}\"\nsources = [\"redfish=https://bmc-{host}.lab.example\"]\n"
            )
            .expect("writing to a String cannot fail");
        }
        fs::write(file, text).with_context(|| format!("write {}", file.display()))
    }

    /// (baseline file, snapshot file) of the first `count` hosts.
    pub(crate) fn files(&self, count: usize) -> Vec<(PathBuf, PathBuf)> {
        self.hosts[..count]
            .iter()
            .map(|h| {
                (
                    self.baselines.join(format!("{h}.json")),
                    self.snapshots.join(format!("{h}.json")),
                )
            })
            .collect()
    }
}

fn path(p: &str) -> FactPath {
    FactPath::new(p.to_owned()).expect("bench fact paths are valid")
}

/// The base host: the Dell capture plus the host-wide PFC configuration an OS source adds
/// (the Dell capture is the BMC's view alone): PFC on priority 3, as DESIGN.md's hosts. The
/// captured BMC has DCBX disabled on its RoCE ports, which blocks every host; the healthy
/// base has it in IEEE mode, so that only the incident hosts block.
fn base(dell: &VerifiedSnapshot) -> Snapshot {
    let mut base = dell.snapshot().clone();
    for value in base
        .facts
        .iter_mut()
        .filter(|(p, _)| p.as_str().ends_with("/dcbx_mode"))
        .map(|(_, v)| v)
    {
        *value = "ieee".into();
    }
    for priority in 0..8 {
        base.facts.insert(
            path(&format!("host/qos/flow_control/priority/{priority}")),
            (priority == 3).into(),
        );
    }
    base
}

/// Host `index`'s baseline: renamed, its own MACs (the last two octets), service and asset tag.
fn host_baseline(base: &Snapshot, index: usize, name: &str) -> Snapshot {
    let mut host = base.clone();
    host.host = HostName::new(name).expect("bench host names are valid");
    let (hi, lo) = (index >> 8 & 0xff, index & 0xff);
    host.facts = base
        .facts
        .iter()
        .map(|(p, v)| {
            let text = p.as_str();
            // nic/aa:bb:cc:dd:ee:ff/… → nic/aa:bb:cc:HI:LO:ff/…: the ports of one adapter
            // (which differ in the last octet) stay apart.
            let renamed = match text.strip_prefix("nic/") {
                Some(rest) if rest.len() > 17 && rest.as_bytes()[17] == b'/' => {
                    format!("nic/{}:{hi:02x}:{lo:02x}{}", &rest[..8], &rest[14..])
                }
                _ => text.to_owned(),
            };
            (path(&renamed), v.clone())
        })
        .collect();
    host.facts.insert(
        path("bios/SystemServiceTag"),
        format!("T{index:06X}").into(),
    );
    host.facts.insert(path("bios/AssetTag"), name.into());
    host
}

/// The first fact whose path contains `needle`.
fn find(snapshot: &Snapshot, needle: &str) -> Result<FactPath> {
    snapshot
        .facts
        .keys()
        .find(|p| p.as_str().contains(needle))
        .cloned()
        .with_context(|| format!("the Dell capture has no fact like {needle}"))
}

fn mutate(baseline: &mut Snapshot, snapshot: &mut Snapshot, mutation: Mutation) -> Result<()> {
    snapshot.captured_at = baseline
        .captured_at
        .checked_add(jiff::SignedDuration::from_hours(24))
        .context("capture time")?;
    match mutation {
        Mutation::Unchanged => {}
        Mutation::Benign => {
            for (needle, version) in [
                ("firmware/idrac.embedded.1-1/version", "7.00.00.171"),
                ("firmware/bios.setup.1-1/version", "1.13.2"),
                ("/bmc/firmware/version", "22.31.6"),
            ] {
                let p = find(snapshot, needle)?;
                snapshot.facts.insert(p, version.into());
            }
            snapshot
                .facts
                .insert(path("bios/ProcTurboMode"), "Disabled".into());
        }
        Mutation::DcbxMode => {
            let p = find(snapshot, "/dcbx_mode")?;
            baseline.facts.insert(p.clone(), "ieee".into());
            snapshot.facts.insert(p, "disabled".into());
        }
        Mutation::PfcOff => {
            snapshot
                .facts
                .insert(path("host/qos/flow_control/priority/3"), false.into());
        }
        Mutation::FactRemoved => {
            let p = find(snapshot, "/lldp/nic_agent")?;
            snapshot.facts.remove(&p);
        }
        Mutation::FactAdded => {
            snapshot
                .facts
                .insert(path("bios/WorkloadProfile"), "HpcProfile".into());
        }
    }
    Ok(())
}

/// Generates `count` pairs from `dell` into `dir` (emptied first).
pub(crate) fn generate(
    driftgate: &Path,
    dell: &VerifiedSnapshot,
    count: usize,
    dir: &Path,
) -> Result<Pairs> {
    if dir.exists() {
        fs::remove_dir_all(dir).with_context(|| format!("remove {}", dir.display()))?;
    }
    let pairs = Pairs {
        hosts: (1..=count).map(|i| format!("node{i:05}")).collect(),
        store: dir.join("store"),
        snapshots: dir.join("snapshots"),
        baselines: dir.join("baselines"),
        max_facts: 0,
        bytes: 0,
    };
    for d in [&pairs.snapshots, &pairs.baselines] {
        fs::create_dir_all(d).with_context(|| format!("create {}", d.display()))?;
    }
    let status = Command::new(driftgate)
        .args(["--color", "never", "baseline", "init"])
        .arg(&pairs.store)
        .stdout(std::process::Stdio::null())
        .status()
        .context("run driftgate baseline init")?;
    if !status.success() {
        bail!(
            "driftgate baseline init {} failed: {status}",
            pairs.store.display()
        );
    }
    let repo = git2::Repository::open(&pairs.store).context("open the bench store")?;
    let mut lab = repo.treebuilder(None).context("tree builder")?;
    let base = base(dell);
    let (mut max_facts, mut bytes) = (0, 0);
    for (index, name) in pairs.hosts.iter().enumerate() {
        let mut baseline = host_baseline(&base, index, name);
        let mut snapshot = baseline.clone();
        mutate(&mut baseline, &mut snapshot, Mutation::of(index))?;
        max_facts = max_facts
            .max(baseline.facts.len())
            .max(snapshot.facts.len());
        // Sealed: the canonical JSON carries its digest.
        let baseline = baseline.to_canonical_json();
        let snapshot = snapshot.to_canonical_json();
        let file = format!("{name}.json");
        fs::write(pairs.baselines.join(&file), &baseline).context("write a baseline")?;
        fs::write(pairs.snapshots.join(&file), &snapshot).context("write a snapshot")?;
        bytes += (baseline.len() + snapshot.len()) as u64;
        let blob = repo.blob(baseline.as_bytes()).context("write a blob")?;
        lab.insert(&file, blob, git2::FileMode::Blob.into())
            .context("tree entry")?;
    }
    commit(&repo, lab.write().context("write the fleet tree")?, count)?;
    Ok(Pairs {
        max_facts,
        bytes,
        ..pairs
    })
}

/// Commits baselines/lab/ = `lab` on top of the initialised store's HEAD.
fn commit(repo: &git2::Repository, lab: git2::Oid, count: usize) -> Result<()> {
    let parent = repo.head()?.peel_to_commit()?;
    let root = parent.tree()?;
    let baselines = root
        .get_name("baselines")
        .context("the initialised store has baselines/")?
        .to_object(repo)?
        .peel_to_tree()?;
    let mut folder = repo.treebuilder(Some(&baselines))?;
    folder.insert("lab", lab, git2::FileMode::Tree.into())?;
    let folder = folder.write()?;
    let mut top = repo.treebuilder(Some(&root))?;
    top.insert("baselines", folder, git2::FileMode::Tree.into())?;
    let tree = repo.find_tree(top.write()?)?;
    let who = git2::Signature::now("driftgate bench", "bench@localhost")?;
    repo.commit(
        Some("HEAD"),
        &who,
        &who,
        &format!("baseline: promote {count} hosts (lab)"),
        &tree,
        &[&parent],
    )?;
    // The work tree is left at the initialised store's: `check --all` reads HEAD's tree, and
    // checking out 10,000 files would double the generation's writes.
    Ok(())
}
