//! One adapter's record as read so far: its fields, its Capabilities columns, its
//! Operational and Remote groups.

use super::prompt::View;
use super::traffic_classes::ClassRow;
use crate::peer::AppEntry;
use driftgate_model::DcbxSupport;

/// The three lines of an Operational or Remote group, in the order the format prints them.
pub(super) const GROUP_KEYS: [&str; 3] = ["TrafficClasses", "FlowControl", "Classifications"];

/// One column (Hardware or Current) of the Capabilities table.
#[derive(Debug, Default)]
pub(super) struct Column {
    pub(super) dcbx: Option<DcbxSupport>,
    pub(super) tcs: Option<[u8; 3]>,
}

/// Whose DCB settings a group shows: the adapter's own or its link partner's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Scope {
    Operational,
    Remote,
}

impl Scope {
    pub(super) fn title(self) -> &'static str {
        match self {
            Scope::Operational => "Operational",
            Scope::Remote => "Remote",
        }
    }
}

/// An Operational or Remote group.
#[derive(Debug, Default)]
pub(super) struct Group {
    /// Line of each of [`GROUP_KEYS`] once seen.
    pub(super) seen: [Option<usize>; 3],
    pub(super) classes: Vec<ClassRow>,
    pub(super) flow_control: Option<Vec<bool>>,
    /// The classification table's rows; `None` when it is Not Available.
    pub(super) classifications: Option<Vec<AppEntry>>,
}

/// One adapter's record as read so far.
#[derive(Debug)]
pub(super) struct AdapterText {
    pub(super) name: String,
    /// Line of `Name`.
    pub(super) line: usize,
    /// Last line that belonged to the record.
    pub(super) last: usize,
    pub(super) enabled: Option<bool>,
    /// Line of `Capabilities` and whether its table was whole.
    pub(super) capabilities: Option<(usize, bool)>,
    /// Line of `Enabled`.
    pub(super) enabled_at: usize,
    /// Which view printed the record, from the prompt above it.
    pub(super) view: View,
    /// Lines of the Capabilities rows printed with both values blank.
    pub(super) blank_rows: Vec<usize>,
    /// `Some(false)` once a whole Capabilities table turned out blank on every row: the
    /// adapter reports no DCB capability.
    pub(super) dcb_reported: Option<bool>,
    /// Hardware, Current.
    pub(super) columns: [Column; 2],
    pub(super) groups: [Group; 2],
}

impl AdapterText {
    pub(super) fn new(name: &str, line: usize, view: View) -> Self {
        AdapterText {
            name: name.to_owned(),
            line,
            last: line,
            enabled: None,
            capabilities: None,
            enabled_at: 0,
            view,
            blank_rows: Vec::new(),
            dcb_reported: None,
            columns: [Column::default(), Column::default()],
            groups: [Group::default(), Group::default()],
        }
    }
}
