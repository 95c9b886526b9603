//! `ip -j -d link show`: the host's interfaces, from which the capture picks physical ports.

use serde::Deserialize;

use super::output::{from_json, non_empty};
use crate::lines::ParseError;

/// A network interface from `ip -j -d link show`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link {
    /// Interface name (`ifname`).
    pub name: String,
    /// Link layer type (`link_type`): `ether`, `loopback`, `infiniband`, ….
    pub link_type: String,
    /// Current hardware address; on a bond port it is the bond's, not the port's own.
    pub address: Option<String>,
    /// The burned-in address (`permaddr`); ip prints it only when it differs from `address`,
    /// so it is the stable identity of a bond port whose address the bond rewrote.
    pub permanent_address: Option<String>,
    /// Virtual device kind (`linkinfo.info_kind`): `bond`, `vlan`, `bridge`, …; `None` for a
    /// physical port, including one enslaved to a bond (that has only `info_slave_kind`).
    pub kind: Option<String>,
    /// The bond or bridge this interface is enslaved to (`master`).
    pub master: Option<String>,
    /// Interface flags as ip prints them (`UP`, `LOWER_UP`, `SLAVE`, …).
    pub flags: Vec<String>,
    /// MTU in bytes, when printed.
    pub mtu: Option<u32>,
}

#[derive(Deserialize)]
struct RawLink {
    ifname: String,
    link_type: String,
    address: Option<String>,
    permaddr: Option<String>,
    linkinfo: Option<RawLinkInfo>,
    master: Option<String>,
    #[serde(default)]
    flags: Vec<String>,
    mtu: Option<u32>,
}

#[derive(Deserialize)]
struct RawLinkInfo {
    info_kind: Option<String>,
}

/// Parses `ip -j -d link show` (also without `-d`, which only lacks `kind`): an array of
/// interface objects, each name once.
pub fn parse_ip_link(text: &str) -> Result<Vec<Link>, ParseError> {
    let raw: Vec<RawLink> = from_json(text, "ip link JSON")?;
    // The kernel's rule for interface names (dev_valid_name): the per-port commands and their
    // recorded files are named after them, so anything else is damage or a hostile recording.
    if let Some(bad) = raw.iter().find(|l| {
        let name = l.ifname.as_str();
        name.is_empty()
            || name.len() > 15
            || name == "."
            || name == ".."
            || name.contains(['/', ':'])
            || name.chars().any(char::is_whitespace)
    }) {
        return Err(ParseError::whole(format!(
            "{:?} is not a Linux interface name",
            bad.ifname
        )));
    }
    let mut names = std::collections::BTreeSet::new();
    if let Some(twice) = raw.iter().find(|l| !names.insert(l.ifname.as_str())) {
        // Interface names are unique on a host: the per-port commands are keyed by them.
        return Err(ParseError::whole(format!(
            "interface {:?} listed twice",
            twice.ifname
        )));
    }
    Ok(raw
        .into_iter()
        .map(|l| Link {
            name: l.ifname,
            link_type: l.link_type,
            address: non_empty(l.address),
            permanent_address: non_empty(l.permaddr),
            kind: non_empty(l.linkinfo.and_then(|i| i.info_kind)),
            master: non_empty(l.master),
            flags: l.flags,
            mtu: l.mtu,
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linux::parse::tests::{
        assert_broken, assert_truncated_json_fails_at_its_last_line, parsed, strings,
    };

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
    fn broken_inputs_name_the_line() {
        assert_broken(&[
            (
                "ip link",
                "[{\"ifname\":\"eth0\",\"link_type\":\"ether\"},\n {\"ifname\":\"eth0\",\"link_type\":\"ether\"}]",
                0,
                "interface \"eth0\" listed twice",
            ),
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
            (
                "ip link",
                "[{\"ifname\":\"../../etc\",\"link_type\":\"ether\"}]",
                0,
                "\"../../etc\" is not a Linux interface name",
            ),
            (
                "ip link",
                "[{\"ifname\":\"eth 0\",\"link_type\":\"ether\"}]",
                0,
                "is not a Linux interface name",
            ),
        ]);
    }

    #[test]
    fn truncated_json_fails_at_its_last_line() {
        assert_truncated_json_fails_at_its_last_line("ip link", "ip-link-detail.json", 40);
    }
}
