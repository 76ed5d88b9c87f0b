//! The dashboard's views of the message index (`swarm_core::MessageIndex`): the
//! search box (`GET /api/v1/messages?q=...`, ranked, every kept message
//! rotated segments included, as `swarm search`) and a whole thread
//! (`GET /api/v1/messages/{id}/thread`, as `swarm thread`).

use axum::http::StatusCode;
use serde_json::{Value, json};

use swarm_core::{
    Error, IndexedMessage, MessageIndex, SearchRequest, message_index, search_query, thread_of,
};

use super::settings::Settings;

/// A failure as the status and the detail the page shows.
pub(super) type Refused = (StatusCode, String);

/// The status an index failure is answered with (reported when it is the
/// server's).
fn refused(settings: &Settings, e: &Error) -> Refused {
    let status = match e {
        Error::Invalid(_) | Error::Usage(_) => StatusCode::UNPROCESSABLE_ENTITY,
        Error::UnknownMessage(_) => StatusCode::NOT_FOUND,
        _ => {
            (settings.report)(&format!("could not use the message index: {e}"));
            StatusCode::INTERNAL_SERVER_ERROR
        }
    };
    (status, e.to_string())
}

/// The index, caught up with the log; what it had to rebuild is reported.
fn index(settings: &Settings) -> Result<MessageIndex, Refused> {
    let index = message_index(&settings.paths, settings.backend.log.as_ref())
        .map_err(|e| refused(settings, &e))?;
    for note in index.notes() {
        (settings.report)(note);
    }
    Ok(index)
}

/// A message as the page reads it: the fields of `GET /api/v1/messages`
/// that the index keeps, with its thread and topic.
fn message_json(m: &IndexedMessage) -> Value {
    serde_json::to_value(m).unwrap_or(Value::Null)
}

/// `GET /api/v1/messages?q=TEXT[&agent=ID]`: at most `limit` kept messages
/// with the words of TEXT, best match first (`"order": "best first"`);
/// with `agent`, only those it sent or received.
pub(super) fn search(
    settings: &Settings,
    text: &str,
    agent: &str,
    limit: usize,
) -> Result<Value, Refused> {
    let index = index(settings)?;
    let agent = agent.trim();
    let req = SearchRequest {
        text: text.to_owned(),
        limit: Some(limit),
        ..SearchRequest::default()
    };
    let mut query = search_query(&index, &req).map_err(|e| refused(settings, &e))?;
    query.party = (!agent.is_empty()).then(|| agent.to_owned());
    let found = index
        .search(&query)
        .map_err(|e| refused(settings, &e.into()))?;
    let list: Vec<Value> = found.iter().map(message_json).collect();
    Ok(
        json!({"messages": list, "count": list.len(), "limit": limit,
              "q": text, "agent": agent, "order": "best first"}),
    )
}

/// `GET /api/v1/messages/{id}/thread`: the whole conversation the message
/// `id` (or a unique beginning of it) belongs to, oldest first.
pub(super) fn thread(settings: &Settings, id: &str) -> Result<Value, Refused> {
    let index = index(settings)?;
    let messages = thread_of(&index, id).map_err(|e| refused(settings, &e))?;
    let list: Vec<Value> = messages.iter().map(message_json).collect();
    Ok(json!({"messages": list, "count": list.len(), "order": "oldest first"}))
}
