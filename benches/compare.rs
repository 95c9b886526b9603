//! Scaling of `driftgate_compare::judge` with the number of facts: the time per fact must stay flat
//! (the compare is one merge pass plus per-fact policy lookups; nothing quadratic).
//!
//! Then the realistic case: a pair of the real Dell capture (~907 facts) with a few mutations,
//! each phase of `check --all --snapshots` per pair against the serde_json parse floor.
//!
//! Run: `cargo bench --bench compare`. Results go into BENCHMARKS.md with the machine.

#![allow(clippy::print_stdout)] // a benchmark report is its output

use std::time::Instant;

use driftgate_compare::{JudgeOptions, Policy};
use driftgate_snapshot::{
    FactPath, FactValue, Facts, HostName, Snapshot, SnapshotDocument, SourceRecord, SourceStatus,
    VerifiedSnapshot,
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

fn main() -> anyhow::Result<()> {
    let policy = Policy::builtin();
    println!(
        "{:>10} {:>12} {:>12} {:>10} {:>12}",
        "facts", "parse ms", "judge ms", "findings", "judge ns/fact"
    );
    // `cargo bench --bench compare -- real` runs the realistic case alone (for a profile).
    let sizes: &[usize] = if std::env::args().any(|a| a == "real") {
        &[]
    } else {
        &[500, 5_000, 50_000]
    };
    for &ports in sizes {
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
            let report = driftgate_compare::judge(
                &parsed,
                Some(&baseline),
                &policy,
                &JudgeOptions::default(),
            );
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
    realistic()
}

/// Where the real Dell capture is read from: `DRIFTGATE_BENCH_DELL`, or `target/bench/dell.json`.
const DELL_HELP: &str = "capture it once: `driftgate mockup serve tests/fixtures/public/redfish/libredfish-dell --listen 127.0.0.1:PORT` then `driftgate capture --host dell01 --source redfish=http://127.0.0.1:PORT --out target/bench/dell.json` (or set DRIFTGATE_BENCH_DELL)";

/// The real Dell capture with the drift a firmware wave brings: a DCBX mode, a flow-control
/// setting, a firmware version, one fact gone and one new.
fn dell_pair() -> anyhow::Result<(String, String)> {
    let path = std::env::var("DRIFTGATE_BENCH_DELL")
        .unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/target/bench/dell.json").into());
    let text =
        std::fs::read_to_string(&path).map_err(|e| anyhow::anyhow!("{path}: {e}; {DELL_HELP}"))?;
    let baseline = VerifiedSnapshot::parse(&text, &path)?;
    let mut current = baseline.snapshot().clone();
    let facts = &mut current.facts;
    let mut mutate = |suffix: &str, value: FactValue| -> anyhow::Result<()> {
        let path = facts
            .keys()
            .find(|p| p.as_str().ends_with(suffix))
            .cloned()
            .ok_or_else(|| anyhow::anyhow!("{path}: no fact ending in {suffix}"))?;
        facts.insert(path, value);
        Ok(())
    };
    mutate("/dcbx_mode", "ieee".into())?;
    mutate("/bmc/flow_control/configured", "tx_rx".into())?;
    mutate("/bmc/firmware/version", "22.00.1".into())?;
    let gone = facts
        .keys()
        .find(|p| p.as_str().starts_with("bios/"))
        .cloned()
        .ok_or_else(|| anyhow::anyhow!("{path}: no bios/ fact"))?;
    facts.remove(&gone);
    facts.insert(
        FactPath::new("bios/attribute/BenchNewAttribute")?,
        "Enabled".into(),
    );
    Ok((text, current.to_canonical_json()))
}

/// Median seconds per call of `f` over `rounds` rounds of `iterations` calls.
fn per_call(rounds: usize, iterations: usize, mut f: impl FnMut()) -> f64 {
    let mut times: Vec<f64> = (0..rounds)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..iterations {
                f();
            }
            start.elapsed().as_secs_f64() / iterations as f64
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

/// Per pair of the real capture, each phase of `check --all --snapshots` and of
/// `baseline promote`, against the parse floor.
fn realistic() -> anyhow::Result<()> {
    let (old_text, new_text) = dell_pair()?;
    let policy = Policy::builtin();
    let options = JudgeOptions::default();
    let old = VerifiedSnapshot::parse(&old_text, "baseline")?;
    let new = VerifiedSnapshot::parse(&new_text, "snapshot")?;
    let report = driftgate_compare::judge(&new, Some(&old), &policy, &options);
    println!(
        "\nreal Dell capture pair: {} / {} facts, {} / {} bytes, {} findings (median of 7 rounds)",
        old.snapshot().facts.len(),
        new.snapshot().facts.len(),
        old_text.len(),
        new_text.len(),
        report.findings.len()
    );
    let (rounds, n) = (7, 200);
    let both = |f: &dyn Fn(&str)| {
        f(&old_text);
        f(&new_text);
    };
    let floor = per_call(rounds, n, || {
        both(&|t| {
            std::hint::black_box(
                serde_json::from_slice::<serde_json::Value>(t.as_bytes()).expect("JSON"),
            );
        })
    });
    let parse = per_call(rounds, n, || {
        both(&|t| {
            std::hint::black_box(VerifiedSnapshot::parse(t, "bench").expect("verifies"));
        })
    });
    let serde = per_call(rounds, n, || {
        both(&|t| {
            std::hint::black_box(serde_json::from_str::<SnapshotDocument>(t).expect("parses"));
        })
    });
    let digest = per_call(rounds, n, || {
        std::hint::black_box(old.snapshot().digest());
        std::hint::black_box(new.snapshot().digest());
    });
    let judge = per_call(rounds, n, || {
        std::hint::black_box(driftgate_compare::judge(
            &new,
            Some(&old),
            &policy,
            &options,
        ));
    });
    let judge_alone = per_call(rounds, n, || {
        std::hint::black_box(driftgate_compare::judge(&new, None, &policy, &options));
    });
    let canonical = per_call(rounds, n, || {
        std::hint::black_box(new.snapshot().to_canonical_json());
    });
    let us = |s: f64| s * 1e6;
    println!(
        "{:<58} {:>10} {:>8}",
        "phase (per pair unless noted)", "µs", "× floor"
    );
    let rows = [
        ("floor: serde_json::Value of both texts", floor),
        ("VerifiedSnapshot::parse of both", parse),
        ("  of which serde into SnapshotDocument", serde),
        ("  of which digest check (render + SHA-256)", digest),
        (
            "  of which duplicate-key scan (the rest)",
            (parse - serde - digest).max(0.0),
        ),
        (
            "driftgate_compare::judge against the baseline (check)",
            judge,
        ),
        (
            "driftgate_compare::judge without baseline (promote refusal)",
            judge_alone,
        ),
        ("canonical JSON + digest, one snapshot", canonical),
        ("check --all pair: parse both + judge", parse + judge),
    ];
    for (name, secs) in rows {
        println!("{name:<58} {:>10.1} {:>8.2}", us(secs), secs / floor);
    }
    Ok(())
}
