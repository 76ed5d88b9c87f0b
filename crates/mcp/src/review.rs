//! `review_comment`: an agent reviewing another's worktree branch leaves
//! a comment on one line, as `swarm review comment AGENT PATH:LINE TEXT
//! --from ME` does.

use serde_json::json;

use swarm_core::Result;
use swarm_core::ops::{self, ReviewCommentPlan};
use swarm_core::support::sanitize;
use swarm_core::worktrees::Repository;

use super::project::Project;
use super::reply::Reply;
use super::tools;

/// Makes the comment, authored by the server's agent.
pub(super) fn comment(project: &Project, a: tools::ReviewComment) -> Result<Reply> {
    let me = project.agent()?;
    let location = format!("{}:{}", a.path, a.line);
    let plan = ReviewCommentPlan::new(&a.agent, &me, &location, &a.text)?.by_another_agent()?;
    let repo = Repository::open(project.op.paths.root())?;
    let c = ops::review_comment(&project.op, &repo, &plan)?.comment;
    Ok(Reply::new(
        format!(
            "Comment {} on {}:{} of {}.",
            c.id,
            sanitize::one_line(&c.path),
            c.line,
            c.agent
        ),
        json!({
            "id": c.id,
            "agent": c.agent,
            "author": c.author,
            "path": c.path,
            "line": c.line,
            "code": c.code,
            "text": c.text,
            "status": c.status.as_str(),
        }),
    ))
}
