use driftgate_model::{AppSelector, PeerDcbx};

use super::*;
use crate::peer::AppEntry;

/// A recording of `scripts/lldp-lab.sh` (tests/fixtures/lldp/README.md).
fn lab(state: &str, file: &str) -> String {
    let path = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("tests/fixtures/lldp")
        .join(state)
        .join(file);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn entries() -> Vec<AppEntry> {
    vec![
        AppEntry {
            selector: AppSelector::Udp,
            protocol: 4791,
            priority: 3,
        },
        AppEntry {
            selector: AppSelector::Tcp,
            protocol: 445,
            priority: 3,
        },
    ]
}

/// What the lab's switch sends in `dcbx/`, whichever agent received it.
fn assert_lab_switch(received: &Received, pfc: &[u8]) {
    let neighbour = &received.neighbour;
    let chassis = neighbour.chassis_id.as_ref().unwrap();
    assert_eq!(
        (chassis.subtype.as_str(), chassis.value.as_str()),
        ("mac", "02:00:00:00:41:fe")
    );
    assert_eq!(
        neighbour.port_id.as_ref().unwrap().value,
        "02:00:00:00:41:fe"
    );
    assert_eq!(neighbour.system_name.as_deref(), Some("tor-a"));
    assert_eq!(neighbour.port_description.as_deref(), Some("swp7"));
    assert_eq!(received.ttl, Some(4));
    let dcb = &received.dcb;
    assert_eq!(dcb.dcbx, Some(PeerDcbx::Ieee));
    let p = dcb.pfc.as_ref().unwrap();
    assert_eq!(
        (p.willing, p.mbc, p.capable),
        (Some(false), Some(false), Some(8))
    );
    assert_eq!(p.enabled, pfc);
    let ets = dcb.ets_configuration.as_ref().unwrap();
    assert_eq!(
        (ets.willing, ets.cbs, ets.max_tcs),
        (Some(false), Some(false), Some(8))
    );
    assert_eq!(ets.tables.priority_tc, [0, 0, 0, 1, 0, 0, 0, 0]);
    assert_eq!(ets.tables.bandwidth, [50, 50, 0, 0, 0, 0, 0, 0]);
    assert_eq!(&ets.tables.algorithm[..3], ["ets", "ets", "strict"]);
    let rec = dcb.ets_recommendation.as_ref().unwrap();
    assert_eq!(rec.tables, ets.tables);
    assert_eq!(rec.willing, None);
    assert_eq!(dcb.app.as_deref(), Some(&entries()[..]));
}

#[test]
fn lldptool_reads_the_lab_switch_with_pfc_on_priority_3() {
    let received = parse_lldptool(&lab("dcbx", "lldptool-t-n.txt"))
        .unwrap()
        .unwrap();
    assert_lab_switch(&received, &[3]);
}

#[test]
fn each_lldptool_v_block_is_a_block_of_the_whole_listing() {
    // The source reads the whole listing; `-V TLV` prints the same block on its own.
    for state in ["dcbx", "pfc-off"] {
        let whole = lab(state, "lldptool-t-n.txt");
        for tlv in ["PFC", "ETS-CFG", "ETS-REC", "APP"] {
            let block = lab(state, &format!("lldptool-t-n-V-{tlv}.txt"));
            assert!(!block.is_empty() && whole.contains(&block), "{state} {tlv}");
        }
    }
}

#[test]
fn lldptool_reads_pfc_on_none_absent_and_a_neighbour_without_dcbx() {
    let off = parse_lldptool(&lab("pfc-off", "lldptool-t-n.txt"))
        .unwrap()
        .unwrap();
    assert_lab_switch(&off, &[]);
    let absent = parse_lldptool(&lab("pfc-absent", "lldptool-t-n.txt"))
        .unwrap()
        .unwrap();
    assert_eq!(absent.dcb.pfc, None);
    assert_eq!(absent.dcb.dcbx, Some(PeerDcbx::Ieee));
    let plain = parse_lldptool(&lab("plain", "lldptool-t-n.txt"))
        .unwrap()
        .unwrap();
    assert_eq!(plain.dcb.dcbx, Some(PeerDcbx::None));
    assert_eq!(plain.dcb.ets_configuration, None);
    assert_eq!(plain.neighbour.system_name.as_deref(), Some("tor-a"));
    assert_eq!(
        parse_lldptool(&lab("no-neighbour", "lldptool-t-n.txt")).unwrap(),
        None
    );
}

#[test]
fn lldptool_rejects_cut_unknown_and_damaged_listings() {
    let whole = lab("dcbx", "lldptool-t-n.txt");
    let cut_at = |marker: &str| whole[..whole.find(marker).unwrap()].to_owned();
    let cases = [
        // Cut inside the PFC TLV.
        (cut_at("\t PFC enabled"), "ends in the IEEE 8021QAZ PFC TLV"),
        // A PFC TLV without its `PFC enabled:` line.
        (
            whole.replace("\t PFC enabled: 3 \n", ""),
            "no `PFC enabled:` line",
        ),
        // Cut between TLVs: no End of LLDPDU.
        (cut_at("IEEE 8021QAZ APP TLV"), "cut short"),
        // Only the first lines: the TTL TLV is missing.
        (cut_at("Time to Live TLV"), "expected the Time to Live TLV"),
        (
            whole.replace("IEEE 8021QAZ APP TLV", "IEEE 8021QAZ QCN TLV"),
            "a DCB TLV driftgate does not read",
        ),
        (
            whole.replace("PFC enabled: 3 ", "PFC enabled: 9 "),
            "priority 0-7",
        ),
        (
            whole.replace("PFC enabled: 3 ", "PFC enabled: "),
            "lists no priority",
        ),
        (
            whole.replace("1:ets 2:strict", "1:wfq 2:strict"),
            "unknown algorithm",
        ),
        (
            whole.replace(" 50% 50% 0%", " 50% 50%"),
            "expected 8 entries",
        ),
        (
            whole.replace("\t Willing: no\n\t MACsec", "\t Willing: maybe\n\t MACsec"),
            "`yes` or `no`",
        ),
        (whole.replace("Sel 3", "Sel 9"), "selector is not 1-7"),
        (whole.replace("Port: 4791", "Port: x4791"), "not a number"),
        (whole.replace("\t4\n", "\tfour\n"), "TTL in seconds"),
        (format!("{whole}End of LLDPDU TLV\n"), "before the last TLV"),
    ];
    for (text, expected) in cases {
        let error = parse_lldptool(&text).unwrap_err().to_string();
        assert!(error.contains(expected), "{expected:?} not in {error:?}");
    }
    // A second PFC TLV: which one holds is not known.
    let pfc = &whole
        [whole.find("IEEE 8021QAZ PFC TLV").unwrap()..whole.find("IEEE 8021QAZ APP TLV").unwrap()];
    let twice = whole.replace(
        "IEEE 8021QAZ APP TLV",
        &format!("{pfc}IEEE 8021QAZ APP TLV"),
    );
    assert!(
        parse_lldptool(&twice)
            .unwrap_err()
            .to_string()
            .contains("a second IEEE 8021QAZ PFC TLV")
    );
    // TLVs that carry no DCB are skipped.
    let med = whole.replace(
        "End of LLDPDU TLV",
        "LLDP-MED Capabilities TLV\n\tNetwork Policy\nEnd of LLDPDU TLV",
    );
    assert!(parse_lldptool(&med).is_ok());
}

#[test]
fn lldpcli_decodes_the_8021qaz_tlvs_lldpd_leaves_unknown_in_json0_and_json() {
    for file in ["lldpcli-json0.json", "lldpcli-json.json"] {
        let neighbours = parse_lldpcli(&lab("dcbx", file)).unwrap();
        assert_eq!(neighbours.len(), 1, "{file}");
        assert_eq!(neighbours[0].0, "eth1");
        assert_lab_switch(&neighbours[0].1, &[3]);
        let off = parse_lldpcli(&lab("pfc-off", file)).unwrap();
        assert_lab_switch(&off[0].1, &[]);
        let absent = parse_lldpcli(&lab("pfc-absent", file)).unwrap();
        assert_eq!(absent[0].1.dcb.pfc, None);
        let plain = parse_lldpcli(&lab("plain", file)).unwrap();
        assert_eq!(plain[0].1.dcb.dcbx, Some(PeerDcbx::None));
        assert!(
            parse_lldpcli(&lab("no-neighbour", file))
                .unwrap()
                .is_empty()
        );
    }
}

#[test]
fn lldpcli_rejects_cut_unknown_and_half_read_neighbours() {
    let whole = lab("dcbx", "lldpcli-json0.json");
    let cases = [
        (whole[..whole.len() / 2].to_owned(), "lldpcli JSON"),
        (String::new(), "empty lldpcli output"),
        // The PFC TLV's length does not match its bytes.
        (whole.replace("\"len\": \"2\"", "\"len\": \"3\""), "cut short"),
        (whole.replace("\"len\": \"2\"", "\"len\": \"1\"").replace("\"value\": \"08,08\"", "\"value\": \"08\""), "expected 2"),
        (whole.replace("\"value\": \"08,08\"", "\"value\": \"08,zz\""), "not a hex byte"),
        (whole.replace("\"subtype\": \"11\"", "\"subtype\": \"eleven\""), "subtype is not a number"),
        (whole.replace("\"port\": [", "\"gone\": ["), "no `port`"),
        (whole.replace("\"chassis\": [", "\"gone\": ["), "no `chassis`"),
        (whole.replace("\"value\": \"4\"", "\"value\": \"four\""), "`ttl`"),
        (whole.replace("\"type\": \"mac\",\n                  \"value\": \"02:00:00:00:41:fe\"\n                }\n              ],\n              \"name\"", "\"value\": \"02:00:00:00:41:fe\"\n                }\n              ],\n              \"name\""), "no `type`"),
    ];
    for (text, expected) in cases {
        let error = parse_lldpcli(&text).unwrap_err().to_string();
        assert!(error.contains(expected), "{expected:?} not in {error:?}");
    }
    // The same interface twice: two neighbours on one port.
    let mut doc: serde_json::Value = serde_json::from_str(&whole).unwrap();
    let interfaces = doc["lldp"][0]["interface"].as_array_mut().unwrap();
    interfaces.push(interfaces[0].clone());
    let error = parse_lldpcli(&doc.to_string()).unwrap_err().to_string();
    assert!(error.contains("more than one neighbour"), "{error}");
    // A TLV of another organisation is skipped; an APP TLV of a wrong size is not.
    let other = whole.replace(
        "\"oui\": \"00,80,C2\",\n                  \"subtype\": \"12\"",
        "\"oui\": \"00,12,0F\",\n                  \"subtype\": \"12\"",
    );
    assert_eq!(parse_lldpcli(&other).unwrap()[0].1.dcb.app, None);
    let app = whole
        .replace("00,63,12,B7,62,01,BD", "00,63,12,B7,62,01")
        .replace("\"len\": \"7\"", "\"len\": \"6\"");
    assert!(
        parse_lldpcli(&app)
            .unwrap_err()
            .to_string()
            .contains("APP TLV")
    );
}

#[test]
fn the_8021qaz_bytes_decode_willing_flags_and_ethertype_entries() {
    let ets = tlv::decode(
        9,
        &[
            0xc3, 0x01, 0x23, 0x45, 0x67, 25, 25, 25, 25, 0, 0, 0, 0, 2, 2, 2, 2, 0, 1, 255, 7,
        ],
    )
    .unwrap();
    let Some(tlv::Qaz::EtsConfiguration(ets)) = ets else {
        panic!("{ets:?}")
    };
    assert_eq!(
        (ets.willing, ets.cbs, ets.max_tcs),
        (Some(true), Some(true), Some(3))
    );
    assert_eq!(ets.tables.priority_tc, [0, 1, 2, 3, 4, 5, 6, 7]);
    assert_eq!(
        &ets.tables.algorithm[4..],
        ["strict", "cbs", "vendor", "tsa-7"]
    );
    let Some(tlv::Qaz::Pfc(pfc)) = tlv::decode(11, &[0x88, 0b1001_1000]).unwrap() else {
        panic!()
    };
    assert_eq!((pfc.willing, pfc.enabled), (Some(true), vec![3, 4, 7]));
    let Some(tlv::Qaz::App(app)) = tlv::decode(12, &[0, 0x81, 0x89, 0x15]).unwrap() else {
        panic!()
    };
    assert_eq!(
        app,
        [AppEntry {
            selector: AppSelector::Ethertype,
            protocol: 0x8915,
            priority: 4
        }]
    );
    assert_eq!(AppSelector::Ethertype.protocol_text(0x8915), "0x8915");
    assert_eq!(tlv::decode(3, &[1, 2]).unwrap(), None);
    assert!(tlv::decode(10, &[0; 20]).is_err());
}

#[test]
fn a_neighbour_speaking_only_cee_dcbx_is_cee() {
    let plain = lab("plain", "lldptool-t-n.txt");
    let cee = plain.replace(
        "End of LLDPDU TLV",
        "CEE DCBX TLV\n\tControl TLV:\n\t  SeqNo: 1, AckNo: 0\nEnd of LLDPDU TLV",
    );
    let received = parse_lldptool(&cee).unwrap().unwrap();
    assert_eq!(received.dcb.dcbx, Some(PeerDcbx::Cee));
    let json = lab("plain", "lldpcli-json0.json").replace(
        "\"port\": [",
        "\"unknown-tlvs\": [{\"unknown-tlv\": [{\"oui\": \"00,1B,21\", \"subtype\": \"2\", \"len\": \"1\", \"value\": \"00\"}]}],\n          \"port\": [",
    );
    assert_eq!(
        parse_lldpcli(&json).unwrap()[0].1.dcb.dcbx,
        Some(PeerDcbx::Cee)
    );
}

/// The switch of `dcbx/` sending `repeat` System Name TLVs of `name` (lldptool's listing).
fn lldptool_names(name: &str, repeat: usize) -> String {
    let whole = lab("dcbx", "lldptool-t-n.txt");
    let names = format!("System Name TLV\n\t{name}\n").repeat(repeat);
    whole.replace("System Name TLV\n\ttor-a\n", &names)
}

#[test]
fn lldptool_refuses_a_tlv_given_twice_a_string_past_its_length_and_unbalanced_ets() {
    let whole = lab("dcbx", "lldptool-t-n.txt");
    // 200,000 System Name TLVs: refused at the second, at once, whatever follows.
    let many = lldptool_names("tor-a", 200_000);
    let started = std::time::Instant::now();
    let error = parse_lldptool(&many).unwrap_err().to_string();
    assert!(started.elapsed() < std::time::Duration::from_secs(1));
    assert_eq!(
        error,
        "line 9: a second System Name TLV: IEEE 802.1AB allows one in an LLDPDU, so which one holds is not known"
    );
    // Each TLV the standard allows once, given twice.
    for header in [
        "Chassis ID TLV\n\tMAC: 02:00:00:00:41:fe\n",
        "Port Description TLV\n\tswp7\n",
        "Time to Live TLV\n\t4\n",
        "IEEE 8021QAZ ETS Configuration TLV\n\t Willing: no\n",
    ] {
        let twice = whole.replace("End of LLDPDU TLV", &format!("{header}End of LLDPDU TLV"));
        let error = parse_lldptool(&twice).unwrap_err().to_string();
        let name = header.lines().next().unwrap();
        assert!(error.contains(&format!("a second {name}")), "{error}");
    }
    // A system name of 100 KB (802.1AB allows 255 bytes), and of exactly 255.
    let long = lldptool_names(&"n".repeat(100 * 1024), 1);
    assert_eq!(
        parse_lldptool(&long).unwrap_err().to_string(),
        "line 7: System Name TLV holds 102400 bytes, more than the 255 IEEE 802.1AB allows"
    );
    let longest = parse_lldptool(&lldptool_names(&"n".repeat(255), 1)).unwrap();
    assert_eq!(longest.unwrap().neighbour.system_name.unwrap().len(), 255);
    for (from, to) in [
        ("\tswp7\n", format!("\t{}\n", "p".repeat(256))),
        (
            "\tMAC: 02:00:00:00:41:fe\n",
            format!("\tLocal: {}\n", "c".repeat(256)),
        ),
        (
            "\tdriftgate lab switch\n",
            format!("\t{}\n", "d".repeat(300)),
        ),
    ] {
        let error = parse_lldptool(&whole.replacen(from, &to, 1))
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("more than the 255 IEEE 802.1AB allows"),
            "{error}"
        );
    }
    // An id of 255 bytes, printed after its subtype, is within its length.
    let local = whole.replacen(
        "\tMAC: 02:00:00:00:41:fe\n",
        &format!("\tLocal: {}\n", "c".repeat(255)),
        1,
    );
    assert!(parse_lldptool(&local).is_ok());
    // ETS bandwidths summing to 180 %, in either ETS TLV.
    let error = parse_lldptool(&whole.replacen("50% 50% 0%", "90% 90% 0%", 1))
        .unwrap_err()
        .to_string();
    assert_eq!(
        error,
        "line 32: IEEE 8021QAZ ETS Configuration TLV: the TC bandwidths sum to 180 %, where IEEE 802.1Qaz has them sum to 100 %"
    );
    let recommended = whole.replace(
        "\t PRIO_MAP:  0:0 1:0 2:0 3:1 4:0 5:0 6:0 7:0 \n\t TC Bandwidth: 50% 50%",
        "\t PRIO_MAP:  0:0 1:0 2:0 3:1 4:0 5:0 6:0 7:0 \n\t TC Bandwidth: 50% 40%",
    );
    let error = parse_lldptool(&recommended).unwrap_err().to_string();
    assert!(
        error.contains("ETS Recommendation TLV: the TC bandwidths sum to 90 %"),
        "{error}"
    );
    // A time to live past its two octets.
    let error = parse_lldptool(&whole.replace("\t4\n", "\t70000\n"))
        .unwrap_err()
        .to_string();
    assert!(error.contains("0-65535"), "{error}");
    // A TLV of more lines than 511 octets can print.
    let endless = whole.replace(
        "End of LLDPDU TLV",
        &format!(
            "LLDP-MED Inventory TLV\n{}End of LLDPDU TLV",
            "\tx\n".repeat(600)
        ),
    );
    let error = parse_lldptool(&endless).unwrap_err().to_string();
    assert!(error.contains("more than 511 lines"), "{error}");
}

#[test]
fn lldpcli_refuses_a_tlv_given_twice_a_string_past_its_length_and_unbalanced_ets() {
    for file in ["lldpcli-json0.json", "lldpcli-json.json"] {
        let whole = lab("dcbx", file);
        let mut doc: serde_json::Value = serde_json::from_str(&whole).unwrap();
        // json keys the chassis by its name (its description then repeats); json0 lists names.
        let list = if file.ends_with("json0.json") {
            "/lldp/0/interface/0/chassis/0/name"
        } else {
            "/lldp/interface/eth1/chassis/tor-a/descr"
        };
        let names: Vec<serde_json::Value> = (0..200_000)
            .map(|_| serde_json::json!({"value": "tor-a"}))
            .collect();
        *doc.pointer_mut(list).unwrap() = serde_json::Value::from(names);
        let with = doc;
        let error = parse_lldpcli(&with.to_string()).unwrap_err().to_string();
        assert!(
            error.contains("is given 200000 times: IEEE 802.1AB allows one in an LLDPDU"),
            "{file}: {error}"
        );
        // A 100 KB system name.
        let long = whole.replace("tor-a", &"n".repeat(100 * 1024));
        let error = parse_lldpcli(&long).unwrap_err().to_string();
        assert!(
            error.contains("the System Name TLV holds 102400 bytes, more than the 255"),
            "{file}: {error}"
        );
        let port = whole.replace("\"swp7\"", &format!("\"{}\"", "p".repeat(256)));
        let error = parse_lldpcli(&port).unwrap_err().to_string();
        assert!(
            error.contains("the Port Description TLV holds 256 bytes"),
            "{file}: {error}"
        );
        // ETS bandwidths summing to 180 %.
        let ets = whole.replace("00,00,01,00,00,32,32,", "00,00,01,00,00,5A,5A,");
        let error = parse_lldpcli(&ets).unwrap_err().to_string();
        assert!(
            error.contains("ETS Configuration TLV (subtype 9): the TC bandwidths sum to 180 %"),
            "{file}: {error}"
        );
        // A key given twice in one object: the port's description.
        let twice = whole.replacen("\"descr\": ", "\"descr\": \"other\", \"descr\": ", 1);
        let error = parse_lldpcli(&twice).unwrap_err().to_string();
        assert!(
            error.contains("key \"descr\" appears twice"),
            "{file}: {error}"
        );
    }
}

proptest::proptest! {
    /// Any listing made of the lab's lines, repeated, dropped and reordered, or of any text:
    /// an answer or an error, never a panic.
    #[test]
    fn lldptool_never_panics_on_its_own_lines_in_any_order(
        picks in proptest::collection::vec(0usize..64, 0..200),
        noise in "\\PC{0,300}",
    ) {
        let whole = lab("dcbx", "lldptool-t-n.txt");
        let lines: Vec<&str> = whole.lines().collect();
        let listing: Vec<&str> = picks.iter().map(|p| lines[p % lines.len()]).collect();
        let _ = parse_lldptool(&listing.join("\n"));
        let _ = parse_lldptool(&noise);
    }

    /// The 802.1Qaz decoder on any bytes of any subtype.
    #[test]
    fn the_8021qaz_decoder_never_panics(subtype in 0u8..16, bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..40)) {
        let _ = tlv::decode(subtype, &bytes);
    }
}
