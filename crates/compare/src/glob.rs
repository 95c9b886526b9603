//! The one way a fact path glob is compiled, for policy rules and allowances alike.

use globset::{Glob, GlobBuilder};

/// A fact path glob: `*` stays within one `/` segment, `**` crosses segments. Shared with
/// allowances, so `--allow` paths mean what rule paths mean.
pub(crate) fn compile_glob(pattern: &str) -> Result<Glob, globset::Error> {
    GlobBuilder::new(pattern)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
}
