//! What normalization gives: the facts, and what is worth saying about them.

use driftgate_model::placeholder::Placeholders;
use driftgate_snapshot::Facts;

use super::withheld::Withheld;

/// What normalization made of a crawl.
#[derive(Debug, Clone, Default)]
pub struct Normalized {
    /// The facts.
    pub facts: Facts,
    /// Worth saying, not an error: a port keyed without a MAC and why, one adapter seen
    /// through two chassis.
    pub notes: Vec<String>,
    /// What makes the capture partial, naming the URIs: two resources that claim the same
    /// fact with different values.
    pub problems: Vec<String>,
    /// The BIOS and NIC attributes kept out of the facts as secrets, by resource.
    pub withheld: Vec<Withheld>,
    /// The values the service answered with a placeholder (`"N/A"`, `"nil"`…), which are no
    /// facts: a source that answers mostly those says so.
    pub placeholders: Placeholders,
}
