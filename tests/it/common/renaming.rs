//! A BMC's renaming of a mockup's network device functions: what a firmware update of the BMC
//! does to the names it gives them (`eth0f0` → `p0f0`, `1.1` → `F1`,
//! `NetworkDeviceFunction1` ↔ `NetworkDeviceFunction2`).
//!
//! Each function of each adapter is renamed everywhere the service names it: its `Id`, its
//! URI and the URIs below it, every link to it, and the same function where the service shows
//! it under a system too (iDRAC's `Systems/…/NetworkAdapters/…/NetworkDeviceFunctions/<id>/
//! Settings`).

use super::mockups::Mockup;

/// How the functions are renamed.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Renaming {
    /// Every function gets a new name of another scheme: `F1`, `F2`… of its adapter, by the
    /// order the BMC lists them in, reversed.
    Fresh,
    /// The names of each adapter's functions are rotated among them (with two, swapped): each
    /// function gets the name another had.
    Rotated,
}

impl Mockup {
    /// Renames every network device function (see the module documentation); returns each
    /// (old URI, new URI).
    pub(crate) fn rename_functions(&mut self, renaming: Renaming) -> Vec<(String, String)> {
        let collections: Vec<String> = self
            .collections()
            .into_iter()
            .filter(|uri| uri.ends_with("/NetworkDeviceFunctions") && uri.contains("/Chassis/"))
            .collect();
        let mut renamed = Vec::new();
        for collection in collections {
            let members = self.members(&collection);
            let names: Vec<String> = members
                .iter()
                .map(|uri| uri.rsplit('/').next().unwrap_or("").to_owned())
                .collect();
            let count = names.len();
            let new_names: Vec<String> = match renaming {
                Renaming::Fresh => (0..count).map(|i| format!("F{}", count - i)).collect(),
                Renaming::Rotated if count > 1 => {
                    (0..count).map(|i| names[(i + 1) % count].clone()).collect()
                }
                Renaming::Rotated => continue,
            };
            // Through names no function has, so that a rotation never meets itself.
            let staged: Vec<String> = names.iter().map(|n| format!("{n}-renaming")).collect();
            for (old, temporary) in names.iter().zip(&staged) {
                self.rename_function(&collection, old, temporary);
            }
            for ((old, temporary), new) in names.iter().zip(&staged).zip(&new_names) {
                self.rename_function(&collection, temporary, new);
                renamed.push((format!("{collection}/{old}"), format!("{collection}/{new}")));
            }
        }
        renamed
    }

    /// Renames the function `old` of the adapter whose functions are at `collection` to `new`,
    /// under the chassis and under any system that shows the same adapter.
    fn rename_function(&mut self, collection: &str, old: &str, new: &str) {
        let adapter = collection
            .split_once("/NetworkAdapters/")
            .map_or("", |(_, rest)| rest);
        let tail = format!("/NetworkAdapters/{adapter}/{old}");
        let prefixes: Vec<String> = self
            .resources
            .keys()
            .filter_map(|uri| {
                let at = uri.find(&tail)?;
                let end = at + tail.len();
                (uri.len() == end || uri[end..].starts_with('/')).then(|| uri[..end].to_owned())
            })
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        for prefix in prefixes {
            let parent = prefix.rsplit_once('/').map_or("", |(parent, _)| parent);
            self.rename(&prefix, &format!("{parent}/{new}"));
        }
    }
}
