//! The hosts' reports of a fleet run, kept out of memory: each is written to an unnamed
//! temporary file as its host finishes and read back, one at a time, when a report is
//! rendered. A run then holds a few hundred bytes per host (its [`super::HostResult`]
//! without the report), not the host's whole judgement (8 KB and more), so its memory is set
//! by the largest host rather than the fleet. Each report is kept as its pretty JSON, which
//! a fleet report's JSON copies as it stands ([`HostReport`]'s `Serialize`, [`Nested`]).

use std::borrow::Cow;
use std::fmt;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::sync::{Arc, Mutex, PoisonError};

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::ser::{Formatter, PrettyFormatter};
use serde_json::value::RawValue;

use driftgate_compare::Report;

/// A spool that could not be made or written: the file, and why.
#[derive(Debug, thiserror::Error)]
#[error("{what}: {error}")]
pub struct SpoolError {
    /// The file.
    pub what: String,
    /// Why.
    #[source]
    pub error: io::Error,
}

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
    pub fn new() -> Result<Spool, SpoolError> {
        let file = tempfile::tempfile().map_err(|error| SpoolError {
            what: format!("a temporary file in {}", std::env::temp_dir().display()),
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
    pub fn keep(&self, report: &mut HostReport) -> Result<(), SpoolError> {
        self.write(report).map_err(|error| SpoolError {
            what: "the spool of the hosts' reports (a temporary file)".to_owned(),
            error,
        })
    }

    fn write(&self, report: &mut HostReport) -> io::Result<()> {
        let HostReport::Held(held) = report else {
            return Ok(());
        };
        // Rendered before the lock, by the thread that judged the host: the hosts finishing on
        // other cores do not wait for it, and the fleet report's JSON only copies it.
        let bytes = serde_json::to_vec_pretty(held)?;
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
        *report = HostReport::Spooled(Spooled {
            file: Arc::clone(&self.file),
            offset,
            len: bytes.len(),
            glance,
        });
        Ok(())
    }
}

/// One host's report: in memory (read from a file, made by a test), or in a run's [`Spool`].
#[derive(Clone)]
pub enum HostReport {
    /// In memory.
    Held(Box<Report>),
    /// In a spool: read back by [`HostReport::get`].
    Spooled(Spooled),
}

/// Where a spooled report is, and what every view of a fleet shows of it.
#[derive(Clone)]
pub struct Spooled {
    file: Arc<Mutex<SpoolFile>>,
    offset: u64,
    len: usize,
    glance: Glance,
}

/// What every view of a fleet shows of each host, known without reading its report back.
#[derive(Clone, Debug)]
struct Glance {
    captured_at: Box<str>,
    incomplete_sources: usize,
}

impl Spooled {
    /// The report's pretty JSON, as the spool holds it.
    fn read_back(&self) -> io::Result<Vec<u8>> {
        let mut bytes = vec![0; self.len];
        let mut spool = self.file.lock().unwrap_or_else(PoisonError::into_inner);
        spool.file.seek(SeekFrom::Start(self.offset))?;
        spool.file.read_exact(&mut bytes)?;
        Ok(bytes)
    }
}

impl HostReport {
    /// The report: borrowed when in memory, else read back from the spool.
    pub fn get(&self) -> io::Result<Cow<'_, Report>> {
        match self {
            HostReport::Held(report) => Ok(Cow::Borrowed(report)),
            HostReport::Spooled(spooled) => {
                Ok(Cow::Owned(serde_json::from_slice(&spooled.read_back()?)?))
            }
        }
    }

    /// The report to change, read back into memory first if it was spooled (for tests that
    /// build a document and then edit it).
    #[cfg(test)]
    pub(crate) fn to_mut(&mut self) -> io::Result<&mut Report> {
        if let HostReport::Spooled(_) = self {
            *self = HostReport::Held(Box::new(self.get()?.into_owned()));
        }
        match self {
            HostReport::Held(report) => Ok(report),
            HostReport::Spooled(_) => unreachable!("read back above"),
        }
    }

    /// The report read back into memory: two of them compare by contents, however each was
    /// kept.
    pub fn held(&self) -> io::Result<HostReport> {
        Ok(HostReport::Held(Box::new(self.get()?.into_owned())))
    }

    /// Whether the report waits in a spool rather than in memory.
    pub fn is_spooled(&self) -> bool {
        matches!(self, HostReport::Spooled(_))
    }

    /// When the judged snapshot was captured, as its report says (RFC 3339).
    pub fn captured_at(&self) -> &str {
        match self {
            HostReport::Held(report) => &report.snapshot.captured_at,
            HostReport::Spooled(spooled) => &spooled.glance.captured_at,
        }
    }

    /// How many of its sources did not capture completely, as its report says.
    pub fn incomplete_sources(&self) -> usize {
        match self {
            HostReport::Held(report) => report.incomplete_sources.len(),
            HostReport::Spooled(spooled) => spooled.glance.incomplete_sources,
        }
    }
}

impl From<Report> for HostReport {
    fn from(report: Report) -> Self {
        HostReport::Held(Box::new(report))
    }
}

/// A held report as itself; a spooled one by where it is (it is not read back).
impl fmt::Debug for HostReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HostReport::Held(report) => report.fmt(f),
            HostReport::Spooled(spooled) => f
                .debug_struct("Spooled")
                .field("offset", &spooled.offset)
                .field("len", &spooled.len)
                .field("captured_at", &spooled.glance.captured_at)
                .field("incomplete_sources", &spooled.glance.incomplete_sources)
                .finish(),
        }
    }
}

/// Equal held reports, or the same report of the same spool: nothing is read back to
/// compare, so a held report never equals a spooled one (compare what [`HostReport::get`]
/// reads for that).
impl PartialEq for HostReport {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (HostReport::Held(a), HostReport::Held(b)) => a == b,
            (HostReport::Spooled(a), HostReport::Spooled(b)) => {
                Arc::ptr_eq(&a.file, &b.file) && a.offset == b.offset && a.len == b.len
            }
            _ => false,
        }
    }
}

/// Written as the report: a held one rendered, a spooled one read back and copied as the
/// spool holds it (its pretty JSON, not parsed again: a fleet of reports renders at the
/// speed of a copy). Serialized by `Nested`, it is indented for its place in the document;
/// by any other serde_json formatter, its lines keep their own indentation.
impl Serialize for HostReport {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        fn unread<E: serde::ser::Error>(e: impl fmt::Display) -> E {
            E::custom(format!("a spooled report: {e}"))
        }
        match self {
            HostReport::Held(report) => report.serialize(serializer),
            HostReport::Spooled(spooled) => {
                let text =
                    String::from_utf8(spooled.read_back().map_err(unread)?).map_err(unread)?;
                RawValue::from_string(text)
                    .map_err(unread)?
                    .serialize(serializer)
            }
        }
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

/// serde_json's pretty JSON (two spaces), with each raw fragment (a spooled report's own
/// pretty JSON) indented for the depth it is written at: the same bytes as the report
/// rendered in place.
#[derive(Default)]
pub(super) struct Nested {
    pretty: PrettyFormatter<'static>,
    /// Objects and arrays open.
    depth: usize,
}

/// One level of [`Nested`]'s indentation (serde_json's pretty default).
const INDENT: &[u8] = b"  ";

impl Formatter for Nested {
    fn begin_array<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.depth += 1;
        self.pretty.begin_array(writer)
    }

    fn end_array<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.depth -= 1;
        self.pretty.end_array(writer)
    }

    fn begin_array_value<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.pretty.begin_array_value(writer, first)
    }

    fn end_array_value<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.pretty.end_array_value(writer)
    }

    fn begin_object<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.depth += 1;
        self.pretty.begin_object(writer)
    }

    fn end_object<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.depth -= 1;
        self.pretty.end_object(writer)
    }

    fn begin_object_key<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.pretty.begin_object_key(writer, first)
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.pretty.begin_object_value(writer)
    }

    fn end_object_value<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.pretty.end_object_value(writer)
    }

    fn write_raw_fragment<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        let mut lines = fragment.split('\n');
        if let Some(first) = lines.next() {
            writer.write_all(first.as_bytes())?;
        }
        for line in lines {
            writer.write_all(b"\n")?;
            for _ in 0..self.depth {
                writer.write_all(INDENT)?;
            }
            writer.write_all(line.as_bytes())?;
        }
        Ok(())
    }
}

/// Writes `value` as pretty JSON with each spooled report indented for its place
/// (`Nested`).
pub fn to_writer_nested<T: Serialize + ?Sized>(
    out: &mut dyn Write,
    value: &T,
) -> serde_json::Result<()> {
    let mut serializer = serde_json::Serializer::with_formatter(out, Nested::default());
    value.serialize(&mut serializer)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::judge;
    use driftgate_snapshot::VerifiedSnapshot;

    fn example(file: &str) -> VerifiedSnapshot {
        let path = format!(
            "{}/examples/azure-local-dcbx/{file}",
            concat!(env!("CARGO_MANIFEST_DIR"), "/../..")
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
        assert_eq!(kept_a.held().unwrap(), HostReport::from(a.clone()));
        assert_ne!(kept_a.held().unwrap(), kept_b.held().unwrap());
        // Comparing reads nothing back: the same report of the same spool only.
        assert_eq!(kept_a, kept_a.clone());
        assert_ne!(kept_a, kept_b);
        assert_ne!(kept_a, HostReport::from(a.clone()));
        // The document is the report's own: nothing says where it was kept.
        assert_eq!(
            serde_json::to_value(&kept_a).unwrap(),
            serde_json::to_value(&a).unwrap()
        );
        fn nested<T: Serialize>(value: &T) -> Vec<u8> {
            let mut out = Vec::new();
            to_writer_nested(&mut out, value).unwrap();
            out
        }
        assert_eq!(nested(&vec![&kept_a, &kept_b]), nested(&vec![&a, &b]));
        assert_eq!(
            nested(&vec![&a, &b]),
            serde_json::to_vec_pretty(&vec![&a, &b]).unwrap()
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
    fn a_spool_that_lost_its_bytes_says_so() {
        let spool = Spool::new().unwrap();
        let kept = spooled(&spool, &reports().0);
        spool.truncate_for_test(10);
        let error = kept.get().expect_err("a truncated spool");
        assert_eq!(error.kind(), io::ErrorKind::UnexpectedEof);
        assert!(kept.held().is_err());
        assert!(serde_json::to_string(&kept).is_err());
        let mut out = Vec::new();
        let error = to_writer_nested(&mut out, &vec![&kept]).unwrap_err();
        assert!(error.to_string().contains("a spooled report"), "{error}");
        // What is shown of it is known without reading it back.
        assert!(format!("{kept:?}").starts_with("Spooled"), "{kept:?}");
    }
}
