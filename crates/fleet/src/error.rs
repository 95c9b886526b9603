//! Why a fleet check or a merge could not run ([`FleetError`]).

/// Why a fleet check or a merge could not run (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum FleetError {
    /// Inventory entries whose capture settings cannot be read (a BMC account whose variable
    /// is unset or empty, a credentials or CA file that cannot be read): a configuration
    /// error, found before any host is captured.
    #[error(
        "{} of the selected hosts cannot be captured as the inventory says, so none was:\n  {}",
        .0.len(),
        .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n  ")
    )]
    HostSettings(Vec<driftgate_inventory::HostOptionsError>),
    /// The selection matched no host.
    #[error("{inventory}: no host matches {selection}")]
    NoHosts {
        /// The inventory file.
        inventory: String,
        /// The selection, as given.
        selection: String,
    },
    /// Something other than driftgate's own folder or file where a run keeps one.
    #[error(transparent)]
    NotOurs(#[from] driftgate_fs::NotOurs),
    /// The output directory could not be written.
    #[error("{path}: {error}")]
    Write {
        /// The file or directory.
        path: String,
        /// Why.
        error: std::io::Error,
    },
    /// A result directory given to merge is not one.
    #[error("{path}: {reason}")]
    BadResults {
        /// The file or directory.
        path: String,
        /// What is wrong.
        reason: String,
    },
    /// The store could not be read.
    #[error(transparent)]
    Store(#[from] driftgate_store::StoreError),
    /// The store's nightly state cannot be read.
    #[error(transparent)]
    State(#[from] driftgate_baseline::state::StateError),
    /// The store has no `baselines/` at HEAD: most likely the wrong store (every host would
    /// only warn); a first run says `--bootstrap`.
    #[error(
        "{store}: no baselines/ at HEAD, so no host has a baseline: is this the baseline store? \
         (a first run that bootstraps the fleet's baselines says --bootstrap)"
    )]
    NoBaselines {
        /// The store.
        store: String,
    },
    /// `--snapshots` reads the directory this run's `--out-dir` clears.
    #[error(
        "--snapshots {snapshots} is (inside) --out-dir {out_dir}, which a run clears: use another --out-dir"
    )]
    SnapshotsInOutDir {
        /// `--snapshots`.
        snapshots: String,
        /// `--out-dir`.
        out_dir: String,
    },
    /// A host's task panicked, and so did the writing of its failure.
    #[error("host {host}: its result could not be written: {message}")]
    HostPanicked {
        /// The host.
        host: String,
        /// What the panic said.
        message: String,
    },
    /// The run was stopped by a signal.
    #[error("the run was interrupted")]
    Interrupted,
}

impl From<driftgate_report::document::SpoolError> for FleetError {
    fn from(spool: driftgate_report::document::SpoolError) -> Self {
        FleetError::Write {
            path: spool.what,
            error: spool.error,
        }
    }
}
