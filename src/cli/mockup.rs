//! `driftgate mockup`.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context as _, bail};
use driftgate_simulator::{
    self, Addresses, AuthRequirement, BmcFault, BmcSet, BmcState, BoundBmc, BoundFleet, Fault,
    Fleet, FleetOptions, InventorySettings, PASSWORD_ENV, Service, USERNAME_ENV,
};

use super::common::Context;
use crate::exit::Outcome;

/// Mockup subcommands.
#[derive(Debug, clap::Subcommand)]
pub(crate) enum Command {
    /// Serve DMTF mockup folders as Redfish BMCs, to dry-run gates and nightly runs and test
    /// pipelines: one BMC, or with --count a fleet of independent ones in one process.
    ///
    /// One BMC prints `serving DIR on URL` (and the certificate's sha256 pin with TLS). A
    /// fleet (--count > 1) prints `bmc I sim-IIII URL` per BMC (`(down: nothing listens)`
    /// after a down one), then `serving N BMCs` last; then it serves until stopped. Each BMC
    /// has its own sessions, request counter (GET /driftgate/requests), login counter, faults
    /// and state; all share --latency (each request delayed on its own), --auth and TLS. With
    /// --auth basic or session, the account is DRIFTGATE_MOCKUP_USERNAME and
    /// DRIFTGATE_MOCKUP_PASSWORD. Per-BMC flags take I: an index from 0, a range A-B
    /// (inclusive) or a comma list of them (0,4-7).
    ///
    /// Settings objects (the @Redfish.Settings SettingsObject a resource names) take PATCH,
    /// checked against the resource's attribute registry and applied at once or kept pending
    /// (an iDRAC schedules a job for them); ComputerSystem.Reset applies what is pending. What
    /// clients write is each BMC's own and kept in memory only; any other write answers 405.
    #[command(after_help = EXAMPLE)]
    Serve(ServeArgs),
}

const EXAMPLE: &str = "Examples:
  # one BMC on http://127.0.0.1:8000
  driftgate mockup serve examples/azure-local-dcbx/recorded/post-update/bmc
  # 50 BMCs in clusters of 4, the even ones before and the odd ones after a firmware update,
  # BMC 7 hanging, BMC 12 down, BMC 20 with its NIC's DCBX reset:
  export DRIFTGATE_MOCKUP_USERNAME=root DRIFTGATE_MOCKUP_PASSWORD=lab-only
  R=examples/azure-local-dcbx/recorded
  C=/redfish/v1/Chassis/System.Embedded.1/NetworkAdapters/NIC.Slot.3
  F=$C/NetworkDeviceFunctions/NIC.Slot.3-1-1/Oem/Dell/DellNetworkAttributes/NIC.Slot.3-1-1
  driftgate mockup serve $R/baseline/bmc $R/post-update/bmc --count 50 --latency 100 \\
      --auth session --bmc-fault 7:hang-all --bmc-fault 12:down \\
      --bmc-set \"20:$F#/Attributes/Broadcom_DCBX=Disabled\" \\
      --write-inventory sim.toml --fleet lab --cluster-size 4 &
  # once it printed `serving 50 BMCs` (BMC i on port 8000 + i):
  driftgate inventory list --inventory sim.toml";

/// `mockup serve` arguments.
#[derive(Debug, clap::Args)]
pub(crate) struct ServeArgs {
    /// Mockup folders (DIR/redfish/v1/…/index.json, or DIR as the /redfish/v1 root): BMC i
    /// serves the (i mod number of folders)-th. Each folder is loaded once for all its BMCs.
    #[arg(required = true, value_name = "DIR")]
    dirs: Vec<PathBuf>,
    /// How many BMCs to serve, numbered from 0 (inventory host names sim-0000, sim-0001, …).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = at_least_one)]
    count: usize,
    /// Address of BMC 0 (port 0: any free port); BMC i listens on the port after it by i.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8000")]
    listen: SocketAddr,
    /// BMC i listens on the (i+1)-th loopback address after --listen's (127.0.0.2, …,
    /// skipping .0 and .255), all on its port: one host per BMC, as a real fleet (Linux).
    #[arg(long)]
    loopback: bool,
    /// Milliseconds to wait before every answer (real BMCs take 90–530 ms).
    #[arg(long, value_name = "MS", default_value_t = 0)]
    latency: u64,
    /// Authentication required from clients.
    #[arg(long, value_enum, default_value_t = AuthRequirement::None)]
    auth: AuthRequirement,
    /// Inject a failure into every BMC (repeatable): unavailable=N, session-limit,
    /// expire-sessions=N, logins=N, no-expand, truncate=URI, oversize=URI, redirect-loop=URI,
    /// hang=URI, status=CODE:URI, down (nothing listens), hang-all (no request ever answers),
    /// latency=MS (this BMC's answers wait MS instead of --latency), slow-write=MS (a PATCH
    /// or POST is taken at once and answered MS later), redirect-write=URI->LOCATION (a PATCH
    /// or POST of URI answers 307 to LOCATION), decode-paths (paths are percent-decoded, %2F
    /// too, before they are routed).
    #[arg(long = "fault", value_name = "FAULT", value_parser = Fault::parse)]
    faults: Vec<Fault>,
    /// Inject a failure into some BMCs only (repeatable): `7:hang-all`, `3,12-14:down`,
    /// `0-49:latency=3000` (slow BMCs in a fleet).
    #[arg(long = "bmc-fault", value_name = "I:FAULT", value_parser = BmcFault::parse)]
    bmc_faults: Vec<BmcFault>,
    /// Serve another mockup folder on some BMCs (repeatable; the last one naming a BMC wins).
    #[arg(long = "bmc-state", value_name = "I=DIR", value_parser = BmcState::parse)]
    bmc_states: Vec<BmcState>,
    /// Set one property of one resource on some BMCs (repeatable): an RFC 6901 pointer into
    /// the resource's JSON, a JSON value or else a string (`3:/redfish/v1/Systems/1#/BiosVersion=2.9.1`).
    #[arg(long = "bmc-set", value_name = "I:URI#/POINTER=JSON", value_parser = BmcSet::parse)]
    bmc_sets: Vec<BmcSet>,
    /// Serve HTTPS with a freshly generated self-signed certificate (one for every BMC).
    #[arg(long, conflicts_with_all = ["tls_cert", "tls_key"])]
    tls: bool,
    /// Serve HTTPS with this PEM certificate chain.
    #[arg(long, value_name = "PEM", requires = "tls_key")]
    tls_cert: Option<PathBuf>,
    /// The PEM private key of --tls-cert.
    #[arg(long, value_name = "PEM", requires = "tls_cert")]
    tls_key: Option<PathBuf>,
    /// Write the matching inventory.toml (as --out of capture does, before the last line is
    /// printed): host sim-IIII per BMC (down ones too) with its redfish source (and certificate
    /// pin), and with --auth the account's variable names, never their values.
    #[arg(long, value_name = "FILE")]
    write_inventory: Option<PathBuf>,
    /// The fleet of the written inventory's hosts.
    #[arg(long, value_name = "NAME", default_value = "sim", requires = "write_inventory", value_parser = fleet_name)]
    fleet: String,
    /// Group the written inventory's hosts into clusters sim-c000, sim-c001, … of K
    /// consecutive BMCs.
    #[arg(long, value_name = "K", requires = "write_inventory", value_parser = at_least_one)]
    cluster_size: Option<usize>,
}

fn at_least_one(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!("{text:?}: expected a whole number of at least 1")),
    }
}

fn fleet_name(text: &str) -> Result<String, String> {
    driftgate_snapshot::HostName::new(text)
        .map(|_| text.to_owned())
        .map_err(|_| {
            format!(
                "{text:?}: use letters, digits, `.`, `_` and `-`, starting with a letter or digit"
            )
        })
}

pub(super) fn run(command: Command, ctx: &Context<'_>) -> anyhow::Result<Outcome> {
    let Command::Serve(args) = command;
    if let Some(file) = &args.write_inventory {
        super::common::check_out("--write-inventory", file)?;
    }
    // 1,000 listeners and their connections need more than the usual 1,024 descriptors.
    let limit = super::open_files::raise_open_file_limit();
    if limit.soft < 2 * args.count as u64 + 64 {
        ctx.printer.warn(&format!(
            "the open file limit is {} (hard limit {}): too few for {} BMCs and their connections",
            limit.soft, limit.hard, args.count
        ));
    }
    let account = match (std::env::var(USERNAME_ENV), std::env::var(PASSWORD_ENV)) {
        (Ok(user), Ok(password)) if !user.is_empty() => Some((user, password)),
        _ if args.auth != AuthRequirement::None => {
            bail!(
                "--auth {auth:?} needs {USERNAME_ENV} and {PASSWORD_ENV}",
                auth = format!("{:?}", args.auth).to_lowercase()
            )
        }
        _ => None,
    };
    let identity = match (args.tls, &args.tls_cert, &args.tls_key) {
        (true, _, _) => Some(driftgate_simulator::self_signed().map_err(anyhow::Error::msg)?),
        (false, Some(cert), Some(key)) => {
            let cert_pem =
                std::fs::read(cert).with_context(|| format!("{}: cannot read", cert.display()))?;
            let key_pem =
                std::fs::read(key).with_context(|| format!("{}: cannot read", key.display()))?;
            Some(driftgate_simulator::from_pem(&cert_pem, &key_pem).map_err(anyhow::Error::msg)?)
        }
        _ => None,
    };
    let (acceptor, pin) = identity.unzip();
    let options = FleetOptions {
        dirs: args.dirs,
        count: args.count,
        addresses: if args.loopback {
            Addresses::Loopback(args.listen)
        } else {
            Addresses::Consecutive(args.listen)
        },
        faults: args.faults,
        bmc_faults: args.bmc_faults,
        bmc_states: args.bmc_states,
        bmc_sets: args.bmc_sets,
    };
    let service = Service {
        latency: Duration::from_millis(args.latency),
        auth: args.auth,
        account: account.clone(),
    };
    let fleet = Fleet::plan(&options, service)?;
    let runtime = super::common::runtime()?;
    let bound = runtime.block_on(fleet.bind(acceptor))?;
    if let Some(file) = &args.write_inventory {
        let text = driftgate_simulator::render_inventory(
            bound.bmcs(),
            &InventorySettings {
                fleet: &args.fleet,
                cluster_size: args.cluster_size,
                credentials: args.auth != AuthRequirement::None,
                pin: pin.as_deref(),
            },
        );
        driftgate_fs::write_output(file, text.as_bytes(), driftgate_fs::WriteOptions::PRIVATE)
            .with_context(|| format!("{}: cannot write the inventory", file.display()))?;
    }
    announce(&bound, pin.as_deref(), ctx)?;
    runtime.block_on(bound.serve());
    Ok(Outcome::Done)
}

/// Where the BMCs are, for the scripts and tests that read standard output.
fn announce(bound: &BoundFleet, pin: Option<&str>, ctx: &Context<'_>) -> anyhow::Result<()> {
    let pin = pin
        .map(|p| format!(" (certificate {p})"))
        .unwrap_or_default();
    let down = |bmc: &BoundBmc| {
        if bmc.down {
            " (down: nothing listens)"
        } else {
            ""
        }
    };
    ctx.printer.stdout(|out| match bound.bmcs() {
        [one] => writeln!(
            out,
            "serving {} on {}{pin}{}",
            one.dir.display(),
            one.url,
            down(one)
        ),
        all => {
            for bmc in all {
                writeln!(
                    out,
                    "bmc {} {} {}{}",
                    bmc.index,
                    bmc.name,
                    bmc.url,
                    down(bmc)
                )?;
            }
            writeln!(out, "serving {} BMCs{pin}", all.len())
        }
    })?;
    Ok(())
}
