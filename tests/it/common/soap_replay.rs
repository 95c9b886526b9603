//! A recorded vCenter: what govmomi's `vcsim` answered a capture of seed 2, taken from its SOAP
//! trace, served again over HTTPS on 127.0.0.1 after a test edited it into an answer no
//! simulator gives (a property twice, two policies or two SCSI LUNs for one device, a LUN
//! without its flag). Each POST to `/sdk` is answered with the recorded answer to its method; the rest of the
//! exchange (TLS, HTTP/1.1 keep-alive, the session's logout) is what a vCenter does.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, OnceLock};

use tokio::io::{AsyncBufReadExt as _, AsyncReadExt as _, AsyncWriteExt as _};

use super::vcsim::{self, PASSWORD, SEED_2_HOST, USER, Vcsim};

/// The recorded answers, by SOAP method.
pub(crate) type Answers = BTreeMap<String, String>;

/// The answers `vcsim` (seed 2, [`vcsim::model_seed_2`]) gave a capture of [`SEED_2_HOST`]:
/// `RetrieveServiceContent`, `Login`, `CreateContainerView`, `RetrievePropertiesEx` (every
/// host, one page), `DestroyView`, `Logout`. Recorded once per test process.
pub(crate) fn seed_2() -> &'static Answers {
    static RECORDED: OnceLock<Answers> = OnceLock::new();
    RECORDED.get_or_init(|| {
        let dir = tempfile::tempdir().expect("a temporary directory");
        vcsim::save_default_inventory(dir.path());
        vcsim::model_seed_2(dir.path());
        let sim = Vcsim::load(dir.path());
        let address = sim
            .url()
            .trim_start_matches("https://")
            .trim_end_matches("/sdk")
            .to_owned();
        let output = super::driftgate()
            .env("DRIFTGATE_BMC_USERNAME", USER)
            .env("DRIFTGATE_BMC_PASSWORD", PASSWORD)
            .args(["capture", "--host", "esx", "--source"])
            .arg(format!(
                "esxi=vcenter://{address}?host={SEED_2_HOST}&pin={}",
                sim.pin()
            ))
            .output()
            .expect("driftgate runs");
        assert!(
            output.status.success(),
            "the recorded capture: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let answers = answers_of(&sim.trace());
        assert_eq!(
            answers.keys().map(String::as_str).collect::<Vec<_>>(),
            [
                "CreateContainerView",
                "DestroyView",
                "Login",
                "Logout",
                "RetrievePropertiesEx",
                "RetrieveServiceContent"
            ],
            "the methods of one capture"
        );
        answers
    })
}

/// The answers of a `vcsim -trace` file: `Request: ENVELOPE` then `Response: ANSWER`, by the
/// request's method. The requests (which hold the password) are not kept.
fn answers_of(trace: &str) -> Answers {
    trace
        .split("Request: ")
        .filter_map(|exchange| exchange.split_once("\nResponse: "))
        .map(|(request, response)| (method_of(request).to_owned(), response.trim().to_owned()))
        .collect()
}

/// The method of a SOAP request: the first element in its `Body`.
fn method_of(request: &str) -> &str {
    let body = request.split_once("Body>").map_or("", |(_, rest)| rest);
    let start = body.find('<').map_or(body.len(), |at| at + 1);
    let name = &body[start..];
    let end = name.find([' ', '>', '/']).unwrap_or(name.len());
    &name[..end]
}

/// A running replay; stopped on drop.
pub(crate) struct Replay {
    port: u16,
    pin: String,
    received: Arc<Mutex<Vec<String>>>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Replay {
    /// Serves `answers` on a port of its own.
    pub(crate) fn serve(answers: Answers) -> Replay {
        let (acceptor, pin) = driftgate_simulator::self_signed().expect("a certificate");
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
        listener.set_nonblocking(true).expect("non-blocking");
        let port = listener.local_addr().expect("an address").port();
        let received = Arc::new(Mutex::new(Vec::new()));
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let seen = Arc::clone(&received);
        let answers = Arc::new(answers);
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a runtime");
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).expect("a listener");
                tokio::pin!(stopped);
                loop {
                    let accepted = tokio::select! {
                        _ = &mut stopped => return,
                        accepted = listener.accept() => accepted,
                    };
                    let Ok((tcp, _)) = accepted else { continue };
                    let (acceptor, answers, seen) =
                        (acceptor.clone(), Arc::clone(&answers), Arc::clone(&seen));
                    tokio::spawn(async move {
                        if let Ok(tls) = acceptor.accept(tcp).await {
                            let _ = exchange(tls, &answers, &seen).await;
                        }
                    });
                }
            });
        });
        Replay {
            port,
            pin,
            received,
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    /// `esxi=vcenter://127.0.0.1:PORT?host=HOST&pin=…`.
    pub(crate) fn source(&self, host: &str) -> String {
        format!(
            "esxi=vcenter://127.0.0.1:{}?host={host}&pin={}",
            self.port, self.pin
        )
    }

    /// The methods received, in order.
    pub(crate) fn received(&self) -> Vec<String> {
        self.received.lock().expect("not poisoned").clone()
    }
}

impl Drop for Replay {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Answers the requests of one connection until the client closes it.
async fn exchange<S>(stream: S, answers: &Answers, seen: &Mutex<Vec<String>>) -> std::io::Result<()>
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    let mut stream = tokio::io::BufReader::new(stream);
    loop {
        let mut line = String::new();
        if stream.read_line(&mut line).await? == 0 {
            return Ok(());
        }
        let mut length = 0;
        loop {
            line.clear();
            if stream.read_line(&mut line).await? == 0 || line == "\r\n" {
                break;
            }
            if let Some((name, value)) = line.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                length = value.trim().parse().unwrap_or(0);
            }
        }
        let mut body = vec![0; length];
        stream.read_exact(&mut body).await?;
        let request = String::from_utf8_lossy(&body);
        let method = method_of(&request).to_owned();
        let (status, answer) = match answers.get(&method) {
            Some(answer) => ("200 OK", answer.clone()),
            None => (
                "500 Internal Server Error",
                format!("no recorded answer to {method}"),
            ),
        };
        seen.lock().expect("not poisoned").push(method);
        let head = format!(
            "HTTP/1.1 {status}\r\nContent-Type: text/xml; charset=utf-8\r\nContent-Length: {}\r\n\r\n",
            answer.len()
        );
        let writer = stream.get_mut();
        writer.write_all(head.as_bytes()).await?;
        writer.write_all(answer.as_bytes()).await?;
        writer.flush().await?;
    }
}

/// `answers` with the `RetrievePropertiesEx` answer's object of [`SEED_2_HOST`] changed by
/// `edit` (the other hosts as recorded).
pub(crate) fn edit_seed_2_host(answers: &Answers, edit: impl FnOnce(&str) -> String) -> Answers {
    let mut answers = answers.clone();
    let retrieved = answers
        .get_mut("RetrievePropertiesEx")
        .expect("a recorded retrieval");
    let named = retrieved
        .find(&format!(">{SEED_2_HOST}</val>"))
        .expect("the seed-2 host is retrieved");
    let start = retrieved[..named].rfind("<objects>").expect("its object");
    let end = named
        + retrieved[named..]
            .find("</objects>")
            .expect("a closed object");
    let edited = edit(&retrieved[start..end]);
    retrieved.replace_range(start..end, &edited);
    answers
}

/// The seed-2 host as an answer without `perenniallyReserved` for its reserved device, from a
/// host of vSphere API `api` (`5.0` as recorded: older than the property).
pub(crate) fn without_reserved(api: &str) -> Answers {
    edit_seed_2_host(seed_2(), |host| {
        let edited = host
            .replace("<perenniallyReserved>true</perenniallyReserved>", "")
            .replace(
                "<apiVersion>5.0</apiVersion>",
                &format!("<apiVersion>{api}</apiVersion>"),
            );
        assert!(edited.len() < host.len(), "the flag was there");
        edited
    })
}

/// The seed-2 host giving `config.storageDevice.multipathInfo` twice: as recorded (Round Robin
/// on the reserved device), then with every policy Most Recently Used (which passes).
pub(crate) fn multipath_twice() -> Answers {
    edit_seed_2_host(seed_2(), |host| {
        let start = host
            .find("<propSet><name>config.storageDevice.multipathInfo</name>")
            .expect("the multipath property");
        let end = start + host[start..].find("</propSet>").expect("closed") + "</propSet>".len();
        let mru = host[start..end].replace("VMW_PSP_RR", "VMW_PSP_MRU");
        format!("{}{mru}{}", &host[..end], &host[end..])
    })
}

/// The seed-2 host's reserved device with two policies: Most Recently Used (which passes),
/// then Round Robin as recorded.
pub(crate) fn two_policies() -> Answers {
    edit_seed_2_host(seed_2(), |host| {
        let unit = format!(
            "MultipathInfo.LogicalUnit-{}",
            vcsim::SEED_2_LUN.replace(['.', ':'], "")
        );
        let at = host
            .find(&unit)
            .expect("the reserved device's logical unit");
        let policy = at + host[at..].find("<policy ").expect("its policy");
        let recorded_end = policy + host[policy..].find("</policy></policy>").expect("closed") + 18;
        let mru = host[policy..recorded_end].replace("VMW_PSP_RR", "VMW_PSP_MRU");
        format!("{}{mru}{}", &host[..policy], &host[policy..])
    })
}

/// The seed-2 host giving its reserved device twice, under two SCSI LUN keys: as recorded
/// (Round Robin, perennially reserved), then as the SCSI LUN `…-again` of a second logical
/// unit, Most Recently Used and not reserved (which passes).
pub(crate) fn device_twice() -> Answers {
    edit_seed_2_host(seed_2(), |host| {
        let id = vcsim::SEED_2_LUN.replace(['.', ':'], "");
        let again = |element: &str| {
            element
                .replace(&format!("-{id}<"), &format!("-{id}-again<"))
                .replace(&format!(">{id}<"), &format!(">{id}-again<"))
                .replace("VMW_PSP_RR", "VMW_PSP_MRU")
                .replace("<perenniallyReserved>true", "<perenniallyReserved>false")
        };
        let unit = host
            .find(&format!(
                "<lun><key>key-vim.host.MultipathInfo.LogicalUnit-{id}<"
            ))
            .expect("the reserved device's logical unit");
        let unit_end = unit + host[unit..].find("</lun></val>").expect("the last unit") + 6;
        let scsi_key = host
            .find(&format!("<key>key-vim.host.ScsiDisk-{id}<"))
            .expect("the reserved device's SCSI LUN");
        let scsi = host[..scsi_key].rfind("<ScsiLun ").expect("its element");
        let scsi_end = scsi + host[scsi..].find("</ScsiLun>").expect("closed") + 10;
        assert!(unit_end < scsi, "multipathInfo, then scsiLun, as recorded");
        format!(
            "{}{}{}{}{}",
            &host[..unit_end],
            again(&host[unit..unit_end]),
            &host[unit_end..scsi_end],
            again(&host[scsi..scsi_end]),
            &host[scsi_end..]
        )
    })
}
