//! Where each fact of a snapshot file is, by line (SARIF results point at a baseline's line).
//! A parser: no I/O.

use std::collections::BTreeMap;

/// The line (1-based) of each fact's key in a snapshot file's text. A parser: no I/O.
///
/// Only keys directly inside the top-level `"facts"` object count, so a fact path that also
/// appears elsewhere (a source's target, a value) is found at its key; keys are compared
/// decoded (`"a\/b"` is `a/b`), and facts need not be one per line. A key given twice keeps
/// its first line.
///
/// A fact of a snapshot written before functions were keyed by MAC is found under the path it
/// is read at too (`crate::function_keys`): a finding names that one.
///
/// Text that is not one valid JSON value (not JSON, truncated, trailing garbage) gives an
/// empty map, as does a document that is not an object or has no `"facts"` object: a caller
/// then points at the file's first line, never at a line a broken file does not back.
pub fn fact_lines(text: &str) -> BTreeMap<String, u32> {
    // The scanner trusts the structure, so it runs only on text serde_json accepts whole.
    if serde_json::from_str::<serde::de::IgnoredAny>(text).is_err() {
        return BTreeMap::new();
    }
    let mut lines = Scanner::new(text).fact_lines().unwrap_or_default();
    if let Ok(document) = serde_json::from_str::<FactsOnly>(text) {
        for (written, read) in crate::function_keys::moved_paths(&document.facts) {
            if let Some(line) = lines.get(&written).copied() {
                lines.insert(read, line);
            }
        }
    }
    lines
}

/// The facts of a snapshot document, for the paths they are read at.
#[derive(serde::Deserialize)]
struct FactsOnly {
    facts: crate::facts::Facts,
}

/// A cursor over JSON text already known to be valid, counting lines.
struct Scanner<'a> {
    text: &'a str,
    pos: usize,
    line: u32,
}

impl<'a> Scanner<'a> {
    fn new(text: &'a str) -> Self {
        Scanner {
            text,
            pos: 0,
            line: 1,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    /// Consumes `byte` after any whitespace, or fails.
    fn expect(&mut self, byte: u8) -> Option<()> {
        self.skip_whitespace();
        (self.peek()? == byte).then(|| self.pos += 1)
    }

    fn skip_whitespace(&mut self) {
        while let Some(b) = self.peek() {
            match b {
                b'\n' => self.line = self.line.saturating_add(1),
                b' ' | b'\t' | b'\r' => {}
                _ => return,
            }
            self.pos += 1;
        }
    }

    /// A string at the cursor, decoded by serde_json (escapes and all).
    fn string(&mut self) -> Option<String> {
        let start = self.pos;
        self.skip_string()?;
        serde_json::from_str(&self.text[start..self.pos]).ok()
    }

    /// Skips a string (valid JSON strings hold no raw newline).
    fn skip_string(&mut self) -> Option<()> {
        (self.peek()? == b'"').then_some(())?;
        self.pos += 1;
        loop {
            match self.peek()? {
                b'\\' => self.pos += 2,
                b'"' => {
                    self.pos += 1;
                    return Some(());
                }
                _ => self.pos += 1,
            }
        }
    }

    /// Skips one value of any kind, counting the lines inside it.
    fn skip_value(&mut self) -> Option<()> {
        self.skip_whitespace();
        match self.peek()? {
            b'"' => self.skip_string(),
            b'{' | b'[' => {
                let mut depth = 0usize;
                loop {
                    match self.peek()? {
                        b'"' => {
                            self.skip_string()?;
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth -= 1;
                            if depth == 0 {
                                self.pos += 1;
                                return Some(());
                            }
                        }
                        b'\n' => self.line = self.line.saturating_add(1),
                        _ => {}
                    }
                    self.pos += 1;
                }
            }
            _ => {
                while self.peek().is_some_and(|b| {
                    !matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\r' | b'\n')
                }) {
                    self.pos += 1;
                }
                Some(())
            }
        }
    }

    /// Calls `each(key, line)` for every member of the object at the cursor, the cursor on
    /// its value, which `each` must consume.
    fn members(
        &mut self,
        mut each: impl FnMut(&mut Self, String, u32) -> Option<()>,
    ) -> Option<()> {
        self.expect(b'{')?;
        self.skip_whitespace();
        if self.peek()? == b'}' {
            self.pos += 1;
            return Some(());
        }
        loop {
            self.skip_whitespace();
            let line = self.line;
            let key = self.string()?;
            self.expect(b':')?;
            self.skip_whitespace();
            each(self, key, line)?;
            self.skip_whitespace();
            match self.peek()? {
                b',' => self.pos += 1,
                b'}' => {
                    self.pos += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// The line of each key of the top-level `"facts"` object.
    fn fact_lines(mut self) -> Option<BTreeMap<String, u32>> {
        self.skip_whitespace();
        let mut lines = BTreeMap::new();
        let mut found = false;
        self.members(|s, key, _| {
            if key == "facts" && !found && s.peek()? == b'{' {
                found = true;
                s.members(|s, fact, line| {
                    lines.entry(fact).or_insert(line);
                    s.skip_value()
                })
            } else {
                s.skip_value()
            }
        })?;
        Some(lines)
    }
}

#[cfg(test)]
mod tests;
