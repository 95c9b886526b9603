//! driftgate's end-to-end tests, in one test binary (as cargo and ripgrep have them): the CLI
//! run as a user runs it, against simulated BMCs, a throw-away sshd, real git stores and the
//! reports' real consumers. One binary links libgit2, reqwest and tokio once.

#![allow(clippy::unwrap_used)] // a test that cannot set up should panic where it stands

mod common;

mod accounts;
mod ansible;
mod baseline;
mod cli;
mod code_shape;
mod compare_older_baseline;
mod compare_policy;
mod compare_three_way;
mod deadline;
mod docs;
mod esxi;
mod examples;
mod fail_closed;
mod fix;
mod fix_once;
mod fix_scripts;
mod fix_targets;
mod fleet;
mod gate;
mod help;
mod install;
mod inventory;
mod layering;
mod linux;
mod linux_damage;
mod lldp;
mod mockup_fleet;
mod nightly;
mod nightly_state;
mod output_paths;
mod peer;
mod redfish;
mod redfish_attribute_classes;
mod redfish_cisco;
mod redfish_defects;
mod redfish_firmware;
mod redfish_fuzz;
mod redfish_identity;
mod redfish_judged;
mod redfish_port_firmware;
mod redfish_ports;
mod redfish_rdma_off;
mod redfish_renamed_functions;
mod redfish_secret_spellings;
mod redfish_shapes;
mod redfish_vocabulary;
mod report_fixtures;
mod reports_agree;
mod reports_cli;
mod reports_html;
mod reports_junit;
mod reports_prometheus;
mod reports_sarif;
mod secrets;
mod signals;
mod summary;
mod sushy;
mod systemd_unit;
mod tls_pin;
mod vcenter;
mod vcenter_sim;
mod windows;
mod windows_docs;
