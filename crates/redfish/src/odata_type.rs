//! What a link must lead to: the resource type (`@odata.type`) the crawl expects at each step.
//! Pure: no I/O.
//!
//! The crawl reads what a link leads to as what the link promised: a `Ports` collection that
//! lists itself or the service root would otherwise yield ports made of a collection and a
//! service root. Redfish requires `@odata.type` in every resource; its last segment names the
//! type (`#Port.v1_11_0.Port` → `Port`, `#PortCollection.PortCollection` →
//! `PortCollection`). A resource without one, or of another type, is not read as the one the
//! link promised: the capture is partial, naming the URI and where the link was.

use serde_json::Value;

use super::links::{ShapeError, describe};

/// A Redfish resource type, by the name its `@odata.type` ends with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TypeName(&'static str);

impl TypeName {
    /// `ServiceRoot`.
    pub const SERVICE_ROOT: TypeName = TypeName("ServiceRoot");
    /// `ComputerSystem`.
    pub const COMPUTER_SYSTEM: TypeName = TypeName("ComputerSystem");
    /// `EthernetInterface`.
    pub const ETHERNET_INTERFACE: TypeName = TypeName("EthernetInterface");
    /// `Bios`.
    pub const BIOS: TypeName = TypeName("Bios");
    /// `Chassis`.
    pub const CHASSIS: TypeName = TypeName("Chassis");
    /// `NetworkAdapter`.
    pub const NETWORK_ADAPTER: TypeName = TypeName("NetworkAdapter");
    /// `Port` (the current schema of a physical port).
    pub const PORT: TypeName = TypeName("Port");
    /// `NetworkPort` (its deprecated schema).
    pub const NETWORK_PORT: TypeName = TypeName("NetworkPort");
    /// `NetworkDeviceFunction`.
    pub const NETWORK_DEVICE_FUNCTION: TypeName = TypeName("NetworkDeviceFunction");
    /// `UpdateService`.
    pub const UPDATE_SERVICE: TypeName = TypeName("UpdateService");
    /// `SoftwareInventory` (a firmware inventory entry).
    pub const SOFTWARE_INVENTORY: TypeName = TypeName("SoftwareInventory");
    /// `PCIeDevice` (a NIC's PCIe device: its `FirmwareVersion`, what an inventory entry
    /// may relate to).
    pub const PCIE_DEVICE: TypeName = TypeName("PCIeDevice");
    /// `PCIeFunction` (one function of a PCIe device, linked to network device functions).
    pub const PCIE_FUNCTION: TypeName = TypeName("PCIeFunction");
    /// `MessageRegistryFile` (a `Registries` entry).
    pub const MESSAGE_REGISTRY_FILE: TypeName = TypeName("MessageRegistryFile");
    /// `AttributeRegistry`.
    pub const ATTRIBUTE_REGISTRY: TypeName = TypeName("AttributeRegistry");

    /// A vendor's type (Dell `DellNetworkAttributes`).
    pub const fn oem(name: &'static str) -> TypeName {
        TypeName(name)
    }
}

/// What a link must lead to.
#[derive(Debug, Clone, Copy)]
pub enum Expect {
    /// A resource of one of these types.
    OneOf(&'static [TypeName]),
    /// A collection of resources of this type (`PortCollection` for [`TypeName::PORT`]).
    CollectionOf(TypeName),
}

impl Expect {
    /// A resource of `name`.
    pub const fn one(name: &'static TypeName) -> Expect {
        Expect::OneOf(std::slice::from_ref(name))
    }

    fn fits(self, name: &str) -> bool {
        match self {
            Expect::OneOf(names) => names.iter().any(|expected| expected.0 == name),
            Expect::CollectionOf(member) => name.strip_suffix("Collection") == Some(member.0),
        }
    }

    fn describe(self) -> String {
        match self {
            Expect::OneOf(names) => {
                let names: Vec<&str> = names.iter().map(|name| name.0).collect();
                format!("a resource of type {}", names.join(" or "))
            }
            Expect::CollectionOf(member) => format!("a resource of type {}Collection", member.0),
        }
    }
}

/// Whether `resource`, read from `uri` through the link `via` describes (`Members/0 of
/// /redfish/v1/Chassis`), is what `expect` says; else what is wrong, naming both.
pub fn check(
    uri: &str,
    resource: &Value,
    expect: Expect,
    via: impl FnOnce() -> String,
) -> Result<(), ShapeError> {
    let given = &resource["@odata.type"];
    if given
        .as_str()
        .and_then(type_name)
        .is_some_and(|name| expect.fits(name))
    {
        return Ok(());
    }
    Err(ShapeError {
        uri: uri.to_owned(),
        property: "@odata.type".to_owned(),
        expected: format!("{} ({})", expect.describe(), via()),
        found: match given {
            Value::Null => "absent".to_owned(),
            // Whole, unlike other strings: `#PortCollection.PortCollection` cut at 40
            // characters would not say which type it is (a hostile one stays bounded).
            Value::String(name) if name.chars().count() <= 100 => format!("the string {name:?}"),
            other => describe(other),
        },
    })
}

/// The type an `@odata.type` names: its last `.`-separated segment, without the `#`.
fn type_name(odata_type: &str) -> Option<&str> {
    let name = odata_type.rsplit('.').next()?.trim_start_matches('#');
    (!name.is_empty()).then_some(name)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_last_segment_of_odata_type_names_the_type() {
        let port = json!({"@odata.type": "#Port.v1_11_0.Port"});
        let ports = json!({"@odata.type": "#PortCollection.PortCollection"});
        let root = json!({"@odata.type": "#ServiceRoot.v1_17_0.ServiceRoot"});
        let via = || "Members/1 of /p".to_owned();
        assert_eq!(
            check("/p/1", &port, Expect::one(&TypeName::PORT), via),
            Ok(())
        );
        assert_eq!(
            check("/p", &ports, Expect::CollectionOf(TypeName::PORT), via),
            Ok(())
        );
        const DELL: &[TypeName] = &[
            TypeName::oem("DellNetworkAttributes"),
            TypeName::oem("DellAttributes"),
        ];
        let dell = DELL;
        let attributes = json!({"@odata.type": "#DellAttributes.v1_0_0.DellAttributes"});
        assert_eq!(check("/a", &attributes, Expect::OneOf(dell), via), Ok(()));
        for (resource, expect, found) in [
            (
                &root,
                Expect::one(&TypeName::PORT),
                "the string \"#ServiceRoot.v1_17_0.ServiceRoot\"",
            ),
            (
                &ports,
                Expect::one(&TypeName::PORT),
                "the string \"#PortCollection.PortCollection\"",
            ),
            (
                &port,
                Expect::CollectionOf(TypeName::PORT),
                "the string \"#Port.v1_11_0.Port\"",
            ),
            (&json!({"Id": "1"}), Expect::one(&TypeName::PORT), "absent"),
            (
                &json!({"@odata.type": 7}),
                Expect::one(&TypeName::PORT),
                "the number 7",
            ),
            (
                &json!({"@odata.type": "#"}),
                Expect::one(&TypeName::PORT),
                "the string \"#\"",
            ),
            (
                &json!({"@odata.type": "#NetworkPort.v1_4_1.NetworkPort"}),
                Expect::one(&TypeName::PORT),
                "the string \"#NetworkPort.v1_4_1.NetworkPort\"",
            ),
        ] {
            let error = check("/x", resource, expect, via).unwrap_err();
            assert_eq!(error.found, found);
            assert_eq!(error.property, "@odata.type");
            assert!(error.expected.ends_with("(Members/1 of /p)"), "{error}");
        }
        assert_eq!(
            check("/x", &root, Expect::OneOf(dell), via)
                .unwrap_err()
                .to_string(),
            "/x: @odata.type is the string \"#ServiceRoot.v1_17_0.ServiceRoot\", expected a resource of type DellNetworkAttributes or DellAttributes (Members/1 of /p)"
        );
    }
}
