//! The OpenStack Redfish emulator (sushy-tools' `sushy-emulator`) on 127.0.0.1, over libvirt's
//! test driver: a Redfish server driftgate's authors did not write, with one system whose BIOS
//! settings a PATCH changes. `bash scripts/test-deps.sh` installs it into `target/sushy-venv`.

use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use serde_json::Value;

/// The host name the emulator's system has in [`Sushy::promoted_store`]'s inventory.
pub(crate) const HOST: &str = "sushy";

/// Where `scripts/test-deps.sh` installs the emulator.
fn emulator() -> PathBuf {
    super::root().join("target/sushy-venv/bin/sushy-emulator")
}

/// The emulator's configuration, a Python file it runs. The `full` feature set is its default,
/// said here because the BIOS and `Registries` are served only in it; no
/// `SUSHY_EMULATOR_AUTH_FILE`: no authentication. The test driver's one domain lives in the
/// emulator's process and is gone with it.
///
/// sushy-tools 2.2.0's `UpdateService` links `FirmwareInventory` and serves nothing there (HTTP
/// 404), which makes every capture of it partial, rightly: a linked resource that cannot be
/// read is not an empty one. The configuration, run inside the emulator before it serves,
/// adds the empty collection the link promises; everything else is sushy's own.
const CONFIG: &str = r#"SUSHY_EMULATOR_LISTEN_IP = '127.0.0.1'
SUSHY_EMULATOR_LISTEN_PORT = 0
SUSHY_EMULATOR_LIBVIRT_URI = 'test:///default'
SUSHY_EMULATOR_FEATURE_SET = 'full'

import flask
from sushy_tools.emulator.main import app


@app.route('/redfish/v1/UpdateService/FirmwareInventory')
def firmware_inventory():
    return flask.jsonify({
        '@odata.id': '/redfish/v1/UpdateService/FirmwareInventory',
        '@odata.type': '#SoftwareInventoryCollection.SoftwareInventoryCollection',
        'Name': 'Firmware Inventory Collection',
        'Members': [],
        'Members@odata.count': 0,
    })
"#;

/// A running `sushy-emulator`; stopped (SIGTERM, then reaped) on drop.
pub(crate) struct Sushy {
    child: Child,
    url: String,
    system: String,
    // Everything it wrote on standard error (its request log included), for failure messages.
    log: Arc<Mutex<String>>,
    reader: Option<std::thread::JoinHandle<()>>,
    client: reqwest::Client,
    runtime: tokio::runtime::Runtime,
    _dir: tempfile::TempDir,
}

/// What the emulator answered a request.
pub(crate) struct Reply {
    /// HTTP status.
    pub status: u16,
    /// The body, as sent.
    pub body: String,
}

impl Sushy {
    /// Starts the emulator on a port of its choosing, without authentication, and waits until
    /// it answers `/redfish/v1`. Panics naming `bash scripts/test-deps.sh` when it is not
    /// installed, and with its standard error when it does not come up.
    pub(crate) fn start() -> Sushy {
        let bin = emulator();
        assert!(
            bin.exists(),
            "{} is missing: run `bash scripts/test-deps.sh` (sushy-tools from PyPI into \
             target/sushy-venv, over Debian's python3-libvirt)",
            bin.display()
        );
        let dir = tempfile::tempdir().expect("a temporary directory");
        let config = dir.path().join("sushy.conf");
        std::fs::write(&config, CONFIG).expect("the emulator's configuration is writable");
        let mut child = Command::new(&bin)
            .arg("--config")
            .arg(&config)
            .current_dir(dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{}: {e}: see `bash scripts/test-deps.sh`", bin.display()));
        let log = Arc::new(Mutex::new(String::new()));
        let (sender, receiver) = mpsc::channel();
        // Read to the end, not only to the port: Werkzeug logs every request there, and a
        // full pipe would stop the server mid-answer.
        let reader = {
            let stderr = child.stderr.take().expect("stderr is piped");
            let log = Arc::clone(&log);
            std::thread::spawn(move || {
                for line in BufReader::new(stderr).lines() {
                    let Ok(line) = line else { break };
                    if let Some(url) = line.strip_prefix(" * Running on ") {
                        let _ = sender.send(url.trim().to_owned());
                    }
                    let mut log = log.lock().expect("no panic while holding the lock");
                    log.push_str(&line);
                    log.push('\n');
                }
            })
        };
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        let client = {
            // reqwest takes the process's default TLS provider; there is none until one is installed.
            driftgate_http::tls::provider();
            reqwest::Client::builder()
                .no_proxy()
                .timeout(Duration::from_secs(10))
                .build()
                .expect("an HTTP client")
        };
        let mut sushy = Sushy {
            child,
            url: String::new(),
            system: String::new(),
            log,
            reader: Some(reader),
            client,
            runtime,
            _dir: dir,
        };
        sushy.url = match receiver.recv_timeout(Duration::from_secs(20)) {
            Ok(url) => url,
            Err(_) => panic!(
                "sushy-emulator said no ` * Running on` address within 20 s: {}",
                sushy.stderr()
            ),
        };
        sushy.wait_ready();
        let systems = sushy.get("/redfish/v1/Systems");
        sushy.system = match systems["Members"].as_array().map(Vec::as_slice) {
            Some([one]) => one["@odata.id"].as_str().unwrap_or_default().to_owned(),
            _ => panic!("libvirt's test driver has one domain; sushy lists {systems}"),
        };
        sushy
    }

    /// Polls `/redfish/v1` until it answers (it is bound once it prints its address; the
    /// bound only keeps a broken emulator from hanging the test).
    fn wait_ready(&mut self) {
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            if let Some(status) = self.child.try_wait().expect("the emulator's status") {
                panic!("sushy-emulator exited with {status}: {}", self.stderr());
            }
            if self
                .request(reqwest::Method::GET, "/redfish/v1", None)
                .is_ok_and(|r| r.status == 200)
            {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "sushy-emulator did not answer /redfish/v1 within 5 s: {}",
                self.stderr()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// `http://127.0.0.1:PORT`.
    pub(crate) fn url(&self) -> &str {
        &self.url
    }

    /// The one computer system, `/redfish/v1/Systems/<uuid>` (libvirt's test domain; its name,
    /// `/Systems/test`, only redirects there).
    pub(crate) fn system_uri(&self) -> &str {
        &self.system
    }

    /// A baseline store in `dir/store` (`driftgate baseline init`) whose `inventory.toml`
    /// lists [`HOST`] (fleet `lab`) with this emulator as its one source, and the host's
    /// capture as of now promoted as its baseline: what `gate pre` and `gate post` read.
    pub(crate) fn promoted_store(&self, dir: &Path) -> PathBuf {
        let store = dir.join("store");
        let run = |cmd: &mut assert_cmd::Command| {
            let output = cmd.output().expect("driftgate runs");
            assert!(
                output.status.success(),
                "{cmd:?}: {}",
                String::from_utf8_lossy(&output.stderr)
            );
        };
        run(super::driftgate().arg("baseline").arg("init").arg(&store));
        std::fs::write(
            store.join("inventory.toml"),
            format!(
                "[defaults]\nfleet = \"lab\"\n\n[[host]]\nname = \"{HOST}\"\nsources = [\"redfish={}\"]\n",
                self.url
            ),
        )
        .expect("the inventory is writable");
        let snapshot = dir.join("known-good.json");
        run(super::driftgate()
            .args(["capture", "--host", HOST, "--source"])
            .arg(format!("redfish={}", self.url))
            .arg("--out")
            .arg(&snapshot));
        run(super::driftgate()
            .arg("--repo")
            .arg(&store)
            .args(["baseline", "promote", "--fleet", "lab"])
            .arg(&snapshot)
            .args(["-m", "known good"]));
        store
    }

    /// Its process id, to tell it is gone after the drop.
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// What the emulator wrote on standard error so far.
    pub(crate) fn stderr(&self) -> String {
        self.log
            .lock()
            .expect("no panic while holding the lock")
            .clone()
    }

    /// GETs `uri` (a path); panics unless it answers 200 with JSON.
    pub(crate) fn get(&self, uri: &str) -> Value {
        let reply = self
            .request(reqwest::Method::GET, uri, None)
            .unwrap_or_else(|e| panic!("GET {uri}: {e}"));
        assert_eq!(reply.status, 200, "GET {uri}: {}", reply.body);
        serde_json::from_str(&reply.body)
            .unwrap_or_else(|e| panic!("GET {uri}: {e}: {}", reply.body))
    }

    /// PATCHes `body` to `uri` (a path) and returns the answer, whatever its status.
    pub(crate) fn patch(&self, uri: &str, body: &Value) -> Reply {
        self.request(reqwest::Method::PATCH, uri, Some(body))
            .unwrap_or_else(|e| panic!("PATCH {uri}: {e}"))
    }

    fn request(
        &self,
        method: reqwest::Method,
        uri: &str,
        body: Option<&Value>,
    ) -> Result<Reply, reqwest::Error> {
        let url = format!("{}{uri}", self.url);
        self.runtime.block_on(async {
            let mut request = self.client.request(method, &url);
            if let Some(body) = body {
                request = request
                    .header("content-type", "application/json")
                    .body(body.to_string());
            }
            let response = request.send().await?;
            let status = response.status().as_u16();
            let body = response.text().await?;
            Ok(Reply { status, body })
        })
    }
}

impl Drop for Sushy {
    fn drop(&mut self) {
        super::stop_server(&mut self.child);
        if let Some(reader) = self.reader.take() {
            let _ = reader.join();
        }
    }
}
