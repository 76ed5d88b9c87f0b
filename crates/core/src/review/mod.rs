//! Review rounds on an agent's branch: comments on `PATH:LINE` of the
//! agent's worktree, from the person or another agent, kept in
//! `.swarm/review.json` (`comments.rs`, docs/FORMATS.md), re-anchored by
//! their code line whenever they are read (`anchor.rs`); a round of the
//! unsent open ones as one message's text, and the diff summary a
//! reviewer is sent. It stands on `worktrees` (the agents' branches and
//! worktrees); the verbs are `ops::review_comment` and the command line's
//! `swarm review`.

mod anchor;
mod comments;

pub use comments::{
    CommentStatus, DiffSummary, ReviewComment, diff_summary, mark_comments_sent, refresh_comments,
    resolve_comment, review_request_text, review_round_text,
};
pub(crate) use comments::{NewComment, comment};
