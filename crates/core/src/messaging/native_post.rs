//! A message through the recipient's own channel (`crate::native`),
//! under the pane's delivery lock typing takes: the channel is chosen for
//! this message, the text posted exactly as it would be typed (its pane
//! header carries the id the agent's record is found by), and the agent's
//! record waited for a moment. A channel that refused before writing
//! anything leaves the message to typing; one that took it never does.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::attention::event::{EventKind, FeedEntry};
use crate::log::record::DeliveryStatus;
use crate::native::claude::Inbound;
use crate::native::follow::{self, Followed};

use crate::agents::registry::AgentRecord;
use crate::log::record::{DeliveryOutcome, Via};
use crate::native::{
    self, Choice, Confirmation, Post, RECEIPT_WAIT, Receipt, Recipient, Route, outcome_of,
};

use super::delivery::PaneSession;
use super::messenger::Messenger;
use super::send::Typed;

/// How often the record is looked at meanwhile.
const RECEIPT_POLL: Duration = Duration::from_millis(5);

/// What a native attempt came to.
pub(crate) enum Native {
    /// Posted: the outcome (the watcher follows it while the agent has
    /// not taken it).
    Posted(DeliveryOutcome),
    /// Not posted: typing goes ahead; why the agent's channel was not
    /// used, when it was tried.
    Typing(Option<String>),
}

impl Messenger<'_> {
    /// The channel for `typed` to `a`, whose pane `session` holds, under
    /// the config's and the profile's word.
    pub(crate) fn channel_for(
        &self,
        a: &AgentRecord,
        typed: &Typed<'_>,
        profile_native: native::NativeMode,
    ) -> Choice {
        let mode = self.settings.native.and(profile_native);
        if mode == native::NativeMode::Off {
            return native::choose(mode, None, typed.urgency);
        }
        let recipient = self
            .matcher
            .processes()
            .survey()
            .ok()
            .and_then(|view| Recipient::of_pane(self.matcher, &view, a.id.as_str(), a.pid));
        native::choose(mode, recipient.as_ref(), typed.urgency)
    }

    /// True when `typed` would go to `a` through the agent's own channel
    /// (the profile may still say no).
    pub(crate) fn goes_native(&self, a: &AgentRecord, typed: &Typed<'_>) -> bool {
        self.settings.native == native::NativeMode::Auto
            && self
                .channel_for(a, typed, native::NativeMode::Auto)
                .is_native()
    }

    /// Tries the agent's own channel for `typed` (the pane's lock is held
    /// by `session`).
    pub(crate) fn post_native(
        &self,
        session: &PaneSession<'_>,
        a: &AgentRecord,
        typed: &Typed<'_>,
    ) -> Native {
        let choice = self.channel_for(a, typed, session.profile().native);
        let endpoint = match &choice.route {
            Route::Socket(endpoint) => endpoint,
            Route::AppServer(endpoint) => return self.post_app_server(a, endpoint, typed),
            Route::Typed => return Native::Typing(None),
        };
        let receipt = match endpoint.post(typed.msg_id, typed.marker, typed.text) {
            Post::Accepted(receipt) => receipt,
            Post::Refused(why) => {
                return Native::Typing(Some(format!("the socket refused it ({why})")));
            }
        };
        let deadline = Instant::now() + RECEIPT_WAIT;
        let mut state = Confirmation::Unconfirmed;
        let mut at = receipt.offset;
        loop {
            let look =
                native::claude::transcript::look(&receipt.record, at, &receipt.marker, state);
            state = look.state;
            at = look.next;
            // Queued behind a busy turn: it waits there; no use waiting
            // here for the end of the turn.
            let queued = state == Confirmation::Accepted && endpoint.busy;
            if state.is_final() || queued || Instant::now() >= deadline {
                break;
            }
            std::thread::sleep(RECEIPT_POLL);
        }
        let outcome = outcome_of(state, endpoint.inbound, receipt.cut_short, Via::Socket);
        let receipt = Receipt {
            offset: at,
            ..receipt
        };
        if outcome.is_with_agent() {
            self.follow_later(a, &receipt, &endpoint.session_file, &outcome);
        }
        Native::Posted(outcome)
    }

    /// Posts `typed` to Codex CLI's app server: the server's answer and
    /// its events tell at once whether a turn took it or it was queued.
    /// The socket's path stands for the session: gone, the agent ended.
    fn post_app_server(
        &self,
        a: &AgentRecord,
        endpoint: &native::codex::Endpoint,
        typed: &Typed<'_>,
    ) -> Native {
        let (post, state) = endpoint.post(typed.msg_id, typed.marker, typed.text, typed.urgency);
        let receipt = match post {
            Post::Accepted(receipt) => receipt,
            Post::Refused(why) => {
                return Native::Typing(Some(format!("the app server refused it ({why})")));
            }
        };
        let mut outcome = outcome_of(state, Inbound::Accept, false, Via::AppServer);
        if outcome.status == DeliveryStatus::Unconfirmed {
            outcome.reason = Some(
                "the app server took it; no event of a turn taking it yet (it is never typed as well)"
                    .into(),
            );
        }
        if outcome.is_with_agent() {
            self.follow_later(a, &receipt, &endpoint.path, &outcome);
        }
        Native::Posted(outcome)
    }

    /// Records that the agent has the message and has not taken it: the
    /// watcher follows it (`native::follow`), and the feed says so.
    fn follow_later(
        &self,
        a: &AgentRecord,
        receipt: &Receipt,
        session_file: &Path,
        outcome: &DeliveryOutcome,
    ) {
        let followed = Followed {
            agent: a.id.to_string(),
            receipt: receipt.clone(),
            session_file: session_file.to_path_buf(),
            status: outcome.status,
            since: follow::now_secs(),
        };
        if let Err(e) = follow::track(self.paths, followed) {
            crate::store::notices::report(format!(
                "could not record message {} as accepted by {}: {e}",
                receipt.msg_id, a.id
            ));
        }
        let kind = if outcome.status == DeliveryStatus::Unconfirmed {
            EventKind::MessageUnconfirmed
        } else {
            EventKind::MessageAccepted
        };
        let entry = FeedEntry::new(
            kind,
            Some(a.id.as_str()),
            format!("{}: {}", receipt.msg_id, outcome.describe()),
        )
        .with_message(&receipt.msg_id);
        if let Err(e) = self.feed.append(&[entry]) {
            crate::store::notices::report(format!("could not write the activity feed: {e}"));
        }
    }
}

/// A typed outcome, noting why the agent's own channel was not used
/// when it was tried (a reason already there stays).
pub(crate) fn with_note(outcome: DeliveryOutcome, note: Option<String>) -> DeliveryOutcome {
    match note {
        Some(note) if outcome.reason.is_none() => DeliveryOutcome {
            reason: Some(format!("typed: {note}")),
            ..outcome
        },
        _ => outcome,
    }
}
