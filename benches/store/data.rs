//! The fleet's baselines: one real capture of the Dell BMC, made per host by changing its name
//! and a few per-host values (MAC addresses, serial numbers), re-sealed and written in the
//! canonical form, so the files given to driftgate are the blobs it commits.

use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};

use anyhow::{Context as _, bail};
use driftgate_snapshot::{FactPath, FactValue, HostName, Snapshot, VerifiedSnapshot};

use crate::tools::Tools;

/// The real capture the fleet is made from.
pub(crate) fn dell_capture() -> anyhow::Result<PathBuf> {
    let dir =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/public/redfish/libredfish-dell");
    if !dir.join("redfish/v1").is_dir() {
        bail!(
            "the Dell capture is not at {} (the store bench reads tests/fixtures/public)",
            dir.display()
        );
    }
    Ok(dir)
}

/// Captures the Dell mockup once with `driftgate capture` into `out`.
pub(crate) fn capture(tools: &Tools, out: &Path) -> anyhow::Result<VerifiedSnapshot> {
    let mut server = tools
        .driftgate()
        .arg("mockup")
        .arg("serve")
        .arg(dell_capture()?)
        .arg("--listen")
        .arg("127.0.0.1:0")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .context("start driftgate mockup serve")?;
    let captured = serve_url(&mut server).and_then(|url| {
        tools.run(
            tools
                .driftgate()
                .arg("capture")
                .arg("--host")
                .arg(host_name(0))
                .arg("--source")
                .arg(format!("redfish={url}"))
                .arg("--out")
                .arg(out),
        )
    });
    // The simulator runs until it is stopped; it is this bench's own child.
    let _ = server.kill();
    let _ = server.wait();
    captured?;
    let text = std::fs::read_to_string(out).with_context(|| format!("read {}", out.display()))?;
    let snapshot = VerifiedSnapshot::parse(&text, &out.display().to_string())?;
    if !snapshot.snapshot().is_complete() {
        bail!(
            "the capture of the Dell mockup in {} is partial",
            out.display()
        );
    }
    Ok(snapshot)
}

/// The URL from the simulator's `serving DIR on URL` line.
fn serve_url(server: &mut Child) -> anyhow::Result<String> {
    let stdout = server.stdout.take().context("simulator stdout")?;
    for line in BufReader::new(stdout).lines() {
        let line = line.context("read the simulator's output")?;
        if let Some((_, rest)) = line.split_once(" on ")
            && line.starts_with("serving ")
        {
            let url = rest.split_whitespace().next().unwrap_or_default();
            return Ok(url.to_owned());
        }
    }
    bail!("driftgate mockup serve stopped without saying where it serves")
}

/// `node00001` for host 1.
pub(crate) fn host_name(index: usize) -> String {
    format!("node{index:05}")
}

/// The capture, and which of its facts vary per host and per firmware wave.
pub(crate) struct Template {
    base: Snapshot,
    /// Facts whose value is a MAC address: a distinct one per host.
    macs: Vec<FactPath>,
    /// Facts whose value is a serial number or service tag: distinct per host.
    serials: Vec<FactPath>,
    /// What a firmware wave changes: a firmware version and a BIOS attribute.
    wave: Vec<FactPath>,
}

impl Template {
    /// Finds the varying facts of `capture`; fails if it has none of a kind.
    pub(crate) fn new(capture: &VerifiedSnapshot) -> anyhow::Result<Self> {
        let base = capture.snapshot().clone();
        let text = |p: &FactPath| base.facts.get(p).and_then(FactValue::as_text);
        let macs: Vec<FactPath> = base
            .facts
            .keys()
            .filter(|p| text(p).is_some_and(is_mac))
            .cloned()
            .collect();
        let serials: Vec<FactPath> = base
            .facts
            .keys()
            .filter(|p| {
                let lower = p.as_str().to_ascii_lowercase();
                (lower.ends_with("serial_number") || lower.ends_with("service_tag"))
                    && text(p).is_some()
            })
            .cloned()
            .collect();
        // The host firmware inventory (`firmware/**`, info) and a BIOS setting (`bios/**`, warn):
        // what a firmware wave changes, neither blocking under the built-in policy.
        let firmware = base.facts.keys().find(|p| {
            let lower = p.as_str().to_ascii_lowercase();
            lower.starts_with("firmware/") && lower.contains("version") && text(p).is_some()
        });
        let bios = base.facts.keys().find(|p| {
            p.as_str().starts_with("bios/")
                && !p.as_str().contains("DateTime")
                && !p.as_str().contains("OneTime")
                && !p.as_str().contains("PowerCycle")
                && text(p).is_some()
        });
        let (Some(firmware), Some(bios)) = (firmware, bios) else {
            bail!("the Dell capture has no firmware version or BIOS attribute fact to change");
        };
        if macs.is_empty() {
            bail!("the Dell capture has no MAC address fact to vary per host");
        }
        let wave = vec![firmware.clone(), bios.clone()];
        Ok(Template {
            base,
            macs,
            serials,
            wave,
        })
    }

    /// How many facts a host has, and how many vary per host.
    pub(crate) fn describe(&self) -> String {
        format!(
            "{} facts per host; per host: {} MAC values, {} serial values; a wave changes {}",
            self.base.facts.len(),
            self.macs.len(),
            self.serials.len(),
            self.wave
                .iter()
                .map(FactPath::as_str)
                .collect::<Vec<_>>()
                .join(" and ")
        )
    }

    /// Host `index`'s baseline after firmware wave `wave` (0: as captured), canonical JSON.
    pub(crate) fn render(&self, index: usize, wave: u32) -> String {
        let mut snapshot = self.base.clone();
        snapshot.host = HostName::new(host_name(index)).expect("node names are valid");
        for (k, path) in self.macs.iter().enumerate() {
            let mac = format!(
                "02:{k:02x}:{:02x}:{:02x}:{:02x}:{:02x}",
                index >> 24 & 0xff,
                index >> 16 & 0xff,
                index >> 8 & 0xff,
                index & 0xff
            );
            snapshot.facts.insert(path.clone(), mac.into());
        }
        for (k, path) in self.serials.iter().enumerate() {
            snapshot
                .facts
                .insert(path.clone(), format!("SN{index:07}{k}").into());
        }
        if wave > 0 {
            for path in &self.wave {
                let old = self.base.facts[path].as_text().unwrap_or_default();
                snapshot
                    .facts
                    .insert(path.clone(), format!("{old}.w{wave}").into());
            }
        }
        let sealed = VerifiedSnapshot::seal(snapshot, "bench");
        sealed.snapshot().to_canonical_json()
    }

    /// Writes `<host>.json` for every host in `hosts` after `wave` into each of `dirs`, on
    /// every core.
    pub(crate) fn write(&self, hosts: &[usize], wave: u32, dirs: &[&Path]) -> anyhow::Result<()> {
        for dir in dirs {
            std::fs::create_dir_all(dir).with_context(|| format!("create {}", dir.display()))?;
        }
        let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
        let chunk = hosts.len().div_ceil(workers).max(1);
        std::thread::scope(|scope| {
            let handles: Vec<_> = hosts
                .chunks(chunk)
                .map(|part| {
                    scope.spawn(move || -> anyhow::Result<()> {
                        for &index in part {
                            let text = self.render(index, wave);
                            for dir in dirs {
                                let path = dir.join(format!("{}.json", host_name(index)));
                                // A new file, never a rewrite through a hard link to another copy.
                                let _ = std::fs::remove_file(&path);
                                std::fs::write(&path, &text)
                                    .with_context(|| format!("write {}", path.display()))?;
                            }
                        }
                        Ok(())
                    })
                })
                .collect();
            handles
                .into_iter()
                .try_for_each(|h| h.join().expect("a writer thread panicked"))
        })
    }
}

/// `aa:bb:cc:dd:ee:ff` in either case.
fn is_mac(text: &str) -> bool {
    let parts: Vec<&str> = text.split(':').collect();
    parts.len() == 6
        && parts
            .iter()
            .all(|p| p.len() == 2 && p.bytes().all(|b| b.is_ascii_hexdigit()))
}
