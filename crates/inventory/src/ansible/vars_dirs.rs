//! Finding and reading the `group_vars/` and `host_vars/` files beside an Ansible inventory,
//! as ansible-core's `host_group_vars` plugin finds them: the Ansible reader's only file
//! access besides the inventory file itself. What a file says is parsed in `vars_file.rs`.
//!
//! For a group or host NAME, the first of `NAME`, `NAME.yml`, `NAME.yaml`, `NAME.json` that
//! exists is read; when it is a folder, every file in it (and in its folders without an
//! extension), in name order, with no extension or one of those. Names starting with `.` or
//! ending in `~` are skipped, as Ansible skips them. Links are followed, as Ansible follows
//! them: these are the operator's files, read and never written. A link to nothing is a file
//! that does not exist (Ansible's `os.path.exists`); any other failure to look at or read a
//! file is told, never skipped.

use std::collections::{BTreeMap, BTreeSet};
use std::io;
use std::path::{Path, PathBuf};

/// The extensions Ansible reads vars files with (its `YAML_FILENAME_EXTENSIONS`), in the
/// order it tries them after the bare name.
const EXTENSIONS: &[&str] = &[".yml", ".yaml", ".json"];

/// The groups and hosts whose vars files Ansible reads: every group some host is in, and
/// every host.
#[derive(Debug, Default)]
pub(super) struct Names {
    pub(super) groups: BTreeSet<String>,
    pub(super) hosts: Vec<String>,
}

/// The vars files of the groups and hosts of [`Names`], each in the order Ansible reads them
/// (a later one overrides an earlier one).
#[derive(Debug, Default)]
pub(super) struct VarsFiles {
    pub(super) groups: BTreeMap<String, Vec<VarsFile>>,
    pub(super) hosts: BTreeMap<String, Vec<VarsFile>>,
    /// A `group_vars`/`host_vars` that is there but could not be looked in.
    pub(super) folders: Vec<VarsFile>,
}

/// One vars file as read: its text, or why it could not be read.
#[derive(Debug)]
pub(super) struct VarsFile {
    pub(super) path: PathBuf,
    pub(super) text: Result<String, String>,
}

/// The vars files of every group and host of `names`, beside the inventory in folder `base`.
pub(super) fn read(base: &Path, names: &Names) -> VarsFiles {
    let mut files = VarsFiles::default();
    if let Some(dir) = folder(base, "group_vars", &mut files.folders) {
        files.groups = of_each(&dir, &names.groups);
    }
    if let Some(dir) = folder(base, "host_vars", &mut files.folders) {
        files.hosts = of_each(&dir, &names.hosts);
    }
    files
}

/// Folder `name` of `base` when it is one; one that is there but cannot be looked in is
/// added to `broken`.
fn folder(base: &Path, name: &str, broken: &mut Vec<VarsFile>) -> Option<PathBuf> {
    let dir = base.join(name);
    match std::fs::metadata(&dir) {
        Ok(meta) if meta.is_dir() => return Some(dir),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Ok(_) => broken.push(unreadable(
            dir,
            "not a folder (Ansible reads vars files from a folder of that name)",
        )),
        Err(e) => broken.push(unreadable(dir, e)),
    }
    None
}

/// The files of each of `names` that has some in `dir`.
fn of_each<'n>(
    dir: &Path,
    names: impl IntoIterator<Item = &'n String>,
) -> BTreeMap<String, Vec<VarsFile>> {
    names
        .into_iter()
        .map(|name| (name.clone(), find(dir, name)))
        .filter(|(_, files)| !files.is_empty())
        .collect()
}

/// The files of `name` in `dir`: the first of `name` and `name` with each extension that
/// exists, read as a file or a folder.
fn find(dir: &Path, name: &str) -> Vec<VarsFile> {
    // A name that is no single file name would reach outside `dir`: Ansible's own names
    // never are one (driftgate refuses them as tags and host names).
    if name.is_empty() || name == "." || name == ".." || name.contains(['/', '\0']) {
        return Vec::new();
    }
    for extension in std::iter::once("").chain(EXTENSIONS.iter().copied()) {
        let path = dir.join(format!("{name}{extension}"));
        match std::fs::metadata(&path) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            Err(e) => return vec![unreadable(path, e)],
            Ok(meta) if meta.is_dir() => return in_folder(&path),
            Ok(_) => return vec![read_file(path)],
        }
    }
    Vec::new()
}

/// Every vars file in `folder` and its folders without an extension, in name order.
fn in_folder(folder: &Path) -> Vec<VarsFile> {
    let entries = match std::fs::read_dir(folder) {
        Ok(entries) => entries,
        Err(e) => return vec![unreadable(folder.to_path_buf(), e)],
    };
    let mut names = Vec::new();
    for entry in entries {
        match entry {
            Ok(entry) => names.push(entry.file_name()),
            Err(e) => return vec![unreadable(folder.to_path_buf(), e)],
        }
    }
    // Python's sorted() of names orders by code point, as bytes of UTF-8 sort.
    names.sort();
    let mut found = Vec::new();
    for name in names {
        let path = folder.join(&name);
        let name = name.to_string_lossy();
        if name.starts_with('.') || name.ends_with('~') {
            continue;
        }
        let extension = extension(&name);
        match std::fs::metadata(&path) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => found.push(unreadable(path, e)),
            Ok(meta) if meta.is_dir() => {
                if extension.is_none() {
                    found.extend(in_folder(&path));
                }
            }
            Ok(meta) if meta.is_file() => {
                if extension.is_none_or(|e| EXTENSIONS.contains(&e)) {
                    found.push(read_file(path));
                }
            }
            // A FIFO, a socket, a device: Ansible reads regular files only.
            Ok(_) => {}
        }
    }
    found
}

/// A name's extension as Python's `os.path.splitext` splits it: from its last `.`, unless
/// the name starts with the only one.
fn extension(name: &str) -> Option<&str> {
    let stem_start = name.len() - name.trim_start_matches('.').len();
    name[stem_start..]
        .rfind('.')
        .map(|i| &name[stem_start + i..])
}

fn read_file(path: PathBuf) -> VarsFile {
    match std::fs::read(&path) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(text) => VarsFile {
                path,
                text: Ok(text),
            },
            Err(_) => unreadable(path, "not UTF-8 text"),
        },
        Err(e) => unreadable(path, e),
    }
}

fn unreadable(path: PathBuf, reason: impl ToString) -> VarsFile {
    VarsFile {
        path,
        text: Err(reason.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::extension;

    #[test]
    fn extensions_split_as_python_splits_them() {
        assert_eq!(extension("a.yml"), Some(".yml"));
        assert_eq!(extension("a.b.json"), Some(".json"));
        assert_eq!(extension("a"), None);
        assert_eq!(extension("a."), Some("."));
        assert_eq!(extension("..a"), None);
        assert_eq!(extension(".a.yml"), Some(".yml"));
    }
}
