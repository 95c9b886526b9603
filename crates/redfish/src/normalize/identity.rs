//! What names an adapter, a port, a device function or an interface in facts, whatever
//! number the BMC gives it.
//!
//! A member whose `Id` is a stable name (a Dell FQDD `NIC.Slot.3-1-1`, NVIDIA's `CX7_0`,
//! Lenovo's `slot-1`) is named by it. A member whose `Id` is a bare number (`Ports/1`,
//! `NetworkDeviceFunctions/0`) is named by its position in the BMC's collection, which a BMC
//! renumbers at will (a firmware update of the BMC, a reset, a card added): the number is no
//! identity, so such a member is named by what the hardware says about itself instead:
//!
//! - an adapter by its `Location.PartLocation.ServiceLabel` (`PCI-E Slot 1`), else its
//!   `SerialNumber`;
//! - a port by its `PortId` (Port: "the hardware-defined identifier of this port"), else its
//!   `PhysicalPortNumber` (NetworkPort: "the physical port number on the network adapter
//!   hardware"), else its `Location.PartLocation.ServiceLabel`;
//! - a device function by its `Ethernet.PermanentMACAddress` (else `MACAddress`), else its
//!   `InfiniBand.PermanentPortGUID` (else `PortGUID`), else its `FibreChannel.PermanentWWPN`
//!   (else `WWPN`): what the function is to the operating system. A function is named so
//!   whatever its `Id`: a BMC renames functions as readily as it renumbers them (a firmware
//!   update of the BMC turns `eth0f0` into `p0f0`, `1.1` into `F1`), so even a name is no
//!   identity of a function. Only a function with none of these is named by its `Id`.
//!
//! A numbered member with none of these has only its number ([`Identity::Numbered`]): a key
//! built from it (a port without a MAC) keeps the number and the capture says it can change;
//! an identity fact (`adapter`, `port`) is left out rather than record a number as a name.

use serde_json::Value;

use super::properties::{function_mac, id_of};
use driftgate_model::placeholder;

/// The name of a resource in facts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Identity {
    /// Its `Id`, a stable name.
    Id(String),
    /// What the hardware says about a resource whose `Id` is a number.
    Hardware(String),
    /// Nothing stable: the BMC's number, which a renumbering changes.
    Numbered(String),
}

impl Identity {
    /// The name, stable or not (for a key that must exist).
    pub(super) fn name(&self) -> &str {
        match self {
            Identity::Id(name) | Identity::Hardware(name) | Identity::Numbered(name) => name,
        }
    }

    /// The name when it is stable (for an identity fact).
    pub(super) fn stable(&self) -> Option<&str> {
        match self {
            Identity::Id(name) | Identity::Hardware(name) => Some(name),
            Identity::Numbered(_) => None,
        }
    }

    /// An order of resources that no renumbering changes (but for those with nothing
    /// stable, last): `Id`s in natural order (`F2` before `F10`, `NIC.Slot.3-1-1` before
    /// `NIC.Slot.3-1-2`), then hardware identities as text (fixed-width MACs and GUIDs: the
    /// lowest first), then bare numbers.
    pub(super) fn order(&self) -> (u8, Vec<(String, u64)>) {
        match self {
            Identity::Id(name) => (0, natural(name)),
            Identity::Hardware(name) => (1, vec![(name.clone(), 0)]),
            Identity::Numbered(number) => (2, natural(number)),
        }
    }
}

/// Whether an `Id` is a bare number, a position the BMC may renumber.
pub(super) fn is_numbered(id: &str) -> bool {
    !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit())
}

/// The identity of a network adapter.
pub(super) fn adapter(adapter: &Value) -> Identity {
    of(
        adapter,
        &[
            &["Location", "PartLocation", "ServiceLabel"],
            &["SerialNumber"],
        ],
    )
}

/// The identity of a `Port` or a `NetworkPort`.
pub(super) fn port(port: &Value) -> Identity {
    of(
        port,
        &[
            &["PortId"],
            &["PhysicalPortNumber"],
            &["Location", "PartLocation", "ServiceLabel"],
        ],
    )
}

/// The identity of a network device function: what the hardware says, else its `Id`.
pub(super) fn function(function: &Value) -> Identity {
    let id = id_of(function);
    let mac = function_mac(function).map(|mac| mac.to_string());
    mac.or_else(|| {
        text_at(
            function,
            &[
                &["InfiniBand", "PermanentPortGUID"],
                &["InfiniBand", "PortGUID"],
                &["FibreChannel", "PermanentWWPN"],
                &["FibreChannel", "WWPN"],
            ],
        )
        .map(|text| text.to_ascii_lowercase())
    })
    .map_or_else(|| by_id(id), Identity::Hardware)
}

/// A resource named by its `Id`: a name, or a number.
pub(super) fn by_id(id: String) -> Identity {
    if is_numbered(&id) {
        Identity::Numbered(id)
    } else {
        Identity::Id(id)
    }
}

/// The `Id` when it is a name; else the first of `paths` that holds text.
fn of(resource: &Value, paths: &[&[&str]]) -> Identity {
    let id = id_of(resource);
    if !is_numbered(&id) {
        return Identity::Id(id);
    }
    text_at(resource, paths).map_or(Identity::Numbered(id), Identity::Hardware)
}

/// The first of `paths` in `resource` that holds text other than a placeholder (`"N/A"`, a
/// serial number of `"Unknown"` names no adapter), trimmed.
fn text_at(resource: &Value, paths: &[&[&str]]) -> Option<String> {
    paths.iter().find_map(|path| {
        path.iter()
            .fold(resource, |value, key| &value[*key])
            .as_str()
            .and_then(placeholder::value)
            .map(str::trim)
            .map(str::to_owned)
    })
}

/// A natural sort key: runs of digits compare as numbers (`F2` before `F10`).
pub(super) fn natural(id: &str) -> Vec<(String, u64)> {
    let mut key = Vec::new();
    let mut text = String::new();
    let mut chars = id.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_ascii_digit() {
            let mut number = u64::from(c.to_digit(10).unwrap_or(0));
            while let Some(d) = chars.peek().and_then(|d| d.to_digit(10)) {
                number = number.saturating_mul(10).saturating_add(u64::from(d));
                chars.next();
            }
            key.push((std::mem::take(&mut text), number));
        } else {
            text.push(c);
        }
    }
    key.push((text, u64::MAX));
    key
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_name_is_its_own_identity_and_a_number_gives_way_to_what_the_hardware_says() {
        for (resource, identity) in [
            // Names stay, whatever else the resource says.
            (
                adapter(&json!({"Id": "NIC.Slot.3", "SerialNumber": "X"})),
                Identity::Id("NIC.Slot.3".into()),
            ),
            (
                port(&json!({"Id": "NIC.Slot.3-1", "PhysicalPortNumber": "1"})),
                Identity::Id("NIC.Slot.3-1".into()),
            ),
            // A function is what the hardware says, whatever its name.
            (
                function(&json!({"Id": "NIC.Slot.3-1-1",
                    "Ethernet": {"PermanentMACAddress": "00:0A:F7:12:34:56"}})),
                Identity::Hardware("00:0a:f7:12:34:56".into()),
            ),
            (
                function(&json!({"Id": "FC.Slot.2-1",
                    "FibreChannel": {"PermanentWWPN": "20:00:00:0E:1E:C2:2F:10"}})),
                Identity::Hardware("20:00:00:0e:1e:c2:2f:10".into()),
            ),
            (
                function(&json!({"Id": "FC.Slot.2-1"})),
                Identity::Id("FC.Slot.2-1".into()),
            ),
            // Numbers give way to the location, the serial number, the hardware port id.
            (
                adapter(&json!({"Id": "1", "SerialNumber": "MT2139X",
                    "Location": {"PartLocation": {"ServiceLabel": "PCI-E Slot 1"}}})),
                Identity::Hardware("PCI-E Slot 1".into()),
            ),
            (
                adapter(&json!({"Id": "1", "SerialNumber": " MT2139X ",
                    "Location": {"PartLocation": {"ServiceLabel": ""}}})),
                Identity::Hardware("MT2139X".into()),
            ),
            (
                port(&json!({"Id": "7", "PortId": "1", "PhysicalPortNumber": "2"})),
                Identity::Hardware("1".into()),
            ),
            (
                port(&json!({"Id": "7", "PortId": null, "PhysicalPortNumber": "2"})),
                Identity::Hardware("2".into()),
            ),
            // A function: its MAC, else its InfiniBand GUID, else its Fibre Channel WWPN.
            (
                function(&json!({"Id": "0", "Ethernet": {"MACAddress": "02:5A:D0:00:01:00"}})),
                Identity::Hardware("02:5a:d0:00:01:00".into()),
            ),
            (
                function(
                    &json!({"Id": "3", "Ethernet": {"PermanentMACAddress": "00:00:00:00:00:00"},
                    "InfiniBand": {"PermanentPortGUID": "0xB83FD20300A41BD2"}}),
                ),
                Identity::Hardware("0xb83fd20300a41bd2".into()),
            ),
            (
                function(&json!({"Id": "3", "FibreChannel": {"WWPN": "20:00:00:0E:1E:C2:2F:10"}})),
                Identity::Hardware("20:00:00:0e:1e:c2:2f:10".into()),
            ),
            // Nothing stable: the number, marked as such.
            (adapter(&json!({"Id": "1"})), Identity::Numbered("1".into())),
            (
                port(&json!({"Id": "2", "PortId": 2})),
                Identity::Numbered("2".into()),
            ),
            (
                function(&json!({"Id": "4", "Ethernet": {"MACAddress": "not a MAC"}})),
                Identity::Numbered("4".into()),
            ),
        ] {
            assert_eq!(resource, identity);
        }
    }

    #[test]
    fn only_a_bare_number_is_numbered() {
        for (id, numbered) in [
            ("1", true),
            ("016", true),
            ("", false),
            ("slot-1", false),
            ("CX7_0", false),
            ("-1", false),
            ("1.0", false),
        ] {
            assert_eq!(is_numbered(id), numbered, "{id:?}");
        }
    }

    #[test]
    fn the_order_puts_names_naturally_first_and_hardware_identities_by_value() {
        let mut ids = [
            Identity::Hardware("02:00:00:00:00:0b".into()),
            Identity::Id("F10".into()),
            Identity::Numbered("3".into()),
            Identity::Hardware("02:00:00:00:00:0a".into()),
            Identity::Id("F2".into()),
        ];
        ids.sort_by_key(Identity::order);
        let names: Vec<&str> = ids.iter().map(Identity::name).collect();
        assert_eq!(
            names,
            ["F2", "F10", "02:00:00:00:00:0a", "02:00:00:00:00:0b", "3"]
        );
    }
}
