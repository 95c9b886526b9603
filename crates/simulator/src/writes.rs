//! The writes a BMC takes, as real ones take them: a PATCH of a settings object (checked
//! against the owner's attribute registry, applied at once or kept pending) and the
//! `ComputerSystem.Reset` action (which applies what is pending). Anything else written is
//! refused as before. Each accepted or refused write is logged with the names it touched,
//! never a value: an attribute may be a password.

use serde_json::{Map, Value};

use super::overlay::Overlay;
use super::refusal::Problem;
use super::settings::{self, Change};
use super::tree::{Mockup, canonical_uri};
use super::{jobs, registry};

const RESET: &str = "ComputerSystem.Reset";

/// A write that was taken.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Done {
    /// Applied, or kept pending with no job to show for it (204).
    NoContent,
    /// Kept pending, applied by the job at this URI (iDRAC's 202 with a `Location`).
    Job(String),
}

/// A write that was refused, nothing stored.
#[derive(Debug)]
pub(super) enum Refused {
    /// Nothing here takes this method (405).
    NotAllowed(Problem),
    /// The request is wrong (400).
    Invalid(Vec<Problem>),
}

/// A PATCH of `path` with `body`.
pub(super) fn patch(
    overlay: &mut Overlay,
    mockup: &Mockup,
    path: &str,
    body: &[u8],
) -> Result<Done, Refused> {
    let uri = canonical_uri(path);
    let get = |uri: &str| overlay.resource(mockup, uri).map(|r| Value::clone(&r));
    // The owner names its settings object; nothing else is one.
    let names_it = |owner: &Value| {
        owner["@Redfish.Settings"]["SettingsObject"]["@odata.id"]
            .as_str()
            .is_some_and(|named| canonical_uri(named) == uri)
    };
    let owned = uri
        .strip_suffix("/Settings")
        .and_then(|owner_uri| Some((owner_uri, get(owner_uri)?)))
        .filter(|(_, owner)| names_it(owner));
    let Some((owner_uri, owner)) = owned else {
        tracing::info!("PATCH {uri}: refused, no settings object");
        return Err(Refused::NotAllowed(Problem::not_allowed("PATCH", uri)));
    };
    let Ok(request) = serde_json::from_slice::<Value>(body) else {
        tracing::info!("PATCH {uri}: refused, malformed JSON");
        return Err(Refused::Invalid(vec![Problem::malformed_json()]));
    };
    let registry = registry::attribute_registry(&owner, get);
    let names = asked_names(&request);
    let mut change = match settings::check(&owner, registry.as_ref(), &request) {
        Ok(change) => change,
        Err(problems) => {
            let ids: Vec<&str> = problems.iter().map(|p| p.id).collect();
            tracing::info!("PATCH {uri}: refused {names:?}: {ids:?}");
            return Err(Refused::Invalid(problems));
        }
    };
    tracing::info!(
        "PATCH {uri}: accepted {names:?}, apply time {}",
        change.apply_time
    );
    if let Some(registry) = &registry {
        forget_passwords(&mut change.values, registry);
    }
    Ok(take(overlay, mockup, (uri, owner_uri), &owner, change))
}

/// Stores an accepted change: at once when its apply time is `Immediate`, else pending (with
/// the job iDRAC makes itself when the request named an apply time).
fn take(
    overlay: &mut Overlay,
    mockup: &Mockup,
    (settings, owner_uri): (&str, &str),
    owner: &Value,
    change: Change,
) -> Done {
    if change.apply_time == "Immediate" {
        overlay.merge(mockup, owner_uri, change.place, &change.values);
        return Done::NoContent;
    }
    let dell = overlay
        .resource(mockup, "/redfish/v1")
        .is_some_and(|root| jobs::is_dell(&root));
    let fqdd = owner["Id"]
        .as_str()
        .unwrap_or_else(|| owner_uri.rsplit('/').next().unwrap_or(owner_uri));
    let job = (dell && change.apply_time_given).then_some(fqdd);
    let places = (settings, owner_uri);
    match overlay.stage(mockup, places, change.place, &change.values, job) {
        Some(job) => Done::Job(job),
        None => Done::NoContent,
    }
}

/// A BMC takes a password and never shows it again: it reads back as null, as on iDRAC.
fn forget_passwords(values: &mut Map<String, Value>, registry: &Value) {
    for (name, value) in values.iter_mut() {
        if registry::entry(registry, name).is_some_and(|e| e["Type"] == "Password") {
            *value = Value::Null;
        }
    }
}

/// The names a PATCH body sets, for the log.
fn asked_names(request: &Value) -> Vec<String> {
    let values = match &request["Attributes"] {
        Value::Object(attributes) => Some(attributes),
        _ => request.as_object(),
    };
    values.map_or_else(Vec::new, |values: &Map<String, Value>| {
        values.keys().cloned().collect()
    })
}

/// A POST of `path` with `body`: the reset of a system that names `path` as its
/// `#ComputerSystem.Reset` target, else refused.
pub(super) fn post(
    overlay: &mut Overlay,
    mockup: &Mockup,
    path: &str,
    body: &[u8],
) -> Result<Done, Refused> {
    let uri = canonical_uri(path);
    let system = uri
        .strip_suffix(&format!("/Actions/{RESET}"))
        .and_then(|system| overlay.resource(mockup, system));
    let action = system.as_ref().map(|s| &s["Actions"][format!("#{RESET}")]);
    let Some(action) = action.filter(|a| {
        a["target"]
            .as_str()
            .is_some_and(|target| canonical_uri(target) == uri)
    }) else {
        tracing::info!("POST {uri}: refused, no action here");
        return Err(Refused::NotAllowed(Problem::not_allowed("POST", uri)));
    };
    let request: Value = if body.iter().all(u8::is_ascii_whitespace) {
        Value::Null
    } else {
        serde_json::from_slice(body).map_err(|_| {
            tracing::info!("POST {uri}: refused, malformed JSON");
            Refused::Invalid(vec![Problem::malformed_json()])
        })?
    };
    let reset_type = &request["ResetType"];
    let allowed = action["ResetType@Redfish.AllowableValues"].as_array();
    let problem = match reset_type {
        Value::Null => Some(Problem::parameter_missing(RESET, "ResetType")),
        Value::String(_) if allowed.is_some_and(|a| !a.contains(reset_type)) => Some(
            Problem::parameter_not_in_list(reset_type, "ResetType", RESET),
        ),
        Value::String(_) => None,
        other => Some(Problem::parameter_wrong_type(other, "ResetType", RESET)),
    };
    if let Some(problem) = problem {
        tracing::info!("POST {uri}: refused: {}", problem.id);
        return Err(Refused::Invalid(vec![problem]));
    }
    // Every reset type applies what is pending: the simulator has no power state to wait for.
    let applied = overlay.apply_pending(mockup);
    tracing::info!("POST {uri}: {reset_type} reset, applied the pending values of {applied:?}");
    Ok(Done::NoContent)
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use serde_json::json;
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

    use crate::tests::recorded;
    use crate::{Addresses, AuthRequirement, Fleet, FleetOptions, Service};

    const NIC: &str = "/redfish/v1/Chassis/System.Embedded.1/NetworkAdapters/NIC.Slot.3/NetworkDeviceFunctions/NIC.Slot.3-1-1/Oem/Dell/DellNetworkAttributes/NIC.Slot.3-1-1";
    const RESET: &str = "/redfish/v1/Systems/System.Embedded.1/Actions/ComputerSystem.Reset";

    fn settings() -> String {
        format!("{NIC}/Settings")
    }

    /// `count` BMCs of the recorded post-update iDRAC, listening: their `host:port`s.
    async fn fleet(count: usize) -> Vec<String> {
        let options = FleetOptions {
            dirs: vec![recorded("post-update")],
            count,
            addresses: Addresses::Consecutive("127.0.0.1:0".parse().unwrap()),
            faults: Vec::new(),
            bmc_faults: Vec::new(),
            bmc_states: Vec::new(),
            bmc_sets: Vec::new(),
        };
        let service = Service {
            latency: std::time::Duration::ZERO,
            auth: AuthRequirement::None,
            account: None,
        };
        let bound = Fleet::plan(&options, service)
            .unwrap()
            .bind(None)
            .await
            .unwrap();
        let addresses = bound
            .bmcs()
            .iter()
            .map(|b| b.url.trim_start_matches("http://").to_owned())
            .collect();
        tokio::spawn(bound.serve());
        addresses
    }

    /// An answer: status, headers (lower-case names), body (`Null` when empty).
    struct Answer {
        status: u16,
        headers: HashMap<String, String>,
        body: serde_json::Value,
    }

    impl Answer {
        fn message_ids(&self) -> Vec<&str> {
            self.body["error"]["@Message.ExtendedInfo"]
                .as_array()
                .unwrap()
                .iter()
                .map(|info| info["MessageId"].as_str().unwrap())
                .collect()
        }
    }

    /// Sends one HTTP/1.1 request and reads the answer to its end.
    async fn send(address: &str, method: &str, path: &str, body: &str) -> Answer {
        let mut stream = tokio::net::TcpStream::connect(address).await.unwrap();
        let request = format!(
            "{method} {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).await.unwrap();
        let raw = String::from_utf8(raw).unwrap();
        let (head, body) = raw.split_once("\r\n\r\n").unwrap();
        let mut lines = head.lines();
        let status = lines
            .next()
            .unwrap()
            .split(' ')
            .nth(1)
            .unwrap()
            .parse()
            .unwrap();
        let headers = lines
            .filter_map(|line| line.split_once(": "))
            .map(|(name, value)| (name.to_ascii_lowercase(), value.to_owned()))
            .collect();
        let body = if body.is_empty() {
            serde_json::Value::Null
        } else {
            serde_json::from_str(body).unwrap()
        };
        Answer {
            status,
            headers,
            body,
        }
    }

    async fn get(address: &str, path: &str) -> serde_json::Value {
        let answer = send(address, "GET", path, "").await;
        assert_eq!(answer.status, 200, "GET {path}");
        answer.body
    }

    async fn dcbx(address: &str, path: &str) -> serde_json::Value {
        get(address, path).await["Attributes"]["Broadcom_DCBX"].clone()
    }

    fn on_reset(attributes: serde_json::Value) -> String {
        json!({"Attributes": attributes, "@Redfish.SettingsApplyTime": {"ApplyTime": "OnReset"}})
            .to_string()
    }

    #[tokio::test]
    async fn a_dcbx_change_waits_in_a_scheduled_job_until_the_reset() {
        let bmc = &fleet(1).await[0];
        let answer = send(
            bmc,
            "PATCH",
            &settings(),
            &on_reset(json!({"Broadcom_DCBX": "Enabled_IEEE", "ChapSecret": "not-shown"})),
        )
        .await;
        assert_eq!(answer.status, 202, "{}", answer.body);
        let job = answer.headers["location"].clone();
        let digits = job
            .strip_prefix("/redfish/v1/Managers/iDRAC.Embedded.1/Jobs/JID_")
            .unwrap();
        assert!(
            digits.len() == 12 && digits.bytes().all(|b| b.is_ascii_digit()),
            "{job}"
        );
        let scheduled = get(bmc, &job).await;
        assert_eq!(scheduled["JobState"], "Scheduled");
        assert_eq!(scheduled["PercentComplete"], 0);
        assert_eq!(scheduled["Name"], "Configure: NIC.Slot.3-1-1");
        assert_eq!(scheduled["TargetSettingsURI"], settings());
        let queue = get(bmc, "/redfish/v1/Managers/iDRAC.Embedded.1/Jobs").await;
        assert_eq!(queue["Members"], json!([{"@odata.id": job}]));
        let pending = get(bmc, &settings()).await;
        assert_eq!(pending["Attributes"]["Broadcom_DCBX"], "Enabled_IEEE");
        // A password is taken but never read back.
        assert_eq!(pending["Attributes"]["ChapSecret"], json!(null));
        assert_eq!(dcbx(bmc, NIC).await, "Disabled");
        // A later change keeps the earlier one pending beside it.
        let more = send(
            bmc,
            "PATCH",
            &settings(),
            &on_reset(json!({"VirtualizationMode": "SRIOV"})),
        )
        .await;
        assert_eq!(more.status, 202);
        assert_eq!(dcbx(bmc, &settings()).await, "Enabled_IEEE");

        let reset = send(bmc, "POST", RESET, r#"{"ResetType": "ForceRestart"}"#).await;
        assert_eq!(reset.status, 204, "{}", reset.body);
        let nic = get(bmc, NIC).await;
        assert_eq!(nic["Attributes"]["Broadcom_DCBX"], "Enabled_IEEE");
        assert_eq!(nic["Attributes"]["VirtualizationMode"], "SRIOV");
        assert_eq!(get(bmc, &settings()).await["Attributes"], json!({}));
        let completed = get(bmc, &job).await;
        assert_eq!(completed["JobState"], "Completed");
        assert_eq!(completed["PercentComplete"], 100);
        assert_eq!(completed["Message"], "Job completed successfully.");
        // `$expand` shows the BMC's own resources too.
        let queue = "/redfish/v1/Managers/iDRAC.Embedded.1/Jobs?$expand=.($levels=1)";
        assert_eq!(get(bmc, queue).await["Members"][0]["JobState"], "Completed");
    }

    #[tokio::test]
    async fn refused_changes_name_each_wrong_attribute_and_store_nothing() {
        let bmc = &fleet(1).await[0];
        let immediate = json!({"Attributes": {"Broadcom_DCBX": "Enabled_IEEE"},
            "@Redfish.SettingsApplyTime": {"ApplyTime": "Immediate"}})
        .to_string();
        for (body, ids, related) in [
            (
                on_reset(json!({"RDMAProtocolSupport": "iWARP"})),
                vec!["Base.1.12.PropertyNotWritable"],
                json!(["#/Attributes/RDMAProtocolSupport"]),
            ),
            (
                on_reset(json!({"Broadcom_DCBX": "IEEE"})),
                vec!["Base.1.12.PropertyValueNotInList"],
                json!(["#/Attributes/Broadcom_DCBX"]),
            ),
            (
                on_reset(json!({"NoSuchAttribute": "x"})),
                vec!["Base.1.12.PropertyUnknown"],
                json!(["#/Attributes/NoSuchAttribute"]),
            ),
            (
                immediate,
                vec!["Base.1.12.PropertyValueNotInList"],
                json!(["#/@Redfish.SettingsApplyTime/ApplyTime"]),
            ),
            (
                on_reset(json!({"Broadcom_DCBX": 1, "RDMASupport": "x"})),
                vec![
                    "Base.1.12.PropertyValueTypeError",
                    "Base.1.12.PropertyNotWritable",
                ],
                json!(["#/Attributes/Broadcom_DCBX"]),
            ),
            (
                json!({"Broadcom_DCBX": "Enabled_IEEE"}).to_string(),
                vec!["Base.1.12.PropertyUnknown", "Base.1.12.PropertyMissing"],
                json!(["#/Broadcom_DCBX"]),
            ),
            (
                "{\"Attributes\": ".to_owned(),
                vec!["Base.1.12.MalformedJSON"],
                json!([]),
            ),
        ] {
            let answer = send(bmc, "PATCH", &settings(), &body).await;
            assert_eq!(answer.status, 400, "{body}");
            assert_eq!(answer.message_ids(), ids, "{body}");
            let first = &answer.body["error"]["@Message.ExtendedInfo"][0];
            assert_eq!(first["RelatedProperties"], related, "{body}");
            assert!(first["Message"].is_string() && first["MessageArgs"].is_array());
        }
        assert_eq!(get(bmc, &settings()).await["Attributes"], json!({}));
        assert_eq!(dcbx(bmc, NIC).await, "Disabled");
        let jobs = send(bmc, "GET", "/redfish/v1/Managers/iDRAC.Embedded.1/Jobs", "").await;
        assert_eq!(jobs.status, 404);

        let not_settings = send(
            bmc,
            "PATCH",
            NIC,
            &on_reset(json!({"Broadcom_DCBX": "Enabled_IEEE"})),
        )
        .await;
        assert_eq!(not_settings.status, 405);
        assert_eq!(
            not_settings.message_ids(),
            ["Base.1.12.OperationNotAllowed"]
        );
        let elsewhere = send(
            bmc,
            "POST",
            "/redfish/v1/Systems/System.Embedded.1/Actions/Nope",
            "{}",
        )
        .await;
        assert_eq!(elsewhere.status, 405);
        for (body, id) in [
            ("", "Base.1.12.ActionParameterMissing"),
            ("{}", "Base.1.12.ActionParameterMissing"),
            (
                r#"{"ResetType": "Off"}"#,
                "Base.1.12.ActionParameterValueNotInList",
            ),
            (
                r#"{"ResetType": 1}"#,
                "Base.1.12.ActionParameterValueTypeError",
            ),
            ("{", "Base.1.12.MalformedJSON"),
        ] {
            let answer = send(bmc, "POST", RESET, body).await;
            assert_eq!(
                (answer.status, answer.message_ids()),
                (400, vec![id]),
                "{body}"
            );
        }
    }

    #[tokio::test]
    async fn each_bmc_of_a_fleet_keeps_its_own_settings() {
        let bmcs = fleet(2).await;
        let answer = send(
            &bmcs[0],
            "PATCH",
            &settings(),
            &on_reset(json!({"Broadcom_DCBX": "Enabled_CEE"})),
        )
        .await;
        assert_eq!(answer.status, 202);
        assert_eq!(
            send(&bmcs[0], "POST", RESET, r#"{"ResetType": "On"}"#)
                .await
                .status,
            204
        );
        assert_eq!(dcbx(&bmcs[0], NIC).await, "Enabled_CEE");
        assert_eq!(dcbx(&bmcs[1], NIC).await, "Disabled");
        assert_eq!(get(&bmcs[1], &settings()).await["Attributes"], json!({}));
        // Nor does the folder change: a new BMC of it starts as recorded.
        assert_eq!(dcbx(&fleet(1).await[0], NIC).await, "Disabled");
    }
}
