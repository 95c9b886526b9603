//! Many new blobs written as packs, not as one loose object each. A fleet-wide promote writes
//! thousands: as loose objects each one was a temporary file created in `objects/`, then
//! renamed, with the file system's inode allocation for both, about a fifth of the promote
//! (BENCHMARKS.md, issue 14). git keeps what a fetch brings as a pack for the same reason
//! (`transfer.unpackLimit`). The pack holds whole objects, no deltas, compressed as git
//! compresses a loose object (zlib's fastest level); `git gc` deltifies them later like any
//! other pack. Bytes in, files out: nothing here reads the repository.

use std::fs::{self, Permissions};
use std::io::{self, BufWriter, Write};
use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;

use flate2::write::ZlibEncoder;
use flate2::{Compression, Crc};
use git2::Oid;
use rayon::prelude::*;
use sha1::{Digest as _, Sha1};

/// The fewest blobs written as a pack: git's own `transfer.unpackLimit`.
pub(super) const PACK_AT: usize = 100;

/// The most content one pack takes: its offsets stay below 2 GiB, the largest that a
/// version-2 index holds without its table of large offsets.
const PACK_CONTENT: usize = 1 << 30;

/// How many blobs are compressed at once, on every core, before they are appended.
const COMPRESSED_AT_ONCE: usize = 256;

/// The pack object type of a blob.
const BLOB: u8 = 3;

/// An object of the pack being written, for its index.
struct Entry {
    id: Oid,
    /// CRC-32 of the object's bytes in the pack, header included.
    crc: u32,
    offset: u32,
}

/// Writes `blobs` (each with its id) into new packs in `pack_dir` (`objects/pack`). Each pack
/// becomes visible when its index is renamed into place, after the pack itself, so a reader
/// never finds an index without its pack.
pub(super) fn write_packs(pack_dir: &Path, blobs: &[(&[u8], Oid)]) -> io::Result<()> {
    fs::create_dir_all(pack_dir)?;
    let mut start = 0;
    while start < blobs.len() {
        let mut end = start;
        let mut content = 0;
        while end < blobs.len() && (end == start || content + blobs[end].0.len() <= PACK_CONTENT) {
            content += blobs[end].0.len();
            end += 1;
        }
        write_pack(pack_dir, &blobs[start..end])?;
        start = end;
    }
    Ok(())
}

/// One pack of `blobs`, with its index.
fn write_pack(pack_dir: &Path, blobs: &[(&[u8], Oid)]) -> io::Result<()> {
    let count = u32::try_from(blobs.len())
        .map_err(|_| io::Error::other("more objects than a pack holds"))?;
    let mut pack = tempfile::Builder::new()
        .prefix("tmp_pack_")
        .tempfile_in(pack_dir)?;
    let (mut entries, checksum) = {
        let mut out = Hashing::new(BufWriter::new(pack.as_file_mut()));
        out.write_all(b"PACK")?;
        out.write_all(&2u32.to_be_bytes())?;
        out.write_all(&count.to_be_bytes())?;
        let mut entries = Vec::with_capacity(blobs.len());
        for run in blobs.chunks(COMPRESSED_AT_ONCE) {
            let objects: Vec<_> = run.par_iter().map(|(content, _)| object(content)).collect();
            for (object, (_, id)) in objects.into_iter().zip(run) {
                let object = object?;
                let offset = u32::try_from(out.written)
                    .ok()
                    .filter(|offset| *offset < 1 << 31)
                    .ok_or_else(|| io::Error::other("a pack grew past 2 GiB"))?;
                let mut crc = Crc::new();
                crc.update(&object);
                entries.push(Entry {
                    id: *id,
                    crc: crc.sum(),
                    offset,
                });
                out.write_all(&object)?;
            }
        }
        let Hashing {
            inner: mut file,
            sha1,
            ..
        } = out;
        let checksum = sha1.finalize();
        file.write_all(&checksum)?;
        file.flush()?;
        (entries, checksum)
    };
    let mut idx = tempfile::Builder::new()
        .prefix("tmp_idx_")
        .tempfile_in(pack_dir)?;
    idx.write_all(&index(&mut entries, &checksum))?;
    // Read-only, as git and libgit2 leave packs: nothing rewrites a pack in place.
    for file in [pack.as_file(), idx.as_file()] {
        file.set_permissions(Permissions::from_mode(0o444))?;
    }
    let name = format!("pack-{}", hex::encode(checksum));
    pack.persist(pack_dir.join(format!("{name}.pack")))
        .map_err(|e| e.error)?;
    idx.persist(pack_dir.join(format!("{name}.idx")))
        .map_err(|e| e.error)?;
    Ok(())
}

/// A version-2 pack index of `entries` (ids unique): the 256 counts of ids by first byte,
/// the sorted ids, their CRCs, their offsets, the pack's checksum and the index's own.
fn index(entries: &mut [Entry], pack_checksum: &[u8]) -> Vec<u8> {
    entries.sort_unstable_by_key(|e| e.id);
    let mut idx = Vec::with_capacity(8 + 256 * 4 + entries.len() * 28 + 40);
    idx.extend_from_slice(b"\xfftOc");
    idx.extend_from_slice(&2u32.to_be_bytes());
    let mut fanout = [0u32; 256];
    for entry in entries.iter() {
        fanout[usize::from(entry.id.as_bytes()[0])] += 1;
    }
    let mut below = 0u32;
    for count in fanout {
        below += count;
        idx.extend_from_slice(&below.to_be_bytes());
    }
    for entry in entries.iter() {
        idx.extend_from_slice(entry.id.as_bytes());
    }
    for entry in entries.iter() {
        idx.extend_from_slice(&entry.crc.to_be_bytes());
    }
    for entry in entries.iter() {
        idx.extend_from_slice(&entry.offset.to_be_bytes());
    }
    idx.extend_from_slice(pack_checksum);
    let own = Sha1::digest(&idx);
    idx.extend_from_slice(&own);
    idx
}

/// A blob as a pack stores it: its type and size, then its zlib stream.
fn object(content: &[u8]) -> io::Result<Vec<u8>> {
    let mut bytes = header(BLOB, content.len());
    let mut zlib = ZlibEncoder::new(bytes, Compression::fast());
    zlib.write_all(content)?;
    bytes = zlib.finish()?;
    Ok(bytes)
}

/// An object's header: its type in bits 4–6 of the first byte, its size in the low 4 bits
/// and then 7 bits a byte, lowest first, each byte but the last with its top bit set.
fn header(kind: u8, size: usize) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(16);
    let mut byte = (kind << 4) | (size & 0x0f) as u8;
    let mut rest = size >> 4;
    while rest > 0 {
        bytes.push(byte | 0x80);
        byte = (rest & 0x7f) as u8;
        rest >>= 7;
    }
    bytes.push(byte);
    bytes
}

/// A writer that keeps the SHA-1 and the count of what went through it.
struct Hashing<W> {
    inner: W,
    sha1: Sha1,
    written: u64,
}

impl<W: Write> Hashing<W> {
    fn new(inner: W) -> Self {
        Hashing {
            inner,
            sha1: Sha1::new(),
            written: 0,
        }
    }
}

impl<W: Write> Write for Hashing<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.sha1.update(&buf[..n]);
        self.written += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}
