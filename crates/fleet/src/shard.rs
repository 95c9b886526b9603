//! `--shard K/N`: a stable hash partition of the hosts, so an existing scheduler (a Kubernetes
//! Indexed Job, one collector per site) splits a fleet without a coordinator. A host's shard
//! depends on its name and N only: adding hosts never moves another one.

use std::fmt;
use std::str::FromStr;

use sha2::{Digest, Sha256};

/// Shard `index` of `count` (1-based, as `--shard 1/3` … `3/3`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Shard {
    /// K: 1 ≤ K ≤ N.
    pub index: u32,
    /// N ≥ 1.
    pub count: u32,
}

/// Why a `--shard` argument does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{0:?}: expected K/N with 1 ≤ K ≤ N, e.g. 2/3 (a Kubernetes Indexed Job: $((JOB_COMPLETION_INDEX + 1))/N)"
)]
pub struct BadShard(pub String);

impl Shard {
    /// Whether `host` belongs to this shard: the first 8 bytes of SHA-256 of its name, modulo
    /// N, are K − 1.
    pub fn contains(&self, host: &str) -> bool {
        let digest = Sha256::digest(host.as_bytes());
        let mut first = [0u8; 8];
        first.copy_from_slice(&digest[..8]);
        u64::from_be_bytes(first) % u64::from(self.count) == u64::from(self.index - 1)
    }
}

impl FromStr for Shard {
    type Err = BadShard;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let bad = || BadShard(text.to_owned());
        let (k, n) = text.split_once('/').ok_or_else(bad)?;
        let index: u32 = k.trim().parse().map_err(|_| bad())?;
        let count: u32 = n.trim().parse().map_err(|_| bad())?;
        if index == 0 || count == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shards(count: u32) -> Vec<Shard> {
        (1..=count).map(|index| Shard { index, count }).collect()
    }

    #[test]
    fn every_host_is_in_exactly_one_shard_and_the_shards_are_balanced() {
        let hosts: Vec<String> = (0..3000).map(|i| format!("node{i:04}")).collect();
        let mut sizes = [0usize; 3];
        for host in &hosts {
            let owners: Vec<_> = shards(3).into_iter().filter(|s| s.contains(host)).collect();
            assert_eq!(owners.len(), 1, "{host}: {owners:?}");
            sizes[owners[0].index as usize - 1] += 1;
        }
        for size in sizes {
            assert!((800..1200).contains(&size), "{sizes:?}");
        }
    }

    #[test]
    fn a_hosts_shard_is_the_documented_hash_of_its_name_alone() {
        // SHA-256 of the name, first 8 bytes big-endian, mod N (as `python3 -c` computes it):
        // a scheduler's shards stay where they were when hosts are added or the code changes.
        let shard_of = |host: &str| shards(3).into_iter().find(|s| s.contains(host)).unwrap();
        assert_eq!(shard_of("azl-node01").index, 3);
        assert_eq!(shard_of("esx01").index, 2);
        assert_eq!(shard_of("sim-0001").index, 2);
    }

    #[test]
    fn k_of_n_parses_and_bad_ones_say_what_is_expected() {
        assert_eq!("2/3".parse(), Ok(Shard { index: 2, count: 3 }));
        assert_eq!("1/1".parse::<Shard>().unwrap().to_string(), "1/1");
        for bad in ["0/3", "4/3", "3", "a/b", "1/0", "", "1/3/5"] {
            let error = bad.parse::<Shard>().unwrap_err();
            assert!(error.to_string().contains("K/N"), "{bad}: {error}");
        }
    }
}
