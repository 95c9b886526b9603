//! The output paths an operator names (`capture --out`, `snapshot seal --out`, `--report
//! FORMAT=FILE`) end to end: a character device, a FIFO or a socket there is written into and
//! stays what it was; a symbolic link is followed to the file or device it names and stays; a
//! link to nothing or a directory is refused and nothing is written, before the command's
//! work (a fleet's capture). A regular file is replaced atomically (tests/it/reports_cli.rs).
//! `/dev/stdout` is written into standard output itself, whatever it is: a file appended to,
//! a pipe, a socket.
//!
//! Never against the real `/dev/null`: the tests run as root, and a failing one would replace
//! the machine's. The device is a null device of the test's own, made with `mknod` in a
//! temporary folder (root only; skipped, saying so, otherwise).

use crate::common;

use std::ffi::CString;
use std::io::Read as _;
use std::os::unix::ffi::OsStrExt as _;
use std::os::unix::fs::{FileTypeExt as _, MetadataExt as _, symlink};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use common::fleet::{FleetLab, Host, State};
use common::simulator::{Simulator, bmc};
use common::{driftgate_process, example};

/// A command that writes one output path: its arguments with `OUT` where the path goes.
struct Writer {
    name: &'static str,
    args: Vec<String>,
}

/// Every kind of output path: a snapshot sealed, a snapshot captured, a report file.
fn writers() -> Vec<Writer> {
    let owned = |args: &[&str]| args.iter().map(|a| (*a).to_owned()).collect();
    let baseline = example("azure-local-dcbx/baseline.json");
    let post = example("azure-local-dcbx/post-update.json");
    let mockup = format!("redfish=mockup:{}", bmc("post-update").display());
    vec![
        Writer {
            name: "snapshot seal --out",
            args: owned(&["snapshot", "seal", &baseline, "--out", "OUT"]),
        },
        Writer {
            name: "capture --out",
            args: owned(&[
                "capture",
                "--host",
                "azl-node01",
                "--source",
                &mockup,
                "--out",
                "OUT",
            ]),
        },
        Writer {
            name: "check --report json=",
            args: owned(&[
                "check",
                "--snapshot",
                &post,
                "--baseline",
                &baseline,
                "--format",
                "json",
                "--report",
                "json=OUT",
            ]),
        },
        Writer {
            name: "check --report prometheus=",
            args: owned(&[
                "check",
                "--snapshot",
                &post,
                "--baseline",
                &baseline,
                "--format",
                "json",
                "--report",
                "prometheus=OUT",
            ]),
        },
    ]
}

/// What running a writer did.
struct Ran {
    code: i32,
    stderr: String,
}

fn run(writer: &Writer, out: &Path) -> Ran {
    let out = out.display().to_string();
    let args: Vec<String> = writer.args.iter().map(|a| a.replace("OUT", &out)).collect();
    let output = driftgate_process()
        .args(["--color", "never"])
        .args(&args)
        .output()
        .expect("driftgate runs");
    Ran {
        code: output.status.code().expect("exited normally"),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// The exit code and output of `writer` with a regular file, which the others must match.
fn with_a_file(writer: &Writer) -> (i32, Vec<u8>) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let file = dir.path().join("out");
    let ran = run(writer, &file);
    let bytes = std::fs::read(&file).unwrap_or_else(|e| panic!("{}: {e}", writer.name));
    assert!(!bytes.is_empty(), "{}: {}", writer.name, ran.stderr);
    (ran.code, bytes)
}

/// The same output, but for a capture's time (`captured_at`) and what depends on it.
fn same_output(writer: &Writer, got: &[u8], expected: &[u8]) {
    if writer.name.starts_with("capture") {
        let host = |bytes: &[u8]| {
            let doc: serde_json::Value = serde_json::from_slice(bytes).expect("a snapshot");
            (doc["host"].clone(), doc["facts"].clone())
        };
        assert_eq!(host(got), host(expected), "{}", writer.name);
    } else {
        assert_eq!(
            String::from_utf8_lossy(got),
            String::from_utf8_lossy(expected),
            "{}",
            writer.name
        );
    }
}

fn c_path(path: &Path) -> CString {
    CString::new(path.as_os_str().as_bytes()).expect("no NUL in a temporary path")
}

/// A null device (major 1, minor 3) at `path`, or why one cannot be made here.
fn null_device(path: &Path) -> Result<(), String> {
    // SAFETY: geteuid reads the process's credentials and touches no memory.
    if unsafe { libc::geteuid() } != 0 {
        return Err("not running as root: mknod needs CAP_MKNOD".to_owned());
    }
    let c = c_path(path);
    // SAFETY: `c` is a NUL-terminated path that lives across the call.
    let made = unsafe { libc::mknod(c.as_ptr(), libc::S_IFCHR | 0o666, libc::makedev(1, 3)) };
    if made != 0 {
        return Err(format!("mknod: {}", std::io::Error::last_os_error()));
    }
    Ok(())
}

fn mkfifo(path: &Path) {
    let c = c_path(path);
    // SAFETY: `c` is a NUL-terminated path that lives across the call.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo");
}

/// Asserts that `path` is still the null device `null_device` made.
#[track_caller]
fn still_the_device(path: &Path, what: &str) {
    let meta = std::fs::symlink_metadata(path).expect("still there");
    assert!(
        meta.file_type().is_char_device(),
        "{what}: {} was replaced by {:?}",
        path.display(),
        meta.file_type()
    );
    assert_eq!(meta.rdev(), libc::makedev(1, 3), "{what}: the same device");
}

#[track_caller]
fn still_a(path: &Path, is: fn(&std::fs::FileType) -> bool, what: &str) {
    let kind = std::fs::symlink_metadata(path)
        .expect("still there")
        .file_type();
    assert!(is(&kind), "{what}: {} is now {kind:?}", path.display());
}

/// A reader of the FIFO at `path` that holds it open from now on, so a writer's open does not
/// wait, and takes what is written until `done` is set and nothing more comes. A writer that
/// replaced the FIFO instead leaves it with nothing: the test fails, it does not hang.
struct FifoReader {
    done: Arc<AtomicBool>,
    thread: std::thread::JoinHandle<Vec<u8>>,
}

impl FifoReader {
    fn open(path: &Path) -> FifoReader {
        use std::os::unix::fs::OpenOptionsExt as _;
        let mut fifo = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(path)
            .expect("open the FIFO for reading");
        let done = Arc::new(AtomicBool::new(false));
        let stop = Arc::clone(&done);
        let thread = std::thread::spawn(move || {
            let mut got = Vec::new();
            let mut buf = [0u8; 65536];
            let deadline = Instant::now() + Duration::from_secs(120);
            loop {
                match fifo.read(&mut buf) {
                    Ok(n) if n > 0 => got.extend_from_slice(&buf[..n]),
                    // Nothing now (no writer yet, or it closed): done once the command ended.
                    _ if stop.load(Ordering::SeqCst) || Instant::now() > deadline => {
                        while let Ok(n) = fifo.read(&mut buf) {
                            if n == 0 {
                                break;
                            }
                            got.extend_from_slice(&buf[..n]);
                        }
                        return got;
                    }
                    _ => std::thread::sleep(Duration::from_millis(5)),
                }
            }
        });
        FifoReader { done, thread }
    }

    fn finish(self) -> Vec<u8> {
        self.done.store(true, Ordering::SeqCst);
        self.thread.join().expect("the reader")
    }
}

#[test]
#[expect(
    clippy::print_stderr,
    reason = "a skipped check says so in the test's output"
)]
fn a_character_device_is_written_into_and_never_replaced() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let null = dir.path().join("null");
    if let Err(why) = null_device(&null) {
        eprintln!("skipped: no character device of the test's own can be made ({why})");
        return;
    }
    let link = dir.path().join("to-null");
    symlink(&null, &link).expect("a link");
    for writer in writers() {
        let (code, _) = with_a_file(&writer);
        for (path, what) in [(&null, "the device"), (&link, "a link to the device")] {
            let ran = run(&writer, path);
            let what = format!("{} {what}", writer.name);
            assert_eq!(ran.code, code, "{what}: {}", ran.stderr);
            still_the_device(&null, &what);
            still_a(&link, std::fs::FileType::is_symlink, &what);
        }
    }
    assert_eq!(
        names(dir.path()),
        ["null", "to-null"],
        "nothing left beside"
    );
}

#[test]
fn a_fifo_gets_the_output_and_stays_a_fifo() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let fifo = dir.path().join("fifo");
    mkfifo(&fifo);
    let link = dir.path().join("to-fifo");
    symlink(&fifo, &link).expect("a link");
    for writer in writers() {
        let (code, expected) = with_a_file(&writer);
        for (path, what) in [(&fifo, "the FIFO"), (&link, "a link to the FIFO")] {
            let reader = FifoReader::open(&fifo);
            let ran = run(&writer, path);
            let got = reader.finish();
            let what = format!("{} {what}", writer.name);
            assert_eq!(ran.code, code, "{what}: {}", ran.stderr);
            still_a(&fifo, std::fs::FileType::is_fifo, &what);
            still_a(&link, std::fs::FileType::is_symlink, &what);
            same_output(&writer, &got, &expected);
        }
    }
}

#[test]
fn a_socket_gets_the_output_and_stays_a_socket() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("socket");
    let listener = std::os::unix::net::UnixListener::bind(&path).expect("a socket");
    for writer in writers() {
        let (code, expected) = with_a_file(&writer);
        let listener = listener.try_clone().expect("the listener");
        let reader = std::thread::spawn(move || {
            let (mut conn, _) = listener.accept().expect("a connection");
            let mut got = Vec::new();
            conn.read_to_end(&mut got).expect("read");
            got
        });
        let ran = run(&writer, &path);
        assert_eq!(ran.code, code, "{}: {}", writer.name, ran.stderr);
        // Before waiting on the reader: a socket replaced by a file is never connected to.
        still_a(&path, std::fs::FileType::is_socket, writer.name);
        same_output(&writer, &reader.join().expect("the reader"), &expected);
    }
}

#[test]
fn a_link_to_a_file_is_followed_and_the_file_replaced_atomically() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let elsewhere = tempfile::tempdir().expect("a temporary directory");
    let target = elsewhere.path().join("published.json");
    let link = dir.path().join("latest.json");
    symlink(&target, &link).expect("a link");
    for writer in writers() {
        let (code, expected) = with_a_file(&writer);
        std::fs::write(&target, "old").expect("write");
        let ran = run(&writer, &link);
        assert_eq!(ran.code, code, "{}: {}", writer.name, ran.stderr);
        still_a(&link, std::fs::FileType::is_symlink, writer.name);
        assert_eq!(
            std::fs::read_link(&link).expect("a link"),
            target,
            "{}",
            writer.name
        );
        same_output(&writer, &std::fs::read(&target).expect("read"), &expected);
        assert_eq!(names(dir.path()), ["latest.json"], "{}", writer.name);
        assert_eq!(
            names(elsewhere.path()),
            ["published.json"],
            "{}",
            writer.name
        );
    }
}

#[test]
fn a_link_to_nothing_and_a_directory_are_refused_and_nothing_is_written() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let link = dir.path().join("dangling.json");
    symlink(dir.path().join("missing.json"), &link).expect("a link");
    let seal = &writers()[0];
    for (path, says) in [
        (
            &link,
            "is a symbolic link to nothing: refused, nothing was written",
        ),
        (
            &dir.path().to_path_buf(),
            "is a directory: refused, nothing was written",
        ),
    ] {
        let ran = run(seal, path);
        assert_eq!(ran.code, 2, "{}", ran.stderr);
        assert!(ran.stderr.contains(says), "{}", ran.stderr);
        assert_eq!(names(dir.path()), ["dangling.json"]);
    }
}

/// The writers of [`writers`] with `/dev/stdout` (or a link to it) as their output; a check
/// also prints its `--format json` report there first.
fn into_stdout(writer: &Writer, out: &str, stdout: std::process::Stdio) -> Ran {
    let args: Vec<String> = writer.args.iter().map(|a| a.replace("OUT", out)).collect();
    let mut command = driftgate_process();
    command
        .args(["--color", "never"])
        .args(&args)
        .stdout(stdout);
    let output = command.output().expect("driftgate runs");
    Ran {
        code: output.status.code().expect("exited normally"),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// What a writer sent to standard output ends with its output, as written into a file.
#[track_caller]
fn ends_with_output(writer: &Writer, got: &[u8], expected: &[u8]) {
    if writer.name.starts_with("check") {
        assert!(
            got.ends_with(expected),
            "{}: {}",
            writer.name,
            String::from_utf8_lossy(got)
        );
    } else {
        same_output(writer, got, expected);
    }
}

#[test]
fn dev_stdout_appended_to_is_appended_to_never_replaced() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let log = dir.path().join("ci.log");
    let link = dir.path().join("latest.json");
    symlink("/dev/stdout", &link).expect("a link");
    for writer in writers() {
        let (code, expected) = with_a_file(&writer);
        for out in ["/dev/stdout", "/dev/fd/1", &link.display().to_string()] {
            std::fs::write(&log, "earlier\n").expect("write");
            let inode = std::fs::metadata(&log).expect("the log").ino();
            let appended = std::fs::OpenOptions::new()
                .append(true)
                .open(&log)
                .expect("open the log");
            let ran = into_stdout(&writer, out, appended.into());
            let what = format!("{} {out}", writer.name);
            assert_eq!(ran.code, code, "{what}: {}", ran.stderr);
            let got = std::fs::read(&log).expect("the log");
            assert!(
                got.starts_with(b"earlier\n"),
                "{what}: earlier content lost"
            );
            ends_with_output(&writer, &got[b"earlier\n".len()..], &expected);
            assert_eq!(
                std::fs::metadata(&log).expect("the log").ino(),
                inode,
                "{what}: the log was replaced"
            );
        }
        assert_eq!(
            names(dir.path()),
            ["ci.log", "latest.json"],
            "{}",
            writer.name
        );
    }
}

#[test]
fn dev_stdout_as_a_pipe_or_a_socket_is_written_into() {
    for writer in writers() {
        let (code, expected) = with_a_file(&writer);
        // A pipe: what `output()` reads.
        let output = driftgate_process()
            .args(["--color", "never"])
            .args(writer.args.iter().map(|a| a.replace("OUT", "/dev/stdout")))
            .output()
            .expect("driftgate runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(
            output.status.code(),
            Some(code),
            "{} pipe: {stderr}",
            writer.name
        );
        ends_with_output(&writer, &output.stdout, &expected);
        // A socket, as journald gives a service.
        let (ours, theirs) = std::os::unix::net::UnixStream::pair().expect("a socket pair");
        let reader = std::thread::spawn(move || {
            let mut got = Vec::new();
            (&ours).read_to_end(&mut got).expect("read");
            got
        });
        let ran = into_stdout(
            &writer,
            "/proc/self/fd/1",
            std::os::fd::OwnedFd::from(theirs).into(),
        );
        assert_eq!(ran.code, code, "{} socket: {}", writer.name, ran.stderr);
        ends_with_output(&writer, &reader.join().expect("the reader"), &expected);
    }
}

#[test]
fn a_refused_output_is_refused_before_any_request() {
    let simulator = Simulator::start(&bmc("baseline"), &[]);
    let lab = FleetLab::new(
        &[Host::new("azl-node09", State::Bmc(simulator.url.clone()))],
        &["azl-node09"],
    );
    let dangling = lab.path("dangling.json");
    symlink(lab.path("missing.json"), &dangling).expect("a link");
    let before = simulator.requests();
    let says = "is a symbolic link to nothing: refused, nothing was written";
    let report = format!("json={}", dangling.display());
    let ran = lab.check(&["--report", &report]).expect(2);
    assert!(ran.stderr.contains(says), "{}", ran.stderr);
    assert!(
        ran.stderr.contains(&dangling.display().to_string()),
        "{}",
        ran.stderr
    );
    let source = format!("redfish={}", simulator.url);
    let output = driftgate_process()
        .args([
            "capture",
            "--host",
            "azl-node09",
            "--source",
            &source,
            "--out",
        ])
        .arg(&dangling)
        .output()
        .expect("driftgate runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains(says), "{stderr}");
    assert_eq!(simulator.requests(), before, "no request reached the BMC");
    assert!(!lab.path("missing.json").exists());
}

fn names(dir: &Path) -> Vec<String> {
    common::reports::names(dir)
}

/// For the README's fail-closed table: `snapshot seal --out` into a null device of the test's
/// own (a FIFO where none can be made), which stays what it was. Standard error and whether
/// the device is still there.
pub(crate) fn sealed_into_a_device() -> (std::process::Output, bool) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let device: PathBuf = dir.path().join("null");
    let made = null_device(&device);
    let reader = made.is_err().then(|| {
        mkfifo(&device);
        FifoReader::open(&device)
    });
    let output = driftgate_process()
        .args(["snapshot", "seal"])
        .arg(example("azure-local-dcbx/baseline.json"))
        .arg("--out")
        .arg(&device)
        .output()
        .expect("driftgate runs");
    let kind = std::fs::symlink_metadata(&device)
        .expect("still there")
        .file_type();
    let stayed = match reader {
        Some(reader) => !reader.finish().is_empty() && kind.is_fifo(),
        None => kind.is_char_device(),
    };
    (output, stayed)
}

/// For the README's fail-closed table: `snapshot seal --out /dev/stdout` with standard output
/// a file opened for appending, which holds a line already. Standard error, and whether the
/// line is still there with the snapshot after it in the same file.
pub(crate) fn sealed_into_appended_stdout() -> (std::process::Output, bool) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let log = dir.path().join("ci.log");
    std::fs::write(&log, "earlier\n").expect("write");
    let inode = std::fs::metadata(&log).expect("the log").ino();
    let appended = std::fs::OpenOptions::new()
        .append(true)
        .open(&log)
        .expect("open the log");
    let output = driftgate_process()
        .args(["snapshot", "seal"])
        .arg(example("azure-local-dcbx/baseline.json"))
        .args(["--out", "/dev/stdout"])
        .stdout(appended)
        .output()
        .expect("driftgate runs");
    let got = std::fs::read_to_string(&log).expect("the log");
    let kept = std::fs::metadata(&log).expect("the log").ino() == inode
        && got.starts_with("earlier\n{")
        && got.contains("\"digest\"");
    (output, kept)
}

/// For the README's fail-closed table: `check --all --report json=` a link to nothing, of a
/// fleet whose host is a simulator. Standard error, and whether no request reached it.
pub(crate) fn report_refused_before_the_run() -> (std::process::Output, bool) {
    let simulator = Simulator::start(&bmc("baseline"), &[]);
    let lab = FleetLab::new(
        &[Host::new("azl-node09", State::Bmc(simulator.url.clone()))],
        &["azl-node09"],
    );
    let dangling = lab.path("dangling.json");
    symlink(lab.path("missing.json"), &dangling).expect("a link");
    let before = simulator.requests();
    let output = lab
        .process()
        .args(["check", "--all", "--report"])
        .arg(format!("json={}", dangling.display()))
        .output()
        .expect("driftgate runs");
    let untouched = simulator.requests() == before && !lab.path("missing.json").exists();
    (output, untouched)
}
