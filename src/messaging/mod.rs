//! Messages: sending (validate, rate-limit, log first, deliver into each
//! recipient's pane), the message log and its tail, the inbox, onboarding,
//! and the ACK retry engine that sends what the pending list says is due.

pub mod ack_retry;
pub mod delivery;
pub mod inbox;
pub mod log_tail;
pub mod message_log;
pub mod onboarding;
pub mod rate_limit;
mod send;

pub use ack_retry::{ProcessReport, process_due};
pub use send::{
    MAX_BROADCAST_RECIPIENTS, MessagingSettings, Messenger, Outcomes, Recipients, Redelivery,
    SendReport, SendRequest,
};
