//! `launch` and `down`: a tmux session with N agent panes, each labelled
//! with its agent id, and its removal. With worktrees, the ids are taken
//! first, each agent's worktree is made under its id, and each pane starts
//! in its worktree already labelled with that id (docs/guide/worktrees.md).

use std::path::{Path, PathBuf};

use crate::agents::agent_matcher::AgentMatcher;
use crate::agents::discovery::{self, DiscoverOptions, Discovery};
use crate::agents::registry_store::RegistryStore;
use crate::domain::validate;
use crate::error::{Error, Result};
use crate::store::Paths;
use crate::tmux::{NewPaneLabel, PaneId, SessionSpec, Tmux, TmuxError};
use crate::worktrees::{self, Prepared, Repository};

/// Most agent panes one `launch` opens.
pub const MAX_AGENTS: u8 = 16;

/// Layouts `launch --layout` accepts (tmux's presets).
pub const LAYOUTS: [&str; 5] = [
    "tiled",
    "even-horizontal",
    "even-vertical",
    "main-horizontal",
    "main-vertical",
];

/// Size of the detached session; it follows the terminal once attached.
const SESSION_SIZE: (u16, u16) = (240, 64);

/// A checked launch request.
#[derive(Clone, Debug)]
pub struct LaunchPlan {
    /// The shell command each pane runs, one per agent pane (1..=16), in
    /// pane order.
    pub commands: Vec<String>,
    /// Session name (validated by `session_name`).
    pub session: String,
    /// One of `LAYOUTS`.
    pub layout: String,
    /// Replace an existing session of that name.
    pub force: bool,
    /// A command for a monitor pane beside the agents, if one is wanted.
    pub monitor: Option<String>,
    /// Each agent in a git worktree of its own, when set.
    pub worktrees: Option<WorktreesPlan>,
}

/// How the agents' worktrees are made.
#[derive(Clone, Debug)]
pub struct WorktreesPlan {
    /// A command run with `sh -c` in each new worktree before its agent
    /// starts (`launch.worktree_setup`).
    pub setup: Option<String>,
    /// Ports in each agent's block (`launch.ports_per_agent`).
    pub ports_per_agent: u16,
    /// What gives each worktree the agents' settings the project has
    /// before its agent starts (their hooks: `hooks::install`, which
    /// this layer sits below); it returns lines for the person.
    pub settings: Option<fn(&Paths, &Path) -> Vec<String>>,
}

/// Share of the window's width the monitor pane takes.
const MONITOR_PERCENT: u8 = 35;

/// What `launch` made.
#[derive(Clone, Debug)]
pub struct Launched {
    /// The session.
    pub session: String,
    /// Each pane and the agent id it got (in pane order).
    pub agents: Vec<(PaneId, String)>,
    /// Panes whose command exited at once (their pane closed).
    pub vanished: Vec<PaneId>,
    /// Every agent pane opened, in the order of `LaunchPlan::commands`.
    pub opened: Vec<PaneId>,
    /// The registry refresh that registered them.
    pub discovery: Discovery,
    /// The monitor pane, when one was asked for.
    pub monitor: Option<PaneId>,
    /// The agents' worktrees, in pane order (empty without worktrees).
    pub worktrees: Vec<Prepared>,
}

/// The default session name: `swarm-` and the project directory's name,
/// with anything tmux would mangle (`.`, `:`) or a shell would trip on
/// replaced by `-`.
pub fn default_session_name(root: &Path) -> String {
    let base = root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let clean: String = base
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '-'
            }
        })
        .collect();
    let clean = clean.trim_matches('-');
    if clean.is_empty() {
        "swarm".into()
    } else {
        format!("swarm-{clean}")
    }
}

/// Checks a session name given by the user.
pub fn session_name(name: &str) -> Result<String> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && !name.starts_with('-')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if ok {
        Ok(name.to_owned())
    } else {
        Err(Error::Invalid(format!(
            "invalid session name {name:?}: use 1-64 letters, digits, `-` or `_`, not starting with `-`"
        )))
    }
}

/// Quotes a string for `sh -c` (tmux runs pane commands through the shell).
pub fn shell_quote(s: &str) -> String {
    if !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"@%+=:,./_-".contains(&b))
    {
        return s.to_owned();
    }
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// Opens the session, starts `count` panes running the command, labels
/// them, and registers them as agents (whether or not their program has
/// started yet).
pub fn launch(
    tmux: &Tmux,
    registry: &dyn RegistryStore,
    paths: &Paths,
    matcher: &AgentMatcher,
    opts: &DiscoverOptions,
    plan: &LaunchPlan,
) -> Result<Launched> {
    // A root that cannot hold worktrees is refused before any session is
    // touched: outside git, below the repository's top, or with no commit
    // to start the branches from.
    let repo = match &plan.worktrees {
        Some(_) => {
            let repo = Repository::open(paths.root())?;
            repo.base()?;
            Some(repo)
        }
        None => None,
    };
    if tmux
        .has_session(&plan.session)
        .or_else(no_server_means_no_session)?
    {
        if !plan.force {
            return Err(Error::SessionExists(plan.session.clone()));
        }
        tmux.kill_session(&plan.session)?;
    }
    let mut warnings = Vec::new();
    let prepared = match (&repo, &plan.worktrees) {
        (Some(repo), Some(w)) => {
            let count = u8::try_from(plan.commands.len()).unwrap_or(MAX_AGENTS);
            let ids = reserve_ids(tmux, registry, paths, count, &mut warnings)?;
            let prepared =
                worktrees::prepare(repo, paths, &ids, w.setup.as_deref(), w.ports_per_agent)?;
            if let Some(settings) = w.settings {
                for p in &prepared {
                    warnings.extend(settings(paths, &p.path));
                }
            }
            prepared
        }
        _ => Vec::new(),
    };
    // Each agent in a worktree starts there, its pane labelled with the id
    // its worktree was made under.
    let ids: Vec<String> = prepared.iter().map(|p| p.agent.to_string()).collect();
    let cwds: Vec<PathBuf> = prepared.iter().map(|p| p.path.clone()).collect();
    let envs: Vec<Vec<(String, String)>> = prepared.iter().map(|p| p.workspace.env()).collect();
    warnings.extend(prepared.iter().flat_map(|p| p.warnings.iter().cloned()));
    let panes = open_panes(
        tmux,
        paths,
        &plan.session,
        &plan.layout,
        &plan.commands,
        None,
        (!ids.is_empty()).then_some(ids.as_slice()),
        (!cwds.is_empty()).then_some(cwds.as_slice()),
        &envs,
    )?;
    let mut discovery = discovery::register_panes(tmux, registry, paths, matcher, &panes, opts)?;
    discovery.warnings.splice(0..0, warnings);
    // Added last, so that it changes neither the agents' pane order nor
    // their layout; it is no agent, so discovery passes it by.
    let monitor = match &plan.monitor {
        Some(command) => add_monitor(tmux, paths, &plan.session, command)?,
        None => None,
    };
    let mut agents = Vec::new();
    let mut vanished = Vec::new();
    for pane in panes.iter().cloned() {
        match discovery.registry.find_by_pane(pane.as_str()) {
            Some(a) => agents.push((pane, a.id.to_string())),
            None => vanished.push(pane),
        }
    }
    Ok(Launched {
        session: plan.session.clone(),
        agents,
        vanished,
        opened: panes,
        discovery,
        monitor,
        worktrees: prepared,
    })
}

/// Adds the monitor pane on the right of `session`'s window, running
/// `command`; `None` when the window is gone (every agent pane exited and
/// took it with it: the caller reports those).
pub fn add_monitor(
    tmux: &Tmux,
    paths: &Paths,
    session: &str,
    command: &str,
) -> Result<Option<PaneId>> {
    let window = format!("={session}:");
    match tmux.split_full_height(&window, paths.root(), command, MONITOR_PERCENT, "monitor") {
        Ok(pane) => Ok(Some(pane)),
        Err(TmuxError::TargetNotFound { .. }) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// Opens one pane per command in `session`'s window (creating the
/// session when `into` is `None`, else splitting its pane `into`), in
/// order, and lays them out. With `labels`, each pane is labelled with its
/// agent id (`@swarm_agent`, `@swarm_project`) in the very tmux call that
/// creates it, before anything registers it: that is how `resume` gives a
/// recorded id back to its agent's new pane, and to no other, and how an
/// agent's pane gets the id its worktree was made under. With `cwds`, each
/// pane starts in its own directory (else the project root); a labelled
/// pane gets the variables `envs` holds for it.
#[allow(clippy::too_many_arguments)]
pub(crate) fn open_panes(
    tmux: &Tmux,
    paths: &Paths,
    session: &str,
    layout: &str,
    commands: &[String],
    into: Option<&PaneId>,
    labels: Option<&[String]>,
    cwds: Option<&[PathBuf]>,
    envs: &[Vec<(String, String)>],
) -> Result<Vec<PaneId>> {
    let Some((first_command, rest)) = commands.split_first() else {
        return Ok(Vec::new());
    };
    let window = format!("={session}:");
    let fingerprint = paths.fingerprint();
    let label_of = |i: usize| {
        labels.and_then(|ids| ids.get(i)).map(|id| NewPaneLabel {
            agent: id,
            project: &fingerprint,
            env: envs.get(i).map_or(&[][..], Vec::as_slice),
        })
    };
    let cwd_of = |i: usize| {
        cwds.and_then(|c| c.get(i))
            .map_or(paths.root(), PathBuf::as_path)
    };
    let split = |target: &str, i: usize, command: &str| match label_of(i) {
        Some(label) => tmux.split_window_labelled(target, cwd_of(i), command, &label),
        None => tmux.split_window(target, cwd_of(i), command),
    };
    let first = match into {
        None => {
            let spec = SessionSpec {
                name: session,
                cwd: cwd_of(0),
                size: SESSION_SIZE,
                command: first_command,
                label: label_of(0),
            };
            // A server that is exiting (its last session was just killed)
            // can still take the connection and then go away: the next try
            // starts a new server.
            let mut tries = 0;
            let first = loop {
                match tmux.new_session(&spec) {
                    Err(TmuxError::NoServer { .. }) if tries < 3 => tries += 1,
                    other => break other?,
                }
            };
            tmux.set_window_options(
                &window,
                &[
                    ("pane-border-status", "top"),
                    (
                        "pane-border-format",
                        " #{?@swarm_agent,#{@swarm_agent},#{pane_title}} ",
                    ),
                ],
            )?;
            first
        }
        Some(existing) => split(existing.as_str(), 0, first_command)?,
    };
    let _ = tmux.select_layout(&window, layout);
    let mut panes = vec![first];
    for (i, command) in rest.iter().enumerate() {
        // Splitting the newest pane keeps pane order = launch order, so
        // agent-0, agent-1, ... read left to right, top to bottom.
        let newest = panes[panes.len() - 1].to_string();
        match split(&newest, i + 1, command) {
            Ok(pane) => panes.push(pane),
            // The window's panes all exited: nothing left to split.
            Err(TmuxError::TargetNotFound { .. }) => break,
            Err(e) => return Err(e.into()),
        }
        // Rebalance after every split so the next one has room.
        let _ = tmux.select_layout(&window, layout);
    }
    Ok(panes)
}

/// Takes the next `count` agent ids for panes that do not exist yet, so
/// that each agent's worktree can be made under the id its pane will get:
/// above every id the mark, the registry or a pane label of this project
/// has seen, in one atomic step of the registry store (two launches at
/// once get different ids). Each pane is then created carrying its id as
/// its label, which discovery keeps.
fn reserve_ids(
    tmux: &Tmux,
    registry: &dyn RegistryStore,
    paths: &Paths,
    count: u8,
    warnings: &mut Vec<String>,
) -> Result<Vec<String>> {
    let fingerprint = paths.fingerprint();
    let labelled = match tmux.list_panes() {
        Ok((panes, _)) => panes
            .iter()
            .filter(|p| p.project_label.as_deref() == Some(fingerprint.as_str()))
            .filter_map(|p| p.agent_label.as_deref().and_then(validate::agent_number))
            .max(),
        Err(TmuxError::NoServer { .. }) => None,
        Err(e) => return Err(e.into()),
    };
    let mut first = None;
    warnings.extend(registry.update(&mut |doc| {
        let registered = doc
            .registry
            .iter()
            .flat_map(|r| r.agents.iter())
            .filter_map(|a| a.id.number())
            .max();
        let next = [registered, labelled]
            .into_iter()
            .flatten()
            .map(|n| n.saturating_add(1))
            .fold(doc.ids.next, u64::max);
        doc.ids.next = next.saturating_add(u64::from(count));
        // The registry itself stays as it is.
        doc.registry = None;
        first = Some(next);
    })?);
    let first =
        first.ok_or_else(|| Error::Invalid("the registry store skipped the change".into()))?;
    Ok((0..u64::from(count))
        .map(|i| crate::domain::AgentId::numbered(first + i).to_string())
        .collect())
}

fn no_server_means_no_session(e: TmuxError) -> Result<bool, TmuxError> {
    match e {
        TmuxError::NoServer { .. } => Ok(false),
        e => Err(e),
    }
}

/// Kills the session and refreshes the registry (its agents are gone);
/// true with it when there was a session to kill. `gone_ok`: a session
/// that no longer exists (its tmux server died) is no error; the registry
/// is refreshed all the same.
pub fn down(
    tmux: &Tmux,
    registry: &dyn RegistryStore,
    paths: &Paths,
    matcher: &AgentMatcher,
    opts: &DiscoverOptions,
    session: &str,
    gone_ok: bool,
) -> Result<(Discovery, bool)> {
    let exists = tmux
        .has_session(session)
        .or_else(no_server_means_no_session)?;
    if !exists && !gone_ok {
        return Err(Error::NoSession(session.to_owned()));
    }
    match exists.then(|| tmux.kill_session(session)) {
        // The server exited with its last session before it answered.
        None | Some(Ok(())) | Some(Err(TmuxError::NoServer { .. })) => {}
        Some(Err(e)) => return Err(e.into()),
    }
    let found = match discovery::refresh(tmux, registry, paths, matcher, opts) {
        // That was the last session: the server exited with it.
        Err(Error::Tmux(TmuxError::NoServer { .. })) => discovery::forget_all(registry, paths),
        other => other,
    }?;
    Ok((found, exists))
}

/// How other programs (hooks, other panes) should run this swarm: `swarm`
/// when the `swarm` on `PATH` is this very binary, else its full path,
/// shell-quoted.
pub fn swarm_invocation() -> String {
    let me = std::env::current_exe()
        .ok()
        .and_then(|p| p.canonicalize().ok());
    let on_path = find_on_path("swarm").and_then(|p| p.canonicalize().ok());
    match me {
        Some(me) if on_path.as_ref() != Some(&me) => shell_quote(&me.to_string_lossy()),
        _ => "swarm".into(),
    }
}

/// True when `swarm` (a shell word as [`swarm_invocation`] writes it: a
/// command name or a quoted path) names an executable that exists.
pub(crate) fn invocation_exists(swarm: &str) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let word = match swarm.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')) {
        Some(inner) => inner.replace(r"'\''", "'"),
        None => swarm.to_owned(),
    };
    if word.contains('/') {
        Path::new(&word)
            .metadata()
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    } else {
        find_on_path(&word).is_some()
    }
}

/// The full path of `program` when it is an executable file on `PATH`.
pub fn find_on_path(program: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|p| {
            p.metadata()
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_names_from_directories() {
        assert_eq!(
            default_session_name(Path::new("/x/my-proj")),
            "swarm-my-proj"
        );
        assert_eq!(
            default_session_name(Path::new("/x/a.b:c d")),
            "swarm-a-b-c-d"
        );
        assert_eq!(default_session_name(Path::new("/")), "swarm");
        assert_eq!(default_session_name(Path::new("/x/...")), "swarm");
    }

    #[test]
    fn session_names_are_checked() {
        assert!(session_name("work_1-a").is_ok());
        for bad in [
            "",
            "-x",
            "a.b",
            "a:b",
            "a b",
            "a;b",
            "#{x}",
            &"x".repeat(65),
        ] {
            assert!(session_name(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn shell_quoting() {
        assert_eq!(shell_quote("/usr/bin/swarm"), "/usr/bin/swarm");
        assert_eq!(shell_quote("/a b/swarm"), "'/a b/swarm'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        assert_eq!(shell_quote(""), "''");
        assert_eq!(shell_quote("$(x);"), "'$(x);'");
    }
}
