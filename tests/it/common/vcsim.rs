//! govmomi's vCenter simulator (`vcsim`) on 127.0.0.1: a vSphere SOAP server driftgate's
//! authors did not write, serving a default inventory (one datacenter, a standalone host
//! `DC0_H0` and a cluster of three, every LUN on `VMW_PSP_FIXED`) or one saved with `govc
//! object.save` and edited here into seed 2 ([`model_seed_2`]). `bash scripts/test-deps.sh`
//! builds `vcsim` and `govc` (govmomi 0.24.2, from Debian's packages) into `target/vcsim-bin`
//! and pyVmomi into `target/test-venv`, for [`read_luns`].

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use sha2::Digest as _;

/// The user the simulator accepts, and no other: with no `-username` it takes any.
pub(crate) const USER: &str = "driftgate";
/// [`USER`]'s password.
pub(crate) const PASSWORD: &str = "vcsim-secret";

/// The seed-2 host: ESXi 5.0.0 build 469512, with [`SEED_2_LUN`] perennially reserved on
/// `VMW_PSP_RR`, as `examples/esxi-mscs-psp/recorded/round-robin` recorded it through esxcli.
pub(crate) const SEED_2_HOST: &str = "DC0_H0";
/// The perennially reserved LUN of [`SEED_2_HOST`] (an IBM SVC volume, `VMW_SATP_SVC`).
pub(crate) const SEED_2_LUN: &str = "naa.60050768028081713c0000000000007d";
/// Its sibling on the same array: round robin too, not reserved.
pub(crate) const SEED_2_SIBLING: &str = "naa.60050768028081713c0000000000007c";
/// The host on ESXi 7.0 whose NVMe LUN [`HPP_LUN`] the High Performance Plug-in claims.
pub(crate) const HPP_HOST: &str = "DC0_C0_H0";
/// [`HPP_HOST`]'s HPP LUN. HPP has no SATP; its path selection schemes are named without the
/// `VMW_PSP_` prefix (`FIXED`, `LB-RR`, `LB-IOPS`, `LB-BYTES`, `LB-Latency`) and the API
/// types the policy `HostMultipathInfoHppLogicalUnitPolicy`.
pub(crate) const HPP_LUN: &str = "eui.0025385b71b0a1d10000000000000001";

/// Where `scripts/test-deps.sh` builds `vcsim` and `govc`.
fn program(name: &str) -> PathBuf {
    let path = super::root().join("target/vcsim-bin").join(name);
    assert!(
        path.exists(),
        "{} is missing: run `bash scripts/test-deps.sh` (builds govmomi's vcsim and govc from \
         Debian's packages into target/vcsim-bin)",
        path.display()
    );
    path
}

/// A running `vcsim`; stopped (SIGTERM, then reaped) on drop.
pub(crate) struct Vcsim {
    child: Child,
    port: u16,
    pin: String,
    dir: tempfile::TempDir,
}

impl Vcsim {
    /// The default model, on a port of the simulator's choosing.
    pub(crate) fn start() -> Vcsim {
        Vcsim::spawn(None, &[])
    }

    /// The default model with more `vcsim` flags (`-method-delay RetrievePropertiesEx:3000`).
    pub(crate) fn start_with(flags: &[&str]) -> Vcsim {
        Vcsim::spawn(None, flags)
    }

    /// The inventory `govc object.save` wrote into `dir` ([`save_default_inventory`]), as
    /// edited since.
    pub(crate) fn load(dir: &Path) -> Vcsim {
        Vcsim::spawn(Some(dir), &[])
    }

    fn spawn(inventory: Option<&Path>, flags: &[&str]) -> Vcsim {
        let bin = program("vcsim");
        let dir = tempfile::tempdir().expect("a temporary directory");
        // A certificate of the test's own, so its pin is known before the first connection.
        let certified = rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_owned()])
            .expect("a self-signed certificate");
        let pin = format!(
            "sha256:{}",
            hex::encode(sha2::Sha256::digest(certified.cert.der()))
        );
        std::fs::write(dir.path().join("cert.pem"), certified.cert.pem()).expect("writable");
        std::fs::write(
            dir.path().join("key.pem"),
            certified.signing_key.serialize_pem(),
        )
        .expect("writable");
        // Files, not pipes: vcsim writes its one `export GOVC_URL=…` line and then nothing a
        // test reads, and a pipe nobody drains could stop it.
        let stdout = dir.path().join("stdout");
        let stderr = dir.path().join("stderr");
        let mut command = Command::new(&bin);
        command
            .args([
                "-l",
                "127.0.0.1:0",
                "-username",
                USER,
                "-password",
                PASSWORD,
            ])
            .arg("-tlscert")
            .arg(dir.path().join("cert.pem"))
            .arg("-tlskey")
            .arg(dir.path().join("key.pem"))
            // Every SOAP request and answer, for what the simulator saw (`logins`).
            .arg("-trace")
            .arg("-trace-file")
            .arg(dir.path().join("trace.xml"))
            .args(flags);
        if let Some(inventory) = inventory {
            command.arg("-load").arg(inventory);
        }
        let child = command
            .current_dir(dir.path())
            .stdin(Stdio::null())
            .stdout(std::fs::File::create(&stdout).expect("writable"))
            .stderr(std::fs::File::create(&stderr).expect("writable"))
            .spawn()
            .unwrap_or_else(|e| panic!("{}: {e}: see `bash scripts/test-deps.sh`", bin.display()));
        let mut vcsim = Vcsim {
            child,
            port: 0,
            pin,
            dir,
        };
        // It prints the line once it listens: `export GOVC_URL=https://USER:PASS@127.0.0.1:PORT/sdk
        // GOVC_SIM_PID=PID`.
        let deadline = Instant::now() + Duration::from_secs(20);
        vcsim.port = loop {
            let printed = std::fs::read_to_string(&stdout).unwrap_or_default();
            if let Some(port) = printed
                .split_whitespace()
                .find_map(|word| word.strip_prefix("GOVC_URL="))
                .and_then(|url| url.rsplit_once(':'))
                .and_then(|(_, rest)| rest.strip_suffix("/sdk"))
            {
                break port
                    .parse()
                    .unwrap_or_else(|_| panic!("vcsim printed an odd URL: {printed}"));
            }
            if let Ok(Some(status)) = vcsim.child.try_wait() {
                panic!(
                    "vcsim exited ({status}) before listening: {}",
                    vcsim.stderr()
                );
            }
            assert!(
                Instant::now() < deadline,
                "vcsim printed no GOVC_URL within 20 s: {}",
                vcsim.stderr()
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        vcsim
    }

    /// The SDK endpoint, `https://127.0.0.1:PORT/sdk`, without credentials.
    pub(crate) fn url(&self) -> String {
        format!("https://127.0.0.1:{}/sdk", self.port)
    }

    /// The `sha256:` pin of the certificate the simulator presents (SHA-256 of its DER).
    pub(crate) fn pin(&self) -> &str {
        &self.pin
    }

    /// The certificate the simulator presents, PEM: a client's only trust anchor.
    pub(crate) fn cert_file(&self) -> PathBuf {
        self.dir.path().join("cert.pem")
    }

    /// The process id, for a test that checks it is gone after the drop.
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// What the simulator wrote on standard error, for failure messages.
    pub(crate) fn stderr(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("stderr")).unwrap_or_default()
    }

    /// `govc` against this simulator, trusting its certificate alone. No persisted session
    /// (govc would keep one open across runs, in a `~/.govmomi` of the test's temporary
    /// directory): each run logs in and out.
    pub(crate) fn govc(&self) -> Command {
        let mut govc = Command::new(program("govc"));
        govc.env(
            "GOVC_URL",
            format!("https://{USER}:{PASSWORD}@127.0.0.1:{}/sdk", self.port),
        )
        .env("GOVC_TLS_CA_CERTS", self.cert_file())
        .env("GOVC_PERSIST_SESSION", "false")
        .env("HOME", self.dir.path())
        .env_remove("GOVC_INSECURE")
        .env_remove("GOVC_USERNAME")
        .env_remove("GOVC_PASSWORD")
        .stdin(Stdio::null());
        govc
    }

    /// Runs `govc ARGS` and returns its standard output; panics with its standard error when
    /// it fails.
    pub(crate) fn govc_output(&self, args: &[&str]) -> String {
        let output = self.govc().args(args).output().expect("govc runs");
        assert!(
            output.status.success(),
            "govc {}: {}\nvcsim: {}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr),
            self.stderr()
        );
        String::from_utf8(output.stdout).expect("UTF-8 output")
    }

    /// The sessions open on the simulator besides the one `govc session.ls` counts them with
    /// (the `SessionList` of its `SessionManager` less govc's `CurrentSession`): what a client
    /// that logged in and out leaves behind.
    pub(crate) fn sessions(&self) -> usize {
        let listed: Value = serde_json::from_str(&self.govc_output(&["session.ls", "-json"]))
            .expect("session.ls -json prints JSON");
        let own = listed["CurrentSession"]["Key"]
            .as_str()
            .unwrap_or_else(|| panic!("no CurrentSession in {listed}"));
        listed["SessionList"]
            .as_array()
            .unwrap_or_else(|| panic!("no SessionList in {listed}"))
            .iter()
            .filter(|session| session["Key"].as_str() != Some(own))
            .count()
    }

    /// How many `SessionManager.Login` requests the simulator received (from its SOAP trace).
    pub(crate) fn logins(&self) -> usize {
        std::fs::read_to_string(self.dir.path().join("trace.xml"))
            .unwrap_or_default()
            .matches("<Login ")
            .count()
    }

    /// The simulator's SOAP trace: every request and its answer.
    pub(crate) fn trace(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("trace.xml")).unwrap_or_default()
    }

    /// Whether the simulator received a request of `method` (from its SOAP trace).
    pub(crate) fn received(&self, method: &str) -> bool {
        std::fs::read_to_string(self.dir.path().join("trace.xml"))
            .unwrap_or_default()
            .contains(&format!("<{method} "))
    }

    /// pyVmomi's reading of every host's product and LUNs (`tests/fixtures/vcenter/read_luns.py`):
    /// `{"hosts": [{"name", "version", "build", "luns": [{"canonical_name",
    /// "perennially_reserved", "policy", "satp"}]}]}`, hosts by name.
    pub(crate) fn read_luns(&self) -> Value {
        let python = super::root().join("target/test-venv/bin/python");
        assert!(
            python.exists(),
            "{} is missing: run `bash scripts/test-deps.sh` (pyVmomi from PyPI)",
            python.display()
        );
        let output = Command::new(&python)
            .arg(super::root().join("tests/fixtures/vcenter/read_luns.py"))
            .arg(self.url())
            .args([USER, PASSWORD])
            .arg(self.cert_file())
            .stdin(Stdio::null())
            .output()
            .expect("python runs");
        assert!(
            output.status.success(),
            "read_luns.py: {}\nvcsim: {}",
            String::from_utf8_lossy(&output.stderr),
            self.stderr()
        );
        serde_json::from_slice(&output.stdout).expect("read_luns.py prints JSON")
    }
}

impl Drop for Vcsim {
    fn drop(&mut self) {
        super::stop_server(&mut self.child);
    }
}

/// Saves the default model's inventory into `dir` (`govc object.save -d DIR`, one XML file of
/// `RetrievePropertiesEx` answers per managed object, e.g. `0054-HostSystem-host-21.xml`), for
/// [`Vcsim::load`].
pub(crate) fn save_default_inventory(dir: &Path) {
    let vcsim = Vcsim::start();
    vcsim.govc_output(&[
        "object.save",
        "-f",
        "-d",
        dir.to_str().expect("a UTF-8 path"),
    ]);
    // The SessionManager was saved with the saving govc's session in its sessionList, and
    // vcsim -load would list that session as open forever: a loaded simulator starts with none.
    let manager = std::fs::read_dir(dir)
        .expect("saved")
        .map(|entry| entry.expect("a directory entry").path())
        .find(|path| {
            path.to_string_lossy()
                .ends_with("-SessionManager-SessionManager.xml")
        })
        .unwrap_or_else(|| panic!("govc saved no SessionManager in {}", dir.display()));
    let xml = std::fs::read_to_string(&manager).expect("readable");
    let list = "XMLSchema-instance:type=\"ArrayOfUserSession\">";
    let start = xml
        .find(list)
        .unwrap_or_else(|| panic!("no sessionList in {}", manager.display()))
        + list.len();
    let end = start + xml[start..].find("</val>").expect("a closed sessionList");
    std::fs::write(&manager, format!("{}{}", &xml[..start], &xml[end..])).expect("writable");
    save_storage_systems(dir);
}

/// Writes each saved host's `HostStorageSystem` (`configManager.storageSystem`), whose
/// `storageDeviceInfo` is the host's `config.storageDevice`, as on a real host. govc 0.24's
/// `object.save` leaves these objects out, and vcsim -load then serves an empty
/// `storageDeviceInfo` (`govc host.storage.info` lists nothing): a client reading storage
/// through the storage system would see no LUN. Each file is named after its host's, so it
/// loads right after it; a second call rewrites them.
fn save_storage_systems(dir: &Path) {
    for host in saved_hosts(dir) {
        let xml = std::fs::read_to_string(&host).expect("readable");
        let id = between(
            &xml,
            "<storageSystem type=\"HostStorageSystem\">",
            "</storageSystem>",
        );
        let devices = between(&xml, "<storageDevice>", "</storageDevice>");
        let file = host
            .file_name()
            .and_then(|name| name.to_str())
            .expect("a UTF-8 name");
        let (number, _) = file
            .split_once('-')
            .expect("govc numbers the files it saves");
        std::fs::write(
            dir.join(format!("{number}a-HostStorageSystem-{id}.xml")),
            format!(
                r#"<ObjectContent>
  <obj type="HostStorageSystem">{id}</obj>
  <propSet>
    <name>storageDeviceInfo</name>
    <val xmlns:XMLSchema-instance="http://www.w3.org/2001/XMLSchema-instance" XMLSchema-instance:type="HostStorageDeviceInfo">{devices}</val>
  </propSet>
</ObjectContent>
"#
            ),
        )
        .expect("writable");
    }
}

/// The text between the one `open` in `xml` and the `close` after it.
fn between<'a>(xml: &'a str, open: &str, close: &str) -> &'a str {
    let mut found = xml.match_indices(open);
    let (at, _) = found
        .next()
        .unwrap_or_else(|| panic!("no {open} in the saved host"));
    assert!(found.next().is_none(), "{open} twice in the saved host");
    let start = at + open.len();
    let end = start
        + xml[start..]
            .find(close)
            .unwrap_or_else(|| panic!("no {close}"));
    &xml[start..end]
}

/// The saved `HostSystem` files in `dir`.
fn saved_hosts(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| {
            path.file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|file| file.contains("-HostSystem-"))
        })
        .collect()
}

/// The saved file of the host named `name`.
pub(crate) fn host_file(dir: &Path, name: &str) -> PathBuf {
    let mut found = saved_hosts(dir)
        .into_iter()
        // The `name` property: `<val … XMLSchema-instance:type="xsd:string">NAME</val>`.
        .filter(|path| {
            std::fs::read_to_string(path)
                .expect("readable")
                .contains(&format!("\"xsd:string\">{name}</val>"))
        });
    let path = found
        .next()
        .unwrap_or_else(|| panic!("no saved HostSystem is named {name} in {}", dir.display()));
    assert!(found.next().is_none(), "two saved hosts are named {name}");
    path
}

/// Edits a default inventory saved by [`save_default_inventory`] into seed 2: [`SEED_2_HOST`]
/// runs ESXi 5.0.0 build 469512 and has two IBM SVC LUNs on `VMW_PSP_RR`, [`SEED_2_LUN`]
/// perennially reserved; [`HPP_HOST`] runs ESXi 7.0.0 build 15843807 and has an NVMe LUN,
/// [`HPP_LUN`], that HPP claims with `LB-RR`. The other hosts stay as the model made them.
/// Each host's storage system follows its `config.storageDevice`.
pub(crate) fn model_seed_2(dir: &Path) {
    let seed = host_file(dir, SEED_2_HOST);
    let mut xml = std::fs::read_to_string(&seed).expect("readable");
    xml = set_product(&xml, "5.0.0", "469512", "5.0");
    for (canonical_name, megabytes, reserved, lun) in [
        (SEED_2_SIBLING, 2_097_152, false, 4),
        (SEED_2_LUN, 51_200, true, 5),
    ] {
        let paths = [
            "vmhba2:C0:T1",
            "vmhba2:C0:T0",
            "vmhba3:C0:T1",
            "vmhba3:C0:T0",
        ]
        .map(|target| format!("{target}:L{lun}"));
        xml = add_lun(
            &xml,
            &Lun {
                canonical_name,
                display_name: &format!("IBM Fibre Channel Disk ({canonical_name})"),
                vendor: "IBM     ",
                model: "2145            ",
                megabytes,
                perennially_reserved: reserved,
                policy: ("HostMultipathInfoLogicalUnitPolicy", "VMW_PSP_RR"),
                satp: Some("VMW_SATP_SVC"),
                adapter: "FibreChannelHba",
                paths: &paths,
            },
        );
    }
    std::fs::write(&seed, xml).expect("writable");

    let hpp = host_file(dir, HPP_HOST);
    let mut xml = std::fs::read_to_string(&hpp).expect("readable");
    xml = set_product(&xml, "7.0.0", "15843807", "7.0.0.0");
    // ESXi 7.0 (vSphere API 6.7.2 and later) says of every SCSI LUN whether it is perennially
    // reserved; the model, an ESXi 6.5, says it of none.
    xml = unreserved_luns(&xml);
    xml = add_lun(
        &xml,
        &Lun {
            canonical_name: HPP_LUN,
            display_name: &format!("Local NVMe Disk ({HPP_LUN})"),
            vendor: "NVMe",
            model: "SAMSUNG MZWLL1T6",
            megabytes: 1_526_185,
            perennially_reserved: false,
            policy: ("HostMultipathInfoHppLogicalUnitPolicy", "LB-RR"),
            satp: None,
            adapter: "PcieHba",
            paths: &["vmhba4:C0:T0:L0".to_owned()],
        },
    );
    std::fs::write(&hpp, xml).expect("writable");
    save_storage_systems(dir);
}

/// The saved host `xml` with `perenniallyReserved` false in each of its typed SCSI LUNs (not
/// in the `scsiLun` keys its topology lists).
fn unreserved_luns(xml: &str) -> String {
    let mut out = String::with_capacity(xml.len());
    let mut rest = xml;
    while let Some(start) = rest.find("<scsiLun XMLSchema-instance:type=") {
        let end = start
            + rest[start..]
                .find("</scsiLun>")
                .expect("a closed <scsiLun>");
        out.push_str(&rest[..end]);
        if !rest[start..end].contains("<perenniallyReserved>") {
            out.push_str("<perenniallyReserved>false</perenniallyReserved>");
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// Sets the ESXi version in every `VMware ESXi` product of a saved host: `config.product`
/// and `summary.config.product`.
fn set_product(xml: &str, version: &str, build: &str, api_version: &str) -> String {
    let mut out = String::with_capacity(xml.len());
    let mut rest = xml;
    let mut products = 0;
    while let Some(start) = rest.find("<product>") {
        let end = start
            + rest[start..]
                .find("</product>")
                .expect("a closed <product>");
        out.push_str(&rest[..start]);
        let mut product = rest[start..end].to_owned();
        if product.contains("<name>VMware ESXi</name>") {
            products += 1;
            for (tag, value) in [
                ("fullName", format!("VMware ESXi {version} build-{build}")),
                ("version", version.to_owned()),
                ("build", build.to_owned()),
                ("apiVersion", api_version.to_owned()),
            ] {
                product = set_element(&product, tag, &value);
            }
        }
        out.push_str(&product);
        rest = &rest[end..];
    }
    out.push_str(rest);
    assert_eq!(products, 2, "config.product and summary.config.product");
    out
}

/// Replaces the text of the first `<tag>` in `xml`.
fn set_element(xml: &str, tag: &str, value: &str) -> String {
    let (open, close) = (format!("<{tag}>"), format!("</{tag}>"));
    let start = xml
        .find(&open)
        .unwrap_or_else(|| panic!("no <{tag}> in {xml}"))
        + open.len();
    let end = start + xml[start..].find(&close).expect("a closed element");
    format!("{}{value}{}", &xml[..start], &xml[end..])
}

/// A SCSI disk and its multipathing, as a saved host's `config.storageDevice` lists them.
struct Lun<'a> {
    canonical_name: &'a str,
    display_name: &'a str,
    vendor: &'a str,
    model: &'a str,
    megabytes: u64,
    perennially_reserved: bool,
    /// The `xsi:type` of `policy` and its `policy` string.
    policy: (&'a str, &'a str),
    satp: Option<&'a str>,
    /// The host bus adapter type in the paths' adapter keys.
    adapter: &'a str,
    paths: &'a [String],
}

/// Adds `lun` to the saved host `xml`: to `config.storageDevice.scsiLun` (before
/// `scsiTopology`, which follows it in the saved order) and to `multipathInfo.lun`.
fn add_lun(xml: &str, lun: &Lun) -> String {
    let Lun {
        canonical_name: name,
        display_name,
        vendor,
        model,
        megabytes,
        perennially_reserved,
        policy: (policy_type, policy),
        satp,
        adapter,
        paths,
    } = lun;
    // ESXi's ids are the device's VPD page 0x83 identifier wrapped in a type prefix; any
    // unique string links a ScsiLun and its multipath entry as well.
    let id = name.replace(['.', ':'], "");
    let blocks = megabytes * 2048;
    let scsi_lun = format!(
        r#"<scsiLun XMLSchema-instance:type="HostScsiDisk">
          <deviceName>/vmfs/devices/disks/{name}</deviceName>
          <deviceType>disk</deviceType>
          <key>key-vim.host.ScsiDisk-{id}</key>
          <uuid>{id}</uuid>
          <canonicalName>{name}</canonicalName>
          <displayName>{display_name}</displayName>
          <lunType>disk</lunType>
          <vendor>{vendor}</vendor>
          <model>{model}</model>
          <revision>0000</revision>
          <scsiLevel>5</scsiLevel>
          <operationalState>ok</operationalState>
          <perenniallyReserved>{perennially_reserved}</perenniallyReserved>
          <capacity>
            <blockSize>512</blockSize>
            <block>{blocks}</block>
          </capacity>
          <devicePath>/vmfs/devices/disks/{name}</devicePath>
          <ssd>false</ssd>
          <localDisk>false</localDisk>
        </scsiLun>
        "#
    );
    let unit = format!("key-vim.host.MultipathInfo.LogicalUnit-{id}");
    let paths: String = paths
        .iter()
        .map(|path| {
            let hba = path.split(':').next().expect("a path names its adapter");
            format!(
                r#"<path>
              <key>key-vim.host.MultipathInfo.Path-{path}</key>
              <name>{path}</name>
              <pathState>active</pathState>
              <state>active</state>
              <isWorkingPath>true</isWorkingPath>
              <adapter>key-vim.host.{adapter}-{hba}</adapter>
              <lun>{unit}</lun>
            </path>
            "#
            )
        })
        .collect();
    let satp = satp
        .map(|satp| {
            format!("<storageArrayTypePolicy><policy>{satp}</policy></storageArrayTypePolicy>")
        })
        .unwrap_or_default();
    let multipath = format!(
        r#"<lun>
            <key>{unit}</key>
            <id>{id}</id>
            <lun>key-vim.host.ScsiDisk-{id}</lun>
            {paths}<policy XMLSchema-instance:type="{policy_type}">
              <policy>{policy}</policy>
            </policy>
            {satp}
          </lun>
        "#
    );
    let xml = insert_before(xml, "<scsiTopology>", &scsi_lun);
    insert_before(&xml, "</multipathInfo>", &multipath)
}

/// `xml` with `text` inserted before the one occurrence of `marker`.
fn insert_before(xml: &str, marker: &str, text: &str) -> String {
    let mut found = xml.match_indices(marker);
    let (at, _) = found
        .next()
        .unwrap_or_else(|| panic!("no {marker} in the saved host"));
    assert!(found.next().is_none(), "{marker} twice in the saved host");
    format!("{}{text}{}", &xml[..at], &xml[at..])
}
