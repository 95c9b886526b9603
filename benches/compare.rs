//! Scaling of `compare::judge` with the number of facts: the time per fact must stay flat
//! (the compare is one merge pass plus per-fact policy lookups; nothing quadratic).
//!
//! Run: `cargo bench --bench compare`. Results go into BENCHMARKS.md with the machine.

#![allow(clippy::print_stdout)] // a benchmark report is its output

use std::time::Instant;

use driftgate::compare::{self, JudgeOptions, Policy};
use driftgate::snapshot::{
    FactPath, FactValue, Facts, HostName, Snapshot, SourceRecord, SourceStatus, VerifiedSnapshot,
};

/// A fleet-sized host: `ports` NICs with the seed-1 fact families, plus BIOS attributes.
fn snapshot(ports: usize, drift_every: usize) -> VerifiedSnapshot {
    let mut facts = Facts::new();
    let mut put = |p: String, v: FactValue| {
        facts.insert(FactPath::new(p).expect("bench paths are valid"), v);
    };
    for priority in 0..8 {
        put(
            format!("host/qos/flow_control/priority/{priority}"),
            (priority == 3).into(),
        );
    }
    for port in 0..ports {
        let n = format!(
            "nic/02:00:{:02x}:{:02x}:{:02x}:00",
            port >> 16 & 0xff,
            port >> 8 & 0xff,
            port & 0xff
        );
        let drifted = drift_every > 0 && port % drift_every == 0;
        put(
            format!("{n}/bmc/dcbx_mode"),
            if drifted { "disabled" } else { "ieee" }.into(),
        );
        put(format!("{n}/bmc/rdma_protocol"), "roce".into());
        put(format!("{n}/os/qos_enabled"), true.into());
        put(format!("{n}/os/dcbx_support/hardware"), "ieee".into());
        put(
            format!("{n}/os/dcbx_support/current"),
            if drifted { "none" } else { "ieee" }.into(),
        );
        for kind in ["max", "ets", "pfc"] {
            put(format!("{n}/os/num_tcs/current/{kind}"), 3.into());
        }
        for priority in 0..8 {
            put(
                format!("{n}/os/flow_control/operational/priority/{priority}"),
                (priority == 3).into(),
            );
        }
        put(
            format!("bios/Attribute{port}"),
            format!("value-{port}").into(),
        );
    }
    let snapshot = Snapshot {
        host: HostName::new("bench").expect("valid host"),
        captured_at: "2026-11-30T02:00:00Z".parse().expect("valid timestamp"),
        tool: "driftgate bench".into(),
        sources: vec![SourceRecord {
            name: "bench".into(),
            target: "memory".into(),
            status: SourceStatus::Complete,
            error: None,
        }],
        facts,
    };
    VerifiedSnapshot::parse(&snapshot.to_canonical_json(), "bench")
        .expect("bench snapshot verifies")
}

fn main() {
    let policy = Policy::builtin();
    println!(
        "{:>10} {:>12} {:>12} {:>10} {:>12}",
        "facts", "parse ms", "judge ms", "findings", "judge ns/fact"
    );
    for ports in [500, 5_000, 50_000] {
        let baseline = snapshot(ports, 0);
        let current = snapshot(ports, 100);
        let text = current.snapshot().to_canonical_json();
        let facts = current.snapshot().facts.len();
        let runs = 5;
        let mut parse_best = f64::MAX;
        let mut judge_best = f64::MAX;
        let mut findings = 0;
        for _ in 0..runs {
            let start = Instant::now();
            let parsed = VerifiedSnapshot::parse(&text, "bench").expect("parses");
            parse_best = parse_best.min(start.elapsed().as_secs_f64());
            let start = Instant::now();
            let report =
                compare::judge(&parsed, Some(&baseline), &policy, &JudgeOptions::default());
            judge_best = judge_best.min(start.elapsed().as_secs_f64());
            findings = report.findings.len();
        }
        println!(
            "{facts:>10} {:>12.1} {:>12.1} {findings:>10} {:>12.0}",
            parse_best * 1e3,
            judge_best * 1e3,
            judge_best * 1e9 / facts as f64
        );
    }
}
