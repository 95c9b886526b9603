//! A plan as text for a change ticket, and as scripts per host and layer that a change
//! process can review and run (`--emit-scripts DIR`).

use std::fmt::Write as _;

use super::model::{Action, Effect, HostPlan, Layer, Plan, Shell, Step};
use super::quote;

/// The plan as text: per host its steps (from → to, reboot, risk, verification, exactly
/// what is sent or run), what follows from them, and what no setting fixes. Every value is
/// shown on its own line, its control characters and line separators visible (`\u{a}`): a
/// value cannot add a line to the plan a ticket or a confirmation shows.
pub fn text(plan: &Plan) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "driftgate fix plan — {}", shown(&plan.made_from));
    if plan.hosts.is_empty() {
        out.push_str("\nNothing to fix: no blocking finding.\n");
    }
    for host in &plan.hosts {
        let _ = writeln!(out, "\n## {}", shown(&host.host));
        if let Some(why) = &host.unread {
            let _ = writeln!(out, "   its BMC could not be read: {}", shown(why));
        }
        if host.steps.is_empty() {
            out.push_str("   no step\n");
        }
        for step in &host.steps {
            step_text(&mut out, step);
        }
        if !host.effects.is_empty() {
            out.push_str("\n   Follows from a setting (verified with it):\n");
            for (scope, effects) in by_scope(&host.effects) {
                let follows: Vec<&str> = effects
                    .iter()
                    .flat_map(|e| e.follows.iter().map(String::as_str))
                    .fold(Vec::new(), |mut all, id| {
                        if !all.contains(&id) {
                            all.push(id);
                        }
                        all
                    });
                let unfixed = host
                    .not_fixable
                    .iter()
                    .any(|n| crate::known_good::scope(n.fact.as_str()) == scope);
                let from = match (follows.is_empty(), unfixed) {
                    (false, _) => format!("steps {}", follows.join(", ")),
                    (true, true) => {
                        "the setting of the same port below, which this plan does not fix"
                            .to_owned()
                    }
                    (true, false) => "no step of this plan: investigate".to_owned(),
                };
                let _ = writeln!(out, "   - {} ← {}:", shown(scope), shown(&from));
                for effect in effects {
                    let leaf = effect
                        .fact
                        .as_str()
                        .strip_prefix(scope)
                        .unwrap_or(effect.fact.as_str());
                    let _ = writeln!(
                        out,
                        "       {} ({})",
                        shown(leaf.trim_start_matches('/')),
                        shown(&effect.findings.join(", "))
                    );
                }
            }
        }
        if !host.not_fixable.is_empty() {
            out.push_str("\n   Not fixed by a setting:\n");
            for item in &host.not_fixable {
                let now = item
                    .now
                    .as_ref()
                    .map_or_else(|| "absent".to_owned(), ToString::to_string);
                let _ = writeln!(
                    out,
                    "   - {} = {} ({}): {}",
                    shown(&item.fact),
                    shown(&now),
                    shown(&item.findings.join(", ")),
                    shown(&item.why)
                );
            }
        }
    }
    out
}

fn step_text(out: &mut String, step: &Step) {
    let _ = writeln!(
        out,
        "\n   [{}] {} — {}",
        shown(&step.id),
        step.layer.as_str(),
        shown(&step.summary)
    );
    for change in &step.changes {
        let from = change
            .from
            .as_ref()
            .map_or_else(|| "absent".to_owned(), ToString::to_string);
        let _ = writeln!(
            out,
            "       {}: {} → {} (known good: {}; findings {})",
            shown(&change.fact),
            shown(&from),
            shown(&change.to),
            shown(&change.known_good),
            shown(&change.findings.join(", "))
        );
    }
    let reboot = if step.reboot {
        "needs a reboot"
    } else {
        "no reboot"
    };
    let _ = writeln!(
        out,
        "       {reboot}; risk {:?}: {}",
        step.risk,
        shown(&step.risk_note)
    );
    match &step.action {
        Action::RedfishPatch(patch) => {
            let _ = writeln!(out, "       PATCH {}", shown(&patch.settings));
            let body = serde_json::to_string_pretty(&patch.body).unwrap_or_default();
            for line in body.lines() {
                let _ = writeln!(out, "         {}", shown(line));
            }
            let supported = if patch.supported_apply_times.is_empty() {
                "not listed".to_owned()
            } else {
                patch.supported_apply_times.join(", ")
            };
            let _ = writeln!(
                out,
                "       apply time {} (supported: {}); values checked against {}",
                shown(&patch.apply_time),
                shown(&supported),
                shown(&patch.registry)
            );
            for then in &patch.then {
                let _ = writeln!(out, "       then: {}", shown(then));
            }
        }
        Action::Commands(commands) => {
            for line in &commands.lines {
                let _ = writeln!(out, "       $ {}", shown(line));
            }
        }
    }
    let _ = writeln!(out, "       verify: {}", shown(&step.verify));
}

/// The scripts of a plan: `(file name, text)`, one per host and OS layer
/// (`<host>-esxi.sh`, `<host>-linux.sh`, `<host>-windows.ps1`) and one per host for its BMC
/// (`<host>-bmc.sh`: the requests as `curl` lines reading the account from the environment,
/// for a change process that sends them itself). Each stops at the first failing line.
pub fn script_files(plan: &Plan) -> Vec<(String, String)> {
    let mut files = Vec::new();
    for host in &plan.hosts {
        for layer in [Layer::Bmc, Layer::Esxi, Layer::Linux, Layer::Windows] {
            let steps: Vec<&Step> = host.steps.iter().filter(|s| s.layer == layer).collect();
            if steps.is_empty() {
                continue;
            }
            let (name, text) = match layer {
                Layer::Windows => (
                    format!("{}-windows.ps1", host.host),
                    powershell(host, &steps, &plan.made_from),
                ),
                _ => (
                    format!("{}-{}.sh", host.host, layer.as_str()),
                    shell(host, layer, &steps, &plan.made_from),
                ),
            };
            files.push((name, text));
        }
    }
    files
}

fn shell(host: &HostPlan, layer: Layer, steps: &[&Step], made_from: &str) -> String {
    let mut out = String::from("#!/bin/sh\n");
    let _ = writeln!(
        out,
        "# driftgate fix plan for {} ({}), layer {}: review, then run on the host.",
        quote::comment(&host.host),
        quote::comment(made_from),
        layer.as_str()
    );
    out.push_str("set -eu\n");
    if layer == Layer::Bmc {
        out.push_str(": \"${BMC:?set BMC to https://<bmc address>}\"\n");
        out.push_str(": \"${DRIFTGATE_BMC_USERNAME:?}\" \"${DRIFTGATE_BMC_PASSWORD:?}\"\n");
        // The account stays in this shell's own variables: no command it runs inherits it.
        out.push_str("bmc_user=$DRIFTGATE_BMC_USERNAME bmc_password=$DRIFTGATE_BMC_PASSWORD\n");
        out.push_str("unset DRIFTGATE_BMC_USERNAME DRIFTGATE_BMC_PASSWORD\n");
        out.push_str("case $bmc_user in *:*) echo 'DRIFTGATE_BMC_USERNAME holds a colon, which HTTP Basic authentication cannot carry' >&2; exit 2 ;; esac\n");
        out.push_str(quote::SH_CURL_ACCOUNT);
    }
    for step in steps {
        let _ = writeln!(
            out,
            "\n# [{}] {}",
            quote::comment(&step.id),
            quote::comment(&step.summary)
        );
        match &step.action {
            Action::Commands(commands) if commands.shell == Shell::Sh => {
                for line in &commands.lines {
                    match quote::sh(&format!("+ {line}")) {
                        // printf, not echo: dash's echo reads backslashes as escapes.
                        Ok(shown) => {
                            let _ = writeln!(out, "printf '%s\\n' {shown}");
                            let _ = writeln!(out, "{line}");
                        }
                        Err(why) => refuse(&mut out, &why),
                    }
                }
            }
            Action::RedfishPatch(patch) => {
                let body = serde_json::to_string(&patch.body).unwrap_or_default();
                // The account goes to curl on its standard input, written by the shell's own
                // printf, never on a command line that `ps` shows. curl's URL globbing is off:
                // `[]{}` in a URI are data.
                match (quote::sh(&body), quote::sh(&patch.settings)) {
                    (Ok(body), Ok(settings)) => {
                        let _ = writeln!(
                            out,
                            "curl_account | curl --config - --globoff --fail-with-body -sS -X PATCH -H 'Content-Type: application/json' --data-raw {body} \"$BMC\"{settings}"
                        );
                    }
                    (Err(why), _) | (_, Err(why)) => refuse(&mut out, &why),
                }
            }
            Action::Commands(_) => {}
        }
    }
    out
}

/// A line that stops the script where a step's value cannot be carried, naming it.
fn refuse(out: &mut String, why: &quote::Unquotable) {
    let said = quote::sh(&format!("refused: {why}")).unwrap_or_default();
    let _ = writeln!(out, "printf '%s\\n' {said} >&2; exit 1");
}

fn powershell(host: &HostPlan, steps: &[&Step], made_from: &str) -> String {
    // A UTF-8 byte order mark: without one, Windows PowerShell 5.1 reads a script in the ANSI
    // code page, where bytes inside UTF-8 characters are quotes (`ђ` is D1 92, and 0x92 is `’`
    // in Windows-1252), and a string would end where its quoting did not double a quote.
    let mut out = String::from('\u{feff}');
    let _ = writeln!(
        out,
        "# driftgate fix plan for {} ({}), layer windows: review, then run on the host.",
        quote::comment(&host.host),
        quote::comment(made_from)
    );
    out.push_str("$ErrorActionPreference = 'Stop'\n");
    for step in steps {
        let _ = writeln!(
            out,
            "\n# [{}] {}",
            quote::comment(&step.id),
            quote::comment(&step.summary)
        );
        if let Action::Commands(commands) = &step.action {
            for line in &commands.lines {
                let _ = writeln!(out, "{line}");
            }
        }
    }
    out
}

/// `value` as the text plan shows it: one line, its control characters visible.
fn shown(value: &(impl std::fmt::Display + ?Sized)) -> String {
    quote::comment(&value.to_string())
}

/// Effects grouped by the port or device they are on, in order.
fn by_scope(effects: &[Effect]) -> Vec<(&str, Vec<&Effect>)> {
    let mut groups: Vec<(&str, Vec<&Effect>)> = Vec::new();
    for effect in effects {
        let scope = crate::known_good::scope(effect.fact.as_str());
        match groups.iter_mut().find(|(s, _)| *s == scope) {
            Some((_, list)) => list.push(effect),
            None => groups.push((scope, vec![effect])),
        }
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Commands, RedfishPatch, Risk};

    fn step(id: &str, layer: Layer, action: Action) -> Step {
        Step {
            id: id.to_owned(),
            layer,
            summary: "x\ny".to_owned(),
            changes: Vec::new(),
            reboot: false,
            risk: Risk::Low,
            risk_note: String::new(),
            verify: String::new(),
            action,
        }
    }

    #[test]
    fn a_value_no_script_can_carry_stops_the_script_and_the_text_shows_it() {
        let patch = RedfishPatch {
            resource: "/r".to_owned(),
            settings: "/r/Settings\0".to_owned(),
            apply_time: "OnReset".to_owned(),
            supported_apply_times: Vec::new(),
            registry: String::new(),
            body: serde_json::json!({"Attributes": {"A\0": "B\0"}}),
            then: Vec::new(),
        };
        let lines = Commands {
            shell: Shell::Sh,
            lines: vec!["esxcli x\0".to_owned()],
        };
        let plan = Plan {
            schema: String::new(),
            tool: String::new(),
            made_from: "snapshot a\nrm -rf ~".to_owned(),
            hosts: vec![HostPlan {
                host: "h".to_owned(),
                steps: vec![
                    step("bmc-1", Layer::Bmc, Action::RedfishPatch(patch)),
                    step("esxi-1", Layer::Esxi, Action::Commands(lines)),
                ],
                not_fixable: Vec::new(),
                effects: Vec::new(),
                unread: None,
            }],
        };
        let files = script_files(&plan);
        let bmc = &files[0].1;
        assert!(
            bmc.contains(
                r"printf '%s\n' 'refused: /r/Settings\u{0} holds a NUL byte, which no command line can carry' >&2; exit 1"
            ),
            "{bmc}"
        );
        assert!(!bmc.contains("curl_account |"), "{bmc}");
        assert!(bmc.contains(r"(snapshot a\u{a}rm -rf ~)"), "{bmc}");
        assert!(bmc.contains(r"# [bmc-1] x\u{a}y"), "{bmc}");
        assert!(!bmc.contains('\0'));
        let shown = text(&plan);
        assert!(
            shown.contains(r"[bmc-1] bmc — x\u{a}y") && shown.contains(r"$ esxcli x\u{0}"),
            "{shown}"
        );
        assert!(
            !shown.contains("\ny") && !shown.contains("\nrm -rf"),
            "{shown}"
        );
        let esxi = &files[1].1;
        assert!(esxi.contains("exit 1") && !esxi.contains('\0'), "{esxi}");
    }
}
