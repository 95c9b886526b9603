//! Reading `inventory.toml` with spans: every problem names its line, and all of them are
//! collected before the file is refused. Two passes over the document: one for keys that
//! would hold a secret (anywhere, in any table), one for the schema and the values. The hosts
//! and groups are read in `hosts.rs`, the settings every level may give in `settings.rs`.

mod hosts;
mod settings;

use std::ops::Range;
use std::path::{Path, PathBuf};

use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::checks::{CREDENTIALS_KEYS, NO_SECRETS, TIMEOUT_KEYS, is_secret_key};
use crate::problems::last_line;
use crate::{Inventory, InventoryErrors, InventoryHost, Problem};
use driftgate_model::line_index::LineIndex;

/// Keys of the top level.
const TOP_KEYS: &[&str] = &["defaults", "fleet", "cluster", "host"];
/// Keys every level (`[defaults]`, `[fleet.X]`, `[cluster.X]`, `[[host]]`) may set.
const SETTING_KEYS: &[&str] = &[
    "credentials",
    "credentials_file",
    "ca_file",
    "timeouts",
    "vcenter",
];
/// Keys of `[defaults]`.
const DEFAULTS_KEYS: &[&str] = &[
    "fleet",
    "credentials",
    "credentials_file",
    "ca_file",
    "timeouts",
    "vcenter",
];
/// Keys of a `[[host]]`.
const HOST_KEYS: &[&str] = &[
    "name",
    "fleet",
    "cluster",
    "tags",
    "sources",
    "credentials",
    "credentials_file",
    "ca_file",
    "timeouts",
    "vcenter",
];

type Table<'i> = DeTable<'i>;
type Value<'i> = Spanned<DeValue<'i>>;

/// Parses and validates an inventory; see [`Inventory::parse`].
///
/// An inventory is read one `[[host]]` at a time where its text allows it (see
/// [`host_headers`]): the toml crate's document costs about 1 KB per host, and a fleet's
/// inventory held whole would set a fleet check's peak memory.
pub(super) fn parse(text: &str, file: &Path) -> Result<Inventory, InventoryErrors> {
    read(text, file, true).0
}

/// Reads `text`, in pieces if `pieces` and the text allows it, else whole; and whether it was
/// read in pieces.
pub(super) fn read(
    text: &str,
    file: &Path,
    pieces: bool,
) -> (Result<Inventory, InventoryErrors>, bool) {
    let mut reader = Reader {
        lines: LineIndex::new(text),
        last_line: last_line(text),
        offset: 0,
        file: file.display().to_string(),
        base: file.parent().unwrap_or(Path::new("")).to_path_buf(),
        problems: Vec::new(),
    };
    let in_pieces = pieces.then(|| reader.in_pieces(text)).flatten();
    let read_in_pieces = in_pieces.is_some();
    let hosts = in_pieces.unwrap_or_else(|| {
        reader.problems.clear();
        reader.whole(text)
    });
    let inventory = InventoryErrors::refuse(reader.problems).map(|()| {
        let mut hosts: Vec<_> = hosts.into_iter().map(std::sync::Arc::new).collect();
        // Collected in place, the list keeps the room of the hosts it was made of: 272 bytes
        // for each 8 it holds, 2.7 MB of a 10,000-host run's heap for as long as it lasts.
        hosts.shrink_to_fit();
        Inventory {
            file: file.to_path_buf(),
            hosts,
        }
    });
    (inventory, read_in_pieces)
}

/// The byte offset of every line that is a `[[host]]` header as written by people and
/// generators (`[[host]]`, then nothing or a comment), were it outside a multi-line string or
/// array. Whether it is one is not decided here: the piece before a line that is inside such a
/// value ends inside it, so that piece is not TOML and the text is read whole.
fn host_headers(text: &str) -> Vec<usize> {
    let mut starts = Vec::new();
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        if let Some(rest) = line.trim_start().strip_prefix("[[host]]") {
            let rest = rest.trim_start();
            if rest.is_empty() || rest.starts_with('#') {
                starts.push(at);
            }
        }
        at += line.len();
    }
    starts
}

struct Reader {
    /// Where the text's lines start.
    lines: LineIndex,
    /// The text's last line: the toml crate places an error at the end of the text past it.
    last_line: usize,
    /// Where the piece of the text being read starts: the toml crate's spans are offsets
    /// into the piece.
    offset: usize,
    file: String,
    base: PathBuf,
    problems: Vec<Problem>,
}

impl Reader {
    /// The 1-based line of byte `offset`.
    fn line(&self, offset: usize) -> usize {
        let offset = self.offset + offset;
        self.lines.line(offset)
    }

    fn problem(&mut self, span: &Range<usize>, message: impl Into<String>) {
        self.problem_at(self.line(span.start), message);
    }

    fn problem_at(&mut self, line: usize, message: impl Into<String>) {
        let problem = Problem::at(&self.file, line, self.last_line, message);
        self.problems.push(problem);
    }

    /// Refuses every key that would hold a secret, in any table. Known keys never do
    /// (`password_env` names a variable); the names of `[fleet.X]` / `[cluster.X]` tables are
    /// group names, checked as names.
    fn find_secrets(&mut self, table: &Table<'_>, scope: Scope) {
        for (key, value) in table.iter() {
            let name = key.get_ref().as_ref();
            let known = [
                TOP_KEYS,
                HOST_KEYS,
                DEFAULTS_KEYS,
                CREDENTIALS_KEYS,
                TIMEOUT_KEYS,
            ]
            .iter()
            .any(|keys| keys.contains(&name));
            if scope != Scope::Groups && !known && is_secret_key(name) {
                self.problem(&key.span(), format!("key `{name}`: {NO_SECRETS}"));
                continue;
            }
            let inner = match (scope, name) {
                (Scope::Document, "fleet" | "cluster") => Scope::Groups,
                _ => Scope::Nested,
            };
            self.find_secrets_in(value, inner);
        }
    }

    fn find_secrets_in(&mut self, value: &Value<'_>, scope: Scope) {
        match value.get_ref() {
            DeValue::Table(table) => self.find_secrets(table, scope),
            DeValue::Array(items) => {
                for item in items.iter() {
                    self.find_secrets_in(item, Scope::Nested);
                }
            }
            _ => {}
        }
    }

    /// Reports keys of `table` outside `known`; keys that would hold a secret were reported
    /// by [`Self::find_secrets`] already.
    fn check_keys(&mut self, table: &Table<'_>, known: &[&str], place: &str) {
        for key in table.keys() {
            let name = key.get_ref().as_ref();
            if !known.contains(&name) && !is_secret_key(name) {
                self.problem(
                    &key.span(),
                    format!(
                        "unknown key `{name}` in {place} (known: {})",
                        known.join(", ")
                    ),
                );
            }
        }
    }

    /// Reads the whole text as one document.
    fn whole(&mut self, text: &str) -> Vec<InventoryHost> {
        self.offset = 0;
        let (document, errors) = DeTable::parse_recoverable(text);
        self.not_toml(errors);
        let document = document.get_ref();
        self.find_secrets(document, Scope::Document);
        let mut hosts = self.top_level(document, 0);
        match document.get("host") {
            // Fail closed: an inventory that lists nobody gates nobody.
            None => self.problem_at(1, "no [[host]]: an inventory lists at least one host"),
            Some(value) => self.host_items(value, &mut hosts),
        }
        self.finish(hosts)
    }

    /// Reads the text as the part before the first `[[host]]` header, then each host from its
    /// header to the next one, each parsed and dropped in turn. `None` when the text does not
    /// read like that with the meaning it has whole: a piece that is not TOML on its own, a
    /// host's piece that sets more than its host (`[defaults]` after a host), or a `host` key
    /// before the first header. Then nothing read here counts.
    fn in_pieces(&mut self, text: &str) -> Option<Vec<InventoryHost>> {
        let starts = host_headers(text);
        let first = *starts.first()?;
        let (document, errors) = DeTable::parse_recoverable(&text[..first]);
        if !errors.is_empty() || document.get_ref().contains_key("host") {
            return None;
        }
        self.find_secrets(document.get_ref(), Scope::Document);
        let mut hosts = self.top_level(document.get_ref(), starts.len());
        drop(document);
        for (i, &start) in starts.iter().enumerate() {
            let end = starts.get(i + 1).copied().unwrap_or(text.len());
            self.offset = start;
            let (document, errors) = DeTable::parse_recoverable(&text[start..end]);
            let document = document.get_ref();
            if !errors.is_empty() || document.len() != 1 {
                return None;
            }
            self.find_secrets(document, Scope::Document);
            self.host_items(document.get("host")?, &mut hosts);
        }
        self.offset = 0;
        Some(self.finish(hosts))
    }

    /// Every error of the toml parser, at its line.
    fn not_toml(&mut self, errors: Vec<toml::de::Error>) {
        for error in errors {
            // The message only: toml's Display quotes the line, which may hold a secret.
            let span = error.span().unwrap_or(0..0);
            self.problem(&span, format!("not TOML: {}", error.message()));
        }
    }
}

/// Where a table stands, for the secret scan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scope {
    /// The top level.
    Document,
    /// The top-level `fleet` or `cluster` table: its keys are group names.
    Groups,
    /// Anywhere else.
    Nested,
}
