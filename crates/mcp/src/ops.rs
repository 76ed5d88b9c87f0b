//! What each tool does: the operations the matching `swarm` commands run
//! (the same functions, so the same rules), for the agent this server acts
//! as, returning a short text and the facts as JSON. Synchronous: the
//! server runs them off its event loop.

use std::time::Duration;

use serde_json::{Value, json};

use swarm_core::a2a::{NewTask, Task, TaskFilter, TaskPriority, TaskStatus, TaskStore, select};
use swarm_core::agents::identity;
use swarm_core::domain::message;
use swarm_core::ops::{
    self, AckPlan, Acknowledgement, BroadcastPlan, LockPlan, RenewPlan, SendPlan, UnlockPlan,
};
use swarm_core::support::sanitize;
use swarm_core::{
    AckResult, Acquired, Chores, DeliveryStatus, Error, HeldLock, LockEntry, LockKey, LockRecord,
    LockStore, MessageType, MessageView, Released, Result, Selection, SendReport, Urgency,
    parse_ttl, topics_of, unix_now,
};

use super::args;
use super::conversations;
use super::project::Project;
use super::reply::Reply;
use super::review;
use super::tools::{self, Tool};

/// Runs the tool `name` with arguments already checked against its schema
/// by `args::parse`.
pub(super) fn call(
    project: &Project,
    name: &str,
    raw: Option<serde_json::Map<String, Value>>,
) -> Result<Reply> {
    let Some(tool) = Tool::find(name) else {
        return Err(Error::Invalid(format!(
            "no tool called {:?}; the tools are: {}",
            sanitize::one_line(name),
            Tool::ALL
                .iter()
                .map(|t| t.name())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    };
    let schema = tool.schema();
    let reply = match tool {
        Tool::Whoami => {
            args::parse::<tools::NoArgs>(&schema, raw)?;
            whoami(project)
        }
        Tool::ListAgents => {
            args::parse::<tools::NoArgs>(&schema, raw)?;
            list_agents(project)
        }
        Tool::SendMessage => send_message(project, args::parse(&schema, raw)?),
        Tool::Broadcast => broadcast(project, args::parse(&schema, raw)?),
        Tool::Reply => conversations::reply(project, args::parse(&schema, raw)?),
        Tool::Thread => conversations::thread(project, args::parse(&schema, raw)?),
        Tool::SearchMessages => conversations::search(project, args::parse(&schema, raw)?),
        Tool::Subscribe => conversations::subscription(project, args::parse(&schema, raw)?, true),
        Tool::Unsubscribe => {
            conversations::subscription(project, args::parse(&schema, raw)?, false)
        }
        Tool::ReadMessages => read_messages(project, args::parse(&schema, raw)?),
        Tool::Acknowledge => acknowledge(project, args::parse(&schema, raw)?),
        Tool::Lock => lock(project, args::parse(&schema, raw)?),
        Tool::Renew => renew(project, args::parse(&schema, raw)?),
        Tool::Unlock => unlock(project, args::parse(&schema, raw)?),
        Tool::WhoHolds => who_holds(project, args::parse(&schema, raw)?),
        Tool::ListLocks => {
            args::parse::<tools::NoArgs>(&schema, raw)?;
            list_locks(project)
        }
        Tool::PendingAcks => {
            args::parse::<tools::NoArgs>(&schema, raw)?;
            pending_acks(project)
        }
        Tool::CreateTask => create_task(project, args::parse(&schema, raw)?),
        Tool::ClaimTask => claim_task(project, args::parse(&schema, raw)?),
        Tool::UpdateTask => update_task(project, args::parse(&schema, raw)?),
        Tool::ListTasks => list_tasks(project, args::parse(&schema, raw)?),
        Tool::ReviewComment => review::comment(project, args::parse(&schema, raw)?),
    };
    // As after every command: send ACK retries that fell due.
    housekeeping(project);
    reply
}

/// Due ACK retries and escalations (a cheap check when nothing is due);
/// problems are left for the next command to report.
fn housekeeping(project: &Project) {
    let chores = Chores {
        ack_retries: true,
        ..Chores::default()
    };
    let _ = project.op.housekeeping(chores);
}

fn whoami(project: &Project) -> Result<Reply> {
    let agent = project.agent()?;
    let registry = project.registry()?;
    let record = registry.as_ref().and_then(|r| r.find(&agent));
    let pane = identity::current_pane()?.map(|p| p.as_str().to_owned());
    let root = project.op.paths.root().display().to_string();
    Ok(Reply::new(
        format!("You are {agent} in {root}."),
        json!({
            "agent": agent,
            "pane": pane,
            "status": record.map(|r| r.status.as_str()),
            "session": record.map(|r| r.session_name.clone()),
            "project_root": root,
        }),
    ))
}

fn list_agents(project: &Project) -> Result<Reply> {
    let me = project.agent().ok();
    let registry = project.registry()?;
    let subscriptions = project.op.backend.topics.all()?;
    let agents: Vec<Value> = registry
        .iter()
        .flat_map(|r| r.agents.iter())
        .map(|a| {
            json!({
                "id": a.id,
                "status": a.status.as_str(),
                "pane": a.tmux_pane_id,
                "pane_index": a.pane_index,
                "session": a.session_name,
                "last_seen": a.last_seen,
                "topics": topics_of(&subscriptions, a.id.as_str()),
                "is_you": me.as_deref() == Some(a.id.as_str()),
            })
        })
        .collect();
    let mut text = format!("{} agent(s):", agents.len());
    for a in registry.iter().flat_map(|r| r.agents.iter()) {
        text.push_str(&format!("\n  {} ({})", a.id, a.status.as_str()));
        if me.as_deref() == Some(a.id.as_str()) {
            text.push_str(" - you");
        }
    }
    Ok(Reply::new(text, json!({ "agents": agents })))
}

/// A message type as the project accepts it.
pub(super) fn message_type(project: &Project, raw: &str) -> Result<MessageType> {
    MessageType::parse(raw, &project.config.messaging.custom_types)
        .map_err(|e| Error::Invalid(format!("argument `type`: {e}")))
}

/// A message body, cleaned and size-checked as the command line does.
pub(super) fn content(raw: &str) -> Result<String> {
    message::clean_content(raw).map_err(|e| Error::Invalid(format!("argument `content`: {e}")))
}

/// A send's facts: the core's one JSON view of a send (`SendReport::view`,
/// as `swarm msg --json` prints it); a rate-limited send is an error (the
/// message is kept in the inbox, as the error says).
pub(super) fn sent(report: &SendReport) -> Result<Value> {
    if let Some(refused) = report.rate_limit_error() {
        return Err(refused);
    }
    Ok(report.view().to_value())
}

/// How urgently a message goes in: at once into a busy pane when `urgent`.
pub(super) fn urgency(urgent: bool) -> Urgency {
    if urgent {
        Urgency::Urgent
    } else {
        Urgency::Normal
    }
}

fn send_message(project: &Project, a: tools::SendMessage) -> Result<Reply> {
    let to = args::agent_id("to", &a.to)?;
    let msg_type = message_type(project, &a.msg_type)?;
    let body = content(&a.content)?;
    let sender = project.agent()?;
    let registry = project.registry_or_empty()?;
    let plan = SendPlan::new(&sender, &to, msg_type, body)
        .ack(a.ack, None)
        .urgency(urgency(a.urgent));
    let report = ops::send(&project.op, &registry, &plan)?;
    let data = sent(&report)?;
    let id = &report.message.msg_id;
    let mut text = match report.outcomes.first() {
        Some((_, o)) if o.is_delivered() => format!("Delivered to {to} (id {id})."),
        Some((_, o)) if o.waits_for_turn() => format!(
            "Accepted for {to} (id {id}): {to} is working, and it is typed in when the turn ends."
        ),
        Some((_, o)) => format!(
            "Saved to {to}'s inbox, not typed into their pane: {} (id {id}). They will see it \
             when they read their messages.",
            o.reason.as_deref().unwrap_or("not delivered")
        ),
        None => format!("Logged (id {id})."),
    };
    if a.ack {
        text.push_str(&format!(
            " {to} must acknowledge it; it is retried until they do."
        ));
    }
    Ok(Reply::new(text, data))
}

fn broadcast(project: &Project, a: tools::Broadcast) -> Result<Reply> {
    let msg_type = message_type(project, &a.msg_type)?;
    let body = content(&a.content)?;
    let sender = project.agent()?;
    let registry = project.registry_or_empty()?;
    let plan = BroadcastPlan::new(&sender, msg_type, body)
        .urgency(urgency(a.urgent))
        .topic(a.topic.as_deref(), "argument `topic`")?;
    let report = ops::broadcast(&project.op, &registry, &plan)?;
    let data = sent(&report)?;
    let total = report.outcomes.len();
    let ok = report.delivered();
    Ok(Reply::new(
        format!(
            "Broadcast to {total} agent(s): {ok} delivered, {} kept in their inbox (id {}).",
            total - ok,
            report.message.msg_id
        ),
        data,
    ))
}

fn message_json(v: &MessageView, agent: &str) -> Value {
    let m = &v.message;
    let outcome = v.outcome_for(agent);
    json!({
        "msg_id": m.msg_id,
        "sender": m.sender,
        "type": m.msg_type,
        "timestamp": v.timestamp,
        "content": sanitize::strip_controls(&m.content),
        "requires_ack": m.requires_ack,
        "delivered_to_pane": outcome.map(|o| o.is_delivered()),
        "queued_reason": outcome
            .filter(|o| o.status == DeliveryStatus::Queued)
            .and_then(|o| o.reason.clone()),
    })
}

/// The unread messages of `agent`, up to `limit`, without marking them.
pub(super) fn peek_inbox(project: &Project, agent: &str, limit: usize) -> Result<Value> {
    let log = &project.op.backend.log;
    let (cursor, _) = log.cursor(agent)?;
    let view = log.inbox(agent, cursor.as_ref(), &Selection::New, Some(limit))?;
    Ok(json!({
        "agent": agent,
        "unread": view.unread,
        "messages": view.shown.iter().map(|v| message_json(v, agent)).collect::<Vec<_>>(),
    }))
}

fn read_messages(project: &Project, a: tools::ReadMessages) -> Result<Reply> {
    let agent = project.agent()?;
    let limit = a.limit.unwrap_or(10) as usize;
    let (view, note) = project.op.backend.log.take_new(&agent, Some(limit))?;
    let mut text = if view.shown.is_empty() {
        "No new messages.".to_owned()
    } else {
        format!("{} new message(s):", view.shown.len())
    };
    for v in &view.shown {
        let m = &v.message;
        text.push_str(&format!(
            "\n[{} from {}] {} (id {}{})",
            m.msg_type.as_str(),
            m.sender,
            sanitize::one_line(&m.content),
            m.msg_id.short(),
            if m.requires_ack {
                ", acknowledge it"
            } else {
                ""
            }
        ));
    }
    if view.held_back > 0 {
        text.push_str(&format!(
            "\n{} more unread: call read_messages again.",
            view.held_back
        ));
    }
    Ok(Reply::new(
        text,
        json!({
            "agent": agent,
            "messages": view.shown.iter().map(|v| message_json(v, &agent)).collect::<Vec<_>>(),
            "remaining": view.held_back,
            "note": note,
        }),
    ))
}

fn acknowledge(project: &Project, a: tools::Acknowledge) -> Result<Reply> {
    let agent = project.agent()?;
    let prefix = ops::message_prefix(&a.message_id).map_err(|e| match e {
        Error::Invalid(why) => Error::Invalid(format!("argument `message_id`: {why}")),
        e => e,
    })?;
    let plan = AckPlan::new(&prefix, &agent)?.note(a.note.as_deref());
    let registry = project.registry_or_empty()?;
    match ops::ack(&project.op, &registry, &plan)?.done {
        Acknowledgement::Sent { entry, report } => Ok(Reply::new(
            format!(
                "Acknowledged {}; {} was told.",
                entry.msg_id, entry.sender_id
            ),
            json!({
                "msg_id": entry.msg_id,
                "acknowledged": true,
                "sender": entry.sender_id,
                "ack_delivered": report.delivered() > 0,
            }),
        )),
        Acknowledgement::NotPending(settled) => {
            let id = settled.msg_id.to_string();
            Ok(Reply::new(
                format!(
                    "Nothing is pending for message {id} (already acknowledged, or it did not ask for it)."
                ),
                json!({ "msg_id": id, "acknowledged": false }),
            ))
        }
        Acknowledgement::Refused(AckResult::NotRecipient { msg_id, recipient }) => {
            Err(Error::Invalid(format!(
                "only {recipient} can acknowledge message {msg_id} (you are {agent})"
            )))
        }
        Acknowledgement::Refused(AckResult::Ambiguous(ids)) => Err(Error::Invalid(format!(
            "argument `message_id`: {} matches {} pending messages ({}); give more of the id",
            plan.prefix(),
            ids.len(),
            ids.join(", ")
        ))),
        Acknowledgement::Refused(AckResult::NotPending | AckResult::Acknowledged(_)) => {
            Err(Error::UnknownMessage(plan.prefix().to_owned()))
        }
    }
}

fn lock_json(r: &LockRecord, table: &dyn LockStore, now: f64) -> Value {
    let mut v = json!({
        "path": sanitize::one_line(&r.filepath),
        "holder": r.agent_id,
        "reason": sanitize::one_line(&r.reason),
        "age_seconds": (r.age(now) * 10.0).round() / 10.0,
        "stale": table.is_stale(r, now),
        "shared": r.shared,
    });
    if r.shared {
        v["holders"] = r
            .holds()
            .iter()
            .map(|h| {
                json!({
                    "agent": h.agent_id,
                    "reason": sanitize::one_line(&h.reason),
                    "expires_in_seconds": h.expires_at.map(|end| left(end, now)),
                })
            })
            .collect();
    }
    if let Some(end) = r.expires_at {
        v["expires_at"] = json!(end);
        v["expires_in_seconds"] = json!(left(end, now));
    }
    v
}

/// Seconds from `now` until `end`, one decimal, never negative.
fn left(end: f64, now: f64) -> f64 {
    ((end - now).max(0.0) * 10.0).round() / 10.0
}

/// The lock keys of `paths`, all valid or an error.
fn lock_keys(project: &Project, paths: &[String]) -> Result<Vec<LockKey>> {
    paths.iter().map(|p| project.lock_key(p)).collect()
}

/// A lease length argument (`ttl`).
fn ttl(raw: Option<&str>) -> Result<Option<Duration>> {
    raw.map(|t| parse_ttl(t).map_err(|e| Error::Invalid(format!("argument `ttl`: {e}"))))
        .transpose()
}

fn lock(project: &Project, a: tools::Lock) -> Result<Reply> {
    let ttl = ttl(a.ttl.as_deref())?;
    let keys = lock_keys(project, &a.paths)?;
    let agent = project.agent()?;
    let plan = LockPlan::new(keys, &agent, a.reason.as_deref())?
        .shared(a.shared)
        .lease(ttl)
        .wait(a.wait_seconds.map(|s| Duration::from_secs(u64::from(s))));
    let acquired = ops::lock(&project.op, &plan)?.acquired;
    let table = project.locks();
    let now = unix_now();
    let mut text = String::new();
    for l in &acquired {
        let how = match &l.how {
            Acquired::Created => "locked".to_owned(),
            Acquired::Joined => "locked (shared with others)".to_owned(),
            Acquired::Refreshed => "refreshed".to_owned(),
            Acquired::Renewed => "renewed".to_owned(),
            Acquired::TookOver(old) => {
                format!("locked (took over {}'s stale lock)", old.record.agent_id)
            }
        };
        text.push_str(&format!(
            "{how}: {}\n",
            sanitize::one_line(&l.record.filepath)
        ));
    }
    Ok(Reply::new(
        text,
        json!({
            "agent": agent,
            "acquired": acquired.iter().map(|l| lock_json(&l.record, table, now)).collect::<Vec<_>>(),
        }),
    ))
}

fn renew(project: &Project, a: tools::Renew) -> Result<Reply> {
    let ttl = ttl(a.ttl.as_deref())?;
    let keys = lock_keys(project, &a.paths)?;
    let agent = project.agent()?;
    let renewed = ops::renew(&project.op, &RenewPlan::new(keys, &agent).lease(ttl))?.renewed;
    let table = project.locks();
    let now = unix_now();
    let mut text = String::new();
    for l in &renewed {
        let mine = l.record.holds().into_iter().find(|h| h.agent_id == agent);
        let until = match mine.and_then(|h| h.expires_at) {
            Some(end) => format!(" (lease ends in {:.0}s)", left(end, now)),
            None => String::new(),
        };
        text.push_str(&format!(
            "renewed: {}{until}\n",
            sanitize::one_line(&l.record.filepath)
        ));
    }
    Ok(Reply::new(
        text,
        json!({
            "agent": agent,
            "renewed": renewed.iter().map(|l| lock_json(&l.record, table, now)).collect::<Vec<_>>(),
        }),
    ))
}

fn unlock(project: &Project, a: tools::Unlock) -> Result<Reply> {
    let keys = lock_keys(project, &a.paths)?;
    let agent = project.agent()?;
    let released = ops::unlock(&project.op, &UnlockPlan::new(keys, &agent))?.released;
    let mut text = String::new();
    let mut rows = Vec::new();
    for (key, how) in released {
        let path = sanitize::one_line(key.as_str());
        let done = matches!(how, Released::Removed(_) | Released::Left(_));
        text.push_str(&if done {
            format!("released: {path}\n")
        } else {
            format!("not locked: {path} (nothing to release)\n")
        });
        rows.push(json!({ "path": path, "released": done }));
    }
    Ok(Reply::new(text, json!({ "paths": rows })))
}

fn who_holds(project: &Project, a: tools::WhoHolds) -> Result<Reply> {
    let key = project.lock_key(&a.path)?;
    let table = project.locks();
    let related = table.related(&key)?;
    let now = unix_now();
    let mut damaged = None;
    let mut locks: Vec<HeldLock> = Vec::new();
    match related.exact {
        Some(LockEntry::Held(held)) => locks.push(held),
        Some(LockEntry::Damaged { problem, .. }) => damaged = Some(sanitize::one_line(&problem)),
        None => {}
    }
    locks.extend(related.others);
    let path = sanitize::one_line(key.as_str());
    let mut text = if locks.is_empty() {
        format!("No lock on {path}.")
    } else {
        format!("{} lock(s) on or overlapping {path}:", locks.len())
    };
    for h in &locks {
        text.push_str(&format!(
            "\n  {} held by {}{}",
            sanitize::one_line(&h.record.filepath),
            h.record.agent_id,
            if table.is_stale(&h.record, now) {
                " (stale)"
            } else {
                ""
            }
        ));
    }
    if let Some(d) = &damaged {
        text.push_str(&format!(
            "\nIts lock file is damaged ({d}); `swarm locks --clean` removes it."
        ));
    }
    Ok(Reply::new(
        text,
        json!({
            "path": path,
            "locks": locks.iter().map(|h| lock_json(&h.record, table, now)).collect::<Vec<_>>(),
            "damaged": damaged,
        }),
    ))
}

fn list_locks(project: &Project) -> Result<Reply> {
    let table = project.locks();
    let now = unix_now();
    let mut rows = Vec::new();
    let mut text = String::new();
    for entry in table.list()? {
        if let LockEntry::Held(h) = entry {
            text.push_str(&format!(
                "\n  {} held by {}",
                sanitize::one_line(&h.record.filepath),
                h.record.agent_id
            ));
            rows.push(lock_json(&h.record, table, now));
        }
    }
    Ok(Reply::new(
        format!("{} lock(s).{text}", rows.len()),
        json!({ "locks": rows }),
    ))
}

fn pending_acks(project: &Project) -> Result<Reply> {
    let settings = &project.op.acks;
    let pending = project.op.backend.acks.list()?;
    let problem = pending.problem;
    let me = project.agent().ok();
    let rows: Vec<Value> = pending
        .entries
        .iter()
        .map(|e| {
            json!({
                "msg_id": e.msg_id,
                "sender": e.sender_id,
                "recipient": e.recipient_id,
                "sent_at": e.sent_at.local_naive_iso(),
                "retry_count": e.retry_count,
                "max_retries": settings.max_retries,
                "next_retry_at": e.next_retry_at.local_naive_iso(),
                "yours_to_acknowledge": me.as_deref() == Some(e.recipient_id.as_str()),
            })
        })
        .collect();
    let mut text = format!("{} message(s) wait for an acknowledgement.", rows.len());
    for e in &pending.entries {
        text.push_str(&format!(
            "\n  {} {} -> {}",
            e.msg_id.short(),
            e.sender_id,
            e.recipient_id
        ));
    }
    Ok(Reply::new(
        text,
        json!({ "pending": rows, "problem": problem }),
    ))
}

fn task_json(t: &Task) -> Value {
    json!({
        "task_id": t.task_id,
        "objective": sanitize::strip_controls(&t.objective),
        "status": t.status.as_str(),
        "priority": t.priority.as_str(),
        "created_by": t.created_by,
        "assigned_to": t.assigned_to,
        "files": t.files,
        "constraints": t.constraints,
        "created_at": t.created_at,
        "updated_at": t.updated_at,
    })
}

fn status(name: &str, raw: &str) -> Result<TaskStatus> {
    raw.trim()
        .to_lowercase()
        .parse()
        .map_err(|e| Error::Invalid(format!("argument `{name}`: {e} (one of pending, assigned, working, review, completed, blocked, failed, cancelled)")))
}

fn list_arg(raw: Option<Vec<String>>) -> Vec<String> {
    raw.unwrap_or_default()
        .iter()
        .map(|s| sanitize::one_line(s).trim().to_owned())
        .filter(|s| !s.is_empty())
        .collect()
}

fn create_task(project: &Project, a: tools::CreateTask) -> Result<Reply> {
    let objective = args::text("objective", &a.objective)?;
    let priority = match a.priority.as_deref() {
        None => TaskPriority::Normal,
        Some(p) => p.trim().to_lowercase().parse().map_err(|e| {
            Error::Invalid(format!(
                "argument `priority`: {e} (one of low, normal, high, critical)"
            ))
        })?,
    };
    let agent = project.agent()?;
    let spec = NewTask {
        objective,
        created_by: agent,
        priority,
        constraints: list_arg(a.constraints),
        files: list_arg(a.files),
        context_id: None,
    };
    let task = TaskStore::new(project.op.backend.a2a.as_ref()).create(spec, &mut Vec::new())?;
    Ok(Reply::new(
        format!("Task created: {} ({}).", task.task_id, task.priority),
        json!({ "task": task_json(&task) }),
    ))
}

fn claim_task(project: &Project, a: tools::ClaimTask) -> Result<Reply> {
    let agent = project.agent()?;
    let task = TaskStore::new(project.op.backend.a2a.as_ref()).claim(
        &a.task_id,
        &agent,
        &mut Vec::new(),
    )?;
    Ok(Reply::new(
        format!("You have task {} ({}).", task.task_id, task.status),
        json!({ "task": task_json(&task) }),
    ))
}

fn update_task(project: &Project, a: tools::UpdateTask) -> Result<Reply> {
    let to = a
        .status
        .as_deref()
        .map(|s| status("status", s))
        .transpose()?;
    let assignee = a
        .assignee
        .as_deref()
        .map(|s| args::agent_id("assignee", s))
        .transpose()?;
    if to.is_none() && assignee.is_none() {
        return Err(Error::Invalid(
            "give `status`, `assignee` or both: there is nothing to change".into(),
        ));
    }
    let message = match a.message.as_deref().map(str::trim) {
        None | Some("") => String::new(),
        Some(m) => args::text("message", m)?,
    };
    let by = project.agent()?;
    // Assignee first, then the status, as `swarm tasks update` does.
    let (task, ()) = TaskStore::new(project.op.backend.a2a.as_ref()).modify(
        &a.task_id,
        &mut Vec::new(),
        |task| {
            let before = task.status;
            if let Some(agent) = &assignee {
                task.assign(agent, &message)?;
            }
            if let Some(to) = to {
                let done_by_assign = assignee.is_some() && task.status == to && before != to;
                if !done_by_assign {
                    task.transition(to, &by, &message)?;
                }
            }
            Ok(())
        },
    )?;
    Ok(Reply::new(
        format!(
            "Task {} is {}{}.",
            task.task_id,
            task.status,
            task.assigned_to
                .as_deref()
                .map(|a| format!(", assigned to {a}"))
                .unwrap_or_default()
        ),
        json!({ "task": task_json(&task) }),
    ))
}

fn list_tasks(project: &Project, a: tools::ListTasks) -> Result<Reply> {
    let filter = TaskFilter {
        status: a
            .status
            .as_deref()
            .map(|s| status("status", s))
            .transpose()?,
        assignee: a
            .assignee
            .as_deref()
            .map(|s| args::agent_id("assignee", s))
            .transpose()?,
        all: a.all,
    };
    let tasks = TaskStore::new(project.op.backend.a2a.as_ref()).all(&mut Vec::new())?;
    let chosen = select(&tasks, &filter);
    let mut text = format!("{} task(s):", chosen.len());
    for t in &chosen {
        text.push_str(&format!(
            "\n  {} [{}] {} - {}",
            t.task_id,
            t.status,
            sanitize::one_line(&t.objective)
                .chars()
                .take(60)
                .collect::<String>(),
            t.assigned_to.as_deref().unwrap_or("unassigned")
        ));
    }
    Ok(Reply::new(
        text,
        json!({ "tasks": chosen.iter().map(|t| task_json(t)).collect::<Vec<_>>() }),
    ))
}
