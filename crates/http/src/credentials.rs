//! A BMC account, and the private file it may be read from.

use std::path::Path;

/// A BMC account. The password never appears in `Debug` output, logs or errors.
#[derive(Clone)]
pub struct Credentials {
    /// User name.
    pub username: String,
    /// Password.
    pub password: String,
    /// Where the account came from (`--credentials-file /etc/driftgate/bmc.toml`, `the
    /// environment variables BMC_LAB_USER and BMC_LAB_PASSWORD`), never the secret: what a
    /// refused login tells the operator to check.
    pub origin: String,
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credentials")
            .field("username", &self.username)
            .field("password", &"<redacted>")
            .field("origin", &self.origin)
            .finish()
    }
}

/// Why a credentials file was refused. No message quotes the file's content.
#[derive(Debug, thiserror::Error)]
pub enum CredentialsError {
    /// Readable by others: a password there is not a secret.
    #[error("{file}: readable by group or others (mode {mode:o}); run chmod 600 {file}")]
    TooOpen {
        /// The file.
        file: String,
        /// Its permission bits.
        mode: u32,
    },
    /// The file cannot be read.
    #[error("{file}: {source}")]
    Unreadable {
        /// The file.
        file: String,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not TOML.
    #[error("{file}{}: expected username = \"…\" and password = \"…\"", line_suffix(*.line))]
    Malformed {
        /// The file.
        file: String,
        /// The 1-based line the TOML parser stopped at, when it said.
        line: Option<usize>,
    },
    /// The file is TOML, without both keys (or with others).
    #[error("{file}: expected username = \"…\" and password = \"…\" and nothing else")]
    Keys {
        /// The file.
        file: String,
    },
}

/// `:LINE`, or nothing.
fn line_suffix(line: Option<usize>) -> String {
    line.map(|line| format!(":{line}")).unwrap_or_default()
}

impl Credentials {
    /// Reads `username = "…"` and `password = "…"` (TOML) from a file that only its owner
    /// can read.
    pub fn from_file(path: &Path) -> Result<Self, CredentialsError> {
        let file = path.display().to_string();
        let text = read_private(path)?;
        // toml's messages quote the offending line, which may hold the password: say only where.
        let table: toml::Table =
            text.parse()
                .map_err(|e: toml::de::Error| CredentialsError::Malformed {
                    line: e.span().map(|span| {
                        driftgate_model::line_index::LineIndex::new(&text).line(span.start)
                    }),
                    file: file.clone(),
                })?;
        let string = |key: &str| table.get(key).and_then(toml::Value::as_str);
        let (Some(username), Some(password), 2) =
            (string("username"), string("password"), table.len())
        else {
            return Err(CredentialsError::Keys { file: file.clone() });
        };
        Ok(Credentials {
            username: username.to_owned(),
            password: password.to_owned(),
            origin: format!("the credentials file {file}"),
        })
    }
}

/// The text of a file that only its owner can read: refused when group- or world-readable,
/// before it is opened.
pub(super) fn read_private(path: &Path) -> Result<String, CredentialsError> {
    use std::os::unix::fs::PermissionsExt;
    let file = path.display().to_string();
    let unreadable = |source| CredentialsError::Unreadable {
        file: file.clone(),
        source,
    };
    let mode = std::fs::metadata(path)
        .map_err(unreadable)?
        .permissions()
        .mode()
        & 0o777;
    if mode & 0o077 != 0 {
        return Err(CredentialsError::TooOpen { file, mode });
    }
    std::fs::read_to_string(path).map_err(unreadable)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_files_must_be_private_and_errors_never_quote_them() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("bmc.toml");
        std::fs::write(&file, "username = \"root\"\npassword = \"calvin-s3cret\"\n").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        let err = Credentials::from_file(&file).unwrap_err().to_string();
        assert!(
            err.contains("readable by group or others (mode 644)"),
            "{err}"
        );
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
        let credentials = Credentials::from_file(&file).unwrap();
        assert_eq!(
            (credentials.username.as_str(), credentials.password.as_str()),
            ("root", "calvin-s3cret")
        );
        std::fs::write(&file, "username = \"root\"\npassword = calvin-s3cret\n").unwrap();
        let err = Credentials::from_file(&file).unwrap_err().to_string();
        assert!(
            err.contains("bmc.toml:2:") && !err.contains("calvin-s3cret"),
            "{err}"
        );
    }

    #[test]
    fn a_file_without_a_key_names_no_line() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("bmc.toml");
        std::fs::write(&file, "username = \"root\"\n").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
        let err = Credentials::from_file(&file).unwrap_err().to_string();
        assert!(
            err.ends_with(
                "bmc.toml: expected username = \"…\" and password = \"…\" and nothing else"
            ),
            "{err}"
        );
    }

    #[test]
    fn credentials_never_print_the_password() {
        let credentials = Credentials {
            username: "root".into(),
            password: "calvin-s3cret".into(),
            origin: "a test".into(),
        };
        assert!(!format!("{credentials:?}").contains("calvin-s3cret"));
    }
}
