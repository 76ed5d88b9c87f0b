//! Which processes are coding agents, and what runs in a pane's foreground.
//! The facts come from the process seam (`agents::process`); the rules
//! for reading them are here, the same for every backend.

use crate::agents::process::{ProcessError, ProcessView, Processes, TmuxSays};
use crate::tmux::{PaneId, Tmux};

pub(crate) use crate::config::DEFAULT_AGENT_COMMANDS;
use crate::config::shells::is_shell;

/// The name discovery reports for swarm's own demo agent.
pub const DEMO_AGENT: &str = "swarm-demo";

/// Interpreters whose script, not the interpreter, names the program
/// (Claude Code, Gemini CLI and Codex are often `node <script>`).
const INTERPRETERS: [&str; 7] = ["node", "nodejs", "bun", "deno", "python", "python3", "ruby"];

/// How many processes per pane discovery looks at before giving up.
pub(crate) const MAX_PROCESSES_PER_PANE: usize = 256;

/// Decides which command lines are agents, asking the process seam for
/// the facts.
#[derive(Clone, Debug)]
pub struct AgentMatcher {
    commands: Vec<String>,
    processes: Processes,
}

/// The agent found in a pane.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct AgentProcess {
    /// Its pid.
    pub pid: u32,
    /// Which agent command it is (`claude`, `codex`, `swarm-demo`, ...).
    pub command: String,
}

impl Default for AgentMatcher {
    fn default() -> Self {
        AgentMatcher::new(
            DEFAULT_AGENT_COMMANDS.iter().map(|s| s.to_string()),
            Processes::default(),
        )
    }
}

impl AgentMatcher {
    /// The recogniser a project's config asks for: its agent commands, the
    /// programs its own profiles name, and the process backend
    /// `SWARM_PROCESS_BACKEND` chooses.
    pub fn for_config(c: &crate::config::Config) -> Result<AgentMatcher, ProcessError> {
        let extra = c
            .profiles
            .values()
            .flat_map(|p| p.commands.iter().flatten().cloned());
        Ok(AgentMatcher::new(
            c.discovery.agent_commands.iter().cloned().chain(extra),
            Processes::from_env()?,
        ))
    }

    /// A matcher for these command names (compared case-insensitively)
    /// that learns about processes through `processes`.
    pub(crate) fn new(
        commands: impl IntoIterator<Item = String>,
        processes: Processes,
    ) -> AgentMatcher {
        // The config refuses a shell as an agent command; this keeps one
        // out from any other source too, since a shell taken for an agent
        // would have messages typed into it as commands.
        let mut commands: Vec<String> = commands
            .into_iter()
            .map(|c| c.to_lowercase())
            .filter(|c| !is_shell(c))
            .collect();
        commands.sort();
        commands.dedup();
        AgentMatcher {
            commands,
            processes,
        }
    }

    /// The process seam this matcher asks.
    pub(crate) fn processes(&self) -> &Processes {
        &self.processes
    }

    /// The agent command this argument vector runs, if any: its program
    /// name, or for an interpreter its script's name; `swarm demo-agent`
    /// is always an agent.
    pub(crate) fn identify(&self, argv: &[String]) -> Option<String> {
        let program = program_name(argv.first()?);
        if program.starts_with("swarm") && argv.get(1).is_some_and(|a| a == "demo-agent") {
            return Some(DEMO_AGENT.to_owned());
        }
        // A Codex app server runs the agent's own program, but it is not
        // the agent: its TUI beside it is.
        if is_codex_app_server(argv) {
            return None;
        }
        if self.known(&program) {
            return Some(program);
        }
        if !is_interpreter(&program) {
            return None;
        }
        let script = argv[1..].iter().find(|a| !a.starts_with('-'))?;
        let name = program_name(script);
        let stem = ["js", "mjs", "cjs", "py"]
            .iter()
            .find_map(|ext| name.strip_suffix(&format!(".{ext}")))
            .unwrap_or(&name)
            .to_owned();
        if self.known(&stem) {
            return Some(stem);
        }
        // npm installs Claude Code as .../@anthropic-ai/claude-code/cli.js.
        script
            .split('/')
            .any(|part| part.eq_ignore_ascii_case("claude-code"))
            .then(|| "claude-code".to_owned())
    }

    fn known(&self, name: &str) -> bool {
        self.commands.iter().any(|c| c == name)
    }

    /// The first agent among a pane's processes (the root first, then its
    /// descendants breadth first, at most `MAX_PROCESSES_PER_PANE`), as
    /// `view` sees them. Stops at the first match, so a pane whose root
    /// process is the agent costs one look.
    pub(crate) fn find_in_pane(
        &self,
        view: &impl ProcessView,
        pane_pid: u32,
    ) -> Option<AgentProcess> {
        let mut queue = std::collections::VecDeque::from([pane_pid]);
        let mut seen = 0;
        while let Some(pid) = queue.pop_front() {
            if let Some(command) = view.argv(pid).and_then(|argv| self.identify(&argv)) {
                return Some(AgentProcess { pid, command });
            }
            seen += 1;
            if seen + queue.len() < MAX_PROCESSES_PER_PANE {
                let room = MAX_PROCESSES_PER_PANE - seen - queue.len();
                queue.extend(view.children(pid).into_iter().take(room));
            }
        }
        None
    }
}

/// True for a command line of Codex CLI's own program (the npm wrapper
/// `node .../codex ...` too) in its first two words before `at`.
pub(crate) fn runs_codex(argv: &[String], at: usize) -> bool {
    argv[..at.min(argv.len())].iter().take(2).any(|a| {
        let base = a.rsplit('/').next().unwrap_or(a);
        base == "codex" || base == "codex.js"
    })
}

/// True for the command line of a Codex app server (`codex app-server
/// ...`): it runs the agent's program, but it is not the agent a person
/// talks to (its TUI beside it is).
pub(crate) fn is_codex_app_server(argv: &[String]) -> bool {
    argv.iter()
        .take(3)
        .position(|a| a == "app-server")
        .is_some_and(|at| runs_codex(argv, at))
}

/// Lower-cased base name of a program path; a login shell's leading `-`
/// (`-bash`) is dropped.
fn program_name(arg0: &str) -> String {
    let base = arg0.rsplit('/').next().unwrap_or(arg0);
    base.trim_start_matches('-').to_lowercase()
}

fn is_interpreter(name: &str) -> bool {
    INTERPRETERS.contains(&name)
        || name
            .strip_prefix("python3.")
            .is_some_and(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()))
}

/// What kind of program holds a pane's terminal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ForegroundKind {
    /// A coding agent (named by its command): text typed is a prompt.
    Agent(String),
    /// An interactive shell: text typed would run as commands.
    Shell,
    /// Something else (an editor, a pager, a build): not ours to type into.
    Other,
}

/// What holds a pane's terminal right now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Foreground {
    /// The program name of the foreground process group's leader.
    pub program: String,
    /// Agent, shell or other.
    pub kind: ForegroundKind,
}

impl AgentMatcher {
    /// What holds the terminal of `pane`, whose root process is
    /// `pane_pid`; `Ok(None)` when the pane or its process is gone. tmux
    /// is asked first where the backend wants it: a shell it names is
    /// final (typing there is refused, which is safe even if tmux were
    /// wrong), anything else is decided from the processes themselves,
    /// since tmux sees only a name (`node` for most agents) and falls back
    /// to the pane's start command when it cannot look.
    pub(crate) fn pane_foreground(
        &self,
        tmux: &Tmux,
        pane: &PaneId,
        pane_pid: u32,
    ) -> Result<Option<Foreground>, ProcessError> {
        match self.processes.tmux_foreground(tmux, pane, pane_pid) {
            TmuxSays::Gone => return Ok(None),
            TmuxSays::Command(command) => {
                let program = program_name(&command);
                if is_shell(&program) {
                    return Ok(Some(Foreground {
                        program,
                        kind: ForegroundKind::Shell,
                    }));
                }
            }
            TmuxSays::Nothing => {}
        }
        let survey = self.processes.survey()?;
        Ok(self.foreground(&survey, pane_pid))
    }

    /// The foreground of the terminal whose session leader is `pane_pid`
    /// (its terminal's foreground process group), as `view` sees it;
    /// `None` when the pane's process is gone or unreadable. A wrapper in
    /// the foreground (`npx claude`, `env ... codex`) counts as the agent
    /// it runs in the same process group.
    pub(crate) fn foreground(&self, view: &impl ProcessView, pane_pid: u32) -> Option<Foreground> {
        let leader = view.info(pane_pid)?.tpgid?;
        let argv = view.argv(leader).unwrap_or_default();
        let program = argv
            .first()
            .map(|a| program_name(a))
            .filter(|p| !p.is_empty())
            .or_else(|| view.info(leader).map(|i| i.name))?;
        // A shell first: whatever else could be said of it, typing into
        // it runs commands.
        let kind = if is_shell(&program) {
            ForegroundKind::Shell
        } else if let Some(agent) = self.identify(&argv) {
            ForegroundKind::Agent(agent)
        } else {
            self.agent_in_group(view, leader)
                .map(ForegroundKind::Agent)
                .unwrap_or(ForegroundKind::Other)
        };
        Some(Foreground { program, kind })
    }

    /// An agent among the descendants of `leader` that belong to its
    /// process group.
    fn agent_in_group(&self, view: &impl ProcessView, leader: u32) -> Option<String> {
        let mut queue = std::collections::VecDeque::from(view.children(leader));
        let mut seen = 0;
        while let Some(pid) = queue.pop_front() {
            seen += 1;
            if seen > MAX_PROCESSES_PER_PANE {
                return None;
            }
            if view.info(pid).is_none_or(|i| i.pgrp != leader) {
                continue;
            }
            if let Some(agent) = view.argv(pid).and_then(|argv| self.identify(&argv)) {
                return Some(agent);
            }
            queue.extend(view.children(pid));
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::process::Backend;

    fn argv(s: &str) -> Vec<String> {
        s.split(' ').map(str::to_owned).collect()
    }

    #[test]
    fn recognises_agents_by_program_or_script() {
        let m = AgentMatcher::default();
        let id = |s: &str| m.identify(&argv(s));
        assert_eq!(id("claude"), Some("claude".into()));
        assert_eq!(id("/usr/local/bin/claude --resume"), Some("claude".into()));
        assert_eq!(id("node /usr/local/bin/claude"), Some("claude".into()));
        assert_eq!(
            id("node /usr/lib/node_modules/@anthropic-ai/claude-code/cli.js"),
            Some("claude-code".into())
        );
        assert_eq!(
            id("node --no-warnings /opt/codex/bin/codex.js"),
            Some("codex".into())
        );
        assert_eq!(
            id("python3.12 /home/u/.local/bin/aider --yes"),
            Some("aider".into())
        );
        assert_eq!(
            id("/x/target/debug/swarm demo-agent --record f"),
            Some(DEMO_AGENT.into())
        );
        assert_eq!(id("Gemini"), Some("gemini".into()));
    }

    #[test]
    fn ignores_lookalikes() {
        let m = AgentMatcher::default();
        let id = |s: &str| m.identify(&argv(s));
        assert_eq!(id("bash"), None);
        assert_eq!(id("-bash"), None);
        assert_eq!(id("node server.js"), None);
        assert_eq!(id("claudeswarm send-message agent-1 INFO hi"), None);
        assert_eq!(id("python3 -m claudeswarm.monitoring"), None);
        assert_eq!(id("vim claude"), None);
        assert_eq!(id("swarm agents"), None);
        assert_eq!(m.identify(&[]), None);
    }

    #[test]
    fn configured_commands_are_agents_too() {
        let m = AgentMatcher::new(["opencode".to_string()], Processes::default());
        assert_eq!(m.identify(&argv("opencode")), Some("opencode".into()));
        assert_eq!(m.identify(&argv("claude")), None);
    }

    /// A process table of our own: pid -> (argv, parent, group, the
    /// terminal's foreground group).
    struct Table(Vec<(u32, &'static str, u32, u32, u32)>);

    impl ProcessView for Table {
        fn info(&self, pid: u32) -> Option<crate::agents::process::ProcessInfo> {
            let (_, argv, ppid, pgrp, tpgid) = self.0.iter().find(|p| p.0 == pid)?;
            Some(crate::agents::process::ProcessInfo {
                ppid: *ppid,
                pgrp: *pgrp,
                tpgid: Some(*tpgid),
                name: program_name(argv.split(' ').next().unwrap_or_default()),
            })
        }
        fn argv(&self, pid: u32) -> Option<Vec<String>> {
            let (_, a, ..) = self.0.iter().find(|p| p.0 == pid)?;
            Some(argv(a))
        }
        fn children(&self, pid: u32) -> Vec<u32> {
            self.0.iter().filter(|p| p.2 == pid).map(|p| p.0).collect()
        }
        fn cwd(&self, _pid: u32) -> Option<std::path::PathBuf> {
            None
        }
    }

    /// A shell among the agent commands (from any source) is still a
    /// shell: never an agent, never typed into.
    #[test]
    fn a_shell_is_never_an_agent_whatever_the_commands_say() {
        let m = AgentMatcher::new(
            [
                "bash".to_string(),
                "-zsh".into(),
                "Fish".into(),
                "claude".into(),
            ],
            Processes::default(),
        );
        for shell in ["bash", "/bin/bash --norc", "-zsh", "fish", "zsh"] {
            assert_eq!(m.identify(&argv(shell)), None, "{shell}");
        }
        // A pane whose root is bash, alone in the foreground.
        let pane = Table(vec![(10, "bash", 1, 10, 10)]);
        assert_eq!(
            m.foreground(&pane, 10).map(|f| f.kind),
            Some(ForegroundKind::Shell)
        );
        assert_eq!(m.find_in_pane(&pane, 10), None);
        // Claude under that shell is still found and is the foreground.
        let pane = Table(vec![(10, "bash", 1, 10, 11), (11, "claude", 10, 11, 11)]);
        assert_eq!(
            m.foreground(&pane, 10).map(|f| f.kind),
            Some(ForegroundKind::Agent("claude".into()))
        );
    }

    /// Both backends: `sh -c` keeps a child `sleep`; a matcher for `sleep`
    /// must find it under the shell.
    #[test]
    fn finds_the_agent_among_descendants() {
        let mut child = std::process::Command::new("sh")
            .args(["-c", "sleep 5; true"])
            .spawn()
            .expect("spawn");
        let mut backends = vec![Backend::Portable];
        #[cfg(target_os = "linux")]
        backends.push(Backend::Proc);
        let mut found = Vec::new();
        for backend in backends {
            let processes = Processes::new(backend);
            let m = AgentMatcher::new(["sleep".to_string()], processes);
            let mut hit = None;
            for _ in 0..200 {
                hit = processes
                    .survey()
                    .ok()
                    .and_then(|s| m.find_in_pane(&s, child.id()));
                if hit.is_some() {
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            found.push((backend, hit.map(|a| a.command)));
        }
        let _ = child.kill();
        let _ = child.wait();
        for (backend, hit) in found {
            assert_eq!(hit, Some("sleep".into()), "{backend}");
        }
    }
}
