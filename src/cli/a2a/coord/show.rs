//! `swarm coord show [SECTION]`.

use clap::Args;

use swarm_core::a2a::coordination;
use swarm_core::support::sanitize;
use swarm_core::{Error, ExitCode, Result};

use crate::cli::context::Context;

/// Arguments of `swarm coord show`.
#[derive(Debug, Args)]
pub(super) struct ShowArgs {
    /// Print only this section (its heading without `##`, any case)
    #[arg(value_name = "SECTION")]
    section: Option<String>,
}

/// Prints the file or a section; agents write it, so control characters
/// are removed before it reaches the terminal.
pub(super) fn run(ctx: &Context, args: &ShowArgs) -> Result<ExitCode> {
    let Some(doc) = coordination::read(ctx.backend()?.a2a.as_ref())? else {
        ctx.out.note(&format!(
            "No COORDINATION.md in {} yet: create it with `swarm coord init`.",
            ctx.paths.root().display()
        ));
        return Ok(ExitCode::Success);
    };
    let text = match &args.section {
        None => doc,
        Some(name) => match coordination::section_text(&doc, name) {
            Some(t) if t.is_empty() => t,
            Some(t) => format!("{t}\n"),
            None => {
                return Err(Error::Invalid(format!(
                    "COORDINATION.md has no section {name:?}; its sections are: {}",
                    coordination::section_names(&doc).join(", ")
                )));
            }
        },
    };
    ctx.out.print(&sanitize::strip_controls(&text))?;
    Ok(ExitCode::Success)
}
