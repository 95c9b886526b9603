//! `driftgate fix`: for each blocking finding whose known-good value is known, the exact step
//! of the layer that owns the setting — a Redfish settings PATCH staged for the next reset,
//! PowerShell, `esxcli`, `mlxconfig` — or why no setting fixes it. Pure: the plan is made from
//! a judged report, its snapshot and what the host's BMC was read to hold; reading and
//! writing hosts belongs to the operations that call it (`driftgate_gate::fix`).
//!
//! - `model.rs`: the plan as printed and published (`driftgate.fix-plan/v1`);
//! - `known_good.rs`: which findings, which known-good value, which layer;
//! - `bmc.rs`: attribute writes found and checked against the attribute registry;
//! - `os.rs`: the operating systems' commands;
//! - `plan.rs`: one host's plan;
//! - `quote.rs`: values put into scripts and command lines (shell, PowerShell, comments);
//! - `render.rs`: the plan as text and as runnable scripts.

mod bmc;
mod known_good;
mod model;
mod os;
mod plan;
mod quote;
mod render;

pub use bmc::{DEFAULT_APPLY_TIME, check, pending_fact};
pub use model::{
    Action, Change, Commands, Effect, HostPlan, Layer, NotFixable, PLAN_SCHEMA_ID, Plan,
    RedfishPatch, Risk, Shell, Step, Unfixable,
};
pub use plan::{Bmc, blocks, host_plan, needs_bmc, os_of};
pub use quote::{Unquotable, comment as one_line, powershell_encoded};
pub use render::{script_files, text};

/// The JSON Schema of [`Plan`] (`driftgate schema fix-plan`), pretty, with a trailing newline.
pub fn schema() -> String {
    let mut text = serde_json::to_string_pretty(&schemars::schema_for!(Plan))
        .expect("schemas always serialize");
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_checked_in_schema_is_current() {
        let file = std::path::Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../schemas/fix-plan.schema.json"
        ));
        let generated = super::schema();
        if std::env::var_os("DRIFTGATE_BLESS").is_some() {
            std::fs::write(file, &generated).unwrap();
        }
        let checked_in = std::fs::read_to_string(file).unwrap_or_default();
        assert!(
            checked_in == generated,
            "{} is stale: run `cargo run -- schema fix-plan > {}` (or DRIFTGATE_BLESS=1 cargo test)",
            file.display(),
            file.display()
        );
    }
}
