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

pub use bmc::Service;
pub use fault::Fault;
pub use fleet::{BoundBmc, BoundFleet, Fleet, FleetError};
pub use inventory::{InventorySettings, cluster_name, render as render_inventory};
pub use plan::{Addresses, BmcFault, BmcSet, BmcState, FleetOptions, PlanError, Selection};
pub use tls::{from_pem, self_signed};
pub use tree::{Mockup, Patch, PatchError};

/// How clients must authenticate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum AuthRequirement {
    /// Everything is open; logins still get a session.
    None,
    /// HTTP Basic on every request; session logins are refused (405).
    Basic,
    /// A session token or Basic on every request; logins get a session.
    Session,
}

/// `GET` here answers `{"Requests": N, "Connections": C, "LoginOnlyConnections": L, "Sent":
/// […]}`: the number of requests this BMC was sent so far, of the connections that carried
/// them, of those that carried a session login and no GET, and every request other than a GET
/// as `METHOD target`, as it arrived (itself not counted; it answers on a hanging BMC too).
pub const REQUESTS: &str = "/driftgate/requests";

/// The variable holding the simulator's account name (and that written inventories name).
pub const USERNAME_ENV: &str = "DRIFTGATE_MOCKUP_USERNAME";
/// The variable holding the simulator's account password (and that written inventories name).
pub const PASSWORD_ENV: &str = "DRIFTGATE_MOCKUP_PASSWORD";

/// The inventory host name of simulated BMC `index`: `sim-0000`, `sim-0001`, ….
pub fn host_name(index: usize) -> String {
    format!("sim-{index:04}")
}

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
