//! The shipped nightly unit (examples/systemd/driftgate-nightly.service, which the Debian
//! package installs) keeps the BMC account to driftgate: its commands run as systemd would run
//! them, from the unit's own lines (the service's environment built from its `Environment=`,
//! `EnvironmentFile=` and `LoadCredential=`, nothing else inherited, `UMask=`, no capability, and
//! where this machine allows a mount namespace, the file system read-only but for
//! `ReadWritePaths=` and a private /tmp), against the simulated fleet, with a git hook and an ssh
//! that write down their environment; strace shows they needed no system call, socket or
//! memory mapping the unit's filters refuse; and `systemd-analyze security` rates the unit.

use std::collections::{BTreeMap, BTreeSet};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common;
use common::examples::{Night, one, read, unit, verdicts};
use common::simulator::{PASSWORD, USER};

const SERVICE: &str = "examples/systemd/driftgate-nightly.service";

/// The unit's paths, and where this test puts them.
struct Paths {
    store: PathBuf,
    results: PathBuf,
    credentials: PathBuf,
}

impl Paths {
    fn map(&self, word: &str) -> String {
        let bin = assert_cmd::cargo::cargo_bin("driftgate");
        word.replace("/usr/bin/driftgate", &bin.display().to_string())
            .replace(
                "/var/lib/driftgate/store",
                &self.store.display().to_string(),
            )
            .replace(
                "/var/lib/driftgate/results",
                &self.results.display().to_string(),
            )
            .replace("%d", &self.credentials.display().to_string())
    }
}

/// The account an operator installs, by the variable (or credential) name that holds it.
fn account(name: &str) -> &'static str {
    match name {
        "DRIFTGATE_BMC_USERNAME" => USER,
        "DRIFTGATE_BMC_PASSWORD" => PASSWORD,
        other => panic!("the unit names {other}, which holds no part of the account"),
    }
}

/// The environment systemd gives the unit's commands: `Environment=` pairs, the
/// `EnvironmentFile=` the operator filled with the account, and `CREDENTIALS_DIRECTORY` with
/// one 0400 file per `LoadCredential=`, in a 0500 folder.
fn service_environment(
    service: &BTreeMap<(String, String), Vec<String>>,
    paths: &Paths,
) -> Vec<(String, String)> {
    let lines = |key: &str| {
        service
            .get(&("Service".to_owned(), key.to_owned()))
            .cloned()
            .unwrap_or_default()
    };
    let mut env = Vec::new();
    for line in lines("Environment") {
        for pair in line.split_whitespace() {
            let (name, value) = pair.split_once('=').expect("NAME=VALUE");
            env.push((name.to_owned(), value.to_owned()));
        }
    }
    if !lines("EnvironmentFile").is_empty() {
        for name in ["DRIFTGATE_BMC_USERNAME", "DRIFTGATE_BMC_PASSWORD"] {
            env.push((name.to_owned(), account(name).to_owned()));
        }
    }
    let loaded = lines("LoadCredential");
    if !loaded.is_empty() {
        std::fs::create_dir(&paths.credentials).unwrap();
        for line in loaded {
            let (id, _source) = line.split_once(':').expect("ID:PATH");
            let file = paths.credentials.join(id);
            std::fs::write(&file, account(id)).unwrap();
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o400)).unwrap();
        }
        std::fs::set_permissions(&paths.credentials, std::fs::Permissions::from_mode(0o500))
            .unwrap();
        env.push((
            "CREDENTIALS_DIRECTORY".to_owned(),
            paths.credentials.display().to_string(),
        ));
    }
    env
}

/// A script at `path`, executable.
fn script(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Whether this process may make a mount namespace (root, outside a locked-down container).
fn can_unshare() -> bool {
    Command::new("unshare")
        .args(["--mount", "true"])
        .status()
        .is_ok_and(|s| s.success())
}

/// The shell that sets up `ProtectSystem=strict` + `ReadWritePaths=`, `PrivateTmp=` and
/// `ProtectHome=` in a fresh mount namespace, then drops every capability
/// (`CapabilityBoundingSet=`, `NoNewPrivileges=`) and runs "$@" with the unit's `UMask=`.
fn sandbox(writable: &[&Path], umask: &str) -> String {
    let quote = |path: &Path| format!("'{}'", path.display().to_string().replace('\'', "'\\''"));
    let writable: Vec<String> = writable.iter().map(|p| quote(p)).collect();
    format!(
        r#"set -e
mount --make-rprivate /
for rw in {rw}; do mount --bind "$rw" "$rw"; done
# Every other mount read-only (the kernel's own file systems aside), deepest first.
awk '{{print $5}}' /proc/self/mountinfo | sort -r | while read -r point; do
    case $point in /proc|/proc/*|/sys|/sys/*|/dev|/dev/*) continue ;; esac
    for rw in {rw}; do [ "$point" = "$rw" ] && continue 2; done
    mount -o remount,bind,ro "$point" 2>/dev/null || true
done
mount -t tmpfs -o mode=1777 tmpfs /tmp
mount -t tmpfs -o mode=1777 tmpfs /var/tmp
for home in /home /root /run/user; do
    [ -d "$home" ] && mount -t tmpfs -o ro,mode=755 tmpfs "$home"
done
umask {umask}
exec setpriv --no-new-privs --bounding-set -all --inh-caps -all -- "$@"
"#,
        rw = writable.join(" ")
    )
}

/// The store as an operator makes it: a clone, over ssh, of the baselines' repository (a bare
/// copy of `baselines` in `base`, returned), whose inventory names no account (the unit gives
/// the default one). Its ssh and its `post-merge` and `pre-push` hooks write their environment
/// into `dumps`; the repository has a commit the store lacks, so that a pull merges.
fn clone_over_ssh(baselines: &Path, base: &Path, store: &Path, dumps: &Path) -> PathBuf {
    let inventory = baselines.join("inventory.toml");
    let text: String = read(&inventory)
        .lines()
        .filter(|l| !l.starts_with("credentials"))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&inventory, text).unwrap();
    common::git(baselines, &["add", "inventory.toml"]);
    common::git(baselines, &["commit", "--quiet", "-m", "inventory"]);
    let origin = base.join("origin.git");
    common::git(
        base,
        &[
            "clone",
            "--quiet",
            "--bare",
            &baselines.display().to_string(),
            &origin.display().to_string(),
        ],
    );
    common::git(
        base,
        &[
            "clone",
            "--quiet",
            &origin.display().to_string(),
            &store.display().to_string(),
        ],
    );
    let ssh = base.join("ssh");
    script(
        &ssh,
        &format!(
            "#!/bin/sh\nenv > '{}/ssh-'$$.env\nfor command; do :; done\nexec sh -c \"$command\"\n",
            dumps.display()
        ),
    );
    let url = format!("ssh://git.example{}", origin.display());
    common::git(store, &["remote", "set-url", "origin", &url]);
    common::git(
        store,
        &["config", "core.sshCommand", &ssh.display().to_string()],
    );
    common::git(store, &["config", "ssh.variant", "simple"]);
    for hook in ["post-merge", "pre-push"] {
        script(
            &store.join(".git/hooks").join(hook),
            &format!("#!/bin/sh\nenv > '{}/{hook}.env'\n", dumps.display()),
        );
    }
    // Something new to pull (so that the merge hook runs).
    common::git(
        baselines,
        &[
            "commit",
            "--quiet",
            "--allow-empty",
            "-m",
            "a baseline reviewed",
        ],
    );
    common::git(
        baselines,
        &["push", "--quiet", &origin.display().to_string(), "HEAD"],
    );
    origin
}

#[expect(
    clippy::print_stderr,
    reason = "a restriction the machine cannot apply is said in the test's output"
)]
fn note(text: &str) {
    eprintln!("{text}");
}

#[test]
fn the_nightly_units_commands_never_see_the_account_and_driftgate_reads_it_as_a_credential() {
    night_as_the_unit_runs_it();
}

/// What a night run as the unit runs it showed: the exit of its `ExecStart=` (3: the simulated
/// fleet has a BMC that is down), what its commands said, and the witnesses (the environments
/// of its git hooks and ssh) that were read and found without the account, and how many
/// snapshots the night wrote.
pub(crate) struct UnitNight {
    pub exit: i32,
    pub said: String,
    pub witnesses: Vec<String>,
    pub snapshots: usize,
}

/// The unit's `ExecStartPre=`, `ExecStart=` and `ExecStopPost=` run as systemd would, against the
/// simulated fleet; every check of the account's absence asserted on the way.
pub(crate) fn night_as_the_unit_runs_it() -> UnitNight {
    let service = unit(&common::root().join(SERVICE));
    let night = Night::start();
    let (_, expected) = night.unsharded();
    // The scratch is outside /tmp, which the unit's PrivateTmp= replaces.
    let scratch = tempfile::Builder::new()
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap();
    let base = scratch.path();
    let paths = Paths {
        store: base.join("store"),
        results: base.join("results"),
        credentials: base.join("credentials"),
    };
    std::fs::create_dir(&paths.results).unwrap();
    let (dumps, home) = (base.join("dumps"), base.join("home"));
    std::fs::create_dir(&dumps).unwrap();
    std::fs::create_dir(&home).unwrap();

    let origin = clone_over_ssh(&night.store, base, &paths.store, &dumps);

    let env = service_environment(&service, &paths);
    let umask = one(&service, "Service", "UMask");
    let sandboxed = can_unshare();
    if !sandboxed {
        note("no mount namespace here: the unit's commands run without a read-only file system");
    }
    let mut writable: Vec<PathBuf> = one(&service, "Service", "ReadWritePaths")
        .split_whitespace()
        .map(|path| PathBuf::from(paths.map(path)))
        .collect();
    // The remote's side of the ssh stand-in, and the witnesses' folder.
    writable.extend([origin.clone(), dumps.clone()]);
    // Every system call, socket and mapping of the unit's commands, where strace is here.
    let traces = base.join("traces");
    std::fs::create_dir(&traces).unwrap();
    writable.push(traces.clone());
    let traced = Command::new("strace").arg("-V").output().is_ok();
    if !traced {
        note("no strace here: the unit's system calls are not compared with its filter");
    }
    let writable: Vec<&Path> = writable.iter().map(PathBuf::as_path).collect();
    let run = |key: &str| {
        let line = one(&service, "Service", key);
        let mut words: Vec<String> = line.split_whitespace().map(|w| paths.map(w)).collect();
        if traced {
            let trace = traces.join(key).display().to_string();
            let strace = ["strace", "-f", "-qq", "-o", &trace, "--"];
            words.splice(0..0, strace.map(str::to_owned));
        }
        let mut command = if sandboxed {
            let mut command = Command::new("unshare");
            command
                .args(["--mount", "sh", "-c", &sandbox(&writable, umask), "sh"])
                .args(&words);
            command
        } else {
            let mut command = Command::new("sh");
            command
                .args(["-c", &format!("umask {umask}; exec \"$@\""), "sh"])
                .args(&words);
            command
        };
        let output = command
            .env_clear()
            .env("PATH", "/usr/local/bin:/usr/bin:/bin")
            .env("HOME", &home)
            .env("GIT_COMMITTER_NAME", "driftgate")
            .env("GIT_COMMITTER_EMAIL", "driftgate@localhost")
            .envs(env.iter().map(|(n, v)| (n, v)))
            .current_dir("/")
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&output.stdout).into_owned()
            + &String::from_utf8_lossy(&output.stderr);
        (output.status.code(), said)
    };

    let (code, mut all_said) = run("ExecStartPre");
    assert_eq!(code, Some(0), "ExecStartPre: {all_said}");
    // driftgate logs in with the account the unit gives it: the night as one run judges it
    // (exit 3: BMC 4 is down; BMC 1 BLOCKs).
    let (code, said) = run("ExecStart");
    assert_eq!(code, Some(3), "ExecStart: {said}");
    let exit = code.unwrap_or(-1);
    all_said.push_str(&said);
    let out_dir = paths.results.join("nightly");
    let merged = common::driftgate()
        .arg("--repo")
        .arg(&paths.store)
        .args(["report", "merge", "--format", "json"])
        .arg(&out_dir)
        .output()
        .unwrap();
    let merged: serde_json::Value =
        serde_json::from_slice(&merged.stdout).expect("a JSON fleet report");
    assert_eq!(verdicts(&merged), verdicts(&expected), "{said}");
    let (code, said) = run("ExecStopPost");
    assert_eq!(code, Some(0), "ExecStopPost: {said}");
    all_said.push_str(&said);
    assert_eq!(
        common::git(&origin, &["rev-parse", "driftgate/state"]),
        common::git(&paths.store, &["rev-parse", "driftgate/state"])
    );
    // Both hooks and the ssh of the pull and of the push wrote down their environment: none
    // holds the account, nor a variable that would name it.
    let mut witnesses: Vec<String> = std::fs::read_dir(&dumps)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    witnesses.sort();
    assert!(
        witnesses.iter().any(|w| w == "post-merge.env")
            && witnesses.iter().any(|w| w == "pre-push.env")
            && witnesses.iter().filter(|w| w.starts_with("ssh-")).count() >= 2,
        "{witnesses:?}"
    );
    for witness in &witnesses {
        let env = read(&dumps.join(witness));
        assert!(
            !env.contains(PASSWORD),
            "{witness}: the BMC password is in the environment of the unit's git: {env}"
        );
        assert!(
            !env.lines().any(|l| l.starts_with("DRIFTGATE_BMC_")),
            "{witness}: {env}"
        );
    }

    // UMask=0077: the night's results are the service user's alone (driftgate's own files
    // are 0600 whatever the mask; the folders it makes follow the mask).
    for made in [out_dir.clone(), out_dir.join("snapshots")] {
        let mode = std::fs::metadata(&made).unwrap().permissions().mode();
        assert_eq!(mode & 0o077, 0, "{}: mode {mode:o}", made.display());
    }

    if traced {
        within_the_filters(&service, &traces);
    }
    let snapshots = std::fs::read_dir(out_dir.join("snapshots")).map_or(0, Iterator::count);
    UnitNight {
        exit,
        said: all_said,
        witnesses,
        snapshots,
    }
}

/// systemd's system-call groups (`systemd-analyze syscall-filter`): each `@group`'s members,
/// calls and other groups.
fn syscall_groups() -> BTreeMap<String, Vec<String>> {
    let output = Command::new("systemd-analyze")
        .args(["syscall-filter", "--no-pager"])
        .output()
        .expect("systemd-analyze runs (scripts/test-deps.sh installs systemd)");
    let mut groups: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut group = None;
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        if line.starts_with('@') {
            group = Some(line.trim().to_owned());
        } else if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        } else if let Some(group) = &group {
            groups
                .entry(group.clone())
                .or_default()
                .push(line.trim().to_owned());
        }
    }
    groups
}

/// The system calls `entry` (a call or a `@group`) stands for.
fn calls(groups: &BTreeMap<String, Vec<String>>, entry: &str, into: &mut BTreeSet<String>) {
    match groups.get(entry) {
        Some(members) => {
            for member in members {
                calls(groups, member, into);
            }
        }
        None => {
            into.insert(entry.to_owned());
        }
    }
}

/// The unit's commands, as strace saw them (one file per command line in `traces`), made only
/// the system calls its `SystemCallFilter=` lines allow, opened only sockets of its
/// `RestrictAddressFamilies=`, and mapped no memory writable and executable at once
/// (`MemoryDenyWriteExecute=`): what systemd would have refused, these runs did not need.
fn within_the_filters(service: &BTreeMap<(String, String), Vec<String>>, traces: &Path) {
    let groups = syscall_groups();
    let mut allowed = BTreeSet::new();
    let mut denied = BTreeSet::new();
    let filters = service
        .get(&("Service".to_owned(), "SystemCallFilter".to_owned()))
        .expect("the unit filters system calls (SystemCallFilter=)");
    for line in filters {
        let (set, list) = match line.strip_prefix('~') {
            Some(list) => (&mut denied, list),
            None => (&mut allowed, line.as_str()),
        };
        for entry in list.split_whitespace() {
            calls(&groups, entry, set);
        }
    }
    let families: BTreeSet<&str> = one(service, "Service", "RestrictAddressFamilies")
        .split_whitespace()
        .collect();
    assert_eq!(one(service, "Service", "MemoryDenyWriteExecute"), "yes");
    for trace in std::fs::read_dir(traces).unwrap() {
        let trace = trace.unwrap().path();
        let text = read(&trace);
        let mut refused = BTreeSet::new();
        for line in text.lines() {
            // `PID name(args…) = …`; resumed calls, signals and exits name no new call.
            let Some((_, call)) = line.split_once(' ') else {
                continue;
            };
            let Some((name, args)) = call.split_once('(') else {
                continue;
            };
            if !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                continue;
            }
            if !allowed.contains(name) || denied.contains(name) {
                refused.insert(name.to_owned());
            }
            if name == "socket" {
                let family = args.split(',').next().unwrap_or_default();
                assert!(
                    families.contains(family),
                    "{}: socket({family}) outside RestrictAddressFamilies: {line}",
                    trace.display()
                );
            }
            assert!(
                !(line.contains("PROT_WRITE") && line.contains("PROT_EXEC")),
                "{}: writable and executable memory: {line}",
                trace.display()
            );
        }
        assert!(
            refused.is_empty(),
            "{}: system calls SystemCallFilter= refuses: {refused:?}",
            trace.display()
        );
    }
}

#[test]
fn systemd_analyze_rates_the_nightly_unit_2_5_or_better() {
    let copy = tempfile::tempdir().unwrap();
    let bin = assert_cmd::cargo::cargo_bin("driftgate");
    let file = copy.path().join("driftgate-nightly.service");
    let text = read(&common::root().join(SERVICE))
        .replace("/usr/bin/driftgate", &bin.display().to_string());
    std::fs::write(&file, text).unwrap();
    let output = Command::new("systemd-analyze")
        .args(["security", "--offline=yes", "--threshold=25", "--no-pager"])
        .arg(&file)
        .output()
        .expect("systemd-analyze runs (scripts/test-deps.sh installs systemd)");
    let said = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    let level: f64 = said
        .lines()
        .find_map(|l| l.split_once("Overall exposure level for driftgate-nightly.service: "))
        .and_then(|(_, rest)| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no overall exposure level: {said}"));
    assert!(level <= 2.5, "exposure {level}: {said}");
    assert!(output.status.success(), "--threshold=25: {said}");
}
