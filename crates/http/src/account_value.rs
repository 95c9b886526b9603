//! One value of a BMC account by name: an environment variable, or the systemd credential of
//! that name. A service started with `LoadCredential=NAME:FILE` gets the value as the file
//! `$CREDENTIALS_DIRECTORY/NAME` (mode 0400, its user only), so no environment carries the
//! secret: not the service's, and not that of a `git` or `ssh` the unit also runs.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::credentials::{CredentialsError, read_private};

/// The variable systemd sets to the folder of a service's credentials.
pub const CREDENTIALS_DIRECTORY: &str = "CREDENTIALS_DIRECTORY";

/// Where an [`AccountValue`] was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Found {
    /// The environment variable of its name.
    Environment,
    /// The file of its name in `$CREDENTIALS_DIRECTORY`.
    Credential,
}

/// A user name or password, and where it was found. `Debug` never shows the value.
pub struct AccountValue {
    /// The value (a credential's one trailing newline dropped).
    pub value: String,
    /// Where it was.
    pub found: Found,
}

impl std::fmt::Debug for AccountValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AccountValue")
            .field("value", &"<redacted>")
            .field("found", &self.found)
            .finish()
    }
}

impl AccountValue {
    /// What names the value for an operator: `DRIFTGATE_BMC_PASSWORD`, or `the credential
    /// DRIFTGATE_BMC_PASSWORD ($CREDENTIALS_DIRECTORY)`.
    pub fn named(&self, name: &str) -> String {
        match self.found {
            Found::Environment => name.to_owned(),
            Found::Credential => format!("the credential {name} (${CREDENTIALS_DIRECTORY})"),
        }
    }
}

/// Why a named value could not be read. Names the variable or file, never a value.
#[derive(Debug, thiserror::Error)]
pub enum AccountValueError {
    /// The environment variable does not hold UTF-8 text.
    #[error("environment variable {0} is not valid UTF-8")]
    NotUnicode(String),
    /// The credential file is refused (readable by others) or cannot be read.
    #[error("the credential {name}: {error}")]
    Credential {
        /// The credential's name.
        name: String,
        /// Why.
        error: CredentialsError,
    },
}

/// The value named `name`: the environment variable, or when that is not set, the systemd
/// credential `$CREDENTIALS_DIRECTORY/NAME` (refused when group- or world-readable). `None`
/// when neither exists.
pub fn account_value(name: &str) -> Result<Option<AccountValue>, AccountValueError> {
    lookup(
        name,
        std::env::var_os(name),
        std::env::var_os(CREDENTIALS_DIRECTORY).map(PathBuf::from),
    )
}

/// [`account_value`] of a given environment value and credentials folder.
fn lookup(
    name: &str,
    variable: Option<OsString>,
    credentials: Option<PathBuf>,
) -> Result<Option<AccountValue>, AccountValueError> {
    if let Some(value) = variable {
        let value = value
            .into_string()
            .map_err(|_| AccountValueError::NotUnicode(name.to_owned()))?;
        return Ok(Some(AccountValue {
            value,
            found: Found::Environment,
        }));
    }
    // A credential's name is a file name: a name with a separator or a dot path names none.
    let Some(file) = credentials
        .filter(|_| is_file_name(name))
        .map(|d| d.join(name))
    else {
        return Ok(None);
    };
    if !file.exists() {
        return Ok(None);
    }
    let text = read_private(&file).map_err(|error| AccountValueError::Credential {
        name: name.to_owned(),
        error,
    })?;
    Ok(Some(AccountValue {
        value: without_final_newline(text),
        found: Found::Credential,
    }))
}

fn is_file_name(name: &str) -> bool {
    Path::new(name).file_name() == Some(name.as_ref())
}

/// A file written by an editor or `echo` ends in a newline no BMC password holds.
fn without_final_newline(mut text: String) -> String {
    if text.ends_with('\n') {
        text.pop();
    }
    text
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    fn credentials(files: &[(&str, &str, u32)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (name, text, mode) in files {
            let file = dir.path().join(name);
            std::fs::write(&file, text).unwrap();
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(*mode)).unwrap();
        }
        dir
    }

    #[test]
    fn a_value_not_in_the_environment_is_read_from_the_credential_of_its_name() {
        let dir = credentials(&[("BMC_PASSWORD", "with\"quote\\ and\nnewline\n", 0o400)]);
        let found = lookup("BMC_PASSWORD", None, Some(dir.path().into()))
            .unwrap()
            .expect("the credential");
        assert_eq!(found.value, "with\"quote\\ and\nnewline");
        assert_eq!(found.found, Found::Credential);
        assert_eq!(
            found.named("BMC_PASSWORD"),
            "the credential BMC_PASSWORD ($CREDENTIALS_DIRECTORY)"
        );
        assert!(!format!("{found:?}").contains("quote"));
        // The environment wins; a name without a credential (or without a folder) is no value.
        let from_env = lookup("BMC_PASSWORD", Some("env".into()), Some(dir.path().into()))
            .unwrap()
            .expect("the variable");
        assert_eq!(
            (from_env.value.as_str(), from_env.found),
            ("env", Found::Environment)
        );
        assert!(
            lookup("OTHER", None, Some(dir.path().into()))
                .unwrap()
                .is_none()
        );
        assert!(lookup("BMC_PASSWORD", None, None).unwrap().is_none());
    }

    #[test]
    fn a_credential_others_can_read_is_refused_and_no_name_leaves_the_folder() {
        let dir = credentials(&[("PASS", "cred-s3cret", 0o644)]);
        let error = lookup("PASS", None, Some(dir.path().into()))
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with("the credential PASS: ")
                && error.contains("readable by group or others (mode 644)")
                && !error.contains("cred-s3cret"),
            "{error}"
        );
        let inner = dir.path().join("inner");
        std::fs::create_dir(&inner).unwrap();
        for name in ["../PASS", "..", ".", "", "a/b"] {
            assert!(
                lookup(name, None, Some(inner.clone())).unwrap().is_none(),
                "{name}"
            );
        }
    }
}
