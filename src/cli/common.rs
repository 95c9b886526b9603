//! What the commands share: their context, the runtime, reading references, policies and
//! `--format`, and checking an output path up front.

use std::path::{Path, PathBuf};

use clap::builder::TypedValueParser as _;
use driftgate_baseline::input::{self, BadRef, Loader, SnapshotRef};
use driftgate_report::Format;

use crate::output::Printer;

/// What every subcommand may use besides its own arguments.
pub(crate) struct Context<'a> {
    /// Where output goes.
    pub printer: &'a Printer,
    /// `--repo` / `DRIFTGATE_REPO`.
    pub repo: Option<PathBuf>,
}

/// `--format` of judging commands: a [`Format`] by its name, each listed in `--help` with
/// what it is for.
pub(super) fn format_parser() -> impl clap::builder::TypedValueParser<Value = Format> {
    let values = Format::ALL.map(|format| {
        clap::builder::PossibleValue::new(format.name()).help(match format {
            Format::Text => "A verdict line, then findings grouped by severity",
            Format::Json => "JSON following `driftgate schema report`",
            Format::Markdown => "Markdown for a change ticket or a pull-request comment",
            Format::Junit => "JUnit XML for a pipeline's test tab",
            Format::Sarif => "SARIF 2.1.0 for code scanning of the baseline repository",
            Format::Prometheus => "Prometheus text format for node_exporter's textfile collector",
            Format::Html => "One self-contained HTML page",
        })
    });
    clap::builder::PossibleValuesParser::new(values)
        .map(|name| Format::from_name(&name).expect("clap accepts only the formats' names"))
}

/// The one async runtime of a command that captures or serves: a command builds it once and
/// runs its library call on it (the library never starts a runtime of its own).
pub(super) fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    use anyhow::Context as _;
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("driftgate")
        .build()
        .context("cannot start the async runtime")
}

/// Parses a snapshot reference argument.
pub(super) fn parse_ref(text: &str) -> Result<SnapshotRef, BadRef> {
    SnapshotRef::parse(text)
}

/// The effective policy for a command: the store's committed policy applies when a reference
/// used the store or `--repo` was given, then `--policy`.
pub(super) fn effective_policy(
    loader: &mut Loader,
    explicit_repo: bool,
    policy: Option<&Path>,
) -> anyhow::Result<driftgate_compare::Policy> {
    let store = if loader.store_in_use() || explicit_repo {
        Some(loader.store()?)
    } else {
        None
    };
    Ok(input::policy(store, policy)?)
}

/// Refuses, before the work whose output it is, an output path (`flag`'s) that
/// [`driftgate_fs::write_output`] would refuse after it.
pub(super) fn check_out(flag: &str, path: &Path) -> anyhow::Result<()> {
    driftgate_fs::check_output(path).map_err(|e| {
        // A refusal names the path itself.
        if e.get_ref()
            .is_some_and(|inner| inner.is::<driftgate_fs::NotAnOutput>())
        {
            anyhow::anyhow!("{flag} {e}")
        } else {
            anyhow::anyhow!("{flag} {}: {e}", path.display())
        }
    })
}
