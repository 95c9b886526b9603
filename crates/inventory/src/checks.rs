//! What both inventory formats (`inventory.toml` and an Ansible inventory) check alike:
//! fleet, cluster and tag names, `KIND=LOCATION` sources, and keys or values that would hold
//! a secret. Each check's error names the bad input; the reader that calls it adds the file,
//! the line and the host ([`super::Problem`]).

use std::path::Path;

use driftgate_collect::transport::Location;
use driftgate_collect::{BadSource, SourceSpec};
use driftgate_redfish::RedfishLocation;
use driftgate_snapshot::file_names::{self, BadName, NameKind, NameTooLong};

/// Keys of `credentials = { … }`.
pub(super) const CREDENTIALS_KEYS: &[&str] = &["username_env", "password_env"];
/// Keys of `timeouts = { … }`.
pub(super) const TIMEOUT_KEYS: &[&str] = &["bmc_seconds", "host_seconds", "command_seconds"];

/// What a key that would hold a secret is told.
pub(super) const NO_SECRETS: &str = "never put a secret in the inventory: reference it with credentials = { username_env, password_env } or credentials_file";

/// Why a `KIND=LOCATION` source of an inventory is refused. Never quotes a secret: a refused
/// query parameter is named, not its value, and [`BadSource`] hides `user:password@`.
#[derive(Debug, thiserror::Error)]
pub(super) enum SourceError {
    /// A query parameter whose name says it holds a secret (`?password=…`).
    #[error("bad source: query parameter `{key}`: {}", NO_SECRETS)]
    SecretQuery {
        /// The parameter's name.
        key: String,
    },
    /// Not a source driftgate reads.
    #[error("bad source: {0}")]
    Spec(#[from] BadSource),
}

/// Why a fleet, cluster or tag name is refused.
#[derive(Debug, thiserror::Error)]
pub(super) enum NameError {
    /// Not spelled as a file name may be.
    #[error("{name:?}: use letters, digits, `.`, `_` and `-`, starting with a letter or digit")]
    Spelling {
        /// The name as written.
        name: String,
    },
    /// Longer than a file name built from it may be.
    #[error("{0}")]
    TooLong(NameTooLong),
}

/// Parses one `KIND=LOCATION` source of an inventory; `dir:` and `mockup:` folders are
/// relative to `base` (the inventory's folder).
pub(super) fn source(text: &str, base: &Path) -> Result<SourceSpec, SourceError> {
    // SourceSpec's messages hide `user:password@`, but quote the rest of the text.
    if let Some(key) = secret_query_key(text) {
        return Err(SourceError::SecretQuery {
            key: key.to_owned(),
        });
    }
    Ok(relative_source(SourceSpec::parse(text)?, base))
}

/// `dir:` and `mockup:` folders are relative to the inventory's folder.
fn relative_source(source: SourceSpec, base: &Path) -> SourceSpec {
    let dir = |location: Location| match location {
        Location::Dir(path) => Location::Dir(base.join(path)),
        other => other,
    };
    match source {
        SourceSpec::Redfish(RedfishLocation::Mockup(path)) => {
            SourceSpec::Redfish(RedfishLocation::Mockup(base.join(path)))
        }
        SourceSpec::Redfish(live) => SourceSpec::Redfish(live),
        SourceSpec::Windows(location) => SourceSpec::Windows(dir(location)),
        SourceSpec::Linux(location) => SourceSpec::Linux(dir(location)),
        SourceSpec::Esxi(location) => SourceSpec::Esxi(dir(location)),
        SourceSpec::EsxiVcenter(vcenter) => SourceSpec::EsxiVcenter(vcenter),
        SourceSpec::Lldp(location) => SourceSpec::Lldp(dir(location)),
    }
}

/// Whether a key name says it holds a secret (`password`, `token`, `api_key`, `community`…).
pub(super) fn is_secret_key(name: &str) -> bool {
    driftgate_secrets::is_secret_name(name)
}

/// A query parameter of a location whose name says it holds a secret (`?password=…`).
fn secret_query_key(location: &str) -> Option<&str> {
    let (_, query) = location.split_once('?')?;
    query
        .split('&')
        .map(|pair| pair.split_once('=').map_or(pair, |(key, _)| key))
        // `pin` is a certificate's public fingerprint, not a PIN.
        .find(|key| *key != "pin" && is_secret_key(key))
}

/// Fleet, cluster and tag names: spelled as host names, as they become folder names and
/// selection arguments, and no longer than [`file_names`] allows their kind.
pub(super) fn check_name(name: &str, kind: NameKind) -> Result<(), NameError> {
    file_names::check(kind, name).map_err(|bad| match bad {
        BadName::Spelling { .. } => NameError::Spelling {
            name: name.to_owned(),
        },
        BadName::TooLong(too_long) => NameError::TooLong(too_long),
    })
}

/// What a credentials key that does not hold a variable name is told. The value is never
/// quoted: a value that is no variable name may be the secret itself.
pub(super) fn not_an_env_name(key: &str) -> String {
    format!(
        "`{key}` must name an environment variable (letters, digits and `_`, not starting with a digit), not hold the value"
    )
}

/// Whether `name` is spelled as an environment variable's name.
pub(super) fn is_env_name(name: &str) -> bool {
    name.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}
