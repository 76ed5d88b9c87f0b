//! `swarm help [COMMAND... | options | aliases | exit-codes]`: the help of
//! swarm or of a command (its own options, the options every command takes
//! left to `swarm help options`), the Python tool's command names and what
//! they map to, or the exit-code table.

use std::path::{Path, PathBuf};

use clap::{Args, Command};

use swarm_core::{Error, ExitCode, Result};

use crate::cli::output::Output;

/// Arguments of `swarm help`.
#[derive(Debug, Args)]
#[command(
    after_help = "Man pages: `swarm help --man ~/.local/share/man/man1` writes swarm.1 and \
                        one page per command (swarm-msg.1, swarm-tasks-create.1, ...); \
                        then `man swarm-msg`."
)]
pub(super) struct HelpArgs {
    /// A command (`lock`, `config init`), `options` (those every command
    /// takes), `aliases` or `exit-codes`
    #[arg(value_name = "TOPIC", conflicts_with = "man")]
    topic: Vec<String>,

    /// Write man pages for swarm and every command into DIR (created if
    /// missing; existing pages are replaced) and list them
    #[arg(long, value_name = "DIR")]
    man: Option<PathBuf>,
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

/// Prints the help asked for; `swarm` builds the definition of the whole
/// command line (only when a topic or the man pages need it).
pub(super) fn run(out: &Output, args: &HelpArgs, swarm: fn() -> Command) -> Result<ExitCode> {
    if let Some(dir) = &args.man {
        for page in write_man_pages(dir, swarm())? {
            out.print(&format!("{}\n", page.display()))?;
        }
        return Ok(ExitCode::Success);
    }
    let words: Vec<&str> = args.topic.iter().map(String::as_str).collect();
    let text = match words.as_slice() {
        ["aliases"] => aliases(),
        ["exit-codes"] => exit_codes(),
        ["options"] => global_options(swarm()),
        path => {
            let mut cmd = swarm();
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
            if path.is_empty() {
                current.render_long_help().to_string()
            } else {
                let own = without_global_options(current.clone()).render_long_help();
                format!("{own}\n{GLOBAL_POINTER}\n")
            }
        }
    };
    out.print(&text)?;
    Ok(ExitCode::Success)
}

/// The line under a command's own help that stands for the options every
/// command takes.
const GLOBAL_POINTER: &str =
    "Options every command takes (--root, --tmux-socket, --color): `swarm help options`";

/// `cmd` (built) with the options every command takes hidden: `swarm help
/// X` shows X's own, and points to `swarm help options` for the rest.
fn without_global_options(cmd: Command) -> Command {
    let global: Vec<String> = cmd
        .get_arguments()
        .filter(|a| a.is_global_set())
        .map(|a| a.get_id().to_string())
        .collect();
    global
        .iter()
        .fold(cmd, |cmd, id| cmd.mut_arg(id, |a| a.hide(true)))
}

/// The options every command takes, under their heading.
fn global_options(mut swarm: Command) -> String {
    swarm.build();
    let global: Vec<clap::Arg> = swarm
        .get_arguments()
        .filter(|a| a.is_global_set())
        .cloned()
        .collect();
    let mut page = Command::new("swarm")
        .about("Options every command takes, before or after the command name.")
        .disable_help_flag(true)
        .disable_version_flag(true)
        .help_template("{about-with-newline}\n{all-args}")
        .args(global);
    page.render_long_help().to_string()
}

/// Writes `swarm.1` and `swarm-<command>[-<sub>].1` for every command of
/// `cmd` into `dir`, and returns the paths written.
fn write_man_pages(dir: &Path, mut cmd: Command) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir).map_err(|source| Error::Io {
        what: format!("create {}", dir.display()),
        source,
    })?;
    // Building spreads the global options into every command, so each
    // page lists them.
    cmd.build();
    let mut written = Vec::new();
    write_page(dir, cmd, "swarm", &mut written)?;
    Ok(written)
}

fn write_page(dir: &Path, cmd: Command, name: &str, written: &mut Vec<PathBuf>) -> Result<()> {
    let subcommands: Vec<Command> = cmd
        .get_subcommands()
        .filter(|s| s.get_name() != "help")
        .cloned()
        .collect();
    let page = cmd.name(name.to_owned());
    let mut text = Vec::new();
    clap_mangen::Man::new(page)
        .render(&mut text)
        .map_err(|source| Error::Io {
            what: format!("render the man page of {name}"),
            source,
        })?;
    let path = dir.join(format!("{name}.1"));
    std::fs::write(&path, text).map_err(|source| Error::Io {
        what: format!("write {}", path.display()),
        source,
    })?;
    written.push(path);
    for sub in subcommands {
        let sub_name = format!("{name}-{}", sub.get_name());
        write_page(dir, sub, &sub_name, written)?;
    }
    Ok(())
}

fn aliases() -> String {
    let width = ALIASES.iter().map(|(p, _)| p.len()).max().unwrap_or(0);
    let mut s = String::from(
        "The Python tool's command names run the swarm command on the right, with their\n\
         original arguments and flags. Names that differ from swarm's are hidden from\n\
         `swarm --help`; the agent-to-agent commands keep their names and are listed\n\
         there under \"Tasks\".\n\n",
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
