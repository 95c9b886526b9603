//! The line of a byte offset in a text, for `FILE:LINE` messages: the offsets of the text's
//! newlines, found once, then a binary search per question. Counting the newlines before each
//! item of a file instead made reading it quadratic in its items (an inventory's hosts, a
//! policy's rules).

/// Where the lines of one text start.
#[derive(Debug, Clone)]
pub struct LineIndex {
    /// The offset of every `\n`, ascending.
    newlines: Vec<usize>,
}

impl LineIndex {
    /// The index of `text`.
    pub fn new(text: &str) -> Self {
        LineIndex {
            newlines: memchr::memchr_iter(b'\n', text.as_bytes()).collect(),
        }
    }

    /// The 1-based line of byte `offset` (an offset past the end is on the last line).
    pub fn line(&self, offset: usize) -> usize {
        self.newlines.partition_point(|&at| at < offset) + 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_of_each_offset_is_one_more_than_the_newlines_before_it() {
        let text = "a\nbc\n\nd";
        let index = LineIndex::new(text);
        for offset in 0..=text.len() + 3 {
            let counted = text[..offset.min(text.len())].matches('\n').count() + 1;
            assert_eq!(index.line(offset), counted, "offset {offset}");
        }
        assert_eq!(LineIndex::new("").line(0), 1);
    }
}
