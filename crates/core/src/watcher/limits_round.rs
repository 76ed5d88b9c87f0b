//! The watcher's part in usage limits, each round: before the attention
//! round, agents a person cleared are not taken for limited again (until
//! they work); after it, what this host's agents show goes into the
//! shared `Limits` (`limits::round`), the reset is told or the resume
//! prompt typed as `limits.on_reset` says, and the `limited` events raised
//! carry their reset time.

use std::collections::BTreeMap;

use crate::agents::registry::{AgentRecord, Registry};
use crate::agents::screen::ScreenState;
use crate::attention::event::{EventKind, FeedEntry};
use crate::attention::tracker::{Look, Presence};
use crate::backend::Operator;
use crate::config::OnReset;
use crate::domain::Timestamp;
use crate::limits::credential::{self, Credential};
use crate::limits::round::{self, AgentNow, Step};
use crate::support::sanitize;

use super::outage::Tell;

/// What the watcher remembers between rounds, and this round's agents
/// between `prepare` and `settle`.
#[derive(Debug, Default)]
pub(super) struct LimitsRound {
    /// The logins of this host's agents, by agent and pane process (read
    /// once: an agent's environment does not change).
    logins: BTreeMap<(String, u32), Option<Credential>>,
    /// The screen (without its moving rows) each agent showed when it
    /// last showed a limit: once it shows another and no limit, the agent
    /// has worked again.
    screens: BTreeMap<String, Option<u64>>,
    /// This round's agents, as the limits round needs them.
    agents: Vec<AgentNow>,
}

impl LimitsRound {
    /// Before the attention round: marks the looks of agents a person
    /// cleared, or that worked again since they showed a limit, and keeps
    /// this host's agents (`local`) as the limits round needs them.
    pub(super) fn prepare(&mut self, op: &Operator, looks: &mut [Look], local: &[AgentRecord]) {
        let cleared = op
            .backend
            .limits
            .read()
            .map(|l| l.cleared)
            .unwrap_or_default();
        let pid_of = |agent: &str| {
            local
                .iter()
                .find(|a| a.id.as_str() == agent)
                .map_or(0, |a| a.pid)
        };
        self.agents = self.judge(looks, &cleared, &pid_of, &credential::of_pane);
    }

    /// Marks `looks` and says what each agent is for the limits round;
    /// `login` reads the login of an agent's program (profile, process).
    fn judge(
        &mut self,
        looks: &mut [Look],
        cleared: &BTreeMap<String, Timestamp>,
        pid_of: &dyn Fn(&str) -> u32,
        login: &dyn Fn(&str, u32) -> Option<Credential>,
    ) -> Vec<AgentNow> {
        let mut out = Vec::new();
        for look in looks.iter_mut() {
            let busy = look.presence == Presence::Agent(Some(ScreenState::Busy));
            let showing = look.limit.is_some();
            let is_cleared = cleared.contains_key(&look.agent);
            if is_cleared {
                look.limit = None;
            }
            let worked = if showing {
                self.screens.insert(look.agent.clone(), look.quiet);
                false
            } else {
                let then = self.screens.get(&look.agent);
                let worked = busy || then.is_some_and(|then| *then != look.quiet);
                if worked {
                    self.screens.remove(&look.agent);
                }
                worked
            };
            look.limit_ended = is_cleared || worked;
            let Some(vendor) = look.profile.clone() else {
                continue;
            };
            let pid = pid_of(&look.agent);
            let credential = self
                .logins
                .entry((look.agent.clone(), pid))
                .or_insert_with(|| login(&vendor, pid))
                .clone();
            out.push(AgentNow {
                agent: look.agent.clone(),
                state: match &look.presence {
                    Presence::Agent(s) => *s,
                    _ => None,
                },
                exited: matches!(look.presence, Presence::Gone | Presence::Shell),
                limit: look.limit.clone(),
                credential,
                vendor,
                worked,
            });
        }
        out
    }

    /// After the attention round: records this round's limits and acts on
    /// resets. `raised` (what the attention round raised) comes back with
    /// each `limited` line carrying its reset time, and a `limit_reset`
    /// line after them for each agent whose limit reset.
    pub(super) fn settle(
        &mut self,
        op: &Operator,
        registry: &Registry,
        raised: Vec<FeedEntry>,
        tell: &mut Tell<'_>,
    ) -> Vec<FeedEntry> {
        let agents = std::mem::take(&mut self.agents);
        let mut raised = with_until(raised, &agents);
        raised.extend(settle(op, &agents, registry, tell));
        raised
    }
}

/// Records this round's limits and acts on resets; the `limit_reset`
/// lines.
fn settle(
    op: &Operator,
    agents: &[AgentNow],
    registry: &Registry,
    tell: &mut Tell<'_>,
) -> Vec<FeedEntry> {
    let mut feed = Vec::new();
    let registered = |agent: &str| registry.find(agent).is_some();
    let on_reset = op.limits.on_reset;
    let now = Timestamp::now();
    let mut step = Step::default();
    let updated = op.backend.limits.update(&mut |limits| {
        let (s, changed) = round::step(limits, agents, &registered, on_reset, now);
        step = s;
        changed
    });
    if let Err(e) = updated {
        tell.warn(format!("could not record usage limits: {e}"));
        return feed;
    }
    for r in &step.opened {
        tell.did(format!(
            "usage limit: {} ({}), {}",
            list(&r.limited),
            r.label,
            r.describe()
        ));
    }
    for r in &step.reset {
        let then = r
            .until
            .map(crate::limits::until_for_people)
            .unwrap_or_default();
        let what = match on_reset {
            OnReset::Resume => format!(
                "the usage limit reset at {then}: swarm types \"{}\" into it once it is idle",
                sanitize::one_line(&op.limits.resume_prompt)
            ),
            _ => format!(
                "the usage limit reset at {then}: resume it yourself (its held messages wait until it works, or `swarm limits clear`)"
            ),
        };
        for agent in &r.limited {
            let mut entry = FeedEntry::new(EventKind::LimitReset, Some(agent), what.clone());
            entry.until = r.until;
            feed.push(entry);
        }
    }
    for agent in &step.resume {
        let typed = registry
            .find(agent)
            .and_then(|a| op.messenger().type_prompt(a, &op.limits.resume_prompt));
        match typed {
            Some(outcome) => tell.did(format!(
                "resume prompt to {agent} (its usage limit reset): {}",
                sanitize::one_line(&outcome.describe())
            )),
            // Not idle after all: the next round tries again.
            None => {
                let _ = op.backend.limits.update(&mut |limits| {
                    limits
                        .credentials
                        .values_mut()
                        .any(|r| r.resumed.remove(agent))
                });
            }
        }
    }
    for r in &step.over {
        tell.did(format!(
            "usage limit over for {} ({}): held messages go in",
            list(&r.agents),
            r.label
        ));
    }
    feed
}

/// `raised` with each `limited` line carrying the reset time of the limit
/// its agent shows.
fn with_until(mut raised: Vec<FeedEntry>, agents: &[AgentNow]) -> Vec<FeedEntry> {
    for entry in &mut raised {
        if entry.event == EventKind::Limited
            && let Some(agent) = &entry.agent
        {
            entry.until = agents
                .iter()
                .find(|a| &a.agent == agent)
                .and_then(|a| a.limit.as_ref())
                .and_then(|l| l.until);
        }
    }
    raised
}

fn list(agents: &std::collections::BTreeSet<String>) -> String {
    agents.iter().cloned().collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limits::SeenLimit;
    use std::cell::Cell;
    use std::time::Duration;

    fn look(agent: &str, presence: Presence, quiet: u64, limit: bool) -> Look {
        Look {
            agent: agent.into(),
            at: Timestamp::now(),
            presence,
            quiet: Some(quiet),
            dialog: None,
            waiting: false,
            limit: limit.then(|| SeenLimit {
                line: "You've hit your limit".into(),
                until: Timestamp::from_unix_seconds(2_000_000_000.0),
                continues_after: Duration::ZERO,
            }),
            profile: Some("claude".into()),
            limit_ended: false,
            prompted: None,
        }
    }

    fn idle() -> Presence {
        Presence::Agent(Some(ScreenState::Idle))
    }

    #[test]
    fn an_agent_has_worked_once_its_screen_changed_after_a_limit_or_a_person_cleared_it() {
        let mut part = LimitsRound::default();
        let logins = Cell::new(0);
        let login = |_: &str, pid: u32| {
            logins.set(logins.get() + 1);
            Some(Credential {
                id: format!("login-{pid}"),
                label: "a login".into(),
            })
        };
        let pid_of = |agent: &str| if agent == "agent-0" { 40 } else { 41 };
        let none = BTreeMap::new();
        let mut first = [
            look("agent-0", idle(), 1, true),
            look("agent-1", idle(), 7, true),
        ];
        let now = part.judge(&mut first, &none, &pid_of, &login);
        assert!(now.iter().all(|a| !a.worked && a.limit.is_some()));
        assert_eq!(
            now[1].credential.as_ref().map(|c| c.id.as_str()),
            Some("login-41")
        );
        // The same screen without the limit row: not worked yet; another
        // screen: worked.
        let mut second = [
            look("agent-0", idle(), 1, false),
            look("agent-1", idle(), 8, false),
        ];
        let now = part.judge(&mut second, &none, &pid_of, &login);
        assert_eq!(
            now.iter().map(|a| a.worked).collect::<Vec<_>>(),
            [false, true]
        );
        assert_eq!(
            second.iter().map(|l| l.limit_ended).collect::<Vec<_>>(),
            [false, true]
        );
        // A person cleared agent-0: its limit is not taken, and it ended.
        let cleared: BTreeMap<String, Timestamp> =
            [("agent-0".to_owned(), Timestamp::now())].into();
        let mut third = [look("agent-0", idle(), 1, true)];
        let now = part.judge(&mut third, &cleared, &pid_of, &login);
        assert!(third[0].limit.is_none() && third[0].limit_ended);
        assert!(now[0].limit.is_none());
        assert_eq!(
            logins.get(),
            2,
            "a login is read once per agent and process"
        );
    }

    #[test]
    fn a_busy_agent_has_worked_and_a_look_without_a_profile_is_no_agent() {
        let mut part = LimitsRound::default();
        let none = BTreeMap::new();
        let mut looks = [look("agent-0", idle(), 1, true)];
        part.judge(&mut looks, &none, &|_| 0, &|_, _| None);
        let mut busy = look(
            "agent-0",
            Presence::Agent(Some(ScreenState::Busy)),
            1,
            false,
        );
        let mut shell = look("agent-1", Presence::Shell, 2, false);
        shell.profile = None;
        busy.quiet = Some(1);
        let mut looks = [busy, shell];
        let now = part.judge(&mut looks, &none, &|_| 0, &|_, _| None);
        assert_eq!(now.len(), 1);
        assert!(now[0].worked && looks[0].limit_ended);
    }

    #[test]
    fn a_limited_line_carries_the_reset_time_its_agent_shows() {
        let mut part = LimitsRound::default();
        let mut looks = [
            look("agent-0", idle(), 1, true),
            look("agent-1", idle(), 1, false),
        ];
        let agents = part.judge(&mut looks, &BTreeMap::new(), &|_| 0, &|_, _| None);
        let raised = vec![
            FeedEntry::new(EventKind::Limited, Some("agent-0"), "limited"),
            FeedEntry::new(EventKind::Limited, Some("agent-1"), "limited"),
            FeedEntry::new(EventKind::Finished, Some("agent-0"), "done"),
        ];
        let got = with_until(raised, &agents);
        assert_eq!(got[0].until, Timestamp::from_unix_seconds(2_000_000_000.0));
        assert_eq!(got[1].until, None);
        assert_eq!(got[2].until, None);
    }
}
