//! `answer`: picks an option of the dialog open in an agent's pane, or
//! cancels it, for the person (`Messenger::answer`: nothing is typed
//! unless the pane shows a dialog, the one the person saw when the plan
//! names it), and records the answer in the activity feed.

use crate::agents::registry::Registry;
use crate::attention::event::{EventKind, FeedEntry};
use crate::backend::Operator;
use crate::domain::AgentId;
use crate::error::Result;
use crate::support::sanitize;

pub use crate::messaging::answer::{Answer, Answered};

/// Whose dialog to answer, how, and by whom: ready to run.
#[derive(Clone, Debug)]
pub struct AnswerPlan {
    agent: AgentId,
    answer: Answer,
    seen: Option<String>,
    by: String,
}

impl AnswerPlan {
    /// Answers `agent`'s dialog with `answer`, as `by` (who answers, for
    /// the feed and the audit log), whatever dialog its pane shows.
    pub fn new(agent: AgentId, answer: Answer, by: &str) -> AnswerPlan {
        AnswerPlan {
            agent,
            answer,
            seen: None,
            by: by.to_owned(),
        }
    }

    /// Only while the pane shows the dialog the person saw: `seen` is its
    /// fingerprint (`Dialog::fingerprint`); `None` or a blank one: any.
    pub fn seen(mut self, seen: Option<&str>) -> AnswerPlan {
        self.seen = seen
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned);
        self
    }
}

/// What `answer` did.
#[derive(Clone, Debug)]
pub struct AnswerReport {
    /// The dialog and what was typed into it.
    pub answered: Answered,
    /// What could not be recorded (the answer went in either way).
    pub warnings: Vec<String>,
}

/// Answers the plan's dialog (see `Messenger::answer`: it fails, typing
/// nothing, when the pane shows no dialog, another one than the plan's,
/// or one whose options the answer matches none of) and records it in
/// the activity feed.
pub fn answer(op: &Operator, registry: &Registry, plan: &AnswerPlan) -> Result<AnswerReport> {
    let done = op.messenger().answer(
        registry,
        &plan.agent,
        plan.answer.clone(),
        plan.seen.as_deref(),
        &plan.by,
    )?;
    let entry = FeedEntry::new(
        EventKind::Answered,
        Some(&done.agent),
        format!(
            "{} -> {}",
            sanitize::one_line(&done.question),
            done.picked()
        ),
    )
    .by(&plan.by);
    let warnings = match op.backend.feed.append(&[entry]) {
        Ok(()) => Vec::new(),
        Err(e) => vec![format!(
            "could not record the answer in the activity feed: {e}"
        )],
    };
    Ok(AnswerReport {
        answered: done,
        warnings,
    })
}
