use super::*;

/// Every fixture, for the tests that run all parsers over all of them.
const FIXTURES: [&str; 23] = [
    "dcb-dcbx-host.json",
    "dcb-dcbx-lld-managed.json",
    "dcb-ets-pretty.json",
    "dcb-ets-prio-tc-only.json",
    "dcb-ets.json",
    "dcb-pfc-statistics.json",
    "dcb-pfc.json",
    "dcb-unsupported.stderr",
    "devlink-dev-info-empty.json",
    "devlink-dev-info.json",
    "ethtool-driver-bnxt.txt",
    "ethtool-driver-mlx5.txt",
    "ethtool-pause-statistics.json",
    "ethtool-pause-statistics.txt",
    "ethtool-pause-unsupported-netlink.txt",
    "ethtool-pause-unsupported.txt",
    "ethtool-pause.json",
    "ethtool-pause.txt",
    "ip-link-detail.json",
    "mlnx-qos-firmware-controlled.txt",
    "mlnx-qos-os-controlled.txt",
    "mlxconfig-query-extended.txt",
    "mlxconfig-query.txt",
];

fn fixture(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/linux")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Parses a fixture, and checks that its CRLF variant parses to the same value.
fn parsed<T: PartialEq + std::fmt::Debug>(
    name: &str,
    parse: impl Fn(&str) -> Result<T, ParseError>,
) -> T {
    let text = fixture(name);
    let lf = parse(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
    let crlf = parse(&text.replace('\n', "\r\n")).unwrap_or_else(|e| panic!("{name} CRLF: {e}"));
    assert_eq!(lf, crlf, "{name}: CRLF changes the result");
    lf
}

/// A parser with its result dropped, so all of them fit one table.
type Parser = fn(&str) -> Result<(), ParseError>;

/// Every parser by name.
fn parsers() -> Vec<(&'static str, Parser)> {
    vec![
        ("ip link", |t| parse_ip_link(t).map(drop)),
        ("dcb ets", |t| parse_dcb_ets(t).map(drop)),
        ("dcb pfc", |t| parse_dcb_pfc(t).map(drop)),
        ("dcb dcbx", |t| parse_dcb_dcbx(t).map(drop)),
        ("pause json", |t| parse_ethtool_pause_json(t).map(drop)),
        ("pause text", |t| parse_ethtool_pause_text(t).map(drop)),
        ("ethtool -i", |t| parse_ethtool_driver_info(t).map(drop)),
        ("devlink", |t| parse_devlink_info(t).map(drop)),
        ("mlnx_qos", |t| parse_mlnx_qos(t).map(drop)),
        ("mlxconfig", |t| parse_mlxconfig_query(t).map(drop)),
    ]
}

fn parser(name: &str) -> Parser {
    parsers()
        .into_iter()
        .find(|(n, _)| *n == name)
        .unwrap_or_else(|| panic!("no parser {name:?}"))
        .1
}

fn strings<const N: usize>(items: [&str; N]) -> Vec<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

#[test]
fn ip_link_tells_ports_bond_and_vlan_apart() {
    let links = parsed("ip-link-detail.json", parse_ip_link);
    let rows: Vec<_> = links
        .iter()
        .map(|l| {
            (
                l.name.as_str(),
                l.link_type.as_str(),
                l.address.as_deref(),
                l.permanent_address.as_deref(),
                l.kind.as_deref(),
                l.master.as_deref(),
            )
        })
        .collect();
    let bond_mac = Some("b8:ce:f6:3c:71:a4");
    assert_eq!(
        rows,
        [
            (
                "lo",
                "loopback",
                Some("00:00:00:00:00:00"),
                None,
                None,
                None
            ),
            ("ens2f0np0", "ether", bond_mac, None, None, Some("bond0")),
            (
                "ens2f1np1",
                "ether",
                bond_mac,
                Some("b8:ce:f6:3c:71:a5"),
                None,
                Some("bond0")
            ),
            ("bond0", "ether", bond_mac, None, Some("bond"), None),
            ("bond0.214", "ether", bond_mac, None, Some("vlan"), None),
        ]
    );
    assert_eq!(
        links[2].flags,
        strings(["BROADCAST", "MULTICAST", "SLAVE", "UP", "LOWER_UP"])
    );
    assert_eq!(links[1].mtu, Some(9000));

    // Without -d there is no linkinfo; an empty address means none.
    let plain = parse_ip_link(
        r#"[{"ifindex":3,"ifname":"ib0","flags":[],"link_type":"none","address":""}]"#,
    )
    .unwrap();
    assert_eq!(plain[0].address, None);
    assert_eq!(plain[0].kind, None);
    assert!(plain[0].flags.is_empty());
    assert_eq!(parse_ip_link("[]").unwrap(), []);
}

#[test]
fn dcb_ets_full_pretty_and_partial_shows() {
    let cases = [
        (
            "dcb-ets.json",
            Ets {
                willing: Some(false),
                tc_bandwidth: vec![40, 0, 0, 60, 0, 0, 0, 0],
                tc_algorithm: strings([
                    "ets", "strict", "strict", "ets", "strict", "strict", "strict", "strict",
                ]),
                priority_tc: vec![0, 0, 0, 3, 0, 0, 0, 0],
            },
        ),
        (
            "dcb-ets-pretty.json",
            Ets {
                willing: Some(true),
                tc_bandwidth: vec![25, 25, 25, 25, 0, 0, 0, 0],
                tc_algorithm: strings([
                    "ets", "ets", "ets", "ets", "strict", "strict", "vendor", "???",
                ]),
                priority_tc: vec![0, 1, 2, 3, 4, 5, 6, 7],
            },
        ),
        (
            "dcb-ets-prio-tc-only.json",
            Ets {
                priority_tc: vec![0, 0, 0, 3, 0, 0, 0, 0],
                ..Ets::default()
            },
        ),
    ];
    for (name, expected) in cases {
        assert_eq!(parsed(name, parse_dcb_ets), expected, "{name}");
    }
}

#[test]
fn dcb_pfc_with_and_without_statistics() {
    let cases = [("dcb-pfc.json", 3, 32), ("dcb-pfc-statistics.json", 4, 0)];
    for (name, priority, delay) in cases {
        let mut enabled = vec![false; 8];
        enabled[priority] = true;
        let expected = Pfc {
            capability: Some(8),
            enabled,
            macsec_bypass: Some(false),
            delay: Some(delay),
        };
        assert_eq!(parsed(name, parse_dcb_pfc), expected, "{name}");
    }
}

#[test]
fn dcb_dcbx_reads_only_the_bits_that_are_set() {
    let host = Dcbx {
        host: true,
        ieee: true,
        ..Dcbx::default()
    };
    let firmware = Dcbx {
        lld_managed: true,
        ieee: true,
        ..Dcbx::default()
    };
    assert_eq!(parsed("dcb-dcbx-host.json", parse_dcb_dcbx), host);
    assert_eq!(
        parsed("dcb-dcbx-lld-managed.json", parse_dcb_dcbx),
        firmware
    );
    assert_eq!(parse_dcb_dcbx("{}\n").unwrap(), Dcbx::default());
    let all = parse_dcb_dcbx(r#"{"cee":true,"static":true}"#).unwrap();
    assert!(all.cee && all.static_ && !all.host && !all.ieee);
}

#[test]
fn unsupported_is_recognized_in_stderr() {
    let cases = [
        (fixture("dcb-unsupported.stderr"), true),
        (fixture("ethtool-pause-unsupported-netlink.txt"), true),
        ("Attribute read: No such device\n".to_owned(), false),
        ("Attribute not found: Success\n".to_owned(), false),
        (String::new(), false),
    ];
    for (stderr, expected) in cases {
        assert_eq!(dcb_unsupported(&stderr), expected, "{stderr:?}");
        assert_eq!(ethtool_unsupported(&stderr), expected, "{stderr:?}");
    }
}

#[test]
fn ethtool_pause_json_and_text_agree() {
    let negotiated = Pause {
        autonegotiate: true,
        rx: true,
        tx: true,
        rx_negotiated: Some(true),
        tx_negotiated: Some(false),
    };
    let off = Pause {
        autonegotiate: false,
        rx: false,
        tx: false,
        rx_negotiated: None,
        tx_negotiated: None,
    };
    assert_eq!(
        parsed("ethtool-pause.json", parse_ethtool_pause_json),
        negotiated
    );
    assert_eq!(
        parsed("ethtool-pause-statistics.json", parse_ethtool_pause_json),
        off
    );
    let text_cases = [
        ("ethtool-pause.txt", Some(negotiated)),
        ("ethtool-pause-statistics.txt", Some(off)),
        ("ethtool-pause-unsupported.txt", None),
        ("ethtool-pause-unsupported-netlink.txt", None),
    ];
    for (name, expected) in text_cases {
        assert_eq!(parsed(name, parse_ethtool_pause_text), expected, "{name}");
    }
    // The ioctl path separates the negotiated lines with a tab.
    let ioctl = "Pause parameters for eth2:\nAutonegotiate:\ton\nRX:\t\ton\nTX:\t\ton\n\
                 RX negotiated:\ton\nTX negotiated:\ton\n";
    let pause = parse_ethtool_pause_text(ioctl).unwrap().unwrap();
    assert_eq!(pause.tx_negotiated, Some(true));
}

#[test]
fn ethtool_driver_info_of_two_vendors() {
    let cases = [
        (
            "ethtool-driver-mlx5.txt",
            DriverInfo {
                driver: "mlx5_core".into(),
                version: Some("6.8.0-45-generic".into()),
                firmware_version: Some("22.39.1002 (MT_0000000359)".into()),
                bus_info: Some("0000:5e:00.0".into()),
            },
        ),
        (
            "ethtool-driver-bnxt.txt",
            DriverInfo {
                driver: "bnxt_en".into(),
                version: None,
                firmware_version: Some("228.0.130.0/pkg 228.1.111.0".into()),
                bus_info: Some("0000:af:00.1".into()),
            },
        ),
    ];
    for (name, expected) in cases {
        assert_eq!(parsed(name, parse_ethtool_driver_info), expected, "{name}");
    }
}

#[test]
fn devlink_keeps_dotted_keys_and_finds_pending_firmware() {
    let devices = parsed("devlink-dev-info.json", parse_devlink_info);
    let handles: Vec<&str> = devices.iter().map(|d| d.handle.as_str()).collect();
    assert_eq!(
        handles,
        ["pci/0000:5e:00.0", "pci/0000:5e:00.1", "pci/0000:d8:00.0"]
    );
    let mlx = &devices[0];
    assert_eq!(mlx.driver.as_deref(), Some("mlx5_core"));
    assert_eq!(mlx.serial_number.as_deref(), Some("MT2318X09712"));
    assert_eq!(mlx.fixed["fw.psid"], "MT_0000000359");
    let pending = |a: &str, b: &str, c: &str| (a.to_owned(), b.to_owned(), c.to_owned());
    assert_eq!(
        mlx.pending_update(),
        [
            pending("fw", "22.39.1002", "22.41.1000"),
            pending("fw.version", "22.39.1002", "22.41.1000"),
        ]
    );
    let ice = &devices[2];
    assert_eq!(ice.running["fw.mgmt.api"], "1.7.11");
    assert_eq!(ice.running["fw.app.name"], "ICE OS Default Package");
    assert!(ice.stored.contains_key("fw.netlist.build"));
    assert_eq!(ice.pending_update(), []);
    assert_eq!(
        parsed("devlink-dev-info-empty.json", parse_devlink_info),
        []
    );
    // A device without versions (some drivers report only the driver).
    let bare = parse_devlink_info(r#"{"info":{"pci/0000:01:00.0":{"driver":"igb"}}}"#).unwrap();
    assert!(bare[0].running.is_empty() && bare[0].pending_update().is_empty());
}

#[test]
fn mlnx_qos_os_and_firmware_controlled() {
    let tc = |tc, algorithm: &str, bandwidth, rate_limit: Option<&str>, priorities: &[u8]| MlnxTc {
        tc,
        algorithm: algorithm.to_owned(),
        bandwidth,
        rate_limit: rate_limit.map(str::to_owned),
        priorities: priorities.to_vec(),
    };
    let os = MlnxQos {
        dcbx: Some(DcbxControl::Os),
        trust: Some("dscp".into()),
        pfc_enabled: vec![false, false, false, true, false, false, false, false],
        traffic_classes: vec![
            tc(0, "ets", Some(40), None, &[0, 1, 2, 4, 5, 6, 7]),
            tc(3, "ets", Some(60), None, &[3]),
        ],
        unsupported: vec![],
    };
    let firmware = MlnxQos {
        dcbx: Some(DcbxControl::Firmware),
        trust: Some("pcp".into()),
        pfc_enabled: vec![false, false, false, false, true, false, false, false],
        traffic_classes: vec![
            tc(0, "vendor", None, None, &[1]),
            tc(1, "ets", Some(50), None, &[0, 2, 3]),
            tc(4, "ets", Some(50), Some("25.0 Gbps"), &[4]),
            tc(6, "strict", None, None, &[5, 6, 7]),
        ],
        unsupported: strings(["Buffers commands"]),
    };
    assert_eq!(parsed("mlnx-qos-os-controlled.txt", parse_mlnx_qos), os);
    assert_eq!(
        parsed("mlnx-qos-firmware-controlled.txt", parse_mlnx_qos),
        firmware
    );

    // Old versions: no DCBX line, `up:` lines with `skprio:` lines under them.
    let old = "ETS features are not supported on your system\n\
               Rate limit is not supported on your system!\n\
               PFC configuration:\n\
               \tpriority    0   1   2   3   4   5   6   7\n\
               \tenabled     0   0   0   0   0   0   0   0   \n\
               tc: 0 ratelimit: unlimited, tsa: strict\n\
               \t up: 0\n\t\t skprio: 0\n\t\t skprio: 1\n\t up: 1\n";
    let old = parse_mlnx_qos(old).unwrap();
    assert_eq!(old.dcbx, None);
    assert_eq!(old.traffic_classes, [tc(0, "strict", None, None, &[0, 1])]);
    assert_eq!(old.unsupported, strings(["ETS features", "Rate limit"]));
}

#[test]
fn mlxconfig_extended_and_plain_queries() {
    let extended = parsed("mlxconfig-query-extended.txt", parse_mlxconfig_query);
    assert_eq!(extended.device.as_deref(), Some("/dev/mst/mt4127_pciconf0"));
    assert_eq!(extended.device_type.as_deref(), Some("ConnectX6LX"));
    assert_eq!(extended.name.as_deref(), Some("MCX631102AN-ADA_Ax"));
    assert_eq!(extended.values.len(), 16);
    let value = |default: &str, current: &str, next_boot: &str, modified| MlxValue {
        default: Some(default.into()),
        current: Some(current.into()),
        next_boot: next_boot.into(),
        modified,
    };
    let cases = [
        ("LLDP_NB_DCBX_P1", value("False", "True", "True", true)),
        ("DCBX_WILLING_P1", value("True", "True", "False", true)),
        ("LLDP_NB_RX_MODE_P1", value("ALL", "ALL", "ALL", false)),
        (
            "MEMIC_SIZE_LIMIT",
            value("_256KB", "_256KB", "_256KB", false),
        ),
        ("ROCE_CC_PRIO_MASK_P1", value("255", "8", "8", true)),
    ];
    for (name, expected) in cases {
        assert_eq!(extended.values[name], expected, "{name}");
    }
    assert_eq!(extended.values["DCBX_WILLING_P1"].as_bool(), Some(false));
    assert_eq!(extended.values["LLDP_NB_RX_MODE_P1"].as_bool(), None);
    assert_eq!(
        extended.values["DCBX_WILLING_P1"]
            .current
            .as_deref()
            .and_then(mlx_bool),
        Some(true)
    );

    let plain = parsed("mlxconfig-query.txt", parse_mlxconfig_query);
    assert_eq!(plain.device.as_deref(), Some("0000:3b:00.0"));
    assert_eq!(plain.device_type.as_deref(), Some("ConnectX5"));
    assert_eq!(plain.values.len(), 14);
    assert_eq!(
        plain.values["LLDP_NB_RX_MODE_P1"],
        MlxValue {
            default: None,
            current: None,
            next_boot: "OFF".into(),
            modified: false,
        }
    );
    assert_eq!(plain.values["DCBX_IEEE_P1"].as_bool(), Some(true));
    assert_eq!(plain.values["PF_LOG_BAR_SIZE"].next_boot, "5");

    // Old versions print `PCI device:`; warnings are skipped.
    let old = "Device #1:\n----------\n\nDevice type:    ConnectX4LX\nPCI device:     \
               /dev/mst/mt4117_pciconf0\n-W- Firmware is older than expected\n\n\
               Configurations:                              Next Boot\n         SRIOV_EN   True(1)\n";
    let old = parse_mlxconfig_query(old).unwrap();
    assert_eq!(old.device.as_deref(), Some("/dev/mst/mt4117_pciconf0"));
    assert_eq!(old.values["SRIOV_EN"].as_bool(), Some(true));
}

#[test]
fn empty_output_is_an_error_of_the_whole_input() {
    for (name, parse) in parsers() {
        for input in ["", "\n", " \r\n\t\r\n"] {
            let err = parse(input).expect_err(name);
            assert_eq!(err.line, 0, "{name} {input:?}: {err}");
            assert!(err.message.contains("empty"), "{name}: {err}");
        }
    }
}

#[test]
fn broken_inputs_name_the_line() {
    let cases: &[(&str, &str, usize, &str)] = &[
        (
            "ip link",
            "[\n  {\"ifname\": \"eth0\",\n   \"link_type\": \"ether\",\n   \"mtu\": \"9000\"}\n]",
            4,
            "invalid type",
        ),
        (
            "ip link",
            "[{\"ifname\":\"eth0\"}]",
            1,
            "missing field `link_type`",
        ),
        ("ip link", "{\"ifname\":\"eth0\"}", 1, "expected a sequence"),
        ("dcb ets", "{\"tc_bw\": [40, 300]}", 1, "expected u8"),
        (
            "dcb ets",
            "{\n\"willing\": false,\n\"tc_tsa\": [\"ets\", 3]\n}",
            3,
            "invalid type",
        ),
        ("dcb ets", "{\"ets_cap\": 8}", 0, "no ETS keys"),
        (
            "dcb ets",
            "{\"willing\": true}\n{\"willing\": true}\n",
            2,
            "trailing characters",
        ),
        (
            "dcb pfc",
            "{\"pfc_cap\":8,\n\"prio_pfc\":[0,0,0,1]}",
            2,
            "expected a boolean",
        ),
        ("dcb pfc", "{\"requests\":[1,2]}", 0, "no PFC keys"),
        ("dcb dcbx", "{\"host\":\"yes\"}", 1, "expected a boolean"),
        (
            "dcb dcbx",
            "Attribute read: Operation not supported\n",
            1,
            "expected value",
        ),
        ("pause json", "[  ]\n", 0, "no interface"),
        (
            "pause json",
            "[ {\n \"ifname\": \"eth0\",\n \"rx\": true,\n \"tx\": true\n } ]",
            5,
            "missing field `autonegotiate`",
        ),
        (
            "pause json",
            "[{\"autonegotiate\":false,\"rx\":true,\"tx\":true},\
             {\"autonegotiate\":false,\"rx\":true,\"tx\":true}]",
            0,
            "expected one interface, found 2",
        ),
        (
            "pause text",
            "Pause parameters for eth0:\nAutonegotiate:\ton\nRX:\t\tmaybe\n",
            3,
            "expected `on` or `off`",
        ),
        (
            "pause text",
            "Pause parameters for eth0:\nAutonegotiate:\ton\nRX:\t\ton\n",
            0,
            "no `TX:` line",
        ),
        (
            "pause text",
            "Pause parameters for eth0:\nAutonegotiate: on\nFEC: on\n",
            3,
            "unknown pause field",
        ),
        (
            "pause text",
            "Pause parameters for eth0:\nAutonegotiate on\n",
            2,
            "expected `Field: on|off`",
        ),
        (
            "pause text",
            "netlink error: No such device\n",
            1,
            "unknown pause field",
        ),
        (
            "ethtool -i",
            "driver: ice\nbus-info\n",
            2,
            "expected `key: value`",
        ),
        (
            "ethtool -i",
            "Cannot get driver information: No such device\n",
            1,
            "not `ethtool -i` output",
        ),
        (
            "ethtool -i",
            "version: 1.0\nbus-info: 0000:01:00.0\n",
            0,
            "no `driver:` line",
        ),
        (
            "ethtool -i",
            "version: 1.0\r\ndriver:\r\n",
            2,
            "empty driver name",
        ),
        (
            "devlink",
            "{\"info\": {\n\"pci/0000:01:00.0\": {\n\"versions\": {\"running\": {\"fw\": 5}}}}}",
            3,
            "invalid type",
        ),
        (
            "devlink",
            "Failed to connect to devlink Netlink\n",
            1,
            "expected value",
        ),
        ("devlink", "{\"dev\": {}}", 1, "missing field `info`"),
        ("mlnx_qos", "DCBX mode: Sometimes\n", 1, "unknown DCBX mode"),
        (
            "mlnx_qos",
            "DCBX mode: OS controlled\nPFC configuration:\n\tenabled     0   0   2   0   0   0   0   0\n",
            3,
            "PFC flag must be 0 or 1",
        ),
        (
            "mlnx_qos",
            "PFC configuration:\n\tenabled 0 0 0 1\n",
            2,
            "expected 8 PFC flags",
        ),
        (
            "mlnx_qos",
            "PFC configuration:\n\tenabled 0 0 0 1 0 0 0 0\ntc: x ratelimit: unlimited, tsa: ets, bw: 50%\n",
            3,
            "bad traffic class",
        ),
        (
            "mlnx_qos",
            "PFC configuration:\n\tenabled 0 0 0 1 0 0 0 0\ntc: 0 ratelimit: unlimited, tsa: ets, bw: lots\n",
            3,
            "bad bandwidth",
        ),
        (
            "mlnx_qos",
            "PFC configuration:\n\tenabled 0 0 0 1 0 0 0 0\ntc: 0 ratelimit: unlimited, color: red\n",
            3,
            "unknown traffic class field",
        ),
        (
            "mlnx_qos",
            "PFC configuration:\n\tenabled 0 0 0 1 0 0 0 0\ntc: 0 ratelimit: unlimited\n",
            3,
            "without `tsa:`",
        ),
        (
            "mlnx_qos",
            "PFC configuration:\n\tenabled 0 0 0 1 0 0 0 0\ntc: 3 ratelimit: unlimited, tsa: ets, bw: 50%\n\t priority:  nine\n",
            4,
            "bad priority",
        ),
        ("mlnx_qos", "\t priority:  3\n", 1, "unexpected line"),
        (
            "mlnx_qos",
            "DCBX mode: OS controlled\r\n",
            0,
            "no PFC `enabled` row",
        ),
        (
            "mlnx_qos",
            "Interface name is required\nUsage: mlnx_qos -i <interface> [options]\n",
            1,
            "unexpected line",
        ),
        (
            "mlxconfig",
            "Device #1:\n\nConfigurations:        Default   Current    Next Boot\n    SRIOV_EN    False(0)   True(1)\n",
            4,
            "expected 3 value(s), found 2",
        ),
        (
            "mlxconfig",
            "\n-E- Failed to open the device\n",
            2,
            "mlxconfig error: Failed to open the device",
        ),
        (
            "mlxconfig",
            "Device #1:\nDevice type:  ConnectX5\n",
            0,
            "no `Configurations:` header",
        ),
        (
            "mlxconfig",
            "Configurations:    Next Boot\n  A  1\nDevice #1:\nDevice #2:\n",
            4,
            "more than one device",
        ),
        (
            "mlxconfig",
            "Configurations:     Default    Later\n",
            1,
            "unknown column",
        ),
        (
            "mlxconfig",
            "Configurations:     Default    Current\n",
            1,
            "no `Next Boot` column",
        ),
        (
            "mlxconfig",
            "Device #1:\nsomething odd\n",
            2,
            "expected `Field: value`",
        ),
        (
            "mlxconfig",
            "Configurations:    Next Boot\n*\n",
            2,
            "`*` without a parameter",
        ),
    ];
    for (name, input, line, fragment) in cases {
        let err = parser(name)(input).expect_err(input);
        assert_eq!(err.line, *line, "{name} {input:?}: {err}");
        assert!(err.message.contains(fragment), "{name} {input:?}: {err}");
        assert!(
            err.to_string().starts_with(&format!("line {line}: ")),
            "{err}"
        );
    }
}

#[test]
fn truncated_json_fails_at_its_last_line() {
    let cases = [
        ("ip link", "ip-link-detail.json", 40),
        ("dcb ets", "dcb-ets-pretty.json", 6),
        ("pause json", "ethtool-pause.json", 7),
        ("devlink", "devlink-dev-info.json", 15),
    ];
    for (name, file, keep) in cases {
        let text = fixture(file);
        let cut: Vec<&str> = text.lines().take(keep).collect();
        let err = parser(name)(&cut.join("\n")).expect_err(file);
        assert_eq!(err.line, keep, "{file}: {err}");
    }
}

proptest::proptest! {
    #[test]
    fn parsers_never_panic_on_arbitrary_text(input in "\\PC{0,400}") {
        for (_, parse) in parsers() {
            let _ = parse(&input);
        }
        let _ = dcb_unsupported(&input);
    }

    #[test]
    fn parsers_never_panic_on_tool_shaped_lines(lines in proptest::collection::vec(
        "( {0,2}\\t?[A-Za-z *#'-]{0,14}: ?[a-z0-9%,(). ]{0,16}\
         |tc: [0-9a-zé]{0,3} ratelimit: [a-z0-9.]{0,5}, tsa: [a-z]{0,6}(, bw: [0-9%]{0,4})?\
         |\\t ?(priority|enabled|buffer|up|skprio):? {0,4}[0-9 ]{0,16}\
         |Configurations: {0,4}(Default|Current|Next Boot|Next| ){0,4}\
         |\\*? {0,8}[A-Z_0-9]{1,12} {1,6}[A-Za-z0-9_()]{0,8}( +[A-Za-z0-9()]{0,8}){0,3}\
         |(Device #1:|-E- x|-W- y|Pause parameters for x:|Statistics:|PFC configuration:)\
         |\\r|)",
        0..14,
    )) {
        let input = lines.join("\n");
        for (_, parse) in parsers() {
            let _ = parse(&input);
        }
    }

    #[test]
    fn parsers_never_panic_on_damaged_fixtures(
        file in proptest::sample::select(FIXTURES.to_vec()),
        cut in proptest::prelude::any::<proptest::sample::Index>(),
        inserted in proptest::prelude::any::<char>(),
    ) {
        let chars: Vec<char> = fixture(file).chars().collect();
        let at = cut.index(chars.len() + 1);
        let truncated: String = chars[..at].iter().collect();
        let damaged: String = chars[..at]
            .iter()
            .chain(std::iter::once(&inserted))
            .chain(&chars[at..])
            .collect();
        for (_, parse) in parsers() {
            let _ = parse(&truncated);
            let _ = parse(&damaged);
        }
    }
}
