use std::path::{Path, PathBuf};

use super::*;
use crate::SourceCapture;
use crate::transport::{Location, ProcessOptions, for_location};

fn recorded(state: &str) -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("examples/esxi-mscs-psp/recorded")
        .join(state)
}

fn capture_dir(dir: &Path) -> SourceCapture {
    let transport = for_location(
        &Location::Dir(dir.to_path_buf()),
        &ProcessOptions::default(),
    );
    capture(transport.as_ref())
}

fn fact<'a>(capture: &'a SourceCapture, path: &str) -> Option<&'a FactValue> {
    capture.facts.get(path)
}

/// A copy of a recorded state that a test may change.
fn copy_of(state: &str) -> tempfile::TempDir {
    crate::test_support::copy_recording(&recorded(state))
}

const RDM: &str = "storage/nmp/naa.60050768028081713c0000000000007d";

#[test]
fn the_seed_2_states_normalize_to_facts() {
    let healthy = capture_dir(&recorded("healthy"));
    assert_eq!(
        (healthy.status, healthy.error_text().as_deref()),
        (SourceStatus::Complete, None)
    );
    let expect = [
        ("host/esxi/version", FactValue::from("5.0.0")),
        ("host/esxi/build", "469512".into()),
        ("host/esxi/update", "0".into()),
        (&format!("{RDM}/psp"), "VMW_PSP_MRU".into()),
        (&format!("{RDM}/satp"), "VMW_SATP_SVC".into()),
        (&format!("{RDM}/perennially_reserved"), true.into()),
        (&format!("{RDM}/is_local"), false.into()),
        (&format!("{RDM}/working_paths"), 1.into()),
        (&format!("{RDM}/vendor"), "IBM".into()),
        (&format!("{RDM}/model"), "2145".into()),
        (
            "storage/satp/VMW_SATP_SVC/default_psp",
            "VMW_PSP_FIXED".into(),
        ),
        (
            "storage/nmp/mpx.vmhba1:C0:T0:L0/psp_config",
            "preferred=vmhba1:C0:T0:L0".into(),
        ),
    ];
    for (path, value) in expect {
        assert_eq!(fact(&healthy, path), Some(&value), "{path}");
    }
    // MRU's device config is runtime state only: no fact.
    assert_eq!(fact(&healthy, &format!("{RDM}/psp_config")), None);
    assert_eq!(fact(&healthy, &format!("{RDM}/patch")), None);

    let rr = capture_dir(&recorded("round-robin"));
    assert_eq!(fact(&rr, &format!("{RDM}/psp")), Some(&"VMW_PSP_RR".into()));
    // Round Robin's counters churn; only the configuration stays.
    assert_eq!(
        fact(&rr, &format!("{RDM}/psp_config")),
        Some(&"policy=rr,iops=1000,bytes=10485760,useANO=0".into())
    );
    assert_eq!(
        fact(&rr, "storage/satp_rule/VMW_SATP_SVC/IBM/2145/default_psp"),
        Some(&"VMW_PSP_RR".into())
    );
}

#[test]
fn capturing_twice_gives_identical_facts() {
    assert_eq!(
        capture_dir(&recorded("round-robin")),
        capture_dir(&recorded("round-robin"))
    );
}

#[test]
fn xml_recordings_are_preferred_to_text() {
    let dir = copy_of("healthy");
    std::fs::copy(
        Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
            .join("tests/fixtures/esxi/esxi70-version.xml"),
        dir.path().join("esxcli_system_version_get.xml"),
    )
    .unwrap();
    let captured = capture_dir(dir.path());
    assert_eq!(fact(&captured, "host/esxi/version"), Some(&"7.0.1".into()));
    assert_eq!(fact(&captured, "host/esxi/build"), Some(&"16324942".into()));
}

#[test]
fn esx_4_is_refused_as_an_unsupported_version() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("esxcli_system_version_get.txt"),
        "Error: Unknown command or namespace system version get\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("esxcli_system_version_get.txt.exit"), "1\n").unwrap();
    std::fs::copy(
        Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
            .join("tests/fixtures/esxi/esx41-vmware-v.txt"),
        dir.path().join("vmware_-v.txt"),
    )
    .unwrap();
    let captured = capture_dir(dir.path());
    assert_eq!(captured.status, SourceStatus::Failed);
    let error = captured.error_text().unwrap();
    assert!(
        error.contains("VMware ESX 4.1.0 is an unsupported version"),
        "{error}"
    );
    assert_eq!(fact(&captured, "host/esxi/version"), Some(&"4.1.0".into()));
}

#[test]
fn a_missing_or_failing_command_makes_the_source_partial_and_says_which() {
    let dir = copy_of("healthy");
    std::fs::remove_file(dir.path().join("esxcli_storage_core_device_list.txt")).unwrap();
    std::fs::write(
        dir.path()
            .join("esxcli_storage_nmp_satp_rule_list.txt.exit"),
        "1\n",
    )
    .unwrap();
    std::fs::write(
        dir.path()
            .join("esxcli_storage_nmp_satp_rule_list.txt.stderr"),
        "Error: Connect to localhost failed\n",
    )
    .unwrap();
    let captured = capture_dir(dir.path());
    assert_eq!(captured.status, SourceStatus::Partial);
    let error = captured.error_text().unwrap();
    assert!(
        error.contains("`esxcli storage core device list` was not recorded"),
        "{error}"
    );
    assert!(error.contains("`esxcli storage nmp satp rule list` exited with status 1: Error: Connect to localhost failed"), "{error}");
    // What was read is still there; what was not is absent, never guessed.
    assert_eq!(
        fact(&captured, &format!("{RDM}/psp")),
        Some(&"VMW_PSP_MRU".into())
    );
    assert_eq!(
        fact(&captured, &format!("{RDM}/perennially_reserved")),
        None
    );
}

#[test]
fn unparseable_output_names_the_command_and_line() {
    let dir = copy_of("healthy");
    std::fs::write(
        dir.path().join("esxcli_storage_nmp_device_list.txt"),
        "naa.1\n   Path Selection Policy: VMW_PSP_RR\n<html>oops</html>\n",
    )
    .unwrap();
    let captured = capture_dir(dir.path());
    assert_eq!(captured.status, SourceStatus::Partial);
    let error = captured.error_text().unwrap();
    assert!(
        error.contains(
            "`esxcli storage nmp device list` output (esxcli_storage_nmp_device_list.txt): line 3:"
        ),
        "{error}"
    );
}

#[test]
fn nothing_readable_is_a_failed_source() {
    let dir = tempfile::tempdir().unwrap();
    let captured = capture_dir(dir.path());
    assert_eq!(captured.status, SourceStatus::Failed);
    assert!(captured.facts.is_empty());
}

#[test]
fn runtime_parts_of_psp_device_config_are_dropped() {
    assert_eq!(psp_config("{policy=rr,iops=1000,bytes=10485760,useANO=0; lastPathIndex=0: NumIOsPending=0,numBytesPending=0}").as_deref(), Some("policy=rr,iops=1000,bytes=10485760,useANO=0"));
    assert_eq!(
        psp_config("{preferred=vmhba2:C0:T1:L1;current=vmhba2:C0:T1:L1}").as_deref(),
        Some("preferred=vmhba2:C0:T1:L1")
    );
    assert_eq!(psp_config("Current Path=vmhba37:C1:T0:L10"), None);
    assert_eq!(psp_config(""), None);
}

/// A copy of the round-robin state with `file` holding `bytes`, captured.
fn capture_with(file: &str, bytes: &[u8]) -> SourceCapture {
    let dir = copy_of("round-robin");
    std::fs::write(dir.path().join(file), bytes).unwrap();
    capture_dir(dir.path())
}

fn round_robin(file: &str) -> String {
    std::fs::read_to_string(recorded("round-robin").join(file)).unwrap()
}

/// The text up to and including the last `needle`.
fn cut_after(text: &str, needle: &str) -> String {
    text[..text.rfind(needle).unwrap() + needle.len()].to_owned()
}

fn assert_partial(captured: &SourceCapture, needles: &[&str]) {
    assert_eq!(
        captured.status,
        SourceStatus::Partial,
        "{:?}",
        captured.error
    );
    let error = captured.error_text().unwrap();
    for needle in needles {
        assert!(error.contains(needle), "{needle:?} missing from {error}");
    }
}

#[test]
fn an_nmp_list_that_ends_mid_line_is_partial_not_a_psp() {
    let nmp = round_robin("esxcli_storage_nmp_device_list.txt");
    let captured = capture_with(
        "esxcli_storage_nmp_device_list.txt",
        cut_after(&nmp, "Path Selection Policy: VMW_P").as_bytes(),
    );
    assert_partial(
        &captured,
        &[
            "`esxcli storage nmp device list` output (esxcli_storage_nmp_device_list.txt): line 21: the output ends in the middle of a line (\"Path Selection Policy: VMW_P\" has no line ending)",
        ],
    );
    // Nothing of the cut answer is kept: no "VMW_P" fact.
    assert_eq!(fact(&captured, &format!("{RDM}/psp")), None);
}

#[test]
fn an_nmp_list_cut_at_a_line_end_is_partial_naming_the_missing_fields_or_device() {
    let nmp = round_robin("esxcli_storage_nmp_device_list.txt");
    let captured = capture_with(
        "esxcli_storage_nmp_device_list.txt",
        cut_after(&nmp, "Path Selection Policy: VMW_PSP_RR\n").as_bytes(),
    );
    assert_partial(
        &captured,
        &[
            "(esxcli_storage_nmp_device_list.txt): line 22: device naa.60050768028081713c0000000000007d (from line 17) ends without `Path Selection Policy Device Config`, `Working Paths`",
        ],
    );
    let before_last = &nmp[..nmp.rfind("naa.60050768028081713c0000000000007d\n").unwrap()];
    let captured = capture_with("esxcli_storage_nmp_device_list.txt", before_last.as_bytes());
    assert_partial(
        &captured,
        &[
            "`esxcli storage core device list` output (esxcli_storage_core_device_list.txt): line 54: device naa.60050768028081713c0000000000007d is claimed by NMP but `esxcli storage nmp device list` output (esxcli_storage_nmp_device_list.txt) does not list it",
        ],
    );
}

/// A diskless host (stateless Auto Deploy, no local disk, no LUN): both device lists are
/// empty, and that is its whole answer.
#[test]
fn a_diskless_host_with_both_device_lists_empty_is_complete() {
    let dir = copy_of("round-robin");
    for file in [
        "esxcli_storage_nmp_device_list.txt",
        "esxcli_storage_core_device_list.txt",
    ] {
        std::fs::write(dir.path().join(file), b"").unwrap();
    }
    let captured = capture_dir(dir.path());
    assert_eq!(
        captured.status,
        SourceStatus::Complete,
        "{:?}",
        captured.error
    );
}

#[test]
fn an_empty_core_device_list_is_partial_not_unknown_reservations() {
    let captured = capture_with("esxcli_storage_core_device_list.txt", b"");
    assert_partial(
        &captured,
        &[
            "`esxcli storage core device list` output (esxcli_storage_core_device_list.txt): no device",
        ],
    );
    // The NMP facts are kept; the reservation flag the core list would give is absent.
    assert_eq!(
        fact(&captured, &format!("{RDM}/psp")),
        Some(&"VMW_PSP_RR".into())
    );
    assert_eq!(
        fact(&captured, &format!("{RDM}/perennially_reserved")),
        None
    );
}

#[test]
fn a_core_list_cut_short_or_with_a_bad_flag_is_partial() {
    let core = round_robin("esxcli_storage_core_device_list.txt");
    let captured = capture_with(
        "esxcli_storage_core_device_list.txt",
        cut_after(&core, "Is Perennially Reserved: true\n").as_bytes(),
    );
    assert_partial(
        &captured,
        &[
            "(esxcli_storage_core_device_list.txt): line 68: device naa.60050768028081713c0000000000007d (from line 49) ends without `Thin Provisioning Status`, `Attached Filters`, `VAAI Status`, `Other UIDs`",
        ],
    );
    let captured = capture_with(
        "esxcli_storage_core_device_list.txt",
        core.replace("Reserved: true", "Reserved: yes").as_bytes(),
    );
    assert_partial(
        &captured,
        &[
            "(esxcli_storage_core_device_list.txt): line 67: Is Perennially Reserved \"yes\": expected `true` or `false`",
        ],
    );
}

#[test]
fn unknown_plugins_are_partial() {
    let nmp = round_robin("esxcli_storage_nmp_device_list.txt");
    let captured = capture_with(
        "esxcli_storage_nmp_device_list.txt",
        nmp.replacen("VMW_PSP_RR", "VMW_PSP_RX", 1).as_bytes(),
    );
    assert_partial(
        &captured,
        &[
            "(esxcli_storage_nmp_device_list.txt): line 13: Path Selection Policy \"VMW_PSP_RX\": expected one of VMW_PSP_FIXED, VMW_PSP_MRU, VMW_PSP_RR, VMW_PSP_FIXED_AP",
        ],
    );
    let captured = capture_with(
        "esxcli_storage_nmp_device_list.txt",
        nmp.replacen(
            "Storage Array Type: VMW_SATP_SVC",
            "Storage Array Type: VMW_SATP_SCV",
            1,
        )
        .as_bytes(),
    );
    assert_partial(
        &captured,
        &[
            "(esxcli_storage_nmp_device_list.txt): line 11: device naa.60050768028081713c0000000000007c: Storage Array Type \"VMW_SATP_SCV\" is not an SATP that `esxcli storage nmp satp list` output (esxcli_storage_nmp_satp_list.txt) lists",
        ],
    );
}

#[test]
fn truncated_xml_is_an_error_not_a_reason_to_read_the_text_form() {
    let xml = std::fs::read_to_string(
        Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
            .join("tests/fixtures/esxi/esxi70-nmp-device-list.xml"),
    )
    .unwrap();
    let cut = &xml[..xml.find("VMW_PSP_MRU").unwrap()];
    let captured = capture_with("esxcli_storage_nmp_device_list.xml", cut.as_bytes());
    assert_partial(
        &captured,
        &[
            "`esxcli --formatter=xml storage nmp device list` output (esxcli_storage_nmp_device_list.xml): line 23: the XML document ends before its elements are closed",
        ],
    );
    // A host without the XML formatter says so and the text form is read.
    let dir = copy_of("round-robin");
    std::fs::write(
        dir.path().join("esxcli_storage_nmp_device_list.xml"),
        "Error: Unable to find requested formatter: xml\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("esxcli_storage_nmp_device_list.xml.exit"),
        "1\n",
    )
    .unwrap();
    assert_eq!(capture_dir(dir.path()).status, SourceStatus::Complete);
}

#[test]
fn a_broken_version_answer_is_an_error_not_a_reason_to_ask_vmware_v() {
    let dir = copy_of("round-robin");
    std::fs::write(
        dir.path().join("esxcli_system_version_get.txt"),
        "   Product: VMware ESXi\n   Version: 5.0",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("vmware_-v.txt"),
        "VMware ESXi 5.5.0 build-3248547\n",
    )
    .unwrap();
    let captured = capture_dir(dir.path());
    assert_partial(
        &captured,
        &[
            "`esxcli system version get` output (esxcli_system_version_get.txt): line 2: the output ends in the middle of a line",
        ],
    );
    assert_eq!(fact(&captured, "host/esxi/version"), None);
}

#[test]
fn real_hosts_without_shared_devices_are_complete() {
    // ESXi 5.0 with only its local boot disk: the seed's recordings without the SAN LUNs.
    let dir = copy_of("healthy");
    for file in [
        "esxcli_storage_nmp_device_list.txt",
        "esxcli_storage_core_device_list.txt",
    ] {
        let text = std::fs::read_to_string(recorded("healthy").join(file)).unwrap();
        let local = &text[..text.find("\n\n").unwrap() + 1];
        std::fs::write(dir.path().join(file), local).unwrap();
    }
    let captured = capture_dir(dir.path());
    assert_eq!(
        (captured.status, captured.error_text().as_deref()),
        (SourceStatus::Complete, None)
    );
    assert_eq!(
        fact(&captured, "storage/nmp/mpx.vmhba1:C0:T0:L0/is_local"),
        Some(&true.into())
    );

    // ESXi 8 whose only disk HPP claims: NMP lists nothing, and that is the whole answer.
    let samples = driftgate_test_data::public_data("os-samples/esxi_core_device_list_text.txt");
    let sample =
        std::fs::read_to_string(&samples).unwrap_or_else(|e| panic!("{}: {e}", samples.display()));
    let hpp_only: String = sample
        .lines()
        .skip_while(|l| !l.starts_with("=== (B)"))
        .skip(2)
        .take_while(|l| !l.starts_with("==="))
        .map(|l| format!("{l}\n"))
        .collect();
    let dir = copy_of("healthy");
    std::fs::write(
        dir.path().join("esxcli_storage_core_device_list.txt"),
        hpp_only,
    )
    .unwrap();
    std::fs::write(dir.path().join("esxcli_storage_nmp_device_list.txt"), "").unwrap();
    std::fs::copy(
        Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
            .join("tests/fixtures/esxi/esxi80-version.txt"),
        dir.path().join("esxcli_system_version_get.txt"),
    )
    .unwrap();
    let captured = capture_dir(dir.path());
    assert_eq!(
        (captured.status, captured.error_text().as_deref()),
        (SourceStatus::Complete, None)
    );
    assert_eq!(fact(&captured, "host/esxi/version"), Some(&"8.0.1".into()));
    assert!(
        !captured
            .facts
            .keys()
            .any(|p| p.as_str().starts_with("storage/nmp/"))
    );
}

#[test]
fn bytes_that_are_not_utf_8_name_the_file_and_line() {
    let mut nmp = round_robin("esxcli_storage_nmp_device_list.txt").into_bytes();
    let at = nmp.windows(6).position(|w| w == b"VMW_PS").unwrap();
    nmp[at] = 0xff;
    let captured = capture_with("esxcli_storage_nmp_device_list.txt", &nmp);
    assert_partial(
        &captured,
        &[
            "`esxcli storage nmp device list` output (esxcli_storage_nmp_device_list.txt): line 5: bytes that are not UTF-8 (at byte 245)",
        ],
    );
}
