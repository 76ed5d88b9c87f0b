//! `run`: parse, dispatch, and turn the outcome into an exit code.

use std::ffi::OsString;

use clap::{CommandFactory, Parser};

use swarm_core::{ExitCode, Result, set_notice_reporter};

use super::a2a::{
    cards, coord, delegate, find_agent, learning, memory, resolve_conflict, shared_context, tasks,
};
use super::acks::{ack, list as acks};
use super::agents::{
    codex_pane, demo_agent, discover, down, launch, list as agents, resume, sessions, whoami,
};
use super::attention::{answer, feed, peek};
use super::locks::{list as locks, lock, unlock, who};
use super::messaging::{broadcast, inbox, msg, onboard, redeliver, search, thread, topics, watch};
use super::servers::{dashboard, mcp, monitor, notify_event};
use super::setup::{config, doctor, guard, hook, hooks, init, store, watcher};
use super::spending::{budget, limits, usage};
use super::worktrees::{changes, merge, queue, review};
use super::{completions, help, housekeeping, reload, version};
use crate::cli::args::{Cli, Command, ConfigCheck, Housekeeping};
use crate::cli::context::Context;
use crate::cli::global_args::GlobalArgs;
use crate::cli::output::{Output, is_broken_pipe};

/// Runs swarm with these arguments (the first is the program name) and
/// returns the process exit code.
pub fn run(args: impl IntoIterator<Item = OsString>) -> u8 {
    let args: Vec<OsString> = args.into_iter().collect();
    // Asking for the version alone is answered before clap builds its
    // command of every subcommand: that build and the parse are a quarter
    // of such a process's CPU time (docs/PERFORMANCE.md, "Binary size and
    // start-up").
    if version::asked_alone(&args) {
        let out = Output::new(Default::default());
        return exit_code(version::run(&out), &out);
    }
    // So is a hook's run, which every agent event starts.
    if let Some(agent) = hook::asked_alone(&args) {
        let out = Output::new(Default::default());
        return hook::run(&GlobalArgs::from_env(), &out, agent).code();
    }
    let args = super::text_args::as_text(args, Cli::command);
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(
                e.kind(),
                ErrorKind::DisplayHelp
                    | ErrorKind::DisplayVersion
                    | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
            ) {
                let _ = e.print();
            } else {
                let (message, hint) = super::parse_error::describe(&e, &args);
                Output::new(Default::default()).usage_error(&message, &hint);
            }
            // clap: 0 for --help/--version, 2 for usage errors.
            return u8::try_from(e.exit_code()).unwrap_or(ExitCode::Usage.code());
        }
    };
    let out = Output::new(cli.global.color);
    exit_code(dispatch(cli, &out), &out)
}

/// The exit code of a command that ended with `result`, its error printed;
/// a closed stdout is success.
fn exit_code(result: Result<ExitCode>, out: &Output) -> u8 {
    match result {
        Ok(code) => code.code(),
        Err(e) if is_broken_pipe(&e) => ExitCode::Success.code(),
        Err(e) => {
            out.error(&e);
            e.exit_code().code()
        }
    }
}

/// Runs the command as its properties (`Command::properties`) say: in a
/// project or not, with the config checked strictly, leniently or not at
/// all, and the housekeeping after it or not.
fn dispatch(cli: Cli, out: &Output) -> Result<ExitCode> {
    let properties = cli.command.properties();
    if !properties.project {
        return run_without_project(&cli, out);
    }
    let ctx = Context::new(&cli.global, out.clone())?;
    // A damaged state file that a store sets aside is said as a warning
    // the moment it is found.
    let warn = out.clone();
    set_notice_reporter(move |note| warn.warn(note));
    match properties.config {
        ConfigCheck::Strict => {
            ctx.config()?;
        }
        ConfigCheck::WarnAndUseDefaults => ctx.config_or_defaults(),
        ConfigCheck::Unchecked => {}
    }
    let result = run_command(&ctx, cli.command);
    if properties.housekeeping == Housekeeping::After {
        housekeeping::quietly(&ctx);
    }
    result
}

/// Runs a command whose properties say it needs no project.
fn run_without_project(cli: &Cli, out: &Output) -> Result<ExitCode> {
    match &cli.command {
        Command::Version => version::run(out),
        Command::Help(args) => help::run(out, args, Cli::command),
        Command::Completions(args) => completions::run(out, args, Cli::command()),
        Command::Reload(args) => reload::run(out, args),
        Command::DemoAgent(args) => demo_agent::run(args),
        Command::CodexPane(args) => codex_pane::run(args),
        // Of the guard's subcommands, only `check-edit` comes here.
        Command::Guard(_) => Ok(guard::check_edit(&cli.global, out)),
        Command::Hook(args) => Ok(hook::run(&cli.global, out, &args.agent)),
        // Run by `run_command`, in a project.
        _ => Ok(ExitCode::Success),
    }
}

/// Runs a command in the project of `ctx`.
fn run_command(ctx: &Context, command: Command) -> Result<ExitCode> {
    match command {
        Command::Discover(args) => discover::run(ctx, &args),
        Command::Agents(args) => agents::run(ctx, &args),
        Command::Whoami(args) => whoami::run(ctx, &args),
        Command::Msg(args) => msg::run(ctx, &args),
        Command::Broadcast(args) => broadcast::run(ctx, &args),
        Command::Inbox(args) => inbox::run(ctx, &args),
        Command::Thread(args) => thread::run(ctx, &args),
        Command::Search(args) => search::run(ctx, &args),
        Command::Subscribe(args) => topics::subscribe(ctx, &args),
        Command::Unsubscribe(args) => topics::unsubscribe(ctx, &args),
        Command::Topics(args) => topics::list(ctx, &args),
        Command::Ack(args) => ack::run(ctx, &args),
        Command::Acks(args) => acks::run(ctx, &args),
        Command::Onboard(args) => onboard::run(ctx, &args),
        Command::Redeliver(args) => redeliver::run(ctx, &args),
        Command::Watch(args) => watch::run(ctx, &args),
        Command::Watcher(args) => watcher::run(ctx, &args),
        Command::Feed(args) => feed::run(ctx, &args),
        Command::Answer(args) => answer::run(ctx, &args),
        Command::Peek(args) => peek::run(ctx, &args),
        Command::Usage(args) => usage::run(ctx, &args),
        Command::Budget(args) => budget::run(ctx, &args),
        Command::Limits(args) => limits::run(ctx, &args),
        Command::Monitor(args) => monitor::run(ctx, &args),
        Command::Dashboard(args) => dashboard::run(ctx, &args),
        Command::Mcp(args) => mcp::run(ctx, &args),
        Command::Hooks(args) => hooks::run(ctx, &args),
        Command::Launch(args) => launch::run(ctx, &args),
        Command::Down(args) => down::run(ctx, &args),
        Command::Resume(args) => resume::run(ctx, &args),
        Command::Sessions(args) => sessions::run(ctx, &args),
        Command::Changes(args) => changes::run(ctx, &args),
        Command::Merge(args) => merge::run(ctx, &args),
        Command::Review(args) => review::run(ctx, &args),
        Command::Queue(args) => queue::run(ctx, &args),
        Command::Init(args) => init::run(ctx, &args),
        Command::Doctor(args) => doctor::run(ctx, &args),
        Command::Config(args) => config::run(ctx, &args),
        Command::Store(args) => store::run(ctx, &args),
        Command::Coord(args) => coord::run(ctx, &args),
        Command::Cards(args) => cards::run(ctx, &args),
        Command::Tasks(args) => tasks::run(ctx, &args),
        Command::Delegate(args) => delegate::run(ctx, &args),
        Command::FindAgent(args) => find_agent::run(ctx, &args),
        Command::SharedContext(args) => shared_context::run(ctx, &args),
        Command::Memory(args) => memory::run(ctx, &args),
        Command::Learning(args) => learning::run(ctx, &args),
        Command::ResolveConflict(args) => resolve_conflict::run(ctx, &args),
        Command::Lock(args) => lock::run(ctx, &args),
        Command::AcquireFileLock(args) => lock::run(ctx, &args.into()),
        Command::Unlock(args) => unlock::run(ctx, &args),
        Command::Who(args) => who::run(ctx, &args),
        Command::Locks(args) => locks::run(ctx, &args),
        Command::CleanupStaleLocks => locks::run(ctx, &locks::LocksArgs::clean()),
        Command::Guard(args) => guard::run(ctx, &args),
        Command::NotifyEvent(args) => notify_event::run(ctx, &args),
        // Run by `run_without_project`.
        Command::Version
        | Command::Help(_)
        | Command::Completions(_)
        | Command::Reload(_)
        | Command::Hook(_)
        | Command::DemoAgent(_)
        | Command::CodexPane(_) => Ok(ExitCode::Success),
    }
}
