//! The tools a model sees: names, descriptions (when to use the tool, what
//! it returns, what an error means) and argument schemas, generated from
//! the argument types below so that the schema and the checks agree.

use std::borrow::Cow;
use std::sync::Arc;

use rmcp::handler::server::tool::schema_for_type;
use rmcp::model::{JsonObject, ToolAnnotations};
use rmcp::schemars::JsonSchema;
use serde::Deserialize;

/// Arguments of a tool that takes none.
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(deny_unknown_fields)]
pub(super) struct NoArgs {}

/// The arguments of `send_message`.
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(deny_unknown_fields)]
pub(super) struct SendMessage {
    /// The recipient's agent id, e.g. "agent-2" (see list_agents).
    #[schemars(length(max = 64))]
    pub to: String,
    /// The message type: QUESTION, BLOCKED, INFO, COMPLETED,
    /// REVIEW-REQUEST, CHALLENGE, ACK (or a custom type of the project).
    #[serde(rename = "type")]
    #[schemars(length(max = 64))]
    pub msg_type: String,
    /// The message text (at most 10 KiB; longer text goes in a file
    /// whose path you mention).
    #[schemars(length(max = 10240))]
    pub content: String,
    /// Ask the recipient to acknowledge it: swarm retries the message
    /// until they do, then tells every agent. Use for messages that must
    /// not be missed.
    #[serde(default)]
    pub ack: bool,
    /// Type it into their pane at once even when they are busy (their
    /// own input queue takes it mid-turn). Normally a busy agent gets it
    /// when its turn ends. Use for blockers only.
    #[serde(default)]
    pub urgent: bool,
}

/// The arguments of `reply`.
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(deny_unknown_fields)]
pub(super) struct ReplyTo {
    /// The message you answer: its id, or its first 8 or more characters
    /// (as read_messages shows it, or the `[#id]` in its header).
    #[schemars(length(max = 64))]
    pub message_id: String,
    /// The message type: INFO, QUESTION, COMPLETED, BLOCKED, ... (default
    /// INFO).
    #[serde(rename = "type")]
    #[schemars(length(max = 64))]
    pub msg_type: Option<String>,
    /// The reply's text (at most 10 KiB).
    #[schemars(length(max = 10240))]
    pub content: String,
    /// Type it into their pane at once even when they are busy (normally
    /// a busy agent gets it when its turn ends).
    #[serde(default)]
    pub urgent: bool,
}

/// The arguments of `thread`.
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(deny_unknown_fields)]
pub(super) struct Thread {
    /// Any message of the conversation: its id, or its first 8 or more
    /// characters.
    #[schemars(length(max = 64))]
    pub message_id: String,
}

/// The arguments of `search_messages`.
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(deny_unknown_fields)]
pub(super) struct SearchMessages {
    /// Words to find (whole words, any case; `deploy*` also finds
    /// `deployment`).
    #[schemars(length(max = 1000))]
    pub text: String,
    /// Only messages from this agent id.
    #[schemars(length(max = 64))]
    pub from: Option<String>,
    /// Only messages to this agent id.
    #[schemars(length(max = 64))]
    pub to: Option<String>,
    /// Only messages of this type.
    #[serde(rename = "type")]
    #[schemars(length(max = 64))]
    pub msg_type: Option<String>,
    /// Only messages sent within this long ("30m", "2h", "7d").
    #[schemars(length(max = 32))]
    pub since: Option<String>,
    /// Only messages of the conversation this message id belongs to.
    #[schemars(length(max = 64))]
    pub thread: Option<String>,
    /// At most this many (default 20).
    #[schemars(range(min = 1, max = 200))]
    pub limit: Option<u32>,
}

/// The arguments of `subscribe` and `unsubscribe`.
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(deny_unknown_fields)]
pub(super) struct Subscription {
    /// The topic (1-64 of a-z, 0-9, `.`, `_`, `-`).
    #[schemars(length(max = 64))]
    pub topic: String,
}

/// The arguments of `broadcast`.
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(deny_unknown_fields)]
pub(super) struct Broadcast {
    /// The message type: INFO, BLOCKED, COMPLETED, QUESTION, ...
    #[serde(rename = "type")]
    #[schemars(length(max = 64))]
    pub msg_type: String,
    /// The message text (at most 10 KiB).
    #[schemars(length(max = 10240))]
    pub content: String,
    /// Only to the agents subscribed to this topic.
    #[schemars(length(max = 64))]
    pub topic: Option<String>,
    /// Type it in at once even into busy agents' panes.
    #[serde(default)]
    pub urgent: bool,
}

/// The arguments of `read_messages`.
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(deny_unknown_fields)]
pub(super) struct ReadMessages {
    /// At most this many messages (oldest unread first); default 10.
    #[schemars(range(min = 1, max = 100))]
    pub limit: Option<u32>,
}

/// The arguments of `acknowledge`.
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(deny_unknown_fields)]
pub(super) struct Acknowledge {
    /// The message id, or its first 8 or more characters.
    #[schemars(length(max = 64))]
    pub message_id: String,
    /// A short answer sent along with the acknowledgement.
    #[schemars(length(max = 500))]
    pub note: Option<String>,
}

/// The arguments of `lock`.
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(deny_unknown_fields)]
pub(super) struct Lock {
    /// Files, directories ("src/auth/" covers everything below it) or glob
    /// patterns ("src/*.py"), relative to the project root. All are locked,
    /// or none.
    #[schemars(length(min = 1, max = 100))]
    pub paths: Vec<String>,
    /// Why you lock them; other agents see it.
    #[schemars(length(max = 500))]
    pub reason: Option<String>,
    /// When another agent holds a lock in the way, keep trying for up to
    /// this many seconds (at most 600) instead of failing at once.
    #[schemars(range(min = 0, max = 600))]
    pub wait_seconds: Option<u32>,
    /// Lock for reading only: other agents may take shared locks on the
    /// same paths too, nobody (you included) may edit them, and exclusive
    /// locks are refused while any is held.
    #[serde(default)]
    pub shared: bool,
    /// Make it a lease that ends by itself after this long ("30s", "10m",
    /// "2h", "1h30m"; at most 30 days) unless you renew it. Without it the
    /// lock goes stale after the project's stale timeout.
    #[schemars(length(max = 32))]
    pub ttl: Option<String>,
}

/// The arguments of `renew`.
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(deny_unknown_fields)]
pub(super) struct Renew {
    /// The paths or patterns of your locks to renew, spelled as when you
    /// locked them (any spelling of the same path works).
    #[schemars(length(min = 1, max = 100))]
    pub paths: Vec<String>,
    /// The new lease length, counted from now ("10m", "2h"); default: the
    /// length the lease had.
    #[schemars(length(max = 32))]
    pub ttl: Option<String>,
}

/// The arguments of `unlock`.
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(deny_unknown_fields)]
pub(super) struct Unlock {
    /// The paths or patterns to release, spelled as when you locked them
    /// (any spelling of the same path works).
    #[schemars(length(min = 1, max = 100))]
    pub paths: Vec<String>,
}

/// The arguments of `who_holds`.
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(deny_unknown_fields)]
pub(super) struct WhoHolds {
    /// The file, directory or pattern to look up.
    #[schemars(length(max = 4096))]
    pub path: String,
}

/// The arguments of `review_comment`.
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(deny_unknown_fields)]
pub(super) struct ReviewComment {
    /// The agent whose worktree branch you review, e.g. "agent-0".
    #[schemars(length(max = 64))]
    pub agent: String,
    /// The file, relative to the top of that agent's worktree.
    #[schemars(length(max = 4096))]
    pub path: String,
    /// The line (from 1) in the file as that agent has it now.
    #[schemars(range(min = 1))]
    pub line: u32,
    /// What should change (at most 4000 characters).
    #[schemars(length(max = 4000))]
    pub text: String,
}

/// The arguments of `create_task`.
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(deny_unknown_fields)]
pub(super) struct CreateTask {
    /// What the task should achieve.
    #[schemars(length(max = 10000))]
    pub objective: String,
    /// low, normal (default), high or critical.
    #[schemars(length(max = 16))]
    pub priority: Option<String>,
    /// Files concerned.
    #[schemars(length(max = 100))]
    pub files: Option<Vec<String>>,
    /// Conditions the work must meet.
    #[schemars(length(max = 100))]
    pub constraints: Option<Vec<String>>,
}

/// The arguments of `claim_task`.
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(deny_unknown_fields)]
pub(super) struct ClaimTask {
    /// The task id, or a unique beginning of it (as list_tasks shows).
    #[schemars(length(max = 64))]
    pub task_id: String,
}

/// The arguments of `update_task`.
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(deny_unknown_fields)]
pub(super) struct UpdateTask {
    /// The task id, or a unique beginning of it.
    #[schemars(length(max = 64))]
    pub task_id: String,
    /// The new status: pending, assigned, working, review, completed,
    /// blocked, failed or cancelled. It must follow from the current one
    /// (assigned -> working -> review -> completed, ...).
    #[schemars(length(max = 16))]
    pub status: Option<String>,
    /// Give the task to this agent id instead.
    #[schemars(length(max = 64))]
    pub assignee: Option<String>,
    /// Why, for the task's history.
    #[schemars(length(max = 2000))]
    pub message: Option<String>,
}

/// The arguments of `list_tasks`.
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(deny_unknown_fields)]
pub(super) struct ListTasks {
    /// Only tasks with this status.
    #[schemars(length(max = 16))]
    pub status: Option<String>,
    /// Only tasks assigned to this agent id.
    #[schemars(length(max = 64))]
    pub assignee: Option<String>,
    /// Include completed, failed and cancelled tasks.
    #[serde(default)]
    pub all: bool,
}

/// Declares `Tool`, one variant per tool with the name the model calls,
/// its argument type, whether it changes nothing and what the model reads
/// about it, and `Tool::ALL` in the order listed. Each tool is written
/// once, so the list, the names and the schemas cannot disagree, and
/// `ops::call` matches on `Tool` with no catch-all: a tool without a
/// handler does not compile, and a handler for no tool is dead code
/// (refused by `clippy -D warnings`).
macro_rules! tools {
    ($(
        $(#[doc = $doc:literal])*
        $variant:ident = $name:literal, $args:ty, read_only: $read_only:literal,
        $description:literal;
    )*) => {
        /// A tool the server offers.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub(super) enum Tool {
            $($(#[doc = $doc])* $variant,)*
        }

        impl Tool {
            /// Every tool, in the order they are listed.
            pub(super) const ALL: &'static [Tool] = &[$(Tool::$variant,)*];

            /// The name the model calls.
            pub(super) const fn name(self) -> &'static str {
                match self {
                    $(Tool::$variant => $name,)*
                }
            }

            /// What it is for, what it returns, what its errors mean.
            pub(super) const fn description(self) -> &'static str {
                match self {
                    $(Tool::$variant => $description,)*
                }
            }

            /// True when it changes nothing.
            pub(super) const fn read_only(self) -> bool {
                match self {
                    $(Tool::$variant => $read_only,)*
                }
            }

            /// The argument schema, generated from the argument type.
            pub(super) fn schema(self) -> Arc<JsonObject> {
                match self {
                    $(Tool::$variant => schema_for_type::<$args>(),)*
                }
            }
        }
    };
}

tools! {
    /// Who the calling agent is.
    Whoami = "whoami", NoArgs, read_only: true,
        "Your identity in the swarm: your agent id, your tmux pane and the project. Other agents \
        address you by this id. Fails when this session's pane is not a registered agent (the \
        hint says how to register it).";
    /// The project's agents.
    ListAgents = "list_agents", NoArgs, read_only: true,
        "The agents working on this project: id, status (active, stale, dead), tmux pane and \
        when each was last seen. Use it to find whom to message.";
    /// A message to one agent.
    SendMessage = "send_message", SendMessage, read_only: false,
        "Send a message to one agent. It is typed into their terminal when it is safe to (their \
        prompt is idle), otherwise kept in their inbox; either way it is logged and cannot be \
        lost. Returns the message id and whether it was delivered or queued (and why). With \
        ack=true the recipient must acknowledge it. Errors: unknown agent, bad type, rate \
        limited (wait and try later).";
    /// A message to every other active agent.
    Broadcast = "broadcast", Broadcast, read_only: false,
        "Send one message to every other active agent (announcements: a change everyone must \
        know about, a blocker, a finished piece of work). Returns each recipient's outcome.";
    /// A reply to a message.
    Reply = "reply", ReplyTo, read_only: false,
        "Answer a message: sends your reply to its sender, linked to it so that both belong to \
        one conversation (see thread). message_id is the id (or its first 8 characters) that \
        read_messages returns or the message's header shows as [#id]. Returns the reply's id \
        and whether it was delivered, or accepted to be typed in when their turn ends.";
    /// A whole conversation.
    Thread = "thread", Thread, read_only: true,
        "The whole conversation a message belongs to (the first message and every reply, \
        replies of replies included), oldest first: id, sender, recipients, type, time, \
        content and the id each one answers. Errors: no such message, or an id prefix that \
        names several.";
    /// Searching every kept message.
    SearchMessages = "search_messages", SearchMessages, read_only: true,
        "Search every message the swarm has kept (not only yours), best match first, by words \
        in the text, sender or type, with optional filters (from, to, type, since, thread). \
        Use it to find an earlier decision or who said what. Changes nothing.";
    /// Following a topic.
    Subscribe = "subscribe", Subscription, read_only: false,
        "Follow a topic: broadcasts sent to it (broadcast with topic) reach you. Returns your \
        topics.";
    /// No longer following a topic.
    Unsubscribe = "unsubscribe", Subscription, read_only: false,
        "Stop following a topic. Returns your topics.";
    /// The caller's unread messages, marked read.
    ReadMessages = "read_messages", ReadMessages, read_only: false,
        "Your new (unread) messages, oldest first, and marks exactly the ones returned as read \
        (call again while `remaining` is above 0). Each has an id, sender, type, time, content, \
        and `requires_ack` when the sender wants you to call acknowledge with its id.";
    /// Acknowledging a message.
    Acknowledge = "acknowledge", Acknowledge, read_only: false,
        "Acknowledge a message that asked for it (requires_ack), so the sender stops retrying; \
        they get an ACK message, with your note if you give one. Only the recipient can \
        acknowledge. Acknowledging twice is harmless.";
    /// Taking file locks.
    Lock = "lock", Lock, read_only: false,
        "Lock files, directories or glob patterns before editing them, so other agents do not \
        edit them at the same time: all paths are locked or none. Locking your own lock again \
        refreshes it. shared=true locks for reading only (others may read along; nobody edits). \
        ttl makes it a lease that ends by itself (renew it with renew). When another agent \
        holds one, the error names them: wait_seconds waits for it, or message them. Release \
        with unlock when done.";
    /// Renewing leases.
    Renew = "renew", Renew, read_only: false,
        "Renew your own locks (leases) on these paths before they end: each counts again from \
        now, for ttl or for the lease's own length. Fails, changing nothing, when you do not \
        hold one of them (any more): then lock it again.";
    /// Releasing file locks.
    Unlock = "unlock", Unlock, read_only: false,
        "Release your locks on these paths (when your edit is done). Only your own locks can be \
        released; the error names the holder otherwise.";
    /// The locks touching one path.
    WhoHolds = "who_holds", WhoHolds, read_only: true,
        "Which locks cover or overlap a path (its own lock, a directory above it, a pattern \
        matching it, locks below it), with holder, reason and age. Changes nothing.";
    /// Every lock.
    ListLocks = "list_locks", NoArgs, read_only: true,
        "Every lock in the project, with holder, reason, age and whether it is stale.";
    /// Messages waiting for an acknowledgement.
    PendingAcks = "pending_acks", NoArgs, read_only: true,
        "Messages still waiting for an acknowledgement (sender, recipient, retries sent, when \
        the next retry is due). Your own in the list are ones you should acknowledge.";
    /// A new task.
    CreateTask = "create_task", CreateTask, read_only: false,
        "Create a task (pending, unassigned) that any agent can claim. Returns the task with its \
        id.";
    /// Taking a pending task.
    ClaimTask = "claim_task", ClaimTask, read_only: false,
        "Take a pending task for yourself: it becomes assigned to you. Exactly one agent wins a \
        claim; if another was first, the error says who has it. Then move it along with \
        update_task (working, review, completed).";
    /// A task's new status or assignee.
    UpdateTask = "update_task", UpdateTask, read_only: false,
        "Change a task's status (it must follow the workflow: assigned -> working -> review -> \
        completed; blocked, failed and cancelled too) or give it to another agent; recorded in \
        its history under your id. The error lists the statuses allowed next.";
    /// The open tasks.
    ListTasks = "list_tasks", ListTasks, read_only: true,
        "Open tasks, most urgent first (all=true includes finished ones), optionally by status \
        or assignee: id, objective, status, priority, assignee.";
    /// A review comment on another agent's branch.
    ReviewComment = "review_comment", ReviewComment, read_only: false,
        "Comment, as reviewer, on one line of another agent's worktree (after a review request): \
        the comment keeps the code line it is on, follows it when lines move and is marked \
        outdated when it changes. The person sends the round to the agent as one message. \
        Returns the comment with its id.";
}

impl Tool {
    /// The tool called `name`.
    pub(super) fn find(name: &str) -> Option<Tool> {
        Tool::ALL.iter().copied().find(|t| t.name() == name)
    }

    /// The tool as listed to the client.
    pub(super) fn listed(self) -> rmcp::model::Tool {
        let annotations = ToolAnnotations::new()
            .read_only(self.read_only())
            .destructive(false)
            .open_world(false);
        rmcp::model::Tool::new(
            Cow::Borrowed(self.name()),
            Cow::Borrowed(self.description()),
            self.schema(),
        )
        .with_annotations(annotations)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_has_an_object_schema_without_references() {
        for t in Tool::ALL {
            let s = t.schema();
            assert_eq!(
                s.get("type").and_then(|v| v.as_str()),
                Some("object"),
                "{}",
                t.name()
            );
            let text = serde_json::to_string(&*s).expect("json");
            assert!(!text.contains("$ref"), "{}: {text}", t.name());
            assert!(t.description().len() > 40, "{}", t.name());
        }
        let mut names: Vec<&str> = Tool::ALL.iter().map(|t| t.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Tool::ALL.len());
    }
}
