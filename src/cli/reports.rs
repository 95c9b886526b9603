//! `--report FORMAT[=FILE]`, repeatable, on every judging command: which formats go where,
//! the textfile a Prometheus file replaces (the rest of what they need is read by
//! [`driftgate_baseline::read_extras`]), and writing each file atomically.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use driftgate_compare::{Policy, Verdict};
use driftgate_report::{Document, Extras, Format, View};
use driftgate_store::Store;

use crate::output::Printer;

/// The `--report` flags of a judging command.
#[derive(Debug, Clone, Default, clap::Args)]
pub(crate) struct ReportArgs {
    /// Also write the report in FORMAT to FILE, atomically (a temporary file renamed over it;
    /// a device, FIFO or socket is written as a stream, a symbolic link followed), or with `-`
    /// or no file to standard output in place of --format. Repeatable; FORMAT is
    /// text, json, markdown, junit, sarif, prometheus or html. Files are written whatever the
    /// verdict, after the run; a path refused (a directory, a link to nothing, a block device)
    /// is refused before the run (exit 2), and a file that cannot be written after it is an
    /// error: exit 2, or the verdict's own 1 (block) or 3 (incomplete). Only prometheus=FILE keeps each unreachable
    /// host's last success from the file it replaces: on standard output there is none.
    #[arg(long = "report", value_name = "FORMAT[=FILE]", value_parser = parse_target)]
    pub reports: Vec<ReportTarget>,
}

/// One `--report`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ReportTarget {
    /// The format.
    pub format: Format,
    /// Where: `None` is standard output.
    pub file: Option<PathBuf>,
}

/// Parses `FORMAT[=FILE]`.
fn parse_target(text: &str) -> Result<ReportTarget, String> {
    let (name, file) = match text.split_once('=') {
        Some((name, file)) => (name, Some(file)),
        None => (text, None),
    };
    let format = Format::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
        format!(
            "unknown report format {name:?}: one of {}",
            names.join(", ")
        )
    })?;
    let file = match file {
        None | Some("-") => None,
        Some("") => {
            return Err(format!(
                "{name}=: the file name is empty (use {name}=- for standard output)"
            ));
        }
        Some(file) => Some(PathBuf::from(file)),
    };
    Ok(ReportTarget { format, file })
}

/// What the reports are read from besides the document.
#[derive(Clone, Copy, Default)]
pub(super) struct ReportSources<'a> {
    /// The baseline store the hosts were judged against (SARIF lines, HTML timelines).
    pub store: Option<&'a Store>,
    /// The policy that judged them (HTML timelines rate each change with it).
    pub policy: Option<&'a Policy>,
}

impl ReportArgs {
    /// Refuses, before any work, what cannot be written: two reports on standard output, the
    /// same file twice (however spelt: `a.xml` and `./a.xml` are one file), a file in a
    /// directory that does not exist, a directory in place of a file, and anything else
    /// [`driftgate_fs::write_output`] would refuse (a link to nothing, a block device, a
    /// descriptor not open for writing), so that a fleet is never captured for nothing.
    pub(crate) fn check(&self) -> anyhow::Result<()> {
        let on_stdout = self.reports.iter().filter(|r| r.file.is_none()).count();
        if on_stdout > 1 {
            anyhow::bail!(
                "--report: {on_stdout} reports go to standard output; give all but one a file (FORMAT=FILE)"
            );
        }
        let mut seen: Vec<PathBuf> = Vec::new();
        for file in self.reports.iter().filter_map(|r| r.file.as_deref()) {
            let dir = parent_dir(file);
            if !dir.is_dir() {
                anyhow::bail!(
                    "--report {}: directory {} does not exist",
                    file.display(),
                    dir.display()
                );
            }
            let (Some(name), false) = (file.file_name(), file.is_dir()) else {
                anyhow::bail!("--report {}: is a directory, not a file", file.display());
            };
            super::common::check_out("--report", file)?;
            let same = dir
                .canonicalize()
                .with_context(|| {
                    format!(
                        "--report {}: cannot resolve {}",
                        file.display(),
                        dir.display()
                    )
                })?
                .join(name);
            if seen.contains(&same) {
                anyhow::bail!("--report: {} is named twice", file.display());
            }
            seen.push(same);
        }
        Ok(())
    }

    /// The format standard output gets: a `--report` without a file, else `format`.
    pub(crate) fn stdout_format(&self, format: Format) -> Format {
        self.reports
            .iter()
            .find(|r| r.file.is_none())
            .map_or(format, |r| r.format)
    }
}

/// Renders `document` on standard output (in `format`, or the `--report` that names standard
/// output) and into every `--report` file.
///
/// A report that cannot be written, a file or standard output itself (a full disk, not a
/// closed pipe), costs that report, never the others: the pipeline still publishes what could
/// be written, and each failure is said as an error naming where it went. A verdict that
/// passed then fails the command (exit 2: a pipeline must notice a missing report), but BLOCK
/// and INCOMPLETE keep their own code (1, 3): they say more than "could not judge".
pub(super) fn emit(
    document: Document<'_>,
    format: Format,
    args: &ReportArgs,
    sources: ReportSources<'_>,
    printer: &Printer,
) -> anyhow::Result<()> {
    let stdout_format = args.stdout_format(format);
    let mut formats: Vec<Format> = args.reports.iter().map(|r| r.format).collect();
    formats.push(stdout_format);
    // A store that cannot be read costs the SARIF lines or the timelines, never the report.
    let mut extras = match sources.store {
        Some(store) => {
            let (extras, warnings) =
                driftgate_baseline::read_extras(document, &formats, store, sources.policy);
            for warning in &warnings {
                printer.warn(&warning.to_string());
            }
            extras
        }
        None => Extras::default(),
    };
    let mut failed: Vec<anyhow::Error> = Vec::new();
    // Standard output fills the terminal it is shown in; a report file is the same anywhere.
    extras.columns = stdout_columns();
    let printed = if styled(stdout_format) {
        printer.stdout(|out| driftgate_report::render(document, stdout_format, &extras, out))
    } else {
        printer.stdout_raw(|out| driftgate_report::render(document, stdout_format, &extras, out))
    };
    extras.columns = None;
    if let Err(e) = printed {
        failed.push(anyhow::Error::new(e).context(format!(
            "standard output: cannot write the {} report",
            stdout_format.name()
        )));
    }
    for target in &args.reports {
        let Some(file) = &target.file else { continue };
        if let Err(e) = write_report(document, target.format, file, &mut extras) {
            failed.push(e);
        }
    }
    settle(failed, View::of(document).verdict, printer)
}

/// Whether `format`'s renderers write ANSI styles, which standard output strips where colour
/// is off and a file always strips (the text renderers: see [`driftgate_report`]); what a
/// capture sent is shown by the renderer already (`\u{1b}`), never stripped. Every other
/// format goes out byte for byte, as [`driftgate_report::render`] made it safe to show.
fn styled(format: Format) -> bool {
    matches!(format, Format::Text)
}

/// The command's result once every report was tried: each failure said, and the verdict's
/// exit code kept where it is worse than a missing report's (see [`emit`]).
fn settle(
    mut failed: Vec<anyhow::Error>,
    verdict: Verdict,
    printer: &Printer,
) -> anyhow::Result<()> {
    if matches!(verdict, Verdict::Block | Verdict::Incomplete) {
        for e in &failed {
            printer.error(e);
        }
        return Ok(());
    }
    match failed.pop() {
        None => Ok(()),
        Some(last) => {
            for e in &failed {
                printer.error(e);
            }
            Err(last)
        }
    }
}

/// Renders `document` in `format` into `file`, atomically.
fn write_report(
    document: Document<'_>,
    format: Format,
    file: &Path,
    extras: &mut Extras,
) -> anyhow::Result<()> {
    extras.previous_textfile = match format {
        Format::Prometheus => previous_textfile(file)?,
        _ => None,
    };
    // A file is never coloured: a styled format gets what standard output gets with
    // --color never; the others are written as rendered.
    let mut bytes = Vec::new();
    let rendered = if styled(format) {
        driftgate_report::render(
            document,
            format,
            extras,
            &mut anstream::StripStream::new(&mut bytes),
        )
    } else {
        driftgate_report::render(document, format, extras, &mut bytes)
    };
    rendered.with_context(|| {
        format!(
            "{}: cannot render the {} report",
            file.display(),
            format.name()
        )
    })?;
    driftgate_fs::write_output(file, &bytes, driftgate_fs::WriteOptions::READABLE).with_context(
        || {
            format!(
                "{}: cannot write the {} report",
                file.display(),
                format.name()
            )
        },
    )
}

/// The directory `file` is written in.
fn parent_dir(file: &Path) -> &Path {
    match file.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    }
}

/// The textfile a Prometheus report replaces, if there is one: never a device's or a FIFO's
/// content (reading one would consume what another writer sent, or wait).
fn previous_textfile(file: &Path) -> anyhow::Result<Option<String>> {
    let is_file = driftgate_fs::output_is_file(file)
        .with_context(|| format!("{}: cannot read the textfile it replaces", file.display()))?;
    if !is_file {
        return Ok(None);
    }
    match std::fs::read_to_string(file) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e)
            .with_context(|| format!("{}: cannot read the textfile it replaces", file.display())),
    }
}

/// The columns standard output may fill: `COLUMNS` when it is set, else the terminal's; none
/// (the renderers' default) when it is not a terminal.
fn stdout_columns() -> Option<usize> {
    use std::io::IsTerminal as _;
    let set = std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse().ok());
    set.filter(|columns: &usize| *columns > 0).or_else(|| {
        std::io::stdout()
            .is_terminal()
            .then(terminal_size::terminal_size)
            .flatten()
            .map(|(width, _)| usize::from(width.0))
    })
}

/// Renders `report` of `judged` (the snapshot it judged, whose facts name its ports) in
/// `format` on standard output and into every `--report` file, and returns the verdict.
pub(super) fn print_report(
    report: &driftgate_compare::Report,
    judged: &driftgate_snapshot::VerifiedSnapshot,
    format: Format,
    reports: &ReportArgs,
    sources: ReportSources<'_>,
    printer: &Printer,
) -> anyhow::Result<crate::exit::Outcome> {
    let stories = driftgate_compare::stories(report, &judged.snapshot().facts);
    let document = driftgate_report::Document::Check(report, &stories);
    emit(document, format, reports, sources, printer)?;
    Ok(crate::exit::Outcome::Judged(report.verdict))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_parse_with_and_without_a_file() {
        assert_eq!(
            parse_target("junit=out/j.xml"),
            Ok(ReportTarget {
                format: Format::Junit,
                file: Some(PathBuf::from("out/j.xml"))
            })
        );
        assert_eq!(
            parse_target("sarif=-"),
            Ok(ReportTarget {
                format: Format::Sarif,
                file: None
            })
        );
        assert_eq!(
            parse_target("html"),
            Ok(ReportTarget {
                format: Format::Html,
                file: None
            })
        );
        assert!(parse_target("xml=a").unwrap_err().contains("junit"));
        assert!(parse_target("json=").unwrap_err().contains("empty"));
    }

    #[test]
    fn two_reports_on_stdout_are_refused() {
        let args = ReportArgs {
            reports: vec![
                parse_target("json").expect("valid"),
                parse_target("html=-").expect("valid"),
            ],
        };
        assert!(args.check().is_err());
    }

    fn targets(texts: &[String]) -> ReportArgs {
        ReportArgs {
            reports: texts
                .iter()
                .map(|t| parse_target(t).expect("valid"))
                .collect(),
        }
    }

    #[test]
    fn one_file_named_twice_however_spelt_is_refused() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let d = dir.path().display();
        let twice = targets(&[format!("json={d}/r"), format!("html={d}/./r")]);
        assert!(
            twice
                .check()
                .unwrap_err()
                .to_string()
                .contains("named twice")
        );
        let two = targets(&[format!("json={d}/r"), format!("html={d}/s")]);
        two.check().expect("two files");
    }

    #[test]
    fn a_directory_or_a_missing_one_is_refused() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let d = dir.path().display();
        for (text, said) in [
            (format!("json={d}"), "is a directory"),
            (format!("json={d}/.."), "is a directory"),
            (format!("json={d}/missing/r"), "does not exist"),
        ] {
            let error = targets(std::slice::from_ref(&text))
                .check()
                .unwrap_err()
                .to_string();
            assert!(error.contains(said), "{text}: {error}");
        }
    }
}
