//! Signals during a capture, and what a capture says on standard error: a real capture with
//! session authentication against a real, slow `driftgate mockup serve` gets SIGTERM,
//! SIGINT or SIGHUP mid-crawl and must delete its session, write nothing and exit 128 + N;
//! local commands it runs must not outlive it; a failed session delete names the DELETE;
//! log lines honour `--color`.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use common::driftgate_process;
use common::simulator::{PASSWORD, Simulator, USER, bmc};

const FIRST_SESSION: &str = "/redfish/v1/SessionService/Sessions/1";

fn send(child: &Child, signal: libc::c_int) {
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    // SAFETY: kill touches no memory; the pid is our unreaped child.
    assert_eq!(
        unsafe { libc::kill(pid, signal) },
        0,
        "kill({pid}, {signal})"
    );
}

/// Waits up to `within` for `child` to exit; kills it and fails the test otherwise.
fn finish(child: Child, within: Duration, what: &str) -> Output {
    let pid = child.id();
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = sender.send(child.wait_with_output());
    });
    match receiver.recv_timeout(within) {
        Ok(output) => output.unwrap(),
        Err(_) => {
            // SAFETY: as in `send`.
            unsafe { libc::kill(libc::pid_t::try_from(pid).unwrap(), libc::SIGKILL) };
            panic!("{what}: still running {within:?} after the signal");
        }
    }
}

/// `driftgate capture` of `source` into `out`, with `ignore`d signals ignored and the rest
/// at their default (whatever the test runner inherited, e.g. a `nohup`).
fn capture_command(source: &str, out: &Path, ignore: &'static [libc::c_int]) -> Command {
    use std::os::unix::process::CommandExt as _;
    let mut cmd = driftgate_process();
    // SAFETY: between fork and exec only async-signal-safe `signal` calls run.
    unsafe {
        cmd.pre_exec(move || {
            for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
                let action = if ignore.contains(&signal) {
                    libc::SIG_IGN
                } else {
                    libc::SIG_DFL
                };
                libc::signal(signal, action);
            }
            Ok(())
        });
    }
    cmd.args([
        "capture",
        "--host",
        "azl-node01",
        "--source",
        source,
        "--out",
    ])
    .arg(out)
    .env("DRIFTGATE_BMC_USERNAME", USER)
    .env("DRIFTGATE_BMC_PASSWORD", PASSWORD)
    .stdin(Stdio::null())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    cmd
}

#[test]
fn a_signal_mid_crawl_deletes_the_session_writes_nothing_and_exits_128_plus_n() {
    for (signal, name, code) in [
        (libc::SIGTERM, "SIGTERM", 143),
        (libc::SIGINT, "SIGINT", 130),
        (libc::SIGHUP, "SIGHUP", 129),
    ] {
        // 300 ms per answer: the whole crawl takes about 3 s, so the signal lands mid-crawl.
        let mut server =
            Simulator::start_logged(&bmc("baseline"), &["--auth", "session", "--latency", "300"]);
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("azl-node01.json");
        let mut child = capture_command(&format!("redfish={}", server.url), &out, &[])
            .spawn()
            .unwrap();
        assert!(
            server.logged(
                &format!("session {FIRST_SESSION} created"),
                Duration::from_secs(20)
            ),
            "{name}: the capture never logged in: {:?}",
            server.log_lines()
        );
        assert!(
            server.logged_times("DEBUG GET /redfish/v1/", 3, Duration::from_secs(20)),
            "{name}: the capture never got three requests into its crawl: {:?}",
            server.log_lines()
        );
        assert!(
            child.try_wait().unwrap().is_none(),
            "{name}: the capture finished before the signal; the simulator is too fast"
        );
        send(&child, signal);
        // A request already on its way reaches the simulator within a few milliseconds.
        let settled = Instant::now() + Duration::from_millis(100);
        let output = finish(child, Duration::from_secs(20), name);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(code), "{name}: {stderr}");
        assert!(
            stderr.contains(&format!(
                "capture of azl-node01 stopped by {name} before it finished: no snapshot was written"
            )),
            "{name}: {stderr}"
        );
        assert!(!out.exists(), "{name}: a snapshot was written");
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            0,
            "{name}: something was left in the output folder"
        );
        assert!(output.stdout.is_empty(), "{name}: something on stdout");
        assert!(
            server.logged(
                &format!("DELETE {FIRST_SESSION}: session deleted"),
                Duration::from_secs(5)
            ),
            "{name}: the session was not deleted: {:?}",
            server.log_lines()
        );
        let late: Vec<&str> = server
            .requests_after(settled)
            .into_iter()
            .filter(|request| !request.contains(&format!("DELETE {FIRST_SESSION}")))
            .collect();
        assert!(
            late.is_empty(),
            "{name}: requests after the signal: {late:?}"
        );
        assert_eq!(server.sessions(), 0, "{name}: a session is left open");
    }
}

#[test]
fn a_signal_while_logging_in_leaves_no_session() {
    // Each answer takes 0.8 s: the signal lands once the login has reached the BMC and before
    // its answer does. No session may be left open: the login's answer and the DELETE fit in
    // the 2 s the session's deletion gets after a stop.
    let mut server =
        Simulator::start_logged(&bmc("baseline"), &["--auth", "session", "--latency", "800"]);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("azl-node01.json");
    let child = capture_command(&format!("redfish={}", server.url), &out, &[])
        .spawn()
        .unwrap();
    assert!(
        server.logged(
            "DEBUG POST /redfish/v1/SessionService/Sessions",
            Duration::from_secs(20)
        ),
        "the capture never tried to log in: {:?}",
        server.log_lines()
    );
    send(&child, libc::SIGTERM);
    let output = finish(child, Duration::from_secs(20), "SIGTERM while logging in");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(143), "{stderr}");
    assert!(!out.exists(), "a snapshot was written");
    if server.logged("created", Duration::from_secs(2)) {
        assert!(
            server.logged(
                &format!("DELETE {FIRST_SESSION}: session deleted"),
                Duration::from_secs(5)
            ),
            "{:?}",
            server.log_lines()
        );
    }
    assert_eq!(server.sessions(), 0, "{:?}", server.log_lines());
}

/// Waits up to `within` until the simulator logged `count` lines containing `text`.
fn logged_times(server: &mut Simulator, text: &str, count: usize, within: Duration) -> bool {
    let deadline = Instant::now() + within;
    loop {
        if server
            .log_lines()
            .iter()
            .filter(|l| l.contains(text))
            .count()
            >= count
        {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        // Reads what was logged meanwhile (no line holds this text).
        server.logged("\u{0}", Duration::from_millis(20));
    }
}

#[test]
fn a_signal_while_logging_in_again_deletes_the_new_session() {
    // Sessions vanish at request 3; the new login takes 800 ms, and the signal lands while
    // it is on its way. main (6bfc436) dropped it there and left the session it opened.
    let mut server = Simulator::start_logged(
        &bmc("baseline"),
        &[
            "--auth",
            "session",
            "--latency",
            "800",
            "--fault",
            "expire-sessions=3",
        ],
    );
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("azl-node01.json");
    let child = capture_command(&format!("redfish={}", server.url), &out, &[])
        .spawn()
        .unwrap();
    // As each request arrives, before the latency.
    const POST: &str = "DEBUG POST /redfish/v1/SessionService/Sessions";
    assert!(
        logged_times(&mut server, POST, 2, Duration::from_secs(30)),
        "the capture never logged in again: {:?}",
        server.log_lines()
    );
    send(&child, libc::SIGTERM);
    let output = finish(
        child,
        Duration::from_secs(20),
        "SIGTERM while logging in again",
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(143), "{stderr}");
    assert!(!out.exists(), "a snapshot was written");
    let second = "/redfish/v1/SessionService/Sessions/2";
    assert!(
        server.logged(&format!("session {second} created"), Duration::from_secs(5)),
        "the new login was abandoned: {:?}",
        server.log_lines()
    );
    assert!(
        server.logged(
            &format!("DELETE {second}: session deleted"),
            Duration::from_secs(5)
        ),
        "{stderr}: {:?}",
        server.log_lines()
    );
    assert_eq!(server.sessions(), 0, "{:?}", server.log_lines());
}

#[test]
fn a_signal_during_a_hung_login_exits_within_the_grace_and_leaves_no_session() {
    // The login POST never answers: a signal must not wait for --bmc-timeout (60 s).
    let mut server = Simulator::start_logged(
        &bmc("baseline"),
        &[
            "--auth",
            "session",
            "--fault",
            "hang=/redfish/v1/SessionService/Sessions",
        ],
    );
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("azl-node01.json");
    let child = capture_command(&format!("redfish={}", server.url), &out, &[])
        .spawn()
        .unwrap();
    assert!(
        server.logged("the login never answers", Duration::from_secs(20)),
        "{:?}",
        server.log_lines()
    );
    let signalled = Instant::now();
    send(&child, libc::SIGTERM);
    let output = finish(
        child,
        Duration::from_secs(20),
        "SIGTERM during a hung login",
    );
    let took = signalled.elapsed();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(143), "{stderr}");
    // At most the grace for an interrupted logout (10 s), and then promptly.
    assert!(took < Duration::from_secs(12), "took {took:?}: {stderr}");
    assert!(!out.exists(), "a snapshot was written");
    // The session list hangs as well (same URI): the log says whether one was opened.
    assert!(
        !server.logged("created", Duration::from_millis(200)),
        "{:?}",
        server.log_lines()
    );
}

#[test]
fn a_signal_ignored_at_start_stays_ignored_as_nohup_means() {
    let mut server =
        Simulator::start_logged(&bmc("baseline"), &["--auth", "session", "--latency", "300"]);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("azl-node01.json");
    let child = capture_command(&format!("redfish={}", server.url), &out, &[libc::SIGHUP])
        .spawn()
        .unwrap();
    assert!(server.logged(
        &format!("session {FIRST_SESSION} created"),
        Duration::from_secs(20)
    ));
    assert!(server.logged_times("DEBUG GET /redfish/v1/", 3, Duration::from_secs(20)));
    send(&child, libc::SIGHUP);
    let output = finish(child, Duration::from_secs(30), "SIGHUP under nohup");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(out.is_file(), "the capture went on and wrote its snapshot");
    assert_eq!(server.sessions(), 0);
}

/// Fake `esxcli` that records its pid and then hangs, as a stuck host tool does; with
/// `deaf`, it ignores SIGTERM as well. Returns the pid file.
fn hanging_esxcli(dir: &Path, deaf: bool) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let pids = dir.join("pids");
    let script = dir.join("esxcli");
    let trap = if deaf { "trap '' TERM\n" } else { "" };
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\n{trap}echo $$ >> '{}'\nexec sleep 60\n",
            pids.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    pids
}

/// Whether `pid` is a live process (a zombie is dead).
fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // "pid (comm) STATE …"
        Ok(stat) => stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| !rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

/// A capture of `esxi=local:` whose `esxcli` hangs: (child, pid of esxcli, pid file, out).
fn hanging_capture(dir: &Path, deaf: bool) -> (Child, u32, PathBuf, PathBuf) {
    let pids = hanging_esxcli(dir, deaf);
    let path = format!(
        "{}:{}",
        dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = dir.join("snapshot.json");
    let child = capture_command("esxi=local:", &out, &[])
        .env("PATH", path)
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    let pid = loop {
        let text = std::fs::read_to_string(&pids).unwrap_or_default();
        if let Some(pid) = text
            .lines()
            .next()
            .and_then(|l| l.trim().parse::<u32>().ok())
        {
            break pid;
        }
        assert!(Instant::now() < deadline, "the fake esxcli never ran");
        std::thread::sleep(Duration::from_millis(20));
    };
    // Past `exec`: the pid is sleep's once its command name says so.
    while std::fs::read_to_string(format!("/proc/{pid}/comm")).is_ok_and(|c| c.trim() != "sleep") {
        assert!(Instant::now() < deadline, "the fake esxcli never ran sleep");
        std::thread::sleep(Duration::from_millis(20));
    }
    (child, pid, pids, out)
}

/// Fails unless `pid` is gone within two seconds (and kills it then).
fn assert_gone(pid: u32, what: &str) {
    let gone = Instant::now() + Duration::from_secs(2);
    while alive(pid) && Instant::now() < gone {
        std::thread::sleep(Duration::from_millis(20));
    }
    let survived = alive(pid);
    if survived {
        // SAFETY: as in `send`; cleans up what the test found.
        unsafe { libc::kill(i32::try_from(pid).unwrap(), libc::SIGKILL) };
    }
    assert!(!survived, "{what}: esxcli (pid {pid}) outlived the capture");
}

#[test]
fn a_signal_stops_the_local_commands_of_a_capture_too() {
    for deaf in [false, true] {
        let what = if deaf {
            "esxcli ignoring SIGTERM"
        } else {
            "esxcli"
        };
        let dir = tempfile::tempdir().unwrap();
        let (child, pid, pids, out) = hanging_capture(dir.path(), deaf);
        let started = Instant::now();
        send(&child, libc::SIGTERM);
        let output = finish(child, Duration::from_secs(10), what);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(143), "{what}: {stderr}");
        // One that ignores SIGTERM gets SIGKILL after a grace of 2 s.
        assert!(
            started.elapsed() < Duration::from_secs(6),
            "{what}: {:?}",
            started.elapsed()
        );
        assert!(!out.exists(), "{what}: a snapshot was written");
        assert_gone(pid, what);
        let commands = std::fs::read_to_string(&pids).unwrap().lines().count();
        assert_eq!(
            commands, 1,
            "{what}: commands were started after the signal"
        );
    }
}

#[test]
fn a_second_signal_exits_at_once_and_still_stops_the_commands() {
    let dir = tempfile::tempdir().unwrap();
    let (child, pid, _, out) = hanging_capture(dir.path(), true);
    send(&child, libc::SIGTERM);
    std::thread::sleep(Duration::from_millis(300));
    let second = Instant::now();
    send(&child, libc::SIGINT);
    let output = finish(child, Duration::from_secs(10), "a second signal");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    assert!(
        second.elapsed() < Duration::from_secs(1),
        "{:?}",
        second.elapsed()
    );
    assert!(
        stderr.contains("SIGINT while stopping after SIGTERM: exiting at once"),
        "{stderr}"
    );
    assert!(!out.exists(), "a snapshot was written");
    assert_gone(pid, "a second signal");
}

#[test]
fn a_failed_session_delete_names_the_delete_and_its_uri() {
    let server = Simulator::start_logged(
        &bmc("baseline"),
        &[
            "--auth",
            "session",
            "--fault",
            &format!("status=500:{FIRST_SESSION}"),
        ],
    );
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("azl-node01.json");
    let output = capture_command(&format!("redfish={}", server.url), &out, &[])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    // The facts are whole: the open session is worth a warning, not a failed capture.
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "could not delete the session: DELETE {FIRST_SESSION}: HTTP 500: Injected fault. (Base.1.12.InternalError)"
        )),
        "{stderr}"
    );
    assert!(
        !stderr.contains("GET /redfish/v1/SessionService"),
        "{stderr}"
    );
    assert_eq!(server.sessions(), 1);
}

#[test]
fn log_lines_honour_color_never_and_redirected_standard_error() {
    let server = Simulator::start_logged(&bmc("baseline"), &["--auth", "session"]);
    let dir = tempfile::tempdir().unwrap();
    let run = |color: &[&str], env: Option<(&str, &str)>| {
        let mut cmd = capture_command(
            &format!("redfish={}", server.url),
            &dir.path().join("s.json"),
            &[],
        );
        cmd.arg("-v").args(color);
        if let Some((name, value)) = env {
            cmd.env(name, value);
        }
        let output = cmd.output().unwrap();
        assert_eq!(output.status.code(), Some(0));
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert!(
            stderr.contains("INFO") && stderr.contains("logged in with a session"),
            "{color:?}: no log lines to check: {stderr}"
        );
        stderr
    };
    // Standard error is a pipe here, so `auto` must not colour either.
    for (color, env) in [
        (&["--color", "never"][..], None),
        (&[][..], None),
        (&["--color", "auto"][..], Some(("NO_COLOR", "1"))),
    ] {
        let stderr = run(color, env);
        assert!(!stderr.contains('\x1b'), "{color:?} {env:?}: {stderr:?}");
    }
    // And the check can see colour when it is asked for.
    let coloured = run(&["--color", "always"], None);
    let info = coloured
        .lines()
        .find(|l| l.contains("logged in with a session"))
        .unwrap();
    assert!(info.contains('\x1b'), "{info:?}");
}
