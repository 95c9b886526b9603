//! `driftgate mockup serve`: a Redfish simulator over DMTF mockup folders, one BMC or a fleet
//! of them in one process, with Basic and session authentication, per-request latency, fault
//! injection and per-BMC state (settings clients write included), so that operators can
//! dry-run their gates and nightly runs and tests can exercise every failure a BMC (or a
//! thousand of them) shows.
//!
//! - `fault.rs`: the failures to inject and their syntax;
//! - `tree.rs`: a folder loaded once and shared by its BMCs, and per-BMC patches over it;
//! - `duplicate_keys.rs`: a body that gives one key twice (a fault no `Value` can hold);
//! - `bmc.rs`: one BMC answering HTTP (sessions, counters, faults);
//! - `writes.rs`: the writes a BMC takes (a settings PATCH, `ComputerSystem.Reset`);
//! - `settings.rs`: checking a settings PATCH, pure;
//! - `registry.rs`: finding a resource's attribute registry;
//! - `overlay.rs`: one BMC's written resources and pending values, in memory;
//! - `jobs.rs`: iDRAC's configuration jobs;
//! - `refusal.rs`: the Redfish error bodies of refused writes;
//! - `plan.rs`: the fleet from the command line (which BMC serves what, where), pure;
//! - `fleet.rs`: planning, binding and serving the BMCs;
//! - `inventory.rs`: the matching `inventory.toml`;
//! - `tls.rs`: the HTTPS identity and its pin.
//!
//! It shares with the capture only what both sides of the wire must agree on, from
//! `driftgate_model`: the mockup folder layout and the certificate pin it prints. It knows
//! nothing of the Redfish client.

mod account;
mod bmc;
mod duplicate_keys;
mod fault;
mod fleet;
mod inventory;
mod jobs;
mod overlay;
mod plan;
mod refusal;
mod registry;
mod settings;
mod tls;
mod tree;
mod writes;

pub use account::{AuthRequirement, PASSWORD_ENV, USERNAME_ENV};
pub use bmc::{REQUESTS, Service};
pub use fault::Fault;
pub use fleet::{BoundBmc, BoundFleet, Fleet, FleetError};
pub use inventory::{InventorySettings, cluster_name, render as render_inventory};
pub use plan::{
    Addresses, BmcFault, BmcSet, BmcState, FleetOptions, PlanError, Selection, host_name,
};
pub use tls::{from_pem, self_signed};
pub use tree::{Mockup, Patch, PatchError};

#[cfg(test)]
pub(crate) mod tests {
    use std::path::PathBuf;

    /// The recorded iDRAC of the Azure Local example in `state` (`baseline`, `post-update`).
    pub(crate) fn recorded(state: &str) -> PathBuf {
        PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
            .join("examples/azure-local-dcbx/recorded")
            .join(state)
            .join("bmc")
    }

    #[test]
    fn host_names_count_from_sim_0000() {
        assert_eq!(super::host_name(0), "sim-0000");
        assert_eq!(super::host_name(999), "sim-0999");
        assert_eq!(super::host_name(12345), "sim-12345");
    }
}
