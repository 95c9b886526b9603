//! `dir:PATH`: recorded outputs read from a folder.

use std::io::Read;
use std::path::{Path, PathBuf};

use super::command::*;

/// Reads recorded outputs from a folder.
pub struct DirTransport {
    pub(super) dir: PathBuf,
}

impl CommandTransport for DirTransport {
    fn target(&self) -> String {
        format!("dir:{}", self.dir.display())
    }

    fn run(&self, spec: &CommandSpec<'_>) -> Result<CommandOutput, TransportError> {
        // A file name comes from what a recording says (an interface name in `ip-link.json`):
        // one that climbs out of the folder or into another is refused, never read.
        let mut parts = Path::new(spec.file).components();
        if !matches!(
            (parts.next(), parts.next()),
            (Some(std::path::Component::Normal(_)), None)
        ) {
            return Err(TransportError::Spawn {
                target: self.target(),
                command: spec.display(),
                reason: format!("{:?} is not a file name in the recording folder", spec.file),
            });
        }
        let path = self.dir.join(spec.file);
        let stdout = match read_limited(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(TransportError::NotRecorded {
                    target: self.target(),
                    command: spec.display(),
                    file: path.display().to_string(),
                });
            }
            Err(e) if e.kind() == std::io::ErrorKind::FileTooLarge => {
                return Err(TransportError::TooLarge {
                    target: self.target(),
                    command: spec.display(),
                });
            }
            Err(e) => {
                return Err(TransportError::Spawn {
                    target: self.target(),
                    command: spec.display(),
                    reason: format!("{}: {e}", path.display()),
                });
            }
        };
        let sibling = |suffix: &str| {
            read_limited(&path.with_file_name(format!("{}{suffix}", spec.file))).ok()
        };
        let stderr = sibling(".stderr").unwrap_or_default();
        let status = match sibling(".exit") {
            Some(bytes) => String::from_utf8_lossy(&bytes)
                .trim()
                .parse()
                .map_err(|_| TransportError::Spawn {
                    target: self.target(),
                    command: spec.display(),
                    reason: format!("{}.exit does not hold an exit status", path.display()),
                })?,
            None => 0,
        };
        Ok(CommandOutput {
            status,
            stdout,
            stderr,
        })
    }
}

fn read_limited(path: &Path) -> std::io::Result<Vec<u8>> {
    let file = std::fs::File::open(path)?;
    let mut bytes = Vec::new();
    file.take(OUTPUT_LIMIT as u64 + 1).read_to_end(&mut bytes)?;
    if bytes.len() > OUTPUT_LIMIT {
        return Err(std::io::Error::new(
            std::io::ErrorKind::FileTooLarge,
            "recording too large",
        ));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_name_that_leaves_the_folder_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("inside.txt"), "x").unwrap();
        let transport = DirTransport {
            dir: dir.path().join("recording"),
        };
        std::fs::create_dir(&transport.dir).unwrap();
        for file in ["../inside.txt", "/etc/hostname", "sub/x.txt", ""] {
            let spec = CommandSpec {
                file,
                argv: &["cat"],
                stdin: None,
            };
            let error = transport.run(&spec).unwrap_err().to_string();
            assert!(
                error.contains("is not a file name in the recording folder"),
                "{file}: {error}"
            );
        }
    }

    #[test]
    fn recorded_outputs_come_with_optional_stderr_and_exit_status() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "hello\n").unwrap();
        std::fs::write(dir.path().join("b.txt"), "").unwrap();
        std::fs::write(dir.path().join("b.txt.stderr"), "Unknown command\n").unwrap();
        std::fs::write(dir.path().join("b.txt.exit"), "1\n").unwrap();
        let recorded = DirTransport {
            dir: dir.path().to_path_buf(),
        };
        let a = recorded
            .run(&CommandSpec {
                file: "a.txt",
                argv: &["a"],
                stdin: None,
            })
            .unwrap();
        assert_eq!((a.status, a.stdout.as_slice()), (0, &b"hello\n"[..]));
        let b = recorded
            .run(&CommandSpec {
                file: "b.txt",
                argv: &["b"],
                stdin: None,
            })
            .unwrap();
        assert_eq!((b.status, b.stderr_line().as_str()), (1, "Unknown command"));
        let c = recorded
            .run(&CommandSpec {
                file: "c.txt",
                argv: &["c", "d"],
                stdin: None,
            })
            .unwrap_err();
        assert!(
            c.to_string().contains("`c d` was not recorded (no file "),
            "{c}"
        );
    }
}
