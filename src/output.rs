//! The only place that prints: standard output for results, standard error for errors.
//! Colour follows `--color`; `auto` means a terminal without `NO_COLOR`. A control character
//! a BMC or host sent is shown, never played ([`driftgate_report::visible`]): in what is
//! written to standard output as text, and in every message on standard error.

use std::io::{self, Write};

use anstream::{AutoStream, ColorChoice};
use driftgate_gate::fix::{Applied, ApplyOutcome, GRACE, HostRecord, Outcome as StepOutcome};
use driftgate_report::{Shown, visible};

/// When to colour output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub(crate) enum ColorWhen {
    /// On a terminal, unless `NO_COLOR` is set.
    #[default]
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// Routes everything driftgate prints.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Printer {
    choice: ColorChoice,
}

impl Printer {
    /// A printer for the given colour setting.
    pub(crate) fn new(color: ColorWhen) -> Self {
        let choice = match color {
            ColorWhen::Auto => ColorChoice::Auto,
            ColorWhen::Always => ColorChoice::Always,
            ColorWhen::Never => ColorChoice::Never,
        };
        Printer { choice }
    }

    /// Runs `write` against standard output (ANSI styles stripped when colour is off), every
    /// control character in what it writes shown as `\u{1b}` but the text report's own styles.
    /// A closed pipe (`driftgate … | head`) is not an error.
    pub(crate) fn stdout(
        &self,
        write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> io::Result<()> {
        let mut stream = AutoStream::new(io::stdout().lock(), self.choice);
        let mut shown = Shown::visible(&mut stream);
        closed_pipe_is_done(write(&mut shown).and_then(|()| shown.flush()))
    }

    /// Runs `write` against standard output byte for byte, whatever `--color` says: for output
    /// that has no ANSI styles to strip (JSON, JUnit, SARIF, snapshots, …), where stripping
    /// would also drop the control characters (DEL, a lone ESC) its serializer wrote on
    /// purpose, and showing them would break its syntax: each escapes what it must itself. A
    /// closed pipe is not an error.
    pub(crate) fn stdout_raw(
        &self,
        write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> io::Result<()> {
        let mut stream = io::BufWriter::new(io::stdout().lock());
        closed_pipe_is_done(write(&mut stream).and_then(|()| stream.flush()))
    }

    /// A progress or status line on standard error (`azl-node01: BLOCK (2.1 s)`), kept off
    /// standard output so that reports there stay parseable.
    pub(crate) fn status(&self, message: &str) {
        let mut stream = AutoStream::new(io::stderr().lock(), self.choice);
        let _ = writeln!(stream, "{}", visible(message));
    }

    /// A warning on standard error.
    pub(crate) fn warn(&self, message: &str) {
        let style = anstyle::Style::new()
            .bold()
            .fg_color(Some(anstyle::AnsiColor::Yellow.into()));
        let mut stream = AutoStream::new(io::stderr().lock(), self.choice);
        let _ = writeln!(
            stream,
            "{style}driftgate: warning:{style:#} {}",
            visible(message)
        );
    }

    /// An error, with its chain of causes, on standard error.
    pub(crate) fn error(&self, error: &anyhow::Error) {
        let style = anstyle::Style::new()
            .bold()
            .fg_color(Some(anstyle::AnsiColor::Red.into()));
        let mut stream = AutoStream::new(io::stderr().lock(), self.choice);
        let message = format!("{error:#}");
        let _ = writeln!(
            stream,
            "{style}driftgate: error:{style:#} {}",
            visible(&message)
        );
    }
}

/// What `fix apply` did, said once it is done: the BMCs it could not read, then what a dry run
/// would send (on standard output), or each step's outcome and each reset's answer (on
/// standard error, where progress goes).
impl Printer {
    /// Each host's steps and resets as `fix apply` left them (a dry run: what it would send).
    pub(crate) fn fix_applied(&self, applied: &Applied) -> io::Result<()> {
        for why in &applied.unread {
            self.warn(&format!(
                "a BMC could not be read, so nothing was sent to any host: {why}"
            ));
        }
        if applied.dry_run {
            return self.stdout(|out| {
                writeln!(out, "dry run: nothing sent. Would send:")?;
                applied
                    .record
                    .hosts
                    .iter()
                    .try_for_each(|host| would_send(out, host))
            });
        }
        for host in &applied.record.hosts {
            for step in &host.steps {
                let job = step
                    .job
                    .as_deref()
                    .map(|j| format!("; job {j}"))
                    .unwrap_or_default();
                self.status(&format!(
                    "{} [{}] {}: {}{job}",
                    host.host,
                    step.step.id,
                    step_word(step.outcome),
                    step.detail
                ));
            }
            if let Some(reset) = &host.reset {
                let status = match reset.status {
                    Some(s) if (200..300).contains(&s) => format!("HTTP {s}"),
                    Some(s) => format!("HTTP {s}: {}", reset.messages.join("; ")),
                    None => reset.messages.join("; "),
                };
                self.status(&format!(
                    "{}: reset {} {}: {status}",
                    host.host,
                    reset.body["ResetType"].as_str().unwrap_or(""),
                    reset.uri
                ));
            }
        }
        for host in &applied.record.hosts {
            if let Some(why) = &host.reset_not_sent {
                self.warn(&format!("{}: reset not sent: {why}", host.host));
            }
        }
        Ok(())
    }

    /// Where `fix apply`'s record went, and its outcome in one line.
    pub(crate) fn fix_outcome(&self, applied: &Applied, ticket: &str) {
        if let Some(file) = applied.file.as_ref().filter(|_| !applied.dry_run) {
            self.status(&format!("recorded in {} (ticket {ticket})", file.display()));
        }
        let steps = || applied.record.hosts.iter().flat_map(|h| &h.steps);
        let sent = steps()
            .filter(|s| s.outcome == StepOutcome::Applied)
            .count();
        let not = steps()
            .filter(|s| matches!(s.outcome, StepOutcome::Failed | StepOutcome::Conflict))
            .count();
        match applied.outcome() {
            ApplyOutcome::Applied => self.status(&format!(
                "fix apply: applied ({sent} step(s) sent, {} already current or staged)",
                steps().count() - sent
            )),
            ApplyOutcome::NothingToDo => {
                self.status("nothing to apply: no step in this layer");
            }
            ApplyOutcome::PartlyApplied => self.status(&format!(
                "fix apply: partly applied ({sent} step(s) applied, {not} not, or a reset refused; exit 1)"
            )),
            ApplyOutcome::Failed => self.status(&format!(
                "fix apply: failed (no step applied, {not} refused or not taken, or a reset refused; exit 1)"
            )),
            ApplyOutcome::Unread => {
                self.status("fix apply: nothing sent: a BMC could not be read (exit 3)");
            }
            ApplyOutcome::DryRun => {}
        }
    }

    /// The error of a `fix apply` a signal stopped: what it did with the request in flight,
    /// what it did not send, and where that is recorded.
    pub(crate) fn fix_stopped(
        &self,
        applied: &Applied,
        signal: impl std::fmt::Display,
        ticket: &str,
    ) {
        let not_sent = applied
            .record
            .hosts
            .iter()
            .flat_map(|h| &h.steps)
            .filter(|s| s.outcome == StepOutcome::NotSent)
            .count();
        let file = applied
            .file
            .as_ref()
            .map_or_else(String::new, |f| f.display().to_string());
        let kept = match &applied.record_error {
            Some(error) => format!("its record could not be written ({error}): keep this output"),
            None => format!("recorded in {file}"),
        };
        self.error(&anyhow::anyhow!(
            "fix apply stopped by {signal}: the request in flight was given up to {} s to be answered, {not_sent} step(s) not sent, the BMC sessions closed; {kept} (ticket {ticket})",
            GRACE.as_secs(),
        ));
    }
}

/// How a step's outcome reads after its host and id.
fn step_word(outcome: StepOutcome) -> &'static str {
    match outcome {
        StepOutcome::Applied => "applied",
        StepOutcome::AlreadyCurrent => "skipped (already current)",
        StepOutcome::AlreadyPending => "skipped (already pending)",
        StepOutcome::Conflict => "REFUSED (conflicting pending value)",
        StepOutcome::Failed => "FAILED",
        StepOutcome::NotSent => "not sent",
        StepOutcome::Sending => "NO ANSWER",
    }
}

/// A dry run's lines for `host`: each request, and its reset or why none would be sent.
fn would_send(out: &mut dyn Write, host: &HostRecord) -> io::Result<()> {
    for step in &host.steps {
        for r in &step.requests {
            let body = match &r.body {
                serde_json::Value::String(line) => line.clone(),
                other => serde_json::to_string(other).unwrap_or_default(),
            };
            writeln!(
                out,
                "  {} [{}] {} {} {body}",
                host.host, step.step.id, r.method, r.uri
            )?;
        }
    }
    if let Some(reset) = &host.reset {
        writeln!(
            out,
            "  {} [reset] {} {} {}",
            host.host, reset.method, reset.uri, reset.body
        )?;
    }
    if let Some(why) = &host.reset_not_sent {
        writeln!(out, "  {} [reset] would not be sent: {why}", host.host)?;
    }
    Ok(())
}

/// A write to standard output that met a closed pipe (`driftgate … | head`) is done: the
/// reader took what it wanted.
fn closed_pipe_is_done(result: io::Result<()>) -> io::Result<()> {
    match result {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

/// Sends `tracing` events to standard error: driftgate's own warnings by default, more with
/// each `-v`, the libraries' (HTTP, TLS) only at `-vvv`: what they say by themselves is
/// raw ("failed to verify TLS certificate"), and driftgate says it in its own error.
/// Coloured as `--color` says, like everything else on standard error.
pub(crate) fn init_logging(verbosity: u8, color: ColorWhen) {
    let filter = match verbosity {
        0 => "driftgate=warn",
        1 => "driftgate=info",
        2 => "driftgate=debug",
        _ => "trace",
    };
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::new(filter))
        .with_writer(io::stderr)
        .with_ansi(stderr_colored(color))
        .with_target(verbosity >= 3)
        .without_time()
        .init();
}

/// Whether standard error gets ANSI styles: `auto` decides as anstream does for the other
/// messages (a terminal, no `NO_COLOR`, `CLICOLOR`/`CLICOLOR_FORCE` honoured).
fn stderr_colored(color: ColorWhen) -> bool {
    match color {
        ColorWhen::Always => true,
        ColorWhen::Never => false,
        ColorWhen::Auto => AutoStream::choice(&io::stderr()) != ColorChoice::Never,
    }
}
