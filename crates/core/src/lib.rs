//! The core of swarm: everything below the front doors. The vocabulary
//! (`domain`), the seams that touch the world (`store` for state files,
//! `tmux`, `git`), the operations (messaging, locks, ACKs, agents, the
//! message log, attention, usage, notifications, ...), the storage seam
//! (`backend`: one implementation of every store trait on the files, the
//! operator every front door acts with), the project's watcher and the
//! set-up. It prints nothing and starts no async runtime; the monitor, the
//! dashboard, the MCP server and the Redis backend are crates above it,
//! and docs/ARCHITECTURE.md lists what it offers them.
//!
//! Layers inside, top to bottom (data never flows back up): `watcher`,
//! `setup`; `backend`; the operations (`messaging`, `notify`, `log`,
//! `attention`, `agents`, `acks`, `locks`, `a2a`, `config`, ...); the seams
//! `store` and `tmux`; `domain` and `support` at the bottom.

// Items are `pub(crate)` unless the crate's API needs them.
#![warn(unreachable_pub)]

pub mod a2a;
pub(crate) mod acks;
pub mod agents;
pub(crate) mod attention;
pub(crate) mod backend;
pub mod config;
pub mod domain;
pub(crate) mod error;
pub(crate) mod git;
pub(crate) mod guard;
pub mod hooks;
pub(crate) mod limits;
pub(crate) mod locks;
pub(crate) mod log;
pub(crate) mod merge_queue;
pub(crate) mod messaging;
pub(crate) mod native;
pub(crate) mod notify;
pub mod ops;
pub(crate) mod review;
pub mod setup;
pub(crate) mod snapshot;
pub(crate) mod store;
pub mod support;
pub(crate) mod tmux;
pub(crate) mod usage;
pub mod watcher;
pub mod worktrees;

// What the crates above use, named once here so that they need not know
// the rooms inside. The modules above stay public only where a front door
// still calls a room's functions by its path (`ops`, the namespaces of
// `support`, `a2a`, `agents`, `config`, `hooks`, `setup`, `worktrees`,
// `watcher`, `domain::validate`).

// Errors and the exit-code table.
pub use error::{Error, Reported, Result};
pub use support::exit_code::ExitCode;

// The vocabulary: ids, times, messages and their types.
pub use domain::message::{
    BUILTIN_TYPES, MAX_CONTENT_BYTES, Message, MessageType, Urgency, clean_content,
};
pub use domain::{AgentId, MessageId, Timestamp, ValidationError};

// The agents: the registry, what a look at a pane finds, profiles, the
// sessions `launch` records, the demo agent's input.
pub use agents::agent_matcher::{AgentMatcher, DEMO_AGENT};
pub use agents::demo_agent::InputParser;
pub use agents::discovery::{DiscoverOptions, Discovery};
pub use agents::launch::{LAYOUTS, LaunchPlan, MAX_AGENTS, WorktreesPlan};
pub use agents::pane_state::{PaneState, Sight};
pub use agents::profile::Profiles;
pub use agents::registry::{AgentIds, AgentRecord, AgentStatus, Registry};
pub use agents::seen_states::SeenStates;
pub use agents::sessions::record::{Liveness, RecordedState, SessionAgent, SessionRecord};
pub use agents::sessions::resume::{ResumeContext, Resumed};
pub use limits::credential::{Credential, credential_of};
pub use native::channel_of;
pub use native::codex::{CODEX_PANE_COMMAND, run_codex_pane};

// The configuration and the settings read from it.
pub use acks::AckSettings;
pub use config::{Config, ConfigStamp, LoadedConfig, StoreBackend};
pub use notify::{NOTIFY_EVENT_COMMAND, Notifier, NotifySettings};

// The storage seam: where state lives, the store traits every backend
// implements with the records they keep, the backend and the operator
// every front door acts with.
pub use acks::ack_store::{Claim, Claimed, NextDue, PendingDoc, PendingList};
pub use acks::{AckResult, AckStore, PendingEntry};
pub use agents::registry_store::{IdsState, RegistryDoc, RegistryState, RegistryStore};
pub use agents::sessions::session_store::SessionStore;
pub use attention::episodes::episode_store::{
    EpisodeRecord, EpisodeStore, OpenEpisode, Transition,
};
pub use attention::feed::feed_store::{FeedCursor, FeedRead};
pub use attention::{FeedRetention, FeedStore, FileFeed};
pub use backend::migrate::{Moved, copy_state, state_present};
pub use backend::{
    Backend, Chores, FilesOnly, Housekeeping, Operator, RedisLocation, Share, SharedStores,
    Started, announce_watcher, claim_background, start_watcher,
};
pub use limits::{LimitRecord, LimitStore, Limits, until_for_people};
pub use locks::{
    Acquired, AcquiredLock, CleanReport, Conflict, FileLocks, GlobModel, HeldLock, Hold, LockEntry,
    LockError, LockKey, LockRecord, LockRequest, LockStore, Released, has_glob_chars,
    lock_file_name, parse_ttl, unix_now,
};
pub use log::log_store::{AppendWatch, LogFollower, LogStore, ScanBatch, ScanVisitor};
pub use log::on_files::FileLog;
pub use messaging::held::held_store::{HeldMessage, HeldQueue, HeldStore, Holding, ToHold};
pub use messaging::printed::printed_store::PrintedStore;
pub use messaging::rates::rate_store::{RateDecision, RateLimit, RateStore};
pub use messaging::relay::relay_store::{HandedOver, Handoff, RECLAIM_AFTER, Relay};
pub use messaging::topics::topic_store::{Subscriptions, Topic, TopicStore, TopicTable, topics_of};
pub use store::audit::{AuditEvent, AuditKind, AuditLog};
pub use store::notices::set_notice_reporter;
pub use store::{
    DEFAULT_LOCK_TIMEOUT, LogFiles, Paths, ProjectRoot, RootSource, StateDir, StoreError,
    ensure_private_dir,
};

// The message log: records, deliveries and their outcomes, the inbox and
// the search index over it.
pub use log::inbox::{InboxView, Selection};
pub use log::index::{IndexedMessage, MessageIndex};
pub use log::log_line::LoggedMessage;
pub use log::record::{
    ConfirmedBy, DeliveryOutcome, DeliveryRecord, DeliveryStatus, Located, LogContents, LogPos,
    MessageView, Record, TailBatch, parse_line,
};
pub use messaging::conversation::{
    SearchRequest, message_index, resolve_message, search_query, thread_of,
};

// Attention: the feed's events and the dialogs on agents' screens.
pub use attention::dialog::{Choice, Dialog};
pub use attention::event::{ALL_KINDS, DialogOption, EventKind, FeedEntry};
pub use attention::notice::HELD_URGENCY;

// The reports of the operations below the door, and the views of the
// swarm the servers show.
pub use acks::{ack_marker, format_age};
pub use guard::{EditRequest, GuardError, Installed, PreCommitHook, Uninstalled};
pub use merge_queue::{LastTry, MergeOutcome, MergeQueueRun, PlannedMerge, TestPlan};
pub use messaging::{Recipients, ReleaseReport, SendReport, SendRequest, ToldOverlap};
pub use review::{
    CommentStatus, DiffSummary, ReviewComment, diff_summary, mark_comments_sent, refresh_comments,
    resolve_comment, review_request_text, review_round_text,
};
pub use snapshot::{AppendWake, Dirty, FileWatch, LockView, SwarmStatus, status_changes};
pub use usage::budget::{BudgetLevel, BudgetLine};
pub use usage::report::{AgentUsage, UsageReport};
pub use usage::tally::now_secs;
pub use usage::tokens::Tokens;

// What a store implementation applies besides its trait: the rules of
// shared locks and leases (`lock_plan`) and of picking an inbox (`inbox`),
// the lock changes it records, the feed's line form.
pub use attention::feed::feed_store::{feed_line_of, parse_feed_line};
pub use locks::{
    MAX_REASON_CHARS, Pruned, Related, Release, lapse_event, lock_event, lock_plan, renew_event,
};
pub use log::inbox;
pub use messaging::relay::relay_store::TakenHandoff;

// What the dashboard and the monitor read of the state files directly.
pub use attention::dialog::read_dialog;
pub use attention::notice::notice_urgency;
pub use snapshot::{
    read_acks, read_locks, read_registry, try_read_acks, try_read_locks, try_read_registry,
};
pub use store::inspect::{Stamp, dir_entries, file_stamp};
pub use usage::report::UsageTotal;
pub use usage::series::{AgentSeries, Series, hourly_series};

// The seams to the world: tmux and git.
pub use git::Git;
pub use tmux::{Pane, PaneId, PaneLabel, Server, Tmux, TmuxError, parse_list_panes};

/// The contracts every implementation of a store trait keeps, run by the
/// tests of each implementation: the files' here, Redis's in its crate.
#[cfg(any(test, feature = "testing"))]
pub mod contracts {
    pub use crate::a2a::a2a_store::contract as a2a;
    pub use crate::acks::ack_store::contract as acks;
    pub use crate::agents::registry_store::contract as registry;
    pub use crate::limits::limit_store::contract as limits;
    pub use crate::locks::lock_contract as locks;
    pub use crate::log::log_store::contract as log;
    pub use crate::messaging::held::held_store::contract as held;
    pub use crate::messaging::printed::printed_store::contract as printed;
    pub use crate::messaging::rates::rate_store::contract as rates;
    pub use crate::messaging::topics::topic_store::contract as topics;
}
