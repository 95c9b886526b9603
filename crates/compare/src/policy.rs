//! Policy: path-glob rules that classify changes and assert expected values, plus the
//! severity of each invariant.
//!
//! A built-in policy ships in the binary; a user file adds rules and overrides built-in ones
//! by `id` (fields it leaves out keep their built-in values). For a fact path, the most
//! specific matching rule wins: a pattern without wildcards beats any glob, then the pattern
//! with more literal characters, then the one with fewer wildcards, then the one defined last.
//!
//! A value staged for the next reboot sits under a `pending` path segment
//! (`nic/<key>/bmc/pending/<leaf>`, `nic/<key>/bmc/function/<function>/pending/<leaf>`,
//! `bios/pending/<attribute>`). Its change is classified by the rule of the live path, the same
//! path without that segment, so a staged reset of a blocked setting blocks like the reset
//! itself. A rule whose own pattern names `pending` and matches the staged path can only make
//! that stricter, unless its pattern is a literal path (no wildcard): a site that names one
//! staged fact exactly may lower it, a glob over staged values must not turn a staged reset of
//! a blocked setting into a warning.
//!
//! The compiled policy and its rules are in `compiled.rs`; loading and layering the documents is in
//! `load.rs`, finding the rule that governs a path in `classify.rs`, writing the effective
//! policy out in `render.rs`.

mod classify;
mod compiled;
mod glob_group;
mod load;
mod render;

pub(super) use classify::Governor;
pub use compiled::{Classification, Policy, PolicyError, Rule, UNMATCHED_ID};
pub use load::{PolicyDocument, RuleDocument};

#[cfg(test)]
mod tests;
