//! `baseline init`: a repository made a baseline store, with a README and a commented
//! policy file committed.

use std::path::PathBuf;
use std::time::Duration;

use driftgate_store::{BASELINES_DIR, Committed, FileWrite, Store, StoreError};

/// What `baseline init` did.
#[derive(Debug)]
pub struct InitOutcome {
    /// The store.
    pub store: Store,
    /// Scaffold files it added.
    pub created: Vec<String>,
    /// The commit that added them, if any.
    pub commit: Option<Committed>,
    /// Git lock files an interrupted write had left, removed before committing.
    pub removed_git_locks: Vec<PathBuf>,
}

/// `baselines/README.md` of a new store.
const STORE_README: &str = "# Baselines\n\nKnown-good driftgate snapshots, one file per host: `baselines/<fleet>/<host>.json`.\nWritten by `driftgate baseline promote`, one commit per promote; review changes like code.\n";

/// The `.gitignore` of a new store: driftgate's own folder of the work tree (gate run
/// folders) never shows in `git status`, in this store and in every clone of it. (Each run
/// folder's `.driftgate/.gitignore` of `*` covers a store with a `.gitignore` of its own.)
const STORE_IGNORE: &str =
    "# driftgate's own folder of the work tree (gate runs): never committed\n/.driftgate/\n";

/// The commented `driftgate.toml` of a new store.
const STORE_POLICY: &str = r#"# driftgate policy for this baseline store. It extends the built-in policy and overrides
# built-in rules by id; `driftgate policy show --repo .` prints the effective policy.
# driftgate reads this file as committed at HEAD: changes take effect once reviewed and committed.
#
# [[rule]]
# id = "pfc-priority-3"
# path = "host/qos/flow_control/priority/3"
# expect = true
# on_violation = "block"
# why = "SMB Direct runs on priority 3 in this fleet"
#
# [[rule]]
# id = "bios-attributes"          # a built-in rule: only its severity changes
# on_change = "block"
#
# [invariants]
# dcbx-capability-lost = "block"  # block | warn | info | ignore
"#;

/// Makes `dir` a baseline store: a repository (new or existing) with `baselines/README.md`
/// a commented `driftgate.toml` and a `.gitignore` of `.driftgate/`, committed; existing files
/// are left alone.
pub fn init(dir: &std::path::Path, lock_wait: Duration) -> Result<InitOutcome, StoreError> {
    let store = Store::open_or_init(dir)?;
    let lock = store.lock(lock_wait)?;
    let readme = format!("{BASELINES_DIR}/README.md");
    let mut writes = Vec::new();
    for (path, content) in [
        (readme.as_str(), STORE_README),
        (driftgate_store::POLICY_FILE, STORE_POLICY),
        (".gitignore", STORE_IGNORE),
    ] {
        let in_worktree = !store.is_bare() && store.location().join(path).exists();
        if !in_worktree && store.read_head(path)?.is_none() {
            writes.push(FileWrite::new(path, content.as_bytes().to_vec()));
        }
    }
    let created: Vec<String> = writes.iter().map(|w| w.path.clone()).collect();
    let commit = if writes.is_empty() {
        None
    } else {
        let message = format!(
            "baseline: initialize driftgate baseline store\n\nPromoted-by: {}\n",
            driftgate_snapshot::tool_version()
        );
        Some(store.commit(&lock, &writes, &message, &|_| false)?)
    };
    let removed_git_locks = lock.removed_git_locks().to_vec();
    drop(lock);
    Ok(InitOutcome {
        store,
        created,
        commit,
        removed_git_locks,
    })
}
