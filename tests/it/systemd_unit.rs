//! The shipped nightly units (examples/systemd: the store's pull, the night, the state's push;
//! the Debian package installs them) keep the BMC account to driftgate: each unit's commands
//! run as systemd would run them, one unit after the other as their ordering says, each from its
//! own lines alone (the service's environment built from its `Environment=`, `EnvironmentFile=`
//! and `LoadCredential=`, its credentials' folder there only while it runs, nothing else
//! inherited, `UMask=`, no capability, and where this machine allows a mount namespace, the file
//! system read-only but for `ReadWritePaths=` and a private /tmp), against the simulated fleet,
//! with git hooks and an ssh that write down their environment and try to read every
//! credential; strace shows they needed no system call, socket or memory mapping the unit's
//! filters refuse; and `systemd-analyze security` rates each unit.

use std::collections::{BTreeMap, BTreeSet};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common;
use common::examples::{Night, one, read, unit, verdicts};
use common::simulator::{PASSWORD, USER};

/// The store's pull, the night (the only unit with credentials), the state's push: in the order
/// systemd runs them (the night is `After=` the pull, the push `After=` the night).
const UNITS: [&str; 3] = [
    "examples/systemd/driftgate-store-pull.service",
    "examples/systemd/driftgate-nightly.service",
    "examples/systemd/driftgate-store-push.service",
];

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
/// one 0400 file per `LoadCredential=`, in a 0500 folder that exists until the unit stops
/// ([`unload_credentials`]).
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

/// What systemd does when a unit with credentials stops: their folder is gone.
fn unload_credentials(paths: &Paths) {
    if paths.credentials.exists() {
        std::fs::set_permissions(&paths.credentials, std::fs::Permissions::from_mode(0o700))
            .unwrap();
        std::fs::remove_dir_all(&paths.credentials).unwrap();
    }
}

/// A witness: writes its environment into `dumps/NAME.env`, then reads every credential it
/// can reach, through `$CREDENTIALS_DIRECTORY` and at the folder's own path (systemd's
/// /run/credentials/UNIT), into `dumps/NAME.read`, which must stay empty.
fn witness(dumps: &Path, name: &str, credentials: &Path) -> String {
    format!(
        "env > '{dumps}/{name}.env'\n\
         for f in \"${{CREDENTIALS_DIRECTORY:-/nonexistent}}\"/* '{credentials}'/*; do \
         cat \"$f\" || :; done > '{dumps}/{name}.read' 2>/dev/null\n",
        dumps = dumps.display(),
        credentials = credentials.display()
    )
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
/// the default one). Its ssh and its `post-merge` and `pre-push` hooks are [`witness`]es
/// writing into `dumps`; the repository has a commit the store lacks, so that a pull merges.
fn clone_over_ssh(baselines: &Path, base: &Path, paths: &Paths, dumps: &Path) -> PathBuf {
    let store = &paths.store;
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
            "#!/bin/sh\n{}for command; do :; done\nexec sh -c \"$command\"\n",
            witness(dumps, "ssh-'$$'", &paths.credentials)
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
            &format!("#!/bin/sh\n{}", witness(dumps, hook, &paths.credentials)),
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

/// What a night run as the units run it showed: the exit of the night's `ExecStart=` (3: the
/// simulated fleet has a BMC that is down), what the units' commands said, and the witnesses
/// (the environments of the git hooks and ssh of the pull and the push) that were read and found
/// without the account or a credentials' folder, having read nothing, and how many snapshots
/// the night wrote.
pub(crate) struct UnitNight {
    pub exit: i32,
    pub said: String,
    pub witnesses: Vec<String>,
    pub snapshots: usize,
}

/// The name of a unit's file, e.g. `driftgate-nightly.service`.
fn unit_name(file: &str) -> &str {
    file.rsplit('/').next().unwrap_or(file)
}

/// The units' commands (each unit's `ExecStartPre=`, `ExecStart=` and `ExecStopPost=` lines) run
/// as systemd would, against the simulated fleet: the pull, the night, the push, each with only
/// its own environment and credentials; every check of the account's absence asserted on the
/// way.
pub(crate) fn night_as_the_unit_runs_it() -> UnitNight {
    let units: Vec<_> = UNITS
        .iter()
        .map(|file| (unit_name(file), unit(&common::root().join(file))))
        .collect();
    let night = Night::start();
    let (_, expected) = night.unsharded();
    // The scratch is outside /tmp, which the units' PrivateTmp= replaces.
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

    let origin = clone_over_ssh(&night.store, base, &paths, &dumps);

    let sandboxed = can_unshare();
    if !sandboxed {
        note("no mount namespace here: the units' commands run without a read-only file system");
    }
    // Every system call, socket and mapping of the units' commands, where strace is here.
    let traces = base.join("traces");
    std::fs::create_dir(&traces).unwrap();
    let traced = Command::new("strace").arg("-V").output().is_ok();
    if !traced {
        note("no strace here: the units' system calls are not compared with their filters");
    }
    // One unit's command line, as systemd runs it: its exit and what it said.
    let run = |name: &str,
               service: &BTreeMap<(String, String), Vec<String>>,
               key: &str,
               line: &str,
               env: &[(String, String)]| {
        let umask = one(service, "Service", "UMask");
        let mut writable: Vec<PathBuf> = one(service, "Service", "ReadWritePaths")
            .split_whitespace()
            .map(|path| PathBuf::from(paths.map(path)))
            .collect();
        // The remote's side of the ssh stand-in, the witnesses' folder, the traces.
        writable.extend([origin.clone(), dumps.clone(), traces.clone()]);
        let writable: Vec<&Path> = writable.iter().map(PathBuf::as_path).collect();
        let mut words: Vec<String> = line.split_whitespace().map(|w| paths.map(w)).collect();
        if traced {
            let unit_traces = traces.join(name);
            std::fs::create_dir_all(&unit_traces).unwrap();
            let trace = unit_traces.join(key).display().to_string();
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

    let mut all_said = String::new();
    let mut exit = None;
    for (name, service) in &units {
        // systemd makes a unit's credentials when it starts and removes them when it stops.
        let env = service_environment(service, &paths);
        for key in ["ExecStartPre", "ExecStart", "ExecStopPost"] {
            let lines = service
                .get(&("Service".to_owned(), key.to_owned()))
                .cloned()
                .unwrap_or_default();
            for line in lines {
                let (code, said) = run(name, service, key, &line, &env);
                all_said.push_str(&said);
                if line.starts_with("/usr/bin/driftgate ") {
                    // driftgate logs in with the account the unit gives it: the night as one
                    // run judges it (exit 3: BMC 4 is down; BMC 1 BLOCKs).
                    assert_eq!(code, Some(3), "{name} {key}: {said}");
                    exit = code;
                } else {
                    assert_eq!(code, Some(0), "{name} {key}: {said}");
                }
            }
        }
        unload_credentials(&paths);
    }
    let exit = exit.expect("a unit runs driftgate");
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
    assert_eq!(verdicts(&merged), verdicts(&expected), "{all_said}");
    assert_eq!(
        common::git(&origin, &["rev-parse", "driftgate/state"]),
        common::git(&paths.store, &["rev-parse", "driftgate/state"])
    );
    // Both hooks and the ssh of the pull and of the push wrote down their environment: none
    // holds the account, a variable that would name it or the credentials' folder; and none
    // read a credential, through the variable or at the folder's own path.
    let mut witnesses: Vec<String> = std::fs::read_dir(&dumps)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".env"))
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
            "{witness}: the BMC password is in the environment of the units' git: {env}"
        );
        assert!(
            !env.lines()
                .any(|l| l.starts_with("DRIFTGATE_BMC_") || l.starts_with("CREDENTIALS_DIRECTORY=")),
            "{witness}: {env}"
        );
        let reads = dumps.join(witness.replace(".env", ".read"));
        let got = read(&reads);
        assert!(
            got.is_empty(),
            "{witness}: the units' git read the credentials: {got:?}"
        );
    }
    // The night is the one unit with credentials, and driftgate's ExecStart= its only command.
    for (name, service) in &units {
        let commands: Vec<&String> = service
            .iter()
            .filter(|((section, key), _)| section == "Service" && key.starts_with("Exec"))
            .flat_map(|(_, lines)| lines)
            .collect();
        if service.contains_key(&("Service".to_owned(), "LoadCredential".to_owned())) {
            assert_eq!(*name, "driftgate-nightly.service");
            assert!(
                matches!(commands.as_slice(), [line] if line.starts_with("/usr/bin/driftgate ")),
                "{name}: commands beside driftgate's run with the credentials: {commands:?}"
            );
        }
    }

    // UMask=0077: the night's results are the service user's alone (driftgate's own files
    // are 0600 whatever the mask; the folders it makes follow the mask).
    for made in [out_dir.clone(), out_dir.join("snapshots")] {
        let mode = std::fs::metadata(&made).unwrap().permissions().mode();
        assert_eq!(mode & 0o077, 0, "{}: mode {mode:o}", made.display());
    }

    if traced {
        for (name, service) in &units {
            within_the_filters(service, &traces.join(name));
        }
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
fn systemd_analyze_rates_the_nightly_units_2_5_or_better() {
    let copy = tempfile::tempdir().unwrap();
    let bin = assert_cmd::cargo::cargo_bin("driftgate");
    for unit in UNITS {
        let name = unit_name(unit);
        let file = copy.path().join(name);
        let text = read(&common::root().join(unit))
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
            .find_map(|l| l.split_once(&format!("Overall exposure level for {name}: ")))
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{name}: no overall exposure level: {said}"));
        assert!(level <= 2.5, "{name}: exposure {level}: {said}");
        assert!(output.status.success(), "{name}: --threshold=25: {said}");
    }
}
