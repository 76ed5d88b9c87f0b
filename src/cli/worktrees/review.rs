//! `swarm review comment|send|list|resolve|request`: review rounds on an
//! agent's worktree branch. Comments are anchored to the code line they
//! were made on, follow it when lines move, and turn outdated when it
//! changes; `send` delivers the unsent open ones as one message.

use clap::{Args, Subcommand};
use serde::Serialize;

use swarm_core::domain::validate;
use swarm_core::ops::{self, ReviewCommentPlan};
use swarm_core::support::sanitize;
use swarm_core::worktrees::Repository;
use swarm_core::{
    CommentStatus, Error, ExitCode, MessageType, Recipients, Result, ReviewComment, SendRequest,
    diff_summary, mark_comments_sent, refresh_comments, resolve_comment, review_request_text,
    review_round_text,
};

use crate::cli::context::Context;

/// Arguments of `swarm review`.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  swarm review request agent-0 --reviewer agent-1     send agent-1 the diff summary of agent-0's branch
  swarm review comment agent-0 src/app.py:42 'this misses the None case' --from agent-1
  swarm review list agent-0                           every comment, re-anchored to the code as it is now
  swarm review send agent-0                           the unsent open comments, as one message
  swarm review resolve c3

A comment keeps the code line it was made on: when lines are added or removed above it, it \
follows that line; when the line itself changes, it is marked outdated, never moved to other \
code. Comments are kept in .swarm/review.json.")]
pub(crate) struct ReviewArgs {
    #[command(subcommand)]
    command: ReviewCommand,
}

impl ReviewArgs {
    /// True for the subcommands that send nothing and change nothing but
    /// the comments' anchors.
    pub(crate) fn only_reads(&self) -> bool {
        matches!(self.command, ReviewCommand::List(_))
    }
}

#[derive(Debug, Subcommand)]
enum ReviewCommand {
    /// Comment on a line of an agent's worktree
    Comment(CommentArgs),
    /// Send the agent its unsent open comments as one message
    Send(SendArgs),
    /// List the comments (re-anchored to the code as it is now)
    List(ListArgs),
    /// Mark one comment resolved
    Resolve(ResolveArgs),
    /// Send a reviewer the diff summary of an agent's branch and how to comment
    Request(RequestArgs),
}

#[derive(Debug, Args)]
struct CommentArgs {
    /// The agent whose branch (swarm/AGENT) is reviewed
    #[arg(value_name = "AGENT")]
    agent: String,
    /// The file, relative to the top of the agent's worktree, and the line (src/app.py:42)
    #[arg(value_name = "PATH:LINE")]
    location: String,
    /// What should change
    #[arg(value_name = "TEXT", allow_hyphen_values = true)]
    text: String,
    /// The reviewing agent's id (default: you, the person)
    #[arg(long, value_name = "AGENT")]
    from: Option<String>,
    /// Print the comment as JSON
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Args)]
struct SendArgs {
    /// The agent to send its round to
    #[arg(value_name = "AGENT")]
    agent: String,
    /// Print what was sent as JSON
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Args)]
struct ListArgs {
    /// Only this agent's comments
    #[arg(value_name = "AGENT")]
    agent: Option<String>,
    /// Print the comments as JSON
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Args)]
struct ResolveArgs {
    /// The comment's id (c3, or 3)
    #[arg(value_name = "COMMENT_ID")]
    id: String,
    /// Print the comment as JSON
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Args)]
struct RequestArgs {
    /// The agent whose branch is to be reviewed
    #[arg(value_name = "AGENT")]
    agent: String,
    /// The agent asked to review it
    #[arg(long, value_name = "REVIEWER")]
    reviewer: String,
    /// Print what was sent as JSON
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct CommentJson<'a> {
    id: &'a str,
    agent: &'a str,
    author: &'a str,
    path: &'a str,
    line: u32,
    code: &'a str,
    text: &'a str,
    status: &'static str,
    created_at: &'a str,
    sent_at: Option<&'a str>,
}

impl<'a> CommentJson<'a> {
    fn of(c: &'a ReviewComment) -> CommentJson<'a> {
        CommentJson {
            id: &c.id,
            agent: &c.agent,
            author: &c.author,
            path: &c.path,
            line: c.line,
            code: &c.code,
            text: &c.text,
            status: c.status.as_str(),
            created_at: &c.created_at,
            sent_at: c.sent_at.as_deref(),
        }
    }
}

#[derive(Serialize)]
struct ListJson<'a> {
    comments: Vec<CommentJson<'a>>,
}

#[derive(Serialize)]
struct SentJson<'a> {
    agent: &'a str,
    message_id: Option<&'a str>,
    comments: Vec<CommentJson<'a>>,
}

/// Runs the `review` subcommand.
pub(crate) fn run(ctx: &Context, args: &ReviewArgs) -> Result<ExitCode> {
    match &args.command {
        ReviewCommand::Comment(a) => comment(ctx, a),
        ReviewCommand::Send(a) => send(ctx, a),
        ReviewCommand::List(a) => list(ctx, a),
        ReviewCommand::Resolve(a) => resolve(ctx, a),
        ReviewCommand::Request(a) => request(ctx, a),
    }
}

fn warn_all(ctx: &Context, warnings: &[String]) {
    for w in warnings {
        ctx.out.warn(w);
    }
}

fn comment(ctx: &Context, args: &CommentArgs) -> Result<ExitCode> {
    let agent = validate::agent_id(&args.agent)?.to_string();
    let author = match &args.from {
        Some(from) => validate::agent_id(from)?.to_string(),
        None => ctx.config()?.messaging.operator.clone(),
    };
    let plan = ReviewCommentPlan::new(&agent, &author, &args.location, &args.text)?;
    let repo = Repository::open(ctx.paths.root())?;
    let report = ops::review_comment(ctx.op()?, &repo, &plan)?;
    warn_all(ctx, &report.warnings);
    let c = &report.comment;
    if args.json {
        ctx.out.json(&CommentJson::of(c))?;
        return Ok(ExitCode::Success);
    }
    ctx.out.print(&format!(
        "Comment {} on {}:{} of {} ({}); `swarm review send {}` delivers it.\n",
        ctx.out.bold(&c.id),
        sanitize::one_line(&c.path),
        c.line,
        c.agent,
        sanitize::one_line(c.code.trim()),
        c.agent
    ))?;
    Ok(ExitCode::Success)
}

fn list(ctx: &Context, args: &ListArgs) -> Result<ExitCode> {
    let agent = args
        .agent
        .as_deref()
        .map(validate::agent_id)
        .transpose()?
        .map(|a| a.to_string());
    let repo = Repository::open(ctx.paths.root())?;
    let (comments, warnings) = refresh_comments(&repo, &ctx.paths, agent.as_deref())?;
    warn_all(ctx, &warnings);
    if args.json {
        ctx.out.json(&ListJson {
            comments: comments.iter().map(CommentJson::of).collect(),
        })?;
        return Ok(ExitCode::Success);
    }
    if comments.is_empty() {
        ctx.out.print("No review comments.\n")?;
        return Ok(ExitCode::Success);
    }
    let mut s = String::new();
    for c in &comments {
        let status = match c.status {
            CommentStatus::Open if c.sent_at.is_none() => "open, not sent".to_owned(),
            CommentStatus::Open => "open".to_owned(),
            other => other.as_str().to_owned(),
        };
        s.push_str(&format!(
            "{} {} {}:{} by {} [{}]\n    > {}\n    {}\n",
            ctx.out.bold(&c.id),
            c.agent,
            sanitize::one_line(&c.path),
            c.line,
            sanitize::one_line(&c.author),
            status,
            sanitize::one_line(c.code.trim()),
            sanitize::one_line(&c.text)
        ));
    }
    ctx.out.print(&s)?;
    Ok(ExitCode::Success)
}

fn resolve(ctx: &Context, args: &ResolveArgs) -> Result<ExitCode> {
    let (c, warnings) = resolve_comment(&ctx.paths, &args.id)?;
    warn_all(ctx, &warnings);
    if args.json {
        ctx.out.json(&CommentJson::of(&c))?;
        return Ok(ExitCode::Success);
    }
    ctx.out.print(&format!(
        "Resolved {} ({}:{} of {}).\n",
        c.id,
        sanitize::one_line(&c.path),
        c.line,
        c.agent
    ))?;
    Ok(ExitCode::Success)
}

/// Sends `text` to `to` as swarm itself, from the person.
fn tell(ctx: &Context, to: &str, msg_type: &'static str, text: String) -> Result<String> {
    let registry = ctx.registry_or_empty()?;
    if !registry.active().any(|r| r.id.as_str() == to) {
        return Err(Error::UnknownAgent {
            id: to.to_owned(),
            registry: ctx.paths.registry(),
            known: registry.active().map(|r| r.id.to_string()).collect(),
        });
    }
    let from = ctx.config()?.messaging.operator.clone();
    let mut req = SendRequest::new(
        from,
        Recipients::One(to.to_owned()),
        MessageType::builtin(msg_type),
        text,
    );
    req.system = true;
    let report = ctx.op()?.send(&registry, req)?;
    warn_all(ctx, &report.warnings);
    Ok(report.message.msg_id.to_string())
}

fn send(ctx: &Context, args: &SendArgs) -> Result<ExitCode> {
    let agent = validate::agent_id(&args.agent)?.to_string();
    let repo = Repository::open(ctx.paths.root())?;
    let (comments, warnings) = refresh_comments(&repo, &ctx.paths, Some(&agent))?;
    warn_all(ctx, &warnings);
    let round: Vec<ReviewComment> = comments
        .into_iter()
        .filter(|c| c.status == CommentStatus::Open && c.sent_at.is_none())
        .collect();
    if round.is_empty() {
        if args.json {
            ctx.out.json(&SentJson {
                agent: &agent,
                message_id: None,
                comments: Vec::new(),
            })?;
        } else {
            ctx.out.print(&format!(
                "No unsent open comments for {agent}: nothing to send.\n"
            ))?;
        }
        return Ok(ExitCode::Success);
    }
    let id = tell(
        ctx,
        &agent,
        "REVIEW-FEEDBACK",
        review_round_text(&agent, &round),
    )?;
    let ids: Vec<String> = round.iter().map(|c| c.id.clone()).collect();
    warn_all(ctx, &mark_comments_sent(&ctx.paths, &ids)?);
    if args.json {
        ctx.out.json(&SentJson {
            agent: &agent,
            message_id: Some(&id),
            comments: round.iter().map(CommentJson::of).collect(),
        })?;
        return Ok(ExitCode::Success);
    }
    ctx.out.print(&format!(
        "Sent {agent} {} comment{} in one message ({}).\n",
        round.len(),
        if round.len() == 1 { "" } else { "s" },
        ids.join(", ")
    ))?;
    Ok(ExitCode::Success)
}

#[derive(Serialize)]
struct RequestJson<'a> {
    agent: &'a str,
    reviewer: &'a str,
    branch: &'a str,
    message_id: &'a str,
    files: Vec<&'a str>,
}

fn request(ctx: &Context, args: &RequestArgs) -> Result<ExitCode> {
    let agent = validate::agent_id(&args.agent)?.to_string();
    let reviewer = validate::agent_id(&args.reviewer)?.to_string();
    if agent == reviewer {
        return Err(Error::Invalid(format!(
            "{agent} cannot review its own branch: name another agent with --reviewer"
        )));
    }
    let repo = Repository::open(ctx.paths.root())?;
    let summary = diff_summary(&repo, &agent)?;
    let id = tell(
        ctx,
        &reviewer,
        "REVIEW-REQUEST",
        review_request_text(&agent, &reviewer, &summary),
    )?;
    if args.json {
        ctx.out.json(&RequestJson {
            agent: &agent,
            reviewer: &reviewer,
            branch: &summary.branch,
            message_id: &id,
            files: summary.files.iter().map(|f| f.0.as_str()).collect(),
        })?;
        return Ok(ExitCode::Success);
    }
    ctx.out.print(&format!(
        "Asked {reviewer} to review {} ({} file{} changed).\n",
        summary.branch,
        summary.files.len(),
        if summary.files.len() == 1 { "" } else { "s" }
    ))?;
    Ok(ExitCode::Success)
}
