//! A fleet of simulated BMCs in one process: planned from [`FleetOptions`] (each folder
//! opened once and shared, each patch tried on its resource), bound (each BMC on its own
//! address, a `down` one on none), then served until the process ends.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use serde_json::Value;
use tokio::net::TcpListener;

use super::bmc::{self, Bmc, Service};
use super::fault::Fault;
use super::plan::host_name;
use super::plan::{Addresses, FleetOptions, PlanError};
use super::tree::{Mockup, PatchError};
use driftgate_model::mockup_dir::NotAMockup;

/// Why a fleet cannot be served.
#[derive(Debug, thiserror::Error)]
pub enum FleetError {
    /// The command line's plan is wrong.
    #[error(transparent)]
    Plan(#[from] PlanError),
    /// A folder is no mockup.
    #[error(transparent)]
    NotAMockup(#[from] NotAMockup),
    /// A `--bmc-set` names a resource the BMC's folder does not have.
    #[error("--bmc-set of BMC {index}: {dir} has no resource {uri}")]
    NoResource {
        /// The BMC.
        index: usize,
        /// Its folder.
        dir: String,
        /// The resource.
        uri: String,
    },
    /// A `--bmc-set` pointer does not fit the BMC's resource.
    #[error("--bmc-set of BMC {index} ({dir}): {problem}")]
    Patch {
        /// The BMC.
        index: usize,
        /// Its folder.
        dir: String,
        /// What does not fit.
        problem: PatchError,
    },
    /// An address cannot be listened on.
    #[error("BMC {index}: cannot listen on {address}: {problem}")]
    Bind {
        /// The BMC.
        index: usize,
        /// Its address.
        address: SocketAddr,
        /// Why.
        problem: std::io::Error,
    },
}

/// A planned fleet, not yet listening.
pub struct Fleet {
    addresses: Addresses,
    bmcs: Vec<Planned>,
}

struct Planned {
    index: usize,
    dir: PathBuf,
    down: bool,
    bmc: Arc<Bmc>,
}

/// One BMC of a bound fleet, as it is printed and written to an inventory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoundBmc {
    /// Its number, from 0.
    pub index: usize,
    /// Its inventory host name (`sim-0000`).
    pub name: String,
    /// The folder it serves.
    pub dir: PathBuf,
    /// `http://ADDRESS` or `https://ADDRESS`.
    pub url: String,
    /// Nothing listens on its address (the `down` fault).
    pub down: bool,
}

/// A fleet whose BMCs listen; [`BoundFleet::serve`] answers them.
pub struct BoundFleet {
    bmcs: Vec<BoundBmc>,
    listeners: Vec<(TcpListener, Arc<Bmc>)>,
    tls: Option<tokio_rustls::TlsAcceptor>,
}

impl Fleet {
    /// Plans `options`: every folder is opened once and shared by the BMCs serving it; every
    /// `--bmc-set` is tried on its BMC's resource now, so a typo fails here, not mid-run.
    pub fn plan(options: &FleetOptions, service: Service) -> Result<Fleet, FleetError> {
        options.validate()?;
        let service = Arc::new(service);
        // Keyed by the folder's real path: `dir` and `./dir` are one folder, loaded once.
        let mut opened: HashMap<PathBuf, Arc<Mockup>> = HashMap::new();
        let mut bmcs = Vec::with_capacity(options.count);
        for index in 0..options.count {
            let dir = options.dir_of(index);
            let key = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
            let mockup = match opened.get(&key) {
                Some(mockup) => Arc::clone(mockup),
                None => Arc::clone(opened.entry(key).or_insert(Mockup::open(dir)?)),
            };
            let patches = options.patches_of(index);
            for patch in &patches {
                let no_resource = || FleetError::NoResource {
                    index,
                    dir: dir.display().to_string(),
                    uri: patch.uri.clone(),
                };
                let shared = mockup.resource(&patch.uri).ok_or_else(no_resource)?;
                let mut resource = Value::clone(&shared);
                patch
                    .apply(&mut resource)
                    .map_err(|problem| FleetError::Patch {
                        index,
                        dir: dir.display().to_string(),
                        problem,
                    })?;
            }
            let faults = options.faults_of(index);
            bmcs.push(Planned {
                index,
                dir: dir.to_path_buf(),
                down: faults.contains(&Fault::Down),
                bmc: Arc::new(Bmc::new(Arc::clone(&service), mockup, faults, patches)),
            });
        }
        Ok(Fleet {
            addresses: options.addresses,
            bmcs,
        })
    }

    /// Listens on every BMC's address but the `down` ones'; `tls`, when given, is every
    /// BMC's identity. Port 0 picks a free port per BMC (consecutive addresses) or one free
    /// port for all (loopback addresses); a `down` BMC gets a port nothing listens on.
    pub async fn bind(
        self,
        tls: Option<tokio_rustls::TlsAcceptor>,
    ) -> Result<BoundFleet, FleetError> {
        let shared_port = matches!(self.addresses, Addresses::Loopback(first) if first.port() == 0);
        let mut port = None;
        let mut addresses = vec![None; self.bmcs.len()];
        let mut listeners = Vec::new();
        for (at, planned) in self.bmcs.iter().enumerate().filter(|(_, p)| !p.down) {
            let mut address = self.addresses.of(planned.index)?;
            if let Some(port) = port.filter(|_| shared_port) {
                address.set_port(port);
            }
            let listener = listen(planned.index, address).await?;
            let local = local_address(&listener, planned.index, address)?;
            port.get_or_insert(local.port());
            addresses[at] = Some(local);
            listeners.push((listener, Arc::clone(&planned.bmc)));
        }
        for (at, planned) in self.bmcs.iter().enumerate().filter(|(_, p)| p.down) {
            let mut address = self.addresses.of(planned.index)?;
            if address.port() == 0 {
                match port.filter(|_| shared_port) {
                    Some(port) => address.set_port(port),
                    None => {
                        // A port that was free a moment ago; the probe closes at once.
                        let probe = listen(planned.index, address).await?;
                        let free = local_address(&probe, planned.index, address)?.port();
                        if shared_port {
                            port = Some(free);
                        }
                        address.set_port(free);
                    }
                }
            }
            addresses[at] = Some(address);
        }
        let scheme = if tls.is_some() { "https" } else { "http" };
        let bmcs = self
            .bmcs
            .into_iter()
            .zip(addresses)
            .map(|(planned, address)| BoundBmc {
                index: planned.index,
                name: host_name(planned.index),
                dir: planned.dir,
                url: format!(
                    "{scheme}://{}",
                    address.expect("every BMC got an address above")
                ),
                down: planned.down,
            })
            .collect();
        Ok(BoundFleet {
            bmcs,
            listeners,
            tls,
        })
    }
}

async fn listen(index: usize, address: SocketAddr) -> Result<TcpListener, FleetError> {
    TcpListener::bind(address)
        .await
        .map_err(|problem| FleetError::Bind {
            index,
            address,
            problem,
        })
}

fn local_address(
    listener: &TcpListener,
    index: usize,
    address: SocketAddr,
) -> Result<SocketAddr, FleetError> {
    listener.local_addr().map_err(|problem| FleetError::Bind {
        index,
        address,
        problem,
    })
}

impl BoundFleet {
    /// Every BMC, by index.
    pub fn bmcs(&self) -> &[BoundBmc] {
        &self.bmcs
    }

    /// Answers every listening BMC until the process ends: it never returns. Each BMC's
    /// connections run on tasks of their own, so a hanging one holds up nobody else.
    pub async fn serve(self) {
        for (listener, bmc) in self.listeners {
            tokio::spawn(bmc::serve(listener, bmc, self.tls.clone()));
        }
        std::future::pending().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::AuthRequirement;
    use crate::plan::BmcSet;
    use crate::tests::recorded;

    fn service() -> Service {
        Service {
            latency: std::time::Duration::ZERO,
            auth: AuthRequirement::None,
            account: None,
        }
    }

    #[test]
    fn a_thousand_bmcs_of_one_folder_share_one_loaded_copy() {
        let dir = recorded("baseline");
        let options = FleetOptions {
            // The same folder spelt twice is still one folder.
            dirs: vec![dir.clone(), dir.join(".")],
            count: 1000,
            addresses: Addresses::Consecutive("127.0.0.1:0".parse().unwrap()),
            faults: Vec::new(),
            bmc_faults: Vec::new(),
            bmc_states: Vec::new(),
            bmc_sets: vec![BmcSet::parse("7:/redfish/v1#/Name=odd").unwrap()],
        };
        let fleet = Fleet::plan(&options, service()).unwrap();
        let first = fleet.bmcs[0].bmc.mockup();
        assert!(
            fleet
                .bmcs
                .iter()
                .all(|p| Arc::ptr_eq(p.bmc.mockup(), first))
        );
        assert_eq!(Arc::strong_count(first), 1000);
    }

    #[tokio::test]
    async fn a_slow_bmc_answers_after_its_own_latency_and_the_others_do_not_wait() {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let options = FleetOptions {
            dirs: vec![recorded("baseline")],
            count: 2,
            addresses: Addresses::Consecutive("127.0.0.1:0".parse().unwrap()),
            faults: Vec::new(),
            bmc_faults: vec![crate::BmcFault::parse("1:latency=400").unwrap()],
            bmc_states: Vec::new(),
            bmc_sets: Vec::new(),
        };
        let bound = Fleet::plan(&options, service())
            .unwrap()
            .bind(None)
            .await
            .unwrap();
        let urls: Vec<String> = bound.bmcs().iter().map(|b| b.url.clone()).collect();
        tokio::spawn(bound.serve());
        let get = |url: String| async move {
            let address = url.strip_prefix("http://").unwrap().to_owned();
            let started = std::time::Instant::now();
            let mut stream = tokio::net::TcpStream::connect(&address).await.unwrap();
            let request =
                format!("GET /redfish/v1 HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n");
            stream.write_all(request.as_bytes()).await.unwrap();
            let mut answer = Vec::new();
            stream.read_to_end(&mut answer).await.unwrap();
            assert!(answer.starts_with(b"HTTP/1.1 200"), "{url}");
            started.elapsed()
        };
        let (fast, slow) = tokio::join!(get(urls[0].clone()), get(urls[1].clone()));
        assert!(slow >= std::time::Duration::from_millis(400), "{slow:?}");
        assert!(
            fast < slow,
            "BMC 0 has no latency of its own: {fast:?} vs {slow:?}"
        );
    }

    #[tokio::test]
    async fn a_down_bmc_gets_an_address_where_nothing_listens() {
        for addresses in [
            Addresses::Consecutive("127.0.0.1:0".parse().unwrap()),
            Addresses::Loopback("127.0.0.1:0".parse().unwrap()),
        ] {
            let options = FleetOptions {
                dirs: vec![recorded("baseline")],
                count: 3,
                addresses,
                faults: Vec::new(),
                bmc_faults: vec![crate::BmcFault::parse("0:down").unwrap()],
                bmc_states: Vec::new(),
                bmc_sets: Vec::new(),
            };
            let bound = Fleet::plan(&options, service())
                .unwrap()
                .bind(None)
                .await
                .unwrap();
            let bmcs = bound.bmcs().to_vec();
            let down: Vec<bool> = bmcs.iter().map(|b| b.down).collect();
            assert_eq!(down, [true, false, false], "{addresses:?}");
            let address = |i: usize| -> SocketAddr {
                bmcs[i]
                    .url
                    .strip_prefix("http://")
                    .unwrap()
                    .parse()
                    .unwrap()
            };
            assert!(bmcs.iter().all(|b| b.url.starts_with("http://")));
            assert_ne!(address(0).port(), 0, "{addresses:?}");
            if matches!(addresses, Addresses::Loopback(_)) {
                let ips: Vec<String> = (0..3).map(|i| address(i).ip().to_string()).collect();
                assert_eq!(ips, ["127.0.0.2", "127.0.0.3", "127.0.0.4"]);
                assert!((0..3).all(|i| address(i).port() == address(0).port()));
            }
            let refused = tokio::net::TcpStream::connect(address(0))
                .await
                .unwrap_err();
            assert_eq!(refused.kind(), std::io::ErrorKind::ConnectionRefused);
            for i in [1, 2] {
                tokio::net::TcpStream::connect(address(i)).await.unwrap();
            }
        }
    }
}
