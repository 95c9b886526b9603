//! Secret attributes, however their names are spelt, reach no file a capture writes.
//!
//! Generated spellings of every secret word the filter knows are planted, with values naming
//! them, in the current and pending BIOS attributes and in the current and pending Dell NIC
//! (HII) attributes of the seed-1 post-update mockup served from memory. The capture runs the
//! path `driftgate capture --save-mockup` runs (crawl, saved copy, normalization); then no
//! planted value may be in the sealed snapshot, in any file of the saved mockup, or in the
//! report of the snapshot against the seed-1 baseline in any format. Harmless controls planted
//! beside them must arrive, so the property cannot hold by capturing nothing.

use proptest::prelude::*;
use serde_json::{Value, json};

use driftgate_collect::SourceCapture;
use driftgate_compare::JudgeOptions;
use driftgate_redfish::{RedfishOptions, capture_from};
use driftgate_report::{Extras, Format};
use driftgate_snapshot::SourceStatus;

use crate::redfish_fuzz::{Memory, sealed, seed};

const FUNCTION: &str = "/redfish/v1/Chassis/System.Embedded.1/NetworkAdapters/NIC.Slot.3/NetworkDeviceFunctions/NIC.Slot.3-1-1/Oem/Dell/DellNetworkAttributes/NIC.Slot.3-1-1";
const BIOS: &str = "/redfish/v1/Systems/System.Embedded.1/Bios";

/// What every planted value starts with.
const PLANTED: &str = "PLANTED-";

/// The seed's post-update mockup with each of `names` planted in the attributes of the BIOS
/// and of one NIC function, current and pending, valued `PLANTED-<side>-<index>`; a harmless
/// `KeyboardLayout` valued `control-<side>` beside them.
fn planted(names: &[String]) -> Memory {
    let mut memory = seed().intact.clone();
    let sides = [
        (BIOS.to_owned(), "bios"),
        (format!("{BIOS}/Settings"), "bios-pending"),
        (FUNCTION.to_owned(), "nic"),
        (format!("{FUNCTION}/Settings"), "nic-pending"),
    ];
    for (uri, side) in sides {
        let bytes = memory
            .bodies
            .get_mut(&uri)
            .expect("the seed has the resource");
        let mut body: Value = serde_json::from_slice(bytes).expect("the seed is JSON");
        let attributes = body["Attributes"]
            .as_object_mut()
            .expect("the resource has attributes");
        for (index, name) in names.iter().enumerate() {
            attributes.insert(name.clone(), json!(format!("{PLANTED}{side}-{index}")));
        }
        attributes.insert(
            "KeyboardLayout".to_owned(),
            json!(format!("control-{side}")),
        );
        *bytes = serde_json::to_vec(&body).expect("serializes");
    }
    memory
}

/// A capture of `memory` saving its mockup to `saved`, as `capture --save-mockup` does.
fn capture_saving(memory: &Memory, saved: &std::path::Path) -> SourceCapture {
    let options = RedfishOptions {
        save_mockup: Some(saved.to_owned()),
        ..RedfishOptions::default()
    };
    tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime")
        .block_on(capture_from(memory, 4, &options))
}

/// Every file under `dir`, with its text.
fn files(dir: &std::path::Path, found: &mut Vec<(std::path::PathBuf, String)>) {
    for entry in std::fs::read_dir(dir).expect("the saved mockup is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            files(&path, found);
        } else {
            let text = std::fs::read_to_string(&path).expect("a saved file is text");
            found.push((path, text));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn no_spelling_of_a_secret_reaches_the_snapshot_the_saved_mockup_or_a_report(
        names in prop::collection::btree_set(driftgate_secrets::spellings::secret_name(), 1..6),
    ) {
        let names: Vec<String> = names.into_iter().collect();
        let saved = tempfile::tempdir().expect("a temporary folder");
        let captured = capture_saving(&planted(&names), saved.path());
        prop_assert_eq!(captured.status, SourceStatus::Complete, "{:?}", captured.error);
        let snapshot = sealed(&captured);
        let text = snapshot.to_canonical_json();
        prop_assert!(!text.contains(PLANTED), "{:?} in the snapshot:\n{}", names, text);
        for control in [
            "bios/KeyboardLayout",
            "bios/pending/KeyboardLayout",
            "nic/00:0a:f7:12:34:56/bmc/function/00:0a:f7:12:34:56/hii/KeyboardLayout",
            "nic/00:0a:f7:12:34:56/bmc/function/00:0a:f7:12:34:56/pending/hii/KeyboardLayout",
        ] {
            prop_assert!(text.contains(control), "{} missing:\n{}", control, text);
        }
        let mut saved_files = Vec::new();
        files(saved.path(), &mut saved_files);
        prop_assert!(saved_files.len() > 30, "{} files saved", saved_files.len());
        for (path, text) in &saved_files {
            prop_assert!(!text.contains(PLANTED), "{:?} in {}", names, path.display());
        }
        let seed = seed();
        let report = driftgate_compare::judge(
            &snapshot,
            Some(&seed.baseline),
            &seed.policy,
            &JudgeOptions::default(),
        );
        let stories = driftgate_compare::stories(&report, &snapshot.snapshot().facts);
        for format in Format::ALL {
            let mut out = Vec::new();
            let document = driftgate_report::Document::Check(&report, &stories);
            driftgate_report::render(document, format, &Extras::default(), &mut out).expect("renders");
            let out = String::from_utf8(out).expect("reports are UTF-8");
            prop_assert!(!out.contains(PLANTED), "{:?} in the {} report", names, format.name());
            // Prometheus counts findings and shows no value.
            if format != Format::Prometheus {
                prop_assert!(out.contains("control-bios"), "{} report: {}", format.name(), out);
            }
        }
    }
}
