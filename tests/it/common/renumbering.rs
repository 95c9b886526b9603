//! A BMC's renumbering of a mockup: what a firmware update or a reset of the BMC does to the
//! numbers it gives the members of its collections.
//!
//! A member whose `Id` is a bare number (`Ports/1`, `FirmwareInventory/16`, `Systems/1`) is
//! given another number: the numbers of one collection are permuted and offset past the
//! largest (`1, 2, 3` → `6, 5, 4`), so no member keeps its number. A member whose `Id` is a
//! stable name (a Dell FQDD `NIC.Slot.3-1-1`, `BMC`, `UEFI`, Lenovo's `slot-1`) keeps it.
//! Every collection, renumbered or not, is then listed in reverse order.

use super::mockups::Mockup;

impl Mockup {
    /// Renumbers every collection of the mockup as a BMC does (see the module documentation);
    /// returns each (old URI, new URI) renamed.
    pub(crate) fn renumber(&mut self) -> Vec<(String, String)> {
        let mut collections = self.collections();
        // Deepest first: renaming a member moves everything below it, so the collections
        // below it must be renumbered while their URIs are still the ones listed here.
        collections.sort_by_key(|uri| std::cmp::Reverse(uri.matches('/').count()));
        let mut renamed = Vec::new();
        for collection in collections {
            let numbered: Vec<(String, u64)> = self
                .members(&collection)
                .into_iter()
                .filter_map(|uri| {
                    let number = uri.rsplit('/').next()?.parse::<u64>().ok()?;
                    Some((uri, number))
                })
                .collect();
            let Some(largest) = numbered.iter().map(|(_, n)| *n).max() else {
                continue;
            };
            let mut by_number = numbered.clone();
            by_number.sort_by_key(|(_, n)| *n);
            let count = by_number.len() as u64;
            for (rank, (uri, _)) in by_number.into_iter().enumerate() {
                // The smallest gets the largest new number: a permutation plus an offset.
                let number = largest + count - rank as u64;
                let parent = uri.rsplit_once('/').map_or("", |(parent, _)| parent);
                let new = format!("{parent}/{number}");
                self.rename(&uri, &new);
                renamed.push((uri, new));
            }
        }
        self.reverse_every_collection();
        renamed
    }
}

#[test]
fn a_renumbering_gives_every_numbered_member_another_number_and_keeps_names() {
    let dir = super::root().join("tests/fixtures/redfish/dgx-standard-ports");
    let mut mockup = Mockup::load(&dir);
    let renamed = mockup.renumber();
    assert!(
        renamed.contains(&(
            "/redfish/v1/Chassis/1".to_owned(),
            "/redfish/v1/Chassis/2".to_owned()
        )),
        "{renamed:?}"
    );
    let adapter = "/redfish/v1/Chassis/2/NetworkAdapters/CX7_0";
    assert_eq!(
        mockup.members(&format!("{adapter}/Ports")),
        ["3", "4", "5"].map(|n| format!("{adapter}/Ports/{n}")),
        "0, 1, 2 → 5, 4, 3, listed in reverse"
    );
    let port = &mockup.resources[&format!("{adapter}/Ports/5")];
    assert_eq!(port["Id"], "5");
    assert_eq!(port["@odata.id"], format!("{adapter}/Ports/5"));
    assert_eq!(
        mockup.members(&format!("{adapter}/NetworkDeviceFunctions")),
        ["2", "3"].map(|n| format!("{adapter}/NetworkDeviceFunctions/{n}")),
        "0, 1 → 3, 2, listed in reverse"
    );
}
