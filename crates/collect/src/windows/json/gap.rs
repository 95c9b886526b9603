//! A gap in the collector's document: a section, element or property missing or of the wrong
//! type, where it is and what was expected.

use std::fmt;

/// Something the document lacks or has of the wrong type: where, and what was expected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Gap {
    /// The section (`AdapterQos`), with the element's index when it is about one element.
    pub section: String,
    /// The adapter the element is about, when known.
    pub adapter: Option<String>,
    /// What is wrong and what was expected.
    pub message: String,
}

impl fmt::Display for Gap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.section)?;
        if let Some(adapter) = &self.adapter {
            write!(f, " (adapter {adapter:?})")?;
        }
        write!(f, ": {}", self.message)
    }
}
