//! What an attribute is ([`Class`]), and what a registry entry keeps of it once worked out
//! ([`Learned`]): the class without the text that recognised it.

use std::fmt;

/// What an attribute is; see the module documentation for the rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class<'a> {
    /// A setting: kept under its own name.
    Setting,
    /// A version the firmware reports.
    Firmware,
    /// A value that changes by itself (the link, a speed, a clock).
    Status,
    /// A DCB setting recognised by its text, not by a known spelling.
    Dcb(Recognised<'a>),
    /// What the device can do, read-only: a DCB capability when its text says DCB (what
    /// recognised it), any other capability without.
    Capability(Option<Recognised<'a>>),
}

/// Which text of an attribute recognised it as DCB.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// Its name.
    Name,
    /// Its registry `DisplayName`.
    DisplayName,
    /// Its registry `HelpText`.
    HelpText,
}

/// Where a DCB term was found: the field, its text, and the term.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Recognised<'a> {
    /// The field that holds it.
    pub field: Field,
    /// The field's text.
    pub text: &'a str,
    /// The term, as an operator reads it (`DCBX`, `priority flow control`).
    pub term: &'static str,
}

impl fmt::Display for Recognised<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let field = match self.field {
            Field::Name => "name",
            Field::DisplayName => "registry DisplayName",
            Field::HelpText => "registry HelpText",
        };
        write!(f, "its {field} {:?} says {}", self.text, self.term)
    }
}

impl Class<'_> {
    /// The folder of the class under `hii/` or `bios/` (`status`, `dcb`), none for a setting;
    /// firmware has its own home ([`Class::Firmware`]).
    pub fn folder(&self) -> Option<&'static str> {
        match self {
            Class::Status => Some("status"),
            Class::Dcb(_) => Some("dcb"),
            Class::Capability(Some(_)) => Some("capability/dcb"),
            Class::Capability(None) => Some("capability"),
            Class::Setting | Class::Firmware => None,
        }
    }

    /// The leaf of a HII attribute's fact (`segment` its path segment) under its port or
    /// function: `hii/<name>`, `hii/status/<name>`, `hii/dcb/<name>`,
    /// `hii/capability/<name>`, `hii/capability/dcb/<name>`, `firmware/hii/<name>`.
    pub fn hii_leaf(&self, segment: &str) -> String {
        self.leaf("hii", segment)
    }

    /// The leaf of an OEM property's fact under its port or function (`path` the property's
    /// path below `Oem`, segments joined by `/`: `Acme/NicConfig/LldpAgentEnabled`): the homes
    /// of [`Class::hii_leaf`] under `oem/` (`oem/dcb/Acme/NicConfig/LldpAgentEnabled`).
    pub fn oem_leaf(&self, path: &str) -> String {
        self.leaf("oem", path)
    }

    fn leaf(&self, home: &str, rest: &str) -> String {
        match (self, self.folder()) {
            (Class::Firmware, _) => format!("firmware/{home}/{rest}"),
            (_, Some(folder)) => format!("{home}/{folder}/{rest}"),
            (_, None) => format!("{home}/{rest}"),
        }
    }

    /// The folder of a BIOS attribute's fact: `bios`, `bios/status`, `bios/dcb`,
    /// `firmware/bios/attribute`. A BIOS capability stays a `bios/` setting: no BIOS
    /// capability is a port's.
    pub fn bios_prefix(&self) -> String {
        match (self, self.folder()) {
            (Class::Firmware, _) => "firmware/bios/attribute".to_owned(),
            (Class::Capability(_), _) | (_, None) => "bios".to_owned(),
            (_, Some(folder)) => format!("bios/{folder}"),
        }
    }
}

/// A [`Class`] without the text that recognised it, which its entry (or its name) holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Learned {
    Setting,
    Firmware,
    Status,
    Dcb(Field, &'static str),
    Capability(Option<(Field, &'static str)>),
}

impl Learned {
    pub(super) fn of(class: Class<'_>) -> Learned {
        match class {
            Class::Setting => Learned::Setting,
            Class::Firmware => Learned::Firmware,
            Class::Status => Learned::Status,
            Class::Dcb(recognised) => Learned::Dcb(recognised.field, recognised.term),
            Class::Capability(dcb) => Learned::Capability(dcb.map(|r| (r.field, r.term))),
        }
    }

    /// The class of the attribute `name`, whose registry entry gives `texts` (its
    /// `DisplayName` and `HelpText`).
    pub(super) fn class<'a>(
        self,
        name: &'a str,
        texts: (Option<&'a str>, Option<&'a str>),
    ) -> Class<'a> {
        match self {
            Learned::Setting => Class::Setting,
            Learned::Firmware => Class::Firmware,
            Learned::Status => Class::Status,
            Learned::Dcb(field, term) => Class::Dcb(Self::recognised(name, texts, field, term)),
            Learned::Capability(dcb) => Class::Capability(
                dcb.map(|(field, term)| Self::recognised(name, texts, field, term)),
            ),
        }
    }

    fn recognised<'a>(
        name: &'a str,
        (display_name, help_text): (Option<&'a str>, Option<&'a str>),
        field: Field,
        term: &'static str,
    ) -> Recognised<'a> {
        let text = match field {
            Field::Name => Some(name),
            Field::DisplayName => display_name,
            Field::HelpText => help_text,
        };
        Recognised {
            field,
            text: text.unwrap_or_default(),
            term,
        }
    }
}
