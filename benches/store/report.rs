//! The Markdown table: every driftgate figure beside its peer's, the ratio, the target
//! and whether it is met; then the per-host flatness across the sizes.

use std::time::Duration;

/// One driftgate figure and its peer's, measured in the same run on the same data.
pub(crate) struct Line {
    /// What was done, e.g. `promote N new baselines (one commit)`.
    pub work: &'static str,
    /// Hosts in the store (or promoted).
    pub hosts: usize,
    /// driftgate's median.
    pub driftgate: Duration,
    /// The peer, as a user would type it.
    pub peer_name: &'static str,
    /// The peer's median.
    pub peer: Duration,
    /// Whether time per host is part of the target (promote, bulk read).
    pub per_host: bool,
    /// The largest driftgate/peer ratio the issue accepts; `None` for a row shown for
    /// context (reading and parsing: the target is on the read).
    pub max_ratio: Option<f64>,
    /// How the figure was obtained, when that is not the plain median.
    pub note: Option<String>,
}

impl Line {
    fn ratio(&self) -> f64 {
        self.driftgate.as_secs_f64() / self.peer.as_secs_f64()
    }
}

/// The whole report.
pub(crate) fn markdown(lines: &[Line], runs: usize, header: &str) -> String {
    let mut out = String::new();
    out.push_str(header);
    out.push_str(&format!(
        "\n\nMedians of {runs} runs, whole processes unless marked in process; ratio = driftgate / peer.\n\n"
    ));
    out.push_str("| work | hosts | driftgate | peer | peer time | driftgate per host | peer per host | ratio | target | met |\n");
    out.push_str("|---|---:|---:|---|---:|---:|---:|---:|---|---|\n");
    let mut notes = Vec::new();
    for line in lines {
        let per_host = |d: Duration| {
            if line.per_host {
                time(d / u32::try_from(line.hosts).expect("host counts fit in u32"))
            } else {
                "—".to_owned()
            }
        };
        let mark = match &line.note {
            Some(note) => {
                notes.push(note.clone());
                format!(" [{}]", notes.len())
            }
            None => String::new(),
        };
        out.push_str(&format!(
            "| {} | {} | {} | {}{mark} | {} | {} | {} | {:.2}× | {} | {} |\n",
            line.work,
            thousands(line.hosts),
            time(line.driftgate),
            line.peer_name,
            time(line.peer),
            per_host(line.driftgate),
            per_host(line.peer),
            line.ratio(),
            line.max_ratio
                .map_or("—".to_owned(), |max| format!("≤ {max}×")),
            line.max_ratio.map_or("—", |max| met(line.ratio() <= max)),
        ));
    }
    for (i, note) in notes.iter().enumerate() {
        out.push_str(&format!("\n[{}] {note}\n", i + 1));
    }
    out.push_str(&flatness(lines));
    out
}

/// driftgate's time per host at the largest size against the smallest, for each per-host row:
/// the issue wants it flat within 30 %.
fn flatness(lines: &[Line]) -> String {
    let mut works: Vec<(&str, &str)> = Vec::new();
    for line in lines.iter().filter(|l| l.per_host) {
        if !works.contains(&(line.work, line.peer_name)) {
            works.push((line.work, line.peer_name));
        }
    }
    let mut out = String::new();
    for (work, peer) in works {
        let of = |l: &&Line| l.per_host && l.work == work && l.peer_name == peer;
        let smallest = lines.iter().filter(of).min_by_key(|l| l.hosts);
        let largest = lines.iter().filter(of).max_by_key(|l| l.hosts);
        let (Some(small), Some(large)) = (smallest, largest) else {
            continue;
        };
        if small.hosts == large.hosts {
            continue;
        }
        if out.is_empty() {
            out.push_str(
                "\nTime per host, smallest against largest size (target: flat within 30 %):\n\n",
            );
            out.push_str("| work | hosts | driftgate per host | growth | peer per host | peer growth | met |\n");
            out.push_str("|---|---|---:|---:|---:|---:|---|\n");
        }
        let each = |l: &Line, d: Duration| d.as_secs_f64() / l.hosts as f64;
        let growth = each(large, large.driftgate) / each(small, small.driftgate);
        let peer_growth = each(large, large.peer) / each(small, small.peer);
        out.push_str(&format!(
            "| {work} | {} → {} | {} → {} | {:+.0} % | {} → {} | {:+.0} % | {} |\n",
            thousands(small.hosts),
            thousands(large.hosts),
            time(Duration::from_secs_f64(each(small, small.driftgate))),
            time(Duration::from_secs_f64(each(large, large.driftgate))),
            (growth - 1.0) * 100.0,
            time(Duration::from_secs_f64(each(small, small.peer))),
            time(Duration::from_secs_f64(each(large, large.peer))),
            (peer_growth - 1.0) * 100.0,
            met(growth <= 1.3),
        ));
    }
    out
}

fn met(yes: bool) -> &'static str {
    if yes { "met" } else { "**NOT MET**" }
}

/// `1.23 s`, `45.6 ms`, `789 µs`.
pub(crate) fn time(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s >= 1.0 {
        format!("{s:.2} s")
    } else if s >= 0.001 {
        format!("{:.1} ms", s * 1e3)
    } else {
        format!("{:.0} µs", s * 1e6)
    }
}

/// `10,000`.
pub(crate) fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
