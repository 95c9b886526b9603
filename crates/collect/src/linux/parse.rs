//! Parsers of Linux NIC tool output: iproute2 `ip -j -d link` and `dcb -j`, `ethtool`,
//! `devlink -j dev info`, and the Mellanox tools `mlnx_qos` and `mlxconfig`.
//! Pure functions over text; every error names the line (1-based, 0 for the input as a whole).
//!
//! The JSON formats go through serde into private mirror types, so a wrong type or a missing
//! key is reported at the line where serde_json met it, and the public types stay free of the
//! tools' key names. Empty output is always an error: the tools print nothing when they fail,
//! and a default value would pass that failure off as a configuration.
//!
//! One file per command: `ip_link`, `dcb` (ets, pfc, dcbx), `ethtool_pause`, `ethtool_driver`,
//! `devlink`, `mlnx_qos`, `mlxconfig`; what they share is in `output`.

mod dcb;
mod devlink;
mod ethtool_driver;
mod ethtool_pause;
mod ip_link;
mod mlnx_qos;
mod mlxconfig;
mod output;

pub use crate::lines::ParseError;

pub use dcb::{Dcbx, Ets, Pfc, dcb_unsupported, parse_dcb_dcbx, parse_dcb_ets, parse_dcb_pfc};
pub use devlink::{DevlinkDevice, parse_devlink_info};
pub use ethtool_driver::{DriverInfo, parse_ethtool_driver_info};
pub use ethtool_pause::{
    Pause, ethtool_unsupported, parse_ethtool_pause_json, parse_ethtool_pause_text,
};
pub use ip_link::{Link, parse_ip_link};
pub use mlnx_qos::{MlnxQos, MlnxTc, parse_mlnx_qos};
pub use mlxconfig::{MlxConfig, MlxValue, mlx_bool, parse_mlxconfig_query};

#[cfg(test)]
mod tests;
