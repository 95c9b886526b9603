//! The bound every Markdown report keeps: what GitHub accepts in a comment or an issue body.

use std::io::{self, Write};

/// The largest Markdown report in bytes (so at most as many characters): what GitHub accepts
/// in a comment or an issue body.
pub const MARKDOWN_LIMIT: usize = 65_536;

/// Room kept for the note on left-out items; a note is shorter.
const NOTE: usize = 300;

/// Writes `head`, then as many of `items` as fit, then (when some were left out) the note
/// `note(shown)` makes, then `tail`: under [`MARKDOWN_LIMIT`] bytes as long as `head` and
/// `tail` leave room. Returns how many items were written.
pub(crate) fn fit(
    out: &mut dyn Write,
    head: &str,
    items: &[String],
    tail: &str,
    note: impl FnOnce(usize) -> String,
) -> io::Result<usize> {
    out.write_all(head.as_bytes())?;
    let shown = if fits(head, items, tail) {
        items.len()
    } else {
        let mut used = head.len() + tail.len() + NOTE;
        items
            .iter()
            .take_while(|item| {
                used += item.len();
                used < MARKDOWN_LIMIT
            })
            .count()
    };
    for item in &items[..shown] {
        out.write_all(item.as_bytes())?;
    }
    if shown < items.len() {
        let note = note(shown);
        debug_assert!(note.len() < NOTE, "a note fits its room: {note}");
        out.write_all(note.as_bytes())?;
    }
    out.write_all(tail.as_bytes())?;
    Ok(shown)
}

/// Whether `head`, `items` and `tail` together fit under [`MARKDOWN_LIMIT`] whole.
pub(crate) fn fits(head: &str, items: &[String], tail: &str) -> bool {
    head.len() + items.iter().map(String::len).sum::<usize>() + tail.len() < MARKDOWN_LIMIT
}
