//! `driftgate inventory`: validate the inventory, show what a selection resolves to, pin a
//! BMC's certificate (`pin.rs`). Where every command finds the inventory: `inventory_file.rs`.

mod pin;

use std::collections::BTreeSet;
use std::io::Write;
use std::path::Path;

use anyhow::{anyhow, bail};
use driftgate_inventory::{CredentialsRef, Inventory, InventoryHost, Selection};
use serde::Serialize;

use super::common::Context;
use super::inventory_file::locate;
pub(super) use super::inventory_file::{InventoryArg, load};
use crate::exit::Outcome;

/// Inventory subcommands.
#[derive(Debug, clap::Subcommand)]
pub(crate) enum Command {
    /// Validate the inventory: every problem is printed as FILE:LINE: message (exit 2).
    #[command(after_help = "\
Examples:
  driftgate inventory check --inventory site/inventory.toml
  inventory site/inventory.toml: 12 hosts in 2 fleets, 3 clusters: no problems")]
    Check {
        #[command(flatten)]
        inventory: InventoryArg,
    },
    /// Print what a selection resolves to: per host its fleet, cluster, tags, sources, which
    /// credentials it references (never their values), CA file and timeouts.
    #[command(after_help = "\
Examples:
  driftgate inventory list --fleet azure-local --cluster azl-cluster-a
  driftgate inventory list --tag rack12 --format json")]
    List {
        #[command(flatten)]
        inventory: InventoryArg,
        #[command(flatten)]
        selection: SelectionArgs,
        /// Output format.
        #[arg(long, value_enum, default_value_t = ListFormat::Text)]
        format: ListFormat,
    },
    /// Show the certificate a host's BMC presents (subject, issuer, validity, SHA-256 pin), by a
    /// TLS handshake that sends no request and no credentials; with --write, pin it in the
    /// inventory after you confirm (trust on first use).
    #[command(after_help = "\
Examples:
  driftgate inventory pin azl-node01           # the certificate, and the source that pins it
  driftgate inventory pin azl-node01 --write   # record the pin (asks y/N on the terminal)
  # a script, after checking the pin against the BMC's console some other way
  driftgate inventory pin azl-node01 --write --yes --inventory site/inventory.toml")]
    Pin(pin::Args),
}

/// `--fleet`, `--cluster`, `--tag`: which hosts of the inventory, shared by `inventory list`
/// and `check --all`.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct SelectionArgs {
    /// Only hosts of this fleet.
    #[arg(long, value_name = "F")]
    fleet: Option<String>,
    /// Only hosts of this cluster.
    #[arg(long, value_name = "C")]
    cluster: Option<String>,
    /// Only hosts with this tag.
    #[arg(long, value_name = "T")]
    tag: Option<String>,
}

impl SelectionArgs {
    /// The selection the flags make.
    pub(crate) fn selection(&self) -> Selection {
        Selection {
            fleet: self.fleet.clone(),
            cluster: self.cluster.clone(),
            tag: self.tag.clone(),
        }
    }
}

/// Formats of `inventory list`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ListFormat {
    /// One block per host.
    Text,
    /// An array of objects, one per host.
    Json,
}

pub(super) fn run(command: Command, ctx: &Context<'_>) -> anyhow::Result<Outcome> {
    match command {
        Command::Check { inventory } => check(&inventory, ctx),
        Command::Pin(args) => pin::run(args, ctx),
        Command::List {
            inventory,
            selection,
            format,
        } => {
            let inventory = load(&inventory, ctx)?;
            let selection = selection.selection();
            let hosts: Vec<&InventoryHost> = inventory
                .select(&selection)
                .into_iter()
                .map(|h| &**h)
                .collect();
            if hosts.is_empty() {
                bail!("{}", nothing_selected(&inventory, &selection));
            }
            tell_origins(&hosts);
            // JSON byte for byte: its serializer escaped what needs escaping.
            match format {
                ListFormat::Text => ctx.printer.stdout(|out| list_text(&hosts, out))?,
                ListFormat::Json => ctx.printer.stdout_raw(|out| list_json(&hosts, out))?,
            }
            Ok(Outcome::Done)
        }
    }
}

fn check(arg: &InventoryArg, ctx: &Context<'_>) -> anyhow::Result<Outcome> {
    let file = locate(arg, ctx)?;
    match Inventory::load(&file) {
        Ok(inventory) => {
            let hosts: Vec<&InventoryHost> = inventory.hosts.iter().map(|h| &**h).collect();
            tell_origins(&hosts);
            let count = |n: usize, one: &str, many: &str| {
                format!("{n} {}", if n == 1 { one } else { many })
            };
            let fleets: BTreeSet<&str> = inventory.hosts.iter().map(|h| h.fleet.as_str()).collect();
            let clusters: BTreeSet<&str> = inventory
                .hosts
                .iter()
                .filter_map(|h| h.cluster.as_deref())
                .collect();
            let line = format!(
                "inventory {}: {} in {}, {}: no problems\n",
                file.display(),
                count(inventory.hosts.len(), "host", "hosts"),
                count(fleets.len(), "fleet", "fleets"),
                count(clusters.len(), "cluster", "clusters"),
            );
            ctx.printer.stdout(|out| out.write_all(line.as_bytes()))?;
            Ok(Outcome::Done)
        }
        Err(errors) => {
            for problem in &errors.problems {
                ctx.printer.error(&anyhow!("{problem}"));
            }
            let n = errors.problems.len();
            Err(anyhow!(
                "inventory {}: {n} problem{}",
                file.display(),
                if n == 1 { "" } else { "s" }
            ))
        }
    }
}

/// At `-v`, where each variable of an Ansible host was set (the inventory, a `group_vars/` or
/// `host_vars/` file), for an operator who wonders which file won.
fn tell_origins(hosts: &[&InventoryHost]) {
    for host in hosts {
        for origin in &host.origins {
            tracing::info!(
                "host {}: {} from {}:{}",
                host.name.as_str(),
                origin.variable,
                origin.file,
                origin.line
            );
        }
    }
}

/// The values of one selection filter a host has (its fleet, its cluster, its tags).
type HostValues = fn(&InventoryHost) -> Vec<&str>;

/// Which filter of an empty selection matched nothing, and what there is instead.
fn nothing_selected(inventory: &Inventory, selection: &Selection) -> String {
    let file = inventory.file.display();
    let values = |of: HostValues| -> String {
        let all: BTreeSet<&str> = inventory.hosts.iter().flat_map(|h| of(h)).collect();
        let all: Vec<&str> = all.into_iter().collect();
        if all.is_empty() {
            "none".to_owned()
        } else {
            all.join(", ")
        }
    };
    let filters: [(&str, &Option<String>, HostValues); 3] = [
        ("fleet", &selection.fleet, |h| vec![h.fleet.as_str()]),
        ("cluster", &selection.cluster, |h| {
            h.cluster.as_deref().into_iter().collect()
        }),
        ("tag", &selection.tag, |h| {
            h.tags.iter().map(String::as_str).collect()
        }),
    ];
    for (name, wanted, of) in filters {
        if let Some(wanted) = wanted
            && !inventory
                .hosts
                .iter()
                .any(|h| of(h).contains(&wanted.as_str()))
        {
            return format!(
                "--{name} {wanted} matches no host of {file} ({name}s there: {})",
                values(of)
            );
        }
    }
    let given: Vec<String> = filters
        .iter()
        .filter_map(|(name, wanted, _)| wanted.as_ref().map(|w| format!("--{name} {w}")))
        .collect();
    format!(
        "no host of {file} matches {} together (each matches some host alone)",
        given.join(" ")
    )
}

fn list_text(hosts: &[&InventoryHost], out: &mut dyn Write) -> std::io::Result<()> {
    for (i, host) in hosts.iter().enumerate() {
        if i > 0 {
            writeln!(out)?;
        }
        let seconds = |name: &str, d: Option<std::time::Duration>| {
            d.map(|d| format!("{name} {}s", d.as_secs()))
        };
        let timeouts: Vec<String> = [
            seconds("bmc", host.timeouts.bmc),
            seconds("host", host.timeouts.host),
            seconds("command", host.timeouts.command),
        ]
        .into_iter()
        .flatten()
        .collect();
        writeln!(out, "{}", host.name.as_str())?;
        writeln!(out, "  fleet:       {}", host.fleet)?;
        writeln!(
            out,
            "  cluster:     {}",
            host.cluster.as_deref().unwrap_or("-")
        )?;
        writeln!(
            out,
            "  tags:        {}",
            dash_if_empty(host.tags.join(", "))
        )?;
        for (j, source) in host.sources.iter().enumerate() {
            let label = if j == 0 { "sources:" } else { "" };
            writeln!(out, "  {label:<12} {source}")?;
        }
        let credentials = match &host.credentials {
            None => "-".to_owned(),
            Some(CredentialsRef::Env {
                username_env,
                password_env,
            }) => format!("environment {username_env}, {password_env}"),
            Some(CredentialsRef::File(file)) => format!("file {}", file.display()),
        };
        writeln!(out, "  credentials: {credentials}")?;
        writeln!(
            out,
            "  ca_file:     {}",
            host.ca_file
                .as_deref()
                .map_or("-".into(), |p| p.display().to_string())
        )?;
        writeln!(out, "  timeouts:    {}", dash_if_empty(timeouts.join(", ")))?;
    }
    Ok(())
}

fn dash_if_empty(text: String) -> String {
    if text.is_empty() {
        "-".to_owned()
    } else {
        text
    }
}

/// One host of `inventory list --format json`.
#[derive(Serialize)]
struct HostView<'a> {
    name: &'a str,
    fleet: &'a str,
    cluster: Option<&'a str>,
    tags: &'a [String],
    /// `kind=location`.
    sources: Vec<String>,
    credentials: Option<CredentialsView<'a>>,
    ca_file: Option<String>,
    timeouts: TimeoutsView,
    line: usize,
}

/// Where the account is: variable names or a file path, never a value.
#[derive(Serialize)]
#[serde(untagged)]
enum CredentialsView<'a> {
    Env {
        username_env: &'a str,
        password_env: &'a str,
    },
    File {
        file: String,
    },
}

#[derive(Serialize)]
struct TimeoutsView {
    bmc_seconds: Option<u64>,
    host_seconds: Option<u64>,
    command_seconds: Option<u64>,
}

fn list_json(hosts: &[&InventoryHost], out: &mut dyn Write) -> std::io::Result<()> {
    let path = |p: &Path| p.display().to_string();
    let views: Vec<HostView<'_>> = hosts
        .iter()
        .map(|host| HostView {
            name: host.name.as_str(),
            fleet: &host.fleet,
            cluster: host.cluster.as_deref(),
            tags: &host.tags,
            sources: host.sources.iter().map(ToString::to_string).collect(),
            credentials: host.credentials.as_ref().map(|c| match c {
                CredentialsRef::Env {
                    username_env,
                    password_env,
                } => CredentialsView::Env {
                    username_env,
                    password_env,
                },
                CredentialsRef::File(file) => CredentialsView::File { file: path(file) },
            }),
            ca_file: host.ca_file.as_deref().map(path),
            timeouts: TimeoutsView {
                bmc_seconds: host.timeouts.bmc.map(|d| d.as_secs()),
                host_seconds: host.timeouts.host.map(|d| d.as_secs()),
                command_seconds: host.timeouts.command.map(|d| d.as_secs()),
            },
            line: host.line,
        })
        .collect();
    serde_json::to_writer_pretty(&mut *out, &views)?;
    writeln!(out)
}
