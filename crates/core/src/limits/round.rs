//! One watcher round of usage limits, as a change of the `Limits`
//! document: what this host's agents show is recorded by login, agents
//! that work again (or exit) leave their login's record, a login whose
//! agents all left it is no longer limited, and once a reset time has
//! passed the round says what `limits.on_reset` asks for: tell the person,
//! or the agents to type the resume prompt into (each once, when idle and
//! past the time the agent may take to carry on by itself).

use crate::agents::screen::ScreenState;
use crate::config::OnReset;
use crate::domain::Timestamp;

use super::SeenLimit;
use super::credential::Credential;
use super::limit_store::{LimitRecord, Limits, Sighting};

/// One agent of this host, as this round's look found it.
#[derive(Clone, Debug)]
pub(crate) struct AgentNow {
    /// The agent.
    pub agent: String,
    /// Its screen state (`None`: not read).
    pub state: Option<ScreenState>,
    /// Its program ended or its pane is gone.
    pub exited: bool,
    /// The limit its screen shows (`None` too when a person cleared it).
    pub limit: Option<SeenLimit>,
    /// Its login; `None` when it cannot be told (it then stands alone).
    pub credential: Option<Credential>,
    /// Its profile (`claude`, ...).
    pub vendor: String,
    /// It worked since its screen last showed a limit (or a person
    /// cleared it): the limit is over for it.
    pub worked: bool,
}

impl AgentNow {
    fn login(&self) -> Credential {
        self.credential.clone().unwrap_or_else(|| Credential {
            id: format!("agent:{}", self.agent),
            label: format!("{}'s own (its login could not be read)", self.agent),
        })
    }

    fn works(&self) -> bool {
        self.worked && self.limit.is_none()
    }
}

/// What a round found to do.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Step {
    /// Logins newly at their limit.
    pub opened: Vec<LimitRecord>,
    /// Logins whose reset time passed in this round (`notify` and
    /// `resume`).
    pub reset: Vec<LimitRecord>,
    /// Agents to type the resume prompt into now.
    pub resume: Vec<String>,
    /// Logins no longer limited.
    pub over: Vec<LimitRecord>,
}

/// Applies one round to `limits`; returns what to do and whether the
/// document changed. `registered` says whether an agent is still in the
/// registry (agents of other hosts are left to their own watchers).
pub(crate) fn step(
    limits: &mut Limits,
    agents: &[AgentNow],
    registered: &dyn Fn(&str) -> bool,
    on_reset: OnReset,
    now: Timestamp,
) -> (Step, bool) {
    let before = limits.clone();
    let mut out = Step::default();
    // A cleared agent is watched again once it has worked (or left).
    limits.cleared.retain(|agent, _| {
        registered(agent) && !agents.iter().any(|a| a.agent == *agent && a.works())
    });
    for a in agents {
        let Some(seen) = &a.limit else { continue };
        let login = a.login();
        let new = limits.saw(
            &login,
            &Sighting {
                vendor: &a.vendor,
                agent: &a.agent,
                shown: &seen.line,
                until: seen.until,
                patience: seen.continues_after,
                at: now,
            },
        );
        if new && let Some(r) = limits.credentials.get(&login.id) {
            out.opened.push(r.clone());
        }
    }
    let ids: Vec<String> = limits.credentials.keys().cloned().collect();
    for id in ids {
        let Some(record) = limits.credentials.get_mut(&id) else {
            continue;
        };
        // Every agent of this host with the login is held with it.
        for a in agents {
            if a.credential.as_ref().is_some_and(|c| c.id == id) {
                record.agents.insert(a.agent.clone());
            }
        }
        record.agents.retain(|agent| registered(agent));
        record.limited.retain(|agent| {
            registered(agent)
                && !agents
                    .iter()
                    .any(|a| a.agent == *agent && (a.works() || a.exited))
        });
        record
            .resumed
            .retain(|agent| record.limited.contains(agent));
        if record.limited.is_empty() {
            if let Some(gone) = limits.credentials.remove(&id) {
                out.over.push(gone);
            }
            continue;
        }
        let Some(until) = record.until else { continue };
        if until > now {
            continue;
        }
        if !record.reset_done {
            record.reset_done = true;
            if on_reset != OnReset::Off {
                out.reset.push(record.clone());
            }
        }
        if on_reset != OnReset::Resume {
            continue;
        }
        let patience = chrono::Duration::seconds(
            i64::try_from(record.continues_after_secs).unwrap_or(i64::MAX / 2),
        );
        if now.utc() < until.utc() + patience {
            continue;
        }
        for a in agents {
            if record.limited.contains(&a.agent)
                && !record.resumed.contains(&a.agent)
                && a.state == Some(ScreenState::Idle)
            {
                record.resumed.insert(a.agent.clone());
                out.resume.push(a.agent.clone());
            }
        }
    }
    let changed = *limits != before;
    (out, changed)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn at(secs: i64) -> Timestamp {
        Timestamp::from_unix_seconds(1_800_000_000.0 + secs as f64).expect("test value")
    }

    fn login(id: &str) -> Option<Credential> {
        Some(Credential {
            id: id.into(),
            label: id.into(),
        })
    }

    fn agent(name: &str, state: ScreenState, limit: Option<i64>, cred: &str) -> AgentNow {
        AgentNow {
            agent: name.into(),
            state: Some(state),
            exited: false,
            limit: limit.map(|until| SeenLimit {
                line: "usage limit reached".into(),
                until: Some(at(until)),
                continues_after: Duration::ZERO,
            }),
            credential: login(cred),
            vendor: "claude".into(),
            worked: state == ScreenState::Busy && limit.is_none(),
        }
    }

    fn all(_: &str) -> bool {
        true
    }

    #[test]
    fn one_agent_at_its_limit_holds_every_agent_of_its_login() {
        let mut limits = Limits::default();
        let round = [
            agent("agent-1", ScreenState::Idle, Some(100), "c1"),
            agent("agent-2", ScreenState::Busy, None, "c1"),
            agent("agent-3", ScreenState::Busy, None, "c2"),
        ];
        let (step, changed) = step(&mut limits, &round, &all, OnReset::Notify, at(10));
        assert!(changed);
        assert_eq!(step.opened.len(), 1);
        assert_eq!(
            limits.of_agent("agent-2").map(|r| r.credential.as_str()),
            Some("c1")
        );
        assert_eq!(limits.of_agent("agent-3"), None);
        // The same look again changes nothing and opens nothing.
        let (again, changed) = super::step(&mut limits, &round, &all, OnReset::Notify, at(11));
        assert!(!changed);
        assert!(again.opened.is_empty());
    }

    #[test]
    fn the_limit_ends_when_its_agent_works_again() {
        let mut limits = Limits::default();
        step(
            &mut limits,
            &[agent("agent-1", ScreenState::Idle, Some(100), "c1")],
            &all,
            OnReset::Notify,
            at(10),
        );
        // Idle with the line gone: still limited.
        let (s, _) = step(
            &mut limits,
            &[agent("agent-1", ScreenState::Idle, None, "c1")],
            &all,
            OnReset::Notify,
            at(20),
        );
        assert!(s.over.is_empty());
        let (s, _) = step(
            &mut limits,
            &[agent("agent-1", ScreenState::Busy, None, "c1")],
            &all,
            OnReset::Notify,
            at(30),
        );
        assert_eq!(s.over.len(), 1);
        assert!(limits.credentials.is_empty());
    }

    #[test]
    fn notify_tells_once_and_types_nothing() {
        let mut limits = Limits::default();
        let idle = [agent("agent-1", ScreenState::Idle, Some(100), "c1")];
        step(&mut limits, &idle, &all, OnReset::Notify, at(10));
        let (s, _) = step(&mut limits, &idle, &all, OnReset::Notify, at(101));
        assert_eq!(s.reset.len(), 1);
        assert!(s.resume.is_empty());
        let (s, _) = step(&mut limits, &idle, &all, OnReset::Notify, at(102));
        assert!(s.reset.is_empty());
        assert!(s.resume.is_empty());
        // "off" says nothing at all.
        let mut limits = Limits::default();
        step(&mut limits, &idle, &all, OnReset::Off, at(10));
        let (s, _) = step(&mut limits, &idle, &all, OnReset::Off, at(101));
        assert_eq!(s, Step::default());
    }

    #[test]
    fn resume_types_once_into_each_idle_agent_that_showed_it() {
        let mut limits = Limits::default();
        let round = [
            agent("agent-1", ScreenState::Idle, Some(100), "c1"),
            agent("agent-2", ScreenState::Dialog, Some(100), "c1"),
            agent("agent-3", ScreenState::Idle, None, "c1"),
        ];
        step(&mut limits, &round, &all, OnReset::Resume, at(10));
        let (s, _) = step(&mut limits, &round, &all, OnReset::Resume, at(99));
        assert!(s.resume.is_empty(), "not before the reset");
        let (s, _) = step(&mut limits, &round, &all, OnReset::Resume, at(100));
        assert_eq!(s.resume, ["agent-1"]);
        let (s, _) = step(&mut limits, &round, &all, OnReset::Resume, at(101));
        assert!(s.resume.is_empty(), "once");
    }

    #[test]
    fn an_agent_that_carries_on_by_itself_gets_no_prompt() {
        let mut limits = Limits::default();
        let mut waiting = agent("agent-1", ScreenState::Idle, Some(100), "c1");
        if let Some(l) = waiting.limit.as_mut() {
            l.continues_after = Duration::from_secs(120);
        }
        step(
            &mut limits,
            &[waiting.clone()],
            &all,
            OnReset::Resume,
            at(10),
        );
        let (s, _) = step(&mut limits, &[waiting], &all, OnReset::Resume, at(150));
        assert!(s.resume.is_empty());
        let (s, _) = step(
            &mut limits,
            &[agent("agent-1", ScreenState::Busy, None, "c1")],
            &all,
            OnReset::Resume,
            at(160),
        );
        assert!(s.resume.is_empty());
        assert_eq!(s.over.len(), 1);
    }

    #[test]
    fn a_cleared_agent_stays_cleared_until_it_works() {
        let mut limits = Limits::default();
        limits.cleared.insert("agent-1".into(), at(5));
        step(
            &mut limits,
            &[agent("agent-1", ScreenState::Idle, None, "c1")],
            &all,
            OnReset::Notify,
            at(10),
        );
        assert!(limits.cleared.contains_key("agent-1"));
        step(
            &mut limits,
            &[agent("agent-1", ScreenState::Busy, None, "c1")],
            &all,
            OnReset::Notify,
            at(11),
        );
        assert!(limits.cleared.is_empty());
    }
}
