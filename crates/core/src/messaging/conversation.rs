//! Conversations: the message index opened for a front door (caught up
//! with the log), a reply's parent named by the beginning of its id, and a
//! search's words and filters checked into a query.

use crate::domain::Timestamp;
use crate::error::{Error, Result};
use crate::log::index::{IndexedMessage, MAX_LIMIT, MessageIndex, Resolved, SearchQuery};
use crate::log::log_store::LogStore;
use crate::store::Paths;
use crate::support::sanitize;

/// The shortest beginning of an id that names a message.
const MIN_PREFIX: usize = 4;

/// The message index of the project laid out by `paths`, caught up with
/// `log`.
pub fn message_index(paths: &Paths, log: &dyn LogStore) -> Result<MessageIndex> {
    Ok(MessageIndex::open(paths, log)?)
}

/// The id of the one kept message whose id is `raw` or begins with it
/// (at least 4 characters); `what` names the argument in errors.
pub fn resolve_message(index: &MessageIndex, raw: &str, what: &str) -> Result<String> {
    let id = raw.trim();
    let plain = id
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if id.len() < MIN_PREFIX || id.len() > 64 || !plain {
        return Err(Error::Invalid(format!(
            "{what}: {:?} is not a message id (give at least {MIN_PREFIX} characters of it, as \
             `swarm inbox` or the message's header shows it)",
            sanitize::one_line(raw)
        )));
    }
    match index.resolve(id)? {
        Resolved::One(full) => Ok(full),
        Resolved::None => Err(Error::UnknownMessage(id.to_owned())),
        Resolved::Many(ids) => Err(Error::Invalid(format!(
            "{what}: {id} is the beginning of several message ids ({}, ...): give more of it",
            ids.iter()
                .map(|i| sanitize::one_line(i))
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// The whole thread of the message `raw` names, oldest first.
pub fn thread_of(index: &MessageIndex, raw: &str) -> Result<Vec<IndexedMessage>> {
    let id = resolve_message(index, raw, "message id")?;
    index
        .thread(&id)?
        .ok_or_else(|| Error::UnknownMessage(id.clone()))
}

/// What a search asks for, as typed (each front door fills it in).
#[derive(Clone, Debug, Default)]
pub struct SearchRequest {
    /// The words.
    pub text: String,
    /// Sender id.
    pub from: Option<String>,
    /// Recipient id.
    pub to: Option<String>,
    /// A message type (any case, `_` or `-`).
    pub msg_type: Option<String>,
    /// Only messages this recent.
    pub since: Option<std::time::Duration>,
    /// A message of the thread to search in (an id or its beginning).
    pub thread: Option<String>,
    /// At most this many (default 20).
    pub limit: Option<usize>,
}

/// Checks `req` into a query against `index` (the thread named by its
/// message, the type in wire form). A search with no words at all is
/// refused unless a filter narrows it.
pub fn search_query(index: &MessageIndex, req: &SearchRequest) -> Result<SearchQuery> {
    let words = SearchQuery::words(&req.text);
    let thread = match &req.thread {
        Some(raw) => {
            let id = resolve_message(index, raw, "--thread")?;
            Some(
                index
                    .thread_of(&id)?
                    .ok_or_else(|| Error::UnknownMessage(id.clone()))?,
            )
        }
        None => None,
    };
    let filtered = req.from.is_some() || req.to.is_some() || req.msg_type.is_some();
    if words.is_empty() && thread.is_none() && !filtered {
        return Err(Error::Invalid(format!(
            "nothing to search for in {:?}: give a word (letters or digits)",
            sanitize::one_line(&req.text)
        )));
    }
    let since = match req.since {
        Some(d) => Some(
            chrono::Duration::from_std(d)
                .ok()
                .and_then(|d| Timestamp::now().utc().checked_sub_signed(d))
                .map(Timestamp::from_utc)
                .ok_or_else(|| Error::Invalid("--since: too long ago".into()))?,
        ),
        None => None,
    };
    Ok(SearchQuery {
        words,
        from: req.from.clone(),
        to: req.to.clone(),
        party: None,
        msg_type: req
            .msg_type
            .as_ref()
            .map(|t| t.trim().to_uppercase().replace('_', "-")),
        since,
        thread,
        limit: req.limit.unwrap_or(20).clamp(1, MAX_LIMIT),
        oldest_first: false,
    })
}
