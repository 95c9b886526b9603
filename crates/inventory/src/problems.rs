//! What is wrong with an inventory: every problem, each at its line.

/// One thing wrong with an inventory, at its line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The inventory file.
    pub file: String,
    /// 1-based line; 0 when the problem is the whole file (it cannot be read).
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

/// Every problem found in an inventory (never only the first).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", render_problems(.problems))]
pub struct InventoryErrors {
    /// The problems, in file order.
    pub problems: Vec<Problem>,
}

impl InventoryErrors {
    /// `Ok` when nothing is wrong, else every problem once, file by file (an Ansible
    /// inventory's vars files after it), in line order.
    pub(crate) fn refuse(mut problems: Vec<Problem>) -> Result<(), InventoryErrors> {
        if problems.is_empty() {
            return Ok(());
        }
        let mut files: Vec<String> = Vec::new();
        for problem in &problems {
            if !files.contains(&problem.file) {
                files.push(problem.file.clone());
            }
        }
        problems.sort_by_key(|p| (files.iter().position(|f| *f == p.file), p.line));
        problems.dedup();
        Err(InventoryErrors { problems })
    }
}

impl Problem {
    /// A problem at 1-based `line` of `file`, whose last line is `last_line`. A parser that
    /// runs off the end of the text (an unclosed string, array or table) names the line after
    /// the last one, which no editor shows: that is told as the end of the file, at its last
    /// line.
    pub(crate) fn at(
        file: &str,
        line: usize,
        last_line: usize,
        message: impl Into<String>,
    ) -> Problem {
        let message = message.into();
        let (line, message) = if line > last_line {
            (last_line, format!("{message} (at the end of the file)"))
        } else {
            (line, message)
        };
        Problem {
            file: file.to_owned(),
            line,
            message,
        }
    }
}

/// The number of the last line of `text` (1 for an empty text): a final line ending starts
/// no line.
pub(crate) fn last_line(text: &str) -> usize {
    text.lines().count().max(1)
}

fn render_problems(problems: &[Problem]) -> String {
    let lines: Vec<String> = problems.iter().map(|p| p.to_string()).collect();
    lines.join("\n")
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            0 => write!(f, "{}: {}", self.file, self.message),
            line => write!(f, "{}:{line}: {}", self.file, self.message),
        }
    }
}
