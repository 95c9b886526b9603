//! Host names, as inventories and baseline stores use them.

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::file_names::{self, BadName, NameKind};

/// A host name as inventories and baseline stores use it (`baselines/<fleet>/<host>.json`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct HostName(String);

impl JsonSchema for HostName {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "HostName".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let max = file_names::max_len(NameKind::Host);
        schemars::json_schema!({
            "description": "Host name; also a file name in the baseline store.",
            "type": "string",
            "maxLength": max,
            "pattern": format!("^[A-Za-z0-9][A-Za-z0-9._-]{{0,{}}}$", max - 1)
        })
    }
}

/// Why a string is not a host name: its spelling, or a file name built from it would be too
/// long.
#[derive(Debug, Clone, thiserror::Error)]
#[error(transparent)]
pub struct BadHostName(#[from] BadName);

impl HostName {
    /// Validates a host name; it becomes file names (`<host>.json`, `<host>.result.json`), so
    /// it is spelled as one and short enough for the longest of them.
    pub fn new(name: impl Into<String>) -> Result<Self, BadHostName> {
        let name = name.into();
        file_names::check(NameKind::Host, &name)?;
        Ok(Self(name))
    }

    /// The name as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::str::FromStr for HostName {
    type Err = BadHostName;
    fn from_str(s: &str) -> Result<Self, BadHostName> {
        Self::new(s)
    }
}

impl TryFrom<String> for HostName {
    type Error = BadHostName;
    fn try_from(s: String) -> Result<Self, BadHostName> {
        Self::new(s)
    }
}

impl From<HostName> for String {
    fn from(h: HostName) -> String {
        h.0
    }
}

impl fmt::Display for HostName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
