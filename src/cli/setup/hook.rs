//! `swarm hook <agent>`: the one command every hook swarm installs runs,
//! for every event. It reads the event from the agent's JSON on stdin and
//! acts for the agent of its pane: raises what the agent needs the person
//! for, marks its turn's end, confirms the messages its prompt holds; for
//! Claude Code it also shows the agent its new messages before a prompt
//! and checks an edit against other agents' locks, reading the whole
//! payload to judge it (an edit check it cannot read is refused).
//! Otherwise it fails open: its own trouble never stops the agent (the
//! exit code is 0, stdout stays empty unless the agent's protocol wants
//! output, and the error goes to `.swarm/hook_errors.log`). With nothing to do (an event swarm ignores,
//! or outside an agent's pane) it ends before reading any state.

use std::ffi::OsString;
use std::io::Read;

use clap::Args;

use swarm_core::hooks::handle;
use swarm_core::hooks::payload::{self, HookEvent, Signal, Vendor};
use swarm_core::hooks::sightings;
use swarm_core::{ExitCode, Timestamp, set_notice_reporter};

use crate::cli::actor;
use crate::cli::context::Context;
use crate::cli::global_args::GlobalArgs;
use crate::cli::messaging::inbox;
use crate::cli::output::Output;

/// Arguments of `swarm hook`.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples (what the agents' settings run; `swarm hooks install` puts them there):
  swarm hook claude     Claude Code's hooks: every event, read from its JSON on stdin
  swarm hook codex      Codex CLI's
  swarm hook gemini     Gemini CLI's

It always exits 0 (Claude Code's edit guard: 2 to refuse an edit, also one it cannot read), prints
nothing unless the agent wants output, and logs its own trouble to
.swarm/hook_errors.log.")]
pub(crate) struct HookArgs {
    /// The agent program whose hook this is: claude, codex or gemini
    #[arg(value_name = "AGENT")]
    pub agent: String,
}

/// The agent named when the program's arguments are exactly `hook
/// <agent>` with a known agent: such a run skips the argument parser (it is
/// most of a process's start-up, and a hook runs on every prompt and
/// turn). Anything else (`hook --help`) goes through the parser.
pub(crate) fn asked_alone(args: &[OsString]) -> Option<&str> {
    match args {
        [_, hook, agent] if hook == "hook" => agent.to_str().filter(|a| Vendor::parse(a).is_some()),
        _ => None,
    }
}

/// Runs the hook for `agent` (a vendor's name); never fails.
pub(crate) fn run(global: &GlobalArgs, out: &Output, agent: &str) -> ExitCode {
    let Some(vendor) = Vendor::parse(agent) else {
        out.note(&format!(
            "swarm hook: unknown agent {:?} (claude, codex or gemini)",
            swarm_core::support::sanitize::one_line(agent)
        ));
        return ExitCode::Success;
    };
    let mut input = Vec::new();
    // The whole payload, however large: the edit guard judges a tool
    // call by all of it, and a cut one is no JSON at all (a Write of a
    // large file would pass unjudged). The event parser keeps only what
    // it needs of a long prompt.
    if let Err(e) = std::io::stdin().read_to_end(&mut input) {
        // Claude Code's edit checks come here too: one that cannot be
        // read cannot be judged, so it is refused, never let through.
        if vendor == Vendor::Claude && mentions_edit_check(&input) {
            out.note(&format!(
                "swarm guard: edit refused: could not read the hook input to check it for locks: {e}"
            ));
            return ExitCode::Usage;
        }
        return failed(
            global,
            vendor,
            "",
            &format!("could not read the hook input: {e}"),
        );
    }
    let event = match payload::parse(vendor, &input) {
        Ok(event) => event,
        Err(why) => return failed(global, vendor, "", &why),
    };
    match event.signal {
        Signal::Other => return ExitCode::Success,
        Signal::EditCheck => {
            return crate::cli::setup::guard::check_edit_input(global, out, &input);
        }
        _ => {}
    }
    // Outside an agent's pane there is nobody to act for.
    if std::env::var_os("TMUX_PANE").is_none_or(|p| p.is_empty()) {
        return ExitCode::Success;
    }
    if let Err(e) = act(global, out, &event) {
        return failed(global, vendor, &event.name, &e.to_string());
    }
    ExitCode::Success
}

/// Does the work of `event` for the agent of this pane.
fn act(global: &GlobalArgs, out: &Output, event: &HookEvent) -> swarm_core::Result<()> {
    let at = Timestamp::now();
    let ctx = Context::new(global, out.clone())?;
    // A hook prints nothing an agent would show: a damaged state file it
    // sets aside is told in its error log instead.
    let (paths, vendor, name) = (
        ctx.paths.clone(),
        event.vendor.as_str().to_owned(),
        event.name.clone(),
    );
    set_notice_reporter(move |note| {
        sightings::log_error(&paths, None, &vendor, &name, note);
    });
    ctx.config_or_defaults();
    let Some(agent) = actor::detect(&ctx)? else {
        return Ok(());
    };
    let op = ctx.op()?;
    let (registry, _) = op.registry()?;
    let Some(record) = registry.find(&agent).cloned() else {
        return Ok(());
    };
    let done = handle::handle(op, &record, event, at);
    for e in &done.errors {
        sightings::log_error(
            &ctx.paths,
            Some(&agent),
            event.vendor.as_str(),
            &event.name,
            e,
        );
    }
    // Claude Code adds what a prompt hook prints to the prompt's context.
    if event.vendor == Vendor::Claude && matches!(event.signal, Signal::Prompt { .. }) {
        match inbox::prompt_hook_text(&ctx, &agent) {
            Ok(text) if !text.is_empty() => {
                let _ = ctx.out.print(&text);
            }
            Ok(_) => {}
            Err(e) => sightings::log_error(
                &ctx.paths,
                Some(&agent),
                event.vendor.as_str(),
                &event.name,
                &format!("could not read the inbox: {e}"),
            ),
        }
    }
    Ok(())
}

/// True when a payload read in part names Claude Code's `PreToolUse`
/// event, the one the edit guard answers.
fn mentions_edit_check(partial: &[u8]) -> bool {
    partial
        .windows(b"PreToolUse".len())
        .any(|w| w == b"PreToolUse")
}

/// Logs a hook's trouble where the project is found, and lets the agent
/// go on.
fn failed(global: &GlobalArgs, vendor: Vendor, event: &str, why: &str) -> ExitCode {
    if let Ok(ctx) = Context::new(global, Output::new(Default::default())) {
        sightings::log_error(&ctx.paths, None, vendor.as_str(), event, why);
    }
    ExitCode::Success
}
