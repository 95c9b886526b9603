//! The effective policy written out: as TOML (what `driftgate policy` prints)
//! and as the digest a run records.

use std::fmt::Write as _;

use super::compiled::Policy;
use driftgate_snapshot::FactValue;

impl Policy {
    /// `sha256:` + hex SHA-256 of the effective policy's TOML without comments: equal for the
    /// same rules however they were spelled, so a run records which policy judged it.
    pub fn digest(&self) -> String {
        use sha2::{Digest as _, Sha256};
        let mut hasher = Sha256::new();
        for line in self
            .to_toml()
            .lines()
            .filter(|l| !l.trim_start().starts_with('#'))
        {
            hasher.update(line.as_bytes());
            hasher.update(b"\n");
        }
        format!("sha256:{}", hex::encode(hasher.finalize()))
    }

    /// The effective policy as TOML, each rule annotated with where it was defined.
    pub fn to_toml(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "# Effective driftgate policy, from: {}",
            self.sources.join(", ")
        );
        let _ = writeln!(
            out,
            "# Most specific rule wins; changes no rule matches are `warn`."
        );
        let _ = writeln!(
            out,
            "# A staged value (a path with a `pending` segment, applied at the next reboot) is judged by the rule of the live path without that segment; a rule whose path names `pending` can make that stricter, and lower it only when its path has no wildcard."
        );
        for rule in &self.rules {
            let _ = writeln!(out, "\n# from {}", rule.origin);
            let _ = writeln!(out, "[[rule]]");
            let _ = writeln!(out, "id = {}", toml_string(&rule.id));
            let _ = writeln!(out, "path = {}", toml_string(&rule.path));
            if let Some(severity) = rule.on_change {
                let _ = writeln!(out, "on_change = \"{}\"", severity.as_str());
            }
            if let Some(expect) = &rule.expect {
                let _ = writeln!(out, "expect = {}", toml_value(expect));
                let _ = writeln!(out, "on_violation = \"{}\"", rule.on_violation.as_str());
            }
            let _ = writeln!(out, "why = {}", toml_string(&rule.why));
        }
        let _ = writeln!(out, "\n[invariants]");
        for (invariant, severity) in &self.invariants {
            let _ = writeln!(out, "# {}", invariant.summary);
            let _ = writeln!(out, "{} = \"{}\"", invariant.id, severity.as_str());
        }
        out
    }
}

pub(super) fn toml_string(s: &str) -> String {
    toml::Value::String(s.to_owned()).to_string()
}

fn toml_value(value: &FactValue) -> String {
    let json = serde_json::to_value(value).expect("fact values always serialize");
    let toml: toml::Value = serde_json::from_value(json).expect("fact values are TOML values");
    toml.to_string()
}
