//! Structural diff of two fact maps, in one merge pass over their sorted paths.

use std::cmp::Ordering;
use std::iter::Peekable;

use driftgate_snapshot::{FactPath, FactValue, Facts, FactsIter};

/// One fact that differs between two snapshots.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Change<'a> {
    /// The fact path.
    pub path: &'a FactPath,
    /// Its value before, or `None` when it was added.
    pub old: Option<&'a FactValue>,
    /// Its value after, or `None` when it was removed.
    pub new: Option<&'a FactValue>,
}

/// The changes from `old` to `new`, in path order. Linear in the number of facts.
pub fn changes<'a>(old: &'a Facts, new: &'a Facts) -> Changes<'a> {
    Changes {
        old: old.iter().peekable(),
        new: new.iter().peekable(),
    }
}

/// Iterator returned by [`changes`].
pub struct Changes<'a> {
    old: Peekable<FactsIter<'a>>,
    new: Peekable<FactsIter<'a>>,
}

impl<'a> Iterator for Changes<'a> {
    type Item = Change<'a>;

    fn next(&mut self) -> Option<Change<'a>> {
        loop {
            let order = match (self.old.peek(), self.new.peek()) {
                (None, None) => return None,
                (Some(_), None) => Ordering::Less,
                (None, Some(_)) => Ordering::Greater,
                (Some((a, _)), Some((b, _))) => a.cmp(b),
            };
            match order {
                Ordering::Less => {
                    let (path, old) = self.old.next()?;
                    return Some(Change {
                        path,
                        old: Some(old),
                        new: None,
                    });
                }
                Ordering::Greater => {
                    let (path, new) = self.new.next()?;
                    return Some(Change {
                        path,
                        old: None,
                        new: Some(new),
                    });
                }
                Ordering::Equal => {
                    let (path, old) = self.old.next()?;
                    let (_, new) = self.new.next()?;
                    if old != new {
                        return Some(Change {
                            path,
                            old: Some(old),
                            new: Some(new),
                        });
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(pairs: &[(&str, i64)]) -> Facts {
        pairs
            .iter()
            .map(|(p, v)| (FactPath::new(*p).unwrap(), FactValue::from(*v)))
            .collect()
    }

    #[test]
    fn reports_added_removed_and_changed_in_path_order() {
        let old = facts(&[("a", 1), ("b", 2), ("c", 3), ("e", 5)]);
        let new = facts(&[("b", 2), ("c", 4), ("d", 4), ("e", 5), ("f", 6)]);
        let got: Vec<(String, Option<String>, Option<String>)> = changes(&old, &new)
            .map(|c| {
                (
                    c.path.to_string(),
                    c.old.map(|v| v.to_string()),
                    c.new.map(|v| v.to_string()),
                )
            })
            .collect();
        let s = |x: &str| Some(x.to_owned());
        assert_eq!(
            got,
            vec![
                ("a".into(), s("1"), None),
                ("c".into(), s("3"), s("4")),
                ("d".into(), None, s("4")),
                ("f".into(), None, s("6")),
            ]
        );
    }

    #[test]
    fn identical_and_empty_maps_have_no_changes() {
        let a = facts(&[("x", 1)]);
        assert_eq!(changes(&a, &a).count(), 0);
        assert_eq!(changes(&Facts::new(), &Facts::new()).count(), 0);
        assert_eq!(changes(&Facts::new(), &a).count(), 1);
    }
}
