//! Loose objects read without libgit2, with a bound on what is read and a check of what was.
//!
//! libgit2 1.9.7 (the newest `libgit2-sys` bundles) loops forever on a loose object whose zlib
//! stream is cut short: `inflate` answers "no progress" and its read loop asks again
//! (libgit2/libgit2#7342, fixed upstream by #7346 after that release). A baseline truncated on
//! disk then held `baseline show` at 100 % CPU until it was killed. Every loose object the
//! store reads therefore comes through here: the inflation ends when the stream, the input or
//! the size its header declares ends, whichever is first, and the object must be exactly what
//! its header and its name (the SHA-1 of its content) say. Packed objects are left to libgit2,
//! whose pack reader stops when it makes no progress.

use std::fs::File;
use std::io::{self, Read as _};
use std::path::{Path, PathBuf};

use flate2::{Decompress, FlushDecompress, Status};
use git2::{ObjectType, Oid};
use rustix::fs::{Mode, OFlags};
use rustix::io::Errno;
use sha1::{Digest as _, Sha1};

/// Why a loose object cannot be read; the caller names the object and its file.
#[derive(Debug, thiserror::Error)]
pub(super) enum LooseError {
    /// The file cannot be opened or read.
    #[error("{0}")]
    Io(#[from] io::Error),
    /// Not a plain file (a FIFO would block the read, a folder is nothing to read).
    #[error("not a regular file")]
    NotAFile,
    /// The file is larger than any object the store reads could be, compressed.
    #[error("the file has {0} bytes, more than an object may have")]
    FileTooLarge(u64),
    /// An empty file.
    #[error("the file is empty")]
    Empty,
    /// The zlib stream is damaged.
    #[error("its zlib stream is damaged ({0})")]
    Zlib(String),
    /// The zlib stream ends before the object does.
    #[error("it is cut short: {inflated} bytes of the {declared} its header declares")]
    Truncated {
        /// Content bytes inflated.
        inflated: u64,
        /// Content bytes the header declares.
        declared: u64,
    },
    /// The stream ends inside the header.
    #[error("it is cut short inside its header")]
    CutInHeader,
    /// More content than the header declares.
    #[error("it holds more than the {declared} bytes its header declares")]
    Longer {
        /// Bytes the header declares (content only).
        declared: u64,
    },
    /// Bytes after the end of the zlib stream.
    #[error("there are bytes after the end of its zlib stream")]
    TrailingBytes,
    /// No `<type> <size>\0` header.
    #[error("it has no valid object header")]
    BadHeader,
    /// The header declares more than the limit.
    #[error("its header declares {declared} bytes, more than the {limit} an object may have")]
    TooLarge {
        /// Declared size.
        declared: u64,
        /// The limit.
        limit: usize,
    },
    /// Another kind of object than the one asked for.
    #[error("it is a {found}, not a {wanted}")]
    Kind {
        /// What the header says.
        found: ObjectType,
        /// What the caller asked for.
        wanted: ObjectType,
    },
    /// The content does not hash to the object's name.
    #[error("its content hashes to {0}, not to its name")]
    Hash(Oid),
}

/// The file of loose object `id` in the objects folder `objects`.
pub(super) fn path(objects: &Path, id: Oid) -> PathBuf {
    let hex = id.to_string();
    objects.join(&hex[..2]).join(&hex[2..])
}

/// The content of the loose object at `file`, named `id`, which must be a `kind` (`Any`
/// accepts every kind) of at most `limit` bytes; `None` when there is no such file (the
/// object is packed, or absent).
pub(super) fn read(
    file: &Path,
    id: Oid,
    kind: ObjectType,
    limit: usize,
) -> Result<Option<(ObjectType, Vec<u8>)>, LooseError> {
    let Some(compressed) = read_file(file, limit)? else {
        return Ok(None);
    };
    let inflated = inflate(&compressed, HEADER_MAX + limit + 1)?;
    let (found, declared, start) = header(&inflated, kind, limit)?;
    let content = &inflated.bytes[start..];
    if content.len() > declared {
        return Err(LooseError::Longer {
            declared: declared as u64,
        });
    }
    if content.len() < declared || !inflated.ended {
        return Err(LooseError::Truncated {
            inflated: content.len() as u64,
            declared: declared as u64,
        });
    }
    if inflated.consumed != compressed.len() {
        return Err(LooseError::TrailingBytes);
    }
    let mut hasher = Sha1::new();
    hasher.update(&inflated.bytes);
    let hashed = Oid::from_bytes(&hasher.finalize()).expect("a SHA-1 digest is 20 bytes");
    if hashed != id {
        return Err(LooseError::Hash(hashed));
    }
    let mut bytes = inflated.bytes;
    bytes.drain(..start);
    Ok(Some((found, bytes)))
}

/// The kind and the first `len` bytes of the content of the loose object at `file`, a `kind`
/// (`Any` accepts every kind): for a commit whose tree is all that is needed (a fleet
/// promote's commit message names every host), or an object whose kind is. Only about that
/// much is inflated and nothing is hashed; `None` when there is no such file.
pub(super) fn read_prefix(
    file: &Path,
    kind: ObjectType,
    len: usize,
    limit: usize,
) -> Result<Option<(ObjectType, Vec<u8>)>, LooseError> {
    let Some(compressed) = read_file(file, limit)? else {
        return Ok(None);
    };
    let inflated = inflate(&compressed, HEADER_MAX + len)?;
    let (found, declared, start) = header(&inflated, kind, limit)?;
    let want = len.min(declared);
    let content = &inflated.bytes[start..];
    if content.len() < want {
        return Err(LooseError::Truncated {
            inflated: content.len() as u64,
            declared: declared as u64,
        });
    }
    Ok(Some((found, content[..want].to_vec())))
}

/// The longest header: `commit 18446744073709551615` and its NUL.
const HEADER_MAX: usize = 28;

/// What inflating a loose object's file gave.
struct Inflated {
    /// The inflated bytes, header included.
    bytes: Vec<u8>,
    /// Whether the zlib stream ended (checksum verified).
    ended: bool,
    /// Compressed bytes used.
    consumed: usize,
}

/// Inflates `input` until its zlib stream ends, it makes no more progress (cut short), or at
/// least `most` bytes came out.
fn inflate(input: &[u8], most: usize) -> Result<Inflated, LooseError> {
    let mut zlib = Decompress::new(true);
    let mut bytes = Vec::new();
    loop {
        if bytes.len() >= most {
            return Ok(Inflated {
                bytes,
                ended: false,
                consumed: zlib.total_in() as usize,
            });
        }
        bytes.reserve((most - bytes.len()).min(CHUNK));
        let before = (zlib.total_in(), zlib.total_out());
        let used = zlib.total_in() as usize;
        let status = zlib
            .decompress_vec(&input[used..], &mut bytes, FlushDecompress::None)
            .map_err(|e| LooseError::Zlib(e.to_string()))?;
        let ended = status == Status::StreamEnd;
        // Progress is what bounds this loop: no input used and no output made means the
        // stream can go no further.
        if ended || (zlib.total_in(), zlib.total_out()) == before {
            return Ok(Inflated {
                bytes,
                ended,
                consumed: zlib.total_in() as usize,
            });
        }
    }
}

/// Bytes inflated at a time.
const CHUNK: usize = 256 * 1024;

/// The `<type> <size>\0` header of `inflated`: the object's kind, which must be `wanted` (any,
/// for `ObjectType::Any`), its size, at most `limit`, and where its content starts.
fn header(
    inflated: &Inflated,
    wanted: ObjectType,
    limit: usize,
) -> Result<(ObjectType, usize, usize), LooseError> {
    let head = &inflated.bytes[..inflated.bytes.len().min(HEADER_MAX)];
    let Some(nul) = head.iter().position(|&b| b == 0) else {
        return Err(if inflated.ended || head.len() == HEADER_MAX {
            LooseError::BadHeader
        } else if inflated.bytes.is_empty() {
            LooseError::Zlib("no data".to_owned())
        } else {
            LooseError::CutInHeader
        });
    };
    let text = std::str::from_utf8(&head[..nul]).map_err(|_| LooseError::BadHeader)?;
    let (kind, size) = text.split_once(' ').ok_or(LooseError::BadHeader)?;
    let found = ObjectType::from_str(kind)
        .filter(|k| {
            matches!(
                k,
                ObjectType::Commit | ObjectType::Tree | ObjectType::Blob | ObjectType::Tag
            )
        })
        .ok_or(LooseError::BadHeader)?;
    let canonical = !size.is_empty()
        && size.bytes().all(|b| b.is_ascii_digit())
        && (size == "0" || !size.starts_with('0'));
    let declared: u64 = canonical
        .then(|| size.parse().ok())
        .flatten()
        .ok_or(LooseError::BadHeader)?;
    if declared > limit as u64 {
        return Err(LooseError::TooLarge { declared, limit });
    }
    if wanted != ObjectType::Any && found != wanted {
        return Err(LooseError::Kind { found, wanted });
    }
    Ok((found, declared as usize, nul + 1))
}

/// The bytes of `file`, opened without following a link or blocking on a FIFO, and never more
/// than an object of `limit` bytes takes compressed; `None` when it does not exist.
fn read_file(file: &Path, limit: usize) -> Result<Option<Vec<u8>>, LooseError> {
    let flags = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let mut opened = match rustix::fs::open(file, flags, Mode::empty()) {
        Ok(opened) => File::from(opened),
        Err(Errno::NOENT) => return Ok(None),
        Err(e) => return Err(io::Error::from(e).into()),
    };
    let metadata = opened.metadata()?;
    if !metadata.is_file() {
        return Err(LooseError::NotAFile);
    }
    // Deflate makes incompressible data only slightly larger.
    let most = (HEADER_MAX + limit) as u64 * 9 / 8 + 1024;
    if metadata.len() > most {
        return Err(LooseError::FileTooLarge(metadata.len()));
    }
    if metadata.len() == 0 {
        return Err(LooseError::Empty);
    }
    let mut bytes = Vec::with_capacity(metadata.len() as usize);
    // The file may grow while it is read: never past the bound.
    (&mut opened).take(most).read_to_end(&mut bytes)?;
    Ok(Some(bytes))
}

#[cfg(test)]
mod tests {
    use std::io::Write as _;

    use flate2::Compression;
    use flate2::write::ZlibEncoder;
    use git2::{ObjectType, Oid};

    use super::{LooseError, read, read_prefix};

    const LIMIT: usize = 1 << 20;

    fn deflate(bytes: &[u8]) -> Vec<u8> {
        let mut encoder = ZlibEncoder::new(Vec::new(), Compression::fast());
        encoder.write_all(bytes).unwrap();
        encoder.finish().unwrap()
    }

    /// A blob as git stores it: its id and its file's bytes.
    fn loose_blob(content: &[u8]) -> (Oid, Vec<u8>) {
        let mut object = format!("blob {}\0", content.len()).into_bytes();
        object.extend_from_slice(content);
        let id = Oid::hash_object(ObjectType::Blob, content).unwrap();
        (id, deflate(&object))
    }

    fn read_bytes(
        file: &[u8],
        id: Oid,
        kind: ObjectType,
    ) -> Result<Option<(ObjectType, Vec<u8>)>, LooseError> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("object");
        std::fs::write(&path, file).unwrap();
        read(&path, id, kind, LIMIT)
    }

    fn content() -> Vec<u8> {
        (0..20_000u32)
            .flat_map(|i| format!("\"fact/{i}\": {}\n", i * 7).into_bytes())
            .collect()
    }

    #[test]
    fn a_whole_object_reads_as_git_wrote_it_and_an_absent_one_is_none() {
        let dir = tempfile::tempdir().unwrap();
        let repo = git2::Repository::init(dir.path()).unwrap();
        let content = content();
        let id = repo.blob(&content).unwrap();
        let file = super::path(&dir.path().join(".git/objects"), id);
        let (kind, read_back) = read(&file, id, ObjectType::Blob, LIMIT).unwrap().unwrap();
        assert_eq!((kind, read_back), (ObjectType::Blob, content.clone()));
        let (kind, prefix) = read_prefix(&file, ObjectType::Any, 10, LIMIT)
            .unwrap()
            .unwrap();
        assert_eq!(
            (kind, prefix.as_slice()),
            (ObjectType::Blob, &content[..10])
        );
        let absent = super::path(&dir.path().join(".git/objects"), Oid::ZERO_SHA1);
        assert!(
            read(&absent, Oid::ZERO_SHA1, ObjectType::Any, LIMIT)
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn a_file_cut_anywhere_is_an_error_never_a_loop() {
        let (id, file) = loose_blob(&content());
        let step = (file.len() / 200).max(1);
        for cut in (0..file.len()).step_by(step).chain([file.len() - 1]) {
            let error = read_bytes(&file[..cut], id, ObjectType::Blob).unwrap_err();
            assert!(
                matches!(
                    error,
                    LooseError::Empty
                        | LooseError::Zlib(_)
                        | LooseError::CutInHeader
                        | LooseError::Truncated { .. }
                ),
                "cut at {cut}: {error}"
            );
        }
    }

    #[test]
    fn every_kind_of_damage_is_named() {
        let content = content();
        let (id, good) = loose_blob(&content);
        let reframed = |header: &str| {
            let mut object = header.as_bytes().to_vec();
            object.extend_from_slice(&content);
            deflate(&object)
        };
        let mut trailing = good.clone();
        trailing.extend_from_slice(b"junk");
        let garbage: Vec<u8> = (0..good.len()).map(|i| (i * 131 % 251) as u8).collect();
        let mut flipped = good.clone();
        let middle = flipped.len() / 2;
        flipped[middle] ^= 0x55;
        let cases: Vec<(&str, Vec<u8>, ObjectType, &str)> = vec![
            (
                "zero bytes",
                Vec::new(),
                ObjectType::Blob,
                "the file is empty",
            ),
            (
                "garbage",
                garbage,
                ObjectType::Blob,
                "zlib stream is damaged",
            ),
            (
                "a flipped byte",
                flipped,
                ObjectType::Blob,
                "zlib stream is damaged",
            ),
            (
                "a header too large",
                reframed(&format!("blob {}\0", content.len() + 10)),
                ObjectType::Blob,
                "cut short",
            ),
            (
                "a header too small",
                reframed(&format!("blob {}\0", content.len() - 10)),
                ObjectType::Blob,
                "holds more than",
            ),
            (
                "a header with a sign",
                reframed(&format!("blob +{}\0", content.len())),
                ObjectType::Blob,
                "no valid object header",
            ),
            (
                "no header",
                deflate(&content),
                ObjectType::Blob,
                "no valid object header",
            ),
            (
                "a header beyond the limit",
                reframed(&format!("blob {}\0", LIMIT + 1)),
                ObjectType::Blob,
                "more than the",
            ),
            (
                "bytes after the stream",
                trailing,
                ObjectType::Blob,
                "after the end",
            ),
            (
                "another kind",
                good.clone(),
                ObjectType::Tree,
                "is a blob, not a tree",
            ),
        ];
        for (what, file, kind, says) in cases {
            let error = read_bytes(&file, id, kind).unwrap_err().to_string();
            assert!(error.contains(says), "{what}: {error}");
        }
        // Whole, but not the object its name says.
        let (other, _) = loose_blob(b"something else");
        let error = read_bytes(&good, other, ObjectType::Blob).unwrap_err();
        assert!(
            matches!(error, LooseError::Hash(found) if found == id),
            "{error}"
        );
    }

    #[test]
    fn what_is_not_a_file_is_never_waited_on() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        rustix::fs::mkfifoat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
        )
        .unwrap();
        let error = read(&fifo, Oid::ZERO_SHA1, ObjectType::Any, LIMIT).unwrap_err();
        assert!(matches!(error, LooseError::NotAFile), "{error}");
        let error = read(dir.path(), Oid::ZERO_SHA1, ObjectType::Any, LIMIT).unwrap_err();
        assert!(
            matches!(error, LooseError::NotAFile | LooseError::Io(_)),
            "{error}"
        );
        let (id, good) = loose_blob(b"x");
        std::fs::write(dir.path().join("real"), good).unwrap();
        std::os::unix::fs::symlink(dir.path().join("real"), dir.path().join("link")).unwrap();
        let error = read(&dir.path().join("link"), id, ObjectType::Blob, LIMIT).unwrap_err();
        assert!(matches!(error, LooseError::Io(_)), "{error}");
    }
}
