//! `swarm help [COMMAND... | aliases | exit-codes]`: the help of swarm or
//! of a command, the Python tool's command names and what they map to, or
//! the exit-code table.

use clap::{Args, CommandFactory};

use crate::error::{Error, Result};
use crate::support::exit_code::ExitCode;

use crate::cli::args::Cli;
use crate::cli::output::Output;

/// Arguments of `swarm help`.
#[derive(Debug, Args)]
pub(super) struct HelpArgs {
    /// A command (`lock`, `config init`), `aliases` or `exit-codes`
    #[arg(value_name = "TOPIC")]
    topic: Vec<String>,
}

/// The Python tool's commands, with their original argument shape, and
/// what runs them in swarm.
pub(super) const ALIASES: [(&str, &str); 27] = [
    (
        "discover-agents [--watch] [--interval N] [--json] [--stale-threshold N]",
        "swarm discover",
    ),
    ("list-agents [--json]", "swarm agents"),
    (
        "send-message RECIPIENT TYPE CONTENT [--sender-id ID] [--ack] [--json]",
        "swarm msg",
    ),
    (
        "broadcast-message TYPE CONTENT [--sender-id ID] [--include-self] [-v] [--json]",
        "swarm broadcast",
    ),
    (
        "check-messages [--agent-id ID] [--new-only] [--limit N] [-q]",
        "swarm inbox",
    ),
    ("acknowledge-message MSG_ID", "swarm ack"),
    (
        "acquire-file-lock FILEPATH [REASON] [--agent-id ID]",
        "swarm lock",
    ),
    ("release-file-lock FILEPATH [--agent-id ID]", "swarm unlock"),
    ("who-has-lock FILEPATH [--json]", "swarm who"),
    ("list-all-locks [--include-stale] [--json]", "swarm locks"),
    ("cleanup-stale-locks", "swarm locks --clean"),
    (
        "start-monitoring [--filter-type TYPE] [--filter-agent ID] [--no-tmux]",
        "swarm monitor",
    ),
    (
        "start-dashboard [--port N] [--host H] [--no-browser] [--reload]",
        "swarm dashboard",
    ),
    ("onboard", "swarm onboard"),
    ("whoami", "swarm whoami"),
    ("init [-y]", "swarm init"),
    ("config init|show|validate|edit", "swarm config"),
    ("reload [--source local|github]", "swarm reload"),
    (
        "cards list|get AGENT_ID|register|update [--agent-id ID] [--json]",
        "swarm cards",
    ),
    (
        "tasks list|get TASK_ID|create OBJECTIVE|update TASK_ID [--status S]",
        "swarm tasks",
    ),
    ("delegate TASK_ID", "swarm delegate"),
    (
        "find-agent --skill S | --objective TEXT [--json]",
        "swarm find-agent",
    ),
    (
        "context list|get ID|create ID SUMMARY|add-decision ID DECISION",
        "swarm context",
    ),
    ("memory get|clear [--agent-id ID]", "swarm memory"),
    ("learning stats [--agent-id ID] [--json]", "swarm learning"),
    (
        "resolve-conflict FILEPATH [--requester ID]",
        "swarm resolve-conflict",
    ),
    ("help, version", "swarm help, swarm version"),
];

/// Prints the help asked for.
pub(super) fn run(out: &Output, args: &HelpArgs) -> Result<ExitCode> {
    let words: Vec<&str> = args.topic.iter().map(String::as_str).collect();
    let text = match words.as_slice() {
        ["aliases"] => aliases(),
        ["exit-codes"] => exit_codes(),
        path => {
            let mut cmd = Cli::command();
            // Building fills in each subcommand's full name for its usage
            // line (`swarm config init`).
            cmd.build();
            let mut current = &mut cmd;
            for word in path {
                current = current.find_subcommand_mut(word).ok_or_else(|| {
                    Error::Usage(format!(
                        "no command {:?}; see `swarm help` for the list, `swarm help aliases` for the Python tool's names",
                        path.join(" ")
                    ))
                })?;
            }
            current.render_long_help().to_string()
        }
    };
    out.print(&text)?;
    Ok(ExitCode::Success)
}

fn aliases() -> String {
    let width = ALIASES.iter().map(|(p, _)| p.len()).max().unwrap_or(0);
    let mut s = String::from(
        "The Python tool's command names run the swarm command on the right, with their\n\
         original arguments and flags. Names that differ from swarm's are hidden from\n\
         `swarm --help`; the agent-to-agent commands keep their names and are listed\n\
         there under \"Task coordination\".\n\n",
    );
    for (python, ours) in ALIASES {
        s.push_str(&format!("  {python:<width$}  {ours}\n"));
    }
    s
}

fn exit_codes() -> String {
    let mut s = String::from("Exit codes:\n");
    for (code, meaning) in ExitCode::ALL {
        s.push_str(&format!("  {}  {meaning}\n", code.code()));
    }
    s
}
