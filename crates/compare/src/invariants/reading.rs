//! Reading a snapshot's facts as the invariants do: its ports, the facts under a path, and a
//! violation at a fact.

use std::ops::Bound;

use driftgate_model::DcbxSupport;
use driftgate_snapshot::{FactPath, FactValue, Facts};

/// One place where an invariant does not hold.
#[derive(Debug, Clone, PartialEq)]
pub struct Violation {
    /// The fact that shows the cause.
    pub path: FactPath,
    /// Its value.
    pub value: Option<FactValue>,
    /// What is wrong, naming the adapter or device.
    pub message: String,
}

/// The facts of one MAC-keyed port.
pub(super) struct Port<'a> {
    pub(super) facts: &'a Facts,
    pub(super) mac: &'a str,
}

impl Port<'_> {
    pub(super) fn path(&self, leaf: &str) -> String {
        format!("nic/{}/{leaf}", self.mac)
    }

    pub(super) fn get(&self, leaf: &str) -> Option<&FactValue> {
        self.facts.get(self.path(leaf).as_str())
    }

    /// The OS reports the adapter without any DCB capability (Windows prints its capability
    /// columns blank): an adapter without DCB, not a broken one.
    pub(super) fn dcb_not_reported(&self) -> bool {
        self.get("os/dcb_reported").and_then(FactValue::as_bool) == Some(false)
    }

    pub(super) fn dcbx_support(&self, column: &str) -> Option<DcbxSupport> {
        self.get(&format!("os/dcbx_support/{column}"))
            .and_then(FactValue::as_text)
            .map(DcbxSupport::parse)
    }

    /// `"SLOT 3 Port 1" (00:0a:…)` when the OS or the BMC names the port, else the MAC.
    pub(super) fn label(&self) -> String {
        match self
            .get("os/name")
            .or_else(|| self.get("bmc/port"))
            .and_then(FactValue::as_text)
        {
            Some(name) => format!("{name:?} ({})", self.mac),
            None => self.mac.to_owned(),
        }
    }
}

/// How the invariants name the port `key` (`"SLOT 3 Port 1" (00:0a:…)`), for other parts of
/// a report to name it the same way.
pub(crate) fn port_label(facts: &Facts, key: &str) -> String {
    Port { facts, mac: key }.label()
}

pub(super) fn violation(facts: &Facts, path: &str, message: String) -> Violation {
    let path = FactPath::new(path).expect("invariant paths are built from valid fact paths");
    let value = facts.get(&path).cloned();
    Violation {
        path,
        value,
        message,
    }
}

/// Facts directly under `prefix` (which ends in `/`), as (leaf, value).
pub(super) fn children<'a>(
    facts: &'a Facts,
    prefix: &'a str,
) -> impl Iterator<Item = (&'a str, &'a FactValue)> {
    facts
        .range::<str, _>((Bound::Included(prefix), Bound::Unbounded))
        .map_while(move |(path, value)| {
            path.as_str().strip_prefix(prefix).map(|rest| (rest, value))
        })
        .filter(|(rest, _)| !rest.contains('/'))
}

/// The distinct first segments under `prefix` (which ends in `/`), in order. Every invariant
/// asks for the ports, so rather than walking each port's facts this seeks past them: every
/// path under `<prefix><segment>/` sorts before `<prefix><segment>0` (`0` follows `/`).
pub(super) fn children_segments<'a>(
    facts: &'a Facts,
    prefix: &'a str,
) -> impl Iterator<Item = &'a str> {
    let mut from: Bound<String> = Bound::Included(prefix.to_owned());
    let mut last: Option<&str> = None;
    std::iter::from_fn(move || {
        loop {
            let bound = from.as_ref().map(String::as_str);
            let (path, _) = facts.range::<str, _>((bound, Bound::Unbounded)).next()?;
            let rest = path.as_str().strip_prefix(prefix)?;
            let segment = match rest.find('/') {
                Some(end) => {
                    from = Bound::Included(format!("{prefix}{}0", &rest[..end]));
                    &rest[..end]
                }
                // A fact right at `<prefix><segment>`: what follows may be another segment.
                None => {
                    from = Bound::Excluded(path.as_str().to_owned());
                    rest
                }
            };
            // `<prefix>b` and then `<prefix>b/q` name one segment.
            if last != Some(segment) {
                last = Some(segment);
                return Some(segment);
            }
        }
    })
}

/// The MAC (or name) keys of every port in the facts.
pub(super) fn ports(facts: &Facts) -> impl Iterator<Item = &str> {
    children_segments(facts, "nic/")
}
