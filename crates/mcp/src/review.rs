//! `review_comment`: an agent reviewing another's worktree branch leaves
//! a comment on one line, as `swarm review comment AGENT PATH:LINE TEXT
//! --from ME` does.

use serde_json::json;

use swarm_core::domain::validate;
use swarm_core::error::{Error, Result};
use swarm_core::support::sanitize;
use swarm_core::worktrees::{self, NewComment, Repository};

use super::project::Project;
use super::reply::Reply;
use super::tools;

/// Makes the comment, authored by the server's agent.
pub(super) fn comment(project: &Project, a: tools::ReviewComment) -> Result<Reply> {
    let me = project.agent()?;
    let agent = validate::agent_id(&a.agent)?.to_string();
    if agent == me {
        return Err(Error::Invalid(
            "you cannot review your own branch: comment on another agent's".into(),
        ));
    }
    let repo = Repository::open(project.op.paths.root())?;
    let (c, _) = worktrees::comment(
        &repo,
        &project.op.paths,
        NewComment {
            agent,
            author: me,
            location: format!("{}:{}", a.path, a.line),
            text: a.text,
        },
    )?;
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
