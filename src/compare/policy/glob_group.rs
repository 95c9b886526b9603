//! One group of rule globs, matched against fact paths by one lazy DFA.
//!
//! Judging asks which globs match every fact of every host. globset answers by running each of
//! its strategies and then its regex set, allocating as it goes: a third of a promote's CPU
//! (BENCHMARKS.md, issue 14). Here the globs' regular expressions, globset's own translation
//! so that a glob means exactly what it means to globset, are compiled with the policy into
//! one lazy DFA that reports every pattern matching the whole path, searched without
//! allocating. Its states are built as paths need them and kept in a cache per thread, so
//! after the first hosts a search only follows transitions. (A fully built DFA of the
//! built-in groups takes seconds to determinize: the `**` patterns multiply its states.)

use std::panic::{RefUnwindSafe, UnwindSafe};
use std::sync::{Arc, OnceLock};

use globset::Glob;
use regex_automata::hybrid::dfa::{Cache, DFA, OverlappingState};
use regex_automata::nfa::thompson;
use regex_automata::util::pool::{Pool, PoolGuard};
use regex_automata::util::syntax;
use regex_automata::{Anchored, Input, MatchKind};

/// How much memory one thread's cache of one group's states may take before it is cleared:
/// globset's own limit, so that any policy globset can match builds here too.
const CACHE_CAPACITY: usize = 10 << 20;

type NewCache = Box<dyn Fn() -> Cache + Send + Sync + UnwindSafe + RefUnwindSafe>;

/// Globs, each remembering the rule it came from. The DFA is compiled when the group first
/// matches a path: a command that judges nothing (or no path of this group's first segment)
/// does not pay for it, and one that does compiles it on the thread that judges, not before.
#[derive(Debug, Clone)]
pub(super) struct GlobGroup {
    patterns: Arc<[String]>,
    compiled: Arc<OnceLock<Compiled>>,
    rule_of_glob: Arc<[usize]>,
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
        }
    }

    fn compiled(&self) -> &Compiled {
        self.compiled.get_or_init(|| {
            let dfa = DFA::builder()
                .syntax(syntax::Config::new().utf8(false).dot_matches_new_line(true))
                .thompson(thompson::Config::new().utf8(false))
                .configure(
                    DFA::config()
                        .match_kind(MatchKind::All)
                        .cache_capacity(CACHE_CAPACITY),
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

    /// The rule index of every glob that matches `path`.
    pub(super) fn matching<'g>(&'g self, path: &'g str) -> Matches<'g> {
        let compiled = self.compiled();
        Matches {
            dfa: &compiled.dfa,
            cache: compiled.caches.get(),
            input: Input::new(path).anchored(Anchored::Yes),
            state: OverlappingState::start(),
            rule_of_glob: &self.rule_of_glob,
        }
    }
}

/// The rules whose globs match one path, found one at a time.
pub(super) struct Matches<'g> {
    dfa: &'g DFA,
    cache: PoolGuard<'g, Cache, NewCache>,
    input: Input<'g>,
    state: OverlappingState,
    rule_of_glob: &'g [usize],
}

impl Iterator for Matches<'_> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        // Every glob's expression is anchored at both ends, so a glob matches at most once: at
        // the end of the path. Without quit bytes or a minimum cache clear count, the search
        // cannot fail.
        self.dfa
            .try_search_overlapping_fwd(&mut self.cache, &self.input, &mut self.state)
            .expect("a lazy DFA without quit bytes never gives up");
        let glob = self.state.get_match()?.pattern().as_usize();
        Some(self.rule_of_glob[glob])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::policy::compile_glob;

    /// Matches of the DFA and of globset, by glob, for every path.
    fn both(patterns: &[&str], paths: &[&str]) {
        let globs: Vec<(usize, Glob)> = patterns
            .iter()
            .enumerate()
            .map(|(i, p)| (i, compile_glob(p).unwrap()))
            .collect();
        let group = GlobGroup::new(globs.clone());
        let mut set = globset::GlobSetBuilder::new();
        for (_, glob) in &globs {
            set.add(glob.clone());
        }
        let set = set.build().unwrap();
        for path in paths {
            let mut dfa: Vec<usize> = group.matching(path).collect();
            dfa.sort_unstable();
            assert_eq!(dfa, set.matches(path), "{path:?} against {patterns:?}");
        }
    }

    #[test]
    fn the_dfa_matches_what_globset_matches() {
        both(
            &[
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
            ],
            &[
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
            ],
        );
    }

    proptest::proptest! {
        #[test]
        fn the_builtin_groups_match_what_globset_matches(
            path in "(nic|bios|host|storage|firmware|x)(/(bmc|os|[a-z0-9:]{1,4}|pending|\\*|lldp|dcbx_mode|flow_control|function|1|nmp|psp|qos)){0,6}"
        ) {
            let policy = crate::compare::Policy::builtin();
            let patterns: Vec<&str> = policy.rules().iter().map(|r| r.path.as_str()).collect();
            both(&patterns, &[path.as_str()]);
        }
    }
}
