//! How the crawl reads a collection's members: expanded in one request when the service can,
//! page after page (`Members@odata.nextLink`), each member once and only as the type promised,
//! and no fewer than `Members@odata.count` says.

use std::collections::HashMap;
use std::sync::atomic::Ordering;

use futures::future::join_all;
use serde_json::Value;

use super::crawler::{Crawler, Link};
use crate::fetch::{Fetch, FetchError};
use crate::links::{self, ShapeError};
use crate::odata_type::{Expect, TypeName};

/// The most pages of one collection the crawl follows.
const MAX_PAGES: usize = 1000;

impl<F: Fetch> Crawler<'_, F> {
    /// The member URIs of the collection page at `uri`, each listed for the first time in
    /// `listed`. A `Members` that is not an array, a member that is not a link, and a member
    /// listed again are recorded.
    pub(super) fn member_uris(&self, uri: &str, page: &Value, listed: &mut Listed) -> Vec<String> {
        let members = match &page["Members"] {
            Value::Null => return Vec::new(),
            Value::Array(members) => members,
            other => {
                self.wrong(ShapeError::new(uri, "Members", "an array of links", other));
                return Vec::new();
            }
        };
        listed.count += members.len();
        members
            .iter()
            .enumerate()
            .filter_map(|(index, member)| match links::link_target(member) {
                Some(target) => self
                    .listed_once(listed, uri, index, target)
                    .then(|| target.to_owned()),
                None => {
                    self.wrong(ShapeError::new(
                        uri,
                        &format!("Members/{index}"),
                        "a link (an object with a string @odata.id)",
                        member,
                    ));
                    None
                }
            })
            .collect()
    }

    /// Whether `member`, at `Members/index` of the page at `uri`, is listed there for the first
    /// time; a member listed again is recorded: a collection that says one port twice is not
    /// the list of ports its BMC has.
    fn listed_once(&self, listed: &mut Listed, uri: &str, index: usize, member: &str) -> bool {
        let key = member.trim_end_matches('/');
        let Some((page, first)) = listed.first.get(key) else {
            listed.first.insert(key.to_owned(), (uri.to_owned(), index));
            return true;
        };
        let at = if page == uri {
            format!("Members/{first}")
        } else {
            format!("Members/{first} of {page}")
        };
        self.wrong(ShapeError {
            uri: uri.to_owned(),
            property: format!("Members/{index}"),
            expected: format!("each member listed once (it is {at})"),
            found: format!("{member} again"),
        });
        false
    }

    /// The members inline in an expanded collection page at `uri`, each listed once and of the
    /// type `member`: taken out of the page, not copied.
    fn inline_members(
        &self,
        uri: &str,
        page: &mut Value,
        member: &'static TypeName,
        listed: &mut Listed,
    ) -> Vec<Value> {
        let Some(members) = page.get_mut("Members").and_then(Value::as_array_mut) else {
            return Vec::new();
        };
        let members = std::mem::take(members);
        listed.count += members.len();
        members
            .into_iter()
            .enumerate()
            .filter(|(index, resource)| {
                let id = links::link_target(resource);
                id.is_none_or(|id| self.listed_once(listed, uri, *index, id))
                    && self.is_typed(id.unwrap_or(uri), resource, Expect::one(member), || {
                        format!("Members/{index} of {uri}")
                    })
            })
            .map(|(_, resource)| resource)
            .collect()
    }

    /// A collection that lists fewer members than its `Members@odata.count`, on all its pages,
    /// is incomplete: the rest would vanish from the snapshot.
    fn check_count(&self, uri: &str, collection: &Value, listed: usize) {
        let count = &collection["Members@odata.count"];
        if count.is_null() {
            return;
        }
        let Some(count) = count.as_u64() else {
            return self.wrong(ShapeError::new(
                uri,
                "Members@odata.count",
                "a non-negative integer",
                count,
            ));
        };
        if count > listed as u64 {
            self.wrong(ShapeError {
                uri: uri.to_owned(),
                property: "Members".to_owned(),
                expected: format!(
                    "the {count} of Members@odata.count, or a Members@odata.nextLink to the rest"
                ),
                found: format!("a list of {listed}"),
            });
        }
    }

    /// The members of type `member` of the collection that the link `name` of `resource`
    /// leads to, expanded in one request when the service can. Each member is read once
    /// however often it is listed, and only as what it is: a page or member of another type
    /// (the collection itself, the service root) is recorded and left out.
    pub(super) async fn members(
        &self,
        resource: &Value,
        name: &str,
        member: &'static TypeName,
    ) -> Vec<Value> {
        self.members_of(self.link_at(resource, &[name]), member)
            .await
    }

    /// [`Self::members`] of the collection `link` leads to.
    pub(super) async fn members_of(
        &self,
        link: Option<Link>,
        member: &'static TypeName,
    ) -> Vec<Value> {
        self.members_read_at(link, member)
            .await
            .into_iter()
            .map(|(_, member)| member)
            .collect()
    }

    /// [`Self::members_of`], each with the URI it was read from (its `Members` link); `None`
    /// for a member inline in an expanded collection, which was not read on its own.
    pub(super) async fn members_read_at(
        &self,
        link: Option<Link>,
        member: &'static TypeName,
    ) -> Vec<(Option<String>, Value)> {
        let Some(Link { uri, via }) = &link else {
            return Vec::new();
        };
        let uri = uri.as_str();
        let via = || via.clone();
        let collection_type = Expect::CollectionOf(*member);
        let mut listed = Listed::default();
        if self.expand.load(Ordering::Relaxed) {
            match self.fetch_raw(&format!("{uri}?$expand=.($levels=1)")).await {
                Ok(mut collection) if expanded(&collection) => {
                    if !self.is_typed(uri, &collection, collection_type, via) {
                        return Vec::new();
                    }
                    let mut members: Vec<(Option<String>, Value)> = self
                        .inline_members(uri, &mut collection, member, &mut listed)
                        .into_iter()
                        .map(|member| (None, member))
                        .collect();
                    for (page_uri, mut page) in self.next_pages(uri, &collection).await {
                        if !self.is_typed(&page_uri, &page, collection_type, via) {
                            continue;
                        }
                        if expanded(&page) {
                            members.extend(
                                self.inline_members(&page_uri, &mut page, member, &mut listed)
                                    .into_iter()
                                    .map(|member| (None, member)),
                            );
                        } else {
                            let uris = self.member_uris(&page_uri, &page, &mut listed);
                            members.extend(self.get_members(uris, member, &listed).await);
                        }
                    }
                    self.check_count(uri, &collection, listed.count);
                    let mut fetched = self
                        .fetched
                        .lock()
                        .expect("no panic while holding the lock");
                    for (_, member) in members.iter().filter(|_| self.keep) {
                        if let Some(id) = member["@odata.id"].as_str() {
                            fetched.insert(id.trim_end_matches('/').to_owned(), member.clone());
                        }
                    }
                    return members;
                }
                Err(e) if e.status() == Some(501) => self.expand.store(false, Ordering::Relaxed),
                // Anything else: ask again without `$expand`; that answer decides.
                _ => {}
            }
        }
        let Some(collection) = self.get(uri).await else {
            return Vec::new();
        };
        if !self.is_typed(uri, &collection, collection_type, via) {
            return Vec::new();
        }
        let mut uris = self.member_uris(uri, &collection, &mut listed);
        for (page_uri, page) in self.next_pages(uri, &collection).await {
            if self.is_typed(&page_uri, &page, collection_type, via) {
                uris.extend(self.member_uris(&page_uri, &page, &mut listed));
            }
        }
        self.check_count(uri, &collection, listed.count);
        self.get_members(uris, member, &listed).await
    }

    /// The members at `uris` that are of the type `member`, as `listed` lists them, each with
    /// its URI.
    async fn get_members(
        &self,
        uris: Vec<String>,
        member: &'static TypeName,
        listed: &Listed,
    ) -> Vec<(Option<String>, Value)> {
        let read = join_all(uris.iter().map(|uri| self.get(uri))).await;
        uris.into_iter()
            .zip(read)
            .filter_map(|(uri, resource)| {
                let resource = resource?;
                let via = || listed.place_of(&uri);
                self.is_typed(&uri, &resource, Expect::one(member), via)
                    .then_some((Some(uri), resource))
            })
            .collect()
    }

    /// The next page a collection page at `uri` names: absent or `null` is the last page, a
    /// `Members@odata.nextLink` that is not a string is recorded (the rest is missing).
    fn next_link(&self, uri: &str, page: &Value) -> Option<String> {
        match &page["Members@odata.nextLink"] {
            Value::Null => None,
            Value::String(next) => Some(next.clone()),
            other => {
                self.wrong(ShapeError::new(
                    uri,
                    "Members@odata.nextLink",
                    "a string (the URI of the next page)",
                    other,
                ));
                None
            }
        }
    }

    /// Further pages of the collection at `uri`, with their URIs, following
    /// `Members@odata.nextLink` (at most [`MAX_PAGES`]). A page seen twice, or more pages, is
    /// an error: the collection would otherwise look complete without being so.
    async fn next_pages(&self, uri: &str, first: &Value) -> Vec<(String, Value)> {
        let mut pages = Vec::new();
        let mut seen = std::collections::BTreeSet::new();
        let mut next = self.next_link(uri, first);
        while let Some(uri) = next.take() {
            if !seen.insert(uri.clone()) || pages.len() >= MAX_PAGES {
                let reason = format!(
                    "Members@odata.nextLink loops (or passes {MAX_PAGES} pages); the collection is incomplete"
                );
                self.errors
                    .lock()
                    .expect("no panic while holding the lock")
                    .push(FetchError::Transport { uri, reason });
                break;
            }
            if let Some(page) = self.get(&uri).await {
                next = self.next_link(&uri, &page);
                pages.push((uri, page));
            }
        }
        pages
    }
}

/// The members a collection lists, each once, and where each is listed first.
#[derive(Default)]
pub(super) struct Listed {
    /// How many entries its pages list, repeats included (what `Members@odata.count` counts).
    count: usize,
    /// Each member's URI (without a trailing `/`): the page and index it is listed at first.
    first: HashMap<String, (String, usize)>,
}

impl Listed {
    /// Where `member` is listed first, for messages: `Members/2 of /redfish/v1/Chassis`.
    pub(super) fn place_of(&self, member: &str) -> String {
        match self.first.get(member.trim_end_matches('/')) {
            Some((page, index)) => format!("Members/{index} of {page}"),
            None => "a Members entry".to_owned(),
        }
    }
}

/// Whether a collection body holds its members inline (an `$expand` answer).
fn expanded(collection: &Value) -> bool {
    collection["Members"].as_array().is_some_and(|members| {
        members
            .iter()
            .all(|m| m.as_object().is_some_and(|o| o.len() > 1))
    })
}
