//! Secrets: what never enters a snapshot, a saved mockup, a log line or a report.
//!
//! One filter, three tests, any one of which is enough:
//! - **type**: an attribute registry types the attribute `Password` (whatever its name says);
//! - **name**: the name's head word says it holds a secret (`SnmpCommunityString`, `IPMIKey`,
//!   `LdapBindPw`, `Pass_Phrase`, `TpmOwnerAuth`), or a strong secret word appears anywhere in
//!   it and the head is not a word about the secret (`PasswordMinimumLength` is a rule, not a
//!   password);
//! - **value**: the value looks like key material (a PEM block, a long hex or base64 blob).
//!
//! A name is split into words at `_`, `.`, `-`, case changes (`IPMIKey` → `ipmi key`) and
//! digits, so `KeyboardLayout` (head `layout`) and `NWManagementPassThrough` (head `through`)
//! are kept. A registry type of `Enumeration` or `Boolean` overrules the name: a value from a
//! closed vocabulary (`ChapMutualAuth = Disabled`) cannot carry a secret. The value test still
//! applies to it. Without a registry, an `…Auth` name set to a switch position (`Enabled`,
//! `Disabled`, `None`, `Auto`, `On`, `Off`, a boolean) is a setting too.
//!
//! A leaf module: it imports nothing of driftgate's, so collectors, reports and logs can all
//! use it.

use std::collections::BTreeMap;

use serde_json::Value;

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

/// Whether an attribute or property name says it holds a secret.
pub fn is_secret_name(name: &str) -> bool {
    let words = words(name);
    let core = core(&words);
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
/// `ipmi key`), and between letters and digits (`MD5v3Key` → `md 5 v 3 key`).
fn words(name: &str) -> Vec<String> {
    let chars: Vec<char> = name.chars().collect();
    let mut words = Vec::new();
    let mut word = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_ascii_alphanumeric() {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            continue;
        }
        if !word.is_empty() {
            let prev = chars[i - 1];
            let next_lower = chars.get(i + 1).is_some_and(char::is_ascii_lowercase);
            let boundary = (prev.is_ascii_lowercase() && c.is_ascii_uppercase())
                || (prev.is_ascii_uppercase() && c.is_ascii_uppercase() && next_lower)
                || (prev.is_ascii_digit() != c.is_ascii_digit());
            if boundary {
                words.push(std::mem::take(&mut word));
            }
        }
        word.push(c.to_ascii_lowercase());
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
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
    // 15-40% with few digits. Measured: no value of ../shared/data/redfish is taken for key
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
    /// `Password`: a secret whatever its name.
    Password,
}

impl AttributeType {
    /// The type of a registry entry's `Type`.
    pub fn parse(text: &str) -> AttributeType {
        match text {
            "Password" => AttributeType::Password,
            "Enumeration" | "Boolean" => AttributeType::Closed,
            _ => AttributeType::Open,
        }
    }
}

/// The attribute types of one or more attribute registries, and the filter that uses them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SecretFilter {
    types: BTreeMap<String, AttributeType>,
}

impl SecretFilter {
    /// A filter without registry knowledge: names and values only.
    pub fn new() -> SecretFilter {
        SecretFilter::default()
    }

    /// Adds the entries of an attribute registry (`RegistryEntries.Attributes`); anything else
    /// adds nothing. When registries disagree about a name, the stricter type wins.
    pub fn add_registry(&mut self, registry: &Value) {
        let Some(entries) = registry["RegistryEntries"]["Attributes"].as_array() else {
            return;
        };
        for entry in entries {
            let (Some(name), Some(kind)) =
                (entry["AttributeName"].as_str(), entry["Type"].as_str())
            else {
                continue;
            };
            let kind = AttributeType::parse(kind);
            let known = self.types.entry(name.to_owned()).or_insert(kind);
            *known = (*known).max(kind);
        }
    }

    /// Whether the attribute `name` with `value` is a secret.
    pub fn is_secret(&self, name: &str, value: &Value) -> bool {
        self.is_secret_by(name, value, is_secret_value)
    }

    /// [`SecretFilter::is_secret`] with `key_material` as the value test.
    fn is_secret_by(&self, name: &str, value: &Value, key_material: fn(&Value) -> bool) -> bool {
        match self.types.get(name) {
            Some(AttributeType::Password) => true,
            Some(AttributeType::Closed) => key_material(value),
            Some(AttributeType::Open) => is_secret_name(name) || key_material(value),
            None => (is_secret_name(name) && !is_auth_setting(name, value)) || key_material(value),
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
                    self.types.get(name) == Some(&AttributeType::Password) || is_secret_name(name)
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

/// Whether the head word of `name` is `auth` and `value` is a switch position (one of
/// [`AUTH_SETTINGS`] or a JSON boolean): then it is a setting, not a secret. Without a
/// registry (HPE, Lenovo, iDRAC NICs that list none) nothing says whether `ChapMutualAuth`
/// is a flag or a CHAP secret, and `auth` must stay a secret head for `TpmOwnerAuth`. The closed list tells them apart by value: a boolean has no room
/// for a secret, and a secret equal to one of six setting words is no secret to hide (it is
/// what anyone guesses first). Anything else, a lowercase `enabled` included, stays secret.
fn is_auth_setting(name: &str, value: &Value) -> bool {
    let words = words(name);
    core(&words).last().is_some_and(|head| head == "auth")
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

#[cfg(test)]
mod tests;
