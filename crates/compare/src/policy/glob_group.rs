//! Every rule glob (globset's translation, so a glob means what it means to globset) in one
//! lazy DFA, walked from the previous path's shared prefix. Kept because globset's `GlobSet`
//! refuses a 100,000-rule policy (NFA size limit) and regex-automata's meta regex aborts on it.

use std::panic::{RefUnwindSafe, UnwindSafe};
use std::sync::{Arc, OnceLock};

use globset::Glob;
use regex_automata::hybrid::LazyStateID;
use regex_automata::hybrid::dfa::{Cache, DFA};
use regex_automata::nfa::thompson;
use regex_automata::util::pool::{Pool, PoolGuard};
use regex_automata::util::{start, syntax};
use regex_automata::{Anchored, MatchKind};

/// How much memory one thread's cache of the automaton's states may take before it is cleared:
/// globset's own limit, so that any policy globset can match builds here too. It does not grow
/// with the rules: a huge policy's states are larger, so the cache is cleared more often while
/// judging (a cost per rule that stays bounded), rather than every
/// judging thread holding memory in proportion to the policy.
const CACHE_CAPACITY: usize = 10 << 20;

type NewCache = Box<dyn Fn() -> Cache + Send + Sync + UnwindSafe + RefUnwindSafe>;

/// Globs, each remembering the rule it came from. The DFA is compiled when the group first
/// matches a path: a command that judges nothing does not pay for it, and one that does
/// compiles it on the thread that judges, not before.
#[derive(Debug, Clone)]
pub(super) struct GlobGroup {
    patterns: Arc<[String]>,
    compiled: Arc<OnceLock<Compiled>>,
    rule_of_glob: Arc<[usize]>,
    cache_capacity: usize,
}

/// A group's DFA and its threads' caches.
#[derive(Debug)]
struct Compiled {
    dfa: Arc<DFA>,
    caches: Pool<Cache, NewCache>,
}

impl GlobGroup {
    /// The group of `globs`, each with the index of its rule.
    pub(super) fn new(globs: Vec<(usize, Glob)>) -> Self {
        GlobGroup {
            patterns: globs
                .iter()
                .map(|(_, glob)| glob.regex().to_owned())
                .collect(),
            compiled: Arc::default(),
            rule_of_glob: globs.into_iter().map(|(rule, _)| rule).collect(),
            cache_capacity: CACHE_CAPACITY,
        }
    }

    fn compiled(&self) -> &Compiled {
        self.compiled.get_or_init(|| {
            // A policy whose smallest cache is larger than the capacity gets that smallest
            // cache rather than no DFA: it is cleared more often, and still matches.
            let dfa = DFA::builder()
                .syntax(syntax::Config::new().utf8(false).dot_matches_new_line(true))
                .thompson(thompson::Config::new().utf8(false))
                .configure(
                    DFA::config()
                        .match_kind(MatchKind::All)
                        .cache_capacity(self.cache_capacity)
                        .skip_cache_capacity_check(true),
                )
                .build_many(&self.patterns)
                .expect("globset compiled these expressions, so they compile");
            let dfa = Arc::new(dfa);
            let for_cache = Arc::clone(&dfa);
            let new_cache: NewCache = Box::new(move || for_cache.create_cache());
            Compiled {
                dfa,
                caches: Pool::new(new_cache),
            }
        })
    }

    /// A cursor over this group's DFA, holding one of its caches while it lives.
    pub(super) fn cursor(&self) -> Cursor<'_> {
        let compiled = self.compiled();
        Cursor {
            dfa: &compiled.dfa,
            cache: compiled.caches.get(),
            rule_of_glob: &self.rule_of_glob,
            path: Vec::new(),
            states: Vec::new(),
            clears: 0,
        }
    }
}

/// Paths matched one after another, each resuming from the state the path before it reached
/// at the end of their common prefix. Any order gives the same answers; paths in ascending
/// order share the longest prefixes.
pub(super) struct Cursor<'g> {
    dfa: &'g DFA,
    cache: PoolGuard<'g, Cache, NewCache>,
    rule_of_glob: &'g [usize],
    /// The previous path's bytes.
    path: Vec<u8>,
    /// The state after each prefix of `path`: `states[i]` after its first `i` bytes. Empty
    /// when there is nothing to resume from.
    states: Vec<LazyStateID>,
    /// The cache's clear count when `states` were found: a clear frees the states they name.
    clears: usize,
}

impl Cursor<'_> {
    /// The rule index of every glob that matches `path`.
    pub(super) fn matching(&mut self, path: &str) -> Matches<'_> {
        let bytes = path.as_bytes();
        let shared = if self.states.is_empty() || self.cache.clear_count() != self.clears {
            self.clears = self.cache.clear_count();
            let start = self
                .dfa
                .start_state(
                    &mut self.cache,
                    &start::Config::new().anchored(Anchored::Yes),
                )
                .expect("a lazy DFA without quit bytes has an anchored start state");
            self.states.clear();
            self.states.push(start);
            0
        } else {
            shared_prefix(&self.path, bytes)
        };
        self.states.truncate(shared + 1);
        self.path.truncate(shared);
        self.path.extend_from_slice(&bytes[shared..]);
        let mut state = self.states[shared];
        // Without quit bytes or a minimum cache clear count, a step cannot fail. A step may
        // clear the cache; the state it returns is valid, the ones kept before it are not.
        for &byte in &bytes[shared..] {
            state = self
                .dfa
                .next_state(&mut self.cache, state, byte)
                .expect("a lazy DFA without quit bytes never gives up");
            self.states.push(state);
        }
        // Every glob's expression is anchored at both ends, so it matches only at the end of
        // the path, and the lazy DFA reports a match one step late: after the end of input.
        let end = self
            .dfa
            .next_eoi_state(&mut self.cache, state)
            .expect("a lazy DFA without quit bytes never gives up");
        if self.cache.clear_count() != self.clears {
            self.states.clear();
        }
        Matches {
            len: if end.is_match() {
                self.dfa.match_len(&self.cache, end)
            } else {
                0
            },
            next: 0,
            dfa: self.dfa,
            cache: &self.cache,
            end,
            rule_of_glob: self.rule_of_glob,
        }
    }
}

/// The length of the longest common prefix of `a` and `b`, compared eight bytes at a time.
fn shared_prefix(a: &[u8], b: &[u8]) -> usize {
    let mut shared = 0;
    for (x, y) in a.chunks_exact(8).zip(b.chunks_exact(8)) {
        let word = |bytes: &[u8]| u64::from_le_bytes(bytes.try_into().expect("chunks of 8"));
        let differ = word(x) ^ word(y);
        if differ != 0 {
            // Little-endian: the lowest set bit is in the first byte that differs.
            return shared + (differ.trailing_zeros() / 8) as usize;
        }
        shared += 8;
    }
    shared
        + a[shared..]
            .iter()
            .zip(&b[shared..])
            .take_while(|(x, y)| x == y)
            .count()
}

/// The rules whose globs match one path.
pub(super) struct Matches<'c> {
    dfa: &'c DFA,
    cache: &'c Cache,
    end: LazyStateID,
    next: usize,
    len: usize,
    rule_of_glob: &'c [usize],
}

impl Iterator for Matches<'_> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        if self.next == self.len {
            return None;
        }
        let glob = self.dfa.match_pattern(self.cache, self.end, self.next);
        self.next += 1;
        Some(self.rule_of_glob[glob.as_usize()])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::glob::compile_glob;

    fn group(patterns: &[&str]) -> (GlobGroup, globset::GlobSet) {
        let globs: Vec<(usize, Glob)> = patterns
            .iter()
            .enumerate()
            .map(|(i, p)| (i, compile_glob(p).unwrap()))
            .collect();
        let mut set = globset::GlobSetBuilder::new();
        for (_, glob) in &globs {
            set.add(glob.clone());
        }
        (GlobGroup::new(globs), set.build().unwrap())
    }

    fn sorted(mut matches: Vec<usize>) -> Vec<usize> {
        matches.sort_unstable();
        matches
    }

    /// Matches of the DFA and of globset, by glob, for every path: each path on a cursor of
    /// its own, then all of them on one cursor in the order given and again in path order.
    fn both(patterns: &[&str], paths: &[&str]) {
        let (group, set) = group(patterns);
        let mut in_order: Vec<&str> = paths.to_vec();
        in_order.sort_unstable();
        for order in [paths, &in_order] {
            let mut shared = group.cursor();
            for path in order {
                let alone = sorted(group.cursor().matching(path).collect());
                assert_eq!(alone, set.matches(path), "{path:?} against {patterns:?}");
                let resumed = sorted(shared.matching(path).collect());
                assert_eq!(resumed, alone, "{path:?} after the paths before it");
            }
        }
    }

    const PATTERNS: [&str; 10] = [
        "nic/*/bmc/**/dcbx_mode",
        "nic/*/bmc/{adapter,port,interface}",
        "nic/*/bmc/**/lldp/{enabled,nic_agent,nic_agent/**,nic_agent_mode/**}",
        "**/dcbx_willing",
        "bios/**",
        "bios/{DateTime,PowerCycleRequest}",
        "n?c/[a-c]*/os/trust",
        "host",
        "x/\\*/y",
        "nic/*/os/num_tcs/current/*",
    ];

    const PATHS: [&str; 25] = [
        "nic/00:0a:f7:12:34:56/bmc/dcbx_mode",
        "nic/00:0a:f7:12:34:56/bmc/function/1/dcbx_mode",
        "nic/00:0a:f7:12:34:56/bmc/function/1/dcbx_mode/extra",
        "nic/a/b/bmc/dcbx_mode",
        "nic//bmc/dcbx_mode",
        "nic/k/bmc/port",
        "nic/k/bmc/ports",
        "nic/k/bmc/lldp/nic_agent",
        "nic/k/bmc/f/2/lldp/nic_agent/x/y",
        "nic/k/bmc/lldp/nic_agent_mode",
        "dcbx_willing",
        "nic/k/os/dcbx_willing",
        "bios",
        "bios/DateTime",
        "bios/a/b",
        "nac/bz/os/trust",
        "nic/dz/os/trust",
        "host",
        "host/x",
        "x/*/y",
        "x/z/y",
        "nic/k/os/num_tcs/current/3",
        "nic/k/os/num_tcs/current/3/4",
        "nic/ü\u{85}\n/bmc/dcbx_mode",
        "",
    ];

    #[test]
    fn the_dfa_matches_what_globset_matches() {
        both(&PATTERNS, &PATHS);
    }

    /// A cache cleared while a cursor walks frees the states it kept: with the smallest cache
    /// these globs allow, it is cleared again and again, and every answer is still globset's.
    #[test]
    fn a_cursor_survives_its_cache_being_cleared() {
        let (mut group, set) = group(&PATTERNS);
        group.cache_capacity = 0;
        let mut paths: Vec<String> = PATHS.iter().map(|p| (*p).to_owned()).collect();
        for port in 0..40 {
            for leaf in [
                "bmc/dcbx_mode",
                "bmc/lldp/nic_agent",
                "os/trust",
                "os/dcbx_willing",
            ] {
                paths.push(format!("nic/{port:02x}:{:02x}/{leaf}", port * 7));
            }
        }
        paths.sort_unstable();
        let mut cursor = group.cursor();
        let before = cursor.cache.clear_count();
        for path in &paths {
            assert_eq!(
                sorted(cursor.matching(path).collect()),
                set.matches(path),
                "{path:?}"
            );
        }
        assert!(
            cursor.cache.clear_count() > before,
            "the cache was never cleared"
        );
    }

    proptest::proptest! {
        #[test]
        fn shared_prefix_is_the_count_of_equal_leading_bytes(
            a in proptest::collection::vec(0u8..4, 0..40),
            b in proptest::collection::vec(0u8..4, 0..40),
            common in proptest::collection::vec(proptest::num::u8::ANY, 0..40),
        ) {
            let (a, b) = ([&common[..], &a].concat(), [&common[..], &b].concat());
            let bytewise = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
            proptest::prop_assert_eq!(shared_prefix(&a, &b), bytewise);
        }

        #[test]
        fn the_builtin_groups_match_what_globset_matches(
            paths in proptest::collection::vec(
                "(nic|bios|host|storage|firmware|x)(/(bmc|os|[a-z0-9:]{1,4}|pending|\\*|lldp|dcbx_mode|flow_control|function|1|nmp|psp|qos)){0,6}",
                1..8,
            )
        ) {
            let policy = crate::Policy::builtin();
            let patterns: Vec<&str> = policy.rules().iter().map(|r| r.path.as_str()).collect();
            let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
            both(&patterns, &paths);
        }
    }
}
