//! One BMC's writes, in memory only: whole resources that stand in for the shared mockup's
//! (an owner with values applied, a settings object holding pending ones, iDRAC's jobs), so
//! that a PATCH on one BMC of a fleet never shows on another, the shared mockup stays as it
//! was loaded, and the served folder is never written.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::jobs;
use super::settings::Place;
use super::tree::Mockup;

/// One BMC's resources where they differ from the shared mockup, and what it has pending.
#[derive(Debug)]
pub(super) struct Overlay {
    resources: HashMap<String, Arc<Value>>,
    /// Values waiting for a reset, by settings object.
    pending: BTreeMap<String, Pending>,
    /// iDRAC job URIs, oldest first.
    jobs: Vec<String>,
    /// Where this BMC's job numbers start.
    job_start: u64,
}

#[derive(Debug)]
struct Pending {
    owner: String,
    place: Place,
    values: Map<String, Value>,
    jobs: Vec<String>,
}

impl Overlay {
    /// Nothing written yet.
    pub(super) fn new() -> Self {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |since| since.as_secs());
        Overlay {
            resources: HashMap::new(),
            pending: BTreeMap::new(),
            jobs: Vec::new(),
            job_start: now % 1_000_000_000 * 1000,
        }
    }

    /// The resource at `uri` (canonical) as this BMC has it: its own, else the shared one.
    pub(super) fn resource(&self, mockup: &Mockup, uri: &str) -> Option<Arc<Value>> {
        match self.resources.get(uri) {
            Some(own) => Some(Arc::clone(own)),
            None => mockup.resource(uri),
        }
    }

    /// Merges `values` into the resource at `uri` (a skeleton naming `uri` when there is none):
    /// an owner's values applied at once, or a settings object's pending ones.
    pub(super) fn merge(
        &mut self,
        mockup: &Mockup,
        uri: &str,
        place: Place,
        values: &Map<String, Value>,
    ) {
        let mut resource = self
            .resource(mockup, uri)
            .map_or_else(|| json!({"@odata.id": uri}), |r| Value::clone(&r));
        if let Some(into) = place.values_mut(&mut resource) {
            into.extend(values.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        self.resources.insert(uri.to_owned(), Arc::new(resource));
    }

    /// Keeps `values` pending in the settings object at `settings` (with those pending
    /// already) until a reset applies them to `owner`; `job`, when given, is the Id and
    /// component of an iDRAC job to schedule for them, whose URI is returned.
    pub(super) fn stage(
        &mut self,
        mockup: &Mockup,
        (settings, owner): (&str, &str),
        place: Place,
        values: &Map<String, Value>,
        job: Option<&str>,
    ) -> Option<String> {
        self.merge(mockup, settings, place, values);
        let pending = self
            .pending
            .entry(settings.to_owned())
            .or_insert_with(|| Pending {
                owner: owner.to_owned(),
                place,
                values: Map::new(),
                jobs: Vec::new(),
            });
        pending
            .values
            .extend(values.iter().map(|(k, v)| (k.clone(), v.clone())));
        let fqdd = job?;
        let id = jobs::job_id(self.job_start, self.jobs.len() as u64);
        let uri = format!("{}/{id}", jobs::JOBS);
        pending.jobs.push(uri.clone());
        self.jobs.push(uri.clone());
        let job = jobs::scheduled(&id, fqdd, settings);
        self.resources.insert(uri.clone(), Arc::new(job));
        let queue = jobs::collection(&self.jobs);
        self.resources
            .insert(jobs::JOBS.to_owned(), Arc::new(queue));
        Some(uri)
    }

    /// What a reset does: every pending value moves into its owner, its settings object no
    /// longer shows it, its jobs complete. Returns the settings objects applied.
    pub(super) fn apply_pending(&mut self, mockup: &Mockup) -> Vec<String> {
        let pending = std::mem::take(&mut self.pending);
        for (settings, applied) in &pending {
            self.merge(mockup, &applied.owner, applied.place, &applied.values);
            if let Some(own) = self.resources.get_mut(settings)
                && let Some(values) = applied.place.values_mut(Arc::make_mut(own))
            {
                values.retain(|name, _| !applied.values.contains_key(name));
            }
            for job in &applied.jobs {
                if let Some(own) = self.resources.get_mut(job) {
                    jobs::complete(Arc::make_mut(own));
                }
            }
        }
        pending.into_keys().collect()
    }
}
