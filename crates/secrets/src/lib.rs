//! Secrets: what never enters a snapshot, a saved mockup, a log line or a report.
//!
//! One filter, three tests, any one of which is enough:
//! - **registry**: an attribute registry types the attribute `Password` or flags it
//!   `WriteOnly` (whatever its name says);
//! - **name**: the name's head word says it holds a secret (`SnmpCommunityString`, `IPMIKey`,
//!   `LdapBindPw`, `Pass_Phrase`, `TpmOwnerAuth`), or a strong secret word appears anywhere in
//!   it and the head is not a word about the secret (`PasswordMinimumLength` is a rule, not a
//!   password);
//! - **value**: the value looks like key material (a PEM block, a long hex or base64 blob).
//!
//! A name is read twice, and is secret when either reading says so. As words: split at `_`,
//! `.`, `-`, spaces, case changes (`IPMIKey` → `ipmi key`) and digits, so `KeyboardLayout`
//! (head `layout`) and `NWManagementPassThrough` (head `through`) are kept; fragments that
//! spell a secret word together are joined first (`PassWord`, `Pass_Word`, `PaSsWoRd` →
//! `password`), since a case change or a separator inside a word means nothing. As letters:
//! case folded and separators removed (`ADMINPASSWORD`, `aDmInPaSsWoRd` → `adminpassword`), a
//! name ending in a strong secret word is secret, and so is one ending in any secret word
//! that nothing but words qualifying one (`Admin`, `Setup`, `Bios`, `Hdd`, digits) separates
//! from the start or a separator (`ADMINPIN`, `x_PwDhAsH`; not `Monkey`). Trailing digits and
//! storage words (`Hash`, `String`) count in neither reading (`HddPassWord1`).
//!
//! A registry type of `Enumeration` or `Boolean` overrules the name: a value from a closed
//! vocabulary (`ChapMutualAuth = Disabled`) cannot carry a secret. The value test still
//! applies to it, and the `WriteOnly` flag overrules the type: a write-only attribute reverts
//! after it is applied, so what a service reports for it is no setting to compare, and on
//! every real service it is a password. Without a registry, an `…Auth` name set to a switch
//! position (`Enabled`, `Disabled`, `None`, `Auto`, `On`, `Off`, a boolean) is a setting too.
//!
//! A leaf crate: it depends on nothing of driftgate's, so collectors, reports and logs can all
//! use it.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

use serde_json::{Map, Value};

/// What is shown instead of a value that must not be printed.
pub const REDACTED: &str = "<redacted>";

/// Head words that name a secret: the attribute *is* one.
const SECRET_HEADS: &[&str] = &[
    "auth",
    "community",
    "cred",
    "credential",
    "credentials",
    "creds",
    "key",
    "keys",
    "pass",
    "passcode",
    "passphrase",
    "passwd",
    "password",
    "pin",
    "psk",
    "pw",
    "pwd",
    "secret",
    "secrets",
    "token",
    "tokens",
];

/// Words that never mean anything but a secret, wherever they stand in the name.
const STRONG_WORDS: &[&str] = &[
    "community",
    "credential",
    "credentials",
    "passcode",
    "passphrase",
    "passwd",
    "password",
    "secret",
    "token",
];

/// Key names written as one lowercase word: a head ending in one (`bmcapikey`), or in a
/// [`STRONG_WORDS`] word (`bmcpassword`, `snmpcommunity`), names a secret.
const KEY_ENDINGS: &[&str] = &["apikey", "authkey", "privatekey"];

/// Trailing words that say how a secret is stored, not what it is: `SnmpCommunityString`,
/// `PasswordHash`, `PasswordSalt`, `Pass_Phrase`, `KeyBase64` all name the secret before them.
const TRAILERS: &[&str] = &[
    "base", "data", "digest", "hash", "hex", "name", "phrase", "salt", "str", "string", "text",
    "val", "value",
];

/// Head words that describe a secret without holding it: `PasswordStatus`,
/// `PasswordMinimumLength`, `DefaultCredentialMitigation`, `AuthTimeout`.
const ABOUT: &[&str] = &[
    "accounts",
    "age",
    "algorithm",
    "algorithms",
    "attempts",
    "capable",
    "complexity",
    "configured",
    "count",
    "disable",
    "disabled",
    "duration",
    "enable",
    "enabled",
    "expiration",
    "expiry",
    "format",
    "history",
    "interval",
    "len",
    "length",
    "level",
    "lifetime",
    "lock",
    "locked",
    "lockout",
    "max",
    "maximum",
    "method",
    "min",
    "minimum",
    "mitigation",
    "mode",
    "num",
    "number",
    "policy",
    "present",
    "protocol",
    "require",
    "required",
    "retries",
    "rule",
    "rules",
    "score",
    "size",
    "state",
    "status",
    "support",
    "supported",
    "timeout",
    "type",
    "validation",
    "version",
];

/// Words that qualify a secret standing after them (`AdminPin`, `SetupPw`, `HddKey`,
/// `TpmOwnerAuth`): with digits, the only letters the letter reading lets stand between a
/// separator (or the start) and a short secret word, which would otherwise end harmless words
/// (`Monkey`, `Spin`, `Bypass`, `OAuth`).
const QUALIFIERS: &[&str] = &[
    "admin",
    "administrator",
    "bios",
    "bmc",
    "boot",
    "chap",
    "disk",
    "drive",
    "hd",
    "hdd",
    "ipmi",
    "kg",
    "master",
    "new",
    "old",
    "owner",
    "power",
    "on",
    "root",
    "setup",
    "snmp",
    "supervisor",
    "sys",
    "system",
    "tpm",
    "user",
];

/// The longest word [`joined`] joins: fragments longer together spell none.
const LONGEST_JOINED: usize = longest(&[SECRET_HEADS, TRAILERS]);

/// The length of the longest word of `lists`.
const fn longest(lists: &[&[&str]]) -> usize {
    let mut longest = 0;
    let mut list = 0;
    while list < lists.len() {
        let mut word = 0;
        while word < lists[list].len() {
            if lists[list][word].len() > longest {
                longest = lists[list][word].len();
            }
            word += 1;
        }
        list += 1;
    }
    longest
}

/// Whether an attribute or property name says it holds a secret, however it is spelt.
pub fn is_secret_name(name: &str) -> bool {
    secret_by_words(&joined(words(name))) || secret_by_letters(&Folded::of(name))
}

/// The word reading: the head (the last word but trailers) is a secret word, or a strong word
/// stands anywhere and the head is not a word about it.
fn secret_by_words(words: &[String]) -> bool {
    let core = core(words);
    let Some(head) = core.last().map(String::as_str) else {
        return false;
    };
    let private_key = core
        .windows(2)
        .any(|pair| pair[0] == "private" && pair[1].starts_with("key"));
    SECRET_HEADS.contains(&head)
        || STRONG_WORDS
            .iter()
            .chain(KEY_ENDINGS)
            .any(|ending| head.ends_with(ending))
        || private_key
        || (!ABOUT.contains(&head)
            && core
                .iter()
                .any(|word| STRONG_WORDS.iter().any(|strong| word.ends_with(strong))))
}

/// The letter reading: the folded name's core (trailing digits and [`TRAILERS`] cut) ends in
/// a strong word or a key ending, or in a secret word that only [`QUALIFIERS`] and digits
/// separate from the name's start or a separator.
fn secret_by_letters(folded: &Folded) -> bool {
    let core = folded_core(&folded.letters);
    STRONG_WORDS
        .iter()
        .chain(KEY_ENDINGS)
        .any(|ending| core.ends_with(ending))
        || SECRET_HEADS.iter().any(|head| {
            core.strip_suffix(head)
                .is_some_and(|before| folded.qualified(before.len()))
        })
}

/// A name with case and separators folded away: its letters and digits, lowercase
/// (`Pass_Word`, `PaSsWoRd` → `password`), and where a separator stood in them.
struct Folded {
    letters: String,
    /// Offsets into `letters` where a word surely starts: 0, and after each separator.
    starts: Vec<usize>,
}

impl Folded {
    fn of(name: &str) -> Folded {
        let mut letters = String::with_capacity(name.len());
        let mut starts = vec![0];
        for c in name.chars() {
            if c.is_ascii_alphanumeric() {
                letters.push(c.to_ascii_lowercase());
            } else if starts.last() != Some(&letters.len()) {
                starts.push(letters.len());
            }
        }
        Folded { letters, starts }
    }

    /// Whether the letters up to `end` are, from the start or from a separator on, nothing but
    /// [`QUALIFIERS`] and digits, in any order (or nothing).
    fn qualified(&self, end: usize) -> bool {
        let text = &self.letters[..end];
        // Which prefixes of `text` end in a run of qualifiers and digits that begins at a
        // start: a start is one, and so is such a prefix followed by a qualifier or a digit.
        let mut made = vec![false; end + 1];
        for &start in self.starts.iter().filter(|&&start| start <= end) {
            made[start] = true;
        }
        for at in 0..end {
            if !made[at] {
                continue;
            }
            let rest = &text[at..];
            if rest.starts_with(|c: char| c.is_ascii_digit()) {
                made[at + 1] = true;
            }
            for qualifier in QUALIFIERS {
                if rest.starts_with(qualifier) {
                    made[at + qualifier.len()] = true;
                }
            }
        }
        made[end]
    }
}

/// A folded name without its trailing digits and [`TRAILERS`] (`hddpassword1hash` →
/// `hddpassword`).
fn folded_core(letters: &str) -> &str {
    let mut core = letters;
    loop {
        let digits_cut = core.trim_end_matches(|c: char| c.is_ascii_digit());
        let cut = TRAILERS
            .iter()
            .find_map(|trailer| digits_cut.strip_suffix(trailer))
            .unwrap_or(digits_cut);
        if cut.len() == core.len() {
            return core;
        }
        core = cut;
    }
}

/// `words` with each run of fragments that spells a [`SECRET_HEADS`] or [`TRAILERS`] word
/// together joined into that word, the longest run first: a case change or a separator inside
/// a word (`PassWord`, `Pass_Word`, `PaSsWoRd`, `P.I.N`, `KeyHaSh`) cuts it into fragments
/// that name nothing.
fn joined(words: Vec<String>) -> Vec<String> {
    let mut out = Vec::with_capacity(words.len());
    let mut start = 0;
    while start < words.len() {
        let mut longest = None;
        let mut run = String::new();
        for (end, word) in words.iter().enumerate().skip(start) {
            run.push_str(word);
            if run.len() > LONGEST_JOINED {
                break;
            }
            let word = run.as_str();
            if end > start && (SECRET_HEADS.contains(&word) || TRAILERS.contains(&word)) {
                longest = Some((end + 1, run.clone()));
            }
        }
        match longest {
            Some((end, word)) => {
                out.push(word);
                start = end;
            }
            None => {
                out.push(words[start].clone());
                start += 1;
            }
        }
    }
    out
}

/// The words of a name without its trailing digits and [`TRAILERS`]: the last is the head.
fn core(words: &[String]) -> &[String] {
    let end = words
        .iter()
        .rposition(|word| {
            !(word.bytes().all(|b| b.is_ascii_digit()) || TRAILERS.contains(&word.as_str()))
        })
        .map_or(0, |last| last + 1);
    &words[..end]
}

/// The lowercase words of a name: split at non-alphanumerics, at lower→upper
/// (`ApiKey`), before the last capital of a run followed by a lowercase letter (`IPMIKey` →
/// `ipmi key`), and between letters and digits (`MD5v3Key` → `md 5 v 3 key`). Attribute
/// classes read names by the same words.
pub fn words(name: &str) -> Vec<String> {
    Split::of(name).words().map(str::to_owned).collect()
}

/// The words of a name as [`words`] splits them, held as one lowercase text and where each
/// word ends: no string per word, for the names of every attribute of every capture.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Split {
    text: String,
    /// The end of each word in `text`, ascending; the next word starts where one ends.
    ends: Vec<usize>,
}

impl Split {
    /// Splits `name` (see [`words`]).
    pub fn of(name: &str) -> Split {
        // Bytes, not chars: every byte of a non-ASCII character is a separator, as the
        // character is.
        let bytes = name.as_bytes();
        let mut split = Split {
            text: String::with_capacity(name.len()),
            ends: Vec::new(),
        };
        let mut in_word = false;
        for (i, &c) in bytes.iter().enumerate() {
            if !c.is_ascii_alphanumeric() {
                if in_word {
                    split.ends.push(split.text.len());
                    in_word = false;
                }
                continue;
            }
            if in_word {
                let prev = bytes[i - 1];
                let next_lower = bytes.get(i + 1).is_some_and(u8::is_ascii_lowercase);
                let boundary = (prev.is_ascii_lowercase() && c.is_ascii_uppercase())
                    || (prev.is_ascii_uppercase() && c.is_ascii_uppercase() && next_lower)
                    || (prev.is_ascii_digit() != c.is_ascii_digit());
                if boundary {
                    split.ends.push(split.text.len());
                }
            }
            split.text.push(char::from(c.to_ascii_lowercase()));
            in_word = true;
        }
        if in_word {
            split.ends.push(split.text.len());
        }
        split
    }

    /// The words, joined: `Link_Status` → `linkstatus`.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The words, in order.
    pub fn words(&self) -> impl DoubleEndedIterator<Item = &str> {
        self.starts()
            .zip(&self.ends)
            .map(|(start, &end)| &self.text[start..end])
    }

    /// Where each word starts in [`Split::text`], in order.
    pub fn starts(&self) -> impl DoubleEndedIterator<Item = usize> + ExactSizeIterator {
        (0..self.ends.len()).map(|word| word.checked_sub(1).map_or(0, |before| self.ends[before]))
    }

    /// Whether a word starts at `at` in [`Split::text`] (the end of the text is no start).
    pub fn starts_at(&self, at: usize) -> bool {
        at < self.text.len() && (at == 0 || self.ends.binary_search(&at).is_ok())
    }

    /// Whether a word ends at `at` in [`Split::text`].
    pub fn ends_at(&self, at: usize) -> bool {
        self.ends.binary_search(&at).is_ok()
    }
}

/// Whether a text looks like key material: a PEM block, 32 or more hex digits in a row
/// (128 bits: IPMI Kg keys, SNMPv3 keys, password hashes), or a base64 run of 40 or more
/// characters that switches between lowercase, uppercase and digits as often as random data
/// does (names and paths switch far less often).
pub fn looks_like_key_material(text: &str) -> bool {
    if text.contains("-----BEGIN") || text.contains("PRIVATE KEY") {
        return true;
    }
    let hex_run = text
        .split(|c: char| !c.is_ascii_hexdigit())
        .any(|run| run.len() >= 32);
    hex_run
        || text
            .split(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '=')))
            .any(looks_like_base64)
}

fn looks_like_base64(run: &str) -> bool {
    const MIN: usize = 40;
    if run.len() < MIN {
        return false;
    }
    // Letters and digits only: `/`, `+` and `=` would make every path look random.
    let class = |c: &u8| match c {
        b'a'..=b'z' => 0,
        b'A'..=b'Z' => 1,
        _ => 2,
    };
    let classes: Vec<u8> = run
        .bytes()
        .filter(u8::is_ascii_alphanumeric)
        .map(|c| class(&c))
        .collect();
    let pairs = classes.len().saturating_sub(1);
    let changes = classes.windows(2).filter(|w| w[0] != w[1]).count();
    let digits = classes.iter().filter(|&&c| c == 2).count();
    // Random base64 changes class at ~62% of positions and is ~16% digits; names and paths
    // (`/redfish/v1/UpdateService/FirmwareInventory`, `IscsiDev1SettingsRef`) change at
    // 15-40% with few digits. Measured: no value of tests/fixtures/public/redfish is taken for key
    // material; fewer than 1% of random 32-byte keys are missed.
    changes * 20 >= pairs * 9 || (changes * 10 >= pairs * 4 && digits * 10 >= classes.len())
}

/// Whether a JSON value holds key material (a string, or an array holding one).
pub fn is_secret_value(value: &Value) -> bool {
    match value {
        Value::String(text) => looks_like_key_material(text),
        Value::Array(items) => items.iter().any(is_secret_value),
        _ => false,
    }
}

/// How an attribute registry types an attribute, as far as secrets go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum AttributeType {
    /// `Enumeration` or `Boolean`: a closed vocabulary, never a secret by itself.
    Closed,
    /// `String`, `Integer`, `OrderedList` or a type this filter does not know.
    Open,
    /// `Password` (in any case), or flagged `WriteOnly`: a secret whatever its name.
    Secret,
}

impl AttributeType {
    /// The type of a registry entry (`Type`, `WriteOnly`), or `None` for an entry that says
    /// neither (the name decides then).
    pub fn of(entry: &Map<String, Value>) -> Option<AttributeType> {
        // A `WriteOnly` that is anything but `false` (or null) counts: dropping a value that
        // was no secret loses a setting read back in a state it does not keep; keeping one
        // that was would leak it.
        let write_only = !matches!(
            entry.get("WriteOnly"),
            None | Some(Value::Null | Value::Bool(false))
        );
        AttributeType::given(entry.get("Type").and_then(Value::as_str), write_only)
    }

    /// The type of an entry whose `Type` is `kind` (when a string) and whose `WriteOnly`
    /// counts (see [`AttributeType::of`]) when `write_only`.
    pub fn given(kind: Option<&str>, write_only: bool) -> Option<AttributeType> {
        if write_only {
            return Some(AttributeType::Secret);
        }
        kind.map(|kind| match kind {
            _ if kind.eq_ignore_ascii_case("Password") => AttributeType::Secret,
            "Enumeration" | "Boolean" => AttributeType::Closed,
            _ => AttributeType::Open,
        })
    }
}

/// The attribute types of one or more attribute registries, and the filter that uses them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SecretFilter {
    /// By exact name: only the registry's own spelling is vouched for as `Closed`.
    types: BTreeMap<String, Typed>,
    /// The folded names of [`AttributeType::Secret`] attributes: a secret stays one
    /// however a resource spells its name (`SetupPassword` typed, `SETUP_PASSWORD` reported).
    secret_names: BTreeSet<String>,
}

/// A registry's type of one attribute name.
#[derive(Debug, Clone)]
struct Typed {
    kind: AttributeType,
    /// Whether the name alone is a secret's ([`is_secret_name`]), once asked: a capture asks
    /// of each attribute more than once, and a registry is shared by every port that names it.
    secret_name: OnceLock<bool>,
}

impl PartialEq for Typed {
    fn eq(&self, other: &Typed) -> bool {
        self.kind == other.kind
    }
}

impl Eq for Typed {}

impl SecretFilter {
    /// A filter without registry knowledge: names and values only.
    pub const fn new() -> SecretFilter {
        SecretFilter {
            types: BTreeMap::new(),
            secret_names: BTreeSet::new(),
        }
    }

    /// Adds the entries of an attribute registry (`RegistryEntries.Attributes`); anything else
    /// adds nothing. When registries disagree about a name, the stricter type wins.
    pub fn add_registry(&mut self, registry: &Value) {
        let Some(entries) = registry["RegistryEntries"]["Attributes"].as_array() else {
            return;
        };
        for entry in entries.iter().filter_map(Value::as_object) {
            if let (Some(name), Some(kind)) = (
                entry.get("AttributeName").and_then(Value::as_str),
                AttributeType::of(entry),
            ) {
                self.add(name, kind);
            }
        }
    }

    /// Adds one registry entry: the attribute `name`, its `Type` (`kind`, when a string) and
    /// whether its `WriteOnly` counts (see [`AttributeType::of`]). An entry that gives
    /// neither adds nothing.
    pub fn add_entry(&mut self, name: &str, kind: Option<&str>, write_only: bool) {
        if let Some(kind) = AttributeType::given(kind, write_only) {
            self.add(name, kind);
        }
    }

    fn add(&mut self, name: &str, kind: AttributeType) {
        if kind == AttributeType::Secret {
            self.secret_names.insert(Folded::of(name).letters);
        }
        let known = self.types.entry(name.to_owned()).or_insert(Typed {
            kind,
            secret_name: OnceLock::new(),
        });
        known.kind = known.kind.max(kind);
    }

    /// Whether the attribute `name` with `value` is a secret.
    pub fn is_secret(&self, name: &str, value: &Value) -> bool {
        self.is_secret_by(name, value, is_secret_value)
    }

    /// Whether a registry says `name` is a secret, in whatever spelling.
    fn typed_secret(&self, name: &str) -> bool {
        !self.secret_names.is_empty() && self.secret_names.contains(&Folded::of(name).letters)
    }

    /// [`SecretFilter::is_secret`] with `key_material` as the value test.
    fn is_secret_by(&self, name: &str, value: &Value, key_material: fn(&Value) -> bool) -> bool {
        if self.typed_secret(name) {
            return true;
        }
        let Some(typed) = self.types.get(name) else {
            return (is_secret_name(name) && !is_auth_setting(name, value)) || key_material(value);
        };
        match typed.kind {
            AttributeType::Secret => true,
            AttributeType::Closed => key_material(value),
            AttributeType::Open => {
                *typed.secret_name.get_or_init(|| is_secret_name(name)) || key_material(value)
            }
        }
    }

    /// Removes every secret member of `value` at any depth, for a saved mockup that must
    /// still capture to the same facts. Inside settings (an `Attributes` object, an attribute
    /// registry entry) a member goes when its name or value is secret. Elsewhere only names
    /// and PEM blocks count: a long hex run there is an id or a digest (an NVMe NGUID
    /// `DurableName`, a WWID, a firmware hash), and dropping it would change the replay.
    /// A member holding an object or an array of objects is never dropped but cleaned
    /// inside: `"Keys": {"@odata.id": …}` is a link, and dropping it breaks navigation.
    /// `@odata.*` annotations are links and types, never secrets.
    pub fn remove_secrets(&self, value: &mut Value) {
        self.remove_within(value, false);
    }

    fn remove_within(&self, value: &mut Value, settings: bool) {
        match value {
            Value::Object(map) => {
                // A registry entry describes one attribute, and may carry its value.
                let entry = map.get("AttributeName").and_then(Value::as_str);
                let settings = settings || entry.is_some();
                let described = entry.is_some_and(|name| {
                    self.typed_secret(name)
                        || is_secret_name(name)
                        || AttributeType::of(map) == Some(AttributeType::Secret)
                });
                let key_material = if settings { is_secret_value } else { is_pem };
                map.retain(|name, value| {
                    name.starts_with("@odata.")
                        || holds_resources(value)
                        || !(self.is_secret_by(name, value, key_material)
                            || (described
                                && matches!(name.as_str(), "CurrentValue" | "DefaultValue")))
                });
                for (name, value) in map.iter_mut() {
                    self.remove_within(value, settings || name == "Attributes");
                }
            }
            Value::Array(items) => items
                .iter_mut()
                .for_each(|v| self.remove_within(v, settings)),
            _ => {}
        }
    }
}

/// Setting words an authentication switch is set to: `ChapMutualAuth = Disabled`.
const AUTH_SETTINGS: &[&str] = &["Enabled", "Disabled", "None", "Auto", "On", "Off"];

/// Whether `name` ends in `auth` (case and separators folded away, trailing digits and
/// [`TRAILERS`] cut) and `value` is a switch position (one of [`AUTH_SETTINGS`] or a JSON
/// boolean): then it is a setting, not a secret. Without a registry (HPE, Lenovo, iDRAC NICs
/// that list none) nothing says whether `ChapMutualAuth` is a flag or a CHAP secret, and
/// `auth` must stay a secret head for `TpmOwnerAuth`. The closed list tells them apart by
/// value: a boolean has no room for a secret, and a secret equal to one of six setting words
/// is no secret to hide (it is what anyone guesses first). Anything else, a lowercase
/// `enabled` included, stays secret.
fn is_auth_setting(name: &str, value: &Value) -> bool {
    folded_core(&Folded::of(name).letters).ends_with("auth")
        && match value {
            Value::Bool(_) => true,
            Value::String(text) => AUTH_SETTINGS.contains(&text.as_str()),
            _ => false,
        }
}

/// Whether a value is (or an array holds) a PEM block: key material wherever it stands.
fn is_pem(value: &Value) -> bool {
    match value {
        Value::String(text) => text.contains("-----BEGIN") || text.contains("PRIVATE KEY"),
        Value::Array(items) => items.iter().any(is_pem),
        _ => false,
    }
}

/// Whether a value is an object (a link, a complex property) or an array holding one: the
/// name test is for scalar values, and these are cleaned inside instead.
fn holds_resources(value: &Value) -> bool {
    match value {
        Value::Object(_) => true,
        Value::Array(items) => items.iter().any(|v| v.is_object() || v.is_array()),
        _ => false,
    }
}

/// Whether a fact must not be shown: its last path segment names a secret, or its value is
/// key material as a whole (a PEM block, or one long hex or base64 token). For reports of
/// snapshots written before this filter, or by hand, which may still hold a secret. Values
/// that merely contain a long hex run (`naa.60050768028081713c0000000000007d`) are ids, not keys.
pub fn is_secret_fact(path: &str, value: &Value) -> bool {
    let leaf = path.rsplit('/').next().unwrap_or(path);
    let key_material = |text: &str| {
        let text = text.trim();
        text.contains("-----BEGIN")
            || (text.len() >= 32 && text.bytes().all(|b| b.is_ascii_hexdigit()))
            || (text
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"+/=".contains(&b))
                && looks_like_base64(text))
    };
    (is_secret_name(leaf) && !is_auth_setting(leaf, value))
        || match value {
            Value::String(text) => key_material(text),
            Value::Array(items) => items.iter().filter_map(Value::as_str).any(key_material),
            _ => false,
        }
}

#[cfg(any(test, feature = "testing"))]
#[doc(hidden)]
pub mod spellings;
#[cfg(test)]
mod tests;
