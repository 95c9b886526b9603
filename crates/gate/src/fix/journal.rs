//! The record of an apply at work, written to its file at every change: before a request (its
//! step `sending`) and after its answer. Once a write of it fails, nothing more is sent.

use std::path::PathBuf;

use driftgate_fs::Folder;

use super::record::ApplyRecord;
use crate::GateError;
use crate::run::RunDir;

/// An apply's record and its file.
pub(crate) struct Journal {
    fix: Folder,
    name: String,
    file: PathBuf,
    /// What the apply did so far.
    pub(crate) record: ApplyRecord,
    /// Why the record could not be written, once it could not.
    pub(crate) error: Option<String>,
}

impl Journal {
    /// Writes `record` as the run's next `fix/apply-<N>.json`; the caller holds the apply lock.
    pub(crate) fn start(run: &RunDir, record: ApplyRecord) -> Result<Self, GateError> {
        let fix = run.fix_folder()?;
        let name = run.create_fix_record(&fix, &record)?;
        Ok(Journal {
            file: fix.path().join(&name),
            fix,
            name,
            record,
            error: None,
        })
    }

    /// Its file.
    pub(crate) fn file(&self) -> &PathBuf {
        &self.file
    }

    /// Writes the record as it is now; `false` (and the error kept) when it cannot be.
    pub(crate) fn save(&mut self) -> bool {
        if self.error.is_some() {
            return false;
        }
        match RunDir::rewrite_fix_record(&self.fix, &self.name, &self.record) {
            Ok(()) => true,
            Err(e) => {
                self.error = Some(e.to_string());
                false
            }
        }
    }
}
