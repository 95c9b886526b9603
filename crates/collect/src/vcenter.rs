//! The `esxi` source through vCenter: `esxi=vcenter://[user@]VCENTER[:PORT]?host=ESXI`. One
//! vSphere Web Services (SOAP) session reads the path selection policies, perennially reserved
//! flags and product of the hosts a vCenter manages, with no SSH on any host.
//!
//! - `location.rs`: `vcenter://…?host=…`;
//! - `session.rs`: one SOAP session (login, the hosts' properties, logout);
//! - `source.rs`: one host's capture, the vCenter read once per run;
//! - `model.rs`: what is read of a host, whatever the protocol;
//! - `soap.rs`: the SOAP requests, written;
//! - `xml.rs`: the SOAP answers, parsed;
//! - `facts.rs`: a host's properties as the facts the `esxcli` capture gives.

mod facts;
mod location;
mod model;
mod session;
mod soap;
mod source;
mod xml;

pub use facts::{PROPERTIES, host_facts};
pub use location::{BadVcenterLocation, VcenterLocation};
pub use model::{Host, LogicalUnit, MoRef, Path, Product, ScsiLun};
pub use session::{Session, VcenterError};
pub use source::{VcenterReads, capture};
pub use xml::{
    AnswerError, Fault, Retrieved, ServiceContent, acknowledged, host_config, retrieved,
    returned_moref, service_content,
};

#[cfg(test)]
mod tests;
