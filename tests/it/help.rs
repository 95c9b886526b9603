//! `--help` an operator can learn from: every command of the tree, groups included, ends with
//! an `Examples:` section. The tree is walked as a user would, through `--help` itself.

use crate::common::{driftgate, stdout_of};

/// The subcommands a `--help` text lists under `Commands:` (without `help`).
pub(crate) fn subcommands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|line| *line != "Commands:")
        .skip(1)
        .take_while(|line| !line.is_empty())
        .filter_map(|line| {
            // A command's line is its name two spaces in; a wrapped description is deeper.
            let name = line.strip_prefix("  ")?.split_whitespace().next()?;
            (!line.starts_with("   ") && name != "help").then(|| name.to_owned())
        })
        .collect()
}

#[test]
fn every_command_has_examples_in_its_help() {
    let mut pending = vec![Vec::<String>::new()];
    let mut walked = Vec::new();
    let mut without = Vec::new();
    while let Some(path) = pending.pop() {
        let (code, help) = stdout_of(driftgate().args(&path).arg("--help"));
        assert_eq!(code, 0, "driftgate {} --help", path.join(" "));
        if !help.lines().any(|line| line == "Examples:") {
            without.push(format!("driftgate {} --help", path.join(" ")));
        }
        for sub in subcommands(&help) {
            let mut next = path.clone();
            next.push(sub);
            pending.push(next);
        }
        walked.push(path.join(" "));
    }
    // The walk found the tree (top, the groups and their commands), not just the top.
    for expected in [
        "",
        "baseline promote",
        "gate post",
        "mockup serve",
        "report merge",
    ] {
        assert!(
            walked.iter().any(|w| w == expected),
            "{expected:?} not walked: {walked:?}"
        );
    }
    assert!(walked.len() >= 25, "{walked:?}");
    assert!(
        without.is_empty(),
        "no Examples: section in\n{}",
        without.join("\n")
    );
}

#[test]
fn a_run_is_named_with_run_everywhere_and_the_old_spelling_still_works() {
    for path in [&["check"][..], &["gate", "pre"], &["gate", "post"]] {
        let (code, help) = stdout_of(driftgate().args(path).arg("--help"));
        assert_eq!(code, 0);
        assert!(help.contains("--run <ID>"), "{path:?}: {help}");
        assert!(!help.contains("--run-id"), "{path:?}: {help}");
    }
    // `check --all --run-id` as scripts wrote it: parsed (the inventory is what fails).
    let out = driftgate()
        .args([
            "check",
            "--all",
            "--run-id",
            "nightly-1",
            "--inventory",
            "/nonexistent.toml",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("/nonexistent.toml"), "{stderr}");
    assert!(!stderr.contains("unexpected argument"), "{stderr}");
}

/// `--repo` is offered where it means something: the top (before any command) and every
/// command that reads the baseline store, after its name too; a command that never reads a
/// store neither lists nor takes it.
#[test]
fn the_store_option_is_shown_and_taken_only_where_a_store_is_read() {
    let shows = |path: &[&str]| {
        let (code, help) = stdout_of(driftgate().args(path).arg("--help"));
        assert_eq!(code, 0, "{path:?}");
        help.lines()
            .any(|l| l.trim_start().starts_with("--repo <DIR>"))
    };
    for path in [
        &[][..],
        &["check"],
        &["diff"],
        &["baseline", "log"],
        &["gate", "pre"],
        &["inventory", "list"],
        &["policy", "show"],
        &["report", "merge"],
    ] {
        assert!(
            shows(path),
            "driftgate {} --help lists --repo",
            path.join(" ")
        );
    }
    for path in [
        &["capture"][..],
        &["schema"],
        &["mockup", "serve"],
        &["import", "windows-qos"],
        &["snapshot", "seal"],
        &["completions"],
    ] {
        assert!(
            !shows(path),
            "driftgate {} --help lists --repo",
            path.join(" ")
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let (code, _) = stdout_of(driftgate().args(["baseline", "init"]).arg(&store));
    assert_eq!(code, 0);
    // Before the command or after it: the same store (run from elsewhere, so that only the
    // option can name it).
    let logs: Vec<String> = [
        vec!["--repo", store.to_str().unwrap(), "inventory", "check"],
        vec!["inventory", "check", "--repo", store.to_str().unwrap()],
    ]
    .iter()
    .map(|args| {
        let output = driftgate()
            .args(args)
            .current_dir(dir.path())
            .env_remove("DRIFTGATE_REPO")
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&output.stderr).into_owned();
        assert!(text.contains(store.to_str().unwrap()), "{args:?}: {text}");
        text
    })
    .collect();
    assert_eq!(logs[0], logs[1]);
    let refused = driftgate()
        .args(["schema", "--repo", "/tmp", "report"])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("unexpected argument '--repo'"));
}
