//! `swarm doctor`: checks tmux, the project root, the config, the state
//! files and the registry against the live panes, and says how to fix
//! anything that is off. Exit 1 when any check fails.

use clap::Args;
use serde::Serialize;

use swarm_core::config;
use swarm_core::setup::doctor::{self, CheckOutcome, CheckStatus, Subject};
use swarm_core::support::sanitize;
use swarm_core::{Backend, Config, ExitCode, Result};

use crate::cli::context::Context;

/// Arguments of `swarm doctor`.
#[derive(Debug, Args)]
pub(crate) struct DoctorArgs {
    /// Print the results as JSON
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct Report<'a> {
    ok: bool,
    counts: Counts,
    checks: &'a [CheckOutcome],
}

#[derive(Serialize)]
struct Counts {
    ok: usize,
    warn: usize,
    fail: usize,
}

/// Runs every check and reports.
pub(crate) fn run(ctx: &Context, args: &DoctorArgs) -> Result<ExitCode> {
    let env = config::process_env();
    // A broken config is reported by its own check; the rest goes on with
    // the defaults.
    let matcher = ctx.matcher().unwrap_or_default();
    let profiles = ctx.profiles().unwrap_or_default();
    let defaults;
    let backend = match ctx.backend() {
        Ok(b) => b,
        Err(_) => {
            defaults = Backend::files(&ctx.paths, &Config::default());
            &defaults
        }
    };
    let outcomes = doctor::run(&Subject {
        root: &ctx.root,
        paths: &ctx.paths,
        backend,
        tmux: &ctx.tmux,
        env: &env,
        matcher: &matcher,
        profiles: &profiles,
        held: &*backend.held,
    });
    let (ok, warn, fail) = doctor::tally(&outcomes);
    if args.json {
        ctx.out.json(&Report {
            ok: fail == 0,
            counts: Counts { ok, warn, fail },
            checks: &outcomes,
        })?;
    } else {
        let width = outcomes.iter().map(|o| o.check.len()).max().unwrap_or(0);
        let mut s = String::new();
        for o in &outcomes {
            let label = match o.status {
                CheckStatus::Ok => ctx.out.good("ok  "),
                CheckStatus::Warn => ctx.out.caution("warn"),
                CheckStatus::Fail => ctx.out.bad("FAIL"),
            };
            // Details can quote file content and pane names: one clean
            // line each.
            s.push_str(&format!(
                "{label}  {:<width$}  {}\n",
                o.check,
                sanitize::one_line(&o.message)
            ));
            for d in &o.details {
                s.push_str(&format!(
                    "      {:width$}    {}\n",
                    "",
                    sanitize::one_line(d)
                ));
            }
            if let Some(fix) = &o.fix {
                s.push_str(&format!("      {:width$}  fix: {fix}\n", ""));
            }
        }
        s.push_str(&format!(
            "\n{ok} ok, {warn} warning{}, {fail} failure{}\n",
            if warn == 1 { "" } else { "s" },
            if fail == 1 { "" } else { "s" }
        ));
        ctx.out.print(&s)?;
    }
    Ok(if fail > 0 {
        ExitCode::Failure
    } else {
        ExitCode::Success
    })
}
