//! driftgate's own folder in a store's work tree.

use std::io;
use std::path::Path;

use crate::folder::{Folder, WriteOptions};

/// The folder of driftgate's own files in a store's work tree (the gate's run directories):
/// ignored by git.
pub const PRIVATE_DIR: &str = ".driftgate";

/// The ignore file of `PRIVATE_DIR`, relative to the work tree.
pub const PRIVATE_IGNORE: &str = ".driftgate/.gitignore";

/// `PRIVATE_DIR` in the work tree `work_tree`, created with a `.gitignore` of `*` (so that
/// nothing in it shows in `git status`) when missing; never reached through a link. The
/// flag: the `.gitignore` was written now (a store made before `baseline init` wrote one, or
/// a fresh clone), which the caller tells the operator.
pub fn private_folder(work_tree: &Path) -> io::Result<(Folder, bool)> {
    let folder = Folder::open_at(work_tree)?
        .ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))?
        .create_child(PRIVATE_DIR)?;
    let created = folder.read(".gitignore")?.is_none();
    if created {
        folder.write_atomic(".gitignore", b"*\n", WriteOptions::PRIVATE)?;
    }
    Ok((folder, created))
}
