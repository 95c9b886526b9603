//! The page's markup, written with `maud` (every `(value)` is escaped). The CSS and the script
//! are this folder's `page.css` and `page.js`, inline, each allowed by its SHA-256 in the
//! Content-Security-Policy and nothing else.

use base64::Engine as _;
use maud::{DOCTYPE, Markup, PreEscaped, html};
use sha2::{Digest as _, Sha256};

use super::model::{Group, Item, Page, Row, Section, VERDICTS};
use crate::document::{SettingChange, TimelineEntry};
use crate::fleet::cut;
use crate::why_column::WHY_CHARS;
use crate::wording::value_text;
use driftgate_compare::{Severity, Verdict};

const CSS: &str = include_str!("page.css");
const JS: &str = include_str!("page.js");

/// `'sha256-…'` of an inline element's text, as a CSP source.
fn csp_hash(text: &str) -> String {
    let digest = Sha256::digest(text.as_bytes());
    format!(
        "'sha256-{}'",
        base64::engine::general_purpose::STANDARD.encode(digest)
    )
}

/// Nothing loads but the page's own style and script; no form posts, no base URL.
fn content_security_policy() -> String {
    format!(
        "default-src 'none'; style-src {}; script-src {}; img-src data:; base-uri 'none'; form-action 'none'",
        csp_hash(CSS),
        csp_hash(JS)
    )
}

/// The page.
pub(super) fn markup(page: &Page<'_>) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta http-equiv="Content-Security-Policy" content=(content_security_policy());
                meta name="viewport" content="width=device-width, initial-scale=1";
                meta name="generator" content="driftgate";
                link rel="icon" href="data:,";
                title { (page.verdict.as_upper()) " " (page.title) }
                style { (PreEscaped(CSS)) }
            }
            body {
                header {
                    h1 {
                        span class=(verdict_class(page.verdict)) { (page.verdict.as_upper()) }
                        " " (page.title)
                    }
                    p.meta {
                        (page.kind)
                        @if let Some(started) = page.started_at { ", started " (started) }
                        @if let Some(finished) = page.finished_at { ", finished " (finished) }
                        @if let Some(run) = page.run { ", run " (run) }
                        @if page.strict { ", --strict: warnings block" }
                    }
                    @for said in &page.unreadable_times {
                        p.unreadable { (said) }
                    }
                }
                (summary(page))
                (hosts_table(&page.rows))
                @if !page.fleet_findings.is_empty() {
                    (fleet_findings(page))
                }
                @for section in &page.sections {
                    (host_section(section))
                }
                footer { "driftgate " (page.kind) " report; times are UTC (RFC 3339)." }
                script { (PreEscaped(JS)) }
            }
        }
    }
}

fn verdict_class(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Pass => "verdict v-pass",
        Verdict::Warn => "verdict v-warn",
        Verdict::Block => "verdict v-block",
        Verdict::Incomplete => "verdict v-incomplete",
    }
}

fn severity_class(severity: Severity) -> &'static str {
    match severity {
        Severity::Block => "sev s-block",
        Severity::Warn => "sev s-warn",
        Severity::Info | Severity::Ignore => "sev s-info",
    }
}

fn verdict_word(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Pass => "passed",
        Verdict::Warn => "with warnings",
        Verdict::Block => "blocked",
        Verdict::Incomplete => "incomplete",
    }
}

fn summary(page: &Page<'_>) -> Markup {
    let total: usize = page.counts.iter().map(|(_, n)| n).sum();
    html! {
        section.summary aria-label="hosts by verdict" {
            @for (verdict, n) in page.counts {
                button type="button" class=(verdict_class(verdict)) data-filter=(verdict.as_upper()) {
                    span.n data-count=(verdict.as_upper()) { (n) }
                    " " span.word { (verdict_word(verdict)) }
                }
            }
            button type="button" class="verdict v-all" data-filter="" {
                span.n data-count="TOTAL" { (total) }
                " " span.word { "hosts" }
            }
        }
    }
}

fn hosts_table(rows: &[Row<'_>]) -> Markup {
    html! {
        section.hosts {
            h2 { "Hosts" }
            div.controls {
                label { "Filter " input #filter-text type="search" placeholder="host, fleet or cluster" autocomplete="off"; }
                " "
                label { "Verdict "
                    select #filter-verdict {
                        option value="" { "any" }
                        @for verdict in VERDICTS {
                            option value=(verdict.as_upper()) { (verdict.as_upper()) }
                        }
                    }
                }
                " " span #shown aria-live="polite" { (rows.len()) " of " (rows.len()) " hosts" }
            }
            table #hosts {
                thead {
                    tr {
                        @for (i, (name, kind)) in [
                            ("host", "text"), ("fleet", "text"), ("cluster", "text"), ("verdict", "text"),
                            ("findings", "text"), ("why", "text"), ("capture time", "number"),
                            ("last success", "text"),
                        ].into_iter().enumerate() {
                            th aria-sort="none" {
                                button type="button" data-column=(i) data-kind=(kind) { (name) }
                            }
                        }
                    }
                }
                tbody {
                    @for row in rows {
                        tr data-host=(row.host) data-verdict=(row.verdict.as_upper()) {
                            td {
                                @match &row.anchor {
                                    Some(anchor) => a href={ "#" (anchor) } { (row.host) },
                                    None => (row.host),
                                }
                            }
                            td { (row.fleet) }
                            td { (row.cluster) }
                            td data-key=(verdict_rank(row.verdict)) {
                                span class=(verdict_class(row.verdict)) { (row.verdict.as_upper()) }
                            }
                            td data-key=(format!("{:08}{:08}{:08}", row.counts.block, row.counts.warn, row.counts.info)) {
                                (counts_text(row.counts))
                            }
                            @match &row.why {
                                Some(why) => td.reason title=(why) { (cut(why, WHY_CHARS)) },
                                None => td.reason {},
                            }
                            td.num data-key=(row.capture_ms.map_or(-1, i128::from)) {
                                @match row.capture_ms {
                                    Some(ms) => (seconds(ms)),
                                    None => "—",
                                }
                            }
                            td data-key=(row.last_success_at.map_or(-1, |t| t.as_second())) {
                                @match row.last_success_at {
                                    Some(at) => (at),
                                    None => "never",
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Sorts BLOCK, INCOMPLETE, WARN, PASS from the top when descending: the page's own order.
fn verdict_rank(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Pass => "0",
        Verdict::Warn => "1",
        Verdict::Incomplete => "2",
        Verdict::Block => "3",
    }
}

fn counts_text(c: driftgate_compare::Counts) -> String {
    let mut parts = Vec::new();
    for (n, word) in [(c.block, "block"), (c.warn, "warn"), (c.info, "info")] {
        if n > 0 {
            parts.push(format!("{n} {word}"));
        }
    }
    if parts.is_empty() {
        "none".to_owned()
    } else {
        parts.join(", ")
    }
}

/// `4.21 s`.
fn seconds(ms: u64) -> String {
    format!("{}.{:02} s", ms / 1000, (ms % 1000) / 10)
}

fn fleet_findings(page: &Page<'_>) -> Markup {
    html! {
        section.fleet {
            h2 { "Fleet findings (" (page.fleet_findings.len()) ")" }
            ul.findings {
                @for f in page.fleet_findings {
                    li {
                        span class=(severity_class(f.severity)) { (f.severity.as_str()) }
                        " " code { (f.rule) }
                        @if let Some(cluster) = &f.cluster { " cluster " (cluster) }
                        @if let Some(path) = &f.path { " " code { (path) } }
                        div.detail { (f.message) }
                        @if !f.hosts.is_empty() {
                            div.hosts { "hosts: " (f.hosts.join(", ")) }
                        }
                    }
                }
            }
        }
    }
}

fn host_section(s: &Section<'_>) -> Markup {
    html! {
        section.host id=(s.anchor) data-host=(s.host) data-verdict=(s.verdict.as_upper()) {
            h2 {
                span class=(verdict_class(s.verdict)) { (s.verdict.as_upper()) }
                " " (s.host)
            }
            p.headline { (s.headline) }
            p.meta {
                @if let Some(placement) = &s.placement { (placement) "; " }
                (s.captured)
            }
            @if let Some(failure) = &s.failure {
                div.failure {
                    strong { "Could not be read completely: " }
                    pre { (failure) }
                }
            }
            @for group in &s.groups { (group_markup(group)) }
            @if !s.pre_existing.is_empty() {
                h3 { "Pre-existing drift (" (s.pre_existing.iter().map(|i| i.paths.len()).sum::<usize>()) ")" }
                (items(&s.pre_existing))
            }
            @if !s.allowed.is_empty() {
                h3 { "Allowed (" (s.allowed.iter().flat_map(|(_, i)| i).map(|i| i.paths.len()).sum::<usize>()) ")" }
                @for (by, found) in &s.allowed {
                    p.allowance { (by) }
                    (items(found))
                }
            }
            @if !s.firmware.is_empty() {
                h3 { "Firmware changes (" (s.firmware.iter().map(|(_, p)| p.len()).sum::<usize>()) ")" }
                ul.firmware {
                    @for (change, paths) in &s.firmware {
                        li { (change) ": " code { (paths.join(", ")) } }
                    }
                }
            }
            @if !s.timeline.is_empty() {
                (timeline(s.timeline))
            }
        }
    }
}

fn group_markup(group: &Group<'_>) -> Markup {
    html! {
        div.group {
            h3 {
                span class=(severity_class(group.severity)) { (group.severity.as_str()) }
                " " (group.label)
            }
            @if let Some(headline) = group.headline { p.story { (headline) } }
            (items(&group.items))
        }
    }
}

fn items(found: &[Item<'_>]) -> Markup {
    html! {
        ul.findings {
            @for i in found {
                li {
                    span class=(severity_class(i.severity)) { (i.severity.as_str()) }
                    " " code.path { (i.paths.join(", ")) } " " code.rule { "[" (i.id) "]" }
                    div.detail { (i.detail) }
                    @if let Some(firmware) = &i.firmware { div.firmware { (firmware) } }
                    @if let Some(why) = i.why { div.why { "why: " (why) } }
                }
            }
        }
    }
}

fn timeline(entries: &[TimelineEntry]) -> Markup {
    html! {
        div.timeline {
            h3 { "Baseline timeline (" (entries.len()) " commits, newest first)" }
            ol.timeline {
                @for e in entries {
                    li {
                        div.when {
                            time datetime=(e.time.to_string()) { (e.time.to_string()) }
                            " " code.commit { (e.commit) }
                            @if let Some(run) = &e.run { " " span.run { "gate run " (run) } }
                            " by " (e.author)
                        }
                        div.summary { (e.summary) }
                        @if e.first { div.note { "created the baseline" } }
                        @if e.removed { div.note { "removed the baseline" } }
                        @if let Some(reason) = &e.unreadable {
                            div.note.unreadable { "could not be read: " (reason) }
                        }
                        @if !e.changes.is_empty() {
                            ul.changes { @for c in &e.changes { (setting(c)) } }
                        }
                        @if !e.firmware.is_empty() {
                            div.fwhead { "firmware changed in the same commit:" }
                            ul.changes { @for c in &e.firmware { (setting(c)) } }
                        }
                    }
                }
            }
        }
    }
}

fn setting(c: &SettingChange) -> Markup {
    let value = |v: &Option<driftgate_snapshot::FactValue>| value_text(v.as_ref());
    html! {
        li {
            span class=(severity_class(c.severity)) { (c.severity.as_str()) }
            " " code.path { (c.path.as_str()) } " "
            span.change { (value(&c.old)) " → " (value(&c.new)) }
        }
    }
}
