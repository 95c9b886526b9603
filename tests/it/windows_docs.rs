//! Microsoft's documented `Get-NetAdapterQos` examples (`tests/fixtures/windows/microsoft-docs`,
//! verbatim) judged by what the adapter does: the healthy ones pass, an adapter that does not
//! apply the PFC its host configures blocks, and `DcbxSupport None` alone is never
//! `pfc-not-operational`.

use crate::common;

use common::{driftgate, root, stdout_of};

const DOCS: &str = "tests/fixtures/windows/microsoft-docs";

fn fixture(name: &str) -> String {
    std::fs::read_to_string(root().join(DOCS).join(name)).unwrap()
}

/// `driftgate import windows-qos` of `text`, then `driftgate check` of the snapshot: the exit
/// code and what check printed.
fn judge(text: &str) -> (i32, String) {
    let dir = tempfile::tempdir().unwrap();
    let paste = dir.path().join("paste.txt");
    let snapshot = dir.path().join("docs.json");
    std::fs::write(&paste, text).unwrap();
    driftgate()
        .args(["import", "windows-qos"])
        .arg(&paste)
        .args(["--host", "docs-host", "--out"])
        .arg(&snapshot)
        .assert()
        .code(0);
    stdout_of(driftgate().args(["check", "--snapshot"]).arg(&snapshot))
}

/// A `Get-NetQosFlowControl` paste (global policy set) with PFC on `priority` only.
fn host_pfc_on(priority: u8) -> String {
    let mut table = String::from(
        "PS C:\\> Get-NetQosFlowControl\n\nPriority   Enabled    PolicySet        IfIndex IfAlias\n--------   -------    ---------        ------- -------\n",
    );
    for p in 0..8 {
        let on = if p == priority { "True " } else { "False" };
        table.push_str(&format!("{p}          {on}      Global\n"));
    }
    table
}

#[test]
fn the_documented_healthy_adapter_with_dcbx_none_passes() {
    let (code, out) = judge(&fixture("dcb-manage-enable-netadapterqos.txt"));
    assert_eq!(code, 0, "{out}");
    assert!(out.starts_with("PASS docs-host: no findings"), "{out}");
}

#[test]
fn example_1_runs_pfc_on_4_so_it_is_no_pfc_not_operational() {
    let (code, out) = judge(&fixture("get-netadapterqos-example-1.txt"));
    assert!(!out.contains("[pfc-not-operational]"), "{out}");
    // Hardware IEEE, current None: the NIC can do IEEE DCBX and runs none.
    assert_eq!(code, 1, "{out}");
    assert!(
        out.starts_with("BLOCK docs-host: 1 blocking [dcbx-capability-lost]"),
        "{out}"
    );
    // With the host's PFC on the priority it runs, still no pfc-not-operational.
    let text = format!(
        "{}\n{}",
        fixture("get-netadapterqos-example-1.txt"),
        host_pfc_on(4)
    );
    let (_, out) = judge(&text);
    assert!(!out.contains("[pfc-not-operational]"), "{out}");
}

#[test]
fn documented_adapters_with_dcb_disabled_pass() {
    for name in [
        "get-netadapterqos-example-2.txt",
        "dcb-manage-disable-netadapterqos.txt",
    ] {
        let (code, out) = judge(&fixture(name));
        assert_eq!(code, 0, "{name}: {out}");
        assert!(!out.contains("[pfc-not-operational]"), "{name}: {out}");
    }
}

#[test]
fn a_documented_adapter_that_does_not_apply_the_hosts_pfc_blocks() {
    // The same page enables PFC on priority 4 for the host; its adapter shows All Priorities
    // Disabled.
    let text = format!(
        "{}{}",
        fixture("dcb-manage-enable-netadapterqos.txt"),
        fixture("dcb-manage-enable-netqosflowcontrol.txt")
    );
    let (code, out) = judge(&text);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.starts_with("BLOCK docs-host: 1 blocking [pfc-not-operational]"),
        "{out}"
    );
    assert!(
        out.contains("adapter \"M1\" (name-m1) has QoS enabled but operational flow control is off on priority 4: it is not enforcing the OS PFC configuration (PFC on priority 4)"),
        "{out}"
    );
    // Example 1's adapter runs PFC on 4; a host that wants it on 3 is not served.
    let text = format!(
        "{}\n{}",
        fixture("get-netadapterqos-example-1.txt"),
        host_pfc_on(3)
    );
    let (code, out) = judge(&text);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("[pfc-not-operational]"), "{out}");
    assert!(
        out.contains("operational flow control is off on priority 3"),
        "{out}"
    );
}

#[test]
fn example_1_after_a_firmware_reset_blocks_as_seed_1_does() {
    // Seed 1's signature on Microsoft's adapter: the current NumTCs drop to 0/0/0.
    let example = fixture("get-netadapterqos-example-1.txt");
    let reset = example.replacen(
        "NumTCs(Max/ETS/PFC) : 8/8/8        8/8/8",
        "NumTCs(Max/ETS/PFC) : 8/8/8        0/0/0",
        1,
    );
    assert_ne!(reset, example);
    let (code, out) = judge(&format!("{reset}\n{}", host_pfc_on(4)));
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("has QoS enabled but its current DCBX support is None, and its current NumTCs(Max/ETS/PFC) is 0/0/0: it is not enforcing the OS PFC configuration (PFC on priority 4)"),
        "{out}"
    );
}
