//! The scheduler examples hold what they claim: examples/kubernetes (an Indexed Job of N
//! shards and their merge) and examples/systemd (a hardened oneshot service and its timer)
//! parse, keep their invariants, carry no credential, and their commands, run against a
//! simulated fleet, judge it as one unsharded run does.

use crate::common;

use std::collections::BTreeMap;
use std::path::Path;

use common::examples::{HOSTS, Night, one, read, sh, unit, verdicts};
use common::root;
use yaml_serde::Value;

/// The systemd units in examples/systemd (the Debian package installs them all).
const UNIT_FILES: [&str; 4] = [
    "driftgate-nightly.timer",
    "driftgate-nightly.service",
    "driftgate-store-pull.service",
    "driftgate-store-push.service",
];
const K8S: &str = "examples/kubernetes/nightly-cronjob.yaml";

/// The documents of a multi-document YAML file.
fn documents(path: &str) -> Vec<Value> {
    read(&root().join(path))
        .split("\n---\n")
        .map(|doc| yaml_serde::from_str(doc).unwrap_or_else(|e| panic!("{path}: {e}")))
        .collect()
}

fn text(value: &Value) -> &str {
    value
        .as_str()
        .unwrap_or_else(|| panic!("not a string: {value:?}"))
}

/// The pod spec of a CronJob document.
fn pod(cronjob: &Value) -> &Value {
    &cronjob["spec"]["jobTemplate"]["spec"]["template"]["spec"]
}

/// The shell script of the pod's only container (`command: [/bin/sh, -c]`, `args: [SCRIPT]`).
fn script(cronjob: &Value) -> String {
    let container = &pod(cronjob)["containers"][0];
    assert_eq!(container["command"][0].as_str(), Some("/bin/sh"));
    assert_eq!(container["command"][1].as_str(), Some("-c"));
    text(&container["args"][0]).to_owned()
}

/// Every env entry of every container and init container of `doc`.
fn env_entries(cronjob: &Value) -> Vec<&Value> {
    let spec = pod(cronjob);
    ["initContainers", "containers"]
        .iter()
        .filter_map(|k| spec[*k].as_sequence())
        .flatten()
        .filter_map(|c| c["env"].as_sequence())
        .flatten()
        .collect()
}

#[test]
fn the_kubernetes_manifests_keep_their_invariants() {
    let docs = documents(K8S);
    let (check, merge, claim) = (&docs[0], &docs[1], &docs[2]);
    assert_eq!(text(&check["kind"]), "CronJob");
    assert_eq!(text(&check["spec"]["schedule"]), "0 2 * * *");
    assert_eq!(text(&merge["spec"]["schedule"]), "0 4 * * *");
    let job = &check["spec"]["jobTemplate"]["spec"];
    assert_eq!(text(&job["completionMode"]), "Indexed");
    let script = script(check);
    // `--shard $((JOB_COMPLETION_INDEX + 1))/N`: index 0 … N-1 is shard 1/N … N/N.
    let (_, after) = script
        .split_once("--shard $((JOB_COMPLETION_INDEX + 1))/")
        .expect("the shard is the completion index + 1");
    let n: u64 = after
        .split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .expect("--shard K/N");
    assert_eq!(job["completions"].as_u64(), Some(n));
    assert_eq!(job["parallelism"].as_u64(), Some(n));
    assert!(script.contains("out=/results/$RUN_ID/shard-$JOB_COMPLETION_INDEX\n"));
    assert!(script.contains("driftgate --repo /store check --all"));
    assert!(script.contains("--out-dir \"$out\" --quiet --format json"));
    // Exit 2 (configuration) fails the Job at once; 0, 1 and 3 succeed the pod in the wrapper.
    let rule = &job["podFailurePolicy"]["rules"][0];
    assert_eq!(text(&rule["action"]), "FailJob");
    assert_eq!(rule["onExitCodes"]["values"][0].as_u64(), Some(2));
    assert_eq!(text(&pod(check)["restartPolicy"]), "Never");
    // The run id all pods share: the Job's name, which the merge's glob expects.
    let env: BTreeMap<&str, &Value> = env_entries(check)
        .into_iter()
        .map(|e| (text(&e["name"]), e))
        .collect();
    assert_eq!(
        text(&env["RUN_ID"]["valueFrom"]["fieldRef"]["fieldPath"]),
        "metadata.labels['batch.kubernetes.io/job-name']"
    );
    let job_prefix = format!("/results/{}-", text(&check["metadata"]["name"]));
    let merging = self::script(merge);
    assert!(
        merging.contains(&format!("ls -d {job_prefix}* ")),
        "{merging}"
    );
    assert!(merging.contains("driftgate --repo /store report merge \"$run\"/shard-* "));
    // No credential value: every variable comes from the downward API or a Secret, and no
    // Secret is defined here.
    for entry in env_entries(check).into_iter().chain(env_entries(merge)) {
        assert!(entry.get("value").is_none(), "a literal value: {entry:?}");
        assert!(entry.get("valueFrom").is_some(), "{entry:?}");
    }
    assert!(docs.iter().all(|d| d["kind"].as_str() != Some("Secret")));
    for doc in [check, merge] {
        driftgate_image_on_path(doc);
    }
    assert!(!read(&root().join(K8S)).contains(common::simulator::PASSWORD));
    // Both write and read the one ReadWriteMany claim.
    assert_eq!(text(&claim["kind"]), "PersistentVolumeClaim");
    assert_eq!(text(&claim["spec"]["accessModes"][0]), "ReadWriteMany");
    for doc in [check, merge] {
        assert_eq!(
            text(
                &pod(doc)["volumes"]
                    .as_sequence()
                    .expect("volumes")
                    .iter()
                    .find(|v| v["name"].as_str() == Some("results"))
                    .expect("the results volume")["persistentVolumeClaim"]["claimName"]
            ),
            text(&claim["metadata"]["name"])
        );
    }
}

/// The container runs driftgate from the image the Containerfile builds (the name and version
/// the README builds it as), mounted as an image volume on the PATH its script sets first.
fn driftgate_image_on_path(cronjob: &Value) {
    let spec = pod(cronjob);
    let volume = spec["volumes"]
        .as_sequence()
        .expect("volumes")
        .iter()
        .find(|v| v["name"].as_str() == Some("driftgate"))
        .expect("the driftgate image volume");
    let image = format!("driftgate:{}", env!("CARGO_PKG_VERSION"));
    assert_eq!(text(&volume["image"]["reference"]), image);
    let build = format!("docker build -t {image} -f Containerfile .");
    for doc in [
        "README.md",
        "docs/install.md",
        "examples/kubernetes/README.md",
        "Containerfile",
    ] {
        assert!(read(&root().join(doc)).contains(&build), "{doc}: {build}");
    }
    let mount = spec["containers"][0]["volumeMounts"]
        .as_sequence()
        .expect("volume mounts")
        .iter()
        .find(|m| m["name"].as_str() == Some("driftgate"))
        .expect("the image volume is mounted");
    let first = script(cronjob)
        .lines()
        .next()
        .unwrap_or_default()
        .to_owned();
    assert_eq!(first, format!("PATH={}:$PATH", text(&mount["mountPath"])));
}

#[test]
fn the_indexed_job_and_its_merge_judge_the_fleet_as_one_run() {
    let night = Night::start();
    let (code, one_run) = night.unsharded();
    assert_eq!(code, 3, "BMC 4 is down: {one_run}");
    let results = tempfile::tempdir().expect("a temporary directory");
    let docs = documents(K8S);
    let paths = |s: String| {
        s.replace("/store", &night.store.display().to_string())
            .replace("/results", &results.path().display().to_string())
    };
    let shard = paths(script(&docs[0]));
    let run_id = "driftgate-nightly-29412360";
    for index in ["0", "1", "2"] {
        let env = [("RUN_ID", run_id), ("JOB_COMPLETION_INDEX", index)];
        let (code, out) = sh(&shard, &env);
        assert_eq!(code, 0, "a shard that judged succeeds: {out}");
        let recorded = read(
            &results
                .path()
                .join(run_id)
                .join(format!("shard-{index}/exit-code")),
        );
        assert!(["0", "1", "3"].contains(&recorded.trim()), "{recorded}");
    }
    let run = results.path().join(run_id);
    let mut written: Vec<String> = std::fs::read_dir(&run)
        .expect("the run's directory")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    written.sort();
    assert_eq!(written, ["shard-0", "shard-1", "shard-2"]);

    let (code, summary) = sh(&paths(script(&docs[1])), &[]);
    assert_eq!(
        code, 3,
        "the merge's exit code is the fleet verdict: {summary}"
    );
    assert!(summary.contains(&format!("{HOSTS} hosts")), "{summary}");
    assert!(summary.contains("(3 shards merged)"), "{summary}");
    assert_eq!(read(&run.join("fleet.txt")).trim(), summary.trim());
    // The merge kept the night's last successes on the store's branch driftgate/state, and
    // the push-state container pushes it once the merge is done.
    let state = common::git(&night.store, &["show", "driftgate/state:state.json"]);
    assert!(state.contains("last_good"), "{state}");
    let push = &pod(&docs[1])["containers"][1];
    assert_eq!(text(&push["name"]), "push-state");
    let origin = results.path().join("origin.git");
    common::git(
        results.path(),
        &["init", "--quiet", "--bare", origin.to_str().unwrap()],
    );
    common::git(
        &night.store,
        &["remote", "add", "origin", origin.to_str().unwrap()],
    );
    let (code, out) = sh(
        &paths(text(&push["args"][0]).to_owned()),
        &[("STORE_TOKEN", "t")],
    );
    assert_eq!(code, 0, "{out}");
    assert_eq!(
        common::git(&origin, &["rev-parse", "driftgate/state"]),
        common::git(&night.store, &["rev-parse", "driftgate/state"])
    );
    let merged = sh(
        &format!(
            "driftgate --repo {} report merge --format json {}/shard-*",
            night.store.display(),
            run.display()
        ),
        &[],
    );
    let merged: serde_json::Value = serde_json::from_str(&merged.1).expect("JSON");
    assert_eq!(verdicts(&merged), verdicts(&one_run));

    // A configuration error (here: a store without an inventory) fails the pod, recording nothing.
    let empty = tempfile::tempdir().expect("a temporary directory");
    let broken = script(&docs[0])
        .replace("/store", &empty.path().display().to_string())
        .replace("/results", &results.path().display().to_string());
    let (code, out) = sh(
        &broken,
        &[("RUN_ID", "broken"), ("JOB_COMPLETION_INDEX", "0")],
    );
    assert_eq!(code, 2, "{out}");
    assert!(!results.path().join("broken/shard-0/exit-code").exists());
}

#[test]
fn the_systemd_units_are_hardened_and_their_command_judges_the_fleet() {
    let dir = root().join("examples/systemd");
    let service = unit(&dir.join("driftgate-nightly.service"));
    let timer = unit(&dir.join("driftgate-nightly.timer"));
    assert_eq!(one(&service, "Service", "Type"), "oneshot");
    assert_eq!(one(&service, "Service", "User"), "driftgate");
    // The account comes as systemd credentials, each from a root-only file of its name.
    let loaded = &service[&("Service".to_owned(), "LoadCredential".to_owned())];
    assert_eq!(loaded.len(), 2, "{loaded:?}");
    for (line, name) in loaded
        .iter()
        .zip(["DRIFTGATE_BMC_USERNAME", "DRIFTGATE_BMC_PASSWORD"])
    {
        assert_eq!(*line, format!("{name}:/etc/driftgate/credentials/{name}"));
    }
    assert_eq!(one(&service, "Service", "ProtectSystem"), "strict");
    assert_eq!(one(&service, "Service", "NoNewPrivileges"), "yes");
    assert_eq!(one(&service, "Service", "PrivateTmp"), "yes");
    // BLOCK and INCOMPLETE nights leave the unit failed, for monitoring to see.
    assert!(!service.contains_key(&("Service".into(), "SuccessExitStatus".into())));
    // The store's git runs in units of its own, without credentials: the pull before the night
    // (a failed pull leaves the night unrun), the push after it whatever its verdict (Wants=
    // from the night, After= it: an ordering waits for the end, not for success).
    let pull = unit(&dir.join("driftgate-store-pull.service"));
    let push = unit(&dir.join("driftgate-store-push.service"));
    assert_eq!(
        one(&service, "Unit", "Requires"),
        "driftgate-store-pull.service"
    );
    let after = &service[&("Unit".to_owned(), "After".to_owned())];
    assert!(
        after.iter().any(|a| a == "driftgate-store-pull.service"),
        "{after:?}"
    );
    let wants = &service[&("Unit".to_owned(), "Wants".to_owned())];
    assert!(
        wants.iter().any(|w| w == "driftgate-store-push.service"),
        "{wants:?}"
    );
    assert!(
        one(&push, "Unit", "After")
            .split_whitespace()
            .any(|a| a == "driftgate-nightly.service")
    );
    assert!(!push.contains_key(&("Unit".into(), "Requires".into())));
    for git in [&pull, &push] {
        assert_eq!(one(git, "Service", "Type"), "oneshot");
        assert_eq!(one(git, "Service", "User"), "driftgate");
        assert!(!git.contains_key(&("Service".into(), "LoadCredential".into())));
        assert!(
            one(git, "Service", "ExecStart")
                .starts_with("/usr/bin/git -C /var/lib/driftgate/store ")
        );
    }
    assert_eq!(one(&timer, "Timer", "OnCalendar"), "*-*-* 02:00:00");
    assert_eq!(one(&timer, "Timer", "Persistent"), "true");
    assert!(timer.contains_key(&("Timer".into(), "RandomizedDelaySec".into())));

    // The store and the out-dir are writable under ProtectSystem=strict.
    let exec = one(&service, "Service", "ExecStart");
    let words: Vec<&str> = exec.split_whitespace().collect();
    let after = |flag: &str| words[words.iter().position(|w| *w == flag).expect(flag) + 1];
    let writable: Vec<&str> = one(&service, "Service", "ReadWritePaths")
        .split_whitespace()
        .collect();
    let (store, out) = (after("--repo"), after("--out-dir"));
    for path in [store, out] {
        assert!(
            writable.iter().any(|w| Path::new(path).starts_with(w)),
            "{path} not in ReadWritePaths {writable:?}"
        );
    }

    // No credential value, and no environment, in the units.
    for file in UNIT_FILES {
        let text = read(&dir.join(file));
        assert!(!text.contains("PASSWORD="), "{file}");
        for key in ["Environment=", "EnvironmentFile=", "PassEnvironment="] {
            assert!(
                !text.contains(key),
                "{file}: {key} would hand the account to git and ssh too"
            );
        }
    }

    // ExecStart is a driftgate command line that judges the night (exit 3: BMC 4 is down),
    // run by the binary where the Debian package installs it.
    assert_eq!(words[0], "/usr/bin/driftgate");
    let night = Night::start();
    let results = tempfile::tempdir().expect("a temporary directory");
    let out_dir = results.path().join("nightly");
    let command = exec
        .replacen("/usr/bin/driftgate", "driftgate", 1)
        .replace(store, &night.store.display().to_string())
        .replace(out, &out_dir.display().to_string());
    let (code, output) = sh(&command, &[]);
    assert_eq!(code, night.unsharded().0, "{output}");
    assert_eq!(code, 3, "{output}");
    assert!(out_dir.join("run.json").is_file());

    verify_with_systemd(&dir);
}

/// `systemd-analyze verify` of the units (the binary paths pointed at existing files);
/// scripts/test-deps.sh installs systemd for it (no systemd runs).
fn verify_with_systemd(dir: &Path) {
    let copy = tempfile::tempdir().expect("a temporary directory");
    let bin = assert_cmd::cargo::cargo_bin("driftgate");
    for file in UNIT_FILES {
        let text = read(&dir.join(file))
            .replace("/usr/bin/driftgate", &bin.display().to_string())
            .replace("/usr/bin/git", "/bin/sh");
        std::fs::write(copy.path().join(file), text).expect("write the unit");
    }
    let output = std::process::Command::new("systemd-analyze")
        .arg("verify")
        .args(UNIT_FILES.map(|file| copy.path().join(file)))
        .output()
        .expect("systemd-analyze runs (scripts/test-deps.sh installs systemd)");
    let said = String::from_utf8_lossy(&output.stderr);
    // Outside a booted systemd (a container) verify cannot load the system manager; judge only
    // what it says about our units.
    let about_us: Vec<&str> = said.lines().filter(|l| l.contains("driftgate-")).collect();
    assert!(about_us.is_empty(), "systemd-analyze verify: {said}");
}
