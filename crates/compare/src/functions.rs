//! The name the BMC gives a network device function, for messages: a function's facts are
//! keyed by its MAC (`nic/<port>/bmc/function/<mac>/…`), which tells a reader little; the
//! BMC's name for it (`NIC.Slot.3-1-1`, `eth0f0`), its `function/<mac>/id` fact, does.

use driftgate_snapshot::{FactValue, Facts};

/// The BMC's name for the function a fact at `path` belongs to, when the path is a function's
/// and `facts` name it.
pub fn bmc_name<'f>(facts: &'f Facts, path: &str) -> Option<&'f str> {
    let (function, _) = path.split_once("/bmc/function/").and_then(|(port, rest)| {
        let (key, leaf) = rest.split_once('/')?;
        Some((format!("{port}/bmc/function/{key}/id"), leaf))
    })?;
    facts.get(function.as_str()).and_then(FactValue::as_text)
}

/// ` (function <name>)` after a function's fact path when the BMC names it, else nothing.
pub fn named(facts: &Facts, path: &str) -> String {
    bmc_name(facts, path).map_or_else(String::new, |name| format!(" (function {name})"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use driftgate_snapshot::FactPath;

    #[test]
    fn a_function_s_fact_is_named_by_the_bmc_s_name_for_it() {
        let mut facts = Facts::new();
        let key = "nic/00:0a:f7:12:34:56/bmc/function/00:0a:f7:12:34:56";
        facts.insert(
            FactPath::new(format!("{key}/id")).unwrap(),
            "NIC.Slot.3-1-1".into(),
        );
        let path = format!("{key}/pending/dcbx_mode");
        assert_eq!(bmc_name(&facts, &path), Some("NIC.Slot.3-1-1"));
        assert_eq!(named(&facts, &path), " (function NIC.Slot.3-1-1)");
        assert_eq!(named(&facts, "nic/00:0a:f7:12:34:56/bmc/dcbx_mode"), "");
        assert_eq!(
            named(&facts, "nic/00:0a:f7:12:34:57/bmc/function/x/dcbx_mode"),
            ""
        );
    }
}
