//! The hosts' reports of a fleet run, kept out of memory: each is written to an unnamed
//! temporary file as its host finishes and read back, one at a time, when a report is
//! rendered. A run then holds a few hundred bytes per host (its [`super::HostResult`]
//! without the report), not the host's whole judgement (8 KB and more), so its memory is set
//! by the largest host rather than the fleet. Each report is kept as pretty JSON indented for
//! its place in the fleet report, so the fleet report's JSON copies it as it stands (see
//! [`in_fleet_json`]).

use std::borrow::Cow;
use std::cell::Cell;
use std::fmt;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::sync::{Arc, Mutex, PoisonError};

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;

use super::FleetError;
use crate::compare::Report;

/// Where a run's reports go: an unnamed file in the system's temporary directory, deleted
/// when the last report kept in it is dropped (or the process ends).
pub struct Spool {
    file: Arc<Mutex<SpoolFile>>,
}

struct SpoolFile {
    file: File,
    /// The file's length: where the next report goes.
    end: u64,
}

impl Spool {
    /// A new, empty spool.
    pub fn new() -> Result<Spool, FleetError> {
        let file = tempfile::tempfile().map_err(|error| FleetError::Write {
            path: format!("a temporary file in {}", std::env::temp_dir().display()),
            error,
        })?;
        Ok(Spool {
            file: Arc::new(Mutex::new(SpoolFile { file, end: 0 })),
        })
    }

    /// Cuts the spool's file to `len` bytes, as a full disk or a lost file would.
    #[cfg(test)]
    pub(crate) fn truncate_for_test(&self, len: u64) {
        let spool = self.file.lock().unwrap();
        spool.file.set_len(len).expect("truncate the spool");
    }

    /// Moves `report` to the spool (one already in a spool stays where it is).
    pub fn keep(&self, report: &mut HostReport) -> Result<(), FleetError> {
        self.write(report).map_err(|error| FleetError::Write {
            path: "the spool of the hosts' reports (a temporary file)".to_owned(),
            error,
        })
    }

    fn write(&self, report: &mut HostReport) -> io::Result<()> {
        let Kept::Held(held) = &mut report.0 else {
            return Ok(());
        };
        // Rendered before the lock, by the thread that judged the host: the hosts finishing on
        // other cores do not wait for it, and the fleet report's JSON only copies it.
        let bytes = nested_pretty(held)?;
        let offset = {
            let mut spool = self.file.lock().unwrap_or_else(PoisonError::into_inner);
            let offset = spool.end;
            spool.file.seek(SeekFrom::Start(offset))?;
            spool.file.write_all(&bytes)?;
            spool.end += bytes.len() as u64;
            offset
        };
        let glance = Glance {
            captured_at: std::mem::take(&mut held.snapshot.captured_at).into_boxed_str(),
            incomplete_sources: held.incomplete_sources.len(),
        };
        report.0 = Kept::Spooled {
            file: Arc::clone(&self.file),
            offset,
            len: bytes.len(),
            glance,
        };
        Ok(())
    }
}

/// How much deeper than a report's own pretty JSON each of its lines but the first is in the
/// fleet report's (`hosts[i].report`: three levels of two spaces).
const FLEET_INDENT: &[u8] = b"      ";

/// `report` as pretty JSON, as the fleet report's pretty JSON has it.
fn nested_pretty(report: &Report) -> serde_json::Result<Vec<u8>> {
    let pretty = serde_json::to_vec_pretty(report)?;
    let lines = memchr::memchr_iter(b'\n', &pretty).count();
    let mut nested = Vec::with_capacity(pretty.len() + lines * FLEET_INDENT.len());
    for line in pretty.split_inclusive(|&b| b == b'\n') {
        nested.extend_from_slice(line);
        if line.ends_with(b"\n") {
            nested.extend_from_slice(FLEET_INDENT);
        }
    }
    Ok(nested)
}

thread_local! {
    /// Whether this thread is in [`in_fleet_json`].
    static IN_FLEET_JSON: Cell<bool> = const { Cell::new(false) };
}

/// Runs `write`, which writes a fleet report as pretty JSON, with each spooled report copied
/// as the spool holds it (see [`nested_pretty`]): reading every report back and rendering it
/// again, one at a time after the last host, was most of a 1,000-host check's serial end.
/// Any other serialization of a [`HostReport`] renders the report.
pub fn in_fleet_json<T>(write: impl FnOnce() -> T) -> T {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            IN_FLEET_JSON.set(self.0);
        }
    }
    let _restore = Restore(IN_FLEET_JSON.replace(true));
    write()
}

/// The `len` bytes at `offset` of a spool's file.
fn read_back(file: &Mutex<SpoolFile>, offset: u64, len: usize) -> io::Result<Vec<u8>> {
    let mut bytes = vec![0; len];
    let mut spool = file.lock().unwrap_or_else(PoisonError::into_inner);
    spool.file.seek(SeekFrom::Start(offset))?;
    spool.file.read_exact(&mut bytes)?;
    Ok(bytes)
}

/// One host's report: in memory (read from a file, made by a test), or in a run's [`Spool`].
#[derive(Clone)]
pub struct HostReport(Kept);

#[derive(Clone)]
enum Kept {
    Held(Box<Report>),
    Spooled {
        file: Arc<Mutex<SpoolFile>>,
        offset: u64,
        len: usize,
        glance: Glance,
    },
}

/// What every view of a fleet shows of each host, known without reading its report back.
#[derive(Clone)]
struct Glance {
    captured_at: Box<str>,
    incomplete_sources: usize,
}

impl HostReport {
    /// The report: borrowed when in memory, else read back from the spool.
    pub fn get(&self) -> io::Result<Cow<'_, Report>> {
        match &self.0 {
            Kept::Held(report) => Ok(Cow::Borrowed(report)),
            Kept::Spooled {
                file, offset, len, ..
            } => Ok(Cow::Owned(serde_json::from_slice(&read_back(
                file, *offset, *len,
            )?)?)),
        }
    }

    /// The report to change, read back into memory first if it was spooled (for tests that
    /// build a document and then edit it).
    #[cfg(test)]
    pub(crate) fn to_mut(&mut self) -> io::Result<&mut Report> {
        if let Kept::Spooled { .. } = self.0 {
            self.0 = Kept::Held(Box::new(self.get()?.into_owned()));
        }
        match &mut self.0 {
            Kept::Held(report) => Ok(report),
            Kept::Spooled { .. } => unreachable!("read back above"),
        }
    }

    /// Whether the report waits in a spool rather than in memory.
    #[cfg(test)]
    pub(crate) fn is_spooled(&self) -> bool {
        matches!(self.0, Kept::Spooled { .. })
    }

    /// When the judged snapshot was captured, as its report says (RFC 3339).
    pub fn captured_at(&self) -> &str {
        match &self.0 {
            Kept::Held(report) => &report.snapshot.captured_at,
            Kept::Spooled { glance, .. } => &glance.captured_at,
        }
    }

    /// How many of its sources did not capture completely, as its report says.
    pub fn incomplete_sources(&self) -> usize {
        match &self.0 {
            Kept::Held(report) => report.incomplete_sources.len(),
            Kept::Spooled { glance, .. } => glance.incomplete_sources,
        }
    }
}

impl From<Report> for HostReport {
    fn from(report: Report) -> Self {
        HostReport(Kept::Held(Box::new(report)))
    }
}

impl fmt::Debug for HostReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.get() {
            Ok(report) => report.fmt(f),
            Err(e) => write!(f, "<report not read back from the spool: {e}>"),
        }
    }
}

/// Equal reports, however kept; one that cannot be read back equals nothing.
impl PartialEq for HostReport {
    fn eq(&self, other: &Self) -> bool {
        match (self.get(), other.get()) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        }
    }
}

/// Written as the report itself: the spool leaves no trace in a document.
impl Serialize for HostReport {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        fn unread<E: serde::ser::Error>(e: impl fmt::Display) -> E {
            E::custom(format!("a spooled report: {e}"))
        }
        if let Kept::Spooled {
            file, offset, len, ..
        } = &self.0
            && IN_FLEET_JSON.get()
        {
            let text = String::from_utf8(read_back(file, *offset, *len).map_err(unread)?)
                .map_err(unread)?;
            return RawValue::from_string(text)
                .map_err(unread)?
                .serialize(serializer);
        }
        self.get().map_err(unread)?.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for HostReport {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Report::deserialize(deserializer).map(HostReport::from)
    }
}

impl JsonSchema for HostReport {
    fn inline_schema() -> bool {
        Report::inline_schema()
    }

    fn schema_name() -> Cow<'static, str> {
        Report::schema_name()
    }

    fn schema_id() -> Cow<'static, str> {
        Report::schema_id()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        Report::json_schema(generator)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::testing::judge;
    use crate::snapshot::VerifiedSnapshot;

    fn example(file: &str) -> VerifiedSnapshot {
        let path = format!(
            "{}/examples/azure-local-dcbx/{file}",
            env!("CARGO_MANIFEST_DIR")
        );
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        VerifiedSnapshot::parse(&text, file).unwrap()
    }

    /// The example's post-update snapshot judged against its baseline (findings, firmware
    /// changes, both summaries), and its baseline judged alone.
    fn reports() -> (Report, Report) {
        let (baseline, post) = (example("baseline.json"), example("post-update.json"));
        let drifted = judge(&post, Some(&baseline));
        assert!(!drifted.findings.is_empty());
        (drifted, judge(&baseline, None))
    }

    fn spooled(spool: &Spool, report: &Report) -> HostReport {
        let mut kept = HostReport::from(report.clone());
        spool.keep(&mut kept).unwrap();
        assert!(kept.is_spooled());
        kept
    }

    #[test]
    fn spooled_reports_read_back_as_they_were_written() {
        let spool = Spool::new().unwrap();
        let (a, b) = reports();
        let (kept_a, kept_b) = (spooled(&spool, &a), spooled(&spool, &b));
        assert_eq!(*kept_b.get().unwrap(), b);
        assert_eq!(*kept_a.get().unwrap(), a);
        assert_eq!(kept_a.captured_at(), a.snapshot.captured_at);
        assert_eq!(kept_a.incomplete_sources(), a.incomplete_sources.len());
        assert_eq!(kept_a, HostReport::from(a.clone()));
        assert_ne!(kept_a, kept_b);
        // The document is the report's own: nothing says where it was kept.
        assert_eq!(
            serde_json::to_string(&kept_a).unwrap(),
            serde_json::to_string(&a).unwrap()
        );
    }

    #[test]
    fn a_spooled_report_changed_is_read_back_first() {
        let spool = Spool::new().unwrap();
        let (a, _) = reports();
        let mut kept = spooled(&spool, &a);
        kept.to_mut().unwrap().strict = !a.strict;
        assert_eq!(kept.get().unwrap().strict, !a.strict);
        assert_eq!(kept.get().unwrap().findings, a.findings);
    }

    #[test]
    fn a_spool_that_lost_its_bytes_says_so_and_equals_nothing() {
        let spool = Spool::new().unwrap();
        let kept = spooled(&spool, &reports().0);
        spool.truncate_for_test(10);
        let error = kept.get().expect_err("a truncated spool");
        assert_eq!(error.kind(), io::ErrorKind::UnexpectedEof);
        assert_ne!(kept, kept.clone());
        assert!(serde_json::to_string(&kept).is_err());
    }
}
