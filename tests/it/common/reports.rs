//! Helpers of the `--report` end-to-end tests and of the CI examples (examples/ci): the blocking
//! and the passing example to judge, a capture whose strings carry control characters, the files a run left in a directory, a directory nobody can write, the
//! scripts run as a CI runner runs them, and the steps of the two workflows.

use std::path::{Path, PathBuf};

use driftgate_snapshot::{FactPath, FactValue, HostName, Snapshot, SourceRecord, SourceStatus};
use yaml_serde::Value;

use super::fleet_sim::{PASSWORD_ENV, USERNAME_ENV};
use super::gate::Ran;
use super::simulator::{PASSWORD, USER};
use super::{driftgate, example, root};

/// The GitHub Actions workflow of examples/ci.
pub(crate) const GITHUB: &str = "examples/ci/github/driftgate-nightly.yml";
/// The Azure Pipelines pipeline of examples/ci.
pub(crate) const AZURE: &str = "examples/ci/azure/azure-pipelines.yml";
/// The script both workflows call.
pub(crate) const NIGHTLY_CHECK: &str = "examples/ci/nightly-check.sh";
/// The script that runs [`NIGHTLY_CHECK`] against a simulated fleet.
pub(crate) const RUN_LOCAL: &str = "examples/ci/run-local.sh";

/// `driftgate check` of seed 1 after its firmware update, against its baseline: BLOCK (exit 1).
pub(crate) fn blocking_check() -> assert_cmd::Command {
    let mut cmd = driftgate();
    cmd.args(["--color", "never", "check", "--snapshot"])
        .arg(example("azure-local-dcbx/post-update.json"))
        .arg("--baseline")
        .arg(example("azure-local-dcbx/baseline.json"));
    cmd
}

/// `driftgate check` of seed 1's baseline against itself: PASS (exit 0).
pub(crate) fn passing_check() -> assert_cmd::Command {
    let mut cmd = driftgate();
    cmd.args(["--color", "never", "check", "--snapshot"])
        .arg(example("azure-local-dcbx/baseline.json"))
        .arg("--baseline")
        .arg(example("azure-local-dcbx/baseline.json"));
    cmd
}

/// What a BMC may put in a string: an ESC (that a stream stripping ANSI styles eats with what
/// follows it) and a DEL (that it drops).
pub(crate) const CONTROL: &str = "port \u{1b}[31mred\u{1b}[0m \u{7f}end";

/// A snapshot in `dir` whose one source failed with an error carrying [`CONTROL`]: `check`
/// of it is INCOMPLETE (exit 3) and every report names the error.
pub(crate) fn control_snapshot(dir: &Path) -> PathBuf {
    let mut facts = driftgate_snapshot::Facts::new();
    facts.insert(
        FactPath::new("host/qos/flow_control/priority/3").expect("a path"),
        FactValue::from(true),
    );
    let snapshot = Snapshot {
        host: HostName::new("azl-node01").expect("a host name"),
        captured_at: "2026-12-01T02:00:00Z".parse().expect("a time"),
        tool: "driftgate test".into(),
        sources: vec![SourceRecord {
            name: "windows".into(),
            target: "ssh://azl-node01".into(),
            status: SourceStatus::Failed,
            error: Some(format!("remote said: {CONTROL}")),
        }],
        facts,
    };
    let file = dir.join("control.json");
    std::fs::write(&file, snapshot.to_canonical_json()).expect("write the snapshot");
    file
}

/// A peer's or BMC's name that would act where it is shown: an OSC-8 link (ended by BEL, then
/// by ESC \\), a CSI that clears the screen, a C1 CSI (U+009B) that colours, a CR that
/// rewinds the line to write over it, a DEL and a C1 NEL.
pub(crate) const HOSTILE: &str = "tor-a\u{1b}]8;;https://evil.example/\u{7}click\u{1b}]8;;\u{1b}\\\u{1b}[2J\u{9b}31m\rPASS\u{7f}\u{85}end";

/// How [`HOSTILE`] is shown in a report: every control character by its code point.
pub(crate) const HOSTILE_SHOWN: &str = "tor-a\\u{1b}]8;;https://evil.example/\\u{7}click\\u{1b}]8;;\\u{1b}\\\\u{1b}[2J\\u{9b}31m\\u{d}PASS\\u{7f}\\u{85}end";

/// The files of a check whose snapshot carries [`HOSTILE`]: as the peer's system name of a
/// port (`tor-a` in the baseline), as the NIC firmware version the BMC reports, as the error
/// of its partial Windows source, and as the id of the site policy's rule that blocks the
/// peer's change (which Prometheus writes as a label value). Both snapshots are sealed by
/// `driftgate snapshot seal`. `check` of them is INCOMPLETE (exit 3).
pub(crate) struct HostileCheck {
    /// The baseline.
    pub baseline: PathBuf,
    /// The snapshot judged.
    pub snapshot: PathBuf,
    /// The site policy.
    pub policy: PathBuf,
}

impl HostileCheck {
    /// The files in `dir`.
    pub(crate) fn new(dir: &Path) -> HostileCheck {
        const PEER: &str = "nic/00:0a:f7:12:34:56/peer/system_name";
        const FIRMWARE: &str = "nic/00:0a:f7:12:34:56/bmc/firmware/version";
        let sealed = |from: &str, name: &str, edit: &dyn Fn(&mut serde_json::Value)| {
            let mut doc: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(example(from)).expect("read"))
                    .expect("a snapshot");
            doc.as_object_mut().expect("an object").remove("digest");
            edit(&mut doc);
            let raw = dir.join(format!("{name}.unsealed.json"));
            std::fs::write(&raw, serde_json::to_string_pretty(&doc).expect("JSON")).expect("write");
            let file = dir.join(format!("{name}.json"));
            let sealed = driftgate()
                .args(["snapshot", "seal"])
                .arg(&raw)
                .arg("--out")
                .arg(&file)
                .output()
                .expect("driftgate runs");
            assert!(
                sealed.status.success(),
                "{}",
                String::from_utf8_lossy(&sealed.stderr)
            );
            file
        };
        let baseline = sealed("azure-local-dcbx/baseline.json", "baseline", &|doc| {
            doc["facts"][PEER] = "tor-a".into();
        });
        let snapshot = sealed("azure-local-dcbx/post-update.json", "snapshot", &|doc| {
            doc["facts"][PEER] = HOSTILE.into();
            doc["facts"][FIRMWARE] = format!("229.1.123.0 {HOSTILE}").into();
            let sources = doc["sources"].as_array_mut().expect("sources");
            let windows = sources
                .iter_mut()
                .find(|s| s["name"] == "windows")
                .expect("a windows source");
            windows["status"] = "partial".into();
            windows["error"] = format!("remote said: {HOSTILE}").into();
        });
        let policy = dir.join("policy.toml");
        let id = toml::Value::String(format!("peer-name-{HOSTILE}"));
        std::fs::write(
            &policy,
            format!(
                "[[rule]]\nid = {id}\npath = \"{PEER}\"\non_change = \"block\"\nwhy = \"The switch port a host is cabled to is part of its configuration.\"\n"
            ),
        )
        .expect("write the policy");
        HostileCheck {
            baseline,
            snapshot,
            policy,
        }
    }

    /// `driftgate --color COLOR check` of them with `args`.
    pub(crate) fn check(&self, color: &str, args: &[String]) -> std::process::Output {
        driftgate()
            .args(["--color", color, "check", "--snapshot"])
            .arg(&self.snapshot)
            .arg("--baseline")
            .arg(&self.baseline)
            .arg("--policy")
            .arg(&self.policy)
            .args(args)
            .output()
            .expect("driftgate runs")
    }
}

/// The control characters of `text` that are not line feed and tab.
pub(crate) fn raw_controls(text: &str) -> Vec<char> {
    text.chars()
        .filter(|c| c.is_control() && !matches!(c, '\n' | '\t'))
        .collect()
}

/// The names of the entries directly in `dir`, sorted.
pub(crate) fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| {
            e.expect("a directory entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    names.sort();
    names
}

/// Asserts that `dir` holds no temporary file of an atomic write (`.driftgate-*.tmp`).
#[track_caller]
pub(crate) fn assert_no_temporaries(dir: &Path) {
    let left: Vec<String> = names(dir)
        .into_iter()
        .filter(|n| n.starts_with(".driftgate-") && n.ends_with(".tmp"))
        .collect();
    assert!(left.is_empty(), "{}: {left:?} left behind", dir.display());
}

/// `path` as text, asserting that it is a file with something in it.
#[track_caller]
pub(crate) fn non_empty(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(!text.trim().is_empty(), "{} is empty", path.display());
    text
}

/// A directory in which no file can be created, and what keeps it so. Not root: a folder of
/// `scratch` made read-only. Root writes into any folder whatever its mode: /proc then, where
/// no one can create a file.
pub(crate) fn unwritable_dir(scratch: &Path) -> PathBuf {
    use std::os::unix::fs::PermissionsExt as _;
    let dir = scratch.join("read-only");
    std::fs::create_dir(&dir).expect("a folder");
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o555)).expect("chmod");
    let probe = dir.join("probe");
    if std::fs::write(&probe, "x").is_ok() {
        std::fs::remove_file(&probe).expect("remove the probe");
        return PathBuf::from("/proc");
    }
    dir
}

/// Runs `script` in `cwd` as a CI runner runs a step, with `bash -eo pipefail` (as GitHub runs
/// a `run:` step with `shell: bash`; the stricter of the two CIs): the driftgate under test on
/// PATH, the simulator's account and `env` in its environment.
pub(crate) fn bash_in(cwd: &Path, script: &str, env: &[(&str, &str)]) -> Ran {
    let bin = assert_cmd::cargo::cargo_bin("driftgate");
    let dir = bin.parent().expect("the binary's directory");
    let path = std::env::join_paths(std::iter::once(dir.to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .expect("a PATH");
    let output = std::process::Command::new("bash")
        .args(["-eo", "pipefail", "-c", script])
        .current_dir(cwd)
        .env("PATH", path)
        .env("DRIFTGATE", &bin)
        .env_remove("DRIFTGATE_REPO")
        .env_remove("DRIFTGATE_INVENTORY")
        .env_remove("DRIFTGATE_REPORTS")
        .env_remove("DRIFTGATE_STORE")
        .env(USERNAME_ENV, USER)
        .env(PASSWORD_ENV, PASSWORD)
        .envs(env.iter().copied())
        .output()
        .expect("bash runs");
    Ran {
        code: output.status.code().expect("exited normally"),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// `examples/ci/run-local.sh ARGS…` with the driftgate under test.
pub(crate) fn run_local(args: &[&str]) -> Ran {
    let script = root().join(RUN_LOCAL);
    let words: Vec<String> = std::iter::once(script.display().to_string())
        .chain(args.iter().map(|a| (*a).to_owned()))
        .map(|w| format!("'{w}'"))
        .collect();
    bash_in(&root(), &format!("bash {}", words.join(" ")), &[])
}

/// A workflow file, parsed.
pub(crate) fn workflow(path: &str) -> Value {
    let text = std::fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"));
    yaml_serde::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// `value` as a string.
#[track_caller]
pub(crate) fn text(value: &Value) -> &str {
    value
        .as_str()
        .unwrap_or_else(|| panic!("not a string: {value:?}"))
}

/// The steps of the only job of a workflow (GitHub: `jobs.<id>.steps`; Azure: `jobs[0].steps`).
pub(crate) fn steps(workflow: &Value) -> &[Value] {
    let job = match &workflow["jobs"] {
        Value::Sequence(jobs) => {
            assert_eq!(jobs.len(), 1, "one job");
            &jobs[0]
        }
        Value::Mapping(jobs) => {
            assert_eq!(jobs.len(), 1, "one job");
            jobs.values().next().expect("a job")
        }
        other => panic!("jobs: {other:?}"),
    };
    job["steps"].as_sequence().expect("steps")
}

/// The one step whose script calls nightly-check.sh, and the script's path as it names it.
pub(crate) fn check_step(steps: &[Value]) -> (&Value, String) {
    let calling: Vec<&Value> = steps
        .iter()
        .filter(|s| script(s).is_some_and(|r| r.contains("nightly-check.sh")))
        .collect();
    assert_eq!(calling.len(), 1, "one step calls nightly-check.sh");
    let step = calling[0];
    let path = script(step)
        .expect("a script")
        .split_whitespace()
        .find(|w| w.ends_with("nightly-check.sh"))
        .expect("the script's path")
        .to_owned();
    (step, path)
}

/// The shell script of a step: GitHub `run`, Azure `script` or `bash`.
pub(crate) fn script(step: &Value) -> Option<&str> {
    ["run", "script", "bash"]
        .iter()
        .find_map(|k| step.get(*k))
        .and_then(Value::as_str)
}

/// A step's condition: GitHub `if`, Azure `condition`.
pub(crate) fn condition(step: &Value) -> Option<&str> {
    ["if", "condition"]
        .iter()
        .find_map(|k| step.get(*k))
        .and_then(Value::as_str)
}

/// The action (GitHub `uses`) or task (Azure `task`) of a step, without its version.
pub(crate) fn action(step: &Value) -> Option<&str> {
    ["uses", "task"]
        .iter()
        .find_map(|k| step.get(*k))
        .and_then(Value::as_str)
        .map(|a| a.split('@').next().expect("a name"))
}

/// Input `name` of an action (GitHub `with`) or a task (Azure `inputs`).
pub(crate) fn input<'a>(step: &'a Value, name: &str) -> Option<&'a str> {
    ["with", "inputs"]
        .iter()
        .find_map(|k| step.get(*k)?.get(name))
        .and_then(Value::as_str)
}

/// The steps using `action` (see [`action`]).
#[track_caller]
pub(crate) fn step_using<'a>(steps: &'a [Value], action_name: &str) -> Vec<&'a Value> {
    let found: Vec<&Value> = steps
        .iter()
        .filter(|s| action(s) == Some(action_name))
        .collect();
    assert!(!found.is_empty(), "no step uses {action_name}");
    found
}

/// The environment a step's script gets from the workflow: the workflow's and job's `env`
/// (GitHub) or `variables` (Azure) with a plain value, then the step's own `env`.
pub(crate) fn plain_env(workflow: &Value, step: &Value) -> Vec<(String, String)> {
    let mut env = Vec::new();
    // A value the CI fills in (`${{ secrets.… }}`, `$(…)`) is the CI's, not the script's.
    let mut add = |name: &str, value: &Value| {
        if let Some(value) = value
            .as_str()
            .filter(|v| !v.contains("${{") && !v.contains("$("))
        {
            env.push((name.to_owned(), value.to_owned()));
        }
    };
    for scope in std::iter::once(workflow).chain(steps_owner(workflow)) {
        if let Some(vars) = scope["env"].as_mapping() {
            for (name, value) in vars {
                add(text(name), value);
            }
        }
        if let Some(vars) = scope["variables"].as_sequence() {
            for var in vars.iter().filter(|v| v.get("name").is_some()) {
                add(text(&var["name"]), &var["value"]);
            }
        }
    }
    if let Some(vars) = step["env"].as_mapping() {
        for (name, value) in vars {
            add(text(name), value);
        }
    }
    env
}

/// The job of a workflow.
fn steps_owner(workflow: &Value) -> Option<&Value> {
    match &workflow["jobs"] {
        Value::Sequence(jobs) => jobs.first(),
        Value::Mapping(jobs) => jobs.values().next(),
        _ => None,
    }
}
