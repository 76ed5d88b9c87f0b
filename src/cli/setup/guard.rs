//! `swarm guard`: enforcing locks where edits happen. `install` and
//! `uninstall` manage swarm's block in the git pre-commit hook;
//! `check-commit` is what that block runs; `check-edit` is the handler of
//! Claude Code's `PreToolUse` hook for `Edit|Write|MultiEdit`.
//!
//! Both refuse a change to a path under another agent's live lock, and
//! under any shared lock: a shared lock says its holders are reading the
//! path, so nobody changes it, a holder included, unless that agent also
//! holds the path exclusively (`swarm lock PATH` turns a shared lock it
//! holds alone into an exclusive one).

use std::io::Read;
use std::path::Path;

use clap::{Args, Subcommand};

use swarm_core::agents::launch;
use swarm_core::{
    Conflict, EditRequest, Error, ExitCode, Git, GuardError, Installed, LockError, LockKey,
    PreCommitHook, Result, Uninstalled,
};

use crate::cli::actor;
use crate::cli::context::Context;
use crate::cli::global_args::GlobalArgs;
use crate::cli::output::Output;

/// `SWARM_GUARD=off` turns every check off (for one commit or edit).
const SWITCH: &str = "SWARM_GUARD";

/// Arguments of `swarm guard`.
#[derive(Debug, Args)]
pub(crate) struct GuardArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: GuardCommand,
}

/// The guard subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum GuardCommand {
    /// Add a check to the git pre-commit hook that refuses commits touching
    /// files other agents have locked (an existing hook is kept)
    Install,
    /// Remove exactly what `install` added
    Uninstall,
    /// Check the staged files for other agents' locks (the hook runs this)
    #[command(hide = true)]
    CheckCommit,
    /// Claude Code PreToolUse handler: reads the hook JSON on stdin and
    /// blocks (exit 2) an edit of a file another agent has locked
    #[command(hide = true)]
    CheckEdit,
}

fn switched_off() -> bool {
    std::env::var(SWITCH).is_ok_and(|v| v.eq_ignore_ascii_case("off"))
}

/// Runs install, uninstall or check-commit.
pub(crate) fn run(ctx: &Context, args: &GuardArgs) -> Result<ExitCode> {
    match args.command {
        GuardCommand::Install => install(ctx),
        GuardCommand::Uninstall => uninstall(ctx),
        GuardCommand::CheckCommit => check_commit(ctx),
        // Dispatched before a context exists (see `check_edit`).
        GuardCommand::CheckEdit => Ok(ExitCode::Success),
    }
}

fn hook(ctx: &Context) -> Result<PreCommitHook> {
    let dir = Git::new(ctx.paths.root())
        .hooks_dir()
        .map_err(GuardError::from)?;
    Ok(PreCommitHook::new(&dir))
}

fn install(ctx: &Context) -> Result<ExitCode> {
    let hook = hook(ctx)?;
    let outcome = hook.install(&launch::swarm_invocation())?;
    let path = hook.path().display();
    ctx.out.print(&match outcome {
        Installed::Created => format!("Created {path} with the swarm guard.\n"),
        Installed::Added => {
            format!("Added the swarm guard to the start of {path} (the rest is unchanged).\n")
        }
        Installed::AlreadyThere => format!("The swarm guard is already in {path}.\n"),
    })?;
    ctx.out.note("Commits touching a file another agent has locked are now refused; bypass once with SWARM_GUARD=off.");
    Ok(ExitCode::Success)
}

fn uninstall(ctx: &Context) -> Result<ExitCode> {
    let hook = hook(ctx)?;
    let path = hook.path().display().to_string();
    ctx.out.print(&match hook.uninstall()? {
        Uninstalled::Removed => {
            format!("Removed the swarm guard from {path} (the rest is unchanged).\n")
        }
        Uninstalled::RemovedFile => format!("Removed {path} (swarm guard had created it).\n"),
        Uninstalled::NotInstalled => format!("The swarm guard is not in {path}; nothing to do.\n"),
    })?;
    Ok(ExitCode::Success)
}

fn check_commit(ctx: &Context) -> Result<ExitCode> {
    if switched_off() {
        return Ok(ExitCode::Success);
    }
    let git = Git::new(&ctx.cwd);
    let top = git.toplevel().map_err(GuardError::from)?;
    let mut keys = Vec::new();
    for path in git.staged_paths().map_err(GuardError::from)? {
        let absolute = top.join(&path);
        match ctx.lock_key(&absolute.to_string_lossy()) {
            Ok(key) => keys.push(key),
            // Files outside the swarm project are not ours to guard.
            Err(Error::Lock(LockError::Outside { .. } | LockError::WholeProject { .. })) => {}
            Err(e) => return Err(e),
        }
    }
    let me = actor::detect(ctx).ok().flatten();
    let conflicts = ctx.locks()?.blocking(&keys, me.as_deref())?;
    if conflicts.is_empty() {
        return Ok(ExitCode::Success);
    }
    Err(GuardError::CommitBlocked(conflicts).into())
}

/// `guard check-edit`: judges the whole hook input. An input it cannot
/// read is refused (exit 2), since the edit it holds cannot be judged;
/// input that is no edit request at all, or a project whose state it
/// cannot read, allows the edit with a note on stderr; a live lock of
/// another agent blocks it.
pub(crate) fn check_edit(global: &GlobalArgs, out: &Output) -> ExitCode {
    if switched_off() {
        return ExitCode::Success;
    }
    let mut input = Vec::new();
    if let Err(e) = std::io::stdin().read_to_end(&mut input) {
        out.note(&format!(
            "swarm guard: edit refused: could not read the hook input to check it for locks: {e}"
        ));
        return ExitCode::Usage;
    }
    check_edit_input(global, out, &input)
}

/// `check_edit` of a hook input already read (`swarm hook claude` reads
/// it once for every event).
pub(crate) fn check_edit_input(global: &GlobalArgs, out: &Output, input: &[u8]) -> ExitCode {
    if switched_off() {
        return ExitCode::Success;
    }
    let allow = |why: &str| {
        out.note(&format!("swarm guard: not checked for locks: {why}"));
        ExitCode::Success
    };
    let request = match EditRequest::parse(input) {
        Ok(Some(request)) => request,
        Ok(None) => return ExitCode::Success,
        Err(why) => return allow(&why),
    };
    let ctx = match Context::new(global, out.clone()) {
        Ok(ctx) => ctx,
        Err(e) => return allow(&e.to_string()),
    };
    let base = request.cwd.as_deref().unwrap_or(&ctx.cwd);
    let file = base.join(Path::new(&request.file));
    let key: LockKey = match ctx.lock_key(&file.to_string_lossy()) {
        Ok(key) => key,
        Err(Error::Lock(LockError::Outside { .. } | LockError::WholeProject { .. })) => {
            return ExitCode::Success;
        }
        Err(e) => return allow(&e.to_string()),
    };
    let me = actor::detect(&ctx).ok().flatten();
    let conflicts = match ctx
        .locks()
        .and_then(|t| Ok(t.blocking(std::slice::from_ref(&key), me.as_deref())?))
    {
        Ok(conflicts) => conflicts,
        Err(e) => return allow(&e.to_string()),
    };
    if conflicts.is_empty() {
        return ExitCode::Success;
    }
    out.note(&edit_refusal(&key, &conflicts, me.as_deref()));
    // Claude Code blocks the tool call when a PreToolUse hook exits with 2
    // and shows the agent what the hook wrote to stderr. (2 is also what
    // swarm's table calls a usage error; here the hook protocol decides.)
    ExitCode::Usage
}

fn edit_refusal(key: &LockKey, conflicts: &[Conflict], me: Option<&str>) -> String {
    let mut s = String::from("swarm: edit blocked by a file lock:");
    let mut holders: Vec<&str> = Vec::new();
    for c in conflicts {
        s.push_str(&format!("\n  {c}"));
        holders.extend(c.holders.iter().map(String::as_str));
    }
    holders.sort_unstable();
    holders.dedup();
    let others: Vec<&str> = holders.iter().copied().filter(|h| Some(*h) != me).collect();
    if others.is_empty() {
        // Only the editor's own shared lock is in the way.
        s.push_str(&format!(
            "\nYou hold a shared (reading) lock on it, so it must not change. To edit it, lock it \
             exclusively first: `swarm lock {key}` (refused while others read it too)."
        ));
        return s;
    }
    s.push_str(&format!(
        "\nDo not edit {key} now: work on something else first, or ask {} to release the lock. \
         `swarm who {key}` shows whether it is still held.",
        others.join(", ")
    ));
    s
}
