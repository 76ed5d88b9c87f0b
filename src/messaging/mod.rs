//! Messages: sending (validate, rate-limit, log first, deliver into each
//! recipient's pane), the message log and its tail, the inbox, onboarding,
//! and the ACK retry engine that sends what the pending list says is due.

pub(crate) mod ack_retry;
mod acknowledge;
pub(crate) mod delivery;
pub(crate) mod held;
pub(crate) mod held_store;
pub(crate) mod inbox;
pub(crate) mod log_line;
pub(crate) mod log_retention;
pub(crate) mod log_segments;
pub(crate) mod log_store;
pub(crate) mod log_tail;
pub(crate) mod message_log;
pub(crate) mod onboarding;
pub(crate) mod rate_limit;
pub(crate) mod rate_store;
pub(crate) mod relay;
mod send;

pub(crate) use ack_retry::{ProcessReport, process_due};
pub(crate) use acknowledge::{Acknowledgement, acknowledge};
pub(crate) use send::{
    MessagingSettings, Messenger, Recipients, Relayed, ReleaseReport, SendReport, SendRequest,
};
