//! A Redfish mockup with secrets planted in its BIOS and NIC (Dell HII) attributes, current
//! and pending, and the search for their values in whatever driftgate wrote or printed.

use std::path::Path;

use serde_json::{Value, json};

use super::{copy_dir, root};

/// Key material under an innocent name, found by value alone.
pub(crate) const PEM: &str = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAPLANTEDpemBODY\n-----END RSA PRIVATE KEY-----";
/// Key material under an innocent name, found by value alone.
pub(crate) const HEX_KEY: &str = "9F3C2A71D04B8E65C1F7A9032B6D4E8F0A1C3E5B7D9F1A3C5E7B9D1F3A5C7E9B";

/// The Dell NIC function whose HII attributes get secrets, below `redfish/v1`.
pub(crate) const FUNCTION: &str = "Chassis/System.Embedded.1/NetworkAdapters/NIC.Slot.3/NetworkDeviceFunctions/NIC.Slot.3-1-1/Oem/Dell/DellNetworkAttributes/NIC.Slot.3-1-1";
/// That function's attribute registry (named as iDRAC names it), below `redfish/v1`.
pub(crate) const NIC_REGISTRY: &str = "Registries/NetworkAttributesRegistry_NIC.Slot.3-1-1";

/// An innocent name each registry flags `WriteOnly`: secret by that flag alone.
pub(crate) const WRITE_ONLY: &str = "OneTimeBootNote";

/// The attribute names the secret filter's corpus (`tests/fixtures/fuzz/secrets/`) marks
/// with `"issue": issue`.
pub(crate) fn corpus_names(issue: u64) -> Vec<String> {
    let corpus = read_json(&root().join("tests/fixtures/fuzz/secrets/leaked-attributes.json"));
    corpus
        .as_array()
        .expect("the corpus is a list")
        .iter()
        .filter(|row| row["issue"] == issue)
        .map(|row| row["name"].as_str().expect("rows are named").to_owned())
        .collect()
}

/// The JSON document in `path`.
pub(crate) fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Writes `value` to `path`, creating its folder.
pub(crate) fn write_json(path: &Path, value: &Value) {
    std::fs::create_dir_all(path.parent().expect("a file in a folder")).expect("writable");
    std::fs::write(
        path,
        serde_json::to_string_pretty(value).expect("serializes"),
    )
    .expect("writable");
}

/// A mockup with secrets planted, and what was planted.
pub(crate) struct Planted {
    dir: tempfile::TempDir,
    names: Vec<String>,
}

impl Planted {
    /// The post-update BMC of the Azure Local example with each of `names` planted, valued
    /// `PLANTED-<side>-<name>`, in its BIOS (current and pending, sides `bios` and
    /// `bios-pending`) and in the HII attributes of one NIC function (current and pending,
    /// side `nic`); beside them an innocent name each registry types `Password` (`ServiceNote`
    /// in the BIOS, `VlanNote` in a NIC attribute registry the service now lists), one each
    /// flags `WriteOnly` ([`WRITE_ONLY`]), key material under innocent names, and harmless
    /// controls that must survive (`KeyboardLayout`, `NWManagementPassThrough`,
    /// `PassWordStatus`).
    pub(crate) fn new(names: Vec<String>) -> Planted {
        let planted = Planted {
            dir: tempfile::tempdir().expect("a temporary folder"),
            names,
        };
        copy_dir(
            &root().join("examples/azure-local-dcbx/recorded/post-update/bmc"),
            planted.path(),
        );
        let v1 = planted.path().join("redfish/v1");
        for (file, side, typed) in [
            ("Systems/System.Embedded.1/Bios", "bios", "ServiceNote"),
            // Pending values equal to the current ones are no facts: these differ.
            (
                "Systems/System.Embedded.1/Bios/Settings",
                "bios-pending",
                "ServiceNote",
            ),
            (FUNCTION, "nic", "VlanNote"),
            (&format!("{FUNCTION}/Settings"), "nic", "VlanNote"),
        ] {
            let path = v1.join(file).join("index.json");
            let mut body = read_json(&path);
            planted.plant(&mut body, side, typed);
            // A pending value is a fact only where it differs from the current one.
            if file.ends_with("/Settings") && side == "nic" {
                body["Attributes"]["NWManagementPassThrough"] =
                    json!("control-nic-passthrough-staged");
            }
            write_json(&path, &body);
        }
        let bios_registry = v1.join("Systems/System.Embedded.1/Bios/BiosRegistry/index.json");
        let mut registry = read_json(&bios_registry);
        let entries = registry["RegistryEntries"]["Attributes"]
            .as_array_mut()
            .expect("the registry lists attributes");
        entries
            .push(json!({"AttributeName": "ServiceNote", "ReadOnly": false, "Type": "Password"}));
        entries.push(json!({"AttributeName": WRITE_ONLY, "ReadOnly": false, "Type": "String", "WriteOnly": true}));
        write_json(&bios_registry, &registry);
        let registries = v1.join("Registries/index.json");
        let mut collection = read_json(&registries);
        let members = collection["Members"]
            .as_array_mut()
            .expect("the registries are listed");
        // The example lists the real registry already: this one (with the planted
        // attributes) replaces its files and is listed once.
        let member = json!({"@odata.id": format!("/redfish/v1/{NIC_REGISTRY}")});
        if !members.contains(&member) {
            members.push(member);
        }
        collection["Members@odata.count"] = json!(members.len());
        write_json(&registries, &collection);
        let location =
            format!("/redfish/v1/{NIC_REGISTRY}/NetworkAttributesRegistry_NIC.Slot.3-1-1.json");
        write_json(
            &v1.join(NIC_REGISTRY).join("index.json"),
            &json!({
                "@odata.id": format!("/redfish/v1/{NIC_REGISTRY}"),
                "@odata.type": "#MessageRegistryFile.v1_1_3.MessageRegistryFile",
                "Id": "NetworkAttributesRegistry_NIC.Slot.3-1-1",
                "Location": [{"Language": "En", "Uri": location}],
                "Registry": "NetworkAttributeRegistry"
            }),
        );
        write_json(
            &planted
                .path()
                .join(location.trim_start_matches('/'))
                .join("index.json"),
            &json!({
                "@odata.id": location,
                "@odata.type": "#AttributeRegistry.v1_3_6.AttributeRegistry",
                "Id": "NetworkAttributeRegistry_NIC.Slot.3-1-1",
                "RegistryEntries": {"Attributes": [
                    {"AttributeName": "VlanNote", "Type": "Password", "CurrentValue": "PLANTED-nic-typed-password"},
                    {"AttributeName": WRITE_ONLY, "Type": "Enumeration", "WriteOnly": true, "CurrentValue": "PLANTED-nic-write-only"},
                    {"AttributeName": "Broadcom_DCBX", "Type": "Enumeration"}
                ]}
            }),
        );
        planted
    }

    /// The mockup folder.
    pub(crate) fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Plants the secrets of one side in a resource's `Attributes`.
    fn plant(&self, body: &mut Value, side: &str, typed: &str) {
        let attributes = body["Attributes"]
            .as_object_mut()
            .expect("the resource has attributes");
        for name in &self.names {
            attributes.insert(name.clone(), json!(format!("PLANTED-{side}-{name}")));
        }
        attributes.insert(
            typed.to_owned(),
            json!(format!("PLANTED-{side}-typed-password")),
        );
        attributes.insert(
            WRITE_ONLY.to_owned(),
            json!(format!("PLANTED-{side}-write-only")),
        );
        attributes.insert("BootBanner".to_owned(), json!(PEM));
        attributes.insert("AssetNote".to_owned(), json!(HEX_KEY));
        for (name, control) in [
            ("KeyboardLayout", "keyboard"),
            ("NWManagementPassThrough", "passthrough"),
            ("PassWordStatus", "password-status"),
        ] {
            attributes.insert(name.to_owned(), json!(format!("control-{side}-{control}")));
        }
    }

    /// Every planted value: none may appear in any output.
    pub(crate) fn values(&self) -> Vec<String> {
        let mut values: Vec<String> = self
            .names
            .iter()
            .flat_map(|n| {
                [
                    format!("PLANTED-bios-{n}"),
                    format!("PLANTED-bios-pending-{n}"),
                    format!("PLANTED-nic-{n}"),
                ]
            })
            .collect();
        for side in ["bios", "bios-pending", "nic"] {
            values.push(format!("PLANTED-{side}-typed-password"));
            values.push(format!("PLANTED-{side}-write-only"));
        }
        values.extend(["PLANTEDpemBODY", HEX_KEY].map(str::to_owned));
        values
    }

    /// The planted values `text` holds.
    pub(crate) fn leaks(&self, text: &str) -> Vec<String> {
        let mut found: Vec<String> = self
            .values()
            .into_iter()
            .filter(|value| text.contains(value.as_str()))
            .collect();
        if text.contains("BEGIN RSA PRIVATE KEY") {
            found.push("the PEM block".to_owned());
        }
        found
    }
}
