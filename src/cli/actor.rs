//! Which agent a command acts as (the sender of a message, the holder of a
//! lock): detected from the pane it runs in, or named explicitly. Inside an
//! agent's pane, naming a different agent is refused unless the caller says
//! `--as-other`, so an agent cannot speak for another by accident. A named
//! agent must be in the registry; only a message's sender may instead be
//! the operator (`messaging.operator`), a person outside the agents' panes.

use swarm_core::agents::identity;
use swarm_core::domain::validate;
use swarm_core::{AgentStatus, AuditEvent, AuditKind, AuditLog, Error, PaneId, Result};

use crate::cli::context::Context;

/// The agent a command acts as.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Actor {
    /// The agent id.
    pub id: String,
    /// True when an explicit id overrode this pane's own identity
    /// (`--as-other`); callers record that.
    pub as_other: bool,
    /// This pane's own agent id, when it has one.
    pub pane_agent: Option<String>,
}

/// Resolves the acting agent. `explicit` is the value of `flag` (`--from`,
/// `--agent`), validated as an agent id and looked up in the registry.
pub(super) fn resolve(
    ctx: &Context,
    explicit: Option<&str>,
    as_other: bool,
    flag: &str,
) -> Result<Actor> {
    resolve_as(ctx, explicit, as_other, flag, Check::Registered)
}

/// Resolves the acting agent of a task-coordination command: an explicit
/// id need not be registered, because cards, tasks and memories (the
/// Python tool's agent-to-agent records) also name agents that run in no
/// pane of this project.
pub(super) fn resolve_any(
    ctx: &Context,
    explicit: Option<&str>,
    as_other: bool,
    flag: &str,
) -> Result<Actor> {
    resolve_as(ctx, explicit, as_other, flag, Check::Any)
}

/// Which explicit ids are accepted.
enum Check<'a> {
    /// Registered agents only.
    Registered,
    /// Registered agents and the operator (a message's sender).
    OrPerson(&'a str),
    /// Any well-formed id.
    Any,
}

/// Resolves the sender of a message: like [`resolve`], but outside tmux the
/// sender defaults to the operator, and `--from` may name the operator.
pub(super) fn resolve_sender(
    ctx: &Context,
    explicit: Option<&str>,
    as_other: bool,
    flag: &str,
) -> Result<Actor> {
    let person = ctx.config()?.messaging.operator.clone();
    resolve_as(ctx, explicit, as_other, flag, Check::OrPerson(&person))
}

fn resolve_as(
    ctx: &Context,
    explicit: Option<&str>,
    as_other: bool,
    flag: &str,
    check: Check<'_>,
) -> Result<Actor> {
    let explicit = explicit
        .map(|id| validate::agent_id(id).map_err(|e| Error::Invalid(format!("{flag}: {e}"))))
        .transpose()?;
    let registry = ctx.registry()?;
    let person = match check {
        Check::OrPerson(name) => Some(name),
        _ => None,
    };
    if let Some(id) = &explicit
        && !matches!(check, Check::Any)
        && person != Some(id.as_str())
    {
        known_agent(ctx, registry, id)?;
    }
    let pane = identity::current_pane()?;
    let pane_agent = match &pane {
        Some(pane) => {
            identity::identify(
                &ctx.tmux,
                ctx.backend()?.registry.as_ref(),
                &ctx.paths,
                registry,
                pane.clone(),
            )
            .agent
        }
        None => None,
    };
    match (explicit, pane_agent) {
        (Some(id), Some(own)) if id != own => {
            if as_other {
                Ok(Actor {
                    id,
                    as_other: true,
                    pane_agent: Some(own),
                })
            } else {
                Err(Error::Invalid(format!(
                    "this pane is {own}, but {flag} {id} names another agent; \
                     add --as-other to act for {id} deliberately (it is recorded)"
                )))
            }
        }
        (Some(id), own) => Ok(Actor {
            id,
            as_other: false,
            pane_agent: own,
        }),
        (None, Some(own)) => Ok(Actor {
            id: own.clone(),
            as_other: false,
            pane_agent: Some(own),
        }),
        (None, None) if pane.is_none() && person.is_some() => Ok(Actor {
            id: person.unwrap_or_default().to_owned(),
            as_other: false,
            pane_agent: None,
        }),
        (None, None) => Err(Error::NoIdentity(match pane {
            Some(pane) => format!(
                "pane {pane} is not a registered agent of this project, so {flag} is required"
            ),
            None => format!("not running inside a tmux pane, so {flag} is required"),
        })),
    }
}

/// Fails with the list of agents unless `id` is a registered agent (active
/// or stale): an id that is no agent's would lock files, or read an inbox,
/// for nobody.
pub(super) fn known_agent(
    ctx: &Context,
    registry: Option<&swarm_core::Registry>,
    id: &str,
) -> Result<()> {
    if registry
        .and_then(|r| r.find(id))
        .is_some_and(|a| a.status != AgentStatus::Dead)
    {
        return Ok(());
    }
    Err(Error::UnknownAgent {
        id: id.to_owned(),
        registry: ctx.backend()?.registry.location().into(),
        known: registry
            .map(|r| r.active().map(|a| a.id.to_string()).collect())
            .unwrap_or_default(),
    })
}

/// The agent this process's pane is, if any (no error outside tmux).
pub(super) fn detect(ctx: &Context) -> Result<Option<String>> {
    let pane = identity::current_pane()?;
    pane_agent(ctx, pane.as_ref())
}

fn pane_agent(ctx: &Context, pane: Option<&PaneId>) -> Result<Option<String>> {
    Ok(match pane {
        Some(pane) => {
            let registry = ctx.registry()?;
            identity::identify(
                &ctx.tmux,
                ctx.backend()?.registry.as_ref(),
                &ctx.paths,
                registry,
                pane.clone(),
            )
            .agent
        }
        None => None,
    })
}

/// Records in the audit log that `actor` acted for another agent than its
/// pane's own (`--as-other`) to do `action`; does nothing otherwise.
pub(super) fn record_as_other(ctx: &Context, actor: &Actor, action: &str) -> Result<()> {
    if !actor.as_other {
        return Ok(());
    }
    let mut e = AuditEvent::new(AuditKind::AsOther, Some(&actor.id));
    e.detail = Some(format!(
        "{action} from the pane of {}",
        actor.pane_agent.as_deref().unwrap_or("?")
    ));
    Ok(AuditLog::new(&ctx.paths).record(&[e])?)
}
