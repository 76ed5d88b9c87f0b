//! The conversation tools: `reply` (an answer linked to the message it
//! answers), `thread` (a whole conversation), `search_messages` (every
//! kept message, ranked) and `subscribe` / `unsubscribe` (topics). They run
//! the same operations as `swarm msg --reply-to`, `swarm thread`, `swarm
//! search` and `swarm subscribe`.

use serde_json::{Value, json};

use swarm_core::ops::{self, ReplyTarget, SendPlan, SubscribePlan, SubscribeReport};
use swarm_core::support::{sanitize, time};
use swarm_core::{
    AgentId, Error, IndexedMessage, Result, SearchRequest, Topic, message_index, search_query,
    thread_of,
};

use super::args;
use super::ops::{content, message_type, sent, urgency};
use super::project::Project;
use super::reply::Reply;
use super::tools;

/// A message of the index as the model reads it.
fn indexed_json(m: &IndexedMessage) -> Value {
    json!({
        "msg_id": m.msg_id,
        "sender": m.sender,
        "recipients": m.recipients,
        "type": sanitize::one_line(&m.msg_type),
        "timestamp": sanitize::one_line(&m.timestamp),
        "content": sanitize::strip_controls(&m.content),
        "reply_to": m.parent_msg_id,
        "thread": m.thread,
        "topic": m.topic,
    })
}

/// One line per message for the model's text.
fn lines(messages: &[IndexedMessage]) -> String {
    messages
        .iter()
        .map(|m| {
            format!(
                "\n[{} from {} #{}{}] {}",
                sanitize::one_line(&m.msg_type),
                m.sender,
                swarm_core::domain::short(&m.msg_id),
                m.parent_msg_id
                    .as_deref()
                    .map(|p| format!(", reply to #{}", swarm_core::domain::short(p)))
                    .unwrap_or_default(),
                sanitize::one_line(&m.content)
            )
        })
        .collect()
}

/// `reply`: an answer to the sender of the message named.
pub(super) fn reply(project: &Project, a: tools::ReplyTo) -> Result<Reply> {
    let msg_type = message_type(project, a.msg_type.as_deref().unwrap_or("INFO"))?;
    let body = content(&a.content)?;
    let sender = project.agent()?;
    let parent = ReplyTarget::find(&project.op, &a.message_id, "argument `message_id`")?;
    let to = args::agent_id("message_id", parent.answer_to(&sender)?)?;
    let registry = project.registry_or_empty()?;
    let plan = SendPlan::new(&sender, &to, msg_type, body)
        .reply_to(Some(&parent))
        .urgency(urgency(a.urgent));
    let report = ops::send(&project.op, &registry, &plan)?;
    let data = sent(&report)?;
    let id = &report.message.msg_id;
    let text = match report.outcomes.first() {
        Some((_, o)) if o.is_delivered() => format!("Replied to {to} (id {id})."),
        Some((_, o)) if o.waits_for_turn() => format!(
            "Reply to {to} accepted (id {id}): {to} is working, it is typed in when the turn ends."
        ),
        Some((_, o)) => format!(
            "Reply saved to {to}'s inbox: {} (id {id}).",
            o.reason.as_deref().unwrap_or("not delivered")
        ),
        None => format!("Logged (id {id})."),
    };
    Ok(Reply::new(text, data))
}

/// `thread`: the whole conversation.
pub(super) fn thread(project: &Project, a: tools::Thread) -> Result<Reply> {
    let backend = &project.op.backend;
    let index = message_index(&project.op.paths, backend.log.as_ref())?;
    let messages = thread_of(&index, &a.message_id)?;
    Ok(Reply::new(
        format!(
            "{} message(s), oldest first:{}",
            messages.len(),
            lines(&messages)
        ),
        json!({ "messages": messages.iter().map(indexed_json).collect::<Vec<_>>() }),
    ))
}

/// `search_messages`: every kept message, ranked.
pub(super) fn search(project: &Project, a: tools::SearchMessages) -> Result<Reply> {
    let agent = |name: &str, raw: &Option<String>| {
        raw.as_deref().map(|r| args::agent_id(name, r)).transpose()
    };
    let req = SearchRequest {
        text: a.text.clone(),
        from: agent("from", &a.from)?,
        to: agent("to", &a.to)?,
        msg_type: a.msg_type.clone(),
        since: a
            .since
            .as_deref()
            .map(|s| {
                time::parse_duration(s)
                    .map_err(|e| Error::Invalid(format!("argument `since`: {e}")))
            })
            .transpose()?,
        thread: a.thread.clone(),
        limit: a.limit.map(|n| n as usize),
    };
    let backend = &project.op.backend;
    let index = message_index(&project.op.paths, backend.log.as_ref())?;
    let query = search_query(&index, &req)?;
    let found = index.search(&query)?;
    Ok(Reply::new(
        format!(
            "{} message(s), best match first:{}",
            found.len(),
            lines(&found)
        ),
        json!({ "messages": found.iter().map(indexed_json).collect::<Vec<_>>() }),
    ))
}

/// `subscribe` and `unsubscribe`: the caller's topics.
pub(super) fn subscription(project: &Project, a: tools::Subscription, on: bool) -> Result<Reply> {
    let topic =
        Topic::parse(&a.topic).map_err(|e| Error::Invalid(format!("argument `topic`: {e}")))?;
    let agent = AgentId::parse(&project.agent()?)?;
    let plan = if on {
        SubscribePlan::follow(topic, agent)
    } else {
        SubscribePlan::leave(topic, agent)
    };
    let SubscribeReport {
        changed,
        topics: mine,
    } = ops::subscribe(&project.op, &plan)?;
    let (agent, t) = (plan.agent(), plan.topic().as_str());
    let text = match (on, changed) {
        (true, true) => format!("You follow {t} now."),
        (true, false) => format!("You already follow {t}."),
        (false, true) => format!("You no longer follow {t}."),
        (false, false) => format!("You did not follow {t}."),
    };
    Ok(Reply::new(text, json!({ "agent": agent, "topics": mine })))
}
