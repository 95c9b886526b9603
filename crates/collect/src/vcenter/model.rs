//! What a vCenter tells of one ESXi host, in the shape driftgate reads it: from a property
//! retrieval, or from a fetch of the host's `config`.

/// A managed object reference: `HostSystem:host-21`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct MoRef {
    /// Its type (`HostSystem`, `ContainerView`, …).
    pub kind: String,
    /// Its id (`host-21`).
    pub value: String,
}

/// `config.product` (`AboutInfo`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Product {
    /// `version` (`7.0.3`).
    pub version: String,
    /// `build` (`20036589`).
    pub build: String,
    /// `apiVersion` (`7.0.3.0`): which vSphere API release the host speaks, so which
    /// properties it can give.
    pub api_version: Option<String>,
    /// The elements given more than once (`version`).
    pub repeated: Vec<String>,
}

/// One path of a logical unit (`HostMultipathInfoPath`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Path {
    /// `name` (`vmhba2:C0:T1:L5`).
    pub name: String,
    /// `state` (`active`, `standby`, `disabled`, `dead`, `unknown`), else the deprecated
    /// `pathState`.
    pub state: String,
    /// `isWorkingPath`, when the vCenter says it.
    pub working: Option<bool>,
}

/// One logical unit of `config.storageDevice.multipathInfo.lun[]`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LogicalUnit {
    /// `id`.
    pub id: String,
    /// `lun`: the key of its `scsiLun` entry.
    pub scsi_lun: String,
    /// `policy.policy`: an NMP PSP (`VMW_PSP_RR`) or an HPP path selection scheme (`FIXED`,
    /// `LB-RR`…).
    pub policy: String,
    /// `policy`'s type (`HostMultipathInfoHppLogicalUnitPolicy` for HPP).
    pub policy_type: String,
    /// `storageArrayTypePolicy.policy` (NMP's SATP; absent under HPP).
    pub satp: Option<String>,
    /// Its paths.
    pub paths: Vec<Path>,
    /// The elements it gives more than once (`policy`, `path vmhba2:C0:T1:L5: isWorkingPath`):
    /// which one holds cannot be told.
    pub repeated: Vec<String>,
}

/// One entry of `config.storageDevice.scsiLun[]`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScsiLun {
    /// `key`.
    pub key: String,
    /// `canonicalName` (`naa.6005…`).
    pub canonical_name: String,
    /// `displayName`.
    pub display_name: Option<String>,
    /// `vendor`, trimmed.
    pub vendor: Option<String>,
    /// `model`, trimmed.
    pub model: Option<String>,
    /// `perenniallyReserved`.
    pub perennially_reserved: Option<bool>,
    /// Whether `perenniallyReserved` is there at all (a value that is no boolean is).
    pub reserved_given: bool,
    /// `localDisk` (disks only).
    pub local: Option<bool>,
    /// The elements it gives more than once (`perenniallyReserved`).
    pub repeated: Vec<String>,
}

/// The properties read of one host.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Host {
    /// `name`.
    pub name: Option<String>,
    /// `config.product`.
    pub product: Option<Product>,
    /// `config.storageDevice.multipathInfo.lun`.
    pub luns: Option<Vec<LogicalUnit>>,
    /// `config.storageDevice.scsiLun`.
    pub scsi_luns: Option<Vec<ScsiLun>>,
    /// Properties the vCenter could not give (`missingSet`), with its fault.
    pub missing: Vec<(String, String)>,
    /// Values of the wrong type (a boolean that is none), each said.
    pub malformed: Vec<String>,
    /// The properties given more than once (two `propSet`s of one name, two `multipathInfo`s
    /// of one `config`): none of their values is read.
    pub repeated: Vec<String>,
}
