//! A real `driftgate mockup serve` on 127.0.0.1 for the Redfish tests: started on a mockup
//! folder, asked over plain HTTP/1.1 what it saw (sessions, requests), stopped on drop.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::root;

/// The simulator's account.
pub(crate) const USER: &str = "root";
/// Its password: a test fails if it ever shows up in a file or a log.
pub(crate) const PASSWORD: &str = "calvin-Pa55-never-logged";

/// The recorded iDRAC of seed 1 in `state` (`baseline`, `pre-update`, `post-update`).
pub(crate) fn bmc(state: &str) -> PathBuf {
    root()
        .join("examples/azure-local-dcbx/recorded")
        .join(state)
        .join("bmc")
}

/// A running `driftgate mockup serve`; stopped on drop.
pub(crate) struct Simulator {
    child: Child,
    /// `http://127.0.0.1:PORT` (or `https://…` with `--tls`).
    pub url: String,
    /// The certificate's `sha256:` pin, when serving TLS.
    pub pin: Option<String>,
    log: Option<mpsc::Receiver<(Instant, String)>>,
    seen: Vec<(Instant, String)>,
}

impl Simulator {
    /// Serves `dir` with `args` (`--auth session`, `--fault …`); its log goes to the test's
    /// standard error.
    pub(crate) fn start(dir: &Path, args: &[&str]) -> Simulator {
        Self::spawn(dir, args, false)
    }

    /// Like [`Simulator::start`] at `-vv`, keeping its log lines (sessions created and
    /// deleted, each request) for [`Simulator::logged`] and [`Simulator::requests_after`].
    pub(crate) fn start_logged(dir: &Path, args: &[&str]) -> Simulator {
        Self::spawn(dir, args, true)
    }

    fn spawn(dir: &Path, args: &[&str], logged: bool) -> Simulator {
        let mut command = Command::new(assert_cmd::cargo::cargo_bin("driftgate"));
        if logged {
            command.arg("-vv");
        }
        let mut child = command
            .args(["--color", "never", "mockup", "serve"])
            .arg(dir)
            .args(["--listen", "127.0.0.1:0"])
            .args(args)
            .env("DRIFTGATE_MOCKUP_USERNAME", USER)
            .env("DRIFTGATE_MOCKUP_PASSWORD", PASSWORD)
            .stdout(Stdio::piped())
            .stderr(if logged {
                Stdio::piped()
            } else {
                Stdio::inherit()
            })
            .spawn()
            .expect("the simulator starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout is piped"))
            .read_line(&mut line)
            .expect("the simulator prints where it serves");
        // "serving DIR on URL" or "serving DIR on URL (certificate sha256:…)"
        let after = line
            .split(" on ")
            .nth(1)
            .unwrap_or_else(|| panic!("unexpected first line {line:?}"));
        let url = after
            .split_whitespace()
            .next()
            .expect("a URL after `on`")
            .to_owned();
        let pin = after
            .split("(certificate ")
            .nth(1)
            .map(|p| p.trim().trim_end_matches(')').to_owned());
        let log = child.stderr.take().map(|stderr| {
            let (sender, log) = mpsc::channel();
            std::thread::spawn(move || {
                for line in BufReader::new(stderr).lines() {
                    let Ok(line) = line else { break };
                    if sender.send((Instant::now(), line)).is_err() {
                        break;
                    }
                }
            });
            log
        });
        Simulator {
            child,
            url,
            pin,
            log,
            seen: Vec::new(),
        }
    }

    /// `127.0.0.1:PORT`.
    pub(crate) fn address(&self) -> &str {
        self.url
            .split_once("://")
            .map_or(self.url.as_str(), |(_, a)| a)
    }

    /// A plain HTTP/1.1 GET of `path` as the account (no client library needed).
    pub(crate) fn get(&self, path: &str) -> Value {
        use base64::Engine as _;
        assert!(
            self.url.starts_with("http://"),
            "the simulator is asked over plain http"
        );
        let address = self.address();
        let mut stream = std::net::TcpStream::connect(address).expect("the simulator listens");
        let credentials =
            base64::engine::general_purpose::STANDARD.encode(format!("{USER}:{PASSWORD}"));
        write!(
            stream,
            "GET {path} HTTP/1.1\r\nHost: {address}\r\nAuthorization: Basic {credentials}\r\nConnection: close\r\n\r\n"
        )
        .expect("the request is sent");
        let mut response = String::new();
        stream
            .read_to_string(&mut response)
            .expect("the simulator answers");
        let body = response.split("\r\n\r\n").nth(1).unwrap_or_default();
        serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {response}"))
    }

    /// Live sessions, as the simulator lists them.
    pub(crate) fn sessions(&self) -> usize {
        self.get("/redfish/v1/SessionService/Sessions")["Members"]
            .as_array()
            .expect("a Members array")
            .len()
    }

    /// Requests the simulator served so far (its own counter, not the client's word).
    pub(crate) fn requests(&self) -> u64 {
        self.get("/driftgate/requests")["Requests"]
            .as_u64()
            .expect("a request count")
    }

    /// Every request other than a GET it received, `METHOD target` as it arrived, in order
    /// (its own record, not the client's word).
    pub(crate) fn sent(&self) -> Vec<String> {
        self.get("/driftgate/requests")["Sent"]
            .as_array()
            .expect("a Sent list")
            .iter()
            .map(|r| r.as_str().expect("a request line").to_owned())
            .collect()
    }

    /// Connections that carried those requests, and of them those that carried a session
    /// login and no GET (the simulator's own counters).
    pub(crate) fn connections(&self) -> (u64, u64) {
        let counters = self.get("/driftgate/requests");
        let count = |name: &str| counters[name].as_u64().expect("a connection count");
        (count("Connections"), count("LoginOnlyConnections"))
    }

    /// Waits up to `within` for a log line containing `text` (needs [`Simulator::start_logged`]).
    pub(crate) fn logged(&mut self, text: &str, within: Duration) -> bool {
        self.logged_times(text, 1, within)
    }

    /// Waits up to `within` until `times` log lines contain `text`, e.g. the simulator is some
    /// requests into a crawl (needs [`Simulator::start_logged`]).
    pub(crate) fn logged_times(&mut self, text: &str, times: usize, within: Duration) -> bool {
        let mut found = self.seen.iter().filter(|(_, l)| l.contains(text)).count();
        let log = self.log.as_ref().expect("started with start_logged");
        let deadline = Instant::now() + within;
        while found < times {
            let Some(left) = deadline.checked_duration_since(Instant::now()) else {
                return false;
            };
            let Ok((at, line)) = log.recv_timeout(left) else {
                return false;
            };
            found += usize::from(line.contains(text));
            self.seen.push((at, line));
        }
        true
    }

    /// Every request the simulator received, as `(method, path and query)` in the order they
    /// arrived, once `last` (a log line that follows the last request, e.g. `session deleted`)
    /// is logged within 10 s (needs [`Simulator::start_logged`]). Read from the line the
    /// simulator logs as each request arrives, before it answers or fails it.
    pub(crate) fn received(&mut self, last: &str) -> Vec<(String, String)> {
        assert!(
            self.logged(last, Duration::from_secs(10)),
            "{last:?} not logged: {:?}",
            self.log_lines()
        );
        self.seen
            .iter()
            .filter_map(|(_, line)| {
                let (method, target) = line.strip_prefix("DEBUG ")?.split_once(' ')?;
                let method_like =
                    !method.is_empty() && method.bytes().all(|b| b.is_ascii_uppercase());
                (method_like && target.starts_with('/'))
                    .then(|| (method.to_owned(), target.to_owned()))
            })
            .collect()
    }

    /// The log lines read so far.
    pub(crate) fn log_lines(&self) -> Vec<&str> {
        self.seen.iter().map(|(_, line)| line.as_str()).collect()
    }

    /// The requests logged after `since`, of the lines read so far.
    pub(crate) fn requests_after(&self, since: Instant) -> Vec<&str> {
        self.seen
            .iter()
            .filter(|(at, line)| *at > since && line.contains("DEBUG"))
            .map(|(_, line)| line.as_str())
            .collect()
    }
}

impl Drop for Simulator {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
