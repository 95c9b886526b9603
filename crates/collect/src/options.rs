//! The settings of one capture: its processes, its BMC client, its stop, its vCenters.

use driftgate_redfish::RedfishOptions;

use crate::Cancel;
use crate::transport::ProcessOptions;
use crate::vcenter;

/// Settings of a capture.
#[derive(Debug, Clone, Default)]
pub struct CaptureOptions {
    /// Command transports' settings.
    pub process: ProcessOptions,
    /// Redfish client settings.
    pub redfish: RedfishOptions,
    /// Stops the capture from outside (a signal): no new request or command starts.
    pub cancel: Cancel,
    /// What each vCenter gave this run: one session per vCenter, shared by its hosts.
    pub vcenters: vcenter::VcenterReads,
}

impl CaptureOptions {
    /// The time one host's capture has, all its sources together: `--host-timeout` (or the
    /// inventory's `timeouts.host_seconds`), kept in `redfish.client.host_timeout` where the
    /// BMC crawl reads it. [`capture_host`](crate::capture_host) ends its command sources then too.
    pub fn host_timeout(&self) -> std::time::Duration {
        self.redfish.client.host_timeout
    }
}
