//! Names that become file names: a host name, a fleet, a gate run's id, and the cluster and
//! tag names spelled like them. Every file and folder name driftgate builds from one of them
//! is listed here ([`HOST_JSON`], [`HOST_RESULT_JSON`], [`FLEET_FOLDER`], [`RUN_FOLDER`]) and
//! built by it, so the limit of each kind is derived from what is actually written: the file
//! system's limit on one name ([`NAME_MAX`]) less the longest text put around the name.
//!
//! A name over its limit is refused where it enters (the inventory, `--host`, `--fleet`,
//! `--run`, a snapshot's `host`), before anything is captured or written: found by the
//! operating system's "File name too long" after a capture, it loses that capture.
//!
//! Names that do not grow with a name are not listed: the temporary file of an atomic write
//! (`.driftgate-`, six random characters, `.tmp`: see `fsutil`), git's lock files, the store's
//! lock and marker, `run.json`, `report.json`, `manifest.json`, the `pre`/`post-N` folders.

use std::fmt;

/// The longest file name, in bytes, that the file systems a store lives on accept (`NAME_MAX`
/// of ext4, XFS, btrfs, ZFS, tmpfs). A store is cloned onto other machines, so a file system
/// that takes longer names here does not raise it.
pub const NAME_MAX: usize = 255;

/// What a name names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameKind {
    /// A host: its snapshots, results and baseline are `<host>.json` and `<host>.result.json`.
    Host,
    /// A fleet: the baseline folder `baselines/<fleet>/`.
    Fleet,
    /// A cluster: no file name is built from it; it is held to one file name all the same.
    Cluster,
    /// A tag (an Ansible group becomes one): no file name either, held the same.
    Tag,
    /// A gate run: the run directory `.driftgate/runs/<id>/`.
    RunId,
}

impl fmt::Display for NameKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            NameKind::Host => "host name",
            NameKind::Fleet => "fleet name",
            NameKind::Cluster => "cluster name",
            NameKind::Tag => "tag",
            NameKind::RunId => "run id",
        })
    }
}

impl NameKind {
    /// The placeholder of this kind in [`NameTemplate::pattern`].
    fn placeholder(self) -> &'static str {
        match self {
            NameKind::Host => "<host>",
            NameKind::Fleet => "<fleet>",
            NameKind::Cluster => "<cluster>",
            NameKind::Tag => "<tag>",
            NameKind::RunId => "<id>",
        }
    }
}

/// A file or folder name built from a name: `prefix`, the name, `suffix`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NameTemplate {
    kind: NameKind,
    prefix: &'static str,
    suffix: &'static str,
    /// Where files of this name are written, for messages.
    written_as: &'static str,
}

/// `<host>.json`: a baseline, a gate step's snapshot, `--out-dir`'s snapshot and host record.
pub static HOST_JSON: NameTemplate = NameTemplate {
    kind: NameKind::Host,
    prefix: "",
    suffix: ".json",
    written_as: "baselines/<fleet>/<host>.json, a run's pre/<host>.json, --out-dir's snapshots/<host>.json",
};

/// `<host>.result.json`: a host's outcome of a gate step.
pub static HOST_RESULT_JSON: NameTemplate = NameTemplate {
    kind: NameKind::Host,
    prefix: "",
    suffix: ".result.json",
    written_as: "a gate run's pre/<host>.result.json",
};

/// `<fleet>`: the folder of a fleet's baselines.
pub static FLEET_FOLDER: NameTemplate = NameTemplate {
    kind: NameKind::Fleet,
    prefix: "",
    suffix: "",
    written_as: "the baseline folder baselines/<fleet>/",
};

/// `<id>`: a gate run's directory.
pub static RUN_FOLDER: NameTemplate = NameTemplate {
    kind: NameKind::RunId,
    prefix: "",
    suffix: "",
    written_as: "the run directory .driftgate/runs/<id>/",
};

/// Every name built from a name.
static TEMPLATES: [&NameTemplate; 4] = [&HOST_JSON, &HOST_RESULT_JSON, &FLEET_FOLDER, &RUN_FOLDER];

impl NameTemplate {
    /// The file or folder name of `name`.
    pub fn of(&self, name: &str) -> String {
        format!("{}{name}{}", self.prefix, self.suffix)
    }

    /// The name with a placeholder for the name it is built from: `<host>.result.json`.
    fn pattern(&self) -> String {
        self.of(self.kind.placeholder())
    }

    /// Bytes it adds to the name.
    fn affix_len(&self) -> usize {
        self.prefix.len() + self.suffix.len()
    }
}

/// Why a name cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BadName {
    /// Not spelled as a file name may be, in any file system and on any command line.
    #[error(
        "invalid {kind} {name:?}: use letters, digits, `.`, `_` and `-`, starting with a letter or digit"
    )]
    Spelling {
        /// What it names.
        kind: NameKind,
        /// The name as given.
        name: String,
    },
    /// So long that a file name built from it would be longer than a file system takes.
    #[error("{0}")]
    TooLong(NameTooLong),
}

/// A name over its kind's limit, with the file name that would be too long.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NameTooLong {
    /// What it names.
    pub kind: NameKind,
    /// Its length in bytes.
    pub len: usize,
    /// The most its kind may have ([`max_len`]).
    pub max: usize,
    /// Its start and end, not the whole of it: a message line, not a screenful.
    shortened: String,
    /// The longest name built from it.
    longest: Option<&'static NameTemplate>,
}

impl std::error::Error for NameTooLong {}

impl fmt::Display for NameTooLong {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let NameTooLong {
            kind,
            len,
            max,
            shortened,
            longest,
        } = self;
        write!(
            f,
            "{kind} {shortened:?} is {len} bytes long, over the {max} bytes a {kind} may have: "
        )?;
        match longest {
            Some(template) => write!(
                f,
                "the file name {} ({}) would be {} bytes, over the file-name limit of {NAME_MAX} bytes (NAME_MAX)",
                template.pattern(),
                template.written_as,
                len + template.affix_len()
            ),
            None => write!(
                f,
                "no file name is built from it, but it is held to the file-name limit of {NAME_MAX} bytes (NAME_MAX) as the names that are"
            ),
        }
    }
}

/// The most bytes a name of `kind` may have: [`NAME_MAX`] less the longest prefix and suffix
/// a name of that kind gets in a file name.
pub fn max_len(kind: NameKind) -> usize {
    NAME_MAX - longest(kind).map_or(0, |t| t.affix_len())
}

/// The longest file name built from a name of `kind`, if any is.
fn longest(kind: NameKind) -> Option<&'static NameTemplate> {
    TEMPLATES
        .into_iter()
        .filter(|t| t.kind == kind)
        .max_by_key(|t| t.affix_len())
}

/// Checks that `name` is spelled as a name of `kind` may be (letters, digits, `.`, `_`, `-`,
/// starting with a letter or digit: no `/`, no hidden file, no option) and that every file
/// name built from it fits the file system's limit. Lengths are in bytes, as file systems
/// count them.
pub fn check(kind: NameKind, name: &str) -> Result<(), BadName> {
    let spelled = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if !spelled {
        return Err(BadName::Spelling {
            kind,
            name: name.to_owned(),
        });
    }
    check_len(kind, name).map_err(BadName::TooLong)
}

/// Checks the length of `name` alone: [`check`] without the spelling.
fn check_len(kind: NameKind, name: &str) -> Result<(), NameTooLong> {
    let max = max_len(kind);
    if name.len() <= max {
        return Ok(());
    }
    Err(NameTooLong {
        kind,
        len: name.len(),
        max,
        shortened: shorten(name),
        longest: longest(kind),
    })
}

/// `name`'s first 24 and last 8 characters around `…` when it is longer than that.
fn shorten(name: &str) -> String {
    const HEAD: usize = 24;
    const TAIL: usize = 8;
    let count = name.chars().count();
    if count <= HEAD + TAIL + 1 {
        return name.to_owned();
    }
    let head: String = name.chars().take(HEAD).collect();
    let tail: String = name.chars().skip(count - TAIL).collect();
    format!("{head}…{tail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_may_have_the_file_name_limit_less_what_its_longest_file_name_adds() {
        assert_eq!(max_len(NameKind::Host), 255 - ".result.json".len());
        assert_eq!(max_len(NameKind::Host), 243);
        for kind in [
            NameKind::Fleet,
            NameKind::Cluster,
            NameKind::Tag,
            NameKind::RunId,
        ] {
            assert_eq!(max_len(kind), NAME_MAX, "{kind}");
        }
        // Every name built from a name at its kind's limit fits; one byte more does not.
        for template in TEMPLATES {
            let at_limit = "a".repeat(max_len(template.kind));
            assert!(template.of(&at_limit).len() <= NAME_MAX, "{template:?}");
        }
        let over = "a".repeat(max_len(NameKind::Host) + 1);
        assert_eq!(HOST_RESULT_JSON.of(&over).len(), NAME_MAX + 1);
    }

    #[test]
    fn a_long_name_is_refused_naming_its_length_the_limit_and_the_file_name() {
        let host = format!("h{}", "x".repeat(249));
        assert!(check(NameKind::Host, &"a".repeat(243)).is_ok());
        let error = check(NameKind::Host, &host).unwrap_err();
        let BadName::TooLong(too_long) = &error else {
            panic!("{error:?}")
        };
        assert_eq!((too_long.len, too_long.max), (250, 243));
        assert_eq!(
            error.to_string(),
            format!(
                "host name \"h{}…{}\" is 250 bytes long, over the 243 bytes a host name may have: the file name <host>.result.json (a gate run's pre/<host>.result.json) would be 262 bytes, over the file-name limit of 255 bytes (NAME_MAX)",
                "x".repeat(23),
                "x".repeat(8)
            )
        );
        let run = check(NameKind::RunId, &"r".repeat(256))
            .unwrap_err()
            .to_string();
        assert!(run.contains("run id \"rrr"), "{run}");
        assert!(
            run.contains(
                "the file name <id> (the run directory .driftgate/runs/<id>/) would be 256 bytes"
            ),
            "{run}"
        );
        let cluster = check(NameKind::Cluster, &"c".repeat(300))
            .unwrap_err()
            .to_string();
        assert!(
            cluster.contains("no file name is built from it"),
            "{cluster}"
        );
        assert!(check(NameKind::Cluster, &"c".repeat(255)).is_ok());
    }

    #[test]
    fn lengths_are_bytes_and_the_shortened_name_cuts_between_characters() {
        // Spelling aside (the check refuses it first), a multi-byte name counts its bytes.
        let name = "é".repeat(200);
        let error = check_len(NameKind::Fleet, &name).unwrap_err();
        assert_eq!(error.len, 400);
        assert!(
            error
                .to_string()
                .contains(&format!("\"{}…{}\"", "é".repeat(24), "é".repeat(8)))
        );
        assert!(matches!(
            check(NameKind::Fleet, &name),
            Err(BadName::Spelling { .. })
        ));
    }

    #[test]
    fn names_are_spelled_with_letters_digits_dots_underscores_and_dashes() {
        for good in ["azl-node01", "CHG-4711", "build.20261201_7", "0"] {
            assert!(check(NameKind::Host, good).is_ok(), "{good}");
        }
        for bad in ["", "../x", "a/b", "-x", ".hidden", "run id", "ü"] {
            assert_eq!(
                check(NameKind::RunId, bad),
                Err(BadName::Spelling {
                    kind: NameKind::RunId,
                    name: bad.to_owned()
                }),
                "{bad:?}"
            );
        }
        assert_eq!(
            check(NameKind::Fleet, "a b").unwrap_err().to_string(),
            "invalid fleet name \"a b\": use letters, digits, `.`, `_` and `-`, starting with a letter or digit"
        );
    }
}
