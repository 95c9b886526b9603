//! The prompt lines of a paste (`PS C:\> Get-NetAdapterQos`): which command printed what
//! follows, and so which view an adapter record comes from.

/// The command of a prompt line (`PS C:\> Get-NetAdapterQos` → `Get-NetAdapterQos`).
pub(super) fn prompt(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("PS ")?;
    let (_, command) = rest.split_once('>')?;
    Some(command.trim())
}

/// Which view printed an adapter record, as far as the paste shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum View {
    /// No prompt line above the record.
    Unknown,
    /// `Get-NetAdapterQos` (optionally naming adapters), alone or piped to a bare
    /// `Format-List`: the type's default list view.
    Default,
    /// Any other command line: it may pick properties, so a missing item says nothing.
    Selected { line: usize, command: String },
}

impl View {
    /// The view the prompt `command` (on `line`) prints.
    pub(super) fn of(line: usize, command: &str) -> View {
        let mut stages = command.split('|').map(str::trim);
        let words: Vec<String> = stages
            .next()
            .unwrap_or("")
            .split_whitespace()
            .map(str::to_ascii_lowercase)
            .collect();
        // Adapter-selecting parameters only; a value may follow `-name` or stand alone.
        let selects_adapters = words.first().is_some_and(|w| w == "get-netadapterqos")
            && words[1..].iter().all(|w| {
                !w.starts_with('-')
                    || matches!(
                        w.as_str(),
                        "-name"
                            | "-ifalias"
                            | "-interfacealias"
                            | "-interfacedescription"
                            | "-ifdesc"
                            | "-includehidden"
                    )
            });
        let default_list =
            stages.all(|stage| matches!(stage.to_ascii_lowercase().as_str(), "format-list" | "fl"));
        if selects_adapters && default_list {
            View::Default
        } else {
            View::Selected {
                line,
                command: command.to_owned(),
            }
        }
    }
}

/// A `PS C:\> Get-…` prompt whose command has not printed anything yet.
#[derive(Debug)]
pub(super) struct Pending {
    pub(super) line: usize,
    pub(super) command: String,
}
