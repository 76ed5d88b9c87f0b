//! What the person at the page can do, as the operator: send a message or
//! a broadcast, answer an agent's dialog, acknowledge a pending message
//! for its recipient, force-release a lock, and deliver the held messages
//! whose pane is safe now (what every command's housekeeping does, without
//! waiting for its next round). Each runs the same operations as the
//! commands (`swarm msg` / `broadcast`, `swarm answer`, `swarm ack --agent
//! RECIPIENT`, `swarm unlock --force`), so the checks, the log, the audit
//! trail and the delivery are theirs; the answer says what happened, for
//! the page to show.

use axum::http::StatusCode;
use serde::Deserialize;
use serde_json::{Value, json};

use swarm_core::domain::message;
use swarm_core::domain::validate;
use swarm_core::ops::{
    self, AckPlan, Acknowledgement, Answer, AnswerPlan, BroadcastPlan, SendPlan, UnlockPlan,
};
use swarm_core::read_acks;
use swarm_core::support::sanitize;
use swarm_core::{
    AckResult, AuditEvent, AuditKind, AuditLog, Choice, Chores, Error, LockKey, MessageType,
    ReleaseReport, Released, SendReport,
};

use super::settings::Settings;

/// The body of `POST /api/v1/actions/send`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct SendBody {
    /// An agent id, or `all` for a broadcast.
    to: String,
    /// The message type (as `swarm msg` takes it).
    #[serde(rename = "type")]
    msg_type: String,
    /// The text.
    content: String,
    /// Ask the recipient for an acknowledgement (one recipient only).
    #[serde(default)]
    ack: bool,
}

/// The body of `POST /api/v1/actions/answer`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct AnswerBody {
    /// The agent whose dialog to answer.
    agent: String,
    /// The option: its number (`"2"` or `2`), `"yes"` or `"no"`; null
    /// with `escape`.
    #[serde(default)]
    option: Option<Value>,
    /// Cancel the dialog (Escape) instead.
    #[serde(default)]
    escape: bool,
    /// The fingerprint of the dialog the person saw (as
    /// `GET /api/v1/attention` gives it): when the pane shows another
    /// dialog by now, nothing is typed.
    #[serde(default)]
    dialog: Option<String>,
}

/// The body of `POST /api/v1/actions/ack`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct AckBody {
    /// The pending message's id.
    msg_id: String,
}

/// The body of `POST /api/v1/actions/unlock`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct UnlockBody {
    /// The locked path or pattern, as the lock list shows it.
    path: String,
}

/// An action's answer: a status and a JSON body.
pub(super) type Outcome = (StatusCode, Value);

fn refused(status: StatusCode, why: impl std::fmt::Display) -> Outcome {
    (status, json!({"ok": false, "detail": why.to_string()}))
}

/// The status an operation's failure is answered with.
fn failure(e: &Error) -> Outcome {
    let status = match e {
        Error::Invalid(_) | Error::Usage(_) | Error::NoRecipients(_) | Error::NoSubscribers(_) => {
            StatusCode::UNPROCESSABLE_ENTITY
        }
        Error::UnknownAgent { .. } | Error::UnknownMessage(_) => StatusCode::NOT_FOUND,
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    };
    let mut text = e.to_string();
    if let Some(hint) = e.hint() {
        text.push_str(&format!(" ({hint})"));
    }
    refused(status, text)
}

/// A send's answer: `"ok": true` and the core's one JSON view of a send
/// (`SendReport::view`, as `swarm msg --json` prints it).
fn report_json(report: &SendReport) -> Value {
    let mut body = serde_json::Map::new();
    body.insert("ok".into(), Value::Bool(true));
    if let Value::Object(view) = report.view().to_value() {
        body.extend(view);
    }
    Value::Object(body)
}

/// Sends a message from the operator, as `swarm msg --from OPERATOR`
/// (`to` an agent) or `swarm broadcast --from OPERATOR` (`to` = `all`).
pub(super) fn send(settings: &Settings, body: SendBody) -> Outcome {
    let op = &settings.op;
    let msg_type = match MessageType::parse(&body.msg_type, &op.custom_types) {
        Ok(t) => t,
        Err(why) => return refused(StatusCode::UNPROCESSABLE_ENTITY, why),
    };
    let content = match message::clean_content(&body.content) {
        Ok(c) => c,
        Err(why) => return refused(StatusCode::UNPROCESSABLE_ENTITY, why),
    };
    let sender = &settings.person_id;
    let report = if body.to.trim() == "all" {
        if body.ack {
            return refused(
                StatusCode::UNPROCESSABLE_ENTITY,
                "a broadcast cannot ask for an acknowledgement (as `swarm broadcast` cannot): \
                 send it to one agent",
            );
        }
        let plan = BroadcastPlan::new(sender, msg_type, content);
        op.registry()
            .and_then(|(registry, _)| ops::broadcast(op, &registry, &plan))
    } else {
        let to = match validate::agent_id(&body.to) {
            Ok(id) => id,
            Err(why) => return refused(StatusCode::UNPROCESSABLE_ENTITY, why),
        };
        let plan = SendPlan::new(sender, &to, msg_type, content).ack(body.ack, None);
        op.registry()
            .and_then(|(registry, _)| ops::send(op, &registry, &plan))
    };
    match report {
        Ok(report) => (StatusCode::OK, report_json(&report)),
        Err(e) => failure(&e),
    }
}

/// Answers the dialog open in an agent's pane, as `swarm answer AGENT
/// OPTION` (or `--escape`) run by the operator: only while its pane shows
/// a dialog (the one the person saw, when `dialog` names it), and only
/// the keys that pick the option; the activity feed and the audit log
/// record it. A pane that shows no dialog (or another one) is a 409.
pub(super) fn answer(settings: &Settings, body: AnswerBody) -> Outcome {
    let agent = match swarm_core::AgentId::parse(body.agent.trim()) {
        Ok(id) => id,
        Err(why) => return refused(StatusCode::UNPROCESSABLE_ENTITY, format!("agent: {why}")),
    };
    let option = match &body.option {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Number(n)) => Some(n.to_string()),
        Some(other) => {
            return refused(
                StatusCode::UNPROCESSABLE_ENTITY,
                format!("option: {other} is not an option: give its number, \"yes\" or \"no\""),
            );
        }
    };
    let answer = match (option, body.escape) {
        (None, true) => Answer::Escape,
        (Some(_), true) => {
            return refused(
                StatusCode::UNPROCESSABLE_ENTITY,
                "give an option or escape, not both",
            );
        }
        (None, false) => {
            return refused(
                StatusCode::UNPROCESSABLE_ENTITY,
                "give an option (its number, \"yes\" or \"no\") or escape: true",
            );
        }
        (Some(raw), false) => match Choice::parse(&raw) {
            Some(choice) => Answer::Pick(choice),
            None => {
                return refused(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    format!(
                        "{:?} is not an option: give its number, \"yes\" or \"no\"",
                        sanitize::one_line(&raw)
                    ),
                );
            }
        },
    };
    let op = &settings.op;
    let plan = AnswerPlan::new(agent, answer, &settings.person_id).seen(body.dialog.as_deref());
    let done = op
        .registry()
        .and_then(|(registry, _)| ops::answer(op, &registry, &plan));
    match done {
        Ok(ops::AnswerReport {
            answered: done,
            warnings,
        }) => (
            StatusCode::OK,
            json!({
                "ok": true,
                "agent": done.agent,
                "question": done.question,
                "option": done.option,
                "picked": done.picked(),
                "cancelled": done.option.is_none(),
                "keys": done.keys,
                "closed": done.closed,
                "warnings": warnings,
            }),
        ),
        // What the pane shows does not allow it: no dialog, another one,
        // no such option, a pane on another host.
        Err(Error::Invalid(why)) => refused(StatusCode::CONFLICT, why),
        Err(Error::Refused { message, .. }) => refused(StatusCode::CONFLICT, message),
        Err(e) => failure(&e),
    }
}

/// Acknowledges a pending message for its recipient, as `swarm ack ID
/// --agent RECIPIENT` does outside tmux: only the recipient of a pending
/// message can acknowledge it, so nothing else can be acknowledged. The
/// audit log records that the operator acted for the recipient.
pub(super) fn ack(settings: &Settings, body: AckBody) -> Outcome {
    let id = body.msg_id.trim().to_lowercase();
    let (pending, _) = read_acks(&*settings.backend.acks);
    let Some(entry) = pending.iter().find(|e| e.msg_id.as_str() == id) else {
        return refused(
            StatusCode::NOT_FOUND,
            format!("no acknowledgement is pending for message {id}"),
        );
    };
    let recipient = entry.recipient_id.to_string();
    let op = &settings.op;
    let done = AckPlan::new(&id, &recipient).and_then(|plan| {
        let (registry, _) = op.registry()?;
        ops::ack(op, &registry, &plan)
    });
    let not_pending = || {
        refused(
            StatusCode::NOT_FOUND,
            format!("no acknowledgement is pending for message {id}"),
        )
    };
    match done.map(|r| (r.done, r.warnings)) {
        Ok((Acknowledgement::Sent { entry, report }, warnings)) => {
            let mut e = AuditEvent::new(AuditKind::AsOther, Some(&recipient));
            e.detail = Some(format!(
                "ack {} from the dashboard by {}",
                entry.msg_id, settings.person_id
            ));
            let audit = AuditLog::new(&settings.paths).record(&[e]);
            (
                StatusCode::OK,
                json!({
                    "ok": true,
                    "msg_id": entry.msg_id,
                    "acknowledged_for": recipient,
                    "sender": entry.sender_id,
                    "delivered": report.delivered() > 0,
                    "warnings": warnings,
                    "audit_error": audit.err().map(|e| e.to_string()),
                }),
            )
        }
        // Acknowledged meanwhile, or gone from the log.
        Ok((Acknowledgement::NotPending(_), _))
        | Ok((Acknowledgement::Refused(AckResult::NotPending), _))
        | Err(Error::UnknownMessage(_)) => not_pending(),
        Ok((Acknowledgement::Refused(other), _)) => refused(
            StatusCode::CONFLICT,
            format!("not acknowledged: {}", describe(&other)),
        ),
        Err(e) => failure(&e),
    }
}

fn describe(result: &AckResult) -> String {
    match result {
        AckResult::Acknowledged(e) => format!("{} was acknowledged", e.msg_id),
        AckResult::NotPending => "nothing is pending".into(),
        AckResult::NotRecipient { msg_id, recipient } => {
            format!("only {recipient} can acknowledge message {msg_id}")
        }
        AckResult::Ambiguous(ids) => format!("the id matches {}", ids.join(", ")),
    }
}

/// Releases a lock whoever holds it, as `swarm unlock PATH --force
/// --agent OPERATOR`: the lock table records it in the audit log.
pub(super) fn unlock(settings: &Settings, body: UnlockBody) -> Outcome {
    let root = settings.paths.root();
    let key = match LockKey::resolve(&body.path, root, root) {
        Ok(k) => k,
        // Whatever is wrong with it, it is the path as given.
        Err(e) => return refused(StatusCode::UNPROCESSABLE_ENTITY, e),
    };
    let plan = UnlockPlan::new(vec![key], &settings.person_id).force(true);
    let released = match ops::unlock(&settings.op, &plan) {
        Ok(r) => r.released,
        Err(e) => return failure(&Error::Lock(e)),
    };
    let Some((key, how)) = released.into_iter().next() else {
        return refused(StatusCode::INTERNAL_SERVER_ERROR, "nothing was released");
    };
    let path = key.as_str().to_owned();
    match how {
        Released::Removed(_) => (
            StatusCode::OK,
            json!({"ok": true, "path": path, "released": "own", "holder": settings.person_id}),
        ),
        // The operator's claim on a shared lock; the other readers keep it.
        Released::Left(_) => (
            StatusCode::OK,
            json!({"ok": true, "path": path, "released": "own", "holder": settings.person_id}),
        ),
        Released::Forced(held) => (
            StatusCode::OK,
            json!({"ok": true, "path": path, "released": "forced", "holder": held.record.agent_id,
                   "reason": held.record.reason}),
        ),
        Released::ForcedDamaged(problem) => (
            StatusCode::OK,
            json!({"ok": true, "path": path, "released": "damaged", "problem": problem}),
        ),
        Released::NotLocked => refused(StatusCode::NOT_FOUND, format!("no lock on {path}")),
    }
}

/// Delivers now the held messages whose pane is safe (as every command's
/// housekeeping does): the same checks, so a pane where someone types or
/// a dialog is open keeps its messages. The answer lists what went and
/// what still waits, with why.
pub(super) fn release(settings: &Settings) -> Outcome {
    let chores = Chores {
        held: true,
        ..Chores::default()
    };
    // Nothing held: nothing to release.
    let held = settings.op.housekeeping(chores).held;
    match held.unwrap_or_else(|| Ok(ReleaseReport::default())) {
        Ok(report) => {
            let released: Vec<Value> = report
                .released
                .iter()
                .map(|r| {
                    json!({"msg_id": r.held.msg_id, "agent": r.held.agent,
                           "outcome": serde_json::to_value(&r.outcome).unwrap_or_default()})
                })
                .collect();
            let still: Vec<Value> = report
                .still_held
                .iter()
                .map(|(agent, reason)| json!({"agent": agent, "reason": reason}))
                .collect();
            (
                StatusCode::OK,
                json!({"ok": true, "released": released, "still_held": still,
                       "warnings": report.warnings}),
            )
        }
        Err(e) => failure(&e),
    }
}
