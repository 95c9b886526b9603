//! Every Redfish mockup the tests know (the real captures of `tests/fixtures/public/redfish`, the
//! project's fixtures in `tests/fixtures/redfish`, the examples' recorded BMCs), loaded into
//! memory and edited the way BMCs change them: a firmware update bumps versions (and, on Dell,
//! the inventory ids that embed them), a renumbering renames members and lists them in
//! another order. Written back as a mockup folder, each is captured like any other.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use driftgate_collect::placeholder::is_placeholder;
use serde_json::Value;

use super::capture::capture;
use super::{driftgate, files_under, public_data, root};

/// Every mockup: (a name for messages, its folder).
pub(crate) fn every_mockup() -> Vec<(String, PathBuf)> {
    let mut all: Vec<(String, PathBuf)> = [
        "libredfish-dell",
        "libredfish-dell_multi_dpu",
        "dmtf-public-smartnic",
        "dmtf-public-rackmount1",
    ]
    .iter()
    .map(|name| {
        (
            format!("shared {name}"),
            public_data(&format!("redfish/{name}")),
        )
    })
    .collect();
    let fixtures = root().join("tests/fixtures/redfish");
    let mut names: Vec<String> = std::fs::read_dir(&fixtures)
        .unwrap_or_else(|e| panic!("{}: {e}", fixtures.display()))
        .map(|entry| entry.expect("a readable entry").file_name())
        .map(|name| name.to_string_lossy().into_owned())
        .filter(|name| name != "empty-service")
        .collect();
    names.sort();
    all.extend(
        names
            .into_iter()
            .map(|name| (format!("fixture {name}"), fixtures.join(&name))),
    );
    for state in ["baseline", "post-update"] {
        all.push((
            format!("example azure-local-dcbx {state}"),
            root()
                .join("examples/azure-local-dcbx/recorded")
                .join(state)
                .join("bmc"),
        ));
    }
    all
}

/// A mockup in memory: each resource by its URI (`/redfish/v1/…`, or a same-origin path
/// outside it such as an attribute registry).
#[derive(Debug, Clone)]
pub(crate) struct Mockup {
    /// Whether the folder is the service root itself (DMTF's layout) rather than holding
    /// `redfish/v1/` below it.
    root_is_v1: bool,
    /// Resource URI → body.
    pub resources: BTreeMap<String, Value>,
}

impl Mockup {
    /// Reads every `index.json` below `dir`.
    pub(crate) fn load(dir: &Path) -> Mockup {
        let root_is_v1 = !dir.join("redfish/v1").is_dir();
        let mut resources = BTreeMap::new();
        for file in files_under(dir) {
            if file.file_name().is_none_or(|n| n != "index.json") {
                continue;
            }
            let folder = file.parent().expect("a file has a folder");
            let relative = folder
                .strip_prefix(dir)
                .expect("below the mockup")
                .to_string_lossy()
                .replace('\\', "/");
            let uri = match (root_is_v1, relative.is_empty()) {
                (true, true) => "/redfish/v1".to_owned(),
                (true, false) => format!("/redfish/v1/{relative}"),
                (false, _) => format!("/{relative}"),
            };
            let body: Value = serde_json::from_slice(&std::fs::read(&file).unwrap())
                .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            resources.insert(uri, body);
        }
        Mockup {
            root_is_v1,
            resources,
        }
    }

    /// Writes the mockup as a folder of the layout it was read from.
    pub(crate) fn write(&self, dir: &Path) {
        for (uri, body) in &self.resources {
            let relative = if self.root_is_v1 {
                uri.strip_prefix("/redfish/v1")
                    .unwrap_or(uri)
                    .trim_start_matches('/')
            } else {
                uri.trim_start_matches('/')
            };
            let folder = dir.join(relative);
            std::fs::create_dir_all(&folder).unwrap();
            std::fs::write(
                folder.join("index.json"),
                serde_json::to_vec_pretty(body).unwrap(),
            )
            .unwrap();
        }
    }

    /// The URIs of the members of the collection at `collection` (its `Members` links).
    pub(crate) fn members(&self, collection: &str) -> Vec<String> {
        self.resources
            .get(collection)
            .and_then(|c| c["Members"].as_array())
            .into_iter()
            .flatten()
            .filter_map(|m| m["@odata.id"].as_str())
            .map(|uri| uri.trim_end_matches('/').to_owned())
            .collect()
    }

    /// The URIs of every collection (a resource with a `Members` array).
    pub(crate) fn collections(&self) -> Vec<String> {
        self.resources
            .iter()
            .filter(|(_, body)| body["Members"].is_array())
            .map(|(uri, _)| uri.clone())
            .collect()
    }

    /// Renames the resource at `old` (and everything below it) to `new`: its file, its `Id`,
    /// and every link or string anywhere that names it or something below it.
    pub(crate) fn rename(&mut self, old: &str, new: &str) {
        let moved: Vec<String> = self
            .resources
            .keys()
            .filter(|uri| below(uri, old))
            .cloned()
            .collect();
        for uri in moved {
            let body = self.resources.remove(&uri).expect("listed above");
            self.resources
                .insert(format!("{new}{}", &uri[old.len()..]), body);
        }
        for body in self.resources.values_mut() {
            replace_uris(body, old, new);
        }
        let id = new.rsplit('/').next().expect("a URI has a last segment");
        if let Some(body) = self.resources.get_mut(new)
            && body.get("Id").is_some()
        {
            body["Id"] = Value::from(id);
        }
    }

    /// Lists the members of every collection in reverse order.
    pub(crate) fn reverse_every_collection(&mut self) {
        for body in self.resources.values_mut() {
            if let Some(members) = body["Members"].as_array_mut() {
                members.reverse();
            }
        }
    }

    /// A firmware update of every component: each firmware inventory member's `Version`, each
    /// network adapter controller's `FirmwarePackageVersion`, each PCIe device's
    /// `FirmwareVersion`, HPE's `BaseNetworkAdapters` `Firmware.Current.VersionString`, and
    /// every attribute (BIOS, NIC HII) whose name says it reports a version, changed to a newer
    /// one; a Dell inventory id that embeds the version is renamed with it, as iDRAC does. A
    /// placeholder (`"N/A"`, `"nil"`) stays: the BMC that answers it keeps answering it.
    /// Returns (old, new) of every version changed.
    pub(crate) fn bump_firmware(&mut self) -> Vec<(String, String)> {
        let mut bumped = Vec::new();
        let mut renames = Vec::new();
        for (uri, body) in &mut self.resources {
            let inventory = uri.contains("/FirmwareInventory/");
            if inventory
                && let Some(version) = body["Version"]
                    .as_str()
                    .filter(|v| !is_placeholder(v))
                    .map(str::to_owned)
            {
                let newer = newer(&version);
                body["Version"] = Value::from(newer.as_str());
                let id = uri.rsplit('/').next().unwrap_or("");
                if id.contains("__") && id.contains(&version) {
                    let parent = &uri[..uri.len() - id.len()];
                    renames.push((
                        uri.clone(),
                        format!("{parent}{}", id.replace(&version, &newer)),
                    ));
                }
                bumped.push((version, newer));
            }
            let mut bump = |value: &mut Value| {
                if let Some(version) = value
                    .as_str()
                    .filter(|v| !is_placeholder(v))
                    .map(str::to_owned)
                {
                    let newer = newer(&version);
                    *value = Value::from(newer.as_str());
                    bumped.push((version, newer));
                }
            };
            if let Some(controllers) = body["Controllers"].as_array_mut() {
                for controller in controllers {
                    bump(&mut controller["FirmwarePackageVersion"]);
                }
            }
            if uri.contains("/PCIeDevices/") {
                bump(&mut body["FirmwareVersion"]);
            }
            if uri.contains("/BaseNetworkAdapters/") {
                bump(&mut body["Firmware"]["Current"]["VersionString"]);
            }
            if let Some(attributes) = body["Attributes"].as_object_mut() {
                for (name, value) in attributes.iter_mut() {
                    if name.to_ascii_lowercase().contains("version") && !name.contains("Support") {
                        bump(value);
                    }
                }
            }
        }
        for (old, new) in renames {
            self.rename(&old, &new);
        }
        bumped
    }
}

/// A capture of the mockup at `dir`, which must be complete: the snapshot as driftgate wrote
/// it, and its standard error.
pub(crate) fn capture_complete(dir: &Path) -> (String, String) {
    let captured = capture(&format!("redfish=mockup:{}", dir.display()), &[], false);
    assert_eq!(
        (captured.code, captured.status()),
        (0, "complete"),
        "{}: {}",
        dir.display(),
        captured.stderr
    );
    (captured.text, captured.stderr)
}

/// What `check` said of one capture against another.
pub(crate) struct Judged {
    /// Exit code.
    pub code: i32,
    /// The text report.
    pub text: String,
    /// The JSON report.
    pub json: Value,
    /// The baseline's facts.
    pub baseline: Value,
}

impl Judged {
    /// Every finding as `severity id path: old → new`, for messages.
    pub(crate) fn findings(&self) -> Vec<String> {
        self.json["findings"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|f| {
                format!(
                    "{} {} {}: {} → {}",
                    f["severity"].as_str().unwrap_or("?"),
                    f["id"].as_str().unwrap_or("?"),
                    f["path"].as_str().unwrap_or("?"),
                    f["old"],
                    f["new"]
                )
            })
            .collect()
    }

    /// The finding on `path`.
    pub(crate) fn finding(&self, path: &str) -> &Value {
        self.json["findings"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|f| f["path"] == path)
            .unwrap_or_else(|| panic!("no finding on {path}: {:#?}", self.findings()))
    }
}

/// Captures the mockup folders `before` and `after` (each must be complete) and runs `check`
/// of the second against the first (`--strict` when asked), in text and in JSON.
pub(crate) fn check_mockups(before: &Path, after: &Path, strict: bool) -> Judged {
    let work = tempfile::tempdir().unwrap();
    let (base, post) = (work.path().join("base.json"), work.path().join("post.json"));
    let (base_text, _) = capture_complete(before);
    std::fs::write(&base, &base_text).unwrap();
    std::fs::write(&post, capture_complete(after).0).unwrap();
    let run = |format: &str| {
        let mut command = driftgate();
        command
            .args([
                "check",
                "--color",
                "never",
                "--format",
                format,
                "--snapshot",
            ])
            .arg(&post)
            .arg("--baseline")
            .arg(&base);
        if strict {
            command.arg("--strict");
        }
        command.output().unwrap()
    };
    let (text, json) = (run("text"), run("json"));
    assert_eq!(text.status.code(), json.status.code());
    let baseline: Value = serde_json::from_str(&base_text).unwrap();
    Judged {
        code: text.status.code().unwrap(),
        text: String::from_utf8(text.stdout).unwrap(),
        json: serde_json::from_slice(&json.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&json.stderr))),
        baseline: baseline["facts"].clone(),
    }
}

/// A newer version of `version`: its last number plus one (`22.31.1014` → `22.31.1015`),
/// else `version` with `-next` after it.
pub(crate) fn newer(version: &str) -> String {
    let end = version.rfind(|c: char| c.is_ascii_digit());
    let Some(end) = end else {
        return format!("{version}-next");
    };
    let start = version[..=end]
        .rfind(|c: char| !c.is_ascii_digit())
        .map_or(0, |i| i + 1);
    match version[start..=end].parse::<u64>() {
        Ok(n) => format!("{}{}{}", &version[..start], n + 1, &version[end + 1..]),
        Err(_) => format!("{version}-next"),
    }
}

/// Whether `uri` is `base` or below it.
fn below(uri: &str, base: &str) -> bool {
    uri == base
        || uri
            .strip_prefix(base)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// Every string in `value` that is `old` or a URI below it (or `old#fragment`) now names `new`.
fn replace_uris(value: &mut Value, old: &str, new: &str) {
    match value {
        Value::String(text) => {
            let trimmed = text.trim_end_matches('/');
            let rest = &text[old.len().min(text.len())..];
            if below(trimmed, old) || (text.starts_with(old) && rest.starts_with('#')) {
                *text = format!("{new}{rest}");
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| replace_uris(v, old, new)),
        Value::Object(map) => map.values_mut().for_each(|v| replace_uris(v, old, new)),
        _ => {}
    }
}

#[test]
fn a_renamed_member_moves_with_everything_that_names_it() {
    let mut mockup = Mockup {
        root_is_v1: false,
        resources: BTreeMap::from([
            (
                "/redfish/v1/Chassis/1/NetworkAdapters".to_owned(),
                serde_json::json!({"Members": [{"@odata.id": "/redfish/v1/Chassis/1/NetworkAdapters/1"}]}),
            ),
            (
                "/redfish/v1/Chassis/1/NetworkAdapters/1".to_owned(),
                serde_json::json!({"Id": "1", "@odata.id": "/redfish/v1/Chassis/1/NetworkAdapters/1",
                    "Ports": {"@odata.id": "/redfish/v1/Chassis/1/NetworkAdapters/1/Ports"}}),
            ),
            (
                "/redfish/v1/Chassis/1/NetworkAdapters/10".to_owned(),
                serde_json::json!({"Id": "10", "@odata.id": "/redfish/v1/Chassis/1/NetworkAdapters/10"}),
            ),
        ]),
    };
    mockup.rename(
        "/redfish/v1/Chassis/1/NetworkAdapters/1",
        "/redfish/v1/Chassis/1/NetworkAdapters/7",
    );
    let adapter = &mockup.resources["/redfish/v1/Chassis/1/NetworkAdapters/7"];
    assert_eq!(adapter["Id"], "7");
    assert_eq!(
        adapter["Ports"]["@odata.id"],
        "/redfish/v1/Chassis/1/NetworkAdapters/7/Ports"
    );
    assert_eq!(
        mockup.members("/redfish/v1/Chassis/1/NetworkAdapters"),
        ["/redfish/v1/Chassis/1/NetworkAdapters/7"]
    );
    assert!(
        mockup
            .resources
            .contains_key("/redfish/v1/Chassis/1/NetworkAdapters/10"),
        "`/10` is not below `/1`"
    );
    assert_eq!(newer("22.31.1014"), "22.31.1015");
    assert_eq!(newer("U46 v2.10 (02/22/2024)"), "U46 v2.10 (02/22/2025)");
    assert_eq!(newer("nil"), "nil-next");
}

#[test]
fn every_mockup_reads_back_as_written_and_a_dell_update_renames_its_inventory_ids() {
    for (name, dir) in every_mockup() {
        let mut mockup = Mockup::load(&dir);
        assert!(!mockup.collections().is_empty(), "{name}: no collection");
        let written = tempfile::tempdir().unwrap();
        mockup.reverse_every_collection();
        mockup.write(written.path());
        let again = Mockup::load(written.path());
        assert_eq!(again.resources, mockup.resources, "{name}");
    }
    let mut dell = Mockup::load(&public_data("redfish/libredfish-dell"));
    let inventory = "/redfish/v1/UpdateService/FirmwareInventory";
    let before = dell.members(inventory);
    let bumped = dell.bump_firmware();
    assert!(bumped.len() >= before.len(), "{bumped:?}");
    let after = dell.members(inventory);
    assert!(
        before
            .iter()
            .any(|id| id.contains("__") && !after.contains(id)),
        "ids that embed a version change with it: {after:?}"
    );
}
