//! `driftgate inventory pin HOST`: the certificate a host's BMC presents, and with `--write`
//! (confirmed on a terminal, or `--yes`) its pin recorded in the inventory.

use std::io::{BufRead as _, IsTerminal as _, Write as _};
use std::path::Path;
use std::time::Duration;

use anyhow::{Context as _, anyhow, bail};
use driftgate_http::certificate::CertificateDetails;
use driftgate_http::tls::{PresentedCertificate, presented_certificate};
use driftgate_inventory::pin::{self, PinTarget, Recorded};
use driftgate_inventory::{Format, Inventory};

use crate::cli::common::Context;
use crate::cli::inventory_file::{InventoryArg, locate};
use crate::exit::Outcome;

/// How long the handshake may take when the inventory gives the host no `bmc_seconds`.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// What pinning means, under the certificate.
const TRUST_ON_FIRST_USE: &str = "
Pinning trusts exactly this certificate, as the BMC presented it just now: compare its pin
with the one the BMC's own console or web interface shows before you record it. Once it is
pinned, a replaced certificate (a firmware update or a reset often makes a new one) fails
every capture of the host, closed (\"certificate fingerprint changed\"), until it is pinned
again.
";

/// Arguments of `inventory pin`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The inventory host whose BMC certificate to show (and pin).
    #[arg(value_name = "HOST")]
    host: String,
    #[command(flatten)]
    inventory: InventoryArg,
    /// Record the pin in the inventory: rewrite the host's `redfish=https://…` source to carry
    /// `?pin=sha256:…` (replacing a pin it has), keeping the file's comments and layout. Asks
    /// for confirmation on the terminal.
    #[arg(long)]
    write: bool,
    /// With --write: do not ask (for scripts; needed when there is no terminal).
    #[arg(long, requires = "write")]
    yes: bool,
}

pub(super) fn run(args: Args, ctx: &Context<'_>) -> anyhow::Result<Outcome> {
    let file = locate(&args.inventory, ctx)?;
    let inventory = Inventory::load(&file)?;
    let target = pin::target(&inventory, &args.host)?;
    let timeout = target.host.timeouts.bmc.unwrap_or(DEFAULT_TIMEOUT);
    let presented = crate::cli::common::runtime()?
        .block_on(presented_certificate(&target.base, timeout))
        .map_err(|error| {
            anyhow!(
                "{}:{}: host `{}`: {error} (this probe sends no request and no credentials)",
                file.display(),
                target.host.line,
                args.host
            )
        })?;
    let format = Format::of(&file);
    ctx.printer
        .stdout(|out| show(out, &file, format, &target, &presented))?;
    if target.pinned.as_ref() == Some(&presented.pin) {
        ctx.printer.stdout(|out| {
            writeln!(
                out,
                "\nThe inventory pins this certificate already: nothing to write."
            )
        })?;
        return Ok(Outcome::Done);
    }
    if !args.write {
        let hint = match format {
            Format::Toml => format!(
                "To record it: driftgate inventory pin {} --write{}",
                args.host,
                inventory_flag(&args.inventory)
            ),
            Format::AnsibleYaml | Format::AnsibleIni => format!(
                "To record it, edit the Ansible inventory (driftgate does not rewrite it): {}.",
                pin::ansible_instruction(&args.host, &target.base, &presented.pin)
            ),
        };
        ctx.printer.stdout(|out| writeln!(out, "\n{hint}"))?;
        return Ok(Outcome::Done);
    }
    if format != Format::Toml {
        bail!(pin::PinError::Ansible {
            file,
            instruction: pin::ansible_instruction(&args.host, &target.base, &presented.pin),
        });
    }
    if !args.yes {
        confirm(&args.host, &file, &presented)?;
    }
    match pin::record(&file, &args.host, &presented.pin)? {
        Recorded::Written(rewrite) => ctx.printer.stdout(|out| {
            writeln!(
                out,
                "\nPinned: {}:{} now reads \"{}\".",
                file.display(),
                rewrite.line,
                rewrite.new
            )
        })?,
        Recorded::Unchanged => ctx.printer.stdout(|out| {
            writeln!(
                out,
                "\nThe inventory pins this certificate already: nothing to write."
            )
        })?,
    }
    Ok(Outcome::Done)
}

/// The certificate, the source that would trust it, and what pinning means.
fn show(
    out: &mut dyn std::io::Write,
    file: &Path,
    format: Format,
    target: &PinTarget<'_>,
    presented: &PresentedCertificate,
) -> std::io::Result<()> {
    let host = target.host.name.as_str();
    writeln!(out, "{host}: {} presents this certificate", target.base)?;
    match presented.details() {
        Ok(details) => show_details(out, &details)?,
        Err(error) => writeln!(out, "  ({error}: only its pin can be shown)")?,
    }
    writeln!(out, "  pin:        {}", presented.pin)?;
    writeln!(out)?;
    let current = format!("redfish={}", target.base);
    let current = match &target.pinned {
        Some(old) => format!("{current}?pin={old}"),
        None => current,
    };
    writeln!(
        out,
        "Inventory {}:{} (host {host}): {current}",
        file.display(),
        target.host.line
    )?;
    if format == Format::Toml {
        writeln!(
            out,
            "Pinned source: {}",
            target.pinned_source(&presented.pin)
        )?;
    }
    if let Some(old) = &target.pinned
        && *old != presented.pin
    {
        writeln!(
            out,
            "The inventory pins another certificate:\n  {old}\nThe BMC's certificate changed \
             since it was pinned (a firmware update or a reset often\nregenerates it): find out \
             why before pinning this one."
        )?;
    }
    out.write_all(TRUST_ON_FIRST_USE.as_bytes())
}

fn show_details(out: &mut dyn std::io::Write, details: &CertificateDetails) -> std::io::Result<()> {
    writeln!(out, "  subject:    {}", details.subject)?;
    writeln!(out, "  issuer:     {}", details.issuer_text())?;
    if !details.names.is_empty() {
        writeln!(out, "  names:      {}", details.names.join(", "))?;
    }
    writeln!(
        out,
        "  valid:      {}",
        details.validity_text(jiff::Timestamp::now())
    )
}

/// ` --inventory FILE` when the operator gave one (the store's inventory needs none).
fn inventory_flag(arg: &InventoryArg) -> String {
    arg.inventory
        .as_deref()
        .map(|file| format!(" --inventory {}", file.display()))
        .unwrap_or_default()
}

/// Asks the operator on the terminal; an error unless the answer is yes, or when there is no
/// terminal to ask on.
fn confirm(host: &str, file: &Path, presented: &PresentedCertificate) -> anyhow::Result<()> {
    if !std::io::stdin().is_terminal() || !std::io::stderr().is_terminal() {
        bail!(
            "--write asks for confirmation on a terminal and there is none: pass --yes to \
             record the pin without asking (nothing was written)"
        );
    }
    let mut stderr = std::io::stderr().lock();
    write!(
        stderr,
        "driftgate: trust this certificate ({}) for host {host} and record its pin in {}? [y/N] ",
        presented.pin,
        file.display()
    )?;
    stderr.flush()?;
    let mut answer = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut answer)
        .context("cannot read the answer")?;
    if matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes") {
        Ok(())
    } else {
        bail!("not confirmed: nothing was written")
    }
}
