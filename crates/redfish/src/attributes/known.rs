//! The attribute registries a run has read, shared by its hosts. A fleet's BMCs of one model
//! and firmware serve the same registries byte for byte (Dell's BIOS registry is a megabyte),
//! and reading each once per run, not once per BMC, is most of what registries cost a night.
//! A body stands for a registry read before only when it is the very same bytes: what one BMC
//! serves never decides how another BMC's different registry is read. A body is compared with
//! the registries kept as it arrives ([`Arriving`]), so one a run knows is never held whole.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::Registry;

/// The most bytes of registry text a run keeps to recognise the registries it read: a fleet
/// of a few models and firmware levels keeps them all; a registry read once the run keeps
/// this much is read for each BMC serving it, as it was before the run kept any.
const MOST_BYTES: usize = 32 << 20;

/// A registry read: its `@odata.type`, and what judging reads of it.
pub(super) type Found = (Box<str>, Arc<Registry>);

/// The registries a run has read, by their text; cheap to clone (one shared set).
#[derive(Debug, Clone, Default)]
pub struct KnownRegistries(Arc<Mutex<Known>>);

#[derive(Debug, Default)]
struct Known {
    /// Each registry read, by the length of its text.
    by_length: HashMap<usize, Vec<Arc<Kept>>>,
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
    pub fn read(&self, text: &[u8]) -> Option<Found> {
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
            known
                .by_length
                .entry(text.len())
                .or_default()
                .push(Arc::new(Kept {
                    text: text.into(),
                    odata_type: odata_type.clone(),
                    registry: Arc::clone(&registry),
                }));
        }
        Some((odata_type, registry))
    }

    /// A body on its way in, to be compared with the registries kept as its bytes arrive;
    /// `length`: the length its answer announces (`None`: any of them); `capacity`: what to
    /// reserve for it when no registry kept is of that length.
    pub fn arriving(&self, length: Option<u64>, capacity: usize) -> Arriving {
        let known = self.lock();
        let candidates: Vec<Arc<Kept>> = match length {
            Some(length) => usize::try_from(length)
                .ok()
                .and_then(|length| known.by_length.get(&length))
                .into_iter()
                .flatten()
                .cloned()
                .collect(),
            None => known.by_length.values().flatten().cloned().collect(),
        };
        Arriving(if candidates.is_empty() {
            Received::Held(Vec::with_capacity(capacity))
        } else {
            Received::Matching {
                candidates,
                length: 0,
            }
        })
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

/// A registry's body as it arrives ([`KnownRegistries::arriving`]): while what came is the
/// start of a registry the run keeps, nothing is held (Dell's BIOS registry is a megabyte for
/// each BMC in flight); from the first byte that differs from all of them, the body is.
#[derive(Debug)]
pub struct Arriving(Received);

#[derive(Debug)]
enum Received {
    /// Every byte so far is the start of each of these texts.
    Matching {
        candidates: Vec<Arc<Kept>>,
        length: usize,
    },
    /// The body so far.
    Held(Vec<u8>),
}

impl Arriving {
    /// The next bytes of the body.
    pub fn push(&mut self, chunk: &[u8]) {
        let (candidates, length) = match &mut self.0 {
            Received::Held(body) => return body.extend_from_slice(chunk),
            Received::Matching { candidates, length } => (candidates, length),
        };
        let (start, end) = (*length, *length + chunk.len());
        let matched = Arc::clone(&candidates[0]);
        candidates.retain(|kept| kept.text.get(start..end) == Some(chunk));
        if candidates.is_empty() {
            // Every text kept matched until this chunk: the body so far is their start.
            let mut body = Vec::with_capacity(end.max(matched.text.len()));
            body.extend_from_slice(&matched.text[..start]);
            body.extend_from_slice(chunk);
            self.0 = Received::Held(body);
        } else {
            *length = end;
        }
    }

    /// The registry the run read from this very text, or the body, to be read.
    pub fn finish(self) -> Result<Found, Vec<u8>> {
        match self.0 {
            Received::Held(body) => Err(body),
            Received::Matching { candidates, length } => {
                match candidates.iter().find(|kept| kept.text.len() == length) {
                    Some(kept) => Ok((kept.odata_type.clone(), Arc::clone(&kept.registry))),
                    // A body cut short of every text it began as.
                    None => Err(candidates[0].text[..length].to_vec()),
                }
            }
        }
    }

    /// Whether the body is held (it differs from every registry kept): for tests.
    #[cfg(test)]
    fn held(&self) -> bool {
        matches!(self.0, Received::Held(_))
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

    /// `text` arriving in chunks of `size` bytes, announced as `length`; whether it was ever held.
    fn arrive(
        known: &KnownRegistries,
        text: &[u8],
        length: Option<u64>,
        size: usize,
    ) -> (Result<Found, Vec<u8>>, bool) {
        let mut arriving = known.arriving(length, 0);
        let mut held = arriving.held();
        for chunk in text.chunks(size) {
            arriving.push(chunk);
            held |= arriving.held();
        }
        (arriving.finish(), held)
    }

    #[test]
    fn a_registry_the_run_knows_is_recognised_as_it_arrives_and_never_held() {
        let known = KnownRegistries::default();
        let text = registry("DcbxMode");
        let length = Some(text.len() as u64);
        // Nothing kept yet: the body is held, to be read.
        let (body, held) = arrive(&known, text.as_bytes(), length, 7);
        assert_eq!(body.unwrap_err(), text.as_bytes());
        assert!(held);
        let (_, first) = known.read(text.as_bytes()).unwrap();
        // The same bytes, in any chunks, announced or not: the registry read, nothing held.
        for (size, length) in [(1, length), (7, length), (text.len(), length), (5, None)] {
            let (found, held) = arrive(&known, text.as_bytes(), length, size);
            let (odata_type, registry) = found.expect("known");
            assert!(Arc::ptr_eq(&registry, &first) && !held, "chunks of {size}");
            assert_eq!(&*odata_type, "#AttributeRegistry.v1_3_0.AttributeRegistry");
        }
        // A byte that differs, a body cut short, one that goes on, another length announced:
        // the body as it came, whole.
        let other = registry("DcbxMods");
        let longer = format!("{text} ");
        let cut = &text[..text.len() - 1];
        for (body, length) in [
            (other.as_str(), length),
            (cut, length),
            (longer.as_str(), length),
            (cut, Some(cut.len() as u64)),
        ] {
            for size in [1, 7, text.len()] {
                let (found, _) = arrive(&known, body.as_bytes(), length, size);
                assert_eq!(found.unwrap_err(), body.as_bytes(), "chunks of {size}");
            }
        }
        assert_eq!(known.read_count(), 1);
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
