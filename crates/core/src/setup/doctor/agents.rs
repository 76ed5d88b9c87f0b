//! The agents and their panes: whether swarm can see what runs in a pane,
//! whether every registered pane still exists, and whether each active
//! agent's screen would take a message now.

use std::collections::HashSet;

use crate::agents::pane_state;
use crate::agents::process::{BACKEND_VAR, Backend, ProcessView, Processes};
use crate::agents::registry::{AgentRecord, AgentStatus};
use crate::agents::registry_store::RegistryState;
use crate::tmux::TmuxError;

use super::report::{CheckOutcome, Subject};

/// Whether swarm can see which programs run in the panes: the backend that
/// `SWARM_PROCESS_BACKEND` picks, made to find this very process.
pub(super) fn processes(s: &Subject<'_>) -> Vec<CheckOutcome> {
    const CHECK: &str = "processes";
    let value = s
        .env
        .iter()
        .find(|(k, _)| k == BACKEND_VAR)
        .map(|(_, v)| v.as_os_str());
    let backend = match Backend::choose(value) {
        Ok(b) => b,
        Err(e) => {
            return vec![CheckOutcome::fail(
                CHECK,
                format!("{e}; every command that looks at panes will fail"),
                format!("unset {BACKEND_VAR}, or set it to auto, proc (Linux) or portable"),
            )];
        }
    };
    let how = match backend {
        #[cfg(target_os = "linux")]
        Backend::Proc => "the Linux fast path",
        Backend::Portable => "`ps`",
    };
    let forced = if value.is_some() {
        format!(" (set by {BACKEND_VAR})")
    } else {
        String::new()
    };
    let me = std::process::id();
    vec![match Processes::new(backend).survey() {
        Ok(view) if view.info(me).is_some() && view.argv(me).is_some() => CheckOutcome::ok(
            CHECK,
            format!("backend {backend}{forced}: reads processes through {how}"),
        ),
        Ok(_) => CheckOutcome::fail(
            CHECK,
            format!("backend {backend}{forced} cannot see swarm's own process"),
            format!("try {BACKEND_VAR}=portable, and check that `ps -A` lists every process"),
        ),
        Err(e) => CheckOutcome::fail(
            CHECK,
            format!("backend {backend}{forced} does not work: {e}"),
            crate::error::Reported::hint(&e)
                .unwrap_or_else(|| format!("try another {BACKEND_VAR}")),
        ),
    }]
}

/// Whether every agent registered on this host still has its pane on
/// the tmux server.
pub(super) fn registry_panes(s: &Subject<'_>) -> Vec<CheckOutcome> {
    const CHECK: &str = "registered panes";
    let Ok(RegistryState::Valid(mut reg, _)) = s.backend.registry.read() else {
        return Vec::new();
    };
    // Only this host's panes are on this tmux server.
    if let Some(here) = s.backend.shared_host() {
        reg.agents
            .retain(|a| a.host.as_deref().is_none_or(|h| h == here));
    }
    if reg.agents.is_empty() {
        return Vec::new();
    }
    let live: HashSet<String> = match s.tmux.list_panes() {
        Ok((panes, _)) => panes.into_iter().map(|p| p.id.to_string()).collect(),
        Err(TmuxError::NoServer { .. }) => HashSet::new(),
        // The tmux checks say why tmux cannot be asked.
        Err(_) => return Vec::new(),
    };
    let mut gone = Vec::new();
    for a in &reg.agents {
        match &a.tmux_pane_id {
            Some(p) if live.contains(p.as_str()) => {}
            Some(p) => gone.push(format!(
                "{} (pane {p}, {}): the pane no longer exists",
                a.id, a.pane_index
            )),
            None => gone.push(format!(
                "{} ({}): registered without a pane id by an older version",
                a.id, a.pane_index
            )),
        }
    }
    vec![if gone.is_empty() {
        CheckOutcome::ok(
            CHECK,
            format!("all {} registered agent pane(s) exist", reg.agents.len()),
        )
    } else {
        CheckOutcome::warn(
            CHECK,
            format!(
                "{} of {} registered agent(s) have no live pane on {}",
                gone.len(),
                reg.agents.len(),
                s.tmux.server()
            ),
            "run `swarm discover` to refresh the registry",
        )
        .with_details(gone)
    }]
}

/// For each active agent: which profile applies, and whether a message
/// would be typed into its pane right now (or held, and why).
pub(super) fn agent_screens(s: &Subject<'_>) -> Vec<CheckOutcome> {
    const CHECK: &str = "agent screens";
    let Ok(RegistryState::Valid(reg, _)) = s.backend.registry.read() else {
        return Vec::new();
    };
    let agents: Vec<&AgentRecord> = reg
        .agents
        .iter()
        .filter(|a| a.status == AgentStatus::Active)
        .collect();
    if agents.is_empty() {
        return Vec::new();
    }
    let states = pane_state::observe(
        s.tmux,
        s.matcher,
        s.profiles,
        &agents,
        s.backend.shared_host(),
    );
    let held = s.held.list().unwrap_or_default();
    let mut ready = 0;
    let details: Vec<String> = agents
        .iter()
        .zip(&states)
        .map(|(a, st)| {
            let profile = st
                .profile
                .as_deref()
                .map(|p| format!("profile {p}"))
                .unwrap_or_else(|| "no profile".into());
            let waiting = held.iter().filter(|h| a.id == h.agent.as_str()).count();
            let waiting = if waiting > 0 {
                format!("; {waiting} message(s) held for it")
            } else {
                String::new()
            };
            if st.deliverable {
                ready += 1;
                format!(
                    "{}: {profile}, {}: a message would go in now{waiting}",
                    a.id, st.state
                )
            } else {
                format!(
                    "{}: {profile}, {}: a message would wait ({}){waiting}",
                    a.id,
                    st.state,
                    st.reason.as_deref().unwrap_or("not safe to type into")
                )
            }
        })
        .collect();
    vec![
        CheckOutcome::ok(
            CHECK,
            format!(
                "{ready} of {} active agent(s) can take a message right now",
                agents.len()
            ),
        )
        .with_details(details),
    ]
}

/// For each active agent: which source tells swarm that it needs the
/// person, ends a turn or takes a message (its own hooks, or its screen),
/// and why. A Codex CLI whose hooks wait to be trusted is a warning: the
/// fix is one answer in codex.
pub(super) fn attention_sources(s: &Subject<'_>) -> Vec<CheckOutcome> {
    use crate::attention::event::Source;
    use crate::hooks::source::{self as status, Agent};
    const CHECK: &str = "attention sources";
    let Ok(RegistryState::Valid(reg, _)) = s.backend.registry.read() else {
        return Vec::new();
    };
    let agents: Vec<&AgentRecord> = reg
        .agents
        .iter()
        .filter(|a| a.status == AgentStatus::Active)
        .filter(|a| {
            s.backend
                .shared_host()
                .is_none_or(|here| a.host.as_deref().is_none_or(|h| h == here))
        })
        .collect();
    if agents.is_empty() {
        return Vec::new();
    }
    let states = pane_state::observe(
        s.tmux,
        s.matcher,
        s.profiles,
        &agents,
        s.backend.shared_host(),
    );
    let seen = crate::hooks::HookSightings::new(s.paths).load();
    // Codex CLI keeps its trust in its own config: the one of the agent's
    // process (its CODEX_HOME or HOME), which may not be this process's.
    let survey = s.matcher.processes().survey().ok();
    let codex_dir = |a: &AgentRecord| {
        let home =
            crate::usage::locate::agent_home(s.matcher, survey.as_ref()?, a.id.as_str(), a.pid)?;
        status::codex_home(home.codex_home, home.home)
    };
    let mut hooked = 0;
    let mut untrusted = false;
    let details: Vec<String> = agents
        .iter()
        .zip(&states)
        .map(|(a, st)| {
            let used = status::source_for(
                s.paths,
                &Agent {
                    id: a.id.as_str(),
                    pane: a.tmux_pane_id.as_ref().map(|p| p.as_str()),
                    profile: st.profile.as_deref().unwrap_or_default(),
                    codex_dir: (st.profile.as_deref() == Some("codex"))
                        .then(|| codex_dir(a))
                        .flatten(),
                },
                &seen,
            );
            if used.source == Source::Hook {
                hooked += 1;
            }
            untrusted |= used.why.contains("not trusted");
            format!("{}: {}: {}", a.id, used.source.as_str(), used.why)
        })
        .collect();
    let summary = format!(
        "{hooked} of {} active agent(s) report through their own hooks; the others' screens \
         are read",
        agents.len()
    );
    vec![if untrusted {
        CheckOutcome::warn(
            CHECK,
            summary,
            "start codex in the project and accept its \"hooks need review\" screen",
        )
        .with_details(details)
    } else {
        CheckOutcome::ok(CHECK, summary).with_details(details)
    }]
}
