//! The hosts of a fleet run captured through the one capture pipeline
//! ([`driftgate_collect::hosts::capture_hosts`]): each host's task reads its baseline and account,
//! captures, then seals, writes and judges it, so the loop feeding the tasks never waits on
//! one host; the run keeps the hosts' records, their reports in the run's spool, until every
//! host has finished.

use std::sync::Arc;
use std::time::Duration;

use super::host::{HostFailure, Hosts};
use super::outdir::HostRecord;
use crate::error::FleetError;
use crate::reporter::Reporter;
use driftgate_collect::Captured;
use driftgate_collect::hosts::{self, CaptureFailure, HostCapture, HostWork, HostsError};
use driftgate_snapshot::{HostName, VerifiedSnapshot};

/// What a host's preparation hands to its end: its baseline, or why it is not captured.
pub(super) type Prepared = Result<Option<VerifiedSnapshot>, HostFailure>;

impl HostWork for Hosts {
    type Prepared = Prepared;
    type Done = Result<HostRecord, FleetError>;

    fn hosts(&self) -> usize {
        self.planned.len()
    }

    fn host(&self, index: usize) -> &HostName {
        &self.planned[index].host.name
    }

    fn prepare(&self, index: usize) -> (Option<HostCapture>, Prepared) {
        let prepared = self.baseline(index).and_then(|baseline| {
            let options = self.capture_options(index)?;
            Ok((baseline, options))
        });
        match prepared {
            Ok((baseline, options)) => {
                let sources = self.planned[index].host.sources.clone();
                (Some(HostCapture { sources, options }), Ok(baseline))
            }
            Err(failure) => (None, Err(failure)),
        }
    }

    fn finish(
        &self,
        index: usize,
        prepared: Prepared,
        captured: Option<Result<Captured, CaptureFailure>>,
        took: Duration,
    ) -> Self::Done {
        let (baseline, got) = match (prepared, captured) {
            (Err(failure), _) => (None, Err(failure)),
            (Ok(baseline), Some(Ok(captured))) => {
                let origin = self.origin(&self.planned[index].host.name);
                (
                    baseline,
                    Ok(VerifiedSnapshot::seal(captured.snapshot, &origin)),
                )
            }
            (Ok(baseline), Some(Err(failure))) => (baseline, Err(failure.into())),
            (Ok(_), None) => unreachable!("a prepared host is captured"),
        };
        Hosts::finish(self, index, baseline, got, took)
    }

    fn panicked(&self, index: usize, why: String) -> Self::Done {
        Hosts::panicked(self, index, why)
    }

    fn last_took(&self, index: usize) -> Option<Duration> {
        self.last_took[index]
    }

    fn look_ahead(&self, index: usize) -> Option<HostCapture> {
        // A host whose settings are wrong is not looked at: `prepare` says why, in its turn.
        let options = self.capture_options(index).ok()?;
        let sources = self.planned[index].host.sources.clone();
        Some(HostCapture { sources, options })
    }
}

/// Captures every host, at most `concurrency` at once: the records in the order hosts
/// finished. On an error (an output file
/// that cannot be written) the run's cancel is fired and the running hosts are drained before
/// it is returned, so that no capture is dropped half-way (sessions are deleted).
pub(super) async fn capture<W>(
    hosts: Arc<W>,
    concurrency: usize,
    cancel: &driftgate_collect::Cancel,
    reporter: &dyn Reporter,
) -> Result<Vec<HostRecord>, FleetError>
where
    W: HostWork<Done = Result<HostRecord, FleetError>>,
{
    let mut records = Vec::with_capacity(hosts.hosts());
    let captured = hosts::capture_hosts(
        Arc::clone(&hosts),
        concurrency,
        cancel,
        reporter,
        |host| reporter.host_started(host),
        |index, record: Result<HostRecord, FleetError>, took| {
            let record = record?;
            reporter.host_finished(hosts.host(index), record.result.verdict, took);
            records.push(record);
            Ok(())
        },
    )
    .await;
    match captured {
        Ok(()) if cancel.is_cancelled() => Err(FleetError::Interrupted),
        Ok(()) => Ok(records),
        Err(HostsError::Done(error)) => Err(error),
        Err(HostsError::Panicked { host, message }) => Err(FleetError::HostPanicked {
            host: host.to_string(),
            message,
        }),
    }
}
