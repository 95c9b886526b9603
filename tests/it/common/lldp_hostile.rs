//! LLDP answers no LLDPDU can carry, as `lldp=dir:` recordings of either agent: the lab
//! switch of `tests/fixtures/lldp/dcbx` (port `eth1`) sending 200,000 System Name TLVs, a
//! system name of 100 KB (IEEE 802.1AB allows 255 bytes), or ETS bandwidths summing to 180 %.

use std::path::Path;

/// Which agent's output the recording holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Agent {
    /// Open-LLDP's `lldptool -t -n -i eth1` (`lldptool-eth1.txt`).
    Lldptool,
    /// lldpd's `lldpcli -f json0 show neighbors details` (`lldpcli-neighbors.json`; no
    /// lldptool recorded, so lldpad is taken to be absent).
    Lldpcli,
}

/// What is wrong with the neighbour's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Attack {
    /// 200,000 System Name TLVs.
    RepeatedName,
    /// A system name of 100 KB.
    LongName,
    /// ETS Configuration bandwidths 90 % and 90 %.
    Ets180,
}

/// A recording folder of `agent` answering with `attack`.
pub(crate) fn recording(agent: Agent, attack: Attack) -> tempfile::TempDir {
    let fixtures = super::root().join("tests/fixtures/lldp");
    let dir = tempfile::tempdir().expect("a temporary directory");
    std::fs::copy(
        fixtures.join("ip-link.json"),
        dir.path().join("ip-link.json"),
    )
    .expect("ip-link.json");
    let read = |file: &str| std::fs::read_to_string(fixtures.join("dcbx").join(file)).unwrap();
    match agent {
        Agent::Lldptool => write(
            dir.path(),
            "lldptool-eth1.txt",
            &lldptool(&read("lldptool-t-n.txt"), attack),
        ),
        Agent::Lldpcli => write(
            dir.path(),
            "lldpcli-neighbors.json",
            &lldpcli(&read("lldpcli-json0.json"), attack),
        ),
    }
    dir
}

fn write(dir: &Path, file: &str, text: &str) {
    std::fs::write(dir.join(file), text).expect("writable");
}

fn lldptool(listing: &str, attack: Attack) -> String {
    let name = "System Name TLV\n\ttor-a\n";
    assert!(listing.contains(name));
    match attack {
        Attack::RepeatedName => listing.replace(name, &name.repeat(200_000)),
        Attack::LongName => listing.replace(
            name,
            &format!("System Name TLV\n\t{}\n", "n".repeat(100 * 1024)),
        ),
        Attack::Ets180 => listing.replacen("TC Bandwidth: 50% 50%", "TC Bandwidth: 90% 90%", 1),
    }
}

fn lldpcli(json0: &str, attack: Attack) -> String {
    match attack {
        Attack::RepeatedName => {
            let mut doc: serde_json::Value = serde_json::from_str(json0).expect("JSON");
            let names = doc
                .pointer_mut("/lldp/0/interface/0/chassis/0/name")
                .expect("the chassis's name");
            *names = serde_json::Value::from(vec![serde_json::json!({"value": "tor-a"}); 200_000]);
            doc.to_string()
        }
        Attack::LongName => json0.replace("\"tor-a\"", &format!("\"{}\"", "n".repeat(100 * 1024))),
        // The ETS Configuration TLV's bandwidth bytes, 0x32 0x32 (50 %, 50 %) → 0x5A 0x5A.
        Attack::Ets180 => json0.replacen("00,00,01,00,00,32,32,", "00,00,01,00,00,5A,5A,", 1),
    }
}
