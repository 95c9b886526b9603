//! What a vendor attribute driftgate does not normalize is (a BIOS attribute, a NIC HII
//! attribute of any vendor), decided once, by rule, from its name and what its attribute
//! registry says of it. The classes and where their facts go:
//!
//! | class | HII attribute of a port or function | BIOS attribute | default policy |
//! |---|---|---|---|
//! | [`Class::Firmware`] | `firmware/hii/<name>` | `firmware/bios/attribute/<name>` | info |
//! | [`Class::Status`] | `hii/status/<name>` | `bios/status/<name>` | ignore |
//! | [`Class::Dcb`] | `hii/dcb/<name>` | `bios/dcb/<name>` | block |
//! | [`Class::Capability`] | `hii/capability/<name>`, a DCB one `hii/capability/dcb/<name>` | `bios/<name>` | warn; a DCB capability lost blocks |
//! | [`Class::Setting`] | `hii/<name>` | `bios/<name>` | warn |
//!
//! An OEM property of any vendor is classified the same way by the words of its path
//! ([`Class::oem_leaf`], `super::vendors::oem_facts`).
//!
//! The rules, in this order (words are compared whole, case ignored, however the vendor joins
//! them: `LinkStatus`, `Link Status` and `LINK_STATUS` all say "link status"):
//!
//! 1. **Firmware** — a version the firmware reports, changed by every update. With a registry
//!    entry: read-only, of type `String`, not a capability (below), and its name or display
//!    name has a word for a version (`version`, `ver`, `fw`, `firmware`, `bundle`,
//!    `microcode`) or ends in the name of a firmware image (`EFI`, `UEFI`, `MBA`, `PXE`,
//!    `NC-SI`, `boot code`, `option ROM`, `ROM`, `CCM`): `FamilyVersion`, `Broadcom_NCSI`
//!    ("APE FW"), `TpmFirmware`, `Proc1Microcode`. Without one: the name ends in `Version`
//!    after such an image or `firmware`, `family`, `BIOS`, `driver`, `package` or `bundle`
//!    (`…_EFIVersion`, `LANDriverVersion`); `IpVersion` or `DCBXVersion` may be a setting, and
//!    a setting taken for firmware would hide its drift.
//! 2. **Status** — a value that changes by itself, not by configuration. A read-only entry
//!    whose name or display name says link status or state, link speed, current or
//!    negotiated speed, `count`, `counter`, `time`, `date`, `negotiated`, `temperature`,
//!    `uptime`, `timestamp` or `last` (not `status`, `state` or `speed` alone: a read-only
//!    `PasswordStatus` or `TpmStatus` mirrors a setting made elsewhere);
//!    without an entry, a name that says link status or state, current or negotiated (link)
//!    speed, temperature, timestamp, uptime, date-time, counter or `last` (`…_LinkStatus`,
//!    `…_CurrentLinkSpeed`, `LastBootTime`). A writable entry is never status.
//! 3. **Capability** — what the device can do, which changes with hardware or firmware: a
//!    name or display name ending in `support`, `supported`, `capable`, `capability` or
//!    `capabilities` (`DCBXSupport`, `iSCSIDualIPVersionSupport`) whose registry entry is
//!    read-only or absent; and, once the value is known ([`with_value`]), a flag saying
//!    `Available`/`Unavailable`, `Supported`/`NotSupported` that no registry says is writable
//!    (`PriorityFlowControl: "Available"` on iDRAC). A DCB capability when its name or display
//!    name says DCB (below): its loss blocks (the compare crate judges which way it went). A
//!    writable `…Support` is a switch (`Vendor_PFCSupport: Enabled`), judged by what it
//!    switches. Any other read-only entry is a setting made elsewhere, reported.
//! 4. **DCB** — a setting driftgate does not normalize that its name, display name or help
//!    text says is about DCB: `DCBX`, `DCB`, data center bridging, `PFC`, priority flow
//!    control, `ETS`, enhanced transmission selection, `LLDP`, flow control, RoCE (congestion),
//!    RoCEv2, `RDMA`, trusted QoS, trusted CoS, CoS, class of service, `FIP`, `FCoE`,
//!    congestion control or notification, `DCQCN`, `QCN` (`ETS` is not in `SETS`, nor QoS alone
//!    in `SgxQos`; `DCBX`, `LLDP` and `RDMA` are found inside a word too, `DCBXMODE`,
//!    `RDMANICMode`). It fails safe: it blocks when it changes, and the capture says what
//!    recognised it so that the spelling can be normalized.
//! 5. Anything else is a **setting**.

mod class;
mod known;
mod registry;
mod words;

use driftgate_model::Availability;

use class::Learned;
pub use class::{Class, Field, Recognised};
pub use known::{Arriving, KnownRegistries};
pub use registry::{AttributeType, ENTRY_MEMBERS, Entry, Registry};
use words::Words;

/// Words that name a version.
const VERSION: &[&str] = &["version", "ver", "fw", "firmware", "bundle", "microcode"];

/// Firmware images whose name alone, ending a read-only text, names their version.
const IMAGES: &[&str] = &[
    "efi",
    "uefi",
    "mba",
    "pxe",
    "ncsi",
    "bootcode",
    "optionrom",
    "rom",
    "ccm",
];

/// What, besides an [`IMAGES`] name, makes a name ending in `Version` a version without a
/// registry.
const VERSIONED: &[&str] = &["firmware", "family", "bios", "driver", "package", "bundle"];

/// The last word of a capability.
const CAPABILITY: &[&str] = &[
    "support",
    "supported",
    "capable",
    "capability",
    "capabilities",
];

/// Terms that make a value status by themselves.
const STATUS_PLAIN: &[&str] = &[
    "linkstatus",
    "linkstate",
    "currentlinkspeed",
    "currentspeed",
    "negotiatedlinkspeed",
    "negotiatedspeed",
    "temperature",
    "timestamp",
    "uptime",
    "datetime",
    "counter",
    "counters",
    "last",
];

/// Terms that make a read-only value status. Not `status`, `state` or `speed` alone: a
/// read-only attribute may mirror a setting made elsewhere (iDRAC's `PasswordStatus` set by a
/// jumper, `CpuInterconnectBusSpeed` by the system profile, `TpmStatus`), which an update can
/// change and which must stay in view.
const STATUS_READ_ONLY: &[&str] = &[
    "linkspeed",
    "lnkspeed",
    "lnkstatus",
    "count",
    "time",
    "date",
    "negotiated",
];

/// DCB terms (joined words) and how an operator reads them.
const DCB: &[(&str, &str)] = &[
    ("dcbx", "DCBX"),
    ("dcb", "DCB"),
    ("datacenterbridging", "data center bridging"),
    ("pfc", "PFC"),
    ("priorityflowcontrol", "priority flow control"),
    ("ets", "ETS"),
    (
        "enhancedtransmissionselection",
        "enhanced transmission selection",
    ),
    ("lldp", "LLDP"),
    ("flowcontrol", "flow control"),
    ("rocecongestion", "RoCE congestion"),
    ("congestioncontrol", "congestion control"),
    ("congestionnotification", "congestion notification"),
    ("dcqcn", "DCQCN"),
    ("qcn", "QCN"),
    ("roce", "RoCE"),
    ("rocev2", "RoCEv2"),
    ("rdma", "RDMA"),
    ("trustedqos", "trusted QoS"),
    ("trustedcos", "trusted CoS"),
    ("cos", "CoS"),
    ("classofservice", "class of service"),
    ("fip", "FIP"),
    ("fcoe", "FCoE"),
];

/// DCB terms no other word contains, found inside a word too (`DCBXMODE`, `RDMANICMode`).
const DCB_WITHIN: &[(&str, &str)] = &[("dcbx", "DCBX"), ("lldp", "LLDP"), ("rdma", "RDMA")];

/// The class of the attribute `name` as `registry` says of it: worked out once per registry
/// entry, which every resource of a BMC naming the registry shares, and so does every BMC of
/// the run that serves the same registry ([`KnownRegistries`]).
pub fn classify_in<'a>(registry: Option<&'a Registry>, name: &'a str) -> Class<'a> {
    match registry.and_then(|registry| registry.entry(name)) {
        Some(entry) => entry
            .class
            .get_or_init(|| Learned::of(classify(name, Some(entry))))
            .class(
                name,
                (entry.display_name.as_deref(), entry.help_text.as_deref()),
            ),
        None => classify(name, None),
    }
}

/// [`classify_in`] with the attribute's `value`: see [`with_value`].
pub fn classify_value<'a>(
    registry: Option<&'a Registry>,
    name: &'a str,
    value: &serde_json::Value,
) -> Class<'a> {
    let entry = registry.and_then(|registry| registry.entry(name));
    with_value(classify_in(registry, name), name, entry, value)
}

/// The class of the attribute `name` (of registry entry `entry`), `class` by its name, once its
/// `value` is known: a flag that says `Available` or `Unavailable` (`Supported`,
/// `NotSupported`…, [`Availability`]) reports what the device can do, so one that no registry
/// says is writable is a capability (iDRAC's `PriorityFlowControl: "Available"`), whatever its
/// name.
pub fn with_value<'a>(
    class: Class<'a>,
    name: &'a str,
    entry: Option<&'a Entry>,
    value: &serde_json::Value,
) -> Class<'a> {
    let flag = value
        .as_str()
        .is_some_and(|text| !matches!(Availability::parse(text), Availability::Other(_)));
    match class {
        Class::Setting | Class::Dcb(_) if flag && entry.is_none_or(|e| e.read_only) => {
            Class::Capability(dcb_term(name, entry, false))
        }
        class => class,
    }
}

/// The class of the attribute `name` (a vendor's port prefix or MAC token may be removed
/// first), with `entry` its registry entry when the registry has one.
pub fn classify<'a>(name: &'a str, entry: Option<&'a Entry>) -> Class<'a> {
    let name_words = Words::of(name);
    let display = entry.and_then(|e| e.display_name.as_deref()).map(Words::of);
    let said = || std::iter::once(&name_words).chain(display.as_ref());
    let capability = said().any(|words| words.last_is(CAPABILITY));
    if !capability && reports_version(&name_words, display.as_ref(), entry) {
        return Class::Firmware;
    }
    let status = match entry {
        Some(entry) => {
            entry.read_only
                && said().any(|words| {
                    STATUS_PLAIN
                        .iter()
                        .chain(STATUS_READ_ONLY)
                        .any(|term| words.has(term))
                })
        }
        None => STATUS_PLAIN.iter().any(|term| name_words.has(term)),
    };
    if status {
        return Class::Status;
    }
    // A capability reports what the device can do: named so, read-only in a registry or
    // where no registry tells. A writable `…PFCSupport` is a switch: it is judged by what it
    // switches. Any other read-only entry reports a setting made elsewhere.
    let read_only = entry.is_some_and(|e| e.read_only);
    if capability && (entry.is_none() || read_only) {
        return Class::Capability(dcb_term(name, entry, false));
    }
    if read_only {
        return Class::Setting;
    }
    dcb_term(name, entry, true).map_or(Class::Setting, Class::Dcb)
}

/// The DCB term that the attribute `name`'s name, registry display name or (with `help`) help
/// text holds, in that order. A capability is judged by its name and display name only: the
/// help text of `SRIOVSupport` may well mention RDMA.
fn dcb_term<'a>(name: &'a str, entry: Option<&'a Entry>, help: bool) -> Option<Recognised<'a>> {
    let recognised = |field, text, words: &Words| {
        DCB.iter()
            .find(|(term, _)| words.has(term))
            .or_else(|| DCB_WITHIN.iter().find(|(term, _)| words.within(term)))
            .map(|&(_, term)| Recognised { field, text, term })
    };
    recognised(Field::Name, name, &Words::of(name))
        .or_else(|| {
            let text = entry.and_then(|e| e.display_name.as_deref())?;
            recognised(Field::DisplayName, text, &Words::of(text))
        })
        // The help text, the longest, is split into words only for the attributes nothing
        // before has decided.
        .or_else(|| {
            let text = entry.filter(|_| help)?.help_text.as_deref()?;
            recognised(Field::HelpText, text, &Words::of(text))
        })
}

/// Whether the last words of the attribute name `name`, joined, are `term` (lower case, no
/// separators): `PCIE_SLOT_1_Port1_DCBX_Mode` and `…_DCBXMode` end in `dcbxmode`,
/// `…_DCBXVersionSupport` does not end in `dcbx`.
pub fn name_ends_with(name: &str, term: &str) -> bool {
    Words::of(name).ends_with(term)
}

/// Rule 1 of the module documentation.
fn reports_version(name: &Words, display: Option<&Words>, entry: Option<&Entry>) -> bool {
    match entry {
        Some(entry) => {
            entry.read_only
                && entry.kind == Some(AttributeType::String)
                && std::iter::once(name).chain(display).any(|words| {
                    VERSION.iter().any(|word| words.has(word))
                        || IMAGES.iter().any(|image| words.ends_with(image))
                })
        }
        None => IMAGES
            .iter()
            .chain(VERSIONED)
            .any(|before| name.ends_with(&format!("{before}version"))),
    }
}

#[cfg(test)]
mod tests;
