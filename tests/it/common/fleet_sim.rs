//! A real fleet simulator (`driftgate mockup serve DIR… --count N`) for end-to-end tests of
//! fleet runs: N BMCs on 127.0.0.1 (or loopback addresses with `--loopback`), each with its
//! own sessions, counters, faults and state, and the `inventory.toml` that lists them.
//!
//! ```ignore
//! use common::fleet_sim::FleetSim;
//! use common::simulator::bmc;
//!
//! let (baseline, post) = (bmc("baseline"), bmc("post-update"));
//! // 12 BMCs, even ones `baseline`, odd ones `post-update`; BMC 3 down, BMC 5 hanging.
//! let sim = FleetSim::start(&[&baseline, &post], 12, &[
//!     "--auth", "session", "--bmc-fault", "3:down", "--bmc-fault", "5:hang-all",
//!     "--cluster-size", "4",
//! ]);
//! let mut check = common::driftgate();
//! check.args(["check", "--all", "--inventory"]).arg(&sim.inventory);
//! FleetSim::with_account(&mut check); // the variables the inventory names
//! ```
//!
//! Stopped (killed) on drop; the inventory lives in a temporary folder removed then too.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::time::Duration;

use serde_json::Value;

use super::simulator::{PASSWORD, USER};

/// The account variables the simulator reads and its written inventory names.
pub(crate) const USERNAME_ENV: &str = "DRIFTGATE_MOCKUP_USERNAME";
/// See [`USERNAME_ENV`].
pub(crate) const PASSWORD_ENV: &str = "DRIFTGATE_MOCKUP_PASSWORD";

/// A running fleet simulator; stopped on drop.
pub(crate) struct FleetSim {
    child: Child,
    /// Kept open so that the simulator never writes into a closed pipe.
    _stdout: BufReader<ChildStdout>,
    _scratch: tempfile::TempDir,
    /// BMC i's base URL (`http://127.0.0.1:PORT`, `https://…` with `--tls`), by index; a down
    /// BMC's too (nothing listens there).
    pub urls: Vec<String>,
    /// Whether BMC i is down, as the simulator printed.
    pub down: Vec<bool>,
    /// The `inventory.toml` it wrote: hosts `sim-0000`… (fleet `sim` unless `--fleet`), with
    /// clusters when `--cluster-size` was given and the account variables with `--auth`.
    pub inventory: PathBuf,
    /// The certificate's `sha256:` pin, when serving TLS.
    pub pin: Option<String>,
}

/// One HTTP answer.
#[derive(Debug)]
pub(crate) struct Answer {
    /// Status code.
    pub status: u16,
    /// Header lines as `(lowercase name, value)`.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: String,
}

impl Answer {
    /// The body as JSON.
    pub(crate) fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {self:?}"))
    }

    /// The first value of header `name` (any case).
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }
}

impl FleetSim {
    /// Serves `count` BMCs of `dirs` (BMC i serves `dirs[i % len]`) with more `args`
    /// (`--auth session`, `--bmc-fault 3:down`, `--bmc-set …`, `--cluster-size 4`, `--tls`,
    /// `--loopback`, …). Passes `--listen 127.0.0.1:0` (free ports; `args` may override it) and
    /// `--write-inventory` into a temporary folder (unless `args` give one), with the account
    /// [`USER`]/[`PASSWORD`] in the simulator's environment. Returns once the simulator
    /// printed where every BMC is (all listening by then). Its log goes to standard error.
    pub(crate) fn start(dirs: &[&Path], count: usize, args: &[&str]) -> FleetSim {
        let scratch = tempfile::tempdir().expect("a temporary directory");
        let given = args
            .iter()
            .position(|a| *a == "--write-inventory")
            .map(|at| PathBuf::from(args.get(at + 1).expect("--write-inventory FILE")));
        let inventory = given
            .clone()
            .unwrap_or_else(|| scratch.path().join("inventory.toml"));
        let mut command = Command::new(assert_cmd::cargo::cargo_bin("driftgate"));
        command
            .args(["--color", "never", "mockup", "serve"])
            .args(dirs)
            .args(["--count", &count.to_string(), "--listen", "127.0.0.1:0"]);
        if given.is_none() {
            command.arg("--write-inventory").arg(&inventory);
        }
        let mut child = command
            .args(args)
            .env(USERNAME_ENV, USER)
            .env(PASSWORD_ENV, PASSWORD)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the simulator starts");
        let mut stdout = BufReader::new(child.stdout.take().expect("stdout is piped"));
        let (mut urls, mut down, mut pin) = (Vec::new(), Vec::new(), None);
        loop {
            let mut line = String::new();
            let read = stdout.read_line(&mut line).expect("the simulator's output");
            assert!(
                read > 0,
                "the simulator ended before `serving`: {:?}",
                child.wait()
            );
            // `bmc I sim-IIII URL [(down: nothing listens)]`, then `serving N BMCs [(certificate …)]`;
            // one BMC prints only `serving DIR on URL [(certificate …)]`.
            let fields: Vec<&str> = line.split_whitespace().collect();
            pin = pin.or_else(|| {
                line.split("(certificate ")
                    .nth(1)
                    .map(|p| p.trim().trim_end_matches(')').to_owned())
            });
            match fields.as_slice() {
                ["bmc", index, name, url, rest @ ..] => {
                    assert_eq!(index.parse::<usize>().ok(), Some(urls.len()), "{line}");
                    assert_eq!(*name, format!("sim-{index:0>4}"), "{line}");
                    urls.push((*url).to_owned());
                    down.push(rest.first() == Some(&"(down:"));
                }
                ["serving", n, "BMCs", ..] => {
                    assert_eq!(n.parse::<usize>().ok(), Some(urls.len()), "{line}");
                    break;
                }
                ["serving", ..] if line.contains(" on ") => {
                    let after = line.rsplit_once(" on ").expect("` on ` in the line").1;
                    let url = after.split_whitespace().next().expect("a URL after `on`");
                    urls.push(url.to_owned());
                    down.push(after.contains("(down:"));
                    break;
                }
                _ => panic!("unexpected simulator line {line:?}"),
            }
        }
        assert_eq!(urls.len(), count, "one URL per BMC");
        FleetSim {
            child,
            _stdout: stdout,
            _scratch: scratch,
            urls,
            down,
            inventory,
            pin,
        }
    }

    /// Sets the account variables the written inventory names on a driftgate run.
    pub(crate) fn with_account(command: &mut assert_cmd::Command) -> &mut assert_cmd::Command {
        command.env(USERNAME_ENV, USER).env(PASSWORD_ENV, PASSWORD)
    }

    /// BMC `index`'s inventory host name (`sim-0007`).
    pub(crate) fn host(index: usize) -> String {
        format!("sim-{index:04}")
    }

    /// BMC `index`'s `ADDRESS:PORT`.
    pub(crate) fn address(&self, index: usize) -> &str {
        let url = &self.urls[index];
        url.split_once("://").map_or(url.as_str(), |(_, a)| a)
    }

    /// A plain HTTP/1.1 request to BMC `index` (no client library), waiting at most
    /// `timeout` for the answer: `Err` when nothing listens (`ConnectionRefused`) or nothing
    /// answers in time (`WouldBlock`/`TimedOut`). `headers` are extra `Name: value` lines.
    pub(crate) fn request(
        &self,
        index: usize,
        method: &str,
        path: &str,
        headers: &[&str],
        body: &str,
        timeout: Duration,
    ) -> io::Result<Answer> {
        assert!(
            self.urls[index].starts_with("http://"),
            "the simulator is asked over plain http"
        );
        let address = self.address(index);
        let mut stream = TcpStream::connect(address)?;
        stream.set_read_timeout(Some(timeout))?;
        let mut request = format!(
            "{method} {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\nContent-Length: {}\r\n",
            body.len()
        );
        for header in headers {
            request.push_str(header);
            request.push_str("\r\n");
        }
        request.push_str("\r\n");
        request.push_str(body);
        stream.write_all(request.as_bytes())?;
        let mut response = String::new();
        stream.read_to_string(&mut response)?;
        let (head, body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
        let mut lines = head.lines();
        let status = lines
            .next()
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("no status line: {response:?}"));
        let headers = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
            .collect();
        Ok(Answer {
            status,
            headers,
            body: body.to_owned(),
        })
    }

    /// A GET of `path` on BMC `index` as the account (HTTP Basic), which must answer within 10 s.
    pub(crate) fn get(&self, index: usize, path: &str) -> Answer {
        use base64::Engine as _;
        let credentials =
            base64::engine::general_purpose::STANDARD.encode(format!("{USER}:{PASSWORD}"));
        let authorization = format!("Authorization: Basic {credentials}");
        self.request(
            index,
            "GET",
            path,
            &[&authorization],
            "",
            Duration::from_secs(10),
        )
        .unwrap_or_else(|e| panic!("BMC {index} {path}: {e}"))
    }

    /// A session login on BMC `index`: the answer (201 with `X-Auth-Token` when it worked).
    pub(crate) fn login(&self, index: usize, timeout: Duration) -> io::Result<Answer> {
        let body = serde_json::json!({"UserName": USER, "Password": PASSWORD}).to_string();
        self.request(
            index,
            "POST",
            "/redfish/v1/SessionService/Sessions",
            &["Content-Type: application/json"],
            &body,
            timeout,
        )
    }

    /// BMC `index`'s live sessions, as it lists them.
    pub(crate) fn sessions(&self, index: usize) -> usize {
        self.get(index, "/redfish/v1/SessionService/Sessions")
            .json()["Members"]
            .as_array()
            .expect("a Members array")
            .len()
    }

    /// Requests BMC `index` was sent so far (its own counter; answers on a hanging BMC too).
    pub(crate) fn requests(&self, index: usize) -> u64 {
        self.get(index, "/driftgate/requests").json()["Requests"]
            .as_u64()
            .expect("a request count")
    }
}

impl Drop for FleetSim {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
