//! The operator's budget round (docs/USAGE.md): read what the agents
//! spent since the last look, raise a `budget` attention event when an
//! agent crosses 80% of a limit (once per crossing: the shared episodes
//! decide, as for every attention event) and close it when a new period
//! brings it back under, tell an agent once per period that it is over,
//! (and with `on_exceed = "interrupt"` stop its turn), and say which
//! recipients of a message are over their budget, so that `send` keeps
//! their copy in their inbox.

use crate::agents::registry::Registry;
use crate::attention::event::{EventKind, FeedEntry};
use crate::config::OnExceed;
use crate::domain::Timestamp;
use crate::domain::message::{MessageType, Urgency};
use crate::error::Result;
use crate::messaging::{Recipients, SendRequest};
use crate::usage::Standing;
use crate::usage::budget::BudgetLevel;
use crate::usage::tally::now_secs;

use super::Operator;

impl Operator {
    /// One budget round over every agent of `registry`: the standing, and
    /// what could not be done (as warnings; a send never fails over it).
    pub fn budget_round(&self, registry: &Registry) -> Result<(Standing, Vec<String>)> {
        let tally = self.tally();
        let here = self.backend.shared_host();
        let (ledger, mut warnings) = tally.refresh(registry, here)?;
        let agents: Vec<String> = registry.agents.iter().map(|a| a.id.to_string()).collect();
        let standing = tally.standing(&ledger, registry, now_secs());
        let now = Timestamp::now();
        let mut feed = Vec::new();
        for agent in &agents {
            let worst = standing.worst(agent);
            let near = worst.is_some_and(|l| l.level >= BudgetLevel::Near);
            // "over" past 100 %, "near" below: the words follow the budget.
            let detail = worst
                .map(|l| {
                    let word = if l.level == BudgetLevel::Over {
                        "over"
                    } else {
                        "near"
                    };
                    format!("{word} its budget: {}", l.describe())
                })
                .unwrap_or_default();
            match self
                .backend
                .episodes
                .transition(agent, EventKind::Budget, near, now, &detail, "")
            {
                Ok(crate::attention::episodes::episode_store::Transition::Opened { .. }) => {
                    // The watcher notifies it from the feed.
                    feed.push(FeedEntry::new(
                        EventKind::Budget,
                        Some(agent),
                        detail.clone(),
                    ));
                }
                Ok(_) => {}
                Err(e) => warnings.push(format!("could not record {agent}'s budget event: {e}")),
            }
            if worst.is_some_and(|l| l.level == BudgetLevel::Over) {
                warnings.extend(self.tell_over(registry, agent, &detail));
            }
        }
        if !feed.is_empty()
            && let Err(e) = self.backend.feed.append(&feed)
        {
            warnings.push(format!("could not write the activity feed: {e}"));
        }
        Ok((standing, warnings))
    }

    /// Tells `agent`, once per period, that it is over its budget.
    fn tell_over(&self, registry: &Registry, agent: &str, detail: &str) -> Vec<String> {
        match self.tally().mark_told(agent) {
            Ok(false) => return Vec::new(),
            Ok(true) => {}
            Err(e) => return vec![format!("could not record that {agent} was told: {e}")],
        }
        let mut req = SendRequest::new(
            self.messaging.person_id.clone(),
            Recipients::One(agent.to_owned()),
            MessageType::builtin("INFO"),
            format!(
                "[BUDGET] {agent} is over its budget ({detail}). Messages from other agents wait in your inbox until a new period starts."
            ),
        );
        req.system = true;
        // Its turn stops first, so that the notice is not typed into a
        // turn about to be cancelled.
        let mut warnings = Vec::new();
        if self.usage.budget.on_exceed == OnExceed::Interrupt {
            match self.messenger().interrupt(registry, agent) {
                Ok(true) => {}
                Ok(false) => warnings.push(format!(
                    "{agent} was not interrupted: its profile names no interrupt keys"
                )),
                Err(e) => warnings.push(e.to_string()),
            }
        }
        warnings.extend(match self.messenger().send(registry, req) {
            Ok(report) => report.warnings,
            Err(e) => vec![format!(
                "could not tell {agent} that it is over its budget: {e}"
            )],
        });
        warnings
    }

    /// The recipients of `req` over their budget, with the reason to hold
    /// their copy; none for a message from the person or from swarm.
    pub(crate) fn over_budget(
        &self,
        registry: &Registry,
        req: &SendRequest,
    ) -> (Vec<(String, String)>, Vec<String>) {
        // The person's messages, swarm's own and urgent ones still go in.
        if !self.usage.budget.any()
            || req.system
            || req.sender == self.messaging.person_id
            || req.urgency != Urgency::Normal
        {
            return (Vec::new(), Vec::new());
        }
        let (standing, warnings) = match self.budget_round(registry) {
            Ok(done) => done,
            // Usage that cannot be read does not stop the swarm's work.
            Err(e) => {
                return (
                    Vec::new(),
                    vec![format!("could not read the agents' usage: {e}")],
                );
            }
        };
        let to: Vec<String> = match &req.to {
            Recipients::One(id) => vec![id.clone()],
            Recipients::All { .. } => registry.active().map(|a| a.id.to_string()).collect(),
            Recipients::Subscribers { agents, .. } => agents.clone(),
        };
        let held = to
            .into_iter()
            .filter_map(|agent| {
                let line = standing.worst(&agent)?;
                (line.level == BudgetLevel::Over).then(|| {
                    let reason = format!("{agent} is over its budget: {}", line.describe());
                    (agent, reason)
                })
            })
            .collect();
        (held, warnings)
    }
}
