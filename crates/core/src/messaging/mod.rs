//! Messages: sending (validate, rate-limit, log first, deliver into each
//! recipient's pane), onboarding, telling agents of overlaps between their
//! branches, the ACK retry engine that sends what the pending list says is
//! due, and the claims of lines agents printed to send (`printed/`). The
//! message log they write is `crate::log`.

pub(crate) mod ack_retry;
pub(crate) mod answer;
pub(crate) mod conversation;
pub(crate) mod delivery;
pub(crate) mod held;
mod hook_confirm;
mod interrupt;
mod messenger;
mod native_post;
pub(crate) mod onboarding;
mod overlap_notice;
mod pane_text;
pub(crate) mod printed;
pub(crate) mod rates;
pub(crate) mod relay;
mod resume_prompt;
mod send;
mod send_report;
pub(crate) mod topics;
mod wait;

pub(crate) use ack_retry::{Portion, ProcessReport, Roster, process_due};
pub use held::release::ReleaseReport;
pub(crate) use messenger::{MessagingSettings, Messenger};
pub use overlap_notice::ToldOverlap;
pub(crate) use overlap_notice::notice_overlaps;
pub(crate) use relay::hand_over::Relayed;
pub(crate) use send::feed_detail;
pub use send::{Recipients, SendRequest};
pub use send_report::{Redelivery, SendReport};
