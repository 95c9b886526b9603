//! Protocol values that the compare engine reasons about, as types.
//!
//! Each enum keeps a value it does not know (`Other`) so that a new firmware spelling still
//! shows up in a diff instead of vanishing. Parsing is case-insensitive and accepts the
//! spellings the sources use; [`fmt::Display`] gives the one normalized spelling that facts
//! carry.
//!
//! Beside them, the small vocabulary that both a reader and a writer of a format share:
//! [`line_index`] (byte offsets to line numbers for messages), [`mockup_dir`] (the folder layout
//! of a Redfish mockup, read by the offline capture and served by the simulator) and [`pin`] (a
//! certificate pin, checked by the client and printed by the simulator), and [`placeholder`] (the
//! texts a source answers where it has no value).

pub mod line_index;
pub mod mockup_dir;
pub mod pin;
pub mod placeholder;

use std::fmt;

/// Declares a fact enum: its normalized spelling, accepted aliases, and an `Other` fallback.
macro_rules! fact_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident = $text:literal $(| $alias:literal)* ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq)]
        pub enum $name {
            $( $(#[$vmeta])* $variant, )+
            /// A spelling driftgate does not know; kept verbatim.
            Other(String),
        }

        impl $name {
            /// Parses a source's spelling, ignoring case; unknown spellings become `Other`.
            pub fn parse(text: &str) -> Self {
                let text = text.trim();
                $(
                    if text.eq_ignore_ascii_case($text) $(|| text.eq_ignore_ascii_case($alias))* {
                        return Self::$variant;
                    }
                )+
                Self::Other(text.to_owned())
            }

            /// The normalized spelling used in facts.
            pub fn as_str(&self) -> &str {
                match self {
                    $( Self::$variant => $text, )+
                    Self::Other(text) => text,
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

fact_enum! {
    /// DCBX mode configured in the NIC's own firmware (HII/BIOS), as the BMC reports it
    /// (`nic/<mac>/bmc/dcbx_mode`).
    pub enum DcbxMode {
        /// IEEE 802.1Qaz DCBX.
        Ieee = "ieee" | "enabled_ieee",
        /// Pre-standard CEE DCBX.
        Cee = "cee" | "enabled_cee",
        /// Both IEEE and CEE offered.
        IeeeCee = "ieee+cee" | "enabled_both_ieee_cee" | "ieee,cee" | "ieee, cee",
        /// DCBX off: the NIC ignores host DCB configuration.
        Disabled = "disabled" | "none",
        /// DCBX on, flavour not reported (NVIDIA's `Oem.Nvidia.LLDP.DCBXModeEnabled` true).
        Enabled = "enabled",
    }
}

fact_enum! {
    /// Whether a device can do something, as a read-only capability flag says it
    /// (iDRAC's `DCBXSupport: "Available"`, `DellNICCapabilities.PriorityFlowControl:
    /// "Supported"`): what marks a flag as a capability when no registry says it is read-only,
    /// and which way a capability changed (`nic/<key>/bmc/**/capability/dcb/<name>`).
    pub enum Availability {
        /// The device can do it.
        Available = "available" | "supported" | "capable",
        /// The device cannot do it.
        Unavailable = "unavailable" | "notavailable" | "not available" | "notsupported"
            | "not supported" | "unsupported" | "notcapable" | "not capable",
    }
}

fact_enum! {
    /// DCBX support an operating system reports for an adapter, in its hardware or current
    /// capability column (`nic/<mac>/os/dcbx_support/{hardware,current}`).
    pub enum DcbxSupport {
        /// No DCBX: the adapter does not act on DCB settings.
        None = "none",
        /// IEEE 802.1Qaz DCBX.
        Ieee = "ieee",
        /// Pre-standard CEE DCBX.
        Cee = "cee",
        /// Both IEEE and CEE.
        IeeeCee = "ieee+cee" | "ieee,cee" | "ieee, cee" | "cee, ieee",
    }
}

fact_enum! {
    /// Who runs DCBX on a port, as the operating system reports it
    /// (`nic/<mac>/os/dcbx_control`): Mellanox `mlnx_qos`'s `DCBX mode:` line or the
    /// iproute2 `dcb dcbx` flags.
    pub enum DcbxControl {
        /// The host sets ETS/PFC (`OS controlled`, the DCBX host bit).
        Os = "os",
        /// The NIC firmware's agent negotiates with the switch and may override the host's
        /// settings (`Firmware controlled`, LLD-managed).
        Firmware = "firmware",
        /// Neither the host nor the firmware runs DCBX (`dcb dcbx` with no mode flag).
        None = "none",
    }
}

fact_enum! {
    /// Which DCBX the other end of a link advertises over LLDP (`nic/<key>/peer/dcbx`).
    pub enum PeerDcbx {
        /// IEEE 802.1Qaz TLVs (ETS, PFC, APP).
        Ieee = "ieee",
        /// Pre-standard CEE DCBX (the 00-1B-21 TLV).
        Cee = "cee",
        /// Neither: the neighbour sends LLDP without any DCBX TLV.
        None = "none",
    }
}

fact_enum! {
    /// What the protocol id of an application priority entry means
    /// (`nic/<key>/peer/app/<selector>/<protocol>`): the IEEE 802.1Qaz APP TLV's selector, or
    /// Windows' classification protocol.
    pub enum AppSelector {
        /// An Ethertype (RoCE v1: 0x8915; FCoE: 0x8906).
        Ethertype = "ethertype",
        /// A TCP (or SCTP) port (SMB Direct over iWARP, iSCSI: 445, 3260).
        Tcp = "tcp",
        /// A UDP (or DCCP) port (RoCE v2: 4791).
        Udp = "udp",
        /// A port over TCP, SCTP, UDP or DCCP.
        TcpUdp = "tcp_udp",
        /// A DSCP value (802.1Q-2014 selector 5).
        Dscp = "dscp",
        /// A Windows NetworkDirect port (SMB Direct: 445).
        NetDirect = "netdirect",
    }
}

impl AppSelector {
    /// The APP TLV's 3-bit selector field (IEEE 802.1Q-2014, D.2.11); 0, 6 and 7 are reserved.
    pub fn from_ieee(selector: u8) -> Self {
        match selector {
            1 => AppSelector::Ethertype,
            2 => AppSelector::Tcp,
            3 => AppSelector::Udp,
            4 => AppSelector::TcpUdp,
            5 => AppSelector::Dscp,
            other => AppSelector::Other(format!("selector-{other}")),
        }
    }

    /// How a protocol id of this selector is written in a fact path: an Ethertype in hex
    /// (`0x8915`), ports and DSCP values in decimal.
    pub fn protocol_text(&self, protocol: u16) -> String {
        match self {
            AppSelector::Ethertype => format!("0x{protocol:04x}"),
            _ => protocol.to_string(),
        }
    }

    /// Whether entries of this selector with `protocol` (as [`AppSelector::protocol_text`]
    /// writes it) carry RDMA storage traffic: RoCE v1 (Ethertype 0x8915), RoCE v2 (UDP
    /// 4791), SMB Direct (port 445) and iSER/iSCSI (port 3260).
    pub fn is_rdma_storage(&self, protocol: &str) -> bool {
        match self {
            AppSelector::Ethertype => protocol.eq_ignore_ascii_case("0x8915"),
            AppSelector::Udp => protocol == "4791",
            AppSelector::Tcp | AppSelector::TcpUdp | AppSelector::NetDirect => {
                matches!(protocol, "445" | "3260" | "4791")
            }
            AppSelector::Dscp | AppSelector::Other(_) => false,
        }
    }
}

fact_enum! {
    /// Flow control (802.3x pause) configured on or negotiated by a port.
    pub enum FlowControl {
        /// No pause frames.
        None = "none",
        /// Sends pause frames.
        Tx = "tx",
        /// Honours received pause frames.
        Rx = "rx",
        /// Both.
        TxRx = "tx_rx" | "txrx" | "tx/rx" | "rx_tx",
    }
}

fact_enum! {
    /// What a NIC firmware's own LLDP agent sends or accepts
    /// (`nic/<mac>/bmc/lldp/nic_agent_mode/{transmit,receive}`, NVIDIA's
    /// `Oem.Nvidia.LLDP.TXMode`/`RXMode`): a mode, not an on/off switch.
    pub enum LldpAgentMode {
        /// The agent does not send (or ignores) LLDP.
        Off = "off",
        /// Only the mandatory TLVs.
        Mandatory = "mandatory",
        /// Every TLV, DCBX's included: the NIC firmware's DCBX needs both directions at `All`.
        All = "all",
    }
}

fact_enum! {
    /// An RDMA protocol a NIC function or adapter supports (`nic/<mac>/bmc/[function/<id>/]
    /// rdma_protocol`), one vocabulary for every source: the Redfish `Protocol` values of
    /// `Ethernet.AdditionalProtocols` (DMTF: `RoCE`, "the InfiniBand Architecture
    /// Specification-defined RDMA over Converged Ethernet Protocol"; `RoCEv2`, its version 2;
    /// `iWARP`, "the RFC5042-defined Internet Wide Area RDMA Protocol"; `InfiniBand`), Dell's
    /// `RDMAProtocolSupport` and HPE's `RDMASupport`.
    pub enum RdmaProtocol {
        /// RoCE (version 1).
        Roce = "roce" | "rocev1" | "roce v1" | "roce_v1",
        /// RoCE version 2 (routable, over UDP/IP).
        RoceV2 = "rocev2" | "roce v2" | "roce_v2" | "roce-v2",
        /// iWARP (over TCP).
        Iwarp = "iwarp",
        /// The InfiniBand transport.
        InfiniBand = "infiniband",
        /// RDMA, the protocol not named (a list that says `RDMA`).
        Rdma = "rdma",
        /// No RDMA protocol.
        None = "none",
    }
}

impl RdmaProtocol {
    /// Whether this names an RDMA protocol: every known one but [`RdmaProtocol::None`], and a
    /// spelling driftgate does not know that names RDMA, RoCE or iWARP (`RDMA over Converged
    /// Ethernet`, kept verbatim).
    pub fn is_rdma(&self) -> bool {
        match self {
            RdmaProtocol::None => false,
            RdmaProtocol::Other(text) => {
                let text = text.to_ascii_lowercase();
                ["rdma", "roce", "iwarp"]
                    .iter()
                    .any(|name| text.contains(name))
            }
            _ => true,
        }
    }
}

fact_enum! {
    /// What a network device function is configured as, or can be (Redfish
    /// `NetworkDeviceTechnology`, the values of NetworkDeviceFunction `NetDevFuncType` and
    /// `NetDevFuncCapabilities`; `nic/<mac>/bmc/function/<id>/function_type`).
    pub enum FunctionType {
        /// "Neither enumerated nor visible to the operating system."
        Disabled = "disabled",
        /// "Appears to the operating system as an Ethernet device."
        Ethernet = "ethernet",
        /// "Appears to the operating system as a Fibre Channel device."
        FibreChannel = "fibre_channel" | "fibrechannel",
        /// "Appears to the operating system as an iSCSI device."
        Iscsi = "iscsi",
        /// "Appears to the operating system as an FCoE device."
        Fcoe = "fcoe" | "fibrechanneloverethernet",
        /// "Appears to the operating system as an InfiniBand device."
        InfiniBand = "infiniband",
    }
}

fact_enum! {
    /// The network technology a port runs (Port `LinkNetworkTechnology`, NetworkPort
    /// `ActiveLinkTechnology`; `nic/<mac>/bmc/link_technology`).
    pub enum LinkTechnology {
        /// Ethernet.
        Ethernet = "ethernet",
        /// InfiniBand.
        InfiniBand = "infiniband",
        /// Fibre Channel.
        FibreChannel = "fibre_channel" | "fibrechannel",
        /// Gen-Z.
        GenZ = "genz",
        /// PCIe and CXL.
        Pcie = "pcie",
    }
}

fact_enum! {
    /// ESXi native multipathing path selection policy (`storage/nmp/<device>/psp`).
    pub enum PathSelectionPolicy {
        /// Round Robin: rotates I/O over paths. Breaks SCSI-3 reservations of MSCS before 5.5.
        RoundRobin = "VMW_PSP_RR",
        /// Most Recently Used: one active path, failover only.
        MostRecentlyUsed = "VMW_PSP_MRU",
        /// Fixed: a preferred path.
        Fixed = "VMW_PSP_FIXED",
    }
}

fact_enum! {
    /// The High Performance Plugin's path selection scheme (`storage/hpp/<device>/pss`, ESXi
    /// 7 and later: `esxcli storage hpp device list`, vSphere's
    /// `HostMultipathInfoHppLogicalUnitPolicy`).
    pub enum PathSelectionScheme {
        /// A preferred path, as NMP's `VMW_PSP_FIXED`.
        Fixed = "FIXED",
        /// Round Robin over paths: what breaks MSCS reservations, as `VMW_PSP_RR`.
        RoundRobin = "LB-RR",
        /// Load balance by outstanding I/O count.
        Iops = "LB-IOPS",
        /// Load balance by outstanding bytes.
        Bytes = "LB-BYTES",
        /// Load balance by path latency.
        Latency = "LB-Latency",
    }
}

/// A MAC address; displayed lower-case and colon-separated (`00:0a:f7:12:34:56`), the join
/// key between what the BMC and the operating system report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MacAddr([u8; 6]);

impl MacAddr {
    /// Parses `00:0A:F7:12:34:56`, `00-0a-f7-12-34-56`, `000a.f712.3456` or `000af7123456`.
    pub fn parse(text: &str) -> Option<Self> {
        let hex: Vec<u8> = text
            .trim()
            .bytes()
            .filter(|b| !matches!(b, b':' | b'-' | b'.'))
            .collect();
        if hex.len() != 12 {
            return None;
        }
        let mut mac = [0u8; 6];
        for (i, byte) in mac.iter_mut().enumerate() {
            let pair = std::str::from_utf8(&hex[2 * i..2 * i + 2]).ok()?;
            *byte = u8::from_str_radix(pair, 16).ok()?;
        }
        Some(MacAddr(mac))
    }

    /// Whether this is the all-zero address some BMCs report for an unknown MAC.
    pub fn is_zero(&self) -> bool {
        self.0 == [0; 6]
    }
}

impl fmt::Display for MacAddr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [a, b, c, d, e, g] = self.0;
        write!(f, "{a:02x}:{b:02x}:{c:02x}:{d:02x}:{e:02x}:{g:02x}")
    }
}

/// A dotted version such as `5.0.0`, compared numerically component by component.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Version(Vec<u64>);

impl Version {
    /// Parses the leading dotted-number part of `text` (`"5.0.0 Update 3"` → `5.0.0`).
    pub fn parse(text: &str) -> Option<Self> {
        let numbers: Vec<u64> = text
            .trim()
            .split(|c: char| !c.is_ascii_digit() && c != '.')
            .next()?
            .split('.')
            .map_while(|part| part.parse().ok())
            .collect();
        (!numbers.is_empty()).then_some(Self(numbers))
    }

    /// A version from its components, e.g. `Version::new(&[5, 5])`.
    pub fn new(components: &[u64]) -> Self {
        Self(components.to_vec())
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self.0.iter().map(u64::to_string).collect();
        f.write_str(&parts.join("."))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_vendor_spellings_and_keeps_unknown_ones() {
        assert_eq!(DcbxMode::parse("Enabled_IEEE"), DcbxMode::Ieee);
        assert_eq!(DcbxMode::parse("Enabled_Both_IEEE_CEE"), DcbxMode::IeeeCee);
        assert_eq!(DcbxMode::parse("Disabled"), DcbxMode::Disabled);
        assert_eq!(
            DcbxMode::parse("Firmware_Managed"),
            DcbxMode::Other("Firmware_Managed".into())
        );
        assert_eq!(DcbxSupport::parse("None"), DcbxSupport::None);
        assert_eq!(DcbxSupport::parse("IEEE"), DcbxSupport::Ieee);
        assert_eq!(
            PathSelectionPolicy::parse("vmw_psp_rr"),
            PathSelectionPolicy::RoundRobin
        );
        assert_eq!(DcbxMode::IeeeCee.to_string(), "ieee+cee");
        assert_eq!(DcbxControl::parse("Firmware"), DcbxControl::Firmware);
        assert_eq!(DcbxControl::Os.as_str(), "os");
        assert_eq!(
            DcbxControl::parse("host"),
            DcbxControl::Other("host".into())
        );
        // iDRAC's capability flags, in HII attributes and DellNICCapabilities.
        for (text, availability) in [
            ("Available", Availability::Available),
            ("Supported", Availability::Available),
            ("Unavailable", Availability::Unavailable),
            ("NotAvailable", Availability::Unavailable),
            ("NotSupported", Availability::Unavailable),
            ("Not Supported", Availability::Unavailable),
        ] {
            assert_eq!(Availability::parse(text), availability, "{text}");
        }
        assert_eq!(
            Availability::parse("Enabled"),
            Availability::Other("Enabled".into())
        );
    }

    #[test]
    fn rdma_protocols_parse_every_source_spelling_and_say_which_are_rdma() {
        use RdmaProtocol as P;
        for (text, parsed, stored, rdma) in [
            // Redfish Protocol values (Ethernet.AdditionalProtocols).
            ("RoCE", P::Roce, "roce", true),
            ("RoCEv2", P::RoceV2, "rocev2", true),
            ("iWARP", P::Iwarp, "iwarp", true),
            ("InfiniBand", P::InfiniBand, "infiniband", true),
            ("RDMA", P::Rdma, "rdma", true),
            ("rdma", P::Rdma, "rdma", true),
            // Vendor spellings (Dell RDMAProtocolSupport, HPE RDMASupport).
            ("None", P::None, "none", false),
            ("RoCE v2", P::RoceV2, "rocev2", true),
            (" ROCE_V2 ", P::RoceV2, "rocev2", true),
            ("RoCEv1", P::Roce, "roce", true),
            // Unknown spellings are kept verbatim; RDMA only when they name it.
            ("TCP", P::Other("TCP".into()), "TCP", false),
            ("UDP", P::Other("UDP".into()), "UDP", false),
            (
                "RDMA over Converged Ethernet",
                P::Other("RDMA over Converged Ethernet".into()),
                "RDMA over Converged Ethernet",
                true,
            ),
            ("", P::Other(String::new()), "", false),
        ] {
            let protocol = P::parse(text);
            assert_eq!(protocol, parsed, "{text:?}");
            assert_eq!(protocol.as_str(), stored, "{text:?}");
            assert_eq!(protocol.is_rdma(), rdma, "{text:?}");
        }
    }

    #[test]
    fn function_types_and_link_technologies_parse_the_schema_values() {
        for (text, parsed, stored) in [
            ("Disabled", FunctionType::Disabled, "disabled"),
            ("Ethernet", FunctionType::Ethernet, "ethernet"),
            ("FibreChannel", FunctionType::FibreChannel, "fibre_channel"),
            ("iSCSI", FunctionType::Iscsi, "iscsi"),
            ("FibreChannelOverEthernet", FunctionType::Fcoe, "fcoe"),
            ("InfiniBand", FunctionType::InfiniBand, "infiniband"),
            ("OEM", FunctionType::Other("OEM".into()), "OEM"),
        ] {
            assert_eq!(FunctionType::parse(text), parsed, "{text}");
            assert_eq!(parsed.as_str(), stored, "{text}");
        }
        for (text, parsed, stored) in [
            ("Ethernet", LinkTechnology::Ethernet, "ethernet"),
            ("InfiniBand", LinkTechnology::InfiniBand, "infiniband"),
            (
                "FibreChannel",
                LinkTechnology::FibreChannel,
                "fibre_channel",
            ),
            ("GenZ", LinkTechnology::GenZ, "genz"),
            ("PCIe", LinkTechnology::Pcie, "pcie"),
            ("UALink", LinkTechnology::Other("UALink".into()), "UALink"),
        ] {
            assert_eq!(LinkTechnology::parse(text), parsed, "{text}");
            assert_eq!(parsed.as_str(), stored, "{text}");
        }
    }

    #[test]
    fn macs_parse_in_every_common_spelling() {
        let mac = MacAddr::parse("E4:3D:1A:13:27:F0").unwrap();
        assert_eq!(mac.to_string(), "e4:3d:1a:13:27:f0");
        for same in ["e4-3d-1a-13-27-f0", "e43d.1a13.27f0", "E43D1A1327F0"] {
            assert_eq!(MacAddr::parse(same), Some(mac), "{same}");
        }
        for bad in [
            "",
            "e4:3d:1a:13:27",
            "zz:3d:1a:13:27:f0",
            "e4:3d:1a:13:27:f0:00",
        ] {
            assert_eq!(MacAddr::parse(bad), None, "{bad}");
        }
        assert!(MacAddr::parse("00:00:00:00:00:00").unwrap().is_zero());
    }

    #[test]
    fn versions_compare_numerically() {
        let v50 = Version::parse("5.0.0").unwrap();
        let v55 = Version::new(&[5, 5]);
        let v510 = Version::parse("5.10").unwrap();
        assert!(v50 < v55);
        assert!(v55 < v510);
        assert_eq!(
            Version::parse("6.7.0 Update 3").unwrap().to_string(),
            "6.7.0"
        );
        assert_eq!(Version::parse("unknown"), None);
    }
}
