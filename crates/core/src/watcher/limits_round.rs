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

/// What the watcher remembers between rounds.
#[derive(Debug, Default)]
pub(super) struct Memory {
    /// The logins of this host's agents, by agent and pane process (read
    /// once: an agent's environment does not change).
    logins: BTreeMap<(String, u32), Option<Credential>>,
    /// The screen (without its moving rows) each agent showed when it
    /// last showed a limit: once it shows another and no limit, the agent
    /// has worked again.
    screens: BTreeMap<String, Option<u64>>,
}

/// Marks the looks of agents a person cleared, and returns this host's
/// agents as the limits round needs them.
pub(super) fn prepare(
    op: &Operator,
    looks: &mut [Look],
    local: &[&AgentRecord],
    memory: &mut Memory,
) -> Vec<AgentNow> {
    let cleared = op
        .backend
        .limits
        .read()
        .map(|l| l.cleared)
        .unwrap_or_default();
    let mut out = Vec::new();
    for look in looks.iter_mut() {
        let busy = look.presence == Presence::Agent(Some(ScreenState::Busy));
        let showing = look.limit.is_some();
        let is_cleared = cleared.contains_key(&look.agent);
        if is_cleared {
            look.limit = None;
        }
        let worked = if showing {
            memory.screens.insert(look.agent.clone(), look.quiet);
            false
        } else {
            let then = memory.screens.get(&look.agent);
            let worked = busy || then.is_some_and(|then| *then != look.quiet);
            if worked {
                memory.screens.remove(&look.agent);
            }
            worked
        };
        look.limit_ended = is_cleared || worked;
        let Some(vendor) = look.profile.clone() else {
            continue;
        };
        let pid = local
            .iter()
            .find(|a| a.id.as_str() == look.agent)
            .map_or(0, |a| a.pid);
        let login = memory
            .logins
            .entry((look.agent.clone(), pid))
            .or_insert_with(|| credential::of_pane(&vendor, pid))
            .clone();
        out.push(AgentNow {
            agent: look.agent.clone(),
            state: match &look.presence {
                Presence::Agent(s) => *s,
                _ => None,
            },
            exited: matches!(look.presence, Presence::Gone | Presence::Shell),
            limit: look.limit.clone(),
            credential: login,
            vendor,
            worked,
        });
    }
    out
}

/// What the limits round did, for the watcher to say and notify.
#[derive(Debug, Default)]
pub(super) struct Settled {
    /// Lines for the watcher's output.
    pub said: Vec<String>,
    /// Feed lines (`limit_reset`), to notify.
    pub feed: Vec<FeedEntry>,
    /// What went wrong.
    pub errors: Vec<String>,
}

/// Records this round's limits and acts on resets.
pub(super) fn settle(op: &Operator, agents: &[AgentNow], registry: &Registry) -> Settled {
    let mut done = Settled::default();
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
        done.errors
            .push(format!("could not record usage limits: {e}"));
        return done;
    }
    for r in &step.opened {
        done.said.push(format!(
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
            done.feed.push(entry);
        }
    }
    for agent in &step.resume {
        let typed = registry
            .find(agent)
            .and_then(|a| op.messenger().type_prompt(a, &op.limits.resume_prompt));
        match typed {
            Some(outcome) => done.said.push(format!(
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
        done.said.push(format!(
            "usage limit over for {} ({}): held messages go in",
            list(&r.agents),
            r.label
        ));
    }
    done
}

/// The reset time of the limit `agent` shows, for its `limited` line.
pub(super) fn until_of(agents: &[AgentNow], agent: &str) -> Option<Timestamp> {
    agents
        .iter()
        .find(|a| a.agent == agent)
        .and_then(|a| a.limit.as_ref())
        .and_then(|l| l.until)
}

fn list(agents: &std::collections::BTreeSet<String>) -> String {
    agents.iter().cloned().collect::<Vec<_>>().join(", ")
}
