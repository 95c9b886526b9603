//! Emitted fix scripts run for real: a seed-1 BMC mockup given one more NIC attribute,
//! stand-in `curl`, `esxcli` and `mlnx_qos` that record their arguments and standard input (and
//! `curl` then runs the real curl), a BMC stand-in that records every request it is sent, and
//! `sh` (dash) running a script in an empty folder.

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::TcpListener;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use base64::Engine as _;
use serde_json::{Value, json};

use super::{copy_dir, root};

/// The first NIC function's attributes in the seed-1 mockups.
pub(crate) const NIC_ATTRIBUTES: &str = "redfish/v1/Chassis/System.Embedded.1/NetworkAdapters/NIC.Slot.3/NetworkDeviceFunctions/NIC.Slot.3-1-1/Oem/Dell/DellNetworkAttributes/NIC.Slot.3-1-1";
/// Their attribute registry.
const NIC_REGISTRY: &str = "redfish/v1/Registries/NetworkAttributesRegistry_NIC.Slot.3-1-1/NetworkAttributesRegistry_NIC.Slot.3-1-1.json/index.json";

/// Writes into `dir` the seed-1 baseline BMC whose first NIC function has one more attribute,
/// `name` = `value`, a writable `String` in its registry.
pub(crate) fn bmc_with_attribute(dir: &Path, name: &str, value: &str) {
    copy_dir(
        &root().join("examples/azure-local-dcbx/recorded/baseline/bmc"),
        dir,
    );
    let edit = |file: &Path, change: &dyn Fn(&mut Value)| {
        let mut doc: Value = serde_json::from_slice(&std::fs::read(file).unwrap()).unwrap();
        change(&mut doc);
        std::fs::write(file, serde_json::to_vec_pretty(&doc).unwrap()).unwrap();
    };
    edit(&dir.join(NIC_ATTRIBUTES).join("index.json"), &|doc| {
        doc["Attributes"][name] = json!(value);
    });
    edit(&dir.join(NIC_REGISTRY), &|doc| {
        doc["RegistryEntries"]["Attributes"]
            .as_array_mut()
            .unwrap()
            .push(json!({
                "AttributeName": name,
                "DisplayName": "PFC priorities",
                "Type": "String",
                "ReadOnly": false,
                "ResetRequired": true,
            }));
    });
}

/// One request the BMC stand-in received.
#[derive(Debug, Clone)]
pub(crate) struct Received {
    /// Its method.
    pub method: String,
    /// Its path, as sent.
    pub path: String,
    /// The Basic authentication's `user:password`, decoded.
    pub account: Vec<u8>,
    /// Its body.
    pub body: Vec<u8>,
}

/// A BMC stand-in on 127.0.0.1: answers every request `200` and keeps it.
pub(crate) struct Recorder {
    /// `http://127.0.0.1:<port>`.
    pub url: String,
    received: Arc<Mutex<Vec<Received>>>,
}

impl Recorder {
    /// Starts one; it serves until the tests end.
    pub(crate) fn start() -> Recorder {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let received = Arc::new(Mutex::new(Vec::new()));
        let keep = Arc::clone(&received);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut line = String::new();
                if reader.read_line(&mut line).is_err() {
                    continue;
                }
                let mut parts = line.split_whitespace();
                let method = parts.next().unwrap_or("").to_owned();
                let path = parts.next().unwrap_or("").to_owned();
                let (mut length, mut account, mut expect) = (0, Vec::new(), false);
                loop {
                    let mut header = String::new();
                    if reader.read_line(&mut header).unwrap_or(0) == 0 || header == "\r\n" {
                        break;
                    }
                    let (key, value) = header.split_once(':').unwrap_or(("", ""));
                    let value = value.trim();
                    match key.to_ascii_lowercase().as_str() {
                        "content-length" => length = value.parse().unwrap_or(0),
                        "expect" => expect = true,
                        "authorization" => {
                            account = base64::engine::general_purpose::STANDARD
                                .decode(value.trim_start_matches("Basic "))
                                .unwrap_or_default();
                        }
                        _ => {}
                    }
                }
                if expect {
                    let _ = stream.write_all(b"HTTP/1.1 100 Continue\r\n\r\n");
                }
                let mut body = vec![0; length];
                let _ = reader.read_exact(&mut body);
                keep.lock().unwrap().push(Received {
                    method,
                    path,
                    account,
                    body,
                });
                let _ = stream.write_all(
                    b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                );
            }
        });
        Recorder { url, received }
    }

    /// Every request so far, in order.
    pub(crate) fn received(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }
}

/// One call of a stand-in: its arguments and what it read on standard input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Call {
    /// `argv[1..]`, each as bytes.
    pub args: Vec<Vec<u8>>,
    /// Its standard input.
    pub stdin: Vec<u8>,
}

/// Stand-in `curl`, `esxcli` and `mlnx_qos` in a bin folder, recording each call in `log`.
pub(crate) struct StandIns {
    bin: tempfile::TempDir,
    log: tempfile::TempDir,
}

impl StandIns {
    /// Makes them: `curl` runs the real curl (found on `PATH` now) with its arguments and
    /// input after recording them; the others record and succeed.
    pub(crate) fn new() -> StandIns {
        let real_curl = std::env::split_paths(&std::env::var_os("PATH").unwrap())
            .map(|dir| dir.join("curl"))
            .find(|file| file.is_file())
            .expect("curl is installed");
        let bin = tempfile::tempdir().unwrap();
        let log = tempfile::tempdir().unwrap();
        for (tool, then) in [
            (
                "curl",
                format!("exec {:?} \"$@\" < \"$log/$n.stdin\"", real_curl.display()),
            ),
            ("esxcli", "exit 0".to_owned()),
            ("mlnx_qos", "exit 0".to_owned()),
        ] {
            let script = format!(
                "#!/bin/sh\nlog={log:?}/{tool}\nmkdir -p \"$log\"\nn=0\nwhile [ -e \"$log/$n.args\" ]; do n=$((n + 1)); done\nfor a in \"$@\"; do printf '%s\\0' \"$a\"; done > \"$log/$n.args\"\ncat > \"$log/$n.stdin\"\nenv > \"$log/$n.env\"\n{then}\n",
                log = log.path().display().to_string(),
            );
            let file = bin.path().join(tool);
            std::fs::write(&file, script).unwrap();
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        StandIns { bin, log }
    }

    /// `PATH` with the stand-ins first.
    pub(crate) fn path(&self) -> String {
        format!(
            "{}:{}",
            self.bin.path().display(),
            std::env::var("PATH").unwrap()
        )
    }

    /// The calls of `tool` so far, in order.
    pub(crate) fn calls(&self, tool: &str) -> Vec<Call> {
        let dir = self.log.path().join(tool);
        (0..)
            .map(|n| dir.join(format!("{n}.args")))
            .take_while(|file| file.exists())
            .map(|file| {
                let args = std::fs::read(&file).unwrap();
                let mut args: Vec<Vec<u8>> = args.split(|b| *b == 0).map(<[u8]>::to_vec).collect();
                args.pop();
                Call {
                    args,
                    stdin: std::fs::read(file.with_extension("stdin")).unwrap(),
                }
            })
            .collect()
    }

    /// The file holding the environment of the `n`th call of `tool`.
    pub(crate) fn env_of(&self, tool: &str, n: usize) -> PathBuf {
        self.log.path().join(tool).join(format!("{n}.env"))
    }
}

/// What a script run did.
pub(crate) struct ScriptRun {
    /// Its exit code.
    pub code: i32,
    /// Its standard error.
    pub stderr: String,
    /// The files it left in the folder it ran in.
    pub left: Vec<PathBuf>,
}

/// Runs `script` with `sh` in an empty folder, the stand-ins first on `PATH`, with `env`.
pub(crate) fn run_script(script: &Path, stand_ins: &StandIns, env: &[(&str, &str)]) -> ScriptRun {
    let cwd = tempfile::tempdir().unwrap();
    let mut cmd = std::process::Command::new("sh");
    cmd.arg(script)
        .current_dir(cwd.path())
        .env("PATH", stand_ins.path())
        .stdin(std::process::Stdio::null());
    for (key, value) in env {
        cmd.env(key, value);
    }
    let output = cmd.output().unwrap();
    let left = std::fs::read_dir(cwd.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    ScriptRun {
        code: output.status.code().unwrap_or(-1),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        left,
    }
}
