//! lldpd's `lldpcli -f json0 show neighbors details` (and `-f json`, which folds one-element
//! lists into objects and keys interfaces and chassis by name). lldpd 1.0.16 decodes no IEEE
//! 802.1Qaz TLV: they arrive as `unknown-tlvs` (`{"oui": "00,80,C2", "subtype": "11", "len":
//! "2", "value": "08,08"}`), which [`super::tlv`] decodes. No neighbour anywhere:
//! `{"lldp": {}}` (json) or `{"lldp": [{}]}` (json0). A port without a neighbour is not listed.

use serde_json::{Map, Value};

use super::lldptool::MAX_STRING;
use super::received::{Received, dialect, id_subtype, normalized_id};
use super::tlv::{self, Qaz};
use crate::lines::ParseError;
use crate::peer::{LldpId, Neighbour, PeerDcb};
use driftgate_snapshot::{UniqueKeysError, parse_unique};

/// The neighbours lldpd lists, by interface name, in its order.
pub type LldpdNeighbours = Vec<(String, Received)>;

/// Parses `lldpcli -f json0|json show neighbors details`.
pub fn parse_lldpcli(text: &str) -> Result<LldpdNeighbours, ParseError> {
    if text.trim().is_empty() {
        return Err(ParseError::whole("empty lldpcli output"));
    }
    // A key given twice in one object (two `name`s of one chassis) says two things of one
    // TLV: refused, not read as the last one.
    let root = parse_unique(text.as_bytes()).map_err(|e| match e {
        UniqueKeysError::Json(e) => ParseError::new(
            (e.line() > 0).then_some(e.line()),
            format!("lldpcli JSON: {e}"),
        ),
        UniqueKeysError::Duplicate(duplicate) => ParseError::whole(format!(
            "lldpcli JSON: {duplicate}: which one holds is not known"
        )),
    })?;
    let lldp = root
        .get("lldp")
        .ok_or_else(|| ParseError::whole("lldpcli JSON without its `lldp` object"))?;
    let lldp = one(lldp)
        .ok_or_else(|| ParseError::whole("`lldp` is neither an object nor a list of one"))?;
    let Some(interfaces) = lldp.get("interface") else {
        return if lldp.as_object().is_some_and(Map::is_empty) {
            Ok(Vec::new())
        } else {
            Err(ParseError::whole("`lldp` holds no `interface` list"))
        };
    };
    let mut out: LldpdNeighbours = Vec::new();
    for (name, interface) in interfaces_of(interfaces)? {
        let received = neighbour(interface)
            .map_err(|e| ParseError::whole(format!("interface {name:?}: {e}")))?;
        if out.iter().any(|(n, _)| *n == name) {
            return Err(ParseError::whole(format!(
                "interface {name:?} has more than one neighbour: which one carries its traffic is not known"
            )));
        }
        out.push((name, received));
    }
    Ok(out)
}

/// json0's `[x]` or json's `x`.
fn one(value: &Value) -> Option<&Value> {
    match value {
        Value::Array(items) if items.len() == 1 => items.first(),
        Value::Object(_) => Some(value),
        _ => None,
    }
}

/// An interface's name and its object.
type Interface<'a> = (String, &'a Map<String, Value>);

/// json0: a list of objects with `name`; json: `{name: {…}}` or a list of such objects.
fn interfaces_of(value: &Value) -> Result<Vec<Interface<'_>>, ParseError> {
    let bad = || ParseError::whole("`interface` is not a list of interfaces");
    let items: Vec<&Value> = match value {
        Value::Array(items) => items.iter().collect(),
        Value::Object(_) => vec![value],
        _ => return Err(bad()),
    };
    let mut out = Vec::new();
    for item in items {
        let map = item.as_object().ok_or_else(bad)?;
        match map.get("name").and_then(Value::as_str) {
            Some(name) => out.push((name.to_owned(), map)),
            None => {
                for (name, inner) in map {
                    out.push((name.clone(), inner.as_object().ok_or_else(bad)?));
                }
            }
        }
    }
    Ok(out)
}

/// A string, json0's `[{"value": "…"}]` or a `{"value": …}`; `None` for another shape. A list
/// of more than one is `what` given more than once, which one holds not known: an error.
fn text(value: &Value, what: &str) -> Result<Option<String>, String> {
    Ok(match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Array(items) if items.len() > 1 => {
            return Err(format!(
                "{what} is given {} times: IEEE 802.1AB allows one in an LLDPDU, so which one holds is not known",
                items.len()
            ));
        }
        Value::Array(items) => match items.first() {
            Some(item) => text(item, what)?,
            None => None,
        },
        Value::Object(map) => match map.get("value") {
            Some(value) => text(value, what)?,
            None => None,
        },
        _ => None,
    })
}

/// [`text`] of `map[key]`, when there; at most [`MAX_STRING`] bytes when `bounded` (an id, a
/// name or a description: 802.1AB allows 255 octets).
fn member(
    map: &Map<String, Value>,
    key: &str,
    what: &str,
    bounded: bool,
) -> Result<Option<String>, String> {
    let Some(value) = map.get(key) else {
        return Ok(None);
    };
    let found = text(value, what)?;
    match found {
        Some(found) if bounded && found.len() > MAX_STRING => Err(format!(
            "{what} holds {} bytes, more than the {MAX_STRING} IEEE 802.1AB allows",
            found.len()
        )),
        found => Ok(found),
    }
}

/// json0's `[x]` or json's `x` of `map[key]`, an object: `what` (the chassis, the port) given
/// twice is an error.
fn only<'a>(
    map: &'a Map<String, Value>,
    key: &str,
    what: &str,
) -> Result<Option<&'a Map<String, Value>>, String> {
    match map.get(key) {
        Some(Value::Array(items)) if items.len() > 1 => Err(format!(
            "{what} is given {} times: which one holds is not known",
            items.len()
        )),
        other => Ok(other.and_then(one).and_then(Value::as_object)),
    }
}

fn neighbour(interface: &Map<String, Value>) -> Result<Received, String> {
    let chassis = only(interface, "chassis", "the chassis")?.ok_or(
        "no `chassis`: the neighbour was dropped while lldpcli read it, or the output is cut",
    )?;
    // json keys the chassis by its name when it has one: `{"tor-a": {"id": …}}`.
    let (system_name, chassis) = match chassis.get("id") {
        Some(_) => (
            member(chassis, "name", "the System Name TLV", true)?,
            chassis,
        ),
        None => match chassis.iter().next() {
            Some((name, inner)) if chassis.len() == 1 => {
                if name.len() > MAX_STRING {
                    return Err(format!(
                        "the System Name TLV holds {} bytes, more than the {MAX_STRING} IEEE 802.1AB allows",
                        name.len()
                    ));
                }
                (
                    Some(name.clone()),
                    inner.as_object().ok_or("`chassis` is not an object")?,
                )
            }
            _ => return Err("`chassis` has no `id`".into()),
        },
    };
    member(chassis, "descr", "the System Description TLV", true)?;
    let port = only(interface, "port", "the port")?.ok_or(
        "no `port`: the neighbour was dropped while lldpcli read it, or the output is cut",
    )?;
    let chassis_id = lldp_id(chassis.get("id"), "chassis")?;
    let port_id = lldp_id(port.get("id"), "port")?;
    let ttl = match member(port, "ttl", "the Time to Live TLV", false)? {
        Some(ttl) => Some(u32::from(ttl.parse::<u16>().map_err(|_| {
            format!("`ttl` {ttl:?} is not a number of seconds (0-65535)")
        })?)),
        None => None,
    };
    let port_description = member(port, "descr", "the Port Description TLV", true)?;
    let mut dcb = PeerDcb::default();
    let (mut ieee, mut cee) = (false, false);
    for unknown in unknown_tlvs(interface)? {
        let field = |key: &str| {
            member(unknown, key, &format!("an unknown TLV's `{key}`"), false)?
                .ok_or_else(|| format!("an unknown TLV without `{key}`"))
        };
        let oui = tlv::hex_bytes(&field("oui")?)?;
        if oui == tlv::CEE {
            cee = true;
            continue;
        }
        if oui != tlv::IEEE_8021 {
            continue;
        }
        let subtype: u8 = field("subtype")?
            .parse()
            .map_err(|_| "an 802.1 TLV whose subtype is not a number".to_owned())?;
        let bytes = tlv::hex_bytes(&field("value")?)?;
        let len: usize = field("len")?
            .parse()
            .map_err(|_| "an 802.1 TLV whose `len` is not a number".to_owned())?;
        if len != bytes.len() {
            return Err(format!(
                "802.1 TLV subtype {subtype}: `len` {len} but {} bytes of value: cut short",
                bytes.len()
            ));
        }
        let twice = |what: &str| format!("a second {what} TLV: one LLDPDU has one");
        match tlv::decode(subtype, &bytes)? {
            Some(Qaz::EtsConfiguration(ets)) if dcb.ets_configuration.is_none() => {
                dcb.ets_configuration = Some(ets)
            }
            Some(Qaz::EtsRecommendation(ets)) if dcb.ets_recommendation.is_none() => {
                dcb.ets_recommendation = Some(ets)
            }
            Some(Qaz::Pfc(pfc)) if dcb.pfc.is_none() => dcb.pfc = Some(pfc),
            Some(Qaz::App(app)) if dcb.app.is_none() => dcb.app = Some(app),
            Some(Qaz::EtsConfiguration(_)) => return Err(twice("ETS Configuration")),
            Some(Qaz::EtsRecommendation(_)) => return Err(twice("ETS Recommendation")),
            Some(Qaz::Pfc(_)) => return Err(twice("PFC")),
            Some(Qaz::App(_)) => return Err(twice("APP")),
            None => continue,
        }
        ieee = true;
    }
    dcb.dcbx = Some(dialect(ieee, cee));
    Ok(Received {
        neighbour: Neighbour {
            chassis_id: Some(chassis_id),
            port_id: Some(port_id),
            system_name,
            port_description,
        },
        dcb,
        ttl,
    })
}

/// `{"type": "mac", "value": "…"}` (json0: in a list of one).
fn lldp_id(value: Option<&Value>, what: &str) -> Result<LldpId, String> {
    if let Some(Value::Array(items)) = value
        && items.len() > 1
    {
        return Err(format!(
            "the {what} id is given {} times: which one holds is not known",
            items.len()
        ));
    }
    let id = value
        .and_then(one)
        .and_then(Value::as_object)
        .ok_or_else(|| format!("the {what} has no `id`"))?;
    let subtype = member(id, "type", &format!("the {what} id's type"), false)?
        .ok_or_else(|| format!("the {what} id has no `type`"))?;
    let tlv = if what == "chassis" {
        "the Chassis ID TLV"
    } else {
        "the Port ID TLV"
    };
    let value =
        member(id, "value", tlv, true)?.ok_or_else(|| format!("the {what} id has no `value`"))?;
    let subtype = id_subtype(&subtype);
    Ok(LldpId {
        value: normalized_id(&subtype, &value),
        subtype,
    })
}

/// The `unknown-tlv` objects: json0 `[{"unknown-tlv": [...]}]`, json `{"unknown-tlv": [...]}`
/// or, with one TLV, `{"unknown-tlv": {...}}`.
fn unknown_tlvs(interface: &Map<String, Value>) -> Result<Vec<&Map<String, Value>>, String> {
    let Some(group) = interface.get("unknown-tlvs") else {
        return Ok(Vec::new());
    };
    let bad = || "`unknown-tlvs` is not a list of TLVs".to_owned();
    let list = one(group)
        .and_then(|g| g.get("unknown-tlv"))
        .ok_or_else(bad)?;
    match list {
        Value::Array(items) => items
            .iter()
            .map(|i| i.as_object().ok_or_else(bad))
            .collect(),
        Value::Object(map) => Ok(vec![map]),
        _ => Err(bad()),
    }
}
