//! Where a host's BMC account is: a reference, never the secret itself.

use std::path::PathBuf;
use std::sync::Arc;

use driftgate_http::{
    AccountValue, AccountValueError, Credentials, CredentialsError, Found, account_value,
};

/// Where a host's BMC account is: never the secret itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CredentialsRef {
    /// Two environment variables of the process that runs driftgate. Shared: the hosts that
    /// inherit one reference hold the same names, not a copy each.
    Env {
        /// Holds the user name.
        username_env: Arc<str>,
        /// Holds the password.
        password_env: Arc<str>,
    },
    /// A TOML file with `username` and `password`, refused when group- or world-readable.
    File(PathBuf),
}

/// Why a [`CredentialsRef`] gave no account. Names the variable or file, never a value.
#[derive(Debug, thiserror::Error)]
pub enum CredentialsRefError {
    /// Neither the variable nor a systemd credential of its name is there.
    #[error(
        "environment variable {0} is not set, nor a credential of that name in $CREDENTIALS_DIRECTORY (the inventory names it for the BMC account)"
    )]
    Unset(String),
    /// The variable (or credential) is there but empty: what names it, as
    /// [`AccountValue::named`] says.
    #[error("{0} is empty (the inventory names it for the BMC account)")]
    Empty(String),
    /// The variable or credential cannot be read.
    #[error(transparent)]
    Value(#[from] AccountValueError),
    /// The credentials file was refused.
    #[error(transparent)]
    File(#[from] CredentialsError),
}

impl CredentialsRef {
    /// Reads the account the reference points at: each variable from the environment or, when
    /// not set there, from the systemd credential of its name (`LoadCredential=`); both must be
    /// non-empty. A file goes through [`Credentials::from_file`] (refused when others can read
    /// it).
    pub fn resolve(&self) -> Result<Credentials, CredentialsRefError> {
        match self {
            CredentialsRef::Env {
                username_env,
                password_env,
            } => {
                let username = named_value(username_env)?;
                let password = named_value(password_env)?;
                let origin = if (username.found, password.found)
                    == (Found::Environment, Found::Environment)
                {
                    format!("the environment variables {username_env} and {password_env}")
                } else {
                    format!(
                        "{} and {}",
                        username.named(username_env),
                        password.named(password_env)
                    )
                };
                Ok(Credentials {
                    username: username.value,
                    password: password.value,
                    origin: format!("{origin} (the host's `credentials` in the inventory)"),
                })
            }
            CredentialsRef::File(path) => Ok(Credentials::from_file(path)?),
        }
    }

    /// The environment variables the reference reads (none for a file): the caller withholds
    /// them from child processes (`ProcessOptions::withheld_env`).
    pub fn env_names(&self) -> Vec<&str> {
        match self {
            CredentialsRef::Env {
                username_env,
                password_env,
            } => vec![username_env, password_env],
            CredentialsRef::File(_) => Vec::new(),
        }
    }
}

fn named_value(name: &str) -> Result<AccountValue, CredentialsRefError> {
    match account_value(name)? {
        Some(value) if value.value.is_empty() => Err(CredentialsRefError::Empty(value.named(name))),
        Some(value) => Ok(value),
        None => Err(CredentialsRefError::Unset(name.to_owned())),
    }
}
