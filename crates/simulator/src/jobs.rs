//! iDRAC's configuration jobs: the job a settings PATCH with an apply time schedules, as iDRAC
//! shows it (`DellJob`), and how a reset completes it.

use serde_json::{Value, json};

/// iDRAC's job queue.
pub(super) const JOBS: &str = "/redfish/v1/Managers/iDRAC.Embedded.1/Jobs";

/// Whether the service root is an iDRAC's.
pub(super) fn is_dell(root: &Value) -> bool {
    root["Vendor"] == "Dell" || root["Oem"]["Dell"].is_object()
}

/// The Id of job number `number` of this BMC: `JID_` and 12 digits, as iDRAC's are (iDRAC
/// derives them from the time; `start` does that here, `number` keeps them apart).
pub(super) fn job_id(start: u64, number: u64) -> String {
    format!("JID_{:012}", (start + number) % 1_000_000_000_000)
}

/// A scheduled job applying the pending values of settings object `target` for the component
/// `fqdd` (`NIC.Slot.3-1-1`).
pub(super) fn scheduled(id: &str, fqdd: &str, target: &str) -> Value {
    let job_type = if target.contains("/DellNetworkAttributes/") {
        "NICConfiguration"
    } else if target.contains("/Bios/") {
        "BIOSConfiguration"
    } else {
        "Configuration"
    };
    json!({
        "@odata.id": format!("{JOBS}/{id}"),
        "@odata.type": "#DellJob.v1_5_0.DellJob",
        "ActualRunningStartTime": null,
        "ActualRunningStopTime": null,
        "CompletionTime": null,
        "Description": "Job Instance",
        "EndTime": "TIME_NA",
        "Id": id,
        "JobState": "Scheduled",
        "JobType": job_type,
        "Message": "Task successfully scheduled.",
        "MessageArgs": [],
        "MessageId": "JCP001",
        "Name": format!("Configure: {fqdd}"),
        "PercentComplete": 0,
        "StartTime": "TIME_NOW",
        "TargetSettingsURI": target,
    })
}

/// `job` once the reset applied its values.
pub(super) fn complete(job: &mut Value) {
    job["JobState"] = json!("Completed");
    job["PercentComplete"] = json!(100);
    job["Message"] = json!("Job completed successfully.");
    job["MessageId"] = json!("PR19");
}

/// The job queue listing `jobs` (URIs).
pub(super) fn collection(jobs: &[String]) -> Value {
    let members: Vec<Value> = jobs.iter().map(|uri| json!({"@odata.id": uri})).collect();
    json!({
        "@odata.id": JOBS,
        "@odata.type": "#DellJobCollection.DellJobCollection",
        "Description": "Collection of Job Instances",
        "Members": members,
        "Members@odata.count": jobs.len(),
        "Name": "JobQueue",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_idrac_root_gets_idrac_jobs() {
        assert!(is_dell(&json!({"Vendor": "Dell"})));
        assert!(is_dell(&json!({"Oem": {"Dell": {}}})));
        // CIMC's root (UCS C-series): settings it stages get no iDRAC job queue.
        for root in [
            json!({"Vendor": "Cisco Systems Inc.", "Name": "Cisco RESTful Root Service"}),
            json!({"Oem": {"Cisco": {}}}),
            json!({"Vendor": "HPE"}),
        ] {
            assert!(!is_dell(&root), "{root}");
        }
    }
}
