//! The night's one-screen summary fills the terminal it is shown in (`COLUMNS`, else the
//! terminal's width) and 100 columns when piped, so that a reason is not cut short where
//! there is room for it; a host's line says what went wrong first, where after.

use crate::common::{driftgate, stdout_of};

/// The summary of `check --all` over one host whose BMC refuses connections, with `COLUMNS`
/// set to `columns` (none: unset, as when piped); returns the host's "failed to capture" line.
fn failed_line(columns: Option<&str>) -> String {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let (code, _) = stdout_of(driftgate().args(["baseline", "init"]).arg(&store));
    assert_eq!(code, 0);
    let inventory = dir.path().join("inventory.toml");
    // Port 1 of the loopback: nothing listens, the connection is refused at once.
    std::fs::write(
        &inventory,
        "[defaults]\nfleet = \"lab\"\n\n[[host]]\nname = \"lab-down\"\nsources = [\"redfish=http://127.0.0.1:1\"]\n",
    )
    .unwrap();
    let mut command = driftgate();
    command
        .args(["check", "--all", "--bootstrap", "--inventory"])
        .arg(&inventory)
        .arg("--repo")
        .arg(&store)
        .env_remove("COLUMNS");
    if let Some(columns) = columns {
        command.env("COLUMNS", columns);
    }
    let (code, text) = stdout_of(&mut command);
    assert_eq!(code, 3, "{text}");
    text.lines()
        .find(|l| l.starts_with("  lab-down: "))
        .unwrap_or_else(|| panic!("no failed host line:\n{text}"))
        .to_owned()
}

#[test]
fn a_failure_reason_comes_first_and_fills_the_terminal_and_100_columns_when_piped() {
    let whole =
        "  lab-down: connection refused: GET /redfish/v1 (redfish http://127.0.0.1:1 failed)";
    // Piped: 100 columns, room for all of it; a wide terminal too.
    assert_eq!(failed_line(None), whole);
    assert_eq!(failed_line(Some("200")), whole);
    // A narrow terminal cuts the line, never the reason at its head.
    let narrow = failed_line(Some("60"));
    assert_eq!(narrow.chars().count(), 60, "{narrow}");
    assert!(narrow.ends_with('…'), "{narrow}");
    assert!(
        narrow.starts_with("  lab-down: connection refused: GET /redfish/v1"),
        "{narrow}"
    );
}
