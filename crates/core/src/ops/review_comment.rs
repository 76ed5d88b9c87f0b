//! `review_comment`: a comment on one line of an agent's worktree branch,
//! anchored to the code line it is on (`review::comment` checks the
//! location and the text against the agent's file).

use crate::backend::Operator;
use crate::domain::validate;
use crate::error::{Error, Result};
use crate::review::{self, NewComment, ReviewComment};
use crate::worktrees::Repository;

/// Whose branch, where, what and by whom: checked, ready to run.
#[derive(Clone, Debug)]
pub struct ReviewCommentPlan {
    new: NewComment,
}

impl ReviewCommentPlan {
    /// A comment by `author` (an agent, or the person) on `location`
    /// (`PATH:LINE`) of `agent`'s worktree. Refused: an agent id that is
    /// not one.
    pub fn new(agent: &str, author: &str, location: &str, text: &str) -> Result<ReviewCommentPlan> {
        Ok(ReviewCommentPlan {
            new: NewComment {
                agent: validate::agent_id(agent)?,
                author: author.to_owned(),
                location: location.to_owned(),
                text: text.to_owned(),
            },
        })
    }

    /// Refuses a comment by the agent on its own branch (`Error::Invalid`):
    /// what an agent reviewing another's work may not do.
    pub fn by_another_agent(self) -> Result<ReviewCommentPlan> {
        if self.new.author == self.new.agent {
            return Err(Error::Invalid(
                "you cannot review your own branch: comment on another agent's".into(),
            ));
        }
        Ok(self)
    }

    /// The agent whose branch is commented on.
    pub fn agent(&self) -> &str {
        &self.new.agent
    }
}

/// What `review_comment` made.
#[derive(Clone, Debug)]
pub struct ReviewCommentReport {
    /// The comment, as kept.
    pub comment: ReviewComment,
    /// What the person should know (the comments' file set aside).
    pub warnings: Vec<String>,
}

/// Makes the plan's comment in `repo` (see `review::comment`).
pub fn review_comment(
    op: &Operator,
    repo: &Repository,
    plan: &ReviewCommentPlan,
) -> Result<ReviewCommentReport> {
    let (comment, warnings) = review::comment(repo, &op.paths, plan.new.clone())?;
    Ok(ReviewCommentReport { comment, warnings })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_agent_may_not_comment_on_its_own_branch() {
        let plan = ReviewCommentPlan::new("agent-0", "agent-1", "src/a.py:1", "why?")
            .expect("a plan")
            .by_another_agent()
            .expect("another agent's branch");
        assert_eq!(plan.agent(), "agent-0");
        let own =
            ReviewCommentPlan::new("agent-0", "agent-0", "src/a.py:1", "why?").expect("a plan");
        assert!(matches!(own.by_another_agent(), Err(Error::Invalid(_))));
        assert!(matches!(
            ReviewCommentPlan::new("agent zero", "agent-1", "src/a.py:1", "why?"),
            Err(Error::Validation(_))
        ));
    }
}
