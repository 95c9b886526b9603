//! Revisions to commits: `HEAD`, branches, tags, ids and prefixes of them, with `~N` and
//! `^N` steps, resolved by the store's own checked reads; and the short form of an id.

use git2::{ObjectType, Oid, Tree};

use crate::error::StoreError;
use crate::store::Store;

impl Store {
    /// The HEAD commit (hex), if the repository has one.
    pub fn head_commit(&self) -> Result<Option<String>, StoreError> {
        if !self.has_commits() {
            return Ok(None);
        }
        Ok(Some(self.resolve("HEAD")?.to_string()))
    }

    /// The commit `rev` names (`HEAD`, a branch, a tag, an id or a prefix of one, each
    /// followed by `~N`, `^N` steps to ancestors).
    ///
    /// Every object on the way is read by the store's own checked reads, never by libgit2's
    /// revision parser, which reads objects unchecked (see `loose.rs`); only a revision in
    /// another syntax (`@{1}`, `:/text`) is left to libgit2. A revision that names nothing is
    /// unknown; one that names an object the store does not hold whole is damage.
    pub fn resolve(&self, rev: &str) -> Result<Oid, StoreError> {
        let unknown = || StoreError::UnknownRevision {
            repo: self.name(),
            rev: rev.to_owned(),
        };
        let Some((base, steps)) = ancestry(rev) else {
            return self
                .repo
                .revparse_single(rev)
                .and_then(|object| object.peel_to_commit())
                .map(|commit| commit.id())
                .map_err(|_| unknown());
        };
        let mut id = self.peel_to_commit(self.name_base(base).ok_or_else(unknown)?, rev)?;
        for (parent, count) in steps {
            for _ in 0..count {
                id = match parent {
                    0 => id,
                    n => self
                        .load_commit(id)?
                        .parent_id(n - 1)
                        .map_err(|_| unknown())?,
                };
            }
        }
        Ok(id)
    }

    /// The object a revision's base names (a full id, a reference, a prefix of an id), found
    /// without reading it, and whether a reference named it.
    fn name_base(&self, base: &str) -> Option<(Oid, Named)> {
        let hex = !base.is_empty() && base.bytes().all(|b| b.is_ascii_hexdigit());
        if hex && base.len() == 40 {
            return Oid::from_str(base).ok().map(|id| (id, Named::ById));
        }
        if let Ok(id) = self
            .repo
            .resolve_reference_from_short_name(base)
            .and_then(|r| r.resolve())
            .and_then(|r| r.target().ok_or_else(|| git2::Error::from_str("symbolic")))
        {
            return Some((id, Named::ByReference));
        }
        if hex && base.len() >= 4 {
            let odb = self.repo.odb().ok()?;
            let id = odb
                .exists_prefix(Oid::from_str(base).ok()?, base.len())
                .ok()?;
            return Some((id, Named::ById));
        }
        None
    }

    /// The commit that `id` is or (a tag) points at; only the objects' headers are read. A
    /// missing object is an unknown revision when `rev` gave its id, and damage when a
    /// reference or a tag names it.
    fn peel_to_commit(
        &self,
        (mut id, mut named): (Oid, Named),
        rev: &str,
    ) -> Result<Oid, StoreError> {
        let unknown = || StoreError::UnknownRevision {
            repo: self.name(),
            rev: rev.to_owned(),
        };
        // A tag of a tag of … a commit.
        for _ in 0..8 {
            match self.object_kind(id)? {
                Some(ObjectType::Commit) => return Ok(id),
                Some(ObjectType::Tag) => {
                    self.check(id, ObjectType::Tag)?;
                    id = self
                        .repo
                        .find_tag(id)
                        .map_err(|e| self.error("read tag", e))?
                        .target_id();
                    named = Named::ByReference;
                }
                Some(_) => return Err(unknown()),
                None if named == Named::ById => return Err(unknown()),
                None => {
                    return Err(self
                        .read_object(id, ObjectType::Commit)
                        .err()
                        .unwrap_or_else(unknown));
                }
            }
        }
        Err(unknown())
    }

    /// The root tree of the commit `rev` names.
    pub(super) fn tree_at(&self, rev: &str) -> Result<Tree<'_>, StoreError> {
        self.commit_tree(self.resolve(rev)?)
    }

    /// The short form of a commit id, as `git log --oneline` prints it.
    /// It is found from the objects' names alone, without reading the object.
    pub fn short_id(&self, id: Oid) -> String {
        let hex = id.to_string();
        let Ok(odb) = self.repo.odb() else {
            return hex[..7].to_owned();
        };
        (7..40)
            .find(|&len| {
                Oid::from_str(&hex[..len])
                    .is_ok_and(|prefix| odb.exists_prefix(prefix, len).is_ok())
            })
            .map_or(hex.clone(), |len| hex[..len].to_owned())
    }
}

/// How a revision named an object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Named {
    /// By its id (or a prefix of it), which may be a typing error.
    ById,
    /// By a reference or a tag, which the store's own objects must then hold.
    ByReference,
}

/// A revision split into its base and its steps to ancestors, each `(parent, count)`: `~N` is
/// N steps to the first parent, `^N` one step to the Nth (`^0` the commit itself); `None`
/// when the revision uses other syntax.
fn ancestry(rev: &str) -> Option<(&str, Vec<(usize, usize)>)> {
    let at = rev.find(['~', '^']).unwrap_or(rev.len());
    let (base, mut rest) = rev.split_at(at);
    if base.is_empty() || base.contains(['@', ':', '{', ' ']) {
        return None;
    }
    let mut steps = Vec::new();
    while let Some(op) = rest.chars().next() {
        let digits = rest[1..].bytes().take_while(u8::is_ascii_digit).count();
        let number = match &rest[1..1 + digits] {
            "" => 1,
            n => n.parse().ok()?,
        };
        steps.push(match op {
            '~' => (1, number),
            '^' => (number, 1),
            _ => return None,
        });
        rest = &rest[1 + digits..];
    }
    Some((base, steps))
}
