//! `ActivityFeed`: the latest lines of the activity feed (docs/FORMATS.md),
//! kept in memory and brought up to date from where the last read ended,
//! so that a request (and each look of the event stream) costs only what
//! was appended since; and `GET /api/v1/feed`, the kept lines filtered by
//! time, agent and kind.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use swarm_core::domain::validate;
use swarm_core::support::time;
use swarm_core::{ALL_KINDS, Backend, EventKind, FeedCursor, FeedEntry, StoreError, Timestamp};

use super::api;

/// How many of the latest lines are kept: the largest `limit` served.
pub(super) const KEPT_ENTRIES: usize = api::MAX_LIMIT;

/// How many lines a `feed` event carries.
pub(super) const STREAM_ENTRIES: usize = 50;

/// The latest lines of one project's activity feed.
#[derive(Debug)]
pub(super) struct ActivityFeed {
    backend: Arc<Backend>,
    /// Where the next read starts (`None`: nothing read yet).
    cursor: Option<FeedCursor>,
    /// Oldest first.
    kept: VecDeque<FeedEntry>,
}

impl ActivityFeed {
    /// The feed of `backend`; nothing is read until `refresh`.
    pub(super) fn new(backend: Arc<Backend>) -> ActivityFeed {
        ActivityFeed {
            backend,
            cursor: None,
            kept: VecDeque::new(),
        }
    }

    /// Reads what was appended since the last call (the first call reads
    /// everything the feed keeps). Returns true when the kept lines
    /// changed, and always on the first call.
    pub(super) fn refresh(&mut self) -> Result<bool, StoreError> {
        let feed = &self.backend.feed;
        let (read, first) = match &self.cursor {
            Some(c) => (feed.read_after(c, Duration::ZERO)?, false),
            None => (feed.read_all()?, true),
        };
        self.cursor = Some(read.cursor);
        let changed = first || !read.entries.is_empty();
        self.kept.extend(read.entries);
        let over = self.kept.len().saturating_sub(KEPT_ENTRIES);
        self.kept.drain(..over);
        Ok(changed)
    }

    /// The kept lines, oldest first.
    pub(super) fn entries(&self) -> impl DoubleEndedIterator<Item = &FeedEntry> {
        self.kept.iter()
    }

    /// The line that raised `agent`'s dialog episode `episode`, when it
    /// is still kept.
    pub(super) fn dialog_raised(&self, agent: &str, episode: u64) -> Option<&FeedEntry> {
        self.kept.iter().rev().find(|e| {
            e.event == EventKind::NeedsInput
                && e.agent.as_deref() == Some(agent)
                && e.episode == Some(episode)
        })
    }
}

/// What `GET /api/v1/feed` was asked for, checked.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct FeedQuery {
    /// Only lines from this time on.
    pub since: Option<Timestamp>,
    /// Only lines about these agents (all when empty).
    pub agents: Vec<String>,
    /// Only lines of these kinds (all when empty).
    pub kinds: Vec<EventKind>,
    /// At most this many, the latest.
    pub limit: usize,
}

/// A 422 body in the shape `api::limit` answers with.
fn refusal(param: &str, msg: String, input: &str) -> Value {
    json!({"detail": [{
        "type": "value_error",
        "loc": ["query", param],
        "msg": msg,
        "input": input,
    }]})
}

/// Every value of a repeated or comma-separated parameter.
fn values(raw: &[String]) -> impl Iterator<Item = &str> {
    raw.iter()
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .filter(|v| !v.is_empty())
}

impl FeedQuery {
    /// The query of `since` (a duration back from `now`, `10m`, or a time,
    /// RFC 3339), `agent` and `event` (each repeatable or comma-separated)
    /// and `limit`; anything unreadable is refused with the body of a
    /// 422 answer.
    pub(super) fn parse(
        since: Option<&str>,
        agent: &[String],
        event: &[String],
        limit: Option<&str>,
        now: Timestamp,
    ) -> Result<FeedQuery, Value> {
        let limit = api::limit(limit)?;
        let since = match since.map(str::trim).filter(|s| !s.is_empty()) {
            None => None,
            Some(s) => Some(since_of(s, now).ok_or_else(|| {
                refusal(
                    "since",
                    "Input should be a duration (30s, 10m, 2h, 1d) or a time (RFC 3339)".into(),
                    s,
                )
            })?),
        };
        let agents = values(agent)
            .map(|a| validate::agent_id(a).map_err(|e| refusal("agent", e.to_string(), a)))
            .collect::<Result<Vec<_>, _>>()?;
        let kinds = values(event)
            .map(|k| {
                EventKind::parse(k).ok_or_else(|| {
                    refusal(
                        "event",
                        format!(
                            "Input should be one of: {}",
                            ALL_KINDS.map(EventKind::as_str).join(", ")
                        ),
                        k,
                    )
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(FeedQuery {
            since,
            agents,
            kinds,
            limit,
        })
    }

    fn keeps(&self, e: &FeedEntry) -> bool {
        self.since.is_none_or(|s| e.time >= s)
            && (self.agents.is_empty() || e.agent.as_ref().is_some_and(|a| self.agents.contains(a)))
            && (self.kinds.is_empty() || self.kinds.contains(&e.event))
    }
}

/// `since` as a time: a duration back from `now`, or a time itself.
fn since_of(raw: &str, now: Timestamp) -> Option<Timestamp> {
    if let Ok(d) = time::parse_duration(raw) {
        let back = chrono::Duration::from_std(d).ok()?;
        return now.utc().checked_sub_signed(back).map(Timestamp::from_utc);
    }
    Timestamp::parse_iso(raw)
}

/// `GET /api/v1/feed`: the latest `limit` kept lines that the query
/// selects, oldest first (newest last), each as the feed file holds it.
pub(super) fn feed(activity: &ActivityFeed, query: &FeedQuery) -> Value {
    let mut hits: Vec<Value> = activity
        .entries()
        .rev()
        .filter(|e| query.keeps(e))
        .take(query.limit)
        .map(FeedEntry::to_json)
        .collect();
    hits.reverse();
    json!({"entries": hits, "count": hits.len(), "limit": query.limit})
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now() -> Timestamp {
        Timestamp::parse_iso("2026-11-26T08:00:00+00:00").expect("test value")
    }

    #[test]
    fn a_query_reads_durations_times_lists_and_limits() {
        let q = FeedQuery::parse(
            Some("10m"),
            &["agent-1,agent-2".into()],
            &["needs_input".into(), "exited".into()],
            Some("5"),
            now(),
        )
        .expect("test value");
        assert_eq!(
            q.since,
            Some(Timestamp::parse_iso("2026-11-26T07:50:00+00:00").expect("test value"))
        );
        assert_eq!(q.agents, ["agent-1", "agent-2"]);
        assert_eq!(q.kinds, [EventKind::NeedsInput, EventKind::Exited]);
        assert_eq!(q.limit, 5);
        let at = FeedQuery::parse(Some("2026-11-26T07:00:00+00:00"), &[], &[], None, now())
            .expect("test value");
        assert_eq!(at.since, Timestamp::parse_iso("2026-11-26T07:00:00+00:00"));
        assert_eq!(at.limit, api::DEFAULT_LIMIT);
    }

    #[test]
    fn a_query_refuses_what_it_cannot_read() {
        for (since, agent, event, param) in [
            (Some("soon"), "", "", "since"),
            (None, "bad id", "", "agent"),
            (None, "", "needs-input", "event"),
        ] {
            let agents: Vec<String> = [agent].iter().map(|a| a.to_string()).collect();
            let kinds: Vec<String> = [event].iter().map(|a| a.to_string()).collect();
            let body = FeedQuery::parse(since, &agents, &kinds, None, now()).expect_err(param);
            assert_eq!(body["detail"][0]["loc"], json!(["query", param]), "{body}");
        }
    }
}
