//! `MessageIndex`: every message the log keeps, in a SQLite database beside
//! it (`.swarm/message_index.sqlite3`, docs/FORMATS.md), with a full-text
//! index (FTS5) of their text, sender and type, their thread, and their
//! topic. It is a cache of the log: each use first catches up with what was
//! appended since the position it recorded (by swarm or by the Python
//! tool), forgets the messages of segments the log no longer keeps, and a
//! missing or damaged database is built again from the log. The queries on
//! it are in `query.rs`.

use rusqlite::{Connection, OptionalExtension, params};

use crate::log::log_store::{LogStore, ScanBatch};
use crate::log::record::{LogPos, Record};
use crate::store::{Paths, SqliteFile, StoreError, is_damage};

/// The version of the database's layout; another one is built again.
const VERSION: &str = "1";

/// The layout. `messages` holds one row per message line in log order
/// (`id`); `text` is the full-text index over its text, sender and type,
/// kept by the triggers; `segments` lists the log segments rows came from,
/// so that those the log dropped are found without a scan.
const SCHEMA: &str = "
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE messages(
    id INTEGER PRIMARY KEY,
    msg_id TEXT NOT NULL,
    sender TEXT NOT NULL,
    recipients TEXT NOT NULL,
    msg_type TEXT NOT NULL,
    timestamp TEXT NOT NULL,
    created REAL NOT NULL,
    parent TEXT,
    thread TEXT NOT NULL,
    topic TEXT,
    requires_ack INTEGER NOT NULL,
    segment INTEGER,
    content TEXT NOT NULL
);
CREATE INDEX messages_msg_id ON messages(msg_id);
CREATE INDEX messages_thread ON messages(thread);
CREATE INDEX messages_segment ON messages(segment);
CREATE TABLE segments(number INTEGER PRIMARY KEY);
CREATE VIRTUAL TABLE text USING fts5(
    content, sender, msg_type,
    content = 'messages', content_rowid = 'id',
    tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TRIGGER messages_added AFTER INSERT ON messages BEGIN
    INSERT INTO text(rowid, content, sender, msg_type)
    VALUES (new.id, new.content, new.sender, new.msg_type);
END;
CREATE TRIGGER messages_removed AFTER DELETE ON messages BEGIN
    INSERT INTO text(text, rowid, content, sender, msg_type)
    VALUES ('delete', old.id, old.content, old.sender, old.msg_type);
END;
";

/// The message index of one project, caught up with its log.
pub struct MessageIndex {
    file: SqliteFile,
    conn: Connection,
    /// What a person should know: the index was damaged and rebuilt.
    notes: Vec<String>,
}

impl std::fmt::Debug for MessageIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MessageIndex")
            .field("path", &self.file.path())
            .finish()
    }
}

impl MessageIndex {
    /// The index of the project laid out by `paths`, caught up with `log`
    /// (built from it when missing, of another layout, built from another
    /// log, or damaged).
    pub(crate) fn open(paths: &Paths, log: &dyn LogStore) -> Result<MessageIndex, StoreError> {
        let file = SqliteFile::new(paths.message_index());
        match Self::open_file(&file, log) {
            Ok(conn) => Ok(MessageIndex {
                file,
                conn,
                notes: Vec::new(),
            }),
            Err(Failure::Damaged) => {
                file.discard()?;
                let conn = Self::open_file(&file, log).map_err(|f| f.into_error(&file))?;
                Ok(MessageIndex {
                    notes: vec![format!(
                        "the message index {} was damaged; it was built again from the log",
                        file.path().display()
                    )],
                    file,
                    conn,
                })
            }
            Err(Failure::Store(e)) => Err(e),
        }
    }

    /// What a person should be told about the index.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// The connection, for the queries.
    pub(super) fn conn(&self) -> &Connection {
        &self.conn
    }

    /// A SQLite failure on this index as a store error.
    pub(super) fn error(&self, e: &rusqlite::Error) -> StoreError {
        self.file.error(e)
    }

    fn open_file(file: &SqliteFile, log: &dyn LogStore) -> Result<Connection, Failure> {
        let mut conn = file.open().map_err(|e| match e {
            StoreError::Database { .. } => Failure::Damaged,
            other => Failure::Store(other),
        })?;
        let sql = |e: rusqlite::Error| Failure::from_sql(file, &e);
        let source = log.identity();
        let version: Option<String> = meta(&conn, "version").map_err(sql)?;
        let built_from: Option<String> = meta(&conn, "source").map_err(sql)?;
        if version.as_deref() != Some(VERSION) || built_from.as_deref() != Some(&source) {
            recreate(&mut conn, &source).map_err(sql)?;
        }
        catch_up(&conn, log, file)?;
        Ok(conn)
    }
}

/// Why an index could not be opened.
enum Failure {
    /// SQLite says it is damaged: build it again.
    Damaged,
    /// Anything else (the log could not be read, the disk is full).
    Store(StoreError),
}

impl Failure {
    fn from_sql(file: &SqliteFile, e: &rusqlite::Error) -> Failure {
        if is_damage(e) {
            Failure::Damaged
        } else {
            Failure::Store(file.error(e))
        }
    }

    fn into_error(self, file: &SqliteFile) -> StoreError {
        match self {
            Failure::Damaged => StoreError::Corrupt {
                path: file.path().to_owned(),
                reason: "still damaged after it was built again".into(),
            },
            Failure::Store(e) => e,
        }
    }
}

/// A value of `meta`; `None` when missing (or when there is no table yet).
fn meta(conn: &Connection, key: &str) -> Result<Option<String>, rusqlite::Error> {
    let exists: Option<String> = conn
        .query_row(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'meta'",
            [],
            |r| r.get(0),
        )
        .optional()?;
    if exists.is_none() {
        return Ok(None);
    }
    conn.query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0))
        .optional()
}

/// Drops whatever is there and lays out an empty index for `source`.
fn recreate(conn: &mut Connection, source: &str) -> Result<(), rusqlite::Error> {
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    let names: Vec<(String, String)> = {
        let mut st = tx.prepare(
            "SELECT type, name FROM sqlite_master WHERE type IN ('table', 'trigger') \
             AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'text_%'",
        )?;
        st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<Result<_, _>>()?
    };
    for (kind, name) in names {
        let kind = if kind == "trigger" {
            "TRIGGER"
        } else {
            "TABLE"
        };
        tx.execute_batch(&format!(
            "DROP {kind} IF EXISTS \"{}\"",
            name.replace('"', "\"\"")
        ))?;
    }
    tx.execute_batch(SCHEMA)?;
    tx.execute(
        "INSERT INTO meta(key, value) VALUES ('version', ?1), ('source', ?2)",
        params![VERSION, source],
    )?;
    tx.commit()
}

/// Rows taken in one transaction before it is committed and the write
/// lock given up for a moment, so that a long first build keeps what it
/// did and lets other processes in.
const STRETCH: usize = 20_000;

/// Reads what the log holds past the recorded position into the index,
/// and forgets the rows of segments the log no longer keeps. Concurrent
/// catch-ups (other processes) take turns on the database's write lock;
/// one that finds, after a pause, that another moved the position stops
/// and leaves the rest to it.
fn catch_up(conn: &Connection, log: &dyn LogStore, file: &SqliteFile) -> Result<(), Failure> {
    let sql = |e: rusqlite::Error| Failure::from_sql(file, &e);
    conn.execute_batch("BEGIN IMMEDIATE").map_err(sql)?;
    let result = (|| {
        let from = position(conn).map_err(sql)?;
        let mut failure: Option<Failure> = None;
        let mut overtaken = false;
        let mut taken = 0usize;
        let stop = || StoreError::Corrupt {
            path: file.path().to_owned(),
            reason: "catching up stopped".into(),
        };
        let kept = log.scan(from.as_ref(), &mut |batch: ScanBatch| {
            if let Err(e) = apply(conn, &batch) {
                failure = Some(sql(e));
                return Err(stop());
            }
            taken += batch.records.len();
            if taken >= STRETCH {
                taken = 0;
                let mine = position(conn).ok().flatten();
                let pause = conn
                    .execute_batch("COMMIT; BEGIN IMMEDIATE")
                    .and_then(|()| position(conn));
                match pause {
                    Ok(now) if now == mine => {}
                    Ok(_) => {
                        overtaken = true;
                        return Err(stop());
                    }
                    Err(e) => {
                        failure = Some(sql(e));
                        return Err(stop());
                    }
                }
            }
            Ok(())
        });
        let kept = match (kept, failure) {
            (_, Some(f)) => return Err(f),
            (Err(_), None) if overtaken => return Ok(()),
            (Err(e), None) => return Err(Failure::Store(e)),
            (Ok(kept), None) => kept,
        };
        forget_dropped(conn, kept.as_deref()).map_err(sql)
    })();
    match result {
        Ok(()) => conn.execute_batch("COMMIT").map_err(sql),
        Err(f) => {
            let _ = conn.execute_batch("ROLLBACK");
            Err(f)
        }
    }
}

/// The position the index has read the log to.
fn position(conn: &Connection) -> Result<Option<LogPos>, rusqlite::Error> {
    Ok(meta(conn, "position")?.and_then(|p| serde_json::from_str(&p).ok()))
}

/// Empties the index (the log was started afresh). The trigger that
/// keeps the text index in step row by row is set aside meanwhile: the
/// text index is emptied in one step instead.
fn clear(conn: &Connection) -> Result<(), rusqlite::Error> {
    conn.execute_batch(
        "DROP TRIGGER messages_removed; DELETE FROM messages; DELETE FROM segments; \
         INSERT INTO text(text) VALUES ('delete-all'); \
         CREATE TRIGGER messages_removed AFTER DELETE ON messages BEGIN \
             INSERT INTO text(text, rowid, content, sender, msg_type) \
             VALUES ('delete', old.id, old.content, old.sender, old.msg_type); \
         END;",
    )
}

/// Takes one stretch of the log into the index.
fn apply(tx: &Connection, batch: &ScanBatch) -> Result<(), rusqlite::Error> {
    if batch.restarted {
        clear(tx)?;
    }
    let mut insert = tx.prepare(
        "INSERT INTO messages(msg_id, sender, recipients, msg_type, timestamp, created, \
         parent, thread, topic, requires_ack, segment, content) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, NULL, ?9, ?10, ?11)",
    )?;
    let mut thread_of = tx.prepare("SELECT thread FROM messages WHERE msg_id = ?1 LIMIT 1")?;
    let mut adopt = tx.prepare(
        "UPDATE messages SET thread = ?1 WHERE thread = ?2 AND msg_id != ?2 AND ?1 != ?2",
    )?;
    let mut topic =
        tx.prepare("UPDATE messages SET topic = ?1 WHERE msg_id = ?2 AND topic IS NULL")?;
    let mut segment = tx.prepare("INSERT OR IGNORE INTO segments(number) VALUES (?1)")?;
    for located in &batch.records {
        match &located.record {
            Record::Message(logged) => {
                let m = logged.message();
                // A reply joins its parent's thread; a message whose parent
                // is not (or not yet) indexed starts the parent's.
                let thread = match &m.parent_msg_id {
                    Some(p) => thread_of
                        .query_row([p.as_str()], |r| r.get::<_, String>(0))
                        .optional()?
                        .unwrap_or_else(|| p.as_str().to_owned()),
                    None => m.msg_id.as_str().to_owned(),
                };
                let recipients = format!(
                    " {} ",
                    m.recipients
                        .iter()
                        .map(|r| r.as_str())
                        .collect::<Vec<_>>()
                        .join(" ")
                );
                let seg = batch_segment(located);
                insert.execute(params![
                    m.msg_id.as_str(),
                    m.sender.as_str(),
                    recipients,
                    m.msg_type.as_str(),
                    logged.timestamp(),
                    m.created.unix_seconds(),
                    m.parent_msg_id.as_ref().map(|p| p.as_str()),
                    thread,
                    m.requires_ack,
                    seg,
                    m.content,
                ])?;
                // Replies indexed before this message (a parent logged
                // late) move into its thread.
                adopt.execute(params![thread, m.msg_id.as_str()])?;
                if let Some(n) = seg {
                    segment.execute([n])?;
                }
            }
            Record::Delivery(d) => {
                if let Some(t) = &d.topic {
                    topic.execute(params![t, d.msg_id])?;
                }
            }
        }
    }
    if let Some(end) = &batch.end {
        let value = serde_json::to_string(end).unwrap_or_default();
        tx.execute(
            "INSERT INTO meta(key, value) VALUES ('position', ?1) \
             ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            [value],
        )?;
    }
    Ok(())
}

/// The segment a record's line is in, for a log kept in segments (a
/// stream has none: its positions are entry ids).
fn batch_segment(located: &crate::log::record::Located) -> Option<i64> {
    (located.end.ino != 0).then(|| i64::try_from(located.end.segment).unwrap_or(i64::MAX))
}

/// Forgets the rows of segments the log no longer keeps (`kept`: the
/// numbers it keeps; `None`: it drops nothing).
fn forget_dropped(tx: &Connection, kept: Option<&[u64]>) -> Result<(), rusqlite::Error> {
    let Some(kept) = kept else {
        return Ok(());
    };
    let known: Vec<i64> = {
        let mut st = tx.prepare("SELECT number FROM segments")?;
        st.query_map([], |r| r.get(0))?.collect::<Result<_, _>>()?
    };
    for n in known {
        if kept.iter().any(|&k| i64::try_from(k).ok() == Some(n)) {
            continue;
        }
        tx.execute("DELETE FROM messages WHERE segment = ?1", [n])?;
        tx.execute("DELETE FROM segments WHERE number = ?1", [n])?;
    }
    Ok(())
}
