//! `driftgate mockup`.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context as _, bail};
use driftgate::collect::redfish::fetch::MockupDir;
use driftgate::mockup::{self, AuthRequirement, Fault, ServeOptions};

use super::Context;
use crate::exit::Outcome;

/// Mockup subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// Serve a DMTF mockup folder as a Redfish service, to dry-run gates and test pipelines.
    ///
    /// Prints `serving DIR on URL` (and the certificate's sha256 pin with TLS), then serves
    /// until stopped. With --auth basic or session, the account is DRIFTGATE_MOCKUP_USERNAME
    /// and DRIFTGATE_MOCKUP_PASSWORD.
    Serve {
        /// The mockup: DIR/redfish/v1/…/index.json, or DIR as the /redfish/v1 root.
        dir: PathBuf,
        /// Address to listen on (port 0: any free port).
        #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8000")]
        listen: SocketAddr,
        /// Milliseconds to wait before every answer (real BMCs take 90–530 ms).
        #[arg(long, value_name = "MS", default_value_t = 0)]
        latency: u64,
        /// Authentication required from clients.
        #[arg(long, value_enum, default_value_t = AuthRequirement::None)]
        auth: AuthRequirement,
        /// Inject a failure (repeatable): unavailable=N, session-limit, expire-sessions=N,
        /// logins=N, no-expand, truncate=URI, oversize=URI, redirect-loop=URI, hang=URI, status=CODE:URI.
        #[arg(long = "fault", value_name = "FAULT", value_parser = Fault::parse)]
        faults: Vec<Fault>,
        /// Serve HTTPS with a freshly generated self-signed certificate.
        #[arg(long, conflicts_with_all = ["tls_cert", "tls_key"])]
        tls: bool,
        /// Serve HTTPS with this PEM certificate chain.
        #[arg(long, value_name = "PEM", requires = "tls_key")]
        tls_cert: Option<PathBuf>,
        /// The PEM private key of --tls-cert.
        #[arg(long, value_name = "PEM", requires = "tls_cert")]
        tls_key: Option<PathBuf>,
    },
}

pub fn run(command: Command, ctx: &Context<'_>) -> anyhow::Result<Outcome> {
    let Command::Serve {
        dir,
        listen,
        latency,
        auth,
        faults,
        tls,
        tls_cert,
        tls_key,
    } = command;
    let mockup = MockupDir::open(&dir)?;
    let account = match (
        std::env::var("DRIFTGATE_MOCKUP_USERNAME"),
        std::env::var("DRIFTGATE_MOCKUP_PASSWORD"),
    ) {
        (Ok(user), Ok(password)) if !user.is_empty() => Some((user, password)),
        _ if auth != AuthRequirement::None => {
            bail!(
                "--auth {auth:?} needs DRIFTGATE_MOCKUP_USERNAME and DRIFTGATE_MOCKUP_PASSWORD"
                    .to_lowercase()
            )
        }
        _ => None,
    };
    let identity = match (tls, &tls_cert, &tls_key) {
        (true, _, _) => Some(mockup::self_signed().map_err(anyhow::Error::msg)?),
        (false, Some(cert), Some(key)) => {
            let cert_pem =
                std::fs::read(cert).with_context(|| format!("{}: cannot read", cert.display()))?;
            let key_pem =
                std::fs::read(key).with_context(|| format!("{}: cannot read", key.display()))?;
            Some(mockup::from_pem(&cert_pem, &key_pem).map_err(anyhow::Error::msg)?)
        }
        _ => None,
    };
    let options = ServeOptions {
        mockup,
        latency: Duration::from_millis(latency),
        auth,
        account,
        faults,
    };
    let runtime = super::runtime()?;
    let (acceptor, pin) = match identity {
        Some((acceptor, pin)) => (Some(acceptor), Some(pin)),
        None => (None, None),
    };
    let scheme = if acceptor.is_some() { "https" } else { "http" };
    runtime
        .block_on(mockup::serve(listen, options, acceptor, |address| {
            let pin = pin
                .map(|p| format!(" (certificate {p})"))
                .unwrap_or_default();
            // Scripts and tests read this line for the port.
            let _ = ctx.printer.stdout(|out| {
                writeln!(
                    out,
                    "serving {} on {scheme}://{address}{pin}",
                    dir.display()
                )
            });
        }))
        .with_context(|| format!("cannot serve on {listen}"))?;
    Ok(Outcome::Done)
}
