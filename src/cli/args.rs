//! What the user can type: the command list, with the global options
//! (`global_args.rs`) flattened into it, and beside it what running each
//! command involves (`Command::properties`).

use clap::{Parser, Subcommand};

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
use super::{build_info, completions, help, reload};
use crate::cli::global_args::GlobalArgs;
use crate::cli::lazy::Lazy;

// `swarm --help`: the commands by family, the first session's first, each
// family's main commands with their description and the rest by name, in
// under 50 lines. clap gives subcommands only one heading, so the list is
// written here; a test keeps each description equal to the command's own
// and every command listed once.
const ROOT_HELP: &str = "\
{about-with-newline}
{usage-heading} {usage}

Start and stop:
  init       Set up this project: config file, hooks, .gitignore (each asked first), next steps
  launch     Open a tmux session with N agent panes
  agents     List the registered agents and what each pane shows now (idle, busy, ...)
  down       Stop a session opened by `swarm launch` and release its agents' locks
  resume, sessions, discover, whoami

Talk:
  msg        Send a message to one agent
  inbox      Show the messages sent to an agent, or to you outside tmux
  broadcast  Send a message to every other active agent
  ack, acks, thread, search, subscribe, unsubscribe, topics, onboard, redeliver

Locks:
  lock       Lock files, directories or glob patterns for this agent (all or none)
  unlock, who, locks, guard

See and answer, with limits:
  monitor    Live view of agents, locks, pending ACKs and messages
  answer     Answer the dialog open in an agent's pane (yes, no, a number)
  peek, feed, dashboard, usage, budget, limits

Worktrees, with review and the merge queue:
  changes    Show what each agent's worktree branch holds, and files two agents both changed
  merge, review, queue

Tasks (the Python tool's agent-to-agent commands):
  tasks      Tasks with a status workflow and a history
  cards, delegate, find-agent, context, memory, learning, resolve-conflict, coord

Set up and check, with the watcher:
  doctor     Check tmux, the project root, the config and the state files
  watcher    The project's watcher on this host: status, start, stop, restart, run
  config, hooks, mcp, store, watch, completions, reload, version, help

`swarm help COMMAND` shows a command's options and examples; `swarm help options` the
options every command takes (--root, --tmux-socket, --color; -h, --help, -V, --version).
Exit codes (`swarm help exit-codes`): 0 ok, 1 error, 2 usage, 3 lock held by another
agent, 4 not found, 5 tmux unavailable, 6 rate limited, 7 message not delivered,
8 shared store unavailable. The Python tool's command names work too (`swarm help aliases`).
";

/// Run several AI coding agents side by side in tmux on one project.
#[derive(Debug, Parser)]
#[command(
    name = "swarm",
    version = build_info::VERSION,
    about,
    // Opens with `about` (the package description, what `-h` shows), so
    // that `-h` and `--help` begin alike.
    long_about = concat!(
        env!("CARGO_PKG_DESCRIPTION"),
        ". swarm finds the agent panes, gives each a stable id, and lets them \
         message each other and lock files."
    ),
    help_template = ROOT_HELP,
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

/// The commands.
#[derive(Debug, Subcommand)]
pub(super) enum Command {
    /// Find this project's agent panes and update the registry
    #[command(alias = "discover-agents")]
    Discover(Lazy<discover::DiscoverArgs>),
    /// List the registered agents and what each pane shows now (idle, busy, ...)
    #[command(alias = "list-agents")]
    Agents(Lazy<agents::AgentsArgs>),
    /// Show which agent this pane is
    Whoami(Lazy<whoami::WhoamiArgs>),
    /// Send a message to one agent
    #[command(alias = "send-message")]
    Msg(Lazy<msg::MsgArgs>),
    /// Send a message to every other active agent
    #[command(alias = "broadcast-message")]
    Broadcast(Lazy<broadcast::BroadcastArgs>),
    /// Show the messages sent to an agent, or to you outside tmux
    #[command(alias = "check-messages")]
    Inbox(Lazy<inbox::InboxArgs>),
    /// Show the whole conversation a message belongs to, oldest first
    Thread(Lazy<thread::ThreadArgs>),
    /// Search every kept message, best match first
    Search(Lazy<search::SearchArgs>),
    /// Follow a topic: `swarm broadcast --topic` reaches its subscribers
    Subscribe(Lazy<topics::SubscribeArgs>),
    /// Stop following a topic
    Unsubscribe(Lazy<topics::SubscribeArgs>),
    /// List the topics and who follows each
    Topics(Lazy<topics::TopicsArgs>),
    /// Acknowledge a message that asked for it
    #[command(alias = "acknowledge-message")]
    Ack(Lazy<ack::AckArgs>),
    /// List messages waiting for an acknowledgement
    Acks(Lazy<acks::AcksArgs>),
    /// Discover the agents and tell each how to work in this swarm
    Onboard(Lazy<onboard::OnboardArgs>),
    /// Try again to deliver queued messages into their panes
    Redeliver(Lazy<redeliver::RedeliverArgs>),
    /// Run the project's watcher in the foreground (`swarm watcher run`)
    Watch(Lazy<watch::WatchArgs>),
    /// The project's watcher on this host: status, start, stop, restart, run
    Watcher(Lazy<watcher::WatcherArgs>),
    /// The activity feed: who needs you, and what happened
    Feed(Lazy<feed::FeedArgs>),
    /// Answer the dialog open in an agent's pane (yes, no, a number)
    Answer(Lazy<answer::AnswerArgs>),
    /// Show an agent's screen as plain text
    Peek(Lazy<peek::PeekArgs>),
    /// What each agent has spent: tokens by kind and model, cost, budget
    Usage(Lazy<usage::UsageArgs>),
    /// Start a new budget period for an agent
    #[command(arg_required_else_help = true)]
    Budget(Lazy<budget::BudgetArgs>),
    /// The agents at their vendor's usage limit, and `clear` to end one
    Limits(Lazy<limits::LimitsArgs>),
    /// Live view of agents, locks, pending ACKs and messages
    #[command(alias = "start-monitoring")]
    Monitor(Lazy<monitor::MonitorArgs>),
    /// Serve a live web view of the swarm (and its JSON API)
    #[command(alias = "start-dashboard")]
    Dashboard(Lazy<dashboard::DashboardArgs>),
    /// Serve swarm to an agent as MCP tools; install it into the agents
    Mcp(Lazy<mcp::McpArgs>),
    /// Install or remove swarm's hooks in the agents' own settings
    Hooks(Lazy<hooks::HooksArgs>),
    /// What every hook swarm installs runs: reads the agent's event as
    /// JSON on stdin (always exits 0)
    #[command(hide = true)]
    Hook(hook::HookArgs),
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
    /// Stop a session opened by `swarm launch` and release its agents' locks
    Down(Lazy<down::DownArgs>),
    /// Bring back a recorded session whose agents are gone: same ids, same conversations
    Resume(Lazy<resume::ResumeArgs>),
    /// List the sessions `launch` recorded and whether each runs; forget one
    Sessions(Lazy<sessions::SessionsArgs>),
    /// Show what each agent's worktree branch holds, and files two agents both changed
    Changes(Lazy<changes::ChangesArgs>),
    /// Merge an agent's worktree branch, only when it merges cleanly
    Merge(Lazy<merge::MergeArgs>),
    /// Review rounds on an agent's worktree branch: comment, send, list, resolve, request
    #[command(arg_required_else_help = true)]
    Review(Lazy<review::ReviewArgs>),
    /// Show the merge queue in the order the next run takes it, and why
    Queue(Lazy<queue::QueueArgs>),
    /// Set up this project: config file, hooks, .gitignore (each asked first), next steps
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
    /// What a Codex pane `swarm launch --agent codex` opens runs: Codex's
    /// app server and its TUI against it
    #[command(hide = true, name = swarm_core::CODEX_PANE_COMMAND)]
    CodexPane(codex_pane::CodexPaneArgs),
    /// Deliver one notification read as JSON on stdin (started detached
    /// by short commands)
    #[command(hide = true, name = swarm_core::NOTIFY_EVENT_COMMAND)]
    NotifyEvent(notify_event::NotifyEventArgs),
}

/// What running a command involves besides its own work; `app.rs` takes
/// all three decisions from here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct CommandProperties {
    /// Whether it runs in a project: the root found and the context made
    /// before it starts. One that does not runs even where no project can
    /// be set up.
    pub project: bool,
    /// How the config is checked before it starts.
    pub config: ConfigCheck,
    /// Whether the housekeeping runs after it.
    pub housekeeping: Housekeeping,
}

/// How a command checks the config before it starts. The rule (docs/guide/configuration.md): a command that changes the swarm's shared state
/// (messages, locks, the registry, pending ACKs, task records), or
/// installs or serves something that will, stops on a problem, because
/// the config decides where that state lives and how it changes. Every
/// other command warns and goes on with the defaults: those that only
/// read, those that set up files of the project rather than the swarm's
/// state (the git guard), and the three you need to look at and repair a
/// swarm whatever its config says (`down`, `monitor`, `dashboard`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ConfigCheck {
    /// A problem stops it: it changes the swarm's state, or serves others,
    /// and must not do so with settings nobody meant.
    Strict,
    /// A problem is warned about and it goes on with the defaults.
    WarnAndUseDefaults,
    /// None: it reports the config's problems itself (`init`, `doctor`,
    /// `config init|validate|edit`), or runs without a project.
    Unchecked,
}

/// The swarm's housekeeping: due ACK retries and escalations, and held
/// messages whose pane is safe again, all of which type into the
/// recipients' panes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Housekeeping {
    /// After its own work: it changes the swarm's state, so nobody has to
    /// remember a retry loop.
    After,
    /// It runs the housekeeping itself, continuously, in its own loop.
    OwnLoop,
    /// Never: it never types into a pane and never changes state it was
    /// not asked to change.
    Never,
}

impl CommandProperties {
    /// A command that runs in a project.
    const fn in_project(config: ConfigCheck, housekeeping: Housekeeping) -> CommandProperties {
        CommandProperties {
            project: true,
            config,
            housekeeping,
        }
    }

    /// A command that needs no project: nothing is checked before it and
    /// nothing runs after it.
    const WITHOUT_PROJECT: CommandProperties = CommandProperties {
        project: false,
        config: ConfigCheck::Unchecked,
        housekeeping: Housekeeping::Never,
    };
}

impl Command {
    /// Each command's properties, one line each, beside the command list
    /// so that a reader sees which commands may type into panes as a side
    /// effect and which stop on a config problem (the rule is
    /// `ConfigCheck`'s). The ones that change the swarm's state run the
    /// housekeeping; the read-only ones (`agents`, `whoami`, `inbox`
    /// without `--new`, `acks`, `who`, `locks`, the git guard) never run
    /// it.
    pub(super) fn properties(&self) -> CommandProperties {
        use ConfigCheck::{Strict, Unchecked, WarnAndUseDefaults as Warn};
        use Housekeeping::{After, Never, OwnLoop};
        let in_project = CommandProperties::in_project;
        match self {
            Command::Discover(_) => in_project(Strict, After),
            Command::Agents(_) => in_project(Warn, Never),
            Command::Whoami(_) => in_project(Warn, Never),
            Command::Msg(_) => in_project(Strict, After),
            Command::Broadcast(_) => in_project(Strict, After),
            // Reading the new messages moves the read position.
            Command::Inbox(args) if args.new => in_project(Warn, After),
            Command::Inbox(_) => in_project(Warn, Never),
            // Both bring the message index (a cache) up to date, nothing else.
            Command::Thread(_) => in_project(Warn, Never),
            Command::Search(_) => in_project(Warn, Never),
            Command::Subscribe(_) | Command::Unsubscribe(_) => in_project(Strict, After),
            Command::Topics(_) => in_project(Warn, Never),
            Command::Ack(_) => in_project(Strict, After),
            Command::Acks(_) => in_project(Warn, Never),
            Command::Onboard(_) => in_project(Strict, After),
            Command::Redeliver(_) => in_project(Strict, After),
            Command::Watch(_) => in_project(Strict, OwnLoop),
            Command::Watcher(args) if args.run_args().is_some() => in_project(Strict, OwnLoop),
            // Showing, starting and stopping it must work with a config
            // that has a problem: that is when a person looks at it.
            Command::Watcher(_) => in_project(Warn, Never),
            Command::Feed(_) => in_project(Warn, Never),
            // Answering types into a pane: it changes the swarm's state.
            Command::Answer(_) => in_project(Strict, After),
            Command::Peek(_) => in_project(Warn, Never),
            // Reading usage records changes nothing of the swarm's state.
            Command::Usage(_) => in_project(Warn, Never),
            Command::Budget(_) => in_project(Strict, Never),
            Command::Limits(_) => in_project(Warn, Never),
            // The monitor, the dashboard and `down` are how a swarm is
            // looked at and repaired: a config problem must not stop them.
            Command::Monitor(_) => in_project(Warn, OwnLoop),
            // The dashboard and the MCP server do only what they are asked.
            Command::Dashboard(_) => in_project(Warn, Never),
            Command::Mcp(_) => in_project(Strict, Never),
            Command::Hooks(_) => in_project(Strict, Never),
            Command::Lock(_) => in_project(Strict, After),
            Command::Unlock(_) => in_project(Strict, After),
            Command::Who(_) => in_project(Warn, Never),
            Command::Locks(args) if args.clean => in_project(Strict, After),
            Command::Locks(_) => in_project(Warn, Never),
            // An edit must be allowed even where no project can be set up.
            Command::Guard(args) if matches!(args.command, guard::GuardCommand::CheckEdit) => {
                CommandProperties::WITHOUT_PROJECT
            }
            // The git guard must not block work over the config, nor send
            // messages in the middle of a commit.
            Command::Guard(_) => in_project(Warn, Never),
            Command::AcquireFileLock(_) => in_project(Strict, After),
            Command::CleanupStaleLocks => in_project(Strict, After),
            Command::Launch(_) => in_project(Strict, After),
            Command::Down(_) => in_project(Warn, After),
            Command::Resume(_) => in_project(Strict, After),
            Command::Sessions(args) if args.forgets() => in_project(Strict, Never),
            Command::Sessions(_) => in_project(Warn, Never),
            // It tells the agents of new overlaps: a message, so the
            // config must be right.
            Command::Changes(args) if args.only_reads() => in_project(Warn, Never),
            Command::Changes(_) => in_project(Strict, After),
            // It changes the repository, not the swarm's state, and sends
            // nothing.
            Command::Merge(args) if args.queues() => in_project(Strict, After),
            Command::Merge(_) => in_project(Warn, Never),
            // Listing re-anchors the comments and sends nothing.
            Command::Review(args) if args.only_reads() => in_project(Warn, Never),
            // Comments are shared state, and a round or a request is a
            // message.
            Command::Review(_) => in_project(Strict, After),
            Command::Queue(args) if args.changes() => in_project(Strict, Never),
            Command::Queue(_) => in_project(Warn, Never),
            Command::Init(_) => in_project(Unchecked, After),
            Command::Doctor(_) => in_project(Unchecked, Never),
            Command::Config(args) if args.shows() => in_project(Warn, Never),
            Command::Config(_) => in_project(Unchecked, Never),
            Command::Store(_) => in_project(Strict, Never),
            Command::Coord(args) if args.only_reads() => in_project(Warn, After),
            Command::Coord(_) => in_project(Strict, After),
            Command::Cards(args) if args.only_reads() => in_project(Warn, After),
            Command::Cards(_) => in_project(Strict, After),
            Command::Tasks(args) if args.only_reads() => in_project(Warn, After),
            Command::Tasks(_) => in_project(Strict, After),
            Command::Delegate(_) => in_project(Strict, After),
            Command::FindAgent(_) => in_project(Warn, Never),
            Command::SharedContext(args) if args.only_reads() => in_project(Warn, After),
            Command::SharedContext(_) => in_project(Strict, After),
            Command::Memory(args) if args.only_reads() => in_project(Warn, After),
            Command::Memory(_) => in_project(Strict, After),
            Command::Learning(_) => in_project(Warn, Never),
            Command::ResolveConflict(_) => in_project(Strict, Never),
            // Started by a short command to deliver one notification.
            Command::NotifyEvent(_) => in_project(Warn, Never),
            Command::Completions(_)
            | Command::Reload(_)
            | Command::Version
            | Command::Help(_)
            | Command::DemoAgent(_)
            | Command::CodexPane(_) => CommandProperties::WITHOUT_PROJECT,
            // A hook must run (and let its agent go on) even where no
            // project can be set up; it finds its project itself.
            Command::Hook(_) => CommandProperties::WITHOUT_PROJECT,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    /// The command names of the families in `ROOT_HELP`, in order, and
    /// whether each is shown with its description.
    fn listed() -> Vec<(String, bool)> {
        ROOT_HELP
            .lines()
            .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
            .flat_map(|l| {
                let l = l.trim();
                match l.split_once("  ") {
                    Some((name, _)) => vec![(name.to_owned(), true)],
                    None => l.split(", ").map(|n| (n.to_owned(), false)).collect(),
                }
            })
            .collect()
    }

    #[test]
    fn the_families_list_every_command_once_with_its_own_description() {
        let cli = Cli::command();
        let listed = listed();
        let mut names: Vec<&str> = listed.iter().map(|(n, _)| n.as_str()).collect();
        for (name, described) in &listed {
            let cmd = cli
                .find_subcommand(name)
                .unwrap_or_else(|| panic!("{name}"));
            assert_eq!(cmd.get_name(), name, "{name} is an alias");
            if *described {
                let about = cmd.get_about().expect("about").to_string();
                let line = format!("  {name:<9}  {about}\n");
                assert!(ROOT_HELP.contains(&line), "{line:?}");
            }
        }
        let every: Vec<&str> = cli
            .get_subcommands()
            .filter(|c| !c.is_hide_set() || HIDDEN_BUT_LISTED.contains(&c.get_name()))
            .map(|c| c.get_name())
            .collect();
        for name in &every {
            assert!(names.contains(name), "{name} is not listed");
        }
        names.sort_unstable();
        let count = names.len();
        names.dedup();
        assert_eq!(names.len(), count, "a command is listed twice");
    }

    #[test]
    fn swarm_help_fits_in_50_lines() {
        let text = Cli::command().render_long_help().to_string();
        assert!(text.lines().count() <= 50, "{text}");
        assert!(text.starts_with("Run several AI coding agents"), "{text}");
    }

    /// The commands hidden from clap (the agent-to-agent ones, whose
    /// help and man pages stay) that the families list all the same.
    const HIDDEN_BUT_LISTED: [&str; 8] = [
        "cards",
        "tasks",
        "delegate",
        "find-agent",
        "context",
        "memory",
        "learning",
        "resolve-conflict",
    ];
}
