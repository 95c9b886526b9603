//! `driftgate capture`.

use std::io::Read;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context as _, bail};
use driftgate_collect::transport::ProcessOptions;
use driftgate_collect::{Cancel, CaptureOptions, SourceSpec};
use driftgate_compare::Verdict;
use driftgate_fs::{WriteOptions, write_output};
use driftgate_http::{Credentials, account_value};
use driftgate_redfish::RedfishOptions;
use driftgate_redfish::client::ClientOptions;
use driftgate_snapshot::{HostName, SourceStatus};

use super::common::Context;
use crate::exit::Outcome;
use crate::interrupt::Interrupts;

/// The variable (or systemd credential) of the BMC user name when nothing else gives one.
const USERNAME_VAR: &str = "DRIFTGATE_BMC_USERNAME";
/// The variable (or systemd credential) of the BMC password when nothing else gives one.
const PASSWORD_VAR: &str = "DRIFTGATE_BMC_PASSWORD";

/// Capture a host's configuration from its sources into a snapshot.
///
/// The snapshot is written even when a source fails: that source is recorded as partial or
/// failed with the reason, and capture exits 3 so that a pipeline never mistakes it for a
/// complete capture.
///
/// SIGINT, SIGTERM or SIGHUP stop the capture: no new request or command starts, running
/// commands are stopped, Redfish sessions are deleted, nothing is written, and capture exits
/// 128 + the signal's number (130, 143, 129).
///
/// BMC credentials come from DRIFTGATE_BMC_USERNAME and DRIFTGATE_BMC_PASSWORD (or the systemd
/// credentials of those names in $CREDENTIALS_DIRECTORY, which LoadCredential= gives a
/// service), from --credentials-file, or the password from --password-stdin; never from an
/// argument.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    export DRIFTGATE_BMC_USERNAME=root; read -rs DRIFTGATE_BMC_PASSWORD; export DRIFTGATE_BMC_PASSWORD\n  \
    driftgate capture --host azl-node01 --source redfish=https://bmc-azl-node01 \\\n      \
    --source windows=ssh://admin@azl-node01 --out azl-node01.json\n  \
    # a BMC with a self-signed certificate, pinned\n  \
    driftgate capture --host esx01 --source 'redfish=https://bmc-esx01?pin=sha256:HEX' \\\n      \
    --source esxi=ssh://root@esx01\n  \
    # an ESXi host read through its vCenter (no SSH on the host)\n  \
    driftgate capture --host esx02 --source 'esxi=vcenter://svc-driftgate@vc01?host=esx02.example.com'\n  \
    # offline, from a recorded mockup folder\n  \
    driftgate capture --host azl-node01 \\\n      \
    --source redfish=mockup:examples/azure-local-dcbx/recorded/post-update/bmc")]
pub(crate) struct Args {
    /// Host name recorded in the snapshot (and its baseline file name).
    #[arg(long)]
    host: HostName,
    /// KIND=LOCATION, repeatable. redfish: https://bmc[:port][?pin=sha256:HEX], http://… (a
    /// simulator) or mockup:DIR. windows, linux, esxi, lldp: ssh://[user@]host[:port], local: or
    /// dir:PATH; esxi also vcenter://[user@]vcenter[:port]?host=ESXI[&pin=sha256:HEX] (read
    /// through vCenter with the BMC account options).
    // Parsed in `run`, not by clap: clap would echo a mistyped `https://user:password@bmc`.
    #[arg(long = "source", value_name = "KIND=LOCATION", required = true)]
    sources: Vec<String>,
    /// Write the snapshot here instead of standard output: a file atomically, a device, FIFO
    /// or socket as a stream (never replaced), a symbolic link followed.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// How the host is read.
    #[command(flatten)]
    flags: CaptureFlags,
    /// Also write every Redfish response read into DIR, in the DMTF mockup layout (secrets
    /// removed), to replay offline or attach to a support case.
    #[arg(long, value_name = "DIR")]
    save_mockup: Option<PathBuf>,
}

pub(super) fn run(args: Args, ctx: &Context<'_>) -> anyhow::Result<Outcome> {
    if let Some(out) = &args.out {
        super::common::check_out("--out", out)?;
    }
    let sources = args
        .sources
        .iter()
        .map(|s| SourceSpec::parse(s))
        .collect::<Result<Vec<_>, _>>()?;
    args.flags.warn_insecure(&sources, ctx);
    let cancel = Cancel::new();
    let options = args
        .flags
        .options(args.save_mockup.clone(), cancel.clone())?;
    let runtime = super::common::runtime()?;
    let interrupts = match Interrupts::watch(runtime.handle(), cancel, *ctx.printer) {
        Ok(interrupts) => Some(interrupts),
        Err(e) => {
            ctx.printer.warn(&format!(
                "cannot handle signals ({e}): a signal will end the capture without deleting its Redfish session"
            ));
            None
        }
    };
    let captured = runtime.block_on(driftgate_collect::capture_host(
        args.host,
        &sources,
        &options,
        &driftgate_collect::NoReporter,
    ));
    for note in &captured.notes {
        ctx.printer.warn(note);
    }
    if let Some(signal) = interrupts.as_ref().and_then(Interrupts::received) {
        // Notes above say which session, if any, could not be deleted.
        ctx.printer.error(&anyhow::anyhow!(
            "capture of {} stopped by {signal} before it finished: no snapshot was written",
            captured.snapshot.host
        ));
        return Ok(Outcome::Interrupted(signal));
    }
    let snapshot = captured.snapshot;
    let text = snapshot.to_canonical_json();
    match &args.out {
        Some(out) => write_output(out, text.as_bytes(), WriteOptions::PRIVATE)
            .with_context(|| format!("{}: cannot write", out.display()))?,
        None => ctx.printer.stdout_raw(|w| w.write_all(text.as_bytes()))?,
    }
    for source in &snapshot.sources {
        if source.status != SourceStatus::Complete {
            let error = source.error.as_deref().unwrap_or("no reason recorded");
            ctx.printer.warn(&format!(
                "source {} ({}) is {}: {error}",
                source.name,
                source.target,
                source.status.as_str()
            ));
        }
    }
    Ok(if snapshot.is_complete() {
        Outcome::Done
    } else {
        Outcome::Judged(Verdict::Incomplete)
    })
}

/// How hosts are read: the flags `capture` and `gate pre|post` share. An inventory host's own
/// CA file and time limits take the place of these for that host.
#[derive(Debug, Clone, clap::Args)]
pub(super) struct CaptureFlags {
    /// BMC user name (default: DRIFTGATE_BMC_USERNAME). With an inventory, the account of
    /// every host whose entry references none.
    #[arg(long, value_name = "NAME")]
    pub bmc_username: Option<String>,
    /// TOML file with `username` and `password`; refused when group- or world-readable.
    #[arg(long, value_name = "FILE", env = "DRIFTGATE_BMC_CREDENTIALS")]
    pub credentials_file: Option<PathBuf>,
    /// Read the BMC password from the first line of standard input.
    #[arg(long)]
    pub password_stdin: bool,
    /// Seconds one command may run before it is stopped.
    #[arg(long, value_name = "SECONDS", default_value_t = 60)]
    pub command_timeout: u64,
    /// OpenSSH client configuration for ssh:// sources (ssh -F FILE).
    #[arg(long, value_name = "FILE", env = "DRIFTGATE_SSH_CONFIG")]
    pub ssh_config: Option<PathBuf>,
    /// Trust only the CAs in this PEM file for BMC certificates.
    #[arg(long, value_name = "PEM")]
    pub ca_cert: Option<PathBuf>,
    /// Do not verify BMC certificates (says so on every run; prefer ?pin=sha256:…).
    #[arg(long)]
    pub insecure: bool,
    /// Seconds one BMC request may take, retries aside.
    #[arg(long, value_name = "SECONDS", default_value_t = 60)]
    pub bmc_timeout: u64,
    /// Seconds one host's whole capture may take: the crawl of its BMC and its commands; what
    /// is not read by then makes the source partial (or failed), naming the deadline.
    #[arg(long, value_name = "SECONDS", default_value_t = 300, value_parser = clap::value_parser!(u64).range(1..))]
    pub host_timeout: u64,
    /// Requests in flight per BMC.
    #[arg(long, value_name = "N", default_value_t = 4, value_parser = clap::value_parser!(u16).range(1..=64))]
    pub bmc_concurrency: u16,
}

impl CaptureFlags {
    /// Warns of what weakens a Redfish connection among `sources`.
    pub(super) fn warn_insecure<'a>(
        &self,
        sources: impl IntoIterator<Item = &'a SourceSpec>,
        ctx: &Context<'_>,
    ) {
        let (mut plain, mut any_redfish) = (false, false);
        for source in sources {
            if let SourceSpec::Redfish(location) = source {
                any_redfish = true;
                plain |= location.is_plain_http();
            }
        }
        if plain {
            ctx.printer.warn("plain http:// to a BMC: credentials and data travel unencrypted (simulators and labs only)");
        }
        if any_redfish && self.insecure {
            ctx.printer.warn("--insecure: BMC certificates are not verified; anyone in the path can impersonate the BMC");
        }
    }

    /// The capture options these flags give, with `cancel`: the BMC account of
    /// [`CaptureFlags::credentials`] (a host's inventory entry may name its own).
    pub(super) fn options(
        &self,
        save_mockup: Option<PathBuf>,
        cancel: Cancel,
    ) -> anyhow::Result<CaptureOptions> {
        let credentials = self.credentials()?;
        let ca_cert = self
            .ca_cert
            .as_ref()
            .map(|path| {
                std::fs::read(path).with_context(|| format!("{}: cannot read", path.display()))
            })
            .transpose()?;
        Ok(CaptureOptions {
            process: ProcessOptions {
                timeout: Duration::from_secs(self.command_timeout),
                ssh_config: self.ssh_config.clone(),
                ..ProcessOptions::default()
            },
            redfish: RedfishOptions {
                credentials,
                ca_cert,
                insecure: self.insecure,
                client: ClientOptions {
                    timeout: Duration::from_secs(self.bmc_timeout),
                    host_timeout: Duration::from_secs(self.host_timeout),
                    ..ClientOptions::default()
                },
                concurrency: usize::from(self.bmc_concurrency),
                save_mockup,
                registries: Default::default(),
                root: None,
            },
            cancel,
            vcenters: Default::default(),
        })
    }
}

impl CaptureFlags {
    /// The BMC account, from a file, or a user name with a password from the environment (or
    /// the systemd credentials of the same names) or standard input. None at all is fine
    /// (mockups, anonymous simulators).
    fn credentials(&self) -> anyhow::Result<Option<Credentials>> {
        if let Some(file) = &self.credentials_file {
            return Ok(Some(Credentials::from_file(file)?));
        }
        let username = match &self.bmc_username {
            Some(name) => Some((name.clone(), "--bmc-username".to_owned())),
            None => account_value(USERNAME_VAR)?
                .filter(|u| !u.value.is_empty())
                .map(|name| {
                    let from = name.named(USERNAME_VAR);
                    (name.value, from)
                }),
        };
        let password = if self.password_stdin {
            let mut line = String::new();
            std::io::stdin()
                .read_to_string(&mut line)
                .context("--password-stdin: cannot read standard input")?;
            Some((
                line.lines().next().unwrap_or("").to_owned(),
                "--password-stdin".to_owned(),
            ))
        } else {
            account_value(PASSWORD_VAR)?.map(|password| {
                let from = password.named(PASSWORD_VAR);
                (password.value, from)
            })
        };
        match (username, password) {
            (Some((username, user_from)), Some((password, password_from))) => {
                Ok(Some(Credentials {
                    username,
                    password,
                    origin: format!("{user_from} and {password_from}"),
                }))
            }
            (None, None) => Ok(None),
            (Some(_), None) => bail!(
                "a BMC user name but no password: set DRIFTGATE_BMC_PASSWORD or use --password-stdin"
            ),
            (None, Some(_)) => {
                bail!(
                    "a BMC password but no user name: set DRIFTGATE_BMC_USERNAME or --bmc-username"
                )
            }
        }
    }
}
