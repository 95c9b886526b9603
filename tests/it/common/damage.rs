//! Damage to one object of a git store, in the shapes disks and careless hands give it: a loose
//! object cut short, overwritten with garbage, re-written with a wrong size in its header or
//! emptied, and a pack whose bytes for the object are flipped.

use std::io::Write as _;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

use super::git;

/// One shape of damage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Damage {
    /// The loose object's file cut in half.
    Truncated,
    /// The loose object's file overwritten with bytes that are not zlib.
    Garbage,
    /// The loose object deflated again with a header declaring ten bytes more than it holds.
    WrongSize,
    /// The loose object's file emptied.
    ZeroBytes,
    /// The store repacked, then bytes in the middle of the object's entry in the pack flipped.
    DamagedPack,
}

impl Damage {
    /// Every shape.
    pub(crate) const ALL: [Damage; 5] = [
        Damage::Truncated,
        Damage::Garbage,
        Damage::WrongSize,
        Damage::ZeroBytes,
        Damage::DamagedPack,
    ];
}

/// The loose file of object `id` in `store` (a work tree).
pub(crate) fn loose_file(store: &Path, id: &str) -> PathBuf {
    store.join(".git/objects").join(&id[..2]).join(&id[2..])
}

/// Damages object `id` (hex) of the store at `store` in `shape`; returns the file damaged.
pub(crate) fn damage(store: &Path, id: &str, shape: Damage) -> PathBuf {
    if shape == Damage::DamagedPack {
        return damage_pack(store, id);
    }
    let file = loose_file(store, id);
    let bytes = std::fs::read(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let damaged = match shape {
        Damage::Truncated => bytes[..bytes.len() / 2].to_vec(),
        Damage::Garbage => (0..bytes.len()).map(|i| (i * 131 % 251) as u8).collect(),
        Damage::WrongSize => {
            let object = inflate(&bytes);
            let nul = object.iter().position(|&b| b == 0).expect("a header");
            let header = std::str::from_utf8(&object[..nul]).expect("an ASCII header");
            let (kind, size) = header.split_once(' ').expect("kind and size");
            let size: usize = size.parse().expect("a size");
            let mut reframed = format!("{kind} {}\0", size + 10).into_bytes();
            reframed.extend_from_slice(&object[nul + 1..]);
            deflate(&reframed)
        }
        Damage::ZeroBytes => Vec::new(),
        Damage::DamagedPack => unreachable!("handled above"),
    };
    write(&file, &damaged);
    file
}

/// Repacks the store and flips bytes in the middle of object `id`'s entry in the pack.
fn damage_pack(store: &Path, id: &str) -> PathBuf {
    git(store, &["repack", "-a", "-d", "-q"]);
    git(store, &["prune-packed"]);
    let packs = store.join(".git/objects/pack");
    let idx = std::fs::read_dir(&packs)
        .expect("the pack folder reads")
        .map(|e| e.expect("a pack folder entry").path())
        .find(|p| p.extension().is_some_and(|e| e == "idx"))
        .expect("a pack index");
    // `sha1 type size size-in-pack offset`
    let listing = git(
        store,
        &["verify-pack", "-v", idx.to_str().expect("a UTF-8 path")],
    );
    let line = listing
        .lines()
        .find(|l| l.starts_with(id))
        .unwrap_or_else(|| panic!("{id} is not in the pack: {listing}"));
    let fields: Vec<usize> = line
        .split_whitespace()
        .skip(3)
        .take(2)
        .map(|f| f.parse().expect("a number"))
        .collect();
    let (in_pack, offset) = (fields[0], fields[1]);
    let pack = idx.with_extension("pack");
    let mut bytes = std::fs::read(&pack).expect("the pack reads");
    let middle = offset + in_pack / 2;
    for byte in &mut bytes[middle..middle + 8] {
        *byte ^= 0x55;
    }
    write(&pack, &bytes);
    pack
}

fn write(file: &Path, bytes: &[u8]) {
    std::fs::set_permissions(file, std::fs::Permissions::from_mode(0o644))
        .expect("the object may be made writable");
    std::fs::write(file, bytes).expect("the object is writable");
}

fn inflate(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::ZlibDecoder::new(bytes), &mut out)
        .expect("a whole zlib stream");
    out
}

fn deflate(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(bytes).expect("deflating into memory");
    encoder.finish().expect("deflating into memory")
}
