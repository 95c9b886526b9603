//! The fleet's plan from the command line, before anything is opened or bound: which BMCs a
//! per-BMC flag names (`3`, `2-5`, `0,4-7`), what each BMC serves with which faults and
//! patches, and the address of each. Pure: no I/O.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};

use super::fault::Fault;
use super::tree::{Patch, PatchError};

/// Which BMCs a per-BMC flag names: an index (0-based), a range `A-B` (inclusive) or a
/// comma list of those.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection(Vec<(usize, usize)>);

/// Why a flag or the fleet's plan is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    /// Not `I`, `A-B` or a comma list of them.
    #[error(
        "{0:?}: expected a BMC index, a range A-B or a comma list of them (e.g. 0,4-7; BMCs count from 0)"
    )]
    Selection(String),
    /// A per-BMC flag without its separator.
    #[error("{text:?}: expected {expected}")]
    Flag {
        /// The flag's value.
        text: String,
        /// Its syntax.
        expected: &'static str,
    },
    /// A per-BMC fault that does not parse.
    #[error("{0}")]
    Fault(String),
    /// A `--bmc-set` patch that does not parse.
    #[error(transparent)]
    Patch(#[from] PatchError),
    /// A per-BMC flag names a BMC past `--count`.
    #[error("{flag} names BMC {index}, but --count {count} serves BMCs 0-{last}", last = count - 1)]
    OutOfRange {
        /// The flag.
        flag: &'static str,
        /// The BMC it names.
        index: usize,
        /// How many BMCs there are.
        count: usize,
    },
    /// Nothing to serve.
    #[error("--count must be at least 1 and at least one mockup folder is needed")]
    Empty,
    /// The addresses run out.
    #[error("BMC {index} has no address: {reason}")]
    Address {
        /// The first BMC left without one.
        index: usize,
        /// Why.
        reason: String,
    },
}

impl Selection {
    /// Parses `3`, `2-5` or `0,4-7`.
    pub fn parse(text: &str) -> Result<Self, PlanError> {
        let bad = || PlanError::Selection(text.to_owned());
        let index = |part: &str| part.trim().parse::<usize>().map_err(|_| bad());
        text.split(',')
            .map(|part| match part.split_once('-') {
                Some((first, last)) => {
                    let (first, last) = (index(first)?, index(last)?);
                    if first > last {
                        return Err(bad());
                    }
                    Ok((first, last))
                }
                None => index(part).map(|i| (i, i)),
            })
            .collect::<Result<_, _>>()
            .map(Selection)
    }

    /// Whether BMC `index` is named.
    pub fn contains(&self, index: usize) -> bool {
        self.0
            .iter()
            .any(|(first, last)| (*first..=*last).contains(&index))
    }

    /// The highest index named.
    pub fn last(&self) -> usize {
        self.0.iter().map(|(_, last)| *last).max().unwrap_or(0)
    }
}

/// Splits `SELECTION<separator>REST`.
fn per_bmc<'t>(
    text: &'t str,
    separator: char,
    expected: &'static str,
) -> Result<(Selection, &'t str), PlanError> {
    let (bmcs, rest) = text.split_once(separator).ok_or(PlanError::Flag {
        text: text.to_owned(),
        expected,
    })?;
    Ok((Selection::parse(bmcs)?, rest))
}

/// `--bmc-fault I:FAULT`: a fault of some BMCs only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BmcFault {
    /// The BMCs.
    pub bmcs: Selection,
    /// Their fault.
    pub fault: Fault,
}

impl BmcFault {
    /// Parses `I:FAULT` (`3:down`, `5-6:hang-all`, `0,9:status=500:/redfish/v1/Systems`).
    pub fn parse(text: &str) -> Result<Self, PlanError> {
        let (bmcs, fault) = per_bmc(text, ':', "I:FAULT (e.g. 3:down)")?;
        Ok(BmcFault {
            bmcs,
            fault: Fault::parse(fault).map_err(PlanError::Fault)?,
        })
    }
}

/// `--bmc-state I=DIR`: the mockup folder some BMCs serve instead of `DIR[i % len]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BmcState {
    /// The BMCs.
    pub bmcs: Selection,
    /// Their mockup folder.
    pub dir: PathBuf,
}

impl BmcState {
    /// Parses `I=DIR`.
    pub fn parse(text: &str) -> Result<Self, PlanError> {
        let (bmcs, dir) = per_bmc(text, '=', "I=DIR (e.g. 0-3=recorded/post-update/bmc)")?;
        Ok(BmcState {
            bmcs,
            dir: PathBuf::from(dir),
        })
    }
}

/// `--bmc-set I:URI#/POINTER=VALUE`: one property of one resource of some BMCs.
#[derive(Debug, Clone, PartialEq)]
pub struct BmcSet {
    /// The BMCs.
    pub bmcs: Selection,
    /// What changes.
    pub patch: Patch,
}

impl BmcSet {
    /// Parses `I:URI#/POINTER=VALUE`.
    pub fn parse(text: &str) -> Result<Self, PlanError> {
        let (bmcs, patch) = per_bmc(text, ':', "I:URI#/JSON/POINTER=VALUE")?;
        Ok(BmcSet {
            bmcs,
            patch: Patch::parse(patch)?,
        })
    }
}

/// Where the BMCs listen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Addresses {
    /// BMC i on the port after the given one by i (port 0: a free port for each).
    Consecutive(SocketAddr),
    /// BMC i on the (i+1)-th loopback address after the given one, all on its port (port 0:
    /// one free port for all), skipping addresses ending in `.0` and `.255`. Linux routes all
    /// of 127.0.0.0/8 to the loopback interface.
    Loopback(SocketAddr),
}

/// Usable loopback addresses per /24: `.1` to `.254`.
const PER_BLOCK: i64 = 254;

impl Addresses {
    /// BMC `index`'s address (port 0: to be picked when it is bound).
    pub fn of(&self, index: usize) -> Result<SocketAddr, PlanError> {
        let fail = |reason: String| PlanError::Address { index, reason };
        match *self {
            Addresses::Consecutive(first) if first.port() == 0 => Ok(first),
            Addresses::Consecutive(first) => u16::try_from(usize::from(first.port()) + index)
                .map(|port| SocketAddr::new(first.ip(), port))
                .map_err(|_| fail(format!("port {} + {index} is past 65535", first.port()))),
            Addresses::Loopback(first) => {
                let IpAddr::V4(ip) = first.ip() else {
                    return Err(fail(format!(
                        "--loopback needs an IPv4 address in 127.0.0.0/8, not {}",
                        first.ip()
                    )));
                };
                let [net, high, middle, low] = ip.octets();
                if net != 127 {
                    return Err(fail(format!(
                        "--loopback needs an address in 127.0.0.0/8, not {ip}"
                    )));
                }
                let block = i64::from(u16::from_be_bytes([high, middle]));
                // The position of `ip` among the usable addresses (.0 counts as just before .1,
                // .255 as .254), then `index + 1` further on.
                let start =
                    block * PER_BLOCK + i64::from(low.clamp(1, 254)) - 1 - i64::from(low == 0);
                let position =
                    start + 1 + i64::try_from(index).map_err(|_| fail("too many BMCs".into()))?;
                let block = u16::try_from(position / PER_BLOCK)
                    .map_err(|_| fail("the loopback addresses end at 127.255.255.254".into()))?;
                let low = u8::try_from(position % PER_BLOCK + 1).expect("at most 254");
                let [high, middle] = block.to_be_bytes();
                Ok(SocketAddr::new(
                    Ipv4Addr::new(127, high, middle, low).into(),
                    first.port(),
                ))
            }
        }
    }
}

/// The fleet as the command line describes it.
#[derive(Debug, Clone)]
pub struct FleetOptions {
    /// Mockup folders: BMC i serves `dirs[i % dirs.len()]` unless a [`BmcState`] names it.
    pub dirs: Vec<PathBuf>,
    /// How many BMCs.
    pub count: usize,
    /// Where they listen.
    pub addresses: Addresses,
    /// Faults of every BMC (`--fault`).
    pub faults: Vec<Fault>,
    /// Faults of some BMCs (`--bmc-fault`).
    pub bmc_faults: Vec<BmcFault>,
    /// Other folders for some BMCs (`--bmc-state`).
    pub bmc_states: Vec<BmcState>,
    /// Properties changed on some BMCs (`--bmc-set`).
    pub bmc_sets: Vec<BmcSet>,
}

impl FleetOptions {
    /// Checks that there is something to serve, that every per-BMC flag names existing BMCs
    /// and that every BMC has an address.
    pub fn validate(&self) -> Result<(), PlanError> {
        if self.count == 0 || self.dirs.is_empty() {
            return Err(PlanError::Empty);
        }
        let named = self
            .bmc_faults
            .iter()
            .map(|f| ("--bmc-fault", &f.bmcs))
            .chain(self.bmc_states.iter().map(|s| ("--bmc-state", &s.bmcs)))
            .chain(self.bmc_sets.iter().map(|s| ("--bmc-set", &s.bmcs)));
        for (flag, bmcs) in named {
            if bmcs.last() >= self.count {
                return Err(PlanError::OutOfRange {
                    flag,
                    index: bmcs.last(),
                    count: self.count,
                });
            }
        }
        // The last address is the first to run out.
        self.addresses.of(self.count - 1)?;
        Ok(())
    }

    /// The folder BMC `index` serves: the last `--bmc-state` naming it, else `dirs[index % len]`.
    pub fn dir_of(&self, index: usize) -> &Path {
        self.bmc_states
            .iter()
            .rev()
            .find(|s| s.bmcs.contains(index))
            .map_or(&self.dirs[index % self.dirs.len()], |s| &s.dir)
    }

    /// BMC `index`'s faults: every `--fault`, then its own.
    pub fn faults_of(&self, index: usize) -> Vec<Fault> {
        let own = self
            .bmc_faults
            .iter()
            .filter(|f| f.bmcs.contains(index))
            .map(|f| &f.fault);
        self.faults.iter().chain(own).cloned().collect()
    }

    /// BMC `index`'s patches, in command-line order.
    pub fn patches_of(&self, index: usize) -> Vec<Patch> {
        self.bmc_sets
            .iter()
            .filter(|s| s.bmcs.contains(index))
            .map(|s| s.patch.clone())
            .collect()
    }
}

/// The inventory host name of simulated BMC `index`: `sim-0000`, `sim-0001`, ….
pub fn host_name(index: usize) -> String {
    format!("sim-{index:04}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn address(text: &str) -> SocketAddr {
        text.parse().unwrap()
    }

    #[test]
    fn selections_are_indices_ranges_and_lists_of_them() {
        let selection = Selection::parse("0,4-6, 9").unwrap();
        let named: Vec<usize> = (0..12).filter(|i| selection.contains(*i)).collect();
        assert_eq!(named, [0, 4, 5, 6, 9]);
        assert_eq!(selection.last(), 9);
        assert_eq!(Selection::parse("7").unwrap(), Selection(vec![(7, 7)]));
        assert_eq!(Selection::parse("3-3").unwrap(), Selection(vec![(3, 3)]));
        for bad in ["", "a", "-1", "5-2", "1-", "1,,2", "1-2-3", "0x1"] {
            assert_eq!(
                Selection::parse(bad),
                Err(PlanError::Selection(bad.into())),
                "{bad}"
            );
        }
    }

    #[test]
    fn per_bmc_flags_split_at_their_first_separator() {
        assert_eq!(
            BmcFault::parse("0,9:status=500:/redfish/v1/Systems").unwrap(),
            BmcFault {
                bmcs: Selection(vec![(0, 0), (9, 9)]),
                fault: Fault::Status(500, "/redfish/v1/Systems".into()),
            }
        );
        assert_eq!(
            BmcState::parse("2-3=a=b").unwrap().dir,
            PathBuf::from("a=b")
        );
        let set = BmcSet::parse("1:/redfish/v1/Systems/1#/BiosVersion=2.1").unwrap();
        assert_eq!(
            (set.patch.uri.as_str(), set.patch.pointer.as_str()),
            ("/redfish/v1/Systems/1", "/BiosVersion")
        );
        assert_eq!(set.patch.value, serde_json::json!(2.1));
        assert!(matches!(
            BmcFault::parse("down"),
            Err(PlanError::Flag { .. })
        ));
        assert!(matches!(
            BmcFault::parse("1:explode"),
            Err(PlanError::Fault(_))
        ));
        assert!(matches!(BmcSet::parse("1:/r"), Err(PlanError::Patch(_))));
        assert!(matches!(
            BmcState::parse("x=dir"),
            Err(PlanError::Selection(_))
        ));
    }

    #[test]
    fn consecutive_ports_follow_the_first_and_end_at_65535() {
        let plan = Addresses::Consecutive(address("127.0.0.1:8000"));
        assert_eq!(plan.of(0).unwrap(), address("127.0.0.1:8000"));
        assert_eq!(plan.of(999).unwrap(), address("127.0.0.1:8999"));
        assert!(matches!(
            Addresses::Consecutive(address("127.0.0.1:65535")).of(1),
            Err(PlanError::Address { index: 1, .. })
        ));
        // Port 0: each BMC gets a free port when it is bound.
        let any = Addresses::Consecutive(address("127.0.0.1:0"));
        assert_eq!(any.of(7).unwrap(), address("127.0.0.1:0"));
    }

    #[test]
    fn loopback_addresses_walk_127_skipping_0_and_255() {
        let plan = Addresses::Loopback(address("127.0.0.1:8000"));
        let at = |i| plan.of(i).unwrap().to_string();
        assert_eq!(at(0), "127.0.0.2:8000");
        assert_eq!(at(252), "127.0.0.254:8000");
        assert_eq!(at(253), "127.0.1.1:8000");
        assert_eq!(at(999), "127.0.3.239:8000");
        // Every address of 1,000 BMCs is distinct and none ends in .0 or .255.
        let all: std::collections::BTreeSet<String> = (0..1000).map(at).collect();
        assert_eq!(all.len(), 1000);
        assert!(
            all.iter()
                .all(|a| !a.contains(".0:") && !a.contains(".255:"))
        );
        // From an address ending in .0 or .255 the walk starts at the next usable one.
        let from = |first: &str| {
            Addresses::Loopback(address(first))
                .of(0)
                .unwrap()
                .to_string()
        };
        assert_eq!(from("127.0.1.0:1"), "127.0.1.1:1");
        assert_eq!(from("127.0.0.255:1"), "127.0.1.1:1");
        assert_eq!(
            Addresses::Loopback(address("127.255.255.253:1"))
                .of(0)
                .unwrap(),
            address("127.255.255.254:1")
        );
        for (first, index) in [("127.255.255.254:1", 0), ("10.0.0.1:1", 0), ("[::1]:1", 0)] {
            assert!(
                matches!(
                    Addresses::Loopback(address(first)).of(index),
                    Err(PlanError::Address { .. })
                ),
                "{first}"
            );
        }
    }

    #[test]
    fn each_bmc_gets_its_folder_faults_and_patches() {
        let options = FleetOptions {
            dirs: vec!["a".into(), "b".into()],
            count: 6,
            addresses: Addresses::Consecutive(address("127.0.0.1:0")),
            faults: vec![Fault::NoExpand],
            bmc_faults: vec![BmcFault::parse("1,3:down").unwrap()],
            bmc_states: vec![
                BmcState::parse("4-5=c").unwrap(),
                BmcState::parse("5=d").unwrap(),
            ],
            bmc_sets: vec![BmcSet::parse("0-1:/r#/x=1").unwrap()],
        };
        options.validate().unwrap();
        let dirs: Vec<&Path> = (0..6).map(|i| options.dir_of(i)).collect();
        assert_eq!(dirs, ["a", "b", "a", "b", "c", "d"].map(Path::new));
        assert_eq!(options.faults_of(3), [Fault::NoExpand, Fault::Down]);
        assert_eq!(options.faults_of(2), [Fault::NoExpand]);
        assert_eq!(options.patches_of(1).len(), 1);
        assert!(options.patches_of(2).is_empty());
        let past = FleetOptions {
            bmc_faults: vec![BmcFault::parse("2,6:down").unwrap()],
            ..options.clone()
        };
        assert_eq!(
            past.validate().unwrap_err().to_string(),
            "--bmc-fault names BMC 6, but --count 6 serves BMCs 0-5"
        );
        let none = FleetOptions {
            count: 0,
            ..options
        };
        assert_eq!(none.validate(), Err(PlanError::Empty));
    }
}
