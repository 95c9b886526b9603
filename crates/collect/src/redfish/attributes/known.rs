//! The attribute registries a run has read, shared by its hosts. A fleet's BMCs of one model
//! and firmware serve the same registries byte for byte (Dell's BIOS registry is a megabyte),
//! and reading each once per run, not once per BMC, is most of what registries cost a night.
//! A body stands for a registry read before only when it is the very same bytes: what one BMC
//! serves never decides how another BMC's different registry is read.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::Registry;

/// The most bytes of registry text a run keeps to recognise the registries it read: a fleet
/// of a few models and firmware levels keeps them all; a registry read once the run keeps
/// this much is read for each BMC serving it, as it was before the run kept any.
const MOST_BYTES: usize = 32 << 20;

/// The registries a run has read, by their text; cheap to clone (one shared set).
#[derive(Debug, Clone, Default)]
pub struct KnownRegistries(Arc<Mutex<Known>>);

#[derive(Debug, Default)]
struct Known {
    /// Each registry read, by the length of its text.
    by_length: HashMap<usize, Vec<Kept>>,
    /// The length of the text kept, all registries together.
    bytes: usize,
    /// How many bodies were read as registries (not taken from those kept).
    read: usize,
}

/// A registry read, the text it was read from and its `@odata.type`.
#[derive(Debug)]
struct Kept {
    text: Box<[u8]>,
    odata_type: Box<str>,
    registry: Arc<Registry>,
}

impl KnownRegistries {
    /// The registry `text` holds and its `@odata.type` ([`Registry::from_text`]), the one read
    /// before when the run has read this text already. `None`: not read straight from the
    /// text (the caller parses it as JSON to say why).
    pub fn read(&self, text: &[u8]) -> Option<(Box<str>, Arc<Registry>)> {
        let found = self
            .lock()
            .by_length
            .get(&text.len())
            .and_then(|kept| kept.iter().find(|kept| *kept.text == *text))
            .map(|kept| (kept.odata_type.clone(), Arc::clone(&kept.registry)));
        if found.is_some() {
            return found;
        }
        // Read outside the lock: the other hosts' lookups do not wait for a megabyte's parse.
        let (odata_type, registry) = Registry::from_text(text)?;
        let registry = Arc::new(registry);
        let mut known = self.lock();
        known.read += 1;
        if known.bytes + text.len() <= MOST_BYTES {
            known.bytes += text.len();
            known.by_length.entry(text.len()).or_default().push(Kept {
                text: text.into(),
                odata_type: odata_type.clone(),
                registry: Arc::clone(&registry),
            });
        }
        Some((odata_type, registry))
    }

    /// How many bodies were read as registries, not taken from those read before: what a
    /// test checks to see a registry read once per run.
    pub fn read_count(&self) -> usize {
        self.lock().read
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Known> {
        self.0.lock().expect("no panic while holding the lock")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn registry(attribute: &str) -> String {
        format!(
            r##"{{"@odata.type": "#AttributeRegistry.v1_3_0.AttributeRegistry", "Id": "R",
                "RegistryEntries": {{"Attributes": [{{"AttributeName": "{attribute}", "Type": "String"}}]}}}}"##
        )
    }

    #[test]
    fn the_same_text_is_read_once_and_any_other_text_on_its_own() {
        let known = KnownRegistries::default();
        let text = registry("DcbxMode");
        let (odata_type, first) = known.read(text.as_bytes()).expect("a registry");
        assert_eq!(&*odata_type, "#AttributeRegistry.v1_3_0.AttributeRegistry");
        // Another BMC serving the same bytes gets the registry already read.
        let (_, again) = known.clone().read(text.as_bytes()).unwrap();
        assert!(Arc::ptr_eq(&first, &again));
        assert_eq!(known.read_count(), 1);
        // Text of the same length that differs (one byte) is a registry of its own.
        let other = registry("DcbxMods");
        assert_eq!(other.len(), text.len());
        let (_, other) = known.read(other.as_bytes()).unwrap();
        assert!(!Arc::ptr_eq(&first, &other));
        assert!(other.entry("DcbxMods").is_some() && other.entry("DcbxMode").is_none());
        assert_eq!(known.read_count(), 2);
        // What is not read straight from the text is left to the caller, and not kept.
        assert!(known.read(b"{\"RegistryEntries\": 1}").is_none());
        assert_eq!(known.lock().by_length.values().flatten().count(), 2);
    }

    #[test]
    fn past_its_bytes_a_run_reads_each_registry_as_served() {
        let known = KnownRegistries::default();
        known.lock().bytes = MOST_BYTES;
        let text = registry("DcbxMode");
        let (_, first) = known.read(text.as_bytes()).unwrap();
        let (_, again) = known.read(text.as_bytes()).unwrap();
        assert!(!Arc::ptr_eq(&first, &again));
        assert_eq!(first.entry("DcbxMode"), again.entry("DcbxMode"));
        assert_eq!(known.read_count(), 2);
    }
}
