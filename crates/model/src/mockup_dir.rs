//! The layout of a DMTF mockup folder (one `index.json` per resource URI): what the offline
//! capture reads and the simulator serves, so both find the same file for a URI.

use std::path::{Path, PathBuf};

/// A DMTF mockup folder: one `index.json` per resource URI, either below
/// `DIR/redfish/v1/` or with `DIR` itself as the `/redfish/v1` root.
#[derive(Debug, Clone)]
pub struct MockupDir {
    /// The folder that corresponds to `/redfish/v1`.
    root: PathBuf,
    given: PathBuf,
}

/// Why a folder is not a mockup.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}: not a Redfish mockup (no redfish/v1/index.json and no index.json of a service root)")]
pub struct NotAMockup(pub String);

impl MockupDir {
    /// Finds the service root in `dir` in either layout.
    pub fn open(dir: &Path) -> Result<Self, NotAMockup> {
        let nested = dir.join("redfish/v1");
        if nested.join("index.json").is_file() {
            return Ok(MockupDir {
                root: nested,
                given: dir.to_path_buf(),
            });
        }
        if dir.join("index.json").is_file() {
            return Ok(MockupDir {
                root: dir.to_path_buf(),
                given: dir.to_path_buf(),
            });
        }
        Err(NotAMockup(dir.display().to_string()))
    }

    /// The folder as it was given (either layout), for messages and a capture's target.
    pub fn given(&self) -> &Path {
        &self.given
    }

    /// The file that answers `uri`: its `index.json` below the folder of `/redfish/v1`, or
    /// `None` for one that tries to leave the folder. A path outside `/redfish/v1` on the
    /// same service (an attribute registry at `/registries/Bios.json`) is answered from the
    /// folder that holds `redfish/` (as `<path>/index.json`, or the file `<path>` itself);
    /// a folder that is itself the `/redfish/v1` root has no such place. A mockup stands
    /// for the one service it was recorded from, and has no origin to compare with: a full
    /// `http(s)://host/path` URL is answered by its path (only the live client can refuse
    /// another origin, and a folder sends no credentials anywhere).
    pub fn file_for(&self, uri: &str) -> Option<PathBuf> {
        let uri = match uri.split_once("://") {
            Some(("http" | "https", rest)) => &rest[rest.find('/').unwrap_or(rest.len())..],
            Some(_) => return None,
            None => uri,
        };
        let path = uri.split(['?', '#']).next()?.trim_end_matches('/');
        let (mut file, rest) = match path.strip_prefix("/redfish/v1") {
            Some(rest) if rest.is_empty() || rest.starts_with('/') => (self.root.clone(), rest),
            _ if self.root != self.given && path.starts_with('/') && !path.starts_with("//") => {
                (self.given.clone(), path)
            }
            _ => return None,
        };
        let inside = self.root == file;
        for segment in rest.split('/').filter(|s| !s.is_empty()) {
            if segment == "." || segment == ".." || segment.contains('\\') {
                return None;
            }
            file.push(segment);
        }
        if !inside && file.is_file() {
            return Some(file);
        }
        Some(file.join("index.json"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_map_to_index_files_and_never_leave_the_folder() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("redfish/v1/Systems/1")).unwrap();
        std::fs::write(dir.path().join("redfish/v1/index.json"), "{}").unwrap();
        let mockup = MockupDir::open(dir.path()).unwrap();
        assert_eq!(
            mockup.file_for("/redfish/v1/Systems/1/"),
            Some(dir.path().join("redfish/v1/Systems/1/index.json"))
        );
        assert_eq!(
            mockup.file_for("/redfish/v1"),
            Some(dir.path().join("redfish/v1/index.json"))
        );
        for bad in [
            "/redfish/v1/../secret",
            "/redfish/v1/a/../../x",
            "/registries/../../x",
            "//other-host/x",
            "ftp://host/redfish/v1",
        ] {
            assert_eq!(mockup.file_for(bad), None, "{bad}");
        }
        // Outside /redfish/v1 on the same service: from the folder that holds `redfish/`.
        assert_eq!(
            mockup.file_for("/registries/BiosAttributeRegistry.json"),
            Some(
                dir.path()
                    .join("registries/BiosAttributeRegistry.json/index.json")
            )
        );
        std::fs::create_dir_all(dir.path().join("registries")).unwrap();
        std::fs::write(dir.path().join("registries/Bios.json"), "{}").unwrap();
        assert_eq!(
            mockup.file_for("/registries/Bios.json"),
            Some(dir.path().join("registries/Bios.json"))
        );
        assert_eq!(
            mockup.file_for("https://bmc.example:8443/redfish/v1/Systems/1"),
            Some(dir.path().join("redfish/v1/Systems/1/index.json"))
        );
        let flat = tempfile::tempdir().unwrap();
        std::fs::write(flat.path().join("index.json"), "{}").unwrap();
        let mockup = MockupDir::open(flat.path()).unwrap();
        assert_eq!(
            mockup.file_for("/redfish/v1/Chassis"),
            Some(flat.path().join("Chassis/index.json"))
        );
        for outside in ["/etc/passwd", "/redfish/v10", "/registries/Bios.json"] {
            assert_eq!(mockup.file_for(outside), None, "{outside}");
        }
        assert!(MockupDir::open(tempfile::tempdir().unwrap().path()).is_err());
    }
}
