//! Parsers of `esxcli` output: the text formats of ESXi 5.x to 8.x and `--formatter=xml`.
//! Pure functions over text; every error names the line.
//!
//! Keys are normalized (whitespace removed, lower case), so the text form's display names
//! (`Path Selection Policy`) and the internal names some hosts use (`PathSelectionPolicy`)
//! meet as `pathselectionpolicy`.

use std::collections::BTreeMap;

pub(super) use crate::lines::ParseError;
use crate::lines::numbered_lines;

/// A field value: text, or a list (XML lists; text lists stay comma-joined text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum FieldValue {
    /// A single value.
    Text(String),
    /// A list of values.
    List(Vec<String>),
}

impl FieldValue {
    /// The text, or the list joined with `, ` as the text form prints it.
    pub(super) fn text(&self) -> String {
        match self {
            FieldValue::Text(t) => t.clone(),
            FieldValue::List(items) => items.join(", "),
        }
    }

    /// The number of items: list entries, or comma-separated entries of text.
    pub(super) fn count(&self) -> usize {
        match self {
            FieldValue::Text(t) => t.split(',').filter(|s| !s.trim().is_empty()).count(),
            FieldValue::List(items) => items.len(),
        }
    }
}

/// One object of `esxcli` output: a device (with its id) or a single structure.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Record {
    /// The heading line of a device in the text form (`naa.600…`).
    pub id: Option<String>,
    /// The line it starts at: its heading, table row or `<structure>`.
    pub line: usize,
    /// The last line it was read from.
    pub end: usize,
    /// Normalized key → value.
    pub fields: BTreeMap<String, FieldValue>,
    /// Normalized key → the line the field was read from.
    pub lines: BTreeMap<String, usize>,
}

impl Record {
    /// The value of a field as text, if present and not empty.
    pub(super) fn get(&self, key: &str) -> Option<String> {
        self.fields
            .get(key)
            .map(FieldValue::text)
            .filter(|t| !t.is_empty())
    }

    /// The line a field was read from, or the record's first line when it is absent.
    pub(super) fn line_of(&self, key: &str) -> usize {
        self.lines.get(key).copied().unwrap_or(self.line)
    }

    /// Adds a field read at `line`; a key printed twice in one record is an error, since
    /// esxcli prints each field once.
    fn insert(&mut self, key: &str, value: FieldValue, line: usize) -> Result<(), ParseError> {
        let normalized = normalize_key(key);
        if let Some(first) = self.lines.get(&normalized) {
            return Err(ParseError::at(
                line,
                format!(
                    "field {key:?} again (first at line {first}): esxcli prints each field once"
                ),
            ));
        }
        self.fields.insert(normalized.clone(), value);
        self.lines.insert(normalized, line);
        self.end = self.end.max(line);
        Ok(())
    }
}

/// esxcli ends every line it prints, the last one too: text that does not end with a line
/// ending was cut short in the middle of a line.
fn ends_with_a_whole_line(text: &str) -> Result<(), ParseError> {
    if text.is_empty() || text.ends_with('\n') {
        return Ok(());
    }
    let (number, last) = numbered_lines(text).last().unwrap_or((1, text));
    Err(ParseError::at(
        number,
        format!(
            "the output ends in the middle of a line ({:?} has no line ending): it was cut short \
             (if the file is whole, add its final newline)",
            last.trim()
        ),
    ))
}

/// A command's output as text: esxcli prints UTF-8, so other bytes (a corrupted or cut
/// character) are an error at the line they are on.
pub(super) fn utf8(bytes: Vec<u8>) -> Result<String, ParseError> {
    String::from_utf8(bytes).map_err(|e| {
        let valid = e.utf8_error().valid_up_to();
        let line = e.as_bytes()[..valid]
            .iter()
            .filter(|b| **b == b'\n')
            .count()
            + 1;
        ParseError::at(
            line,
            format!("bytes that are not UTF-8 (at byte {valid}): esxcli prints UTF-8"),
        )
    })
}

/// `Path Selection Policy` → `pathselectionpolicy`.
pub(super) fn normalize_key(key: &str) -> String {
    key.chars()
        .filter(|c| !c.is_whitespace())
        .flat_map(char::to_lowercase)
        .collect()
}

/// Splits `Key: value` (or `Key:` with an empty value).
fn key_value(line: &str) -> Option<(&str, &str)> {
    let trimmed = line.trim();
    if let Some((key, value)) = trimmed.split_once(": ") {
        return Some((key.trim(), value.trim()));
    }
    trimmed.strip_suffix(':').map(|key| (key.trim(), ""))
}

/// A device heading: one identifier word (`naa.600…`, `mpx.vmhba0:C0:T0:L0`, `t10.…`),
/// never ending in `:` as a field with an empty value does.
fn is_device_heading(line: &str) -> bool {
    let trimmed = line.trim();
    trimmed
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric())
        && !trimmed.ends_with(':')
        && trimmed
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | ':' | '-'))
}

/// Parses a device list in text form (`esxcli storage nmp device list`,
/// `esxcli storage core device list`): a device id line, then indented `Key: value` lines.
pub(super) fn parse_device_list(text: &str) -> Result<Vec<Record>, ParseError> {
    ends_with_a_whole_line(text)?;
    let mut records: Vec<Record> = Vec::new();
    for (number, line) in numbered_lines(text) {
        if line.trim().is_empty() {
            continue;
        }
        if is_device_heading(line) {
            records.push(Record {
                id: Some(line.trim().to_owned()),
                line: number,
                end: number,
                ..Record::default()
            });
            continue;
        }
        let (key, value) = key_value(line).ok_or_else(|| {
            ParseError::at(
                number,
                format!(
                    "expected a device id or `Key: value`, found {:?}",
                    line.trim()
                ),
            )
        })?;
        let record = records
            .last_mut()
            .ok_or_else(|| ParseError::at(number, format!("field {key:?} before any device id")))?;
        record.insert(key, FieldValue::Text(value.to_owned()), number)?;
    }
    Ok(records)
}

/// Parses a single structure in text form (`esxcli system version get`): `Key: value` lines.
pub(super) fn parse_structure(text: &str) -> Result<Record, ParseError> {
    ends_with_a_whole_line(text)?;
    let mut record = Record::default();
    for (number, line) in numbered_lines(text) {
        if line.trim().is_empty() {
            continue;
        }
        let (key, value) = key_value(line).ok_or_else(|| {
            ParseError::at(
                number,
                format!("expected `Key: value`, found {:?}", line.trim()),
            )
        })?;
        if record.line == 0 {
            record.line = number;
        }
        record.insert(key, FieldValue::Text(value.to_owned()), number)?;
    }
    if record.fields.is_empty() {
        return Err(ParseError::whole("no fields (empty output)"));
    }
    Ok(record)
}

/// Parses an `esxcli` table (`esxcli storage nmp satp list`, `… satp rule list`): a header
/// line, a line of dash runs marking the columns, then rows. A column runs from the start of
/// its dashes to the start of the next column's; the last one to the end of the line.
pub(super) fn parse_table(text: &str) -> Result<Vec<Record>, ParseError> {
    ends_with_a_whole_line(text)?;
    let mut lines = numbered_lines(text).filter(|(_, l)| !l.trim().is_empty());
    let Some((header_number, header)) = lines.next() else {
        return Ok(Vec::new());
    };
    let (dash_number, dashes) = lines.next().ok_or_else(|| {
        ParseError::at(
            header_number + 1,
            "missing the line of dashes under the header",
        )
    })?;
    if !dashes.trim().chars().all(|c| c == '-' || c == ' ') || !dashes.contains('-') {
        return Err(ParseError::at(
            dash_number,
            "expected the line of dashes under the header",
        ));
    }
    let starts: Vec<usize> = dashes
        .char_indices()
        .filter(|&(i, c)| c == '-' && (i == 0 || dashes.as_bytes()[i - 1] == b' '))
        .map(|(i, _)| i)
        .collect();
    let cells = |number: usize, line: &str| -> Result<Vec<String>, ParseError> {
        (0..starts.len())
            .map(|i| {
                let from = starts[i].min(line.len());
                let to = starts
                    .get(i + 1)
                    .map_or(line.len(), |&next| next.min(line.len()));
                line.get(from..to)
                    .map(|cell| cell.trim().to_owned())
                    .ok_or_else(|| {
                        ParseError::at(number, "a multi-byte character straddles a column boundary")
                    })
            })
            .collect()
    };
    let names: Vec<String> = cells(header_number, header)?
        .iter()
        .map(|n| normalize_key(n))
        .collect();
    let mut records = Vec::new();
    for (number, line) in lines {
        let values = cells(number, line)?;
        let mut record = Record {
            line: number,
            end: number,
            ..Record::default()
        };
        for (name, value) in names.iter().zip(values) {
            record.insert(name, FieldValue::Text(value), number)?;
        }
        records.push(record);
    }
    Ok(records)
}

/// Parses `esxcli --formatter=xml` output: a `<root>` holding a `<list>` of `<structure>`s
/// (device lists, tables) or a single `<structure>` (version).
pub(super) fn parse_xml(text: &str) -> Result<Vec<Record>, ParseError> {
    let document =
        roxmltree::Document::parse(text.trim_start_matches('\u{feff}')).map_err(|e| match e {
            // roxmltree places these at 1:1; the document was cut where it ends.
            roxmltree::Error::UnclosedRootNode | roxmltree::Error::UnexpectedEndOfStream => {
                ParseError::at(
                    numbered_lines(text).count(),
                    format!("the XML document ends before its elements are closed ({e}): it was cut short"),
                )
            }
            e => ParseError::at(e.pos().row as usize, format!("not esxcli XML: {e}")),
        })?;
    let line_of =
        |node: roxmltree::Node<'_, '_>| document.text_pos_at(node.range().start).row as usize;
    let root = document
        .descendants()
        .find(|n| n.has_tag_name("root"))
        .ok_or_else(|| {
            ParseError::at(1, "no <root> element (not esxcli --formatter=xml output)")
        })?;
    let Some(top) = root.children().find(|n| n.is_element()) else {
        return Ok(Vec::new());
    };
    let structures: Vec<roxmltree::Node<'_, '_>> = match top.tag_name().name() {
        "list" => top.children().filter(|n| n.is_element()).collect(),
        "structure" => vec![top],
        other => {
            return Err(ParseError::at(
                line_of(top),
                format!("unexpected <{other}> under <root>"),
            ));
        }
    };
    let mut records = Vec::with_capacity(structures.len());
    for structure in structures {
        if !structure.has_tag_name("structure") {
            return Err(ParseError::at(line_of(structure), "expected <structure>"));
        }
        let mut record = Record {
            line: line_of(structure),
            end: document.text_pos_at(structure.range().end).row as usize,
            ..Record::default()
        };
        for field in structure.children().filter(|n| n.has_tag_name("field")) {
            let name = field
                .attribute("name")
                .ok_or_else(|| ParseError::at(line_of(field), "<field> without a name"))?;
            let value = match field.children().find(|n| n.is_element()) {
                None => FieldValue::Text(String::new()),
                Some(v) if v.has_tag_name("list") => FieldValue::List(
                    v.children()
                        .filter(|n| n.is_element())
                        .map(|n| n.text().unwrap_or("").trim().to_owned())
                        .collect(),
                ),
                Some(v) if v.has_tag_name("structure") => {
                    return Err(ParseError::at(
                        line_of(v),
                        format!("field {name:?}: nested structures are not read"),
                    ));
                }
                Some(v) => FieldValue::Text(v.text().unwrap_or("").trim().to_owned()),
            };
            record.insert(name, value, line_of(field))?;
        }
        records.push(record);
    }
    Ok(records)
}

/// The version in `vmware -v` output (`VMware ESXi 5.5.0 build-3248547`): (product, version,
/// build number).
pub(super) fn parse_vmware_v(text: &str) -> Result<(String, String, String), ParseError> {
    ends_with_a_whole_line(text)?;
    let line = numbered_lines(text)
        .find(|(_, l)| !l.trim().is_empty())
        .map(|(_, l)| l.trim())
        .unwrap_or("");
    let words: Vec<&str> = line.split_whitespace().collect();
    match words.as_slice() {
        [vendor, product, version, build] if vendor.eq_ignore_ascii_case("vmware") => {
            let build = build.strip_prefix("build-").unwrap_or(build);
            Ok((
                format!("{vendor} {product}"),
                (*version).to_owned(),
                build.to_owned(),
            ))
        }
        _ => Err(ParseError::at(
            1,
            format!("expected `VMware ESXi VERSION build-N`, found {line:?}"),
        )),
    }
}

#[cfg(test)]
mod tests;
