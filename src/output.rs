//! The only place that prints: standard output for results, standard error for errors.
//! Colour follows `--color`; `auto` means a terminal without `NO_COLOR`. A control character
//! a BMC or host sent is shown, never played ([`driftgate_report::visible`]): in what is
//! written to standard output as text, and in every message on standard error.

use std::io::{self, Write};

use anstream::{AutoStream, ColorChoice};
use driftgate_report::{Shown, visible};

/// When to colour output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ColorWhen {
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
pub struct Printer {
    choice: ColorChoice,
}

impl Printer {
    /// A printer for the given colour setting.
    pub fn new(color: ColorWhen) -> Self {
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
    pub fn stdout(&self, write: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> io::Result<()> {
        let mut stream = AutoStream::new(io::stdout().lock(), self.choice);
        let mut shown = Shown::visible(&mut stream);
        closed_pipe_is_done(write(&mut shown).and_then(|()| shown.flush()))
    }

    /// Runs `write` against standard output byte for byte, whatever `--color` says: for output
    /// that has no ANSI styles to strip (JSON, JUnit, SARIF, snapshots, …), where stripping
    /// would also drop the control characters (DEL, a lone ESC) its serializer wrote on
    /// purpose, and showing them would break its syntax: each escapes what it must itself. A
    /// closed pipe is not an error.
    pub fn stdout_raw(
        &self,
        write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> io::Result<()> {
        let mut stream = io::BufWriter::new(io::stdout().lock());
        closed_pipe_is_done(write(&mut stream).and_then(|()| stream.flush()))
    }

    /// A progress or status line on standard error (`azl-node01: BLOCK (2.1 s)`), kept off
    /// standard output so that reports there stay parseable.
    pub fn status(&self, message: &str) {
        let mut stream = AutoStream::new(io::stderr().lock(), self.choice);
        let _ = writeln!(stream, "{}", visible(message));
    }

    /// A warning on standard error.
    pub fn warn(&self, message: &str) {
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
    pub fn error(&self, error: &anyhow::Error) {
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
pub fn init_logging(verbosity: u8, color: ColorWhen) {
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
