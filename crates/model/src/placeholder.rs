//! Placeholders: the texts a source answers where it has no value (`"N/A"`, `"nil"`,
//! `"Unknown"`, iLO's `"-*"` for an empty slot, `""`). They are absence, never a version or a
//! setting: a firmware "update" from `"N/A"` to `"22.31.1014"` is not one, and a DCBX mode of
//! `"Not Available"` is no mode. Pure: no I/O. The one vocabulary the Redfish readers and the
//! Linux `ethtool -i` parser ask.
//!
//! `"None"` is not among them: it is a real value of Redfish enumerations
//! (`FlowControlConfiguration`, `RDMASupport`) and of vendor attributes. Nor is
//! `"Unavailable"`: iDRAC's NIC attributes answer `Available`/`Unavailable` for what a NIC can
//! do (`FCoEBootSupport`), a setting like any other.

use std::fmt;

/// Words that stand for "no value", compared trimmed and without regard to case.
const WORDS: [&str; 9] = [
    "nil",
    "null",
    "n/a",
    "na",
    "n.a.",
    "not available",
    "not applicable",
    "unknown",
    "undefined",
];

/// Whether `text` is a placeholder rather than a value: empty or whitespace only, only dashes
/// and asterisks (`-`, `--`, iLO's `-*`), or one of the words above (`N/A`, `nil`, `Unknown`,
/// `Not Available`…), in any case, with any surrounding whitespace.
pub fn is_placeholder(text: &str) -> bool {
    let text = text.trim();
    text.chars().all(|c| c == '-' || c == '*')
        || WORDS.iter().any(|word| text.eq_ignore_ascii_case(word))
}

/// `text` when it is a value, `None` when it is a placeholder.
pub fn value(text: &str) -> Option<&str> {
    (!is_placeholder(text)).then_some(text)
}

/// At most this many placeholders are kept as examples.
const EXAMPLES: usize = 3;

/// The placeholders a source answered: how many, and the first few, where.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Placeholders {
    count: usize,
    examples: Vec<String>,
}

impl Placeholders {
    /// `property` of the resource at `uri` held a placeholder.
    pub fn saw(&mut self, uri: &str, property: &str) {
        self.count += 1;
        if self.examples.len() < EXAMPLES {
            self.examples.push(format!("{uri} {property}"));
        }
    }

    /// How many were seen.
    pub fn count(&self) -> usize {
        self.count
    }

    /// Whether placeholders outnumber the `kept` facts: most of what the source answered says
    /// nothing, which an operator should hear about rather than read an almost empty
    /// snapshot as the state of the host.
    pub fn outnumber(&self, kept: usize) -> bool {
        self.count > kept
    }
}

impl fmt::Display for Placeholders {
    /// `7 values were placeholders ("N/A", "nil", …), kept as absent, e.g. URI property, …`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let values = if self.count == 1 { "value" } else { "values" };
        write!(
            f,
            "{} {values} answered a placeholder (\"N/A\", \"nil\", \"Unknown\", \"\"…) instead of \
             a value; kept as absent, not as a version or setting",
            self.count
        )?;
        if !self.examples.is_empty() {
            write!(f, ", e.g. {}", self.examples.join(", "))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_vocabulary_of_absence_is_recognised_however_written() {
        for text in [
            "",
            " ",
            "\t\n",
            "nil",
            "NIL",
            "Nil",
            " N/A ",
            "n/a",
            "NA",
            "na",
            "N.A.",
            "Not Available",
            "NOT AVAILABLE",
            "not applicable",
            "Unknown",
            "unknown ",
            "Undefined",
            "null",
            "NULL",
            "-",
            "--",
            "-*",
            " -* ",
            "*",
        ] {
            assert!(is_placeholder(text), "{text:?} is a placeholder");
            assert_eq!(value(text), None, "{text:?}");
        }
    }

    #[test]
    fn values_that_look_like_placeholders_are_values() {
        for text in [
            "None",
            "Unavailable",
            "Disabled",
            "0",
            "22.31.1014",
            "-1",
            "N/A2",
            "NAS",
            "nil-next",
            "Unknown vendor 7",
            "n/a (see 2.1)",
            "TX_RX",
            "Enabled_IEEE",
            "-*-1",
            "\u{2014}",
        ] {
            assert!(!is_placeholder(text), "{text:?} is a value");
            assert_eq!(value(text), Some(text));
        }
    }

    #[test]
    fn broken_inputs_neither_panic_nor_count_as_values_of_nothing() {
        // Long, non-ASCII and control characters: only what the vocabulary names is absence.
        let long = "-".repeat(100_000);
        assert!(is_placeholder(&long));
        assert!(!is_placeholder(&format!("{long}x")));
        assert!(!is_placeholder("N\u{0}A"));
        assert!(!is_placeholder("ñ/a"));
        assert!(
            is_placeholder("\u{a0}N/A\u{2003}"),
            "Unicode whitespace trims too"
        );
    }

    #[test]
    fn a_tally_keeps_a_few_examples_and_says_when_placeholders_outnumber_the_facts() {
        let mut seen = Placeholders::default();
        assert!(!seen.outnumber(0));
        for i in 0..5 {
            seen.saw(
                &format!("/redfish/v1/UpdateService/FirmwareInventory/{i}"),
                "Version",
            );
        }
        assert_eq!(seen.count(), 5);
        assert!(seen.outnumber(4));
        assert!(!seen.outnumber(5), "half is not most");
        let text = seen.to_string();
        assert!(
            text.starts_with("5 values answered a placeholder"),
            "{text}"
        );
        assert!(text.contains("FirmwareInventory/0 Version, "), "{text}");
        assert!(text.contains("FirmwareInventory/2 Version"), "{text}");
        assert!(
            !text.contains("FirmwareInventory/3"),
            "three examples: {text}"
        );
    }
}
