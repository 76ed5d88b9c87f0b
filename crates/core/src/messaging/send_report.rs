//! What a send reports: each recipient's outcome, the rate limit it met,
//! and the exit code and refusal a front door gives for it.

use std::path::PathBuf;
use std::time::Duration;

use crate::domain::message::Message;
use crate::error::Error;
use crate::log::record::{DeliveryOutcome, MessageView};
use crate::support::exit_code::ExitCode;

use super::rates::rate_store::RateLimit;

/// What happened to a message.
#[derive(Clone, Debug)]
pub struct SendReport {
    /// The message as logged.
    pub message: Message,
    /// The outcome per recipient, in recipient order.
    pub outcomes: Vec<(String, DeliveryOutcome)>,
    /// Set when the sender was over its rate limit: the time until the
    /// next send is allowed. The message is logged, queued for everyone.
    pub rate_limited: Option<Duration>,
    /// The limit the send was checked against (what a refusal names).
    pub rate: RateLimit,
    /// Where the body went when it was too long to paste.
    pub body_file: Option<PathBuf>,
    /// Problems worth telling the user about (damaged state files).
    pub warnings: Vec<String>,
}

/// One message tried again.
#[derive(Clone, Debug)]
pub struct Redelivery {
    /// The message as it was before.
    pub view: MessageView,
    /// The new outcome per recipient tried.
    pub outcomes: Vec<(String, DeliveryOutcome)>,
}

impl SendReport {
    /// Recipients whose pane got the message.
    pub fn delivered(&self) -> usize {
        self.outcomes
            .iter()
            .filter(|(_, o)| o.is_delivered())
            .count()
    }

    /// Recipients whose agent has the message through its own channel and
    /// has not taken it yet (accepted, awaiting approval, unconfirmed).
    pub fn accepted(&self) -> usize {
        self.outcomes
            .iter()
            .filter(|(_, o)| o.is_with_agent())
            .count()
    }

    /// What a send exits with: `RateLimited` (6) when the sender was over
    /// its rate limit, `NotDelivered` (7) when anyone's copy was queued or
    /// held for another reason than the end of a busy turn (a copy that
    /// waits only for that is accepted: agents take a failing exit for a
    /// failed send), or was dropped or refused; else `Success`. A copy the
    /// agent has through its own channel (accepted, awaiting approval,
    /// unconfirmed) is a success: it is never sent again, so the sender
    /// must not send it again either.
    pub fn exit_code(&self) -> ExitCode {
        if self.rate_limited.is_some() {
            ExitCode::RateLimited
        } else if self
            .outcomes
            .iter()
            .any(|(_, o)| !o.is_delivered() && !o.waits_for_turn() && !o.is_with_agent())
        {
            ExitCode::NotDelivered
        } else {
            ExitCode::Success
        }
    }

    /// The refusal to tell when the sender was over its rate limit (the
    /// message is logged and waits in the inbox all the same).
    pub fn rate_limit_error(&self) -> Option<Error> {
        let wait = self.rate_limited?;
        Some(Error::RateLimited {
            sender: self.message.sender.to_string(),
            max: self.rate.max,
            window_secs: self.rate.window.as_secs(),
            wait_secs: wait.as_secs_f64().ceil() as u64,
        })
    }
}
