//! The words of an attribute name, display name or help text, and terms found in them at word
//! boundaries, however the vendor spells the joins: `PCIE_SLOT_1_Port1_LinkStatus`,
//! `Link Status` and `LINK_STATUS` all hold the term `linkstatus`, `NC-SI` and `NCSI` the term
//! `ncsi`; `SETS` and `PACKETS` do not hold `ets`.

/// Lower-cased words, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Words(Vec<String>);

impl Words {
    /// Splits `text` as secret names are split ([`driftgate_secrets::words`]): at anything
    /// not an ASCII letter or digit, where a lower-case letter meets an upper-case one
    /// (`linkStatus`), where an upper-case run ends before a capitalised word (`EFIVersion` →
    /// `EFI Version`, `DCBXMode` → `DCBX Mode`) and where letters meet digits (`Port1` →
    /// `Port 1`).
    pub(super) fn of(text: &str) -> Words {
        Words(driftgate_secrets::words(text))
    }

    /// Whether consecutive words, joined, are `term` (lower case, no separators):
    /// `priorityflowcontrol` is in `Priority Flow Control` and `PriorityFlowControl`.
    pub(super) fn has(&self, term: &str) -> bool {
        (0..self.0.len()).any(|start| self.run_from(start, term).is_some())
    }

    /// Whether the last words, joined, are `term`.
    pub(super) fn ends_with(&self, term: &str) -> bool {
        (0..self.0.len()).any(|start| self.run_from(start, term) == Some(self.0.len()))
    }

    /// Whether one word holds `letters` anywhere (`DCBXMODE` holds `dcbx`): for the terms no
    /// other word contains.
    pub(super) fn within(&self, letters: &str) -> bool {
        self.0.iter().any(|word| word.contains(letters))
    }

    /// Whether the last word is one of `words`.
    pub(super) fn last_is(&self, words: &[&str]) -> bool {
        self.0
            .last()
            .is_some_and(|last| words.contains(&last.as_str()))
    }

    /// The end (exclusive) of the words from `start` that, joined, are `term`.
    fn run_from(&self, start: usize, term: &str) -> Option<usize> {
        let mut rest = term;
        for (i, word) in self.0.iter().enumerate().skip(start) {
            rest = rest.strip_prefix(word.as_str())?;
            if rest.is_empty() {
                return Some(i + 1);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        Words::of(text).0
    }

    #[test]
    fn names_split_into_words_however_they_are_joined() {
        assert_eq!(
            words("PCIE_SLOT_1_Port1_LinkStatus"),
            ["pcie", "slot", "1", "port", "1", "link", "status"]
        );
        assert_eq!(words("EFIVersion"), ["efi", "version"]);
        assert_eq!(words("Broadcom_DCBXMode"), ["broadcom", "dcbx", "mode"]);
        assert_eq!(
            words("iSCSIDualIPVersionSupport")[1..],
            ["scsi", "dual", "ip", "version", "support"]
        );
        assert_eq!(words("NC-SI"), ["nc", "si"]);
        assert_eq!(words("  APE FW "), ["ape", "fw"]);
        assert!(words("").is_empty());
    }

    #[test]
    fn terms_are_found_at_word_boundaries_only() {
        let of = Words::of;
        assert!(of("Priority Flow Control").has("priorityflowcontrol"));
        assert!(of("PriorityFlowControl").has("flowcontrol"));
        assert!(of("NC-SI").has("ncsi"));
        assert!(of("ETS bandwidth share").has("ets"));
        for text in ["Sets how many packets", "PACKETS", "SETS", "Offsets"] {
            assert!(!of(text).has("ets"), "{text}");
        }
        assert!(!of("DCBX Mode").has("dcb"), "a word is not cut");
        assert!(of("DCBX Mode").has("dcbx"));
        assert!(of("PCIE_SLOT_1_PORT1_DCBXMODE").within("dcbx"));
        assert!(of("Vendor_CurrentLinkSpeed").ends_with("currentlinkspeed"));
        assert!(!of("CurrentLinkSpeedMode").ends_with("currentlinkspeed"));
        assert!(of("DCBX Support").last_is(&["support"]));
    }
}
