//! How the crawl reads one resource: a GET waits for one of the crawl's permits, its body is
//! remembered when the crawl keeps them, a failure or a property of the wrong shape is
//! recorded, and what a link leads to is read only as the type it promises.

use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use serde_json::Value;
use tokio::sync::{OnceCell, Semaphore};

use crate::attributes::KnownRegistries;
use crate::attributes::Registry;
use crate::fetch::{Body, Fetch, FetchError, RegistryBody, parse_body};
use crate::links::{self, ShapeError, uri_of};
use crate::odata_type::{self, Expect};

/// How much of each attribute registry a crawl reads.
#[derive(Debug, Clone, Copy)]
pub enum Registries<'a> {
    /// All of it, as served: for a write (`fix`) or a saved copy.
    Whole,
    /// What judging reads of it, a registry the run read already (the same text another BMC
    /// served) taken from those it knows.
    Judged(&'a KnownRegistries),
}

/// One crawl's state, shared by every resource it reads.
pub(super) struct Crawler<'a, F> {
    pub(super) fetch: &'a F,
    // Whether every body is kept for `--save-mockup`: a copy of each resource (the attribute
    // registries are megabytes) is not made for a capture that does not save them.
    pub(super) keep: bool,
    // How much of an attribute registry is built: all of it for a write or a saved copy.
    pub(super) registries: Registries<'a>,
    // Shared with the side crawl of the PCIe resources: one limit of requests in flight per BMC.
    pub(super) permits: &'a Semaphore,
    pub(super) expand: AtomicBool,
    pub(super) fetched: Mutex<BTreeMap<String, Value>>,
    pub(super) errors: Mutex<Vec<FetchError>>,
    // The registry lookups' answers (see `get_once`), shared by reference.
    pub(super) answers: Answers<Value>,
    // The attribute registries read, by URI (see `registry_once`).
    pub(super) registries_read: Answers<Registry>,
}

/// What is wrong with the body `value` of `uri` that is no JSON object: every Redfish
/// resource is one, and anything else would read as "no properties".
pub(super) fn not_a_resource(uri: &str, value: &Value) -> Option<ShapeError> {
    (!value.is_object())
        .then(|| ShapeError::new(uri, "the body", "a JSON object (a Redfish resource)", value))
}

/// Each URI's answer, read by the first caller and shared with the rest.
pub(super) type Answers<T> = Mutex<BTreeMap<String, Arc<OnceCell<Option<Arc<T>>>>>>;

/// The answer `answers` holds for `uri`, made by `read` for the first caller; the others wait
/// for it.
async fn once<T>(
    answers: &Answers<T>,
    uri: &str,
    read: impl Future<Output = Option<Arc<T>>>,
) -> Option<Arc<T>> {
    let answer = Arc::clone(
        answers
            .lock()
            .expect("no panic while holding the lock")
            .entry(uri.trim_end_matches('/').to_owned())
            .or_default(),
    );
    answer.get_or_init(|| read).await.clone()
}

impl<'a, F> Crawler<'a, F> {
    /// A crawler of `fetch` under `permits`, with nothing read yet.
    pub(super) fn new(
        fetch: &'a F,
        keep: bool,
        registries: Registries<'a>,
        permits: &'a Semaphore,
        expand: bool,
    ) -> Self {
        Crawler {
            fetch,
            keep,
            registries,
            permits,
            expand: AtomicBool::new(expand),
            fetched: Mutex::new(BTreeMap::new()),
            errors: Mutex::new(Vec::new()),
            answers: Mutex::new(BTreeMap::new()),
            registries_read: Mutex::new(BTreeMap::new()),
        }
    }

    /// What could not be read or had the wrong shape, sorted, each once; and every resource
    /// read, when the crawl keeps them.
    pub(super) fn into_errors(self) -> (Vec<FetchError>, BTreeMap<String, Value>) {
        let mut errors = self
            .errors
            .into_inner()
            .expect("no panic while holding the lock");
        errors.sort_by_cached_key(ToString::to_string);
        // A problem met through each of several links (a registry every port names) is one.
        errors.dedup();
        let fetched = self
            .fetched
            .into_inner()
            .expect("no panic while holding the lock");
        (errors, fetched)
    }
}

impl<F: Fetch> Crawler<'_, F> {
    /// GETs `uri`; a failure is recorded and yields `None`.
    pub(super) async fn get(&self, uri: &str) -> Option<Value> {
        self.get_as(uri, Body::Whole).await
    }

    /// [`Self::get`] of as much of the body as `kind` says.
    pub(super) async fn get_as(&self, uri: &str, kind: Body) -> Option<Value> {
        match self.fetch_raw_as(uri, kind).await {
            Ok(value) => Some(value),
            Err(error) => {
                self.errors
                    .lock()
                    .expect("no panic while holding the lock")
                    .push(error);
                None
            }
        }
    }

    /// [`Self::get`] once per crawl however many resources ask (a second caller waits for the
    /// first one's answer), every caller sharing the one parsed body: the attribute resources
    /// of every port name their registry through the same `Registries` collection and
    /// registry files, and a BMC is slow enough.
    pub(super) async fn get_once(&self, uri: &str, kind: Body) -> Option<Arc<Value>> {
        once(&self.answers, uri, async {
            self.get_as(uri, kind).await.map(Arc::new)
        })
        .await
    }

    /// The attribute registry at `uri`, read by `read` once per crawl and shared by every
    /// resource that names it: a registry is megabytes, and each port's copy of it was most of
    /// the CPU a capture spent. Only what judging reads of it is held (and the whole body
    /// when the crawl reads registries whole, for a write).
    pub(super) async fn registry_once(
        &self,
        uri: &str,
        read: impl Future<Output = Option<Arc<Registry>>>,
    ) -> Option<Arc<Registry>> {
        once(&self.registries_read, uri, read).await
    }

    /// GETs the attribute registry at `uri` as judging reads it (never kept: a crawl that
    /// keeps its bodies reads registries whole); a failure is recorded and yields `None`.
    pub(super) async fn get_registry(
        &self,
        uri: &str,
        known: &KnownRegistries,
    ) -> Option<RegistryBody> {
        let read = {
            let _permit = self
                .permits
                .acquire()
                .await
                .expect("the semaphore is never closed");
            Box::pin(self.fetch.get_registry(uri, known)).await
        };
        read.map_err(|error| {
            self.errors
                .lock()
                .expect("no panic while holding the lock")
                .push(error);
        })
        .ok()
    }

    /// GETs `uri` and remembers the body; the error is the caller's to judge.
    pub(super) async fn fetch_raw(&self, uri: &str) -> Result<Value, FetchError> {
        self.fetch_raw_as(uri, Body::Whole).await
    }

    /// [`Self::fetch_raw`] of as much of the body as `kind` says.
    async fn fetch_raw_as(&self, uri: &str, kind: Body) -> Result<Value, FetchError> {
        let value = {
            let _permit = self
                .permits
                .acquire()
                .await
                .expect("the semaphore is never closed");
            // Boxed once the permit is taken: a GET's state is kilobytes (the HTTP exchange,
            // a login, a TLS probe), and inline it would make every resource's future in the
            // crawl, waiting or not, that large. Boxed, only the requests in flight hold it.
            Box::pin(self.fetch.get_as(uri, kind)).await?
        };
        if let Some(problem) = not_a_resource(uri, &value) {
            return Err(FetchError::Shape(problem));
        }
        self.keep_body(uri, &value);
        Ok(value)
    }

    /// The resource at `uri` from `body`, already read elsewhere, when it is a JSON object
    /// `usable` accepts (kept like one read here); `None` when it is not, and nothing is
    /// recorded: the caller reads it itself.
    pub(super) fn given(
        &self,
        uri: &str,
        body: &[u8],
        usable: impl FnOnce(&Value) -> bool,
    ) -> Option<Value> {
        let value = parse_body(uri, body, Body::Whole).ok()?;
        if not_a_resource(uri, &value).is_some() || !usable(&value) {
            return None;
        }
        self.keep_body(uri, &value);
        Some(value)
    }

    /// Remembers `value` as the body of `uri` when the crawl keeps them.
    fn keep_body(&self, uri: &str, value: &Value) {
        if self.keep {
            let key = uri
                .split('?')
                .next()
                .unwrap_or(uri)
                .trim_end_matches('/')
                .to_owned();
            self.fetched
                .lock()
                .expect("no panic while holding the lock")
                .insert(key, value.clone());
        }
    }

    /// Records a property of the wrong type.
    pub(super) fn wrong(&self, problem: ShapeError) {
        self.errors
            .lock()
            .expect("no panic while holding the lock")
            .push(FetchError::Shape(problem));
    }

    /// Whether `resource` (read from `uri` through the link `via` names) is what `expect`
    /// says; a resource of another type is recorded, and not to be read as the one promised.
    pub(super) fn is_typed(
        &self,
        uri: &str,
        resource: &Value,
        expect: Expect,
        via: impl FnOnce() -> String,
    ) -> bool {
        match odata_type::check(uri, resource, expect, via) {
            Ok(()) => true,
            Err(problem) => {
                self.wrong(problem);
                false
            }
        }
    }

    /// The link at `path` of `resource`; one of the wrong shape is recorded and not followed.
    pub(super) fn link<'v>(&self, resource: &'v Value, path: &[&str]) -> Option<&'v str> {
        let uri = uri_of(resource, "(a resource without @odata.id)");
        links::link(uri, resource, path).unwrap_or_else(|problem| {
            self.wrong(problem);
            None
        })
    }

    /// The targets of the array of links at `path` of `resource` (`Controllers/0/Links/PCIeDevices`,
    /// `RelatedItem`); a member or array of the wrong shape is recorded and not followed.
    pub(super) fn links<'v>(&self, resource: &'v Value, path: &[&str]) -> Vec<&'v str> {
        let uri = uri_of(resource, "(a resource without @odata.id)");
        let items = match links::at(uri, resource, path) {
            Ok(Some(Value::Array(items))) => items,
            Ok(None) => return Vec::new(),
            Ok(Some(other)) => {
                self.wrong(ShapeError::new(
                    uri,
                    &path.join("/"),
                    "an array of links",
                    other,
                ));
                return Vec::new();
            }
            Err(problem) => {
                self.wrong(problem);
                return Vec::new();
            }
        };
        items
            .iter()
            .enumerate()
            .filter(|(_, item)| !item.is_null())
            .filter_map(|(index, item)| {
                let target = links::link_target(item);
                if target.is_none() {
                    self.wrong(ShapeError::new(
                        uri,
                        &format!("{}/{index}", path.join("/")),
                        "a link (an object with a string @odata.id)",
                        item,
                    ));
                }
                target
            })
            .collect()
    }

    /// The link at `path` of `resource`, taken to be followed once `resource` is held as text;
    /// one of the wrong shape is recorded and not followed.
    pub(super) fn link_at(&self, resource: &Value, path: &[&str]) -> Option<Link> {
        let uri = self.link(resource, path)?;
        Some(Link {
            uri: uri.to_owned(),
            via: link_name(resource, path),
        })
    }

    /// What `link` leads to, when it is what `expect` says.
    pub(super) async fn follow(&self, link: Option<Link>, expect: Expect) -> Option<Value> {
        let Link { uri, via } = link?;
        let value = self.get(&uri).await?;
        self.is_typed(&uri, &value, expect, || via).then_some(value)
    }
}

/// A link taken from a resource: where it leads, and how a message names it.
pub(super) struct Link {
    pub(super) uri: String,
    pub(super) via: String,
}

/// The link at `path` of `resource`, for messages: `Bios of /redfish/v1/Systems/1`.
pub(super) fn link_name(resource: &Value, path: &[&str]) -> String {
    format!(
        "{} of {}",
        path.join("/"),
        uri_of(resource, "(a resource without @odata.id)")
    )
}
