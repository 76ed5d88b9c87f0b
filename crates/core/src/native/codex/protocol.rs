//! The part of Codex CLI's app-server protocol swarm speaks (JSON-RPC 2.0,
//! one message per WebSocket text frame), as its own schema names it
//! (`codex app-server generate-json-schema --experimental`): only the
//! fields swarm reads, every other field ignored. All of it comes from
//! another program and is treated as hostile: a missing or mistyped field
//! is a protocol error, never a panic.

use serde::Deserialize;
use serde_json::{Value, json};

/// The methods swarm calls.
pub(crate) mod method {
    /// The handshake; the server answers nothing else before it.
    pub(crate) const INITIALIZE: &str = "initialize";
    /// The notification that ends the handshake.
    pub(crate) const INITIALIZED: &str = "initialized";
    /// The ids of the threads loaded in the server (the TUI's among them).
    pub(crate) const LOADED: &str = "thread/loaded/list";
    /// One thread's metadata and status.
    pub(crate) const READ: &str = "thread/read";
    /// Joins a running thread: its turn and item events then come to this
    /// connection too.
    pub(crate) const RESUME: &str = "thread/resume";
    /// A thread's turns, newest first.
    pub(crate) const TURNS: &str = "thread/turns/list";
    /// Starts a turn with the input (on an idle thread).
    pub(crate) const TURN_START: &str = "turn/start";
    /// Adds input to the active turn.
    pub(crate) const TURN_STEER: &str = "turn/steer";
    /// Queues input into a thread: taken when its turn ends.
    pub(crate) const QUEUE_ADD: &str = "thread/queue/add";
    /// The inputs a thread has queued.
    pub(crate) const QUEUE_LIST: &str = "thread/queue/list";
    /// Starts a turn with one queued input (a thread whose turn was
    /// stopped keeps its queue until asked).
    pub(crate) const QUEUE_START: &str = "thread/queue/start";
}

/// Notifications swarm reads (every other one is skipped).
pub(crate) mod notification {
    /// An item of a turn began; a user message carries the `clientId` it
    /// was sent with.
    pub(crate) const ITEM_STARTED: &str = "item/started";
}

/// Notifications swarm asks the server not to send it (streamed output it
/// never reads).
pub(crate) const QUIET: [&str; 6] = [
    "item/agentMessage/delta",
    "item/reasoning/textDelta",
    "item/reasoning/summaryTextDelta",
    "item/commandExecution/outputDelta",
    "item/fileChange/outputDelta",
    "command/exec/outputDelta",
];

/// `initialize`'s params: who calls, and the experimental methods
/// (`thread/queue/*` is one) turned on.
pub(crate) fn initialize_params(version: &str) -> Value {
    json!({
        "clientInfo": {"name": "swarm", "title": "swarm", "version": version},
        "capabilities": {"experimentalApi": true, "optOutNotificationMethods": QUIET},
    })
}

/// One text input, as `turn/start`, `turn/steer` and `thread/queue/add`
/// take it.
pub(crate) fn text_input(text: &str) -> Value {
    json!([{"type": "text", "text": text, "text_elements": []}])
}

/// A message from the server: an answer to a request (`id` with `result`
/// or `error`), a notification (`method` without `id`), or a request of
/// its own (`method` with `id`), which swarm never asked for.
#[derive(Debug, Deserialize)]
pub(crate) struct Incoming {
    #[serde(default)]
    pub(crate) id: Option<Value>,
    #[serde(default)]
    pub(crate) method: Option<String>,
    #[serde(default)]
    pub(crate) params: Option<Value>,
    #[serde(default)]
    pub(crate) result: Option<Value>,
    #[serde(default)]
    pub(crate) error: Option<RpcError>,
}

/// A JSON-RPC error answer.
#[derive(Clone, Debug, Deserialize)]
pub(crate) struct RpcError {
    #[serde(default)]
    pub(crate) code: i64,
    #[serde(default)]
    pub(crate) message: String,
}

/// `thread/loaded/list`'s answer.
#[derive(Debug, Deserialize)]
pub(crate) struct LoadedList {
    pub(crate) data: Vec<String>,
    #[serde(default, rename = "nextCursor")]
    pub(crate) next_cursor: Option<String>,
}

/// `thread/read`'s answer.
#[derive(Debug, Deserialize)]
pub(crate) struct ThreadRead {
    pub(crate) thread: Thread,
}

/// What swarm reads of a thread.
#[derive(Debug, Deserialize)]
pub(crate) struct Thread {
    pub(crate) id: String,
    /// The app server's own side threads (titles, reviews) are ephemeral.
    #[serde(default)]
    pub(crate) ephemeral: bool,
    pub(crate) status: ThreadStatus,
    /// Set on a sub-agent's thread.
    #[serde(default, rename = "parentThreadId")]
    pub(crate) parent: Option<String>,
    #[serde(default, rename = "attachedToThreadId")]
    pub(crate) attached_to: Option<String>,
    #[serde(default, rename = "updatedAt")]
    pub(crate) updated_at: i64,
}

/// A thread's runtime status (`type`: notLoaded, idle, systemError,
/// active).
#[derive(Debug, Deserialize)]
pub(crate) struct ThreadStatus {
    #[serde(rename = "type")]
    pub(crate) kind: String,
}

/// `thread/turns/list`'s answer.
#[derive(Debug, Deserialize)]
pub(crate) struct TurnList {
    pub(crate) data: Vec<Turn>,
}

/// A turn: `turn/start`'s answer holds one, so does `thread/turns/list`.
#[derive(Debug, Deserialize)]
pub(crate) struct Turn {
    pub(crate) id: String,
    /// completed, interrupted, failed, inProgress.
    pub(crate) status: String,
    #[serde(default)]
    pub(crate) items: Vec<Value>,
}

/// `turn/start`'s answer.
#[derive(Debug, Deserialize)]
pub(crate) struct TurnStarted {
    pub(crate) turn: Turn,
}

/// `turn/steer`'s answer.
#[derive(Debug, Deserialize)]
pub(crate) struct Steered {
    #[serde(rename = "turnId")]
    pub(crate) turn_id: String,
}

/// `thread/queue/add`'s answer.
#[derive(Debug, Deserialize)]
pub(crate) struct Queued {
    #[serde(rename = "queuedSubmission")]
    pub(crate) submission: Submission,
}

/// An input the thread holds for later.
#[derive(Debug, Deserialize)]
pub(crate) struct Submission {
    pub(crate) id: String,
    #[serde(rename = "clientUserMessageId")]
    pub(crate) client_id: String,
}

/// `thread/queue/list`'s answer.
#[derive(Debug, Deserialize)]
pub(crate) struct QueueList {
    pub(crate) data: Vec<Submission>,
}

/// `item/started`'s params: the item, its thread and turn.
#[derive(Debug, Deserialize)]
pub(crate) struct ItemStarted {
    pub(crate) item: Value,
    #[serde(rename = "threadId")]
    pub(crate) thread_id: String,
    #[serde(rename = "turnId")]
    pub(crate) turn_id: String,
}

/// The `clientId` of a thread item that is a user message, when it has
/// one (the id swarm sent it with).
pub(crate) fn user_message_client_id(item: &Value) -> Option<&str> {
    (item.get("type")?.as_str()? == "userMessage")
        .then(|| item.get("clientId")?.as_str())
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    // Messages as the app server of Codex CLI 0.169.0 sent them (trimmed
    // of fields swarm does not read only where they were long).
    const TURN_START_ANSWER: &str = r#"{"id": 5, "result": {"turn": {"id": "01a23515-2f4f-77a3-a6fe-4d29cdcfc213", "rootTurnId": "01a23515-2f4f-77a3-a6fe-4d29cdcfc213", "items": [], "itemsView": "notLoaded", "status": "inProgress", "error": null, "startedAt": null, "completedAt": null, "durationMs": null}}}"#;
    const ITEM_STARTED: &str = r#"{"method": "item/started", "params": {"item": {"type": "userMessage", "id": "01a23515-6f9e-7ba0-be13-11774ee4bcc5", "clientId": "swarm-2", "content": [{"type": "text", "text": "second", "text_elements": []}], "startedAtMs": 1796186927006, "completedAtMs": null}, "threadId": "01a23514-edb9-7a72-9842-55289f4d2764", "turnId": "01a23515-6f8d-76e0-84cf-56a4d852d75a", "startedAtMs": 1796186927006}, "emittedAtMs": 1796186927007}"#;
    const QUEUE_ADD_ANSWER: &str = r#"{"id": 5, "result": {"queuedSubmission": {"id": "01a23515-7383-7041-ba22-1b1d552c971b", "input": [{"type": "text", "text": "queued third", "text_elements": []}], "clientUserMessageId": "swarm-3", "responsesapiClientMetadata": null}}}"#;
    const RESUME_REFUSED: &str = r#"{"error": {"code": -32600, "message": "no rollout found for thread id 01a23514-edb9-7a72-9842-55289f4d2764"}, "id": 4}"#;
    const THREAD_READ: &str = r#"{"id": 3, "result": {"thread": {"id": "01a23514-edb9-7a72-9842-55289f4d2764", "sessionId": "01a23514-edb9-7a72-9842-55289f4d2764", "forkedFromId": null, "attachedToThreadId": null, "parentThreadId": null, "preview": "", "ephemeral": false, "modelProvider": "mock", "createdAt": 1796186910, "updatedAt": 1796186910, "status": {"type": "idle"}, "cwd": "/tmp/p", "cliVersion": "0.169.0", "originator": "codex-tui", "source": "vscode", "turns": []}, "readState": null}}"#;

    fn result<T: serde::de::DeserializeOwned>(text: &str) -> T {
        let m: Incoming = serde_json::from_str(text).expect("a message");
        serde_json::from_value(m.result.expect("a result")).expect("the answer's shape")
    }

    #[test]
    fn answers_of_the_real_server_parse() {
        let t: TurnStarted = result(TURN_START_ANSWER);
        assert_eq!(t.turn.status, "inProgress");
        let q: Queued = result(QUEUE_ADD_ANSWER);
        assert_eq!(q.submission.client_id, "swarm-3");
        let r: ThreadRead = result(THREAD_READ);
        assert_eq!(r.thread.status.kind, "idle");
        assert!(!r.thread.ephemeral && r.thread.parent.is_none());
        let e: Incoming = serde_json::from_str(RESUME_REFUSED).expect("no error");
        assert_eq!(e.error.expect("no error").code, -32600);
    }

    #[test]
    fn a_user_message_item_names_the_id_it_was_sent_with() {
        let m: Incoming = serde_json::from_str(ITEM_STARTED).expect("no error");
        assert_eq!(m.method.as_deref(), Some(notification::ITEM_STARTED));
        let item: ItemStarted =
            serde_json::from_value(m.params.expect("no error")).expect("no error");
        assert_eq!(user_message_client_id(&item.item), Some("swarm-2"));
        let agent = serde_json::json!({"type": "agentMessage", "clientId": "swarm-2"});
        assert_eq!(user_message_client_id(&agent), None);
        assert_eq!(user_message_client_id(&serde_json::json!([1])), None);
    }

    #[test]
    fn hostile_shapes_are_errors_not_panics() {
        for text in [
            r#"{"id": 1, "result": {"turn": {"id": 7, "status": "x"}}}"#,
            r#"{"id": 1, "result": {"turn": null}}"#,
            r#"{"id": 1, "result": []}"#,
        ] {
            let m: Incoming = serde_json::from_str(text).expect("no error");
            assert!(serde_json::from_value::<TurnStarted>(m.result.expect("no error")).is_err());
        }
        assert!(serde_json::from_str::<Incoming>("[1,2]").is_err());
    }
}
