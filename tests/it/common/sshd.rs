//! A throw-away OpenSSH server on 127.0.0.1 for transport tests: its own host key, one
//! authorized client key, and a PATH of stand-in commands.

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Where `scripts/test-deps.sh` installs the server.
const SSHD: &str = "/usr/sbin/sshd";

/// A running test sshd; stopped on drop.
pub(crate) struct Sshd {
    child: Child,
    /// Port it listens on (127.0.0.1).
    pub port: u16,
    /// Folder of its keys and configuration.
    pub dir: tempfile::TempDir,
    /// Client configuration for `ssh -F`: host alias `testhost` reaches this server.
    pub client_config: PathBuf,
}

fn run(program: &str, args: &[&str]) {
    let status = Command::new(program)
        .args(args)
        .status()
        .unwrap_or_else(|e| panic!("{program}: {e}"));
    assert!(status.success(), "{program} {args:?} failed");
}

/// A TCP port nothing listens on right now.
pub(crate) fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .expect("bind 127.0.0.1:0")
        .local_addr()
        .expect("local address")
        .port()
}

impl Sshd {
    /// Starts a server whose sessions see `bin` first on their PATH.
    pub(crate) fn start(bin: &Path) -> Sshd {
        assert!(
            Path::new(SSHD).exists(),
            "{SSHD} is missing: run `bash scripts/test-deps.sh` (installs openssh-server), as the README says"
        );
        let dir = tempfile::tempdir().expect("a temporary directory");
        let path = |name: &str| dir.path().join(name).display().to_string();
        run(
            "ssh-keygen",
            &["-q", "-t", "ed25519", "-N", "", "-f", &path("host_key")],
        );
        run(
            "ssh-keygen",
            &["-q", "-t", "ed25519", "-N", "", "-f", &path("client_key")],
        );
        std::fs::copy(path("client_key.pub"), path("authorized_keys")).expect("authorized_keys");
        // sshd running as root needs its privilege-separation directory.
        let _ = std::fs::create_dir_all("/run/sshd");
        let port = free_port();
        let user = String::from_utf8(
            Command::new("id")
                .arg("-un")
                .output()
                .expect("id -un")
                .stdout,
        )
        .expect("UTF-8 user name")
        .trim()
        .to_owned();
        std::fs::write(
            path("sshd_config"),
            format!(
                "Port {port}\nListenAddress 127.0.0.1\nHostKey {}\nPidFile {}\nAuthorizedKeysFile {}\n\
                 StrictModes no\nPasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM no\n\
                 PermitRootLogin prohibit-password\nSetEnv PATH={}:/usr/bin:/bin\nLogLevel ERROR\n",
                path("host_key"),
                path("sshd.pid"),
                path("authorized_keys"),
                bin.display()
            ),
        )
        .expect("sshd_config");
        let host_key = std::fs::read_to_string(path("host_key.pub")).expect("host key");
        std::fs::write(
            path("known_hosts"),
            format!("[127.0.0.1]:{port} {host_key}"),
        )
        .expect("known_hosts");
        let client_config = dir.path().join("ssh_config");
        std::fs::write(
            &client_config,
            format!(
                "Host testhost\n  HostName 127.0.0.1\n  Port {port}\n  User {user}\n  IdentityFile {}\n  IdentitiesOnly yes\n  \
                 UserKnownHostsFile {}\n  StrictHostKeyChecking yes\n",
                path("client_key"),
                path("known_hosts")
            ),
        )
        .expect("ssh_config");
        let child = Command::new(SSHD)
            .args(["-D", "-e", "-f", &path("sshd_config")])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("sshd starts");
        let server = Sshd {
            child,
            port,
            dir,
            client_config,
        };
        let deadline = Instant::now() + Duration::from_secs(10);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                Instant::now() < deadline,
                "sshd did not listen on 127.0.0.1:{port} within 10 s"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        server
    }

    /// Replaces the known host key with another one, so host-key checking must fail.
    pub(crate) fn forget_host_key(&self) {
        let other = self.dir.path().join("other_key");
        run(
            "ssh-keygen",
            &[
                "-q",
                "-t",
                "ed25519",
                "-N",
                "",
                "-f",
                &other.display().to_string(),
            ],
        );
        let key = std::fs::read_to_string(other.with_extension("pub")).expect("other key");
        std::fs::write(
            self.dir.path().join("known_hosts"),
            format!("[127.0.0.1]:{} {key}", self.port),
        )
        .expect("known_hosts");
    }
}

impl Drop for Sshd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
