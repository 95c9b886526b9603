//! The words of an attribute name, display name or help text, and terms found in them at word
//! boundaries, however the vendor spells the joins: `PCIE_SLOT_1_Port1_LinkStatus`,
//! `Link Status` and `LINK_STATUS` all hold the term `linkstatus`, `NC-SI` and `NCSI` the term
//! `ncsi`; `SETS` and `PACKETS` do not hold `ets`.

use driftgate_secrets::Split;

/// Lower-cased words, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Words(Split);

impl Words {
    /// Splits `text` as secret names are split ([`driftgate_secrets::words`]): at anything
    /// not an ASCII letter or digit, where a lower-case letter meets an upper-case one
    /// (`linkStatus`), where an upper-case run ends before a capitalised word (`EFIVersion` →
    /// `EFI Version`, `DCBXMode` → `DCBX Mode`) and where letters meet digits (`Port1` →
    /// `Port 1`).
    pub(super) fn of(text: &str) -> Words {
        Words(Split::of(text))
    }

    /// Whether consecutive words, joined, are `term` (lower case, no separators):
    /// `priorityflowcontrol` is in `Priority Flow Control` and `PriorityFlowControl`.
    pub(super) fn has(&self, term: &str) -> bool {
        self.0.starts().any(|start| self.run_at(start, term))
    }

    /// Whether the last words, joined, are `term`.
    pub(super) fn ends_with(&self, term: &str) -> bool {
        let text = self.0.text();
        text.len()
            .checked_sub(term.len())
            .is_some_and(|start| self.0.starts_at(start) && self.run_at(start, term))
    }

    /// Whether one word holds `letters` anywhere (`DCBXMODE` holds `dcbx`): for the terms no
    /// other word contains.
    pub(super) fn within(&self, letters: &str) -> bool {
        let letters = letters.as_bytes();
        self.0.words().any(|word| {
            word.as_bytes()
                .windows(letters.len())
                .any(|at| at[0] == letters[0] && at == letters)
        })
    }

    /// Whether the words from the one starting at `start`, joined, are `term`. The first
    /// letter is compared before the rest: this runs for every term, word and attribute of a
    /// capture, and most words begin otherwise.
    fn run_at(&self, start: usize, term: &str) -> bool {
        let text = self.0.text();
        text.as_bytes().get(start) == term.as_bytes().first()
            && text[start..].starts_with(term)
            && self.0.ends_at(start + term.len())
    }

    /// Whether the last word is one of `words`.
    pub(super) fn last_is(&self, words: &[&str]) -> bool {
        self.0
            .words()
            .next_back()
            .is_some_and(|last| words.contains(&last))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        Words::of(text).0.words().map(str::to_owned).collect()
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
        assert!(!of("DCB XMode").within("dcbx"), "not across words");
        assert!(!of("").has("dcb") && !of("").ends_with("dcb") && !of("").last_is(&[""]));
    }

    #[test]
    fn the_joined_words_find_what_comparing_word_by_word_finds() {
        // The search of the joined words against a comparison of the words from each start.
        fn run_from(words: &[String], start: usize, term: &str) -> Option<usize> {
            let mut rest = term;
            for (i, word) in words.iter().enumerate().skip(start) {
                rest = rest.strip_prefix(word.as_str())?;
                if rest.is_empty() {
                    return Some(i + 1);
                }
            }
            None
        }
        let names = [
            "PCIE_SLOT_1_Port1_LinkStatus",
            "Sets how many packets",
            "DCBXMode",
            "DCB_XMode",
            "iSCSIDualIPVersionSupport",
            "Priority Flow Control (PFC) and PFCPFC",
            "ets ETS ets",
            "Enables data center bridging exchange (DCBX) on the LLDP agent",
            "NegotiatedLinkSpeed",
            "RoCE_CongestionControl_DCQCN",
        ];
        let terms = super::super::DCB
            .iter()
            .map(|(term, _)| *term)
            .chain(super::super::STATUS_PLAIN.iter().copied())
            .chain(super::super::STATUS_READ_ONLY.iter().copied());
        for term in terms {
            for name in names {
                let split = Words::of(name);
                let words: Vec<String> = split.0.words().map(str::to_owned).collect();
                let runs = || (0..words.len()).map(|start| run_from(&words, start, term));
                let has = runs().any(|end| end.is_some());
                let ends_with = runs().any(|end| end == Some(words.len()));
                assert_eq!(split.has(term), has, "{name}: {term}");
                assert_eq!(split.ends_with(term), ends_with, "{name}: {term}");
                let within = words.iter().any(|word| word.contains(term));
                assert_eq!(split.within(term), within, "{name}: {term}");
            }
        }
    }
}
