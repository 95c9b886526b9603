//! BMC accounts of an inventory's hosts: a host that references none uses the account
//! `capture` uses (`DRIFTGATE_BMC_USERNAME`/`DRIFTGATE_BMC_PASSWORD`, or the credential
//! options), each variable may be a systemd credential of its name instead, and a referenced account that cannot be read is a configuration error (exit 2)
//! naming the host, the variable and the inventory's line, found before any request reaches
//! a BMC.

use std::path::Path;

use crate::common::simulator::{PASSWORD, Simulator, USER, bmc};
use crate::common::{driftgate, stdout_of};

/// Variables no test environment sets.
const UNSET_USER: &str = "DRIFTGATE_TEST_NO_SUCH_BMC_USER";
const UNSET_PASSWORD: &str = "DRIFTGATE_TEST_NO_SUCH_BMC_PASSWORD";

/// A baseline store in `dir` and an inventory of `hosts` (name, its entry's extra lines) all
/// read from `url`; returns the inventory's path.
fn lab(dir: &Path, url: &str, hosts: &[(&str, &str)]) -> std::path::PathBuf {
    let store = dir.join("store");
    let (code, _) = stdout_of(driftgate().args(["baseline", "init"]).arg(&store));
    assert_eq!(code, 0);
    let mut text = String::from("[defaults]\nfleet = \"lab\"\n");
    for (name, extra) in hosts {
        text.push_str(&format!(
            "\n[[host]]\nname = \"{name}\"\nsources = [\"redfish={url}\"]\n{extra}"
        ));
    }
    let inventory = dir.join("inventory.toml");
    std::fs::write(&inventory, text).unwrap();
    inventory
}

/// The 1-based line of `[[host]]` whose `name` is `host` in `inventory`.
fn line_of(inventory: &Path, host: &str) -> usize {
    let text = std::fs::read_to_string(inventory).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    // `name` is the line after `[[host]]`: its 0-based index is the header's 1-based line.
    lines
        .iter()
        .position(|l| *l == format!("name = \"{host}\""))
        .unwrap()
}

#[test]
fn an_unset_account_variable_is_a_configuration_error_before_any_request() {
    let dir = tempfile::tempdir().unwrap();
    let server = Simulator::start(&bmc("baseline"), &["--auth", "session"]);
    let missing = format!(
        "credentials = {{ username_env = \"{UNSET_USER}\", password_env = \"{UNSET_PASSWORD}\" }}\n"
    );
    let inventory = lab(
        dir.path(),
        &server.url,
        &[("lab-ok", ""), ("lab-missing", &missing)],
    );
    let line = line_of(&inventory, "lab-missing");
    let before = server.requests();
    let store = dir.path().join("store");
    for args in [
        vec!["check", "--all", "--bootstrap"],
        vec!["gate", "pre", "--run", "CHG-1", "lab-ok", "lab-missing"],
    ] {
        let out = driftgate()
            .args(&args)
            .arg("--inventory")
            .arg(&inventory)
            .arg("--repo")
            .arg(&store)
            .env("DRIFTGATE_BMC_USERNAME", USER)
            .env("DRIFTGATE_BMC_PASSWORD", PASSWORD)
            .env_remove(UNSET_USER)
            .env_remove(UNSET_PASSWORD)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        let expected = format!(
            "{}:{line}: host lab-missing: environment variable {UNSET_USER} is not set",
            inventory.display()
        );
        assert!(stderr.contains(&expected), "{args:?}: {expected}\n{stderr}");
        assert!(!stderr.contains("lab-ok"), "{args:?}: {stderr}");
    }
    // Nothing was captured: not one request reached the BMC.
    assert_eq!(server.requests(), before);
}

#[test]
fn a_host_without_an_account_of_its_own_uses_the_default_one() {
    let dir = tempfile::tempdir().unwrap();
    let server = Simulator::start(&bmc("baseline"), &["--auth", "session"]);
    let inventory = lab(dir.path(), &server.url, &[("lab-default", "")]);
    let out_dir = dir.path().join("out");
    let (code, json) = stdout_of(
        driftgate()
            .args([
                "check",
                "--all",
                "--bootstrap",
                "--format",
                "json",
                "--inventory",
            ])
            .arg(&inventory)
            .arg("--repo")
            .arg(dir.path().join("store"))
            .arg("--out-dir")
            .arg(&out_dir)
            .env("DRIFTGATE_BMC_USERNAME", USER)
            .env("DRIFTGATE_BMC_PASSWORD", PASSWORD),
    );
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(report["counts"]["incomplete"], 0, "{json}");
    assert_ne!(code, 3, "{json}");
    assert_eq!(report["hosts"][0]["failure"], serde_json::Value::Null);
}

/// A login the BMC refuses says so, and names where the refused account came from: the
/// host's own variables, or the default account's.
#[test]
fn a_refused_login_names_where_the_account_came_from() {
    let dir = tempfile::tempdir().unwrap();
    let server = Simulator::start(&bmc("baseline"), &["--auth", "session"]);
    let own =
        "credentials = { username_env = \"LAB_BMC_USER\", password_env = \"LAB_BMC_PASS\" }\n";
    let inventory = lab(
        dir.path(),
        &server.url,
        &[("lab-own", own), ("lab-default", "")],
    );
    let (code, json) = stdout_of(
        driftgate()
            .args(["check", "--all", "--bootstrap", "--format", "json"])
            .arg("--inventory")
            .arg(&inventory)
            .arg("--repo")
            .arg(dir.path().join("store"))
            .arg("--out-dir")
            .arg(dir.path().join("out"))
            .env("LAB_BMC_USER", USER)
            .env("LAB_BMC_PASS", "not-the-password")
            .env("DRIFTGATE_BMC_USERNAME", USER)
            .env("DRIFTGATE_BMC_PASSWORD", "not-it-either"),
    );
    assert_eq!(code, 3, "{json}");
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    let failure = |host: &str| {
        report["hosts"]
            .as_array()
            .unwrap()
            .iter()
            .find(|h| h["host"] == host)
            .and_then(|h| h["failure"].as_str())
            .unwrap_or_else(|| panic!("{host} failed: {json}"))
            .to_owned()
    };
    let own = failure("lab-own");
    assert!(own.starts_with("login refused (POST "), "{own}");
    assert!(
        own.contains(
            "check the BMC account of the environment variables LAB_BMC_USER and LAB_BMC_PASS"
        ),
        "{own}"
    );
    let default = failure("lab-default");
    assert!(
        default
            .contains("check the BMC account of DRIFTGATE_BMC_USERNAME and DRIFTGATE_BMC_PASSWORD"),
        "{default}"
    );
    assert!(!json.contains("not-the-password") && !json.contains("not-it-either"));
}

/// The variables an account is read from may be systemd credentials instead
/// (`LoadCredential=NAME:FILE` gives a service `$CREDENTIALS_DIRECTORY/NAME`): the host's own
/// and the default account's, each where the environment lacks it, and a refused login names
/// the credential.
#[test]
fn account_variables_may_be_systemd_credentials_of_their_names() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let server = Simulator::start(&bmc("baseline"), &["--auth", "session"]);
    let own =
        "credentials = { username_env = \"LAB_BMC_USER\", password_env = \"LAB_BMC_PASS\" }\n";
    let inventory = lab(
        dir.path(),
        &server.url,
        &[("lab-own", own), ("lab-default", "")],
    );
    let credentials = dir.path().join("credentials");
    std::fs::create_dir(&credentials).unwrap();
    // As an editor writes them: with a final newline, which is no part of the value.
    for (name, value) in [
        ("LAB_BMC_USER", USER),
        ("LAB_BMC_PASS", PASSWORD),
        ("DRIFTGATE_BMC_PASSWORD", "not-the-password"),
    ] {
        let file = credentials.join(name);
        std::fs::write(&file, format!("{value}\n")).unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o400)).unwrap();
    }
    let (code, json) = stdout_of(
        driftgate()
            .args(["check", "--all", "--bootstrap", "--format", "json"])
            .arg("--inventory")
            .arg(&inventory)
            .arg("--repo")
            .arg(dir.path().join("store"))
            .arg("--out-dir")
            .arg(dir.path().join("out"))
            .env_remove("DRIFTGATE_BMC_PASSWORD")
            .env("DRIFTGATE_BMC_USERNAME", USER)
            .env("CREDENTIALS_DIRECTORY", &credentials),
    );
    assert_eq!(code, 3, "{json}");
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    let host = |name: &str| {
        report["hosts"]
            .as_array()
            .unwrap()
            .iter()
            .find(|h| h["host"] == name)
            .unwrap_or_else(|| panic!("{name}: {json}"))
            .clone()
    };
    assert_eq!(
        host("lab-own")["failure"],
        serde_json::Value::Null,
        "{json}"
    );
    let refused = host("lab-default")["failure"].as_str().unwrap().to_owned();
    assert!(
        refused.contains(
            "check the BMC account of DRIFTGATE_BMC_USERNAME and the credential DRIFTGATE_BMC_PASSWORD ($CREDENTIALS_DIRECTORY)"
        ),
        "{refused}"
    );
    assert!(!json.contains("not-the-password"));
}
