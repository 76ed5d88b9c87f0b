//! What the message index answers: a ranked search over every kept
//! message with filters (`swarm search`, `inbox --search`, MCP
//! `search_messages`), the whole thread a message belongs to (`swarm
//! thread`), and the message a unique beginning of an id names (`msg
//! --reply-to`).

use rusqlite::types::Value as SqlValue;
use rusqlite::{OptionalExtension, Row, params_from_iter};
use serde::Serialize;

use crate::domain::Timestamp;
use crate::store::StoreError;

use super::message_index::MessageIndex;

/// The most results one search asks for (`conversation::search_query` holds
/// searches to it; the inbox's view of a search asks for all).
pub(crate) const MAX_LIMIT: usize = 1000;

/// Messages a thread shows at most (a runaway chain of replies).
const MAX_THREAD: usize = 10_000;

/// A checked search.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SearchQuery {
    /// The words to find (each a whole word, any case; one ending in `*`
    /// also as the beginning of a word). Empty: every message the filters
    /// let through, newest first.
    pub words: Vec<Word>,
    /// Only messages from this sender.
    pub from: Option<String>,
    /// Only messages to this recipient (directly or as `all`).
    pub to: Option<String>,
    /// Only messages this agent sent or received (the dashboard's view of
    /// one agent).
    pub party: Option<String>,
    /// Only messages of this type (wire form).
    pub msg_type: Option<String>,
    /// Only messages created at or after this time.
    pub since: Option<Timestamp>,
    /// Only messages of this thread (its root's id, `SearchIndex::thread_of`).
    pub thread: Option<String>,
    /// At most this many results.
    pub limit: usize,
    /// Oldest first instead of best first (the inbox's order).
    pub oldest_first: bool,
}

/// One word of a search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Word {
    /// Letters and digits only.
    pub text: String,
    /// Also matches words that begin with it.
    pub prefix: bool,
}

impl SearchQuery {
    /// The words of `text`: its runs of letters and digits; a run
    /// followed by `*` is a prefix. Everything else separates words, as
    /// the index's tokenizer does, so `agent-1` is the words `agent`, `1`.
    pub(crate) fn words(text: &str) -> Vec<Word> {
        let mut out: Vec<Word> = Vec::new();
        let mut current = String::new();
        for c in text.chars().chain(std::iter::once(' ')) {
            if c.is_alphanumeric() {
                current.push(c);
            } else if !current.is_empty() {
                out.push(Word {
                    text: std::mem::take(&mut current),
                    prefix: c == '*',
                });
            }
        }
        out
    }

    /// The full-text expression: every word must match, each quoted so
    /// that no character of the input is read as an operator.
    /// The sender and the type are in the full-text index too: naming
    /// them there narrows the matches inside it, before SQL checks them
    /// exactly (the filters).
    fn expression(&self) -> String {
        let mut parts: Vec<String> = self
            .words
            .iter()
            .map(|w| format!("\"{}\"{}", w.text, if w.prefix { "*" } else { "" }))
            .collect();
        for (column, value) in [("sender", &self.from), ("msg_type", &self.msg_type)] {
            if let Some(v) = value
                && v.chars().any(char::is_alphanumeric)
            {
                parts.push(format!("{column} : \"{}\"", v.replace('"', "\"\"")));
            }
        }
        parts.join(" ")
    }
}

/// A message as the index holds it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct IndexedMessage {
    /// Its id.
    pub msg_id: String,
    /// Sender id.
    pub sender: String,
    /// Recipient ids.
    pub recipients: Vec<String>,
    /// Type, wire form.
    pub msg_type: String,
    /// The line's `timestamp` as written.
    pub timestamp: String,
    /// The message it answers.
    pub parent_msg_id: Option<String>,
    /// The id of its thread's first message.
    pub thread: String,
    /// The topic it was broadcast to.
    pub topic: Option<String>,
    /// The recipient must acknowledge it.
    pub requires_ack: bool,
    /// The body, as logged (sanitise before showing).
    pub content: String,
    /// How well it matched: SQLite's BM25 rank, lower is better (`None`
    /// without words). People see `relevance` instead.
    #[serde(skip)]
    pub score: Option<f64>,
    /// How well it matched, as people read it: 100 for the best match of
    /// a search, the others in proportion, never below 1 (`None` without
    /// words).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub relevance: Option<u8>,
}

/// Fills in the `relevance` of each found message from its rank: its
/// share of the best rank, in percent (BM25 ranks are negative, the best
/// lowest; SQLite never gives 0 for a match).
fn rate(found: &mut [IndexedMessage]) {
    let best = found.iter().filter_map(|m| m.score).fold(0.0_f64, f64::min);
    for m in found {
        m.relevance = m.score.map(|s| {
            let share = if best < 0.0 { s / best } else { 1.0 };
            (share * 100.0).round().clamp(1.0, 100.0) as u8
        });
    }
}

/// What a beginning of an id names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Resolved {
    /// Exactly this message.
    One(String),
    /// No kept message.
    None,
    /// Several messages (a few of their ids).
    Many(Vec<String>),
}

/// The columns every query reads, in `row`'s order.
const COLUMNS: &str = "m.msg_id, m.sender, m.recipients, m.msg_type, m.timestamp, m.parent, \
                       m.thread, m.topic, m.requires_ack, m.content";

fn row(r: &Row<'_>, score: bool) -> rusqlite::Result<IndexedMessage> {
    let recipients: String = r.get(2)?;
    Ok(IndexedMessage {
        msg_id: r.get(0)?,
        sender: r.get(1)?,
        recipients: recipients.split_whitespace().map(str::to_owned).collect(),
        msg_type: r.get(3)?,
        timestamp: r.get(4)?,
        parent_msg_id: r.get(5)?,
        thread: r.get(6)?,
        topic: r.get(7)?,
        requires_ack: r.get(8)?,
        content: r.get(9)?,
        score: if score { r.get(10)? } else { None },
        relevance: None,
    })
}

/// Matches ranked at most, newest first, when more match: ranking a word
/// that most messages hold would otherwise take SQLite a second.
const RANK_WINDOW: usize = 1000;

/// The SQL conditions of `q`'s filters (each ` AND ...`) and their values.
fn filters(q: &SearchQuery) -> (String, Vec<SqlValue>) {
    let mut sql = String::new();
    let mut args: Vec<SqlValue> = Vec::new();
    if let Some(from) = &q.from {
        sql.push_str(" AND m.sender = ?");
        args.push(SqlValue::Text(from.clone()));
    }
    if let Some(to) = &q.to {
        sql.push_str(" AND (instr(m.recipients, ?) > 0 OR instr(m.recipients, ' all ') > 0)");
        args.push(SqlValue::Text(format!(" {to} ")));
    }
    if let Some(p) = &q.party {
        sql.push_str(
            " AND (m.sender = ? OR instr(m.recipients, ?) > 0 \
             OR instr(m.recipients, ' all ') > 0)",
        );
        args.push(SqlValue::Text(p.clone()));
        args.push(SqlValue::Text(format!(" {p} ")));
    }
    if let Some(t) = &q.msg_type {
        sql.push_str(" AND m.msg_type = ?");
        args.push(SqlValue::Text(t.clone()));
    }
    if let Some(since) = q.since {
        sql.push_str(" AND m.created >= ?");
        args.push(SqlValue::Real(since.unix_seconds()));
    }
    if let Some(thread) = &q.thread {
        sql.push_str(" AND m.thread = ?");
        args.push(SqlValue::Text(thread.clone()));
    }
    (sql, args)
}

impl MessageIndex {
    /// The messages `q` finds: best first (the text's weight ahead of the
    /// sender's and the type's, then newest), or oldest first when asked.
    pub fn search(&self, q: &SearchQuery) -> Result<Vec<IndexedMessage>, StoreError> {
        let texted = !q.words.is_empty();
        let (filters, filter_args) = filters(q);
        let mut args: Vec<SqlValue> = Vec::new();
        let mut sql = if texted {
            args.push(SqlValue::Text(q.expression()));
            format!(
                "SELECT {COLUMNS}, bm25(text, 1.0, 0.5, 0.5) AS score \
                 FROM text JOIN messages m ON m.id = text.rowid WHERE text MATCH ?{filters}"
            )
        } else {
            format!("SELECT {COLUMNS} FROM messages m WHERE 1{filters}")
        };
        args.extend(filter_args.iter().cloned());
        if texted && !q.oldest_first {
            // Ranking costs SQLite a look at every match: a common word
            // is ranked among its newest matches only (docs/PERFORMANCE.md).
            let window = RANK_WINDOW.max(q.limit);
            if let Some(bound) = self.window_start(q, &filters, &filter_args, window)? {
                sql.push_str(" AND text.rowid >= ?");
                args.push(SqlValue::Integer(bound));
            }
        }
        sql.push_str(match (q.oldest_first, texted) {
            (true, _) => " ORDER BY m.id",
            (false, true) => " ORDER BY score, m.id DESC",
            (false, false) => " ORDER BY m.id DESC",
        });
        sql.push_str(" LIMIT ?");
        args.push(SqlValue::Integer(
            i64::try_from(q.limit).unwrap_or(i64::MAX),
        ));
        let conn = self.conn();
        let mut st = conn.prepare(&sql).map_err(|e| self.error(&e))?;
        let rows = st
            .query_map(params_from_iter(args), |r| row(r, texted))
            .map_err(|e| self.error(&e))?;
        let mut found: Vec<IndexedMessage> =
            rows.collect::<Result<_, _>>().map_err(|e| self.error(&e))?;
        rate(&mut found);
        Ok(found)
    }

    /// The row of the `window`-th newest match of `q`, or `None` when
    /// fewer match (then all of them are ranked). The full-text index
    /// hands its matches out newest first, so this reads `window` of them.
    fn window_start(
        &self,
        q: &SearchQuery,
        filters: &str,
        filter_args: &[SqlValue],
        window: usize,
    ) -> Result<Option<i64>, StoreError> {
        let sql = format!(
            "SELECT text.rowid FROM text JOIN messages m ON m.id = text.rowid \
             WHERE text MATCH ?{filters} ORDER BY text.rowid DESC LIMIT 1 OFFSET ?"
        );
        let mut args = vec![SqlValue::Text(q.expression())];
        args.extend(filter_args.iter().cloned());
        args.push(SqlValue::Integer(
            i64::try_from(window.saturating_sub(1)).unwrap_or(i64::MAX),
        ));
        self.conn()
            .query_row(&sql, params_from_iter(args), |r| r.get(0))
            .optional()
            .map_err(|e| self.error(&e))
    }

    /// The thread `msg_id` belongs to (the id of its first message), or
    /// `None` when the index has no such message.
    pub(crate) fn thread_of(&self, msg_id: &str) -> Result<Option<String>, StoreError> {
        self.conn()
            .query_row(
                "SELECT thread FROM messages WHERE msg_id = ?1 LIMIT 1",
                [msg_id],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| self.error(&e))
    }

    /// The message `msg_id` as first logged, or `None` when the index has
    /// no such message: one row however long its thread is.
    pub(crate) fn message(&self, msg_id: &str) -> Result<Option<IndexedMessage>, StoreError> {
        let sql =
            format!("SELECT {COLUMNS} FROM messages m WHERE m.msg_id = ?1 ORDER BY m.id LIMIT 1");
        self.conn()
            .query_row(&sql, [msg_id], |r| row(r, false))
            .optional()
            .map_err(|e| self.error(&e))
    }

    /// Every message of the thread `msg_id` belongs to, oldest first
    /// (each id once); `None` when the index has no such message.
    pub fn thread(&self, msg_id: &str) -> Result<Option<Vec<IndexedMessage>>, StoreError> {
        let Some(thread) = self.thread_of(msg_id)? else {
            return Ok(None);
        };
        let sql = format!(
            "SELECT {COLUMNS} FROM messages m WHERE m.id IN \
             (SELECT min(id) FROM messages WHERE thread = ?1 GROUP BY msg_id) \
             ORDER BY m.id LIMIT {MAX_THREAD}"
        );
        let conn = self.conn();
        let mut st = conn.prepare(&sql).map_err(|e| self.error(&e))?;
        let rows = st
            .query_map([thread], |r| row(r, false))
            .map_err(|e| self.error(&e))?;
        Ok(Some(
            rows.collect::<Result<_, _>>().map_err(|e| self.error(&e))?,
        ))
    }

    /// The kept messages to `recipient` whose ids are `prefix` or begin
    /// with it, newest first, each id once, at most `limit`: what a short
    /// id in a submitted prompt names. The id's index answers it, so its
    /// cost does not grow with the history.
    pub(crate) fn ids_to(
        &self,
        prefix: &str,
        recipient: &str,
        limit: usize,
    ) -> Result<Vec<String>, StoreError> {
        // Only letters, digits, `-` and `_` reach GLOB as a pattern (none
        // of them a wildcard); anything else is no id swarm gave out.
        if prefix.is_empty()
            || !prefix
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            return Ok(Vec::new());
        }
        let conn = self.conn();
        let mut st = conn
            .prepare(
                "SELECT msg_id FROM messages WHERE msg_id GLOB ?1 AND instr(recipients, ?2) > 0 \
                 GROUP BY msg_id ORDER BY max(id) DESC LIMIT ?3",
            )
            .map_err(|e| self.error(&e))?;
        let ids = st
            .query_map(
                params_from_iter([
                    SqlValue::Text(format!("{prefix}*")),
                    SqlValue::Text(format!(" {recipient} ")),
                    SqlValue::Integer(i64::try_from(limit).unwrap_or(i64::MAX)),
                ]),
                |r| r.get(0),
            )
            .map_err(|e| self.error(&e))?
            .collect::<Result<Vec<String>, _>>()
            .map_err(|e| self.error(&e))?;
        Ok(ids)
    }

    /// The kept message whose id is `prefix` or begins with it.
    pub(crate) fn resolve(&self, prefix: &str) -> Result<Resolved, StoreError> {
        let conn = self.conn();
        let exact: Option<String> = conn
            .query_row(
                "SELECT msg_id FROM messages WHERE msg_id = ?1 LIMIT 1",
                [prefix],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| self.error(&e))?;
        if let Some(id) = exact {
            return Ok(Resolved::One(id));
        }
        // Callers pass only letters, digits, `-` and `_`, none of which
        // GLOB reads as a wildcard; the bound pattern lets SQLite use the
        // id's index.
        let mut st = conn
            .prepare("SELECT DISTINCT msg_id FROM messages WHERE msg_id GLOB ?1 LIMIT 5")
            .map_err(|e| self.error(&e))?;
        let ids: Vec<String> = st
            .query_map([format!("{prefix}*")], |r| r.get(0))
            .map_err(|e| self.error(&e))?
            .collect::<Result<_, _>>()
            .map_err(|e| self.error(&e))?;
        Ok(match ids.len() {
            0 => Resolved::None,
            1 => Resolved::One(ids.into_iter().next().unwrap_or_default()),
            _ => Resolved::Many(ids),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_runs_of_letters_and_digits() {
        let w = SearchQuery::words("Deploy-key \"vault\" OR NEAR(x) caf\u{e9} sch*");
        let texts: Vec<&str> = w.iter().map(|w| w.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "Deploy",
                "key",
                "vault",
                "OR",
                "NEAR",
                "x",
                "caf\u{e9}",
                "sch"
            ]
        );
        assert!(w[7].prefix && !w[0].prefix);
        let q = SearchQuery {
            words: w,
            ..SearchQuery::default()
        };
        assert_eq!(
            q.expression(),
            "\"Deploy\" \"key\" \"vault\" \"OR\" \"NEAR\" \"x\" \"caf\u{e9}\" \"sch\"*"
        );
        let narrowed = SearchQuery {
            from: Some("agent-3".into()),
            msg_type: Some("DEPLOY-DONE".into()),
            ..q
        };
        assert!(
            narrowed
                .expression()
                .ends_with(" sender : \"agent-3\" msg_type : \"DEPLOY-DONE\""),
            "{}",
            narrowed.expression()
        );
    }
}
