//! `--report FORMAT[=FILE]` end to end (src/cli/reports.rs) on `check`, `check --all`, `gate
//! pre|post` and `report merge`: which report goes where, what is refused before any work, how
//! a file is replaced; and the CI examples (examples/ci) that publish those files: run-local.sh
//! against a simulated fleet, and both workflows' own steps run as a runner runs them, so that
//! a report path renamed on one side fails here. The formats' contents are the renderers'
//! tests; these test the plumbing and the files.

use crate::common;

use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
use std::path::Path;

use common::examples::Night;
use common::fleet::{FleetLab, Host, State, verdicts};
use common::gate::{Lab, Ran, run};
use common::reports::{
    AZURE, CONTROL, GITHUB, HOSTILE, HOSTILE_SHOWN, HostileCheck, NIGHTLY_CHECK,
    assert_no_temporaries, bash_in, blocking_check, check_step, condition, control_snapshot, input,
    names, non_empty, passing_check, plain_env, raw_controls, run_local, script, step_using, steps,
    text, unwritable_dir, workflow,
};
use common::{driftgate, driftgate_process, root};

/// Every format name, as `--format` and `--report` take them.
const FORMATS: [&str; 7] = [
    "text",
    "json",
    "markdown",
    "junit",
    "sarif",
    "prometheus",
    "html",
];

/// `blocking_check` with `args`, run to its end.
fn check(args: &[&str]) -> Ran {
    run(blocking_check().args(args))
}

fn path(dir: &Path, name: &str) -> String {
    dir.join(name).display().to_string()
}

#[test]
fn check_writes_each_report_file_and_still_prints_its_text() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let (json, markdown) = (
        path(dir.path(), "report.json"),
        path(dir.path(), "ticket.md"),
    );
    let ran = check(&[
        "--report",
        &format!("json={json}"),
        "--report",
        &format!("markdown={markdown}"),
    ])
    .expect(1);
    let text = check(&[]).expect(1).stdout;
    assert!(text.contains("BLOCK"), "{text}");
    assert_eq!(ran.stdout, text, "standard output is still the text report");
    assert_eq!(
        non_empty(Path::new(&json)),
        check(&["--format", "json"]).stdout
    );
    assert_eq!(
        non_empty(Path::new(&markdown)),
        check(&["--format", "markdown"]).stdout
    );
    let report: serde_json::Value =
        serde_json::from_str(&non_empty(Path::new(&json))).expect("JSON");
    assert_eq!(report["verdict"], "block");
    assert_eq!(names(dir.path()), ["report.json", "ticket.md"]);

    // Colour is for a terminal: a file gets none, whatever --color says.
    let file = dir.path().join("report.txt");
    let ran = check(&[
        "--color",
        "always",
        "--report",
        &format!("text={}", file.display()),
    ]);
    assert!(
        ran.expect(1).stdout.contains('\u{1b}'),
        "coloured standard output"
    );
    assert_eq!(non_empty(&file), text);
}

#[test]
fn a_report_without_a_file_takes_the_place_of_format_on_standard_output() {
    let json = check(&["--format", "json"]).expect(1).stdout;
    serde_json::from_str::<serde_json::Value>(&json).expect("JSON");
    for args in [
        &["--report", "json"][..],
        &["--report", "json=-"],
        &["--format", "markdown", "--report", "json"],
    ] {
        assert_eq!(check(args).expect(1).stdout, json, "{args:?}");
    }
    // Beside a file: the file gets one format, standard output the other.
    let dir = tempfile::tempdir().expect("a temporary directory");
    let html = path(dir.path(), "r.html");
    let ran = check(&["--report", "json", "--report", &format!("html={html}")]).expect(1);
    assert_eq!(ran.stdout, json);
    assert_eq!(
        non_empty(Path::new(&html)),
        check(&["--format", "html"]).stdout
    );
}

#[test]
fn format_takes_every_format_name_as_report_does() {
    for name in FORMATS {
        let by_format = check(&["--format", name]).expect(1).stdout;
        assert!(!by_format.trim().is_empty(), "--format {name}");
        assert_eq!(
            check(&["--report", name]).expect(1).stdout,
            by_format,
            "{name}"
        );
    }
    // The same format into a file: what --format printed is that format's report.
    let dir = tempfile::tempdir().expect("a temporary directory");
    for name in FORMATS {
        let file = dir.path().join(name);
        check(&["--report", &format!("{name}={}", file.display())]).expect(1);
        assert_eq!(
            non_empty(&file),
            check(&["--format", name]).stdout,
            "{name}"
        );
    }
}

#[test]
fn an_unknown_format_is_refused_naming_the_valid_ones() {
    for args in [
        &["--report", "xml=out.xml"][..],
        &["--report", "xml"],
        &["--format", "xml"],
    ] {
        let ran = check(args).expect(2);
        for name in FORMATS {
            assert!(
                ran.stderr.contains(name),
                "{args:?} names {name}: {}",
                ran.stderr
            );
        }
        assert!(ran.stdout.is_empty(), "{args:?}: {}", ran.stdout);
    }
    assert!(!root().join("out.xml").exists());
    let ran = check(&["--report", "json="]).expect(2);
    assert!(ran.stderr.contains("empty"), "{}", ran.stderr);
}

#[test]
fn two_reports_on_standard_output_are_refused_before_any_work() {
    // The snapshot does not exist: the refusal comes first, before anything is read.
    let ran = run(driftgate_check_of("/no/such/snapshot.json")
        .args(["--report", "json", "--report", "html=-"]))
    .expect(2);
    assert!(ran.stderr.contains("standard output"), "{}", ran.stderr);
    assert!(!ran.stderr.contains("no/such"), "{}", ran.stderr);
    assert!(ran.stdout.is_empty());
    // check --all: nothing is captured, no out-dir is made.
    let lab = FleetLab::new(
        &[Host::new("node-a", State::Recorded("baseline"))],
        &["node-a"],
    );
    let out = lab.path("out");
    let ran = lab
        .check(&[
            "--out-dir",
            &out.display().to_string(),
            "--report",
            "junit",
            "--report",
            "sarif",
        ])
        .expect(2);
    assert!(ran.stderr.contains("standard output"), "{}", ran.stderr);
    assert!(!out.exists(), "the run started");
}

fn driftgate_check_of(snapshot: &str) -> assert_cmd::Command {
    let mut cmd = common::driftgate();
    cmd.args(["--color", "never", "check", "--snapshot", snapshot]);
    cmd
}

#[test]
fn the_same_file_twice_is_refused_however_it_is_spelt() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let d = dir.path().display().to_string();
    let spellings = [
        (format!("{d}/r.txt"), format!("{d}/r.txt")),
        (format!("{d}/r.txt"), format!("{d}/./r.txt")),
        (
            format!("{d}/r.txt"),
            format!("{d}/../{}/r.txt", last(dir.path())),
        ),
    ];
    for (one, other) in &spellings {
        let ran = check(&[
            "--report",
            &format!("json={one}"),
            "--report",
            &format!("markdown={other}"),
        ])
        .expect(2);
        assert!(
            ran.stderr.contains("named twice"),
            "{one} {other}: {}",
            ran.stderr
        );
        assert!(ran.stdout.is_empty(), "before the run");
    }
    // Relative to the current directory and absolute.
    let ran = run(blocking_check().current_dir(dir.path()).args([
        "--report",
        "json=r.txt",
        "--report",
        &format!("markdown={d}/r.txt"),
    ]))
    .expect(2);
    assert!(ran.stderr.contains("named twice"), "{}", ran.stderr);
    assert!(names(dir.path()).is_empty(), "nothing written");
}

/// The last component of `dir`.
fn last(dir: &Path) -> String {
    dir.file_name()
        .expect("a name")
        .to_string_lossy()
        .into_owned()
}

#[test]
fn a_missing_directory_or_a_directory_is_refused_before_the_run() {
    let lab = FleetLab::new(
        &[Host::new("node-a", State::Recorded("post-update"))],
        &["node-a"],
    );
    let out = lab.path("out");
    let missing = lab.path("no-such-dir/junit.xml");
    let ran = lab
        .check(&[
            "--out-dir",
            &out.display().to_string(),
            "--report",
            &format!("junit={}", missing.display()),
        ])
        .expect(2);
    assert!(ran.stderr.contains("no-such-dir"), "{}", ran.stderr);
    assert!(ran.stderr.contains("does not exist"), "{}", ran.stderr);
    assert!(!out.exists(), "nothing was captured");
    assert!(ran.stdout.is_empty());

    let ran = check(&[
        "--report",
        &format!("json={}", lab.path("x/y.json").display()),
    ])
    .expect(2);
    assert!(ran.stderr.contains("does not exist"), "{}", ran.stderr);
    // A directory where the file should be: refused before the run, not after it.
    let ran = lab
        .check(&[
            "--out-dir",
            &out.display().to_string(),
            "--report",
            &format!("html={}", lab.store.display()),
        ])
        .expect(2);
    assert!(ran.stderr.contains("is a directory"), "{}", ran.stderr);
    assert!(!out.exists(), "nothing was captured");
}

#[test]
fn an_existing_report_is_replaced_atomically_keeping_its_mode() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let file = dir.path().join("report.json");
    std::fs::write(&file, "last night's report\n").expect("write");
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o640)).expect("chmod");
    // A hard link keeps the old file: a rename replaces the name, a rewrite would change both.
    let link = dir.path().join("old.json");
    std::fs::hard_link(&file, &link).expect("a hard link");
    let inode = std::fs::metadata(&file).expect("metadata").ino();

    check(&["--report", &format!("json={}", file.display())]).expect(1);
    assert_eq!(non_empty(&file), check(&["--format", "json"]).stdout);
    assert_eq!(
        non_empty(&link),
        "last night's report\n",
        "the file was rewritten in place"
    );
    let meta = std::fs::metadata(&file).expect("metadata");
    assert_ne!(meta.ino(), inode);
    assert_eq!(
        meta.permissions().mode() & 0o777,
        0o640,
        "the mode it replaced"
    );
    assert_no_temporaries(dir.path());
    assert_eq!(names(dir.path()), ["old.json", "report.json"]);

    // A new report is readable as any new file of the user (the umask decides), not only by
    // its owner as a temporary file is: node_exporter reads the textfile as another user.
    let new = dir.path().join("new.prom");
    check(&["--report", &format!("prometheus={}", new.display())]).expect(1);
    let plain = dir.path().join("plain");
    std::fs::write(&plain, "x").expect("write");
    assert_eq!(
        std::fs::metadata(&new)
            .expect("metadata")
            .permissions()
            .mode()
            & 0o777,
        std::fs::metadata(&plain)
            .expect("metadata")
            .permissions()
            .mode()
            & 0o777
    );
    assert_no_temporaries(dir.path());
}

#[test]
fn an_unwritable_file_keeps_a_blocks_exit_1_and_names_the_file_after_the_verdict() {
    let scratch = tempfile::tempdir().expect("a temporary directory");
    let unwritable = unwritable_dir(scratch.path());
    let lost = unwritable.join("driftgate-report.json");
    let kept = scratch.path().join("ticket.md");
    let ran = check(&[
        "--report",
        &format!("json={}", lost.display()),
        "--report",
        &format!("markdown={}", kept.display()),
    ])
    .expect(1);
    assert!(
        ran.stderr.contains(&lost.display().to_string()),
        "{}",
        ran.stderr
    );
    assert!(
        ran.stderr.contains("cannot write the json report"),
        "{}",
        ran.stderr
    );
    assert_eq!(
        ran.stdout,
        check(&[]).stdout,
        "the verdict is on standard output"
    );
    assert!(ran.stdout.contains("BLOCK"));
    assert!(!lost.exists());
    // The other file is written all the same.
    assert_eq!(non_empty(&kept), check(&["--format", "markdown"]).stdout);
    if unwritable != Path::new("/proc") {
        assert_no_temporaries(&unwritable);
    }
}

#[test]
fn an_unwritable_file_turns_a_pass_into_exit_2_and_keeps_incompletes_3() {
    let scratch = tempfile::tempdir().expect("a temporary directory");
    let unwritable = unwritable_dir(scratch.path());
    let lost = unwritable.join("junit.xml");
    let report = format!("junit={}", lost.display());
    // A pipeline must notice that a passing night has no report.
    let ran = run(passing_check().args(["--report", &report])).expect(2);
    assert!(ran.stdout.contains("PASS"), "{}", ran.stdout);
    assert!(
        ran.stderr.contains(&lost.display().to_string()),
        "{}",
        ran.stderr
    );
    // INCOMPLETE says more than "could not judge".
    let snapshot = control_snapshot(scratch.path());
    let ran = run(driftgate()
        .args(["--color", "never", "check", "--snapshot"])
        .arg(&snapshot)
        .args(["--report", &report]))
    .expect(3);
    assert!(
        ran.stderr.contains("cannot write the junit report"),
        "{}",
        ran.stderr
    );
}

/// `driftgate ARGS…` with its standard output sent to `stdout`: exit code, standard error.
fn with_stdout(args: &[&str], stdout: std::process::Stdio) -> (i32, String) {
    let output = driftgate_process()
        .args(args)
        .stdout(stdout)
        .output()
        .expect("driftgate runs");
    (
        output.status.code().expect("exited normally"),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn standard_output_that_cannot_be_written_still_lets_every_file_be_written() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let json = path(dir.path(), "r.json");
    let report = format!("json={json}");
    let blocking = [
        "--color",
        "never",
        "check",
        "--snapshot",
        &common::example("azure-local-dcbx/post-update.json"),
        "--baseline",
        &common::example("azure-local-dcbx/baseline.json"),
        "--report",
        &report,
    ];
    let expected = check(&["--format", "json"]).stdout;
    let full = || {
        std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full")
            .into()
    };

    // A full disk: an error naming standard output, the file all the same, BLOCK's exit 1.
    let (code, stderr) = with_stdout(&blocking, full());
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("standard output: cannot write the text report"),
        "{stderr}"
    );
    assert_eq!(non_empty(Path::new(&json)), expected);

    // On a passing check the same failure is exit 2.
    std::fs::remove_file(&json).expect("remove");
    let mut passing = blocking;
    passing[4] = blocking[6];
    let (code, stderr) = with_stdout(&passing, full());
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("standard output"), "{stderr}");
    assert!(Path::new(&json).is_file(), "{stderr}");

    // A closed pipe (`| head` that had enough) is no error, and the file is written.
    std::fs::remove_file(&json).expect("remove");
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    let (code, stderr) = with_stdout(&blocking, writer.into());
    assert_eq!(code, 1, "{stderr}");
    assert!(!stderr.contains("error"), "{stderr}");
    assert_eq!(non_empty(Path::new(&json)), expected);
}

#[test]
fn control_characters_of_a_capture_are_json_escapes_in_json_and_shown_in_sarif_and_text() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let snapshot = control_snapshot(dir.path());
    let (json, sarif, text) = (
        dir.path().join("r.json"),
        dir.path().join("r.sarif"),
        dir.path().join("r.txt"),
    );
    let error = format!("remote said: {CONTROL}");
    // Every control character a JSON escape (serde_json's own for the ESC, the report's for
    // the DEL): a stream that strips ANSI styles would eat "\u{1b}[31m" had it been raw, and
    // drop the DEL.
    let serialized = serde_json::to_string(&error)
        .expect("JSON")
        .replace('\u{7f}', "\\u007f");
    assert!(serialized.contains("\\u001b[31m") && serialized.contains("\\u007f"));
    let mut stdouts = Vec::new();
    for color in ["never", "always"] {
        let output = driftgate_process()
            .args(["--color", color, "check", "--snapshot"])
            .arg(&snapshot)
            .args(["--format", "json", "--report"])
            .arg(format!("json={}", json.display()))
            .arg("--report")
            .arg(format!("sarif={}", sarif.display()))
            .arg("--report")
            .arg(format!("text={}", text.display()))
            .output()
            .expect("driftgate runs");
        assert_eq!(
            output.status.code(),
            Some(3),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let stdout = String::from_utf8(output.stdout).expect("UTF-8");
        assert!(stdout.contains(&serialized), "--color {color}: {stdout}");
        let report: serde_json::Value = serde_json::from_str(&stdout).expect("JSON");
        assert_eq!(report["incomplete_sources"][0]["error"], error.as_str());
        assert_eq!(
            std::fs::read_to_string(&json).expect("read"),
            stdout,
            "the file is what standard output got"
        );
        // SARIF's messages are read by a person: shown, as the text report shows them.
        let sarif = std::fs::read_to_string(&sarif).expect("read");
        assert!(
            sarif.contains("port \\\\u{1b}[31mred\\\\u{1b}[0m \\\\u{7f}end"),
            "{sarif}"
        );
        assert!(raw_controls(&sarif).is_empty(), "{sarif}");
        serde_json::from_str::<serde_json::Value>(&sarif).expect("SARIF is JSON");
        // The text file is for a person: no styles, and what the capture sent shown.
        let text = non_empty(&text);
        assert!(
            text.contains("port \\u{1b}[31mred\\u{1b}[0m \\u{7f}end"),
            "{text}"
        );
        assert!(raw_controls(&text).is_empty(), "{text}");
        stdouts.push(stdout);
    }
    assert_eq!(stdouts[0], stdouts[1], "--color does not touch JSON");
}

/// Every string of `value` (keys too).
fn strings(value: &serde_json::Value, all: &mut Vec<String>) {
    match value {
        serde_json::Value::String(s) => all.push(s.clone()),
        serde_json::Value::Array(items) => items.iter().for_each(|v| strings(v, all)),
        serde_json::Value::Object(map) => {
            for (k, v) in map {
                all.push(k.clone());
                strings(v, all);
            }
        }
        _ => {}
    }
}

/// The text a CommonMark reader shows of `md` (text and code, without the markup).
fn markdown_text(md: &str) -> String {
    use pulldown_cmark::{Event, Options, Parser};
    Parser::new_ext(md, Options::ENABLE_TABLES)
        .filter_map(|event| match event {
            Event::Text(t) | Event::Code(t) => Some(t.into_string()),
            _ => None,
        })
        .collect()
}

#[test]
fn a_peer_or_bmc_name_holding_escape_sequences_is_shown_in_every_report_and_raw_in_none() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let check = HostileCheck::new(dir.path());
    let file = |format: &str| dir.path().join(format!("report.{format}"));
    let mut args = Vec::new();
    for format in FORMATS {
        args.push("--report".to_owned());
        args.push(format!("{format}={}", file(format).display()));
    }
    let ran = check.check("never", &args);
    let stderr = String::from_utf8_lossy(&ran.stderr);
    assert_eq!(ran.status.code(), Some(3), "{stderr}");
    assert!(raw_controls(&stderr).is_empty(), "{stderr:?}");
    let stdout = String::from_utf8(ran.stdout).expect("UTF-8");
    for format in FORMATS {
        let text = non_empty(&file(format));
        let raw = raw_controls(&text);
        assert!(raw.is_empty(), "{format}: raw {raw:?} in\n{text}");
        match format {
            "json" => {
                // The data, exact: every control character a JSON escape.
                let report: serde_json::Value = serde_json::from_str(&text).expect("JSON");
                let mut all = Vec::new();
                strings(&report, &mut all);
                assert!(all.iter().any(|s| s == HOSTILE), "{text}");
                assert!(text.contains("\\u001b]8;;") && text.contains("\\u009b31m"));
            }
            "markdown" => {
                let shown = markdown_text(&text);
                assert!(shown.contains(HOSTILE_SHOWN), "{shown}\n{text}");
            }
            "sarif" => {
                let log = common::sarif::read_valid(&file(format));
                let mut all = Vec::new();
                strings(&log, &mut all);
                assert!(all.iter().any(|s| s.contains(HOSTILE_SHOWN)), "{text}");
            }
            "junit" => {
                common::junit::assert_valid(&file(format));
                assert!(text.contains(HOSTILE_SHOWN), "{text}");
            }
            "prometheus" => {
                common::prometheus::check_metrics(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
                let rules: Vec<String> = common::prometheus::samples(&text)
                    .into_iter()
                    .filter_map(|s| s.labels.get("rule").cloned())
                    .collect();
                let id = format!("peer-name-{HOSTILE_SHOWN}");
                assert!(rules.contains(&id), "{rules:?}\n{text}");
            }
            "text" => {
                assert!(text.contains(HOSTILE_SHOWN), "{text}");
                assert_eq!(text, stdout, "the file is what standard output got");
            }
            _ => assert!(text.contains(HOSTILE_SHOWN), "{format}: {text}"),
        }
    }
    // On a terminal: the text report's own styles, and nothing the capture sent.
    let ran = check.check("always", &[]);
    let stdout = String::from_utf8(ran.stdout).expect("UTF-8");
    assert!(stdout.contains(HOSTILE_SHOWN), "{stdout}");
    // The report's own styles are raw, none of them shown as text.
    assert!(stdout.contains("\u{1b}[1m"), "{stdout:?}");
    assert!(!stdout.contains("\\u{1b}[0m"), "{stdout:?}");
    let unstyled = stdout
        .split('\u{1b}')
        .enumerate()
        .map(|(i, part)| {
            if i == 0 {
                return part.to_owned();
            }
            // Each ESC starts one of the renderer's SGR styles: `[`, digits and `;`, `m`.
            let end = part
                .find('m')
                .unwrap_or_else(|| panic!("a raw ESC: {part:?}"));
            assert!(
                part[..end].starts_with('[')
                    && part[1..end].chars().all(|c| c.is_ascii_digit() || c == ';'),
                "a raw ESC not of a style: {part:?}"
            );
            part[end + 1..].to_owned()
        })
        .collect::<String>();
    assert!(raw_controls(&unstyled).is_empty(), "{unstyled:?}");
}

#[test]
fn gate_pre_and_post_write_their_reports() {
    let lab = Lab::new();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let (json, junit) = (
        path(dir.path(), "pre.json"),
        path(dir.path(), "pre-junit.xml"),
    );
    let pre = lab
        .gate(&[
            "pre",
            "--run",
            "CHG-1",
            "--report",
            &format!("json={json}"),
            "--report",
            &format!("junit={junit}"),
            "azl-node01",
        ])
        .expect(0);
    assert!(pre.stdout.contains("PASS"), "{}", pre.stdout);
    let report: serde_json::Value =
        serde_json::from_str(&non_empty(Path::new(&json))).expect("JSON");
    assert_eq!(report["verdict"], "pass", "{report:#}");
    non_empty(Path::new(&junit));

    lab.state("post-update");
    let html = path(dir.path(), "post.html");
    let post = lab
        .gate(&[
            "post",
            "--run",
            "CHG-1",
            "--report",
            "json",
            "--report",
            &format!("html={html}"),
        ])
        .expect(1);
    assert_eq!(
        post.json()["verdict"],
        "block",
        "--report json on standard output"
    );
    non_empty(Path::new(&html));
    assert_no_temporaries(dir.path());
}

#[test]
fn check_all_and_report_merge_write_their_reports() {
    let hosts = [
        Host::new("node-a", State::Recorded("baseline")),
        Host::new("node-b", State::Recorded("post-update")),
    ];
    let lab = FleetLab::new(&hosts, &["node-a", "node-b"]);
    let out = lab.path("out");
    let reports = lab.path("reports");
    std::fs::create_dir(&reports).expect("a folder");
    let file = |name: &str| path(&reports, name);
    let ran = lab
        .check(&[
            "--quiet",
            "--out-dir",
            &out.display().to_string(),
            "--report",
            &format!("json={}", file("fleet.json")),
            "--report",
            &format!("sarif={}", file("fleet.sarif")),
            "--report",
            &format!("html={}", file("fleet.html")),
        ])
        .expect(1);
    assert!(ran.stdout.contains("FLEET BLOCK"), "{}", ran.stdout);
    let fleet: serde_json::Value =
        serde_json::from_str(&non_empty(Path::new(&file("fleet.json")))).expect("JSON");
    assert_eq!(
        verdicts(&fleet),
        [
            ("node-a".to_owned(), "pass".to_owned()),
            ("node-b".to_owned(), "block".to_owned())
        ]
    );
    non_empty(Path::new(&file("fleet.sarif")));
    non_empty(Path::new(&file("fleet.html")));

    let merged = lab
        .merge(
            &[&out],
            &[
                "--report",
                &format!("json={}", file("merged.json")),
                "--report",
                &format!("prometheus={}", file("driftgate.prom")),
                "--report",
                &format!("junit={}", file("junit.xml")),
            ],
        )
        .expect(1);
    assert!(merged.stdout.contains("FLEET BLOCK"), "{}", merged.stdout);
    let merged: serde_json::Value =
        serde_json::from_str(&non_empty(Path::new(&file("merged.json")))).expect("JSON");
    assert_eq!(verdicts(&merged), verdicts(&fleet));
    non_empty(Path::new(&file("driftgate.prom")));
    non_empty(Path::new(&file("junit.xml")));
    assert_no_temporaries(&reports);
    // merge refuses as check does, before reading a directory.
    let ran = lab.merge(
        &[Path::new("/no/such/run")],
        &["--report", "json", "--report", "text"],
    );
    let ran = ran.expect(2);
    assert!(ran.stderr.contains("standard output"), "{}", ran.stderr);
}

#[test]
fn help_shows_a_report_example() {
    for command in [
        &["check"][..],
        &["gate", "pre"],
        &["gate", "post"],
        &["report", "merge"],
    ] {
        let ran = run(common::driftgate().args(command).arg("--help")).expect(0);
        let examples = ran
            .stdout
            .split_once("\nExample")
            .unwrap_or_else(|| panic!("{command:?}: no examples: {}", ran.stdout))
            .1;
        // A command line (its continuation lines too) naming --report FORMAT=FILE.
        let example = examples.lines().map(str::trim).find(|l| {
            (l.starts_with("driftgate ") || l.starts_with("--report"))
                && l.split_whitespace().any(|w| {
                    w.split_once('=')
                        .is_some_and(|(f, file)| FORMATS.contains(&f) && !file.is_empty())
                })
                && l.contains("--report ")
        });
        assert!(
            example.is_some(),
            "{command:?}: no --report example: {examples}"
        );
    }
}

// The CI examples.

/// Exit code of `driftgate report merge --no-rejudge OUT_DIR` (the script's store is gone by
/// now): the verdict the run that wrote it recorded, read back by driftgate.
fn merged_code(out_dir: &Path) -> i32 {
    // Run beside the results, not in this checkout: the repository is a baseline store (the
    // examples' baselines), and a merge records the night's state into the store it runs in.
    run(common::driftgate()
        .args(["report", "merge", "--no-rejudge", "--format", "json"])
        .arg(out_dir)
        .current_dir(out_dir)
        .env_remove("DRIFTGATE_REPO"))
    .code
}

#[test]
fn run_local_publishes_every_report_and_exits_with_driftgates_code() {
    for (night, code) in [("incomplete", 3), ("block", 1), ("pass", 0)] {
        let reports = tempfile::tempdir().expect("a temporary directory");
        let dir = reports.path().display().to_string();
        let ran = run_local(&["--night", night, &dir]);
        let ran = ran.expect(code);
        for file in [
            "junit.xml",
            "sarif/driftgate.sarif",
            "fleet.html",
            "summary.md",
            "run/run.json",
        ] {
            let file = reports.path().join(file);
            non_empty(&file);
            assert!(
                ran.stdout.contains(&format!("  {}\n", file.display())),
                "{night}: where {} went is said: {}",
                file.display(),
                ran.stdout
            );
        }
        assert_eq!(
            non_empty(&reports.path().join("exit-code")).trim(),
            code.to_string()
        );
        assert_eq!(merged_code(&reports.path().join("run")), code, "{night}");
        assert!(
            ran.stdout.contains(&format!("driftgate: exit {code}")),
            "{}",
            ran.stdout
        );
        assert_no_temporaries(reports.path());
    }
}

#[test]
fn nightly_check_exits_2_on_a_configuration_error_and_leaves_no_stale_report() {
    // Not a baseline store: nothing can be judged; last night's files must not be published.
    let checkout = tempfile::tempdir().expect("a temporary directory");
    let reports = checkout.path().join("driftgate-reports");
    std::fs::create_dir_all(reports.join("sarif")).expect("a folder");
    for stale in [
        "junit.xml",
        "sarif/driftgate.sarif",
        "fleet.html",
        "summary.md",
    ] {
        std::fs::write(reports.join(stale), "last night").expect("write");
    }
    let script = root().join(NIGHTLY_CHECK).display().to_string();
    let ran = bash_in(checkout.path(), &format!("bash '{script}'"), &[]).expect(2);
    assert!(ran.stdout.contains("driftgate: exit 2"), "{}", ran.stdout);
    assert_eq!(non_empty(&reports.join("exit-code")).trim(), "2");
    assert_eq!(names(&reports), ["exit-code", "sarif"]);
    assert!(names(&reports.join("sarif")).is_empty());
}

/// How each workflow publishes, and how its check step hands on driftgate's exit code.
struct Publishing {
    file: &'static str,
    /// (action or task, the input naming the path(s) it publishes).
    publishers: &'static [(&'static str, &'static str)],
    /// driftgate's exit code from what the check step left: its log and the `$GITHUB_OUTPUT`
    /// file.
    exit_code: fn(&str, &str) -> Option<i32>,
}

const PUBLISHING: [Publishing; 2] = [
    Publishing {
        file: GITHUB,
        publishers: &[
            ("mikepenz/action-junit-report", "report_paths"),
            ("github/codeql-action/upload-sarif", "sarif_file"),
            ("actions/upload-artifact", "path"),
        ],
        exit_code: |_, output_file| {
            output_file
                .lines()
                .find_map(|l| l.strip_prefix("code="))
                .and_then(|c| c.parse().ok())
        },
    },
    Publishing {
        file: AZURE,
        publishers: &[
            ("PublishTestResults", "testResultsFiles"),
            ("PublishPipelineArtifact", "targetPath"),
        ],
        exit_code: |log, _| {
            log.lines()
                .find_map(|l| l.strip_prefix("##vso[task.setvariable variable=driftgateExit]"))
                .and_then(|c| c.trim().parse().ok())
        },
    },
];

/// The paths (one a line) of input `name` of a step that publishes.
fn published_paths<'a>(step: &'a yaml_serde::Value, name: &str) -> Vec<&'a str> {
    input(step, name)
        .unwrap_or_else(|| panic!("no input {name}: {step:?}"))
        .lines()
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect()
}

/// A step's condition that runs it whatever the earlier steps did: `always()`, alone or first
/// in an `and(…)` (GitHub `always() && …`).
fn on_every_night(condition: &str) -> bool {
    condition.starts_with("always()") || condition.starts_with("and(always(),")
}

/// The Azure pipeline after its check step `ran` in `store`: each artifact task publishes only
/// when the check step said its folder was written (a missing folder fails the task), and the
/// SARIF file is in exactly one artifact (the rest excluded by the folder's .artifactignore).
fn azure_publishes_sarif_once_and_only_what_was_written(
    steps: &[yaml_serde::Value],
    store: &Path,
    ran: &Ran,
) {
    let sarif = "driftgate-reports/sarif/driftgate.sarif";
    let mut holding = 0;
    for publisher in step_using(steps, "PublishPipelineArtifact") {
        let when = condition(publisher).expect("a condition");
        let variable = when
            .split("variables['")
            .nth(1)
            .and_then(|rest| rest.split('\'').next())
            .unwrap_or_else(|| panic!("{AZURE}: {when} tests no variable"));
        assert!(
            when.contains(&format!("eq(variables['{variable}'], 'true')")),
            "{AZURE}: {when}"
        );
        assert!(
            ran.stdout
                .contains(&format!("##vso[task.setvariable variable={variable}]true")),
            "{AZURE}: the check step sets {variable}: {}",
            ran.stdout
        );
        let target = input(publisher, "targetPath").expect("a targetPath");
        let Some(inside) = sarif.strip_prefix(&format!("{target}/")) else {
            continue;
        };
        let ignored =
            std::fs::read_to_string(store.join(target).join(".artifactignore")).unwrap_or_default();
        if !ignored
            .lines()
            .any(|l| !l.trim().is_empty() && inside.starts_with(l.trim()))
        {
            holding += 1;
        }
    }
    assert_eq!(holding, 1, "{AZURE}: the SARIF file is published once");

    // A check step that never got to write (no script in this checkout) publishes nothing.
    let empty = tempfile::tempdir().expect("a temporary directory");
    let (step, _) = check_step(steps);
    let failed = bash_in(
        empty.path(),
        script(step).expect("a script"),
        &[
            ("DRIFTGATE_REPORTS", "driftgate-reports"),
            ("SYSTEM_JOBATTEMPT", "1"),
        ],
    );
    assert!(
        failed
            .stdout
            .contains("##vso[task.setvariable variable=driftgateExit]127"),
        "{}",
        failed.stdout
    );
    assert!(
        !failed.stdout.contains("]true"),
        "nothing to publish: {}",
        failed.stdout
    );
}

/// The major version of the action a GitHub step uses (`actions/checkout@v6`: 6).
#[track_caller]
fn major(step: &yaml_serde::Value) -> u32 {
    let uses = text(&step["uses"]);
    uses.split_once("@v")
        .and_then(|(_, v)| v.split('.').next()?.parse().ok())
        .unwrap_or_else(|| panic!("{uses}: no major version"))
}

fn utf8_path(path: &std::path::Path) -> &str {
    path.to_str().expect("a UTF-8 path")
}

#[test]
fn each_workflow_runs_the_script_and_publishes_what_it_wrote() {
    let night = Night::start();
    let scratch = tempfile::tempdir().expect("a temporary directory");
    let reports = night.store.join("driftgate-reports");
    for publishing in &PUBLISHING {
        let file = publishing.file;
        let doc = workflow(file);
        let steps = steps(&doc);
        let (step, named) = check_step(steps);
        // The runner's checkout is the store, with the script where the workflow names it.
        let copy = night.store.join(&named);
        std::fs::create_dir_all(copy.parent().expect("a folder")).expect("a folder");
        std::fs::copy(root().join(NIGHTLY_CHECK), &copy).expect("copy the script");
        let output_file = scratch.path().join("github-output");
        std::fs::write(&output_file, "").expect("write");
        let mut env = plain_env(&doc, step);
        env.push(("GITHUB_OUTPUT".into(), output_file.display().to_string()));
        env.push(("SYSTEM_JOBATTEMPT".into(), "1".into()));
        let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let ran = bash_in(&night.store, script(step).expect("a script"), &env);
        assert_eq!(
            ran.code, 0,
            "{file}: the step records the code, the last step fails"
        );
        let recorded = std::fs::read_to_string(&output_file).expect("read");
        let code = (publishing.exit_code)(&ran.stdout, &recorded);
        assert_eq!(
            code,
            Some(3),
            "{file}: BMC 4 is down: {}\n{}",
            ran.stdout,
            ran.stderr
        );
        assert_eq!(non_empty(&reports.join("exit-code")).trim(), "3");

        // Every path a publishing step names was written by the script and is not empty …
        let mut published: Vec<String> = Vec::new();
        for (task, name) in publishing.publishers {
            for publisher in step_using(steps, task) {
                assert!(
                    condition(publisher).is_some_and(on_every_night),
                    "{file}: {task} publishes on a BLOCK or INCOMPLETE night too"
                );
                for path in published_paths(publisher, name) {
                    let at = night.store.join(path);
                    if at.is_dir() {
                        assert!(!names(&at).is_empty(), "{file}: {path} is empty");
                    } else {
                        non_empty(&at);
                    }
                    published.push(path.trim_end_matches('/').to_owned());
                }
            }
        }
        // … and each report the script writes is published, itself or in its folder.
        for report in [
            "junit.xml",
            "sarif/driftgate.sarif",
            "fleet.html",
            "run/run.json",
        ] {
            let report = format!("driftgate-reports/{report}");
            assert!(
                published
                    .iter()
                    .any(|p| report == *p || report.starts_with(&format!("{p}/"))),
                "{file}: {report} is not published: {published:?}"
            );
        }

        if file == AZURE {
            azure_publishes_sarif_once_and_only_what_was_written(steps, &night.store, &ran);
        }

        // The night's state (each host's last success, on the branch driftgate/state) is
        // pushed whatever the verdict: a clean checkout tomorrow reads it from origin.
        let push: Vec<&yaml_serde::Value> = steps
            .iter()
            .filter(|s| script(s).is_some_and(|t| t.contains("push origin driftgate/state")))
            .collect();
        assert_eq!(push.len(), 1, "{file}: one step pushes the nightly state");
        assert!(condition(push[0]).is_some_and(on_every_night), "{file}");
        let origin = scratch
            .path()
            .join(format!("origin-{}.git", file.replace('/', "-")));
        common::git(
            scratch.path(),
            &["init", "--quiet", "--bare", utf8_path(&origin)],
        );
        common::git(
            &night.store,
            &["remote", "add", "origin", utf8_path(&origin)],
        );
        let env = [
            ("GITHUB_TOKEN", "not-a-real-token"),
            ("GITHUB_SERVER_URL", "https://github.example.com"),
        ];
        let pushed = bash_in(&night.store, script(push[0]).expect("a script"), &env);
        assert_eq!(pushed.code, 0, "{file}: {}{}", pushed.stdout, pushed.stderr);
        assert!(!pushed.stderr.contains("not-a-real-token"), "{file}");
        assert_eq!(
            common::git(&origin, &["rev-parse", "driftgate/state"]),
            common::git(&night.store, &["rev-parse", "driftgate/state"]),
            "{file}: origin has the night's state"
        );
        common::git(&night.store, &["remote", "remove", "origin"]);

        // The last step fails the job with driftgate's code (2 when there is none).
        let last = steps.last().expect("steps");
        assert!(
            condition(last).is_some_and(|c| c.starts_with("always()")),
            "{file}"
        );
        let fail = script(last).expect("a script");
        for (given, expected) in [
            ("3", 3),
            ("1", 1),
            ("0", 0),
            ("", 2),
            ("$(driftgateExit)", 2),
        ] {
            let ran = bash_in(&night.store, fail, &[("CODE", given)]);
            assert_eq!(ran.code, expected, "{file}: CODE={given:?}: {}", ran.stdout);
        }
        std::fs::remove_dir_all(&reports).expect("clean the checkout");
    }
}

#[test]
fn the_workflows_publish_to_the_right_places_and_keep_credentials_in_secrets() {
    let github = workflow(GITHUB);
    let on = &github["on"];
    assert!(
        on["schedule"][0]["cron"].as_str().is_some(),
        "a schedule: {on:?}"
    );
    assert!(
        on.get("workflow_dispatch").is_some(),
        "a manual trigger: {on:?}"
    );
    let job = github["jobs"]
        .as_mapping()
        .expect("jobs")
        .values()
        .next()
        .expect("a job");
    let runs_on: Vec<&str> = job["runs-on"]
        .as_sequence()
        .expect("labels")
        .iter()
        .map(text)
        .collect();
    assert!(runs_on.contains(&"self-hosted"), "{runs_on:?}");
    let steps_gh = steps(&github);
    let junit = step_using(steps_gh, "mikepenz/action-junit-report")[0];
    assert_eq!(junit["with"]["fail_on_failure"].as_bool(), Some(false));
    let sarif = step_using(steps_gh, "github/codeql-action/upload-sarif")[0];
    assert!(!text(&sarif["with"]["category"]).is_empty());
    assert!(text(&sarif["with"]["sarif_file"]).ends_with(".sarif"));
    let permissions = &github["permissions"];
    assert_eq!(text(&permissions["security-events"]), "write");
    assert_eq!(text(&permissions["checks"]), "write");
    // Written by one step only: the push of the nightly state (branch driftgate/state).
    assert_eq!(text(&permissions["contents"]), "write");
    // upload-sarif reads the run's status: in a private repository (a baseline store almost
    // always is) it fails without this.
    assert_eq!(text(&permissions["actions"]), "read");
    let checkout = step_using(steps_gh, "actions/checkout")[0];
    assert_eq!(
        checkout["with"]["fetch-depth"].as_u64(),
        Some(0),
        "the store's history"
    );
    // The token is not left in .git/config of a runner that stays: the push step hands it to
    // git in its environment.
    assert_eq!(
        checkout["with"]["persist-credentials"].as_bool(),
        Some(false)
    );
    // upload-sarif@v3 is deprecated; the others at their Node 24 majors.
    for (action, at_least) in [
        ("github/codeql-action/upload-sarif", 4),
        ("actions/checkout", 6),
        ("actions/upload-artifact", 7),
    ] {
        for step in step_using(steps_gh, action) {
            assert!(major(step) >= at_least, "{action}@v{}", major(step));
        }
    }

    let azure = workflow(AZURE);
    assert_eq!(text(&azure["trigger"]), "none");
    assert!(azure["schedules"][0]["cron"].as_str().is_some());
    assert_eq!(azure["schedules"][0]["always"].as_bool(), Some(true));
    assert!(
        azure["pool"]["name"].as_str().is_some(),
        "a self-hosted pool"
    );
    assert!(azure["pool"].get("vmImage").is_none(), "not a hosted agent");
    let steps_az = steps(&azure);
    let tests = step_using(steps_az, "PublishTestResults")[0];
    assert_eq!(input(tests, "testResultsFormat"), Some("JUnit"));
    // The SARIF SAST Scans Tab reads the .sarif files of the CodeAnalysisLogs artifact.
    let code_analysis: Vec<_> = step_using(steps_az, "PublishPipelineArtifact")
        .into_iter()
        .filter(|s| input(s, "artifact") == Some("CodeAnalysisLogs"))
        .collect();
    assert_eq!(code_analysis.len(), 1, "one CodeAnalysisLogs artifact");
    assert_eq!(
        input(code_analysis[0], "targetPath"),
        Some("driftgate-reports/sarif"),
        "the folder that holds only the SARIF file"
    );
    for upload in step_using(steps_gh, "actions/upload-artifact") {
        assert!(
            text(&upload["with"]["name"]).contains("${{ github.run_attempt }}"),
            "{GITHUB}: a re-run uploads under its own name"
        );
    }
    // An artifact name is taken once per run: a re-run of the job publishes under its
    // attempt's names; only CodeAnalysisLogs, the name the extension reads, is not suffixed.
    for artifact in step_using(steps_az, "PublishPipelineArtifact")
        .into_iter()
        .filter_map(|s| input(s, "artifact"))
        .filter(|a| *a != "CodeAnalysisLogs")
    {
        assert!(
            artifact.ends_with("-$(System.JobAttempt)"),
            "{AZURE}: {artifact}"
        );
    }
    let (check_az, _) = check_step(steps_az);
    assert!(
        script(check_az)
            .expect("a script")
            .contains("\"${SYSTEM_JOBATTEMPT:-}\" = 1"),
        "{AZURE}: CodeAnalysisLogs is published by the first attempt only"
    );
    assert_eq!(steps_az[0]["checkout"].as_str(), Some("self"), "the store");
    assert_eq!(steps_az[0]["fetchDepth"].as_u64(), Some(0), "its history");

    // The BMC account: from the secret store into the inventory's variables of the check step
    // only, never a literal; no script prints it or writes it down.
    for (file, doc, from_secret) in [(GITHUB, &github, "${{ secrets."), (AZURE, &azure, "$(")] {
        let steps = steps(doc);
        let (check, _) = check_step(steps);
        for name in ["DRIFTGATE_BMC_USERNAME", "DRIFTGATE_BMC_PASSWORD"] {
            let value = text(&check["env"][name]);
            assert!(value.starts_with(from_secret), "{file}: {name}: {value}");
            for step in steps.iter().filter(|s| !std::ptr::eq(*s, check)) {
                assert!(
                    step["env"].get(name).is_none(),
                    "{file}: {name} in another step"
                );
            }
            for script in steps.iter().filter_map(script) {
                assert!(!script.contains(name), "{file}: a script names {name}");
            }
        }
        let raw = std::fs::read_to_string(root().join(file)).expect("read");
        assert!(!raw.contains(common::simulator::PASSWORD));
    }
    let script = std::fs::read_to_string(root().join(NIGHTLY_CHECK)).expect("read");
    assert!(!script.contains("$DRIFTGATE_BMC") && !script.contains("set -x"));
    assert!(!script.contains("${DRIFTGATE_BMC"));
}
