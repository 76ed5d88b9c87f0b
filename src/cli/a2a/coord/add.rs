//! `swarm coord add SECTION TEXT...`.

use clap::Args;

use swarm_core::a2a::coordination;
use swarm_core::{ExitCode, Result};

use crate::cli::context::Context;

/// Arguments of `swarm coord add`.
#[derive(Debug, Args)]
pub(super) struct AddArgs {
    /// The section (its heading without `##`, any case); created at the end
    /// of the file when missing
    #[arg(value_name = "SECTION")]
    section: String,
    /// The line to add (several words are joined with spaces); it becomes a
    /// `- ` list item unless it is one already or a table row (`| ... |`)
    #[arg(value_name = "TEXT", required = true, num_args = 1.., trailing_var_arg = true)]
    text: Vec<String>,
}

/// Adds the line under the file's lock.
pub(super) fn run(ctx: &Context, args: &AddArgs) -> Result<ExitCode> {
    let added = coordination::add(
        ctx.backend()?.a2a.as_ref(),
        &ctx.project_name(),
        &args.section,
        &args.text.join(" "),
    )?;
    let mut s = format!(
        "Added to {} in {}: {}\n",
        args.section.trim(),
        added.path,
        added.line
    );
    if added.created_file {
        s.push_str("  (there was no COORDINATION.md: created it)\n");
    } else if added.created_section {
        s.push_str("  (the section was new: added it at the end)\n");
    }
    ctx.out.print(&s)?;
    Ok(ExitCode::Success)
}
