//! A real iDRAC9 whose RoCE-capable Broadcom ports run without RDMA and without DCBX
//! (`tests/fixtures/redfish/libredfish-dell-rdma-off`, a trimmed copy of the public
//! `libredfish-dell` capture): the operator's first capture warns and is promoted, it does not
//! block as if RoCE ran there.

use crate::common;

use common::{driftgate, root, stdout_of};

const MOCKUP: &str = "tests/fixtures/redfish/libredfish-dell-rdma-off";

#[test]
fn a_dell_port_that_can_do_roce_but_does_not_is_a_warning_and_promotable() {
    let dir = tempfile::tempdir().unwrap();
    let snapshot = dir.path().join("dell.json");
    driftgate()
        .args(["capture", "--host", "r650-dell", "--source"])
        .arg(format!("redfish=mockup:{}", root().join(MOCKUP).display()))
        .arg("--out")
        .arg(&snapshot)
        .assert()
        .code(0);

    let (code, out) = stdout_of(driftgate().args(["check", "--snapshot"]).arg(&snapshot));
    assert_eq!(code, 0, "a warning, not a block:\n{out}");
    assert!(out.starts_with("WARN r650-dell: 2 warnings"), "{out}");
    assert!(!out.contains("[bmc-dcbx-disabled-with-rdma]"), "{out}");
    for (port, function) in [
        (
            "\"NIC.Integrated.1-1\" (e4:3d:1a:13:27:f0)",
            "NIC.Integrated.1-1-1 (e4:3d:1a:13:27:f0)",
        ),
        (
            "\"NIC.Integrated.1-2\" (e4:3d:1a:13:27:f1)",
            "NIC.Integrated.1-2-1 (e4:3d:1a:13:27:f1)",
        ),
    ] {
        let message = format!(
            "port {port}, function {function}: DCBX mode in the NIC firmware is disabled (set on the function: dcbx_mode \"disabled\") and RDMA is switched off (on the function: rdma_enabled false, rdma_protocol \"roce\"): one setting away from RoCE without flow control"
        );
        assert!(out.contains(&message), "{message}\n{out}");
    }
    assert_eq!(
        out.matches("[bmc-dcbx-disabled-rdma-off]").count(),
        4,
        "{out}"
    );

    let store = dir.path().join("store");
    driftgate()
        .args(["baseline", "init"])
        .arg(&store)
        .assert()
        .code(0);
    let (code, out) = stdout_of(
        driftgate()
            .arg("--repo")
            .arg(&store)
            .args(["baseline", "promote", "--fleet", "lab"])
            .arg(&snapshot),
    );
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("r650-dell → baselines/lab/r650-dell.json: new baseline"),
        "{out}"
    );
    assert!(!out.contains("REFUSED"), "{out}");
}
