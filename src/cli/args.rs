//! What the user can type: the global options and the command list.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use super::a2a::{
    cards, coord, delegate, find_agent, learning, memory, resolve_conflict, shared_context, tasks,
};
use super::acks::{ack, list as acks};
use super::agents::{demo_agent, discover, down, launch, list as agents, whoami};
use super::locks::{list as locks, lock, unlock, who};
use super::messaging::{broadcast, inbox, msg, onboard, redeliver, watch};
use super::servers::{dashboard, mcp, monitor, notify_event};
use super::setup::{config, doctor, guard, hooks, init, store};
use super::{completions, help, reload};
use crate::cli::output::ColorChoice;

// clap can give subcommands only one heading, so the Python tool's
// agent-to-agent commands (a separate, optional toolbox that never sends
// messages or touches locks) are hidden from the list above and listed
// here under their own heading. A test keeps these lines equal to the
// commands' own descriptions.
const AFTER_HELP: &str = "\
Task coordination (the Python tool's agent-to-agent commands):
  cards             Agent cards: each agent's skills, tools and availability
  tasks             Tasks with a status workflow and a history
  delegate          Give a task to the active agent whose card fits it best
  find-agent        Find agents by skill, or the best agent for an objective
  context           Shared contexts and the decisions taken in them
  memory            Show or clear an agent's memory
  learning          Show an agent's learning stats
  resolve-conflict  Advise who should have a locked path (changes no lock)

Exit codes: 0 ok, 1 error, 2 usage, 3 lock held by another agent, 4 agent, pane,
task or other record not found, 5 tmux unavailable, 6 rate limited, 7 message
not delivered, 8 shared store unavailable.

Every command of the Python Claude Swarm CLI also works under its old name
(discover-agents, list-agents, acquire-file-lock, ...).";

/// Run several AI coding agents side by side in tmux on one project.
#[derive(Debug, Parser)]
#[command(
    name = "swarm",
    version = super::version::VERSION,
    about,
    long_about = "Run several AI coding agents side by side in tmux on one project: \
                  swarm finds the agent panes, gives each a stable id, and lets them \
                  message each other and lock files.",
    after_help = AFTER_HELP,
    arg_required_else_help = true,
    disable_help_subcommand = true,
    max_term_width = 100
)]
pub(super) struct Cli {
    /// Options every command takes.
    #[command(flatten)]
    pub global: GlobalArgs,
    /// The command.
    #[command(subcommand)]
    pub command: Command,
}

/// Options every command takes, before or after the command name.
#[derive(Debug, Args)]
#[command(next_help_heading = "Global options")]
pub(super) struct GlobalArgs {
    /// Project root holding the state files [default: $CLAUDESWARM_ROOT,
    /// else the nearest directory with .git, .claudeswarm.yaml,
    /// ACTIVE_AGENTS.json, .agent_locks, pyproject.toml or package.json]
    #[arg(
        long,
        global = true,
        value_name = "DIR",
        visible_alias = "project-root"
    )]
    pub root: Option<PathBuf>,

    /// tmux server to use: a socket name (like tmux -L) or a path
    /// containing `/` (like tmux -S) [default: the server of the current
    /// pane ($TMUX), else tmux's default]
    #[arg(
        long,
        global = true,
        env = "SWARM_TMUX_SOCKET",
        value_name = "NAME|PATH"
    )]
    pub tmux_socket: Option<OsString>,

    /// When to colour the output
    #[arg(long, global = true, value_enum, default_value_t, value_name = "WHEN")]
    pub color: ColorChoice,
}

/// A command's arguments, whose definition clap builds only when that
/// command is the one given: building every command's arguments is most of
/// the cost of parsing a command line, and every command pays it.
#[derive(Debug)]
pub(super) struct Lazy<T>(T);

impl<T> std::ops::Deref for Lazy<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: clap::FromArgMatches> clap::FromArgMatches for Lazy<T> {
    fn from_arg_matches(matches: &clap::ArgMatches) -> Result<Self, clap::Error> {
        T::from_arg_matches(matches).map(Lazy)
    }

    fn from_arg_matches_mut(matches: &mut clap::ArgMatches) -> Result<Self, clap::Error> {
        T::from_arg_matches_mut(matches).map(Lazy)
    }

    fn update_from_arg_matches(&mut self, matches: &clap::ArgMatches) -> Result<(), clap::Error> {
        self.0.update_from_arg_matches(matches)
    }

    fn update_from_arg_matches_mut(
        &mut self,
        matches: &mut clap::ArgMatches,
    ) -> Result<(), clap::Error> {
        self.0.update_from_arg_matches_mut(matches)
    }
}

impl<T: Args> Args for Lazy<T> {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        cmd.defer(|cmd| keeping_about(cmd, T::augment_args))
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        cmd.defer(|cmd| keeping_about(cmd, T::augment_args_for_update))
    }
}

/// Adds the arguments with `augment`, keeping the command's description:
/// built later than it would be without deferring, the arguments' own doc
/// comment would otherwise replace it.
fn keeping_about(cmd: clap::Command, augment: fn(clap::Command) -> clap::Command) -> clap::Command {
    let about = cmd.get_about().cloned();
    let long_about = cmd.get_long_about().cloned();
    let cmd = augment(cmd);
    let cmd = match about {
        Some(about) => cmd.about(about),
        None => cmd,
    };
    match long_about {
        Some(long) => cmd.long_about(long),
        None => cmd,
    }
}

/// The commands.
#[derive(Debug, Subcommand)]
pub(super) enum Command {
    /// Find this project's agent panes and update the registry
    #[command(alias = "discover-agents")]
    Discover(Lazy<discover::DiscoverArgs>),
    /// List the registered agents (no tmux call)
    #[command(alias = "list-agents")]
    Agents(Lazy<agents::AgentsArgs>),
    /// Show which agent this pane is
    Whoami(Lazy<whoami::WhoamiArgs>),
    /// Send a message to one agent
    #[command(alias = "send-message")]
    Msg(Lazy<msg::MsgArgs>),
    /// Send a message to every active agent
    #[command(alias = "broadcast-message")]
    Broadcast(Lazy<broadcast::BroadcastArgs>),
    /// Show the messages sent to an agent
    #[command(alias = "check-messages")]
    Inbox(Lazy<inbox::InboxArgs>),
    /// Acknowledge a message that asked for it
    #[command(alias = "acknowledge-message")]
    Ack(Lazy<ack::AckArgs>),
    /// List messages waiting for an acknowledgement
    Acks(Lazy<acks::AcksArgs>),
    /// Tell every agent, once, how to work in this swarm
    Onboard(Lazy<onboard::OnboardArgs>),
    /// Try again to deliver queued messages into their panes
    Redeliver(Lazy<redeliver::RedeliverArgs>),
    /// Keep discovery fresh and send ACK retries as they fall due
    Watch(Lazy<watch::WatchArgs>),
    /// Live view of agents, locks, pending ACKs and messages
    #[command(alias = "start-monitoring")]
    Monitor(Lazy<monitor::MonitorArgs>),
    /// Serve a live web view of the swarm (and its JSON API)
    #[command(alias = "start-dashboard")]
    Dashboard(Lazy<dashboard::DashboardArgs>),
    /// Serve swarm to an agent as MCP tools; install it into the agents
    Mcp(Lazy<mcp::McpArgs>),
    /// Install or remove swarm's Claude Code hooks
    Hooks(Lazy<hooks::HooksArgs>),
    /// Lock files, directories or glob patterns for this agent (all or none)
    Lock(Lazy<lock::LockArgs>),
    /// Release this agent's locks (another agent's only with --force)
    #[command(alias = "release-file-lock")]
    Unlock(Lazy<unlock::UnlockArgs>),
    /// Show which locks cover or overlap a path
    #[command(alias = "who-has-lock")]
    Who(Lazy<who::WhoArgs>),
    /// List the locks, or remove stale and damaged ones with --clean
    #[command(alias = "list-all-locks")]
    Locks(Lazy<locks::LocksArgs>),
    /// Enforce locks: a git pre-commit check and a Claude Code edit check
    Guard(Lazy<guard::GuardArgs>),
    /// The Python tool's `acquire-file-lock FILEPATH [REASON]`
    #[command(hide = true)]
    AcquireFileLock(lock::AcquireFileLockArgs),
    /// The Python tool's `cleanup-stale-locks` (`swarm locks --clean`)
    #[command(hide = true)]
    CleanupStaleLocks,
    /// Open a tmux session with N agent panes
    Launch(Lazy<launch::LaunchArgs>),
    /// Stop a session opened by `swarm launch`
    Down(Lazy<down::DownArgs>),
    /// Set up this project: config file, tmux check, next steps
    Init(Lazy<init::InitArgs>),
    /// Check tmux, the project root, the config and the state files
    Doctor(Lazy<doctor::DoctorArgs>),
    /// Write, show, check or edit the configuration
    #[command(arg_required_else_help = true)]
    Config(Lazy<config::ConfigArgs>),
    /// Copy the shared state into another store (files or Redis)
    #[command(arg_required_else_help = true)]
    Store(Lazy<store::StoreArgs>),
    /// Read or add to the shared COORDINATION.md
    #[command(arg_required_else_help = true)]
    Coord(Lazy<coord::CoordArgs>),
    /// Agent cards: each agent's skills, tools and availability
    #[command(hide = true, arg_required_else_help = true)]
    Cards(Lazy<cards::CardsArgs>),
    /// Tasks with a status workflow and a history
    #[command(hide = true, arg_required_else_help = true)]
    Tasks(Lazy<tasks::TasksArgs>),
    /// Give a task to the active agent whose card fits it best
    #[command(hide = true)]
    Delegate(Lazy<delegate::DelegateArgs>),
    /// Find agents by skill, or the best agent for an objective
    #[command(hide = true)]
    FindAgent(Lazy<find_agent::FindAgentArgs>),
    /// Shared contexts and the decisions taken in them
    #[command(name = "context", hide = true, arg_required_else_help = true)]
    SharedContext(Lazy<shared_context::SharedContextArgs>),
    /// Show or clear an agent's memory
    #[command(hide = true, arg_required_else_help = true)]
    Memory(Lazy<memory::MemoryArgs>),
    /// Show an agent's learning stats
    #[command(hide = true, arg_required_else_help = true)]
    Learning(Lazy<learning::LearningArgs>),
    /// Advise who should have a locked path (changes no lock)
    #[command(hide = true)]
    ResolveConflict(Lazy<resolve_conflict::ResolveConflictArgs>),
    /// Print a shell completion script (bash, zsh, fish, ...)
    Completions(completions::CompletionsArgs),
    /// Say how to update swarm (the Python tool's `reload`; changes nothing)
    Reload(reload::ReloadArgs),
    /// Print swarm's version
    Version,
    /// Print help: of swarm, of a command, `aliases` (the Python tool's
    /// command names) or `exit-codes`
    Help(help::HelpArgs),
    /// The demo agent `swarm launch --agent demo` runs in each pane
    #[command(hide = true)]
    DemoAgent(demo_agent::DemoAgentArgs),
    /// Deliver one notification read as JSON on stdin (started detached
    /// by short commands)
    #[command(hide = true, name = crate::notify::NOTIFY_EVENT_COMMAND)]
    NotifyEvent(notify_event::NotifyEventArgs),
}

/// What a command may do besides its own work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum SideEffects {
    /// Nothing: it reads and prints. It never types into a pane and never
    /// changes state it was not asked to change.
    None,
    /// After its own work it does the swarm's housekeeping: due ACK retries
    /// and escalations, which type into the recipients' panes.
    Housekeeping,
    /// It runs the housekeeping itself, continuously, in its own loop.
    OwnLoop,
}

impl Command {
    /// Which commands run housekeeping, stated beside the command list so
    /// that a reader sees which may type into panes as a side effect. The
    /// read-only ones (`who`, `locks`, `agents`, `inbox` without `--new`,
    /// `acks`, `config`, `doctor`, ...) never do; the ones that change the
    /// swarm's state do, so that nobody has to remember a retry loop.
    pub(super) fn side_effects(&self) -> SideEffects {
        match self {
            Command::Watch(_) | Command::Monitor(_) => SideEffects::OwnLoop,
            Command::Inbox(args) if args.new => SideEffects::Housekeeping,
            Command::Locks(args) if args.clean => SideEffects::Housekeeping,
            Command::Discover(_)
            | Command::Msg(_)
            | Command::Broadcast(_)
            | Command::Ack(_)
            | Command::Onboard(_)
            | Command::Redeliver(_)
            | Command::Lock(_)
            | Command::AcquireFileLock(_)
            | Command::Unlock(_)
            | Command::CleanupStaleLocks
            | Command::Launch(_)
            | Command::Down(_)
            | Command::Init(_)
            | Command::Coord(_)
            | Command::Cards(_)
            | Command::Tasks(_)
            | Command::Delegate(_)
            | Command::SharedContext(_)
            | Command::Memory(_) => SideEffects::Housekeeping,
            // The dashboard and the MCP server do only what they are asked;
            // the git guard must not send messages in the middle of a commit.
            Command::Agents(_)
            | Command::Whoami(_)
            | Command::Inbox(_)
            | Command::Acks(_)
            | Command::Dashboard(_)
            | Command::Mcp(_)
            | Command::Hooks(_)
            | Command::Who(_)
            | Command::Locks(_)
            | Command::Guard(_)
            | Command::Doctor(_)
            | Command::Config(_)
            | Command::Store(_)
            | Command::FindAgent(_)
            | Command::Learning(_)
            | Command::ResolveConflict(_)
            | Command::Completions(_)
            | Command::Reload(_)
            | Command::Version
            | Command::Help(_)
            | Command::DemoAgent(_)
            | Command::NotifyEvent(_) => SideEffects::None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    /// The names of the commands listed under "Task coordination".
    const A2A: [&str; 8] = [
        "cards",
        "tasks",
        "delegate",
        "find-agent",
        "context",
        "memory",
        "learning",
        "resolve-conflict",
    ];

    #[test]
    fn the_task_coordination_section_matches_the_commands() {
        let cli = Cli::command();
        for name in A2A {
            let cmd = cli.find_subcommand(name).expect(name);
            assert!(cmd.is_hide_set(), "{name} is listed in the section instead");
            let about = cmd.get_about().expect("about").to_string();
            let line = format!("  {name:<16}  {about}\n");
            assert!(AFTER_HELP.contains(&line), "{line:?}");
        }
        let section = AFTER_HELP.split("\n\n").next().expect("section");
        assert_eq!(section.lines().count(), A2A.len() + 1);
    }
}
