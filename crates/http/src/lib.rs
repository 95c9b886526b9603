//! The HTTP stack of the captures that talk to a service over the network: a BMC's Redfish
//! and a vCenter's SOAP alike. Transport only: which certificates are trusted (system roots,
//! a CA file, a SHA-256 pin, `--insecure`; [`tls`]), what an untrusted certificate says about
//! itself ([`certificate`]), a service's own connections on hyper ([`connections`]), an
//! answer's body read under a cap ([`body`]), the account a service is logged in with
//! ([`credentials`], [`account_value`](mod@account_value)), URL hygiene ([`uri`]), error texts
//! ([`causes`](mod@causes)) and the run's stop ([`cancel`]). What the requests and answers mean
//! (Redfish sessions, SOAP envelopes) belongs to the crates above.

pub mod account_value;
pub mod body;
pub mod cancel;
pub mod causes;
pub mod certificate;
pub mod connections;
pub mod credentials;
pub mod tls;
pub mod trust;
pub mod uri;

pub use account_value::{
    AccountValue, AccountValueError, CREDENTIALS_DIRECTORY, Found, account_value,
};
pub use cancel::Cancel;
pub use credentials::{Credentials, CredentialsError};
pub use trust::{ClientError, TlsTrust};
pub use uri::redact_userinfo;
