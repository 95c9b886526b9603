//! A mockup folder loaded once and shared (behind an `Arc`) by every simulated BMC that
//! serves it, and the small per-BMC patches (`--bmc-set`) laid over it as each answer is made:
//! 1,000 BMCs of one folder hold one copy of its resources, not 1,000.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use std::time::SystemTime;

use serde_json::Value;

use driftgate_model::mockup_dir::{MockupDir, NotAMockup};

/// A mockup folder whose resources are parsed on first use and kept for every BMC serving it.
#[derive(Debug)]
pub struct Mockup {
    dir: MockupDir,
    /// Parsed resources by file, with the file's modification time and length when parsed: a
    /// file replaced while serving (a test switching a host to its post-update state) is read
    /// again. A file that is missing or no JSON is not kept (and answers 404), so odd request
    /// paths cannot grow the cache.
    loaded: RwLock<HashMap<PathBuf, Loaded>>,
}

#[derive(Debug)]
struct Loaded {
    stamp: (SystemTime, u64),
    resource: Arc<Value>,
}

impl Mockup {
    /// Opens `dir` in either mockup layout.
    pub fn open(dir: &Path) -> Result<Arc<Self>, NotAMockup> {
        Ok(Arc::new(Mockup {
            dir: MockupDir::open(dir)?,
            loaded: RwLock::new(HashMap::new()),
        }))
    }

    /// The resource at `uri` (`/redfish` is the service root too), or `None` when the folder
    /// has none.
    pub fn resource(&self, uri: &str) -> Option<Arc<Value>> {
        let file = self.dir.file_for(canonical_uri(uri))?;
        let Ok(stamp) = std::fs::metadata(&file).and_then(|m| Ok((m.modified()?, m.len()))) else {
            self.forget(&file);
            return None;
        };
        if let Some(found) = self
            .loaded
            .read()
            .expect("no panic while holding the lock")
            .get(&file)
            .filter(|loaded| loaded.stamp == stamp)
        {
            return Some(Arc::clone(&found.resource));
        }
        let parsed = std::fs::read(&file)
            .ok()
            .and_then(|bytes| serde_json::from_slice::<Value>(&bytes).ok());
        let Some(parsed) = parsed.map(Arc::new) else {
            self.forget(&file);
            return None;
        };
        self.loaded
            .write()
            .expect("no panic while holding the lock")
            .insert(
                file,
                Loaded {
                    stamp,
                    resource: Arc::clone(&parsed),
                },
            );
        Some(parsed)
    }

    fn forget(&self, file: &Path) {
        self.loaded
            .write()
            .expect("no panic while holding the lock")
            .remove(file);
    }
}

/// The form of a request path that resources and patches are keyed by: no trailing `/`, and
/// `/redfish` as `/redfish/v1`.
pub(crate) fn canonical_uri(uri: &str) -> &str {
    match uri.trim_end_matches('/') {
        "/redfish" => "/redfish/v1",
        trimmed => trimmed,
    }
}

/// One property of one resource set to a value: `URI#/JSON/POINTER=JSON`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Patch {
    /// The resource, in `canonical_uri` form.
    pub uri: String,
    /// An RFC 6901 pointer into the resource (`/Oem/Dell/DcbxMode`, `/Members/0`).
    pub pointer: String,
    /// What the pointer's target becomes.
    pub value: Value,
}

/// Why a patch cannot be parsed or applied.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PatchError {
    /// The text is not `URI#/POINTER=VALUE`.
    #[error(
        "{0:?}: expected URI#/JSON/POINTER=VALUE (e.g. /redfish/v1/Systems/1#/BiosVersion=\"2.1\")"
    )]
    Syntax(String),
    /// The pointer's parent is missing or is no object or array.
    #[error("{uri}#{pointer}: {reason}")]
    Target {
        /// The resource.
        uri: String,
        /// The pointer.
        pointer: String,
        /// What is wrong with it.
        reason: String,
    },
}

impl Patch {
    /// Parses `URI#/POINTER=VALUE`; VALUE is JSON (`true`, `3`, `"IEEE"`, `{…}`) or else taken
    /// as a string (`IEEE`). The pointer ends at the first `=`, so it cannot contain one.
    pub fn parse(text: &str) -> Result<Self, PatchError> {
        let syntax = || PatchError::Syntax(text.to_owned());
        let (uri, rest) = text.split_once('#').ok_or_else(syntax)?;
        let (pointer, value) = rest.split_once('=').ok_or_else(syntax)?;
        if !uri.starts_with('/') || !pointer.starts_with('/') {
            return Err(syntax());
        }
        Ok(Patch {
            uri: canonical_uri(uri).to_owned(),
            pointer: pointer.to_owned(),
            value: serde_json::from_str(value).unwrap_or_else(|_| Value::from(value)),
        })
    }

    /// Sets the pointer's target in `resource`: a member of an object is replaced or added, an
    /// element of an array replaced (`-` appends). The parent must exist.
    pub fn apply(&self, resource: &mut Value) -> Result<(), PatchError> {
        let fail = |reason: String| PatchError::Target {
            uri: self.uri.clone(),
            pointer: self.pointer.clone(),
            reason,
        };
        let (parent, last) = self
            .pointer
            .rsplit_once('/')
            .expect("a parsed pointer starts with `/`");
        let key = last.replace("~1", "/").replace("~0", "~");
        let target = resource
            .pointer_mut(parent)
            .ok_or_else(|| fail(format!("the resource has nothing at {parent:?}")))?;
        match target {
            Value::Object(members) => {
                members.insert(key, self.value.clone());
            }
            Value::Array(elements) if key == "-" => elements.push(self.value.clone()),
            Value::Array(elements) => {
                let len = elements.len();
                let slot = key
                    .parse::<usize>()
                    .ok()
                    .and_then(|index| elements.get_mut(index))
                    .ok_or_else(|| {
                        fail(format!(
                            "{key:?} is no index of the array at {parent:?} ({len} elements)"
                        ))
                    })?;
                *slot = self.value.clone();
            }
            _ => {
                return Err(fail(format!(
                    "{parent:?} is a value, not an object or array"
                )));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn patched(text: &str, mut resource: Value) -> Result<Value, PatchError> {
        Patch::parse(text)
            .expect("a valid patch")
            .apply(&mut resource)
            .map(|()| resource)
    }

    #[test]
    fn a_value_is_json_or_else_a_string() {
        let patch = Patch::parse("/redfish/v1/Systems/1/#/BiosVersion=\"2.1\"").unwrap();
        assert_eq!(
            patch,
            Patch {
                uri: "/redfish/v1/Systems/1".into(),
                pointer: "/BiosVersion".into(),
                value: json!("2.1"),
            }
        );
        assert_eq!(Patch::parse("/r#/a=IEEE").unwrap().value, json!("IEEE"));
        assert_eq!(Patch::parse("/r#/a=3").unwrap().value, json!(3));
        assert_eq!(Patch::parse("/r#/a=false").unwrap().value, json!(false));
        assert_eq!(
            Patch::parse("/r#/a={\"b\":1}").unwrap().value,
            json!({"b": 1})
        );
        assert_eq!(Patch::parse("/r#/a=").unwrap().value, json!(""));
        assert_eq!(Patch::parse("/r#/a=x=y").unwrap().value, json!("x=y"));
        assert_eq!(Patch::parse("/redfish/#/a=1").unwrap().uri, "/redfish/v1");
        for bad in ["/r/a=1", "/r#a=1", "r#/a=1", "/r#/a"] {
            assert_eq!(
                Patch::parse(bad),
                Err(PatchError::Syntax(bad.into())),
                "{bad}"
            );
        }
    }

    #[test]
    fn a_pointer_replaces_adds_and_appends_but_never_invents_a_parent() {
        let resource =
            json!({"Oem": {"Dell": {"DcbxMode": "IEEE"}}, "Ports": [1, 2], "a/b": {"~": 0}});
        assert_eq!(
            patched("/r#/Oem/Dell/DcbxMode=Disabled", resource.clone()).unwrap()["Oem"]["Dell"]["DcbxMode"],
            json!("Disabled")
        );
        assert_eq!(
            patched("/r#/Oem/Dell/Willing=true", resource.clone()).unwrap()["Oem"]["Dell"]["Willing"],
            json!(true)
        );
        assert_eq!(
            patched("/r#/Ports/1=9", resource.clone()).unwrap()["Ports"],
            json!([1, 9])
        );
        assert_eq!(
            patched("/r#/Ports/-=3", resource.clone()).unwrap()["Ports"],
            json!([1, 2, 3])
        );
        // RFC 6901 escapes: `~1` is `/`, `~0` is `~`.
        assert_eq!(
            patched("/r#/a~1b/~0=1", resource.clone()).unwrap()["a/b"]["~"],
            json!(1)
        );
        for (bad, says) in [
            ("/r#/Oem/Hpe/Mode=1", "nothing at \"/Oem/Hpe\""),
            ("/r#/Ports/2=1", "no index"),
            ("/r#/Ports/x=1", "no index"),
            ("/r#/Oem/Dell/DcbxMode/x=1", "is a value"),
        ] {
            let error = patched(bad, resource.clone()).unwrap_err().to_string();
            assert!(
                error.contains(says) && error.starts_with("/r#/"),
                "{bad}: {error}"
            );
        }
    }

    #[test]
    fn one_loaded_resource_is_shared_and_missing_ones_are_none() {
        let dir = crate::tests::recorded("baseline");
        let mockup = Mockup::open(&dir).unwrap();
        let root = mockup.resource("/redfish/v1/").unwrap();
        assert!(Arc::ptr_eq(&root, &mockup.resource("/redfish").unwrap()));
        assert_eq!(root["@odata.id"], json!("/redfish/v1"));
        assert!(mockup.resource("/redfish/v1/NoSuchThing").is_none());
        assert!(mockup.resource("/redfish/v1/../../etc").is_none());
    }

    #[test]
    fn a_file_replaced_while_serving_is_read_again() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("index.json");
        std::fs::write(&file, r#"{"Id": "before"}"#).unwrap();
        let mockup = Mockup::open(dir.path()).unwrap();
        let before = mockup.resource("/redfish/v1").unwrap();
        assert_eq!(before["Id"], json!("before"));
        std::fs::write(&file, r#"{"Id": "after, longer"}"#).unwrap();
        assert_eq!(
            mockup.resource("/redfish/v1").unwrap()["Id"],
            json!("after, longer")
        );
        std::fs::write(&file, "not JSON").unwrap();
        assert!(mockup.resource("/redfish/v1").is_none());
        std::fs::remove_file(&file).unwrap();
        assert!(mockup.resource("/redfish/v1").is_none());
    }
}
