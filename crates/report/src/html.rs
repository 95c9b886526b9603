//! One self-contained HTML page for a check, a gate step or a fleet run: a summary by
//! verdict, a filterable and sortable table of hosts, per host its findings grouped by port
//! (a gate's stories), the failure of an incomplete capture, allowed changes, the fleet's
//! findings and each host's drift timeline from the baseline store's history.
//!
//! The page is built as a sorted model (`model::Page`) from the [`View`] and the
//! [`Extras`], then written by `maud`, which escapes every value (a BMC controls capture
//! strings). The CSS and the script are inline (the page works offline from a file share) and
//! a Content-Security-Policy allows only them, by their SHA-256: an injected script could not
//! run even if a value escaped. No clock, no I/O.

mod model;
mod page;

use std::borrow::Cow;
use std::io::{self, Write};

use crate::format::Extras;
use crate::view::{HostView, View};
use driftgate_compare::Report;

/// Writes `view` as one HTML page.
pub fn render(view: &View<'_>, extras: &Extras, out: &mut dyn Write) -> io::Result<()> {
    // The page is one document, built whole before it is written: every report is read at once.
    let reports: Vec<Cow<'_, Report>> = view
        .hosts
        .iter()
        .map(HostView::report)
        .collect::<io::Result<_>>()?;
    let page = model::Page::of(view, &reports, extras);
    out.write_all(page::markup(&page).into_string().as_bytes())
}

#[cfg(test)]
mod tests;
