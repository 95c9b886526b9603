//! Open-LLDP's `lldptool -t -n -i IF`: every TLV the neighbour on IF sent, one block per TLV,
//! a header line (`IEEE 8021QAZ PFC TLV`) and its tab-indented lines:
//!
//! ```text
//! IEEE 8021QAZ PFC TLV
//! <TAB> Willing: no
//! <TAB> MACsec Bypass Capable: no
//! <TAB> PFC capable traffic classes: 8
//! <TAB> PFC enabled: 3
//! ```
//!
//! `PFC enabled:` lists priorities with a trailing space, or says `none`. No neighbour: no
//! output at all (exit status 0). `-V PFC` (`ETS-CFG`, `ETS-REC`, `APP`) prints one of these
//! blocks alone; the whole listing holds the same blocks.

use driftgate_model::AppSelector;

use super::received::{Received, dialect, id_subtype, normalized_id, unbalanced};
use crate::lines::ParseError;
use crate::lines::numbered_lines;
use crate::nic::DcbTables;
use crate::peer::{AppEntry, Ets, LldpId, Neighbour, PeerDcb, Pfc};

/// One TLV block: its header, the header's line and its lines (trimmed, with line numbers).
struct Block<'a> {
    header: &'a str,
    line: usize,
    body: Vec<(usize, &'a str)>,
    /// Whether the listing ends with it.
    last: bool,
}

impl Block<'_> {
    /// The one line a single-valued TLV (an id, the TTL, a name) has.
    fn single(&self) -> Result<(usize, &str), ParseError> {
        match self.body.as_slice() {
            [one] => Ok(*one),
            _ => Err(ParseError::at(
                self.line,
                format!(
                    "{}: expected one line, found {}",
                    self.header,
                    self.body.len()
                ),
            )),
        }
    }

    /// The value of each `key: value` line, by key, for the TLVs made of such lines; every
    /// key in `keys` must be there.
    fn fields<const N: usize>(&self, keys: [&str; N]) -> Result<[(usize, &str); N], ParseError> {
        let mut found: [Option<(usize, &str)>; N] = [None; N];
        for (number, line) in &self.body {
            let (key, value) = line.split_once(':').ok_or_else(|| {
                ParseError::at(
                    *number,
                    format!("{}: expected `key: value`, found {line:?}", self.header),
                )
            })?;
            let Some(slot) = keys.iter().position(|k| *k == key.trim()) else {
                return Err(ParseError::at(
                    *number,
                    format!("{}: unknown field {:?}", self.header, key.trim()),
                ));
            };
            found[slot] = Some((*number, value.trim()));
        }
        let mut out = [(0, ""); N];
        for (slot, (value, key)) in out.iter_mut().zip(found.into_iter().zip(keys)) {
            *slot = value.ok_or_else(|| {
                ParseError::at(
                    self.line,
                    format!("{}: no `{key}:` line (the TLV is cut short)", self.header),
                )
            })?;
        }
        Ok(out)
    }
}

/// The TLVs IEEE 802.1AB allows once in an LLDPDU (its base TLVs but Management Address, and
/// the organisationally specific ones driftgate knows that lldptool lists), as lldptool heads
/// them. A second one says two things of one port: which holds is not for the reader to pick.
const ONCE: [&str; 13] = [
    "Chassis ID TLV",
    "Port ID TLV",
    "Time to Live TLV",
    "Port Description TLV",
    "System Name TLV",
    "System Description TLV",
    "System Capabilities TLV",
    "MAC/PHY Configuration Status TLV",
    "Link Aggregation TLV",
    "IEEE 8021QAZ ETS Configuration TLV",
    "IEEE 8021QAZ ETS Recommendation TLV",
    "IEEE 8021QAZ PFC TLV",
    "IEEE 8021QAZ APP TLV",
];

/// The TLVs whose value is one string of at most [`MAX_STRING`] octets (802.1AB 8.5.2–8.5.7:
/// an id's 1–255 octets after its subtype, a description's or a name's 0–255).
const STRINGS: [&str; 5] = [
    "Chassis ID TLV",
    "Port ID TLV",
    "Port Description TLV",
    "System Name TLV",
    "System Description TLV",
];

/// The longest string 802.1AB allows in a TLV of [`STRINGS`].
pub(super) const MAX_STRING: usize = 255;

/// The most lines one TLV block may have: a TLV holds at most 511 octets of information
/// (its length is 9 bits), and lldptool prints no line without one.
const MAX_LINES: usize = 511;

/// The TLVs an LLDPDU starts with, in their order.
const MANDATORY: [&str; 3] = ["Chassis ID TLV", "Port ID TLV", "Time to Live TLV"];

/// Parses the whole listing of one port: `Ok(None)` when it is empty (no neighbour). The
/// blocks are read one at a time and the first that breaks a rule ends the parse, so a listing
/// of 200,000 TLVs costs no more memory than its text.
pub fn parse_lldptool(text: &str) -> Result<Option<Received>, ParseError> {
    if text.trim().is_empty() {
        return Ok(None);
    }
    let mut listing = Listing::default();
    let mut given: Vec<&str> = Vec::new();
    let mut last: Option<(usize, &str)> = None;
    let mut count = 0;
    for (index, block) in blocks(text).enumerate() {
        count = index + 1;
        let block = block?;
        if let Some(end) = listing.end {
            return Err(ParseError::at(
                end,
                "`End of LLDPDU TLV` before the last TLV",
            ));
        }
        if let Some(header) = MANDATORY.get(index)
            && block.header != *header
        {
            return Err(ParseError::at(
                block.line,
                format!(
                    "expected the {header} (an LLDPDU starts with Chassis ID, Port ID and Time to Live), found {:?}",
                    block.header
                ),
            ));
        }
        last = Some((block.line, block.header));
        // A listing cut inside its last TLV is said to be cut, not that TLV to be wrong.
        if block.last && block.header != "End of LLDPDU TLV" {
            break;
        }
        once(&block, &mut given)?;
        string_length(&block)?;
        listing.read(&block)?;
    }
    listing.finish(last, count)
}

/// A TLV of [`ONCE`] given a second time is an error; else it is noted in `given`.
fn once<'a>(block: &Block<'a>, given: &mut Vec<&'a str>) -> Result<(), ParseError> {
    if ONCE.contains(&block.header) {
        if given.contains(&block.header) {
            return Err(ParseError::at(
                block.line,
                format!(
                    "a second {}: IEEE 802.1AB allows one in an LLDPDU, so which one holds is not known",
                    block.header
                ),
            ));
        }
        given.push(block.header);
    }
    Ok(())
}

/// A string TLV of [`STRINGS`] longer than [`MAX_STRING`] octets is an error.
fn string_length(block: &Block<'_>) -> Result<(), ParseError> {
    if !STRINGS.contains(&block.header) {
        return Ok(());
    }
    // An id is printed after its subtype (`Local: `), which is no octet of it.
    let id = block.header.ends_with("ID TLV");
    let octets: usize = block
        .body
        .iter()
        .map(|(_, line)| match line.split_once(": ") {
            Some((_, value)) if id => value.len(),
            _ => line.len(),
        })
        .sum();
    if octets > MAX_STRING {
        return Err(ParseError::at(
            block.line,
            format!(
                "{} holds {octets} bytes, more than the {MAX_STRING} IEEE 802.1AB allows",
                block.header
            ),
        ));
    }
    Ok(())
}

/// What the blocks of a listing gave so far.
#[derive(Default)]
struct Listing {
    neighbour: Neighbour,
    ttl: Option<u32>,
    dcb: PeerDcb,
    /// Whether an IEEE DCBX TLV was given.
    ieee: bool,
    /// Whether a CEE (or CIN) DCBX TLV was given.
    cee: bool,
    /// The line of `End of LLDPDU TLV`, once given.
    end: Option<usize>,
}

impl Listing {
    /// Reads one block's TLV into what the listing gave.
    fn read(&mut self, block: &Block<'_>) -> Result<(), ParseError> {
        match block.header {
            "Chassis ID TLV" => self.neighbour.chassis_id = Some(id(block)?),
            "Port ID TLV" => self.neighbour.port_id = Some(id(block)?),
            "Time to Live TLV" => {
                let (number, value) = block.single()?;
                self.ttl = Some(value.parse::<u16>().map(u32::from).map_err(|_| {
                    ParseError::at(
                        number,
                        format!("expected the TTL in seconds (0-65535), found {value:?}"),
                    )
                })?);
            }
            "System Name TLV" => self.neighbour.system_name = Some(block.single()?.1.to_owned()),
            "Port Description TLV" => {
                self.neighbour.port_description = Some(block.single()?.1.to_owned())
            }
            "IEEE 8021QAZ ETS Configuration TLV" => {
                self.ieee = true;
                self.dcb.ets_configuration = Some(ets_configuration(block)?);
            }
            "IEEE 8021QAZ ETS Recommendation TLV" => {
                self.ieee = true;
                self.dcb.ets_recommendation = Some(ets_recommendation(block)?);
            }
            "IEEE 8021QAZ PFC TLV" => {
                self.ieee = true;
                self.dcb.pfc = Some(pfc(block)?);
            }
            "IEEE 8021QAZ APP TLV" => {
                self.ieee = true;
                self.dcb.app = Some(app(block)?);
            }
            "End of LLDPDU TLV" => self.end = Some(block.line),
            header if header.contains("CEE DCBX") || header.contains("CIN DCBX") => self.cee = true,
            header if header.contains("8021QAZ") || header.contains("DCBX") => {
                return Err(ParseError::at(
                    block.line,
                    format!(
                        "{header:?}: a DCB TLV driftgate does not read, so what the neighbour advertises is not known in full"
                    ),
                ));
            }
            // Identity and link TLVs that carry no DCB (capabilities, management address,
            // MAC/PHY, VLANs, LLDP-MED, vendors' own).
            _ => {}
        }
        Ok(())
    }

    /// What the listing received, once its `count` blocks are read, the last (`last`: its
    /// line and header) the one it ends with: an LLDPDU not begun or not ended is an error.
    fn finish(
        self,
        last: Option<(usize, &str)>,
        count: usize,
    ) -> Result<Option<Received>, ParseError> {
        match last {
            None => Ok(None),
            Some((line, _)) if count < MANDATORY.len() => Err(ParseError::at(
                line,
                format!(
                    "expected the {} (an LLDPDU starts with Chassis ID, Port ID and Time to Live), found the end of the listing",
                    MANDATORY[count]
                ),
            )),
            Some((line, header)) if self.end.is_none() => Err(ParseError::at(
                line,
                format!(
                    "the listing ends in the {header} without `End of LLDPDU TLV`: it is cut short"
                ),
            )),
            Some(_) => {
                let mut dcb = self.dcb;
                dcb.dcbx = Some(dialect(self.ieee, self.cee));
                Ok(Some(Received {
                    neighbour: self.neighbour,
                    dcb,
                    ttl: self.ttl,
                }))
            }
        }
    }
}

/// The listing's TLV blocks, one at a time.
struct Blocks<I: Iterator> {
    lines: std::iter::Peekable<I>,
}

/// The blocks of `text`.
fn blocks(text: &str) -> Blocks<impl Iterator<Item = (usize, &str)>> {
    Blocks {
        lines: numbered_lines(text)
            .filter(|(_, line)| !line.trim().is_empty())
            .peekable(),
    }
}

fn indented(line: &str) -> bool {
    line.starts_with(['\t', ' '])
}

impl<'a, I: Iterator<Item = (usize, &'a str)>> Iterator for Blocks<I> {
    type Item = Result<Block<'a>, ParseError>;

    fn next(&mut self) -> Option<Self::Item> {
        let (number, line) = self.lines.next()?;
        if indented(line) {
            return Some(Err(ParseError::at(
                number,
                format!("a TLV line before any TLV header: {:?}", line.trim()),
            )));
        }
        let mut block = Block {
            header: line.trim(),
            line: number,
            body: Vec::new(),
            last: false,
        };
        while let Some((number, line)) = self.lines.next_if(|(_, line)| indented(line)) {
            if block.body.len() == MAX_LINES {
                return Some(Err(ParseError::at(
                    number,
                    format!(
                        "{}: more than {MAX_LINES} lines, more than a TLV of 511 octets can print",
                        block.header
                    ),
                )));
            }
            block.body.push((number, line.trim()));
        }
        block.last = self.lines.peek().is_none();
        Some(Ok(block))
    }
}

/// `MAC: 02:00:00:00:41:fe`, `IfName: Ethernet1/7`, `Local: 7`.
fn id(block: &Block<'_>) -> Result<LldpId, ParseError> {
    let (number, line) = block.single()?;
    let (label, value) = line.split_once(": ").ok_or_else(|| {
        ParseError::at(
            number,
            format!("{}: expected `subtype: id`, found {line:?}", block.header),
        )
    })?;
    let subtype = id_subtype(label);
    let value = normalized_id(&subtype, value);
    Ok(LldpId { subtype, value })
}

fn ets_configuration(block: &Block<'_>) -> Result<Ets, ParseError> {
    let [willing, cbs, max, map, bandwidth, tsa] = block.fields([
        "Willing",
        "CBS",
        "MAX_TCS",
        "PRIO_MAP",
        "TC Bandwidth",
        "TSA_MAP",
    ])?;
    Ok(Ets {
        willing: Some(yes_no(willing)?),
        cbs: Some(match cbs.1 {
            "supported" => true,
            "not supported" => false,
            other => {
                return Err(ParseError::at(
                    cbs.0,
                    format!("expected `supported` or `not supported`, found {other:?}"),
                ));
            }
        }),
        max_tcs: Some(number(max)?),
        tables: ets_tables(block.header, map, bandwidth, tsa)?,
    })
}

fn ets_recommendation(block: &Block<'_>) -> Result<Ets, ParseError> {
    let [map, bandwidth, tsa] = block.fields(["PRIO_MAP", "TC Bandwidth", "TSA_MAP"])?;
    Ok(Ets {
        tables: ets_tables(block.header, map, bandwidth, tsa)?,
        ..Ets::default()
    })
}

fn pfc(block: &Block<'_>) -> Result<Pfc, ParseError> {
    let [willing, mbc, capable, enabled] = block.fields([
        "Willing",
        "MACsec Bypass Capable",
        "PFC capable traffic classes",
        "PFC enabled",
    ])?;
    let priorities = if enabled.1 == "none" {
        Vec::new()
    } else {
        let mut priorities = enabled
            .1
            .split_whitespace()
            .map(|p| priority((enabled.0, p)))
            .collect::<Result<Vec<u8>, _>>()?;
        if priorities.is_empty() {
            return Err(ParseError::at(
                enabled.0,
                "`PFC enabled:` lists no priority and does not say `none`",
            ));
        }
        priorities.sort_unstable();
        priorities.dedup();
        priorities
    };
    Ok(Pfc {
        willing: Some(yes_no(willing)?),
        mbc: Some(yes_no(mbc)?),
        capable: Some(number(capable)?),
        enabled: priorities,
    })
}

/// `App#   0 \t Prio 3 \t Sel 3 \t P-ID\t UDP or DCCP Port: 4791`.
fn app(block: &Block<'_>) -> Result<Vec<AppEntry>, ParseError> {
    block
        .body
        .iter()
        .map(|(number, line)| {
            let bad = |why: &str| {
                ParseError::at(
                    *number,
                    format!(
                        "APP entry {line:?}: {why} (expected `App# N  Prio P  Sel S  P-ID  …: ID`)"
                    ),
                )
            };
            let fields: Vec<&str> = line.split('\t').map(str::trim).collect();
            let field = |name: &str| {
                fields
                    .iter()
                    .find_map(|f| f.strip_prefix(name).map(str::trim))
                    .ok_or_else(|| bad(&format!("no `{name}`")))
            };
            field("App#")?;
            let priority = priority((*number, field("Prio")?))?;
            let selector: u8 = field("Sel")?
                .parse()
                .ok()
                .filter(|s| (1..=7).contains(s))
                .ok_or_else(|| bad("the selector is not 1-7"))?;
            let id = fields
                .last()
                .and_then(|f| f.rsplit_once(':'))
                .map(|(_, id)| id.trim())
                .ok_or_else(|| bad("no protocol id"))?;
            let protocol = match id.strip_prefix("0x").or_else(|| id.strip_prefix("0X")) {
                Some(hex) => u16::from_str_radix(hex, 16).ok(),
                None => id.parse().ok(),
            }
            .ok_or_else(|| bad(&format!("protocol id {id:?} is not a number")))?;
            Ok(AppEntry {
                selector: AppSelector::from_ieee(selector),
                protocol,
                priority,
            })
        })
        .collect()
}

/// `PRIO_MAP: 0:0 1:0 … 7:0`, `TC Bandwidth: 50% 50% …`, `TSA_MAP: 0:ets 1:ets …`: eight of
/// each, in order.
fn ets_tables(
    header: &str,
    map: (usize, &str),
    bandwidth: (usize, &str),
    tsa: (usize, &str),
) -> Result<DcbTables, ParseError> {
    fn indexed<'t>(
        (number, text): (usize, &'t str),
        what: &str,
    ) -> Result<Vec<&'t str>, ParseError> {
        let values: Vec<&str> = text
            .split_whitespace()
            .enumerate()
            .map(|(index, pair)| match pair.split_once(':') {
                Some((i, value)) if i == index.to_string() => Ok(value),
                _ => Err(ParseError::at(
                    number,
                    format!("{what}: expected `{index}:…`, found {pair:?}"),
                )),
            })
            .collect::<Result<_, _>>()?;
        eight(number, what, values)
    }
    let priority_tc = indexed(map, "PRIO_MAP")?
        .into_iter()
        .map(|tc| priority((map.0, tc)))
        .collect::<Result<_, _>>()?;
    let algorithm = indexed(tsa, "TSA_MAP")?
        .into_iter()
        .map(|a| match a {
            "strict" | "cbs" | "ets" | "vendor" => Ok(a.to_owned()),
            other => Err(ParseError::at(
                tsa.0,
                format!("TSA_MAP: unknown algorithm {other:?}"),
            )),
        })
        .collect::<Result<_, _>>()?;
    let percents: Vec<&str> = bandwidth.1.split_whitespace().collect();
    let line = bandwidth.0;
    let bandwidth: Vec<u8> = eight(line, "TC Bandwidth", percents)?
        .into_iter()
        .map(|p| {
            p.strip_suffix('%')
                .and_then(|n| n.parse::<u8>().ok())
                .filter(|n| *n <= 100)
                .ok_or_else(|| {
                    ParseError::at(
                        line,
                        format!("TC Bandwidth: expected a percentage, found {p:?}"),
                    )
                })
        })
        .collect::<Result<_, _>>()?;
    if let Some(why) = unbalanced(&bandwidth) {
        return Err(ParseError::at(line, format!("{header}: {why}")));
    }
    Ok(DcbTables {
        priority_tc,
        algorithm,
        bandwidth,
        pfc: Vec::new(),
    })
}

fn eight<'a>(number: usize, what: &str, values: Vec<&'a str>) -> Result<Vec<&'a str>, ParseError> {
    if values.len() == 8 {
        Ok(values)
    } else {
        Err(ParseError::at(
            number,
            format!("{what}: expected 8 entries, found {}", values.len()),
        ))
    }
}

fn yes_no((number, value): (usize, &str)) -> Result<bool, ParseError> {
    match value {
        "yes" => Ok(true),
        "no" => Ok(false),
        other => Err(ParseError::at(
            number,
            format!("expected `yes` or `no`, found {other:?}"),
        )),
    }
}

fn number((number, value): (usize, &str)) -> Result<u8, ParseError> {
    value
        .parse()
        .ok()
        .filter(|n| *n <= 8)
        .ok_or_else(|| ParseError::at(number, format!("expected a count 0-8, found {value:?}")))
}

fn priority((number, value): (usize, &str)) -> Result<u8, ParseError> {
    value
        .parse()
        .ok()
        .filter(|p| *p < 8)
        .ok_or_else(|| ParseError::at(number, format!("expected a priority 0-7, found {value:?}")))
}
