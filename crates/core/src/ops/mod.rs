//! The door into the core: one operation per verb a front door (the
//! command line, the MCP server, the dashboard) acts on the swarm with,
//! each in a file of its own. An operation takes the `backend::Operator`
//! and a checked plan, does the whole verb (its rules, its waits and
//! retries) and returns a typed report; the front door only parses,
//! builds the plan, calls and prints (docs/ARCHITECTURE.md, "The door").

mod ack;
mod answer;
mod broadcast;
mod lock;
mod merge;
mod merge_queue;
mod notice_overlaps;
mod onboard;
mod redeliver;
mod renew;
mod reply;
mod review_comment;
mod send;
mod send_json;
mod subscribe;
mod unlock;

pub use ack::{AckPlan, AckReport, Acknowledgement, Settled, ack, message_prefix};
pub use answer::{Answer, AnswerPlan, AnswerReport, Answered, answer};
pub use broadcast::{BroadcastPlan, broadcast};
pub use lock::{LockPlan, LockReport, lock};
pub use merge::{MergePlan, MergeReport, merge};
pub use merge_queue::{
    LeaveReport, MergeQueueOrder, MergeQueuePlan, MergeQueueReport, leave_merge_queue, merge_queue,
    merge_queue_order,
};
pub use notice_overlaps::{OverlapPlan, OverlapReport, ToldOverlap, notice_overlaps};
pub use onboard::{OnboardPlan, OnboardReport, onboard};
pub use redeliver::{RedeliverPlan, RedeliverReport, Redelivered, Redelivery, redeliver};
pub use renew::{RenewPlan, RenewReport, renew};
pub use reply::ReplyTarget;
pub use review_comment::{ReviewCommentPlan, ReviewCommentReport, review_comment};
pub use send::{SendPlan, SendReport, send};
pub use send_json::SendView;
pub use subscribe::{SubscribePlan, SubscribeReport, subscribe};
pub use unlock::{UnlockPlan, UnlockReport, unlock};
