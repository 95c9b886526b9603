//! Whole files written at a path the caller gives: a temporary file renamed over the target.

use std::io;
use std::path::Path;

use crate::folder::{Folder, WriteOptions};

/// Writes `bytes` to `path` atomically: a temporary file in the same directory, flushed to
/// disk, then renamed over the target. A crash leaves either the old file or the new one; a
/// symbolic link at `path` is replaced, never written through. An output path the operator
/// named (which may be a device, a FIFO or their link) is written by [`crate::write_output`].
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_in_parent(path, bytes, WriteOptions::PRIVATE)
}

/// [`write_atomic`] without flushing the file to disk first, for a file that can be written
/// again from elsewhere (a git work tree from its commit): a crash still leaves the old file
/// or the new one, but a power cut may leave the new one empty. Flushing costs a disk round
/// trip per file, which a promote of thousands of baselines cannot afford.
pub fn write_atomic_unsynced(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let options = WriteOptions {
        readable: false,
        sync: false,
    };
    write_in_parent(path, bytes, options)
}

/// [`write_atomic`] for a file other programs read (node_exporter reads a textfile as its own
/// user, a file share serves an HTML report): readable as any new file the user creates (0666
/// narrowed by the umask), where a temporary file is its owner's alone. A file it replaces
/// keeps its mode.
pub fn write_atomic_readable(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_in_parent(path, bytes, WriteOptions::READABLE)
}

/// Writes the file `path` names in the folder it names, as the operator gave both.
pub(crate) fn write_in_parent(path: &Path, bytes: &[u8], options: WriteOptions) -> io::Result<()> {
    let dir = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .and_then(|name| name.to_str())
        .ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{}: not the path of a file (or not UTF-8)", path.display()),
            )
        })?;
    Folder::open_at(dir)?
        .ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))?
        .write_atomic(name, bytes, options)
}
