//! `driftgate schema`.

use driftgate_report::schemas;

use crate::exit::Outcome;
use crate::output::Printer;

/// The fix plan's schema: the fix crate's own document, beside the reports'.
const FIX_PLAN: &str = "fix-plan";

/// Print the JSON Schema of a file format.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    driftgate schema snapshot > snapshot.schema.json\n  \
    driftgate schema fleet-report\n  \
    driftgate schema fix-plan")]
pub(crate) struct Args {
    /// Which document.
    #[arg(value_parser = clap::builder::PossibleValuesParser::new(schemas::NAMES.iter().copied().chain([FIX_PLAN])))]
    name: String,
}

pub(super) fn run(args: Args, printer: &Printer) -> anyhow::Result<Outcome> {
    let text = if args.name == FIX_PLAN {
        driftgate_fix::schema()
    } else {
        schemas::render(&args.name).expect("clap accepts only known schema names")
    };
    printer.stdout_raw(|out| out.write_all(text.as_bytes()))?;
    Ok(Outcome::Done)
}
