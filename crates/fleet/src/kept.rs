//! The records of the hosts a captured run has finished, kept out of memory until the run
//! assembles them: each is written (without its report, which the run's report spool holds)
//! to an unnamed temporary file as its host ends, and read back once every host has. A
//! finished host then costs the run under 100 bytes while it goes on rather than its whole
//! record with its strings: a 10,000-host run grew by 7.5 MB as its hosts finished, and
//! peaked with its last hosts still holding their captures.

use std::borrow::Cow;
use std::fs::File;
use std::io::{self, BufReader, Read as _, Seek as _, SeekFrom, Write as _};

use serde::{Deserialize, Serialize};

use super::FleetError;
use super::cluster::ClusterFacts;
use super::outdir::HostRecord;
use driftgate_compare::{Counts, Verdict};
use driftgate_report::document::{HostReport, HostResult};

/// The finished hosts' records, in the order they finished.
pub(super) struct Kept {
    file: File,
    /// Where each record is in `file`: its end (it starts where the one before it ends).
    ends: Vec<u64>,
    /// Each record's report (in the report spool: a few words each).
    reports: Vec<HostReport>,
}

/// A record without its report, as `file` holds it.
#[derive(Serialize, Deserialize)]
struct Apart {
    schema: Cow<'static, str>,
    host: String,
    fleet: String,
    cluster: Option<String>,
    verdict: Verdict,
    counts: Counts,
    failure: Option<String>,
    capture_ms: u64,
    snapshot_file: Option<String>,
    last_success_at: Option<String>,
    complete: bool,
    cluster_facts: ClusterFacts,
    baseline_captured_at: Option<jiff::Timestamp>,
    baseline_unread: bool,
    last_good: Option<jiff::Timestamp>,
    captured_good: Option<jiff::Timestamp>,
}

impl Kept {
    /// No record yet, for a run of `hosts` hosts.
    pub fn new(hosts: usize) -> Result<Kept, FleetError> {
        let file = tempfile::tempfile().map_err(failed)?;
        Ok(Kept {
            file,
            ends: Vec::with_capacity(hosts),
            reports: Vec::with_capacity(hosts),
        })
    }

    /// Keeps `record`: its report in memory, the rest in the file.
    pub fn push(&mut self, record: HostRecord) -> Result<(), FleetError> {
        let (apart, report) = split(record);
        let bytes = serde_json::to_vec(&apart).map_err(|e| failed(e.into()))?;
        self.file.write_all(&bytes).map_err(failed)?;
        let start = self.ends.last().copied().unwrap_or(0);
        self.ends.push(start + bytes.len() as u64);
        self.reports.push(report);
        Ok(())
    }

    /// Every record kept, in the order they were kept.
    pub fn records(self) -> Result<Vec<HostRecord>, FleetError> {
        let Kept {
            mut file,
            ends,
            reports,
        } = self;
        file.seek(SeekFrom::Start(0)).map_err(failed)?;
        let mut file = BufReader::new(file);
        let mut start = 0;
        let mut bytes = Vec::new();
        let mut records = Vec::with_capacity(reports.len());
        for (end, report) in ends.into_iter().zip(reports) {
            bytes.resize(usize::try_from(end - start).unwrap_or(usize::MAX), 0);
            file.read_exact(&mut bytes).map_err(failed)?;
            let apart: Apart = serde_json::from_slice(&bytes).map_err(|e| failed(e.into()))?;
            records.push(join(apart, report));
            start = end;
        }
        Ok(records)
    }
}

/// A record as [`Apart`] and its report. Every field is named, so that a field added to a
/// record cannot be left out of the file.
fn split(record: HostRecord) -> (Apart, HostReport) {
    let HostRecord {
        schema,
        result:
            HostResult {
                host,
                fleet,
                cluster,
                verdict,
                counts,
                failure,
                capture_ms,
                snapshot_file,
                last_success_at,
                report,
            },
        complete,
        cluster_facts,
        baseline_captured_at,
        baseline_unread,
        last_good,
        captured_good,
    } = record;
    let apart = Apart {
        schema,
        host,
        fleet,
        cluster,
        verdict,
        counts,
        failure,
        capture_ms,
        snapshot_file,
        last_success_at,
        complete,
        cluster_facts,
        baseline_captured_at,
        baseline_unread,
        last_good,
        captured_good,
    };
    (apart, report)
}

/// The record [`split`] took apart.
fn join(apart: Apart, report: HostReport) -> HostRecord {
    let Apart {
        schema,
        host,
        fleet,
        cluster,
        verdict,
        counts,
        failure,
        capture_ms,
        snapshot_file,
        last_success_at,
        complete,
        cluster_facts,
        baseline_captured_at,
        baseline_unread,
        last_good,
        captured_good,
    } = apart;
    HostRecord {
        schema,
        result: HostResult {
            host,
            fleet,
            cluster,
            verdict,
            counts,
            failure,
            capture_ms,
            snapshot_file,
            last_success_at,
            report,
        },
        complete,
        cluster_facts,
        baseline_captured_at,
        baseline_unread,
        last_good,
        captured_good,
    }
}

/// The file could not be made, written or read back.
fn failed(error: io::Error) -> FleetError {
    FleetError::Write {
        path: "the spool of the hosts' records (a temporary file)".to_owned(),
        error,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::{ClusterValue, Compared, LinkEnd};
    use driftgate_report::document::Spool;

    /// A record of `host` whose every field is set, with its report in `spool`.
    fn record(host: &str, spool: &Spool) -> HostRecord {
        let at = |s: &str| s.parse::<jiff::Timestamp>().unwrap();
        let report = crate::tests::empty_report(host, at("2026-12-02T02:00:00Z"));
        let mut report = HostReport::from(report);
        spool.keep(&mut report).unwrap();
        let mut cluster_facts = ClusterFacts::default();
        cluster_facts.values.insert(
            "nic/aa:bb:cc:dd:ee:01/bmc/pfc".into(),
            ClusterValue {
                what: Compared::PfcPriorities,
                severity: driftgate_compare::Severity::Block,
                name: "PFC priorities of NIC.Slot.3-1-1 (BMC)".into(),
                value: serde_json::json!([3, 4.5, "x"]),
                by_mac: true,
            },
        );
        cluster_facts.links.push(LinkEnd {
            port: "aa:bb:cc:dd:ee:01".into(),
            peer_ids: vec![format!("{host}-peer")],
            ..LinkEnd::default()
        });
        HostRecord {
            schema: "driftgate.fleet-host/v1".into(),
            result: HostResult {
                host: host.to_owned(),
                fleet: "storage".to_owned(),
                cluster: Some("c1".to_owned()),
                verdict: Verdict::Warn,
                counts: Counts {
                    warn: 2,
                    ..Counts::default()
                },
                failure: Some("redfish (https://bmc): partial".to_owned()),
                capture_ms: 4_200,
                snapshot_file: Some(format!("snapshots/{host}.json")),
                last_success_at: Some("2026-12-01T02:00:00Z".to_owned()),
                report,
            },
            complete: true,
            cluster_facts,
            baseline_captured_at: Some(at("2026-11-01T02:00:00Z")),
            baseline_unread: true,
            last_good: Some(at("2026-12-01T02:00:00Z")),
            captured_good: Some(at("2026-12-02T02:00:00Z")),
        }
    }

    #[test]
    fn records_come_back_whole_with_their_reports_in_the_order_they_were_kept() {
        let spool = Spool::new().unwrap();
        let records: Vec<HostRecord> = ["node2", "node0", "node1"]
            .iter()
            .map(|host| record(host, &spool))
            .collect();
        let mut kept = Kept::new(records.len()).unwrap();
        for record in records.clone() {
            kept.push(record).unwrap();
        }
        let back = kept.records().unwrap();
        // The same spooled reports (equal only as the same place of the same spool).
        assert_eq!(back, records);
        assert!(back.iter().all(|r| r.result.report.is_spooled()));
        assert_eq!(
            back[0].result.report.get().unwrap().snapshot.captured_at,
            "2026-12-02T02:00:00Z"
        );
    }

    #[test]
    fn a_record_file_cut_short_is_an_error_naming_it_not_a_panic_or_a_lost_host() {
        let spool = Spool::new().unwrap();
        let mut kept = Kept::new(2).unwrap();
        kept.push(record("node0", &spool)).unwrap();
        kept.push(record("node1", &spool)).unwrap();
        let len = kept.file.metadata().unwrap().len();
        kept.file.set_len(len - 10).unwrap();
        let Err(error) = kept.records() else {
            panic!("a file cut short read back as whole");
        };
        assert!(
            error
                .to_string()
                .contains("the spool of the hosts' records"),
            "{error}"
        );
    }
}
