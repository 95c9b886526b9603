//! Recording a BMC's certificate pin in the inventory (`inventory pin HOST --write`): trust
//! on first use, made explicit. Which source of a host is pinned ([`target`]), the edit of
//! `inventory.toml` that pins it, keeping every comment and the layout ([`with_pin`], pure),
//! and the atomic rewrite of the file ([`record`]). Ansible inventories are the operator's
//! own files in Ansible's syntax: driftgate says what to add there ([`ansible_instruction`])
//! and never rewrites them.

use std::path::{Path, PathBuf};

use driftgate_collect::SourceSpec;
use driftgate_model::line_index::LineIndex;
use driftgate_model::pin::CertificatePin;
use driftgate_redfish::RedfishLocation;
use toml_edit::{DocumentMut, Item, TableLike, Value};

use super::{Format, Inventory, InventoryHost};

/// The BMC of a host that a pin would trust.
#[derive(Debug, Clone)]
pub struct PinTarget<'a> {
    /// The host.
    pub host: &'a InventoryHost,
    /// `https://bmc[:port]`.
    pub base: String,
    /// The pin the source carries now.
    pub pinned: Option<CertificatePin>,
}

impl PinTarget<'_> {
    /// The host's Redfish source pinned to `pin`: what [`with_pin`] writes.
    pub fn pinned_source(&self, pin: &CertificatePin) -> SourceSpec {
        SourceSpec::Redfish(RedfishLocation::Live {
            base: self.base.clone(),
            pin: Some(pin.clone()),
        })
    }
}

/// Why a host's pin cannot be shown or recorded. Each names the inventory file, and the host
/// and its line where there is one.
#[derive(Debug, thiserror::Error)]
pub enum PinError {
    /// No host of that name.
    #[error("{file}: no host `{host}` in the inventory (hosts there: {known})")]
    UnknownHost {
        /// The inventory.
        file: PathBuf,
        /// The name asked for.
        host: String,
        /// Some of the names there are.
        known: String,
    },
    /// The host has no Redfish source.
    #[error(
        "{file}:{line}: host `{host}` has no Redfish source, so no BMC certificate to pin (its sources: {sources})"
    )]
    NoRedfish {
        /// The inventory.
        file: PathBuf,
        /// The host's line.
        line: usize,
        /// The host.
        host: String,
        /// Its sources.
        sources: String,
    },
    /// The host's BMC is a mockup folder.
    #[error(
        "{file}:{line}: host `{host}` reads its BMC from a mockup folder ({location}): no certificate to pin"
    )]
    Mockup {
        /// The inventory.
        file: PathBuf,
        /// The host's line.
        line: usize,
        /// The host.
        host: String,
        /// The source.
        location: String,
    },
    /// The host's BMC is reached over plain HTTP.
    #[error(
        "{file}:{line}: host `{host}`'s BMC is plain http ({base}): there is no certificate to pin; if the BMC serves HTTPS, make the source https:// first"
    )]
    PlainHttp {
        /// The inventory.
        file: PathBuf,
        /// The host's line.
        line: usize,
        /// The host.
        host: String,
        /// `http://bmc[:port]`.
        base: String,
    },
    /// An Ansible inventory, which driftgate does not rewrite.
    #[error(
        "{file} is an Ansible inventory, which driftgate does not rewrite: {instruction}, then run again"
    )]
    Ansible {
        /// The inventory.
        file: PathBuf,
        /// What to add, exactly.
        instruction: String,
    },
    /// The inventory path is a symbolic link, which an atomic rewrite would replace.
    #[error(
        "{file} is a symbolic link: rewriting it would replace the link with a file; give the file it points to with --inventory"
    )]
    Link {
        /// The inventory.
        file: PathBuf,
    },
    /// The file cannot be read.
    #[error("{file}: cannot read: {source}")]
    Read {
        /// The inventory.
        file: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file cannot be written.
    #[error("{file}: cannot write (nothing was changed): {source}")]
    Write {
        /// The inventory.
        file: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The text has no `[[host]]` of that name with a `redfish=` entry in a `sources` array
    /// (it changed since it was read, or is not TOML).
    #[error("{file}: {reason}; nothing was written")]
    NotEditable {
        /// The inventory.
        file: PathBuf,
        /// What was missing.
        reason: String,
    },
}

/// The Redfish source of `host` that a pin would trust: an `https://` BMC.
pub fn target<'a>(inventory: &'a Inventory, host: &str) -> Result<PinTarget<'a>, PinError> {
    let file = inventory.file.clone();
    let Some(found) = inventory.host(host) else {
        const SHOWN: usize = 10;
        let mut known: Vec<&str> = inventory
            .hosts
            .iter()
            .take(SHOWN)
            .map(|h| h.name.as_str())
            .collect();
        if inventory.hosts.len() > SHOWN {
            known.push("…");
        }
        return Err(PinError::UnknownHost {
            file,
            host: host.to_owned(),
            known: known.join(", "),
        });
    };
    let line = found.line;
    let redfish = found.sources.iter().find_map(|s| match s {
        SourceSpec::Redfish(location) => Some(location),
        _ => None,
    });
    match redfish {
        None => Err(PinError::NoRedfish {
            file,
            line,
            host: host.to_owned(),
            sources: found
                .sources
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", "),
        }),
        Some(location @ RedfishLocation::Mockup(_)) => Err(PinError::Mockup {
            file,
            line,
            host: host.to_owned(),
            location: format!("redfish={location}"),
        }),
        Some(location) if location.is_plain_http() => Err(PinError::PlainHttp {
            file,
            line,
            host: host.to_owned(),
            base: location.to_string(),
        }),
        Some(RedfishLocation::Live { base, pin }) => Ok(PinTarget {
            host: found,
            base: base.clone(),
            pinned: pin.clone(),
        }),
    }
}

/// What to write in an Ansible inventory to pin `host`'s BMC at `base` to `pin`.
pub fn ansible_instruction(host: &str, base: &str, pin: &CertificatePin) -> String {
    let location = format!("{base}?pin={pin}");
    format!(
        "set the host's BMC with its pin — YAML (host_vars/{host}.yml or the host's entry): \
         `driftgate_bmc: \"{location}\"`; INI: `{host} driftgate_bmc={location}`; a host that \
         lists its BMC in `driftgate_sources` takes `redfish={location}` there instead"
    )
}

/// An inventory text with one host's Redfish source pinned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rewrite {
    /// The whole new text.
    pub text: String,
    /// The source as it was (`redfish=https://bmc`).
    pub old: String,
    /// The source as it is now (`redfish=https://bmc?pin=sha256:…`).
    pub new: String,
    /// The 1-based line of the new source in [`Self::text`].
    pub line: usize,
}

/// `text` (an `inventory.toml` read from `file`) with the `redfish=https://…` entry in the
/// `sources` of the `[[host]]` called `host` pinned to `pin`, replacing a pin it has; every
/// other byte is kept (comments, order, quoting, spacing). `None` in [`Rewrite`]'s place when
/// the source is pinned to `pin` already.
pub fn with_pin(
    text: &str,
    file: &Path,
    host: &str,
    pin: &CertificatePin,
) -> Result<Option<Rewrite>, PinError> {
    let not_editable = |reason: String| PinError::NotEditable {
        file: file.to_path_buf(),
        reason,
    };
    let mut document: DocumentMut = text
        .parse()
        .map_err(|e: toml_edit::TomlError| not_editable(format!("not TOML: {}", e.message())))?;
    let mut edit = None;
    match document.get_mut("host") {
        Some(Item::ArrayOfTables(tables)) => {
            for table in tables.iter_mut() {
                edit = edit.or(pin_in(table, host, pin));
            }
        }
        Some(Item::Value(Value::Array(items))) => {
            for item in items.iter_mut() {
                if let Value::InlineTable(table) = item {
                    edit = edit.or(pin_in(table, host, pin));
                }
            }
        }
        _ => {}
    }
    let (old, new) = edit.ok_or_else(|| {
        not_editable(format!(
            "no [[host]] `{host}` with a `redfish=https://…` entry in its `sources` array"
        ))
    })?;
    if old == new {
        return Ok(None);
    }
    let text = document.to_string();
    // The new entry is the only text with this pin and BMC: where it is names its line.
    let line = text
        .find(&new)
        .map_or(0, |at| LineIndex::new(&text).line(at));
    Ok(Some(Rewrite {
        text,
        old,
        new,
        line,
    }))
}

/// Pins the Redfish entry of `table`'s `sources` when `table` is the host `host`: the entry's
/// old and new text, or `None` when `table` is another host or has no such entry.
fn pin_in(table: &mut dyn TableLike, host: &str, pin: &CertificatePin) -> Option<(String, String)> {
    if table.get("name").and_then(Item::as_str) != Some(host) {
        return None;
    }
    let sources = table.get_mut("sources")?.as_array_mut()?;
    for entry in sources.iter_mut() {
        let Some(old) = entry.as_str().map(str::to_owned) else {
            continue;
        };
        let Some(location) = old.strip_prefix("redfish=") else {
            continue;
        };
        let Ok(RedfishLocation::Live { base, .. }) = RedfishLocation::parse(location) else {
            continue;
        };
        if !base.starts_with("https://") {
            continue;
        }
        let pinned = RedfishLocation::Live {
            base,
            pin: Some(pin.clone()),
        };
        let new = format!("redfish={pinned}");
        if new != old {
            let decor = entry.decor().clone();
            let mut value = Value::from(new.as_str());
            *value.decor_mut() = decor;
            *entry = value;
        }
        return Some((old, new));
    }
    None
}

/// What [`record`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Recorded {
    /// The file was rewritten.
    Written(Rewrite),
    /// The source carries that pin already; the file was not touched.
    Unchanged,
}

/// Pins `host`'s Redfish source in the inventory `file` to `pin` ([`with_pin`]) and replaces
/// the file atomically (a temporary file in its folder, renamed over it; its mode is kept),
/// after checking that the new text loads with exactly that source. Ansible inventories and a
/// path that is a symbolic link are refused; nothing is written then.
pub fn record(file: &Path, host: &str, pin: &CertificatePin) -> Result<Recorded, PinError> {
    let read_error = |source| PinError::Read {
        file: file.to_path_buf(),
        source,
    };
    if Format::of(file) != Format::Toml {
        let inventory = Inventory::load(file).map_err(|errors| PinError::NotEditable {
            file: file.to_path_buf(),
            reason: errors.to_string(),
        })?;
        let target = target(&inventory, host)?;
        return Err(PinError::Ansible {
            file: file.to_path_buf(),
            instruction: ansible_instruction(host, &target.base, pin),
        });
    }
    if std::fs::symlink_metadata(file)
        .map_err(read_error)?
        .file_type()
        .is_symlink()
    {
        return Err(PinError::Link {
            file: file.to_path_buf(),
        });
    }
    let text = std::fs::read_to_string(file).map_err(read_error)?;
    let Some(rewrite) = with_pin(&text, file, host, pin)? else {
        return Ok(Recorded::Unchanged);
    };
    let reloaded =
        Inventory::parse(&rewrite.text, file).map_err(|errors| PinError::NotEditable {
            file: file.to_path_buf(),
            reason: format!("the pinned inventory would not load: {errors}"),
        })?;
    let pinned = target(&reloaded, host)?;
    if pinned.pinned.as_ref() != Some(pin) {
        return Err(PinError::NotEditable {
            file: file.to_path_buf(),
            reason: format!("host `{host}` would not read its BMC with the pin"),
        });
    }
    driftgate_fs::write_atomic_readable(file, rewrite.text.as_bytes()).map_err(|source| {
        PinError::Write {
            file: file.to_path_buf(),
            source,
        }
    })?;
    Ok(Recorded::Written(rewrite))
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "/srv/store/inventory.toml";

    fn pin(byte: &str) -> CertificatePin {
        CertificatePin::parse(&format!("sha256:{}", byte.repeat(32))).unwrap()
    }

    const INVENTORY: &str = r#"# Lab BMCs. Keep sorted.
[defaults]
fleet = "lab"   # the only fleet

[[host]]
name = "node01"
sources = [
  # the BMC, self-signed
  "redfish=https://10.0.0.7:8443",   # iDRAC
  "linux=ssh://root@node01",
]

[[host]]
name = "node02"
sources = ['redfish=https://10.0.0.8']
"#;

    #[test]
    fn pins_the_host_s_bmc_and_keeps_every_other_byte() {
        let rewrite = with_pin(INVENTORY, Path::new(FILE), "node01", &pin("ab"))
            .unwrap()
            .unwrap();
        let new = format!("redfish=https://10.0.0.7:8443?pin={}", pin("ab"));
        assert_eq!(
            rewrite.text,
            INVENTORY.replace("redfish=https://10.0.0.7:8443", &new)
        );
        assert_eq!(rewrite.old, "redfish=https://10.0.0.7:8443");
        assert_eq!(rewrite.new, new);
        assert_eq!(rewrite.line, 9);
        // What was written loads, with the pin.
        let inventory = Inventory::parse(&rewrite.text, Path::new(FILE)).unwrap();
        assert_eq!(
            target(&inventory, "node01").unwrap().pinned,
            Some(pin("ab"))
        );
        assert_eq!(target(&inventory, "node02").unwrap().pinned, None);
    }

    #[test]
    fn a_pin_is_replaced_and_the_same_pin_is_no_edit() {
        let pinned = with_pin(INVENTORY, Path::new(FILE), "node02", &pin("ab"))
            .unwrap()
            .unwrap();
        assert!(
            pinned.text.contains(&format!(
                "sources = [\"redfish=https://10.0.0.8?pin={}\"]\n",
                pin("ab")
            )),
            "{}",
            pinned.text
        );
        let again = with_pin(&pinned.text, Path::new(FILE), "node02", &pin("ab")).unwrap();
        assert_eq!(again, None);
        let replaced = with_pin(&pinned.text, Path::new(FILE), "node02", &pin("cd"))
            .unwrap()
            .unwrap();
        assert_eq!(
            replaced.old,
            format!("redfish=https://10.0.0.8?pin={}", pin("ab"))
        );
        assert_eq!(
            replaced.new,
            format!("redfish=https://10.0.0.8?pin={}", pin("cd"))
        );
        assert!(!replaced.text.contains(&pin("ab").to_string()));
    }

    #[test]
    fn hosts_written_as_inline_tables_are_pinned_too() {
        let text = "host = [\n  { name = \"a\", sources = [\"redfish=https://bmc-a\"] },\n  \
                    { name = \"b\", sources = [\"redfish=https://bmc-b\"] },\n]\n";
        let rewrite = with_pin(text, Path::new(FILE), "b", &pin("ab"))
            .unwrap()
            .unwrap();
        assert_eq!(
            rewrite.text,
            text.replace("https://bmc-b", &format!("https://bmc-b?pin={}", pin("ab")))
        );
        assert_eq!(rewrite.line, 3);
    }

    #[test]
    fn what_cannot_be_pinned_is_refused_naming_the_file() {
        for (text, host) in [
            (INVENTORY, "node03"),
            (
                "[[host]]\nname = \"x\"\nsources = [\"redfish=http://sim:8000\"]\n",
                "x",
            ),
            (
                "[[host]]\nname = \"x\"\nsources = [\"linux=ssh://x\"]\n",
                "x",
            ),
            ("[[host]\nname = \"x\"\n", "x"),
        ] {
            let error = with_pin(text, Path::new(FILE), host, &pin("ab")).unwrap_err();
            assert!(matches!(error, PinError::NotEditable { .. }), "{error}");
            assert!(error.to_string().starts_with(FILE), "{error}");
        }
    }

    #[test]
    fn targets_are_https_bmcs_and_the_rest_is_told_by_host_and_line() {
        let text = r#"[defaults]
fleet = "lab"

[[host]]
name = "plain"
sources = ["redfish=http://127.0.0.1:8000"]

[[host]]
name = "os-only"
sources = ["linux=ssh://root@os-only"]

[[host]]
name = "recorded"
sources = ["redfish=mockup:recorded/bmc"]
"#;
        let inventory = Inventory::parse(text, Path::new(FILE)).unwrap();
        let message = |host: &str| target(&inventory, host).unwrap_err().to_string();
        assert!(
            message("plain").starts_with(&format!(
                "{FILE}:4: host `plain`'s BMC is plain http (http://127.0.0.1:8000)"
            )),
            "{}",
            message("plain")
        );
        assert!(
            message("os-only").starts_with(&format!("{FILE}:8: host `os-only` has no Redfish")),
            "{}",
            message("os-only")
        );
        assert!(message("recorded").contains(":12: host `recorded` reads its BMC from a mockup"));
        assert_eq!(
            message("node09"),
            format!(
                "{FILE}: no host `node09` in the inventory (hosts there: plain, os-only, recorded)"
            )
        );
    }

    #[test]
    fn ansible_inventories_get_the_exact_variable() {
        let instruction = ansible_instruction("node01", "https://10.0.0.7", &pin("ab"));
        let location = format!("https://10.0.0.7?pin={}", pin("ab"));
        assert!(
            instruction.contains(&format!("`driftgate_bmc: \"{location}\"`")),
            "{instruction}"
        );
        assert!(
            instruction.contains(&format!("`node01 driftgate_bmc={location}`")),
            "{instruction}"
        );
    }

    #[test]
    fn record_rewrites_atomically_keeps_the_mode_and_refuses_links_and_ansible() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("inventory.toml");
        std::fs::write(&file, INVENTORY).unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o640)).unwrap();
        let Recorded::Written(rewrite) = record(&file, "node01", &pin("ab")).unwrap() else {
            panic!("written");
        };
        assert_eq!(std::fs::read_to_string(&file).unwrap(), rewrite.text);
        let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o640);
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["inventory.toml"], "no temporary file left");
        assert_eq!(
            record(&file, "node01", &pin("ab")).unwrap(),
            Recorded::Unchanged
        );

        let link = dir.path().join("link.toml");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        let error = record(&link, "node01", &pin("cd")).unwrap_err();
        assert!(matches!(error, PinError::Link { .. }), "{error}");
        assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());

        let hosts = dir.path().join("hosts.yml");
        let yaml = "all:\n  hosts:\n    node01:\n      driftgate_fleet: lab\n      driftgate_bmc: https://10.0.0.7\n";
        std::fs::write(&hosts, yaml).unwrap();
        let error = record(&hosts, "node01", &pin("ab")).unwrap_err();
        assert!(matches!(error, PinError::Ansible { .. }), "{error}");
        assert!(
            error.to_string().contains(&format!(
                "driftgate_bmc: \"https://10.0.0.7?pin={}\"",
                pin("ab")
            )),
            "{error}"
        );
        assert_eq!(std::fs::read_to_string(&hosts).unwrap(), yaml, "untouched");
    }
}
