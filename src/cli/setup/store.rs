//! `swarm store`: the project's shared state as a whole. `migrate` copies
//! it into another store (the files or a Redis server), leaving the
//! source as it was, so that switching `[store] backend` loses nothing.

use clap::{Args, Subcommand, ValueEnum};
use serde::Serialize;

use swarm_core::support::sanitize;
use swarm_core::{
    Backend, Error, ExitCode, Moved, Result, StoreBackend, copy_state, state_present,
};

use crate::cli::context::Context;

/// Arguments of `swarm store`.
#[derive(Debug, Args)]
pub(crate) struct StoreArgs {
    #[command(subcommand)]
    command: StoreCommand,
}

#[derive(Debug, Subcommand)]
enum StoreCommand {
    /// Copy this project's shared state into another store
    #[command(
        long_about = "Copy this project's shared state into another store: the \
registry and id mark, the locks (re-taken by their holders), the message log \
with each agent's read position, pending acknowledgements, held messages, the \
A2A records and COORDINATION.md. The source is left as it was; switch \
`[store] backend` (or SWARM_STORE_BACKEND) afterwards. Refuses when the target \
already holds state, unless --force. The Redis server is the one `[store] url` \
(or SWARM_STORE_URL) names."
    )]
    Migrate(MigrateArgs),
}

/// Where to move to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Target {
    /// The Redis server `[store] url` names
    Redis,
    /// The state files in the project
    Files,
}

#[derive(Debug, Args)]
struct MigrateArgs {
    /// The store to copy into (the other one is the source)
    #[arg(long, value_enum)]
    to: Target,
    /// Copy even when the target already holds state (it is added to)
    #[arg(long)]
    force: bool,
    /// Print what was copied as JSON
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct MigratedJson<'a> {
    from: String,
    to: String,
    moved: &'a Moved,
}

/// Runs the `store` subcommand.
pub(crate) fn run(ctx: &Context, args: &StoreArgs) -> Result<ExitCode> {
    match &args.command {
        StoreCommand::Migrate(a) => run_migrate(ctx, a),
    }
}

fn run_migrate(ctx: &Context, args: &MigrateArgs) -> Result<ExitCode> {
    let config = ctx.config()?;
    let (from_kind, to_kind) = match args.to {
        Target::Redis => (StoreBackend::Files, StoreBackend::Redis),
        Target::Files => (StoreBackend::Redis, StoreBackend::Files),
    };
    let from = Backend::open_as(
        &ctx.paths,
        config,
        from_kind,
        crate::cli::features::shared_stores(),
    )?;
    let to = Backend::open_as(
        &ctx.paths,
        config,
        to_kind,
        crate::cli::features::shared_stores(),
    )?;
    let occupied = state_present(&to)?;
    if !occupied.is_empty() && !args.force {
        return Err(Error::Invalid(format!(
            "{} already holds {}: nothing was copied (--force adds to it)",
            to.describe(),
            occupied.join(", ")
        )));
    }
    let host = from.shared_host().or(to.shared_host()).unwrap_or("");
    let moved = copy_state(&from, &to, host)?;
    for n in &moved.notes {
        ctx.out.warn(n);
    }
    if args.json {
        ctx.out.json(&MigratedJson {
            from: from.describe(),
            to: to.describe(),
            moved: &moved,
        })?;
        return Ok(ExitCode::Success);
    }
    let backend = match args.to {
        Target::Redis => "redis",
        Target::Files => "files",
    };
    ctx.out.print(&format!(
        "Copied this project's state from {} to {}:\n  agents {}, locks {}, log records {}, read positions {}, pending ACKs {}, held messages {}, topic subscriptions {}, A2A collections {}, coordination notes {}\nThe source is left as it was. To use the new store, set in .claudeswarm.toml:\n  [store]\n  backend = \"{backend}\"\n(or export SWARM_STORE_BACKEND={backend})\n",
        sanitize::one_line(&from.describe()),
        sanitize::one_line(&to.describe()),
        moved.agents,
        moved.locks,
        moved.log_records,
        moved.cursors,
        moved.pending_acks,
        moved.held,
        moved.subscriptions,
        moved.a2a_collections,
        if moved.coordination { "yes" } else { "no" },
    ))?;
    Ok(ExitCode::Success)
}
