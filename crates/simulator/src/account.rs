//! How clients of the simulator authenticate, and the account they use.

/// How clients must authenticate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum AuthRequirement {
    /// Everything is open; logins still get a session.
    None,
    /// HTTP Basic on every request; session logins are refused (405).
    Basic,
    /// A session token or Basic on every request; logins get a session.
    Session,
}

/// The variable holding the simulator's account name (and that written inventories name).
pub const USERNAME_ENV: &str = "DRIFTGATE_MOCKUP_USERNAME";
/// The variable holding the simulator's account password (and that written inventories name).
pub const PASSWORD_ENV: &str = "DRIFTGATE_MOCKUP_PASSWORD";
