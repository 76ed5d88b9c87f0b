//! A message through the recipient's own channel (`crate::native`),
//! under the pane's delivery lock typing takes: the channel is chosen for
//! this message's recipients before anything else (`Channels`, one look
//! at the processes for all of them), so that a recipient with a channel
//! of its own costs no tmux client and no screen capture; the text is
//! posted exactly as it would be typed (its pane header carries the id the
//! agent's record is found by), and the agent's record waited for a
//! moment, looked at soon and then less often. The recipients of a
//! broadcast that have a channel are posted to at once, each on a thread
//! of its own. A channel that refused before writing anything leaves the
//! message to typing; one that took it never does.

use std::ops::ControlFlow;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::attention::event::{EventKind, FeedEntry};
use crate::log::record::DeliveryStatus;
use crate::native::claude::Inbound;
use crate::native::follow::{self, Followed};

use crate::agents::registry::AgentRecord;
use crate::domain::message::Urgency;
use crate::log::record::{DeliveryOutcome, Via};
use crate::native::{
    self, Choice, Confirmation, Post, RECEIPT_WAIT, Receipt, Recipient, Route, outcome_of,
};

use super::delivery::{PaneSession, TypingAhead};
use super::held::release::Released;
use super::messenger::{Messenger, target_of};
use super::send::Typed;
use crate::support::poll::Pauses;
use crate::tmux::PaneId;

/// How often the record is looked at meanwhile: the agent's record of an
/// idle turn's input comes within a millisecond or two, so the first
/// looks come soon; a later one is no longer worth looking for often.
const RECEIPT_POLL: Pauses = Pauses::new(Duration::from_micros(250), Duration::from_millis(5));

/// The channels of one message's recipients that have one of their own
/// (the others are typed into), chosen once for all of them.
#[derive(Clone, Debug, Default)]
pub(crate) struct Channels(Vec<(String, Choice)>);

impl Channels {
    /// The channel of `agent`, when it is one of its own.
    pub(crate) fn of(&self, agent: &str) -> Option<&Choice> {
        self.0.iter().find(|(a, _)| a == agent).map(|(_, c)| c)
    }
}

/// What a native attempt came to.
pub(crate) enum Native {
    /// Posted: the outcome (the watcher follows it while the agent has
    /// not taken it).
    Posted(DeliveryOutcome),
    /// Not posted: typing goes ahead; why the agent's channel was not
    /// used, when it was tried.
    Typing(Option<String>),
}

impl<'a> Messenger<'a> {
    /// The channels of `recipients` for a message of `urgency`, under the
    /// config's and each agent's profile's word: one look at the
    /// processes for all of them. Agents on other hosts, and those without
    /// a pane, have none here.
    pub(crate) fn channels(&self, recipients: &[AgentRecord], urgency: Urgency) -> Channels {
        let mode = self.settings.native;
        if mode == native::NativeMode::Off || recipients.is_empty() {
            return Channels::default();
        }
        let Ok(view) = self.matcher.processes().survey() else {
            return Channels::default();
        };
        let mut found = Vec::new();
        for a in recipients {
            if a.pid == 0 || a.tmux_pane_id.is_none() || self.elsewhere(a).is_some() {
                continue;
            }
            let Some(r) = Recipient::of_pane(self.matcher, &view, a.id.as_str(), a.pid) else {
                continue;
            };
            let profile = self.settings.delivery.profiles.for_command(&r.command);
            let choice = native::choose(mode.and(profile.native), Some(&r), urgency);
            if choice.is_native() {
                found.push((a.id.to_string(), choice));
            }
        }
        Channels(found)
    }

    /// Starts the tmux clients a delivery to the panes of `recipients` on
    /// this host will use, leaving out those that have a channel of their
    /// own (`channels`): one that will capture their screens
    /// (`Tmux::warm_up`) and, for agents that need no pause, the paste and
    /// Enter waiting for its text. Neither touches a pane until the
    /// delivery has taken the panes' locks and read their screens;
    /// dropped, they end without a trace.
    pub(crate) fn start_ahead(
        &self,
        recipients: &[AgentRecord],
        channels: &Channels,
    ) -> Option<TypingAhead<'a>> {
        let panes: Vec<PaneId> = recipients
            .iter()
            .filter(|a| self.elsewhere(a).is_none() && channels.of(a.id.as_str()).is_none())
            .filter_map(|a| target_of(a).pane)
            .collect();
        if panes.is_empty() {
            return None;
        }
        self.tmux.warm_up();
        Some(TypingAhead::start(self.tmux, panes))
    }

    /// Delivers to each of `recipients` at `natives` (agents with a channel
    /// of their own, no messages held for them) at once, each on a thread
    /// of its own: their posts and the waits for their records overlap.
    /// The results, in the order of `natives`.
    pub(crate) fn deliver_natives(
        &self,
        recipients: &[AgentRecord],
        natives: &[usize],
        typed: Typed<'_>,
        channels: &Channels,
    ) -> Vec<(DeliveryOutcome, Vec<Released>)>
    where
        Messenger<'a>: Sync,
    {
        std::thread::scope(|scope| {
            let running: Vec<_> = natives
                .iter()
                .map(|&i| {
                    let a = &recipients[i];
                    let choice = channels.of(a.id.as_str());
                    scope.spawn(move || self.deliver_one(a, typed, None, choice))
                })
                .collect();
            running
                .into_iter()
                .map(|t| {
                    t.join().unwrap_or_else(|_| {
                        (
                            DeliveryOutcome::queued("the delivery stopped unexpectedly"),
                            Vec::new(),
                        )
                    })
                })
                .collect()
        })
    }

    /// Tries the agent's own channel, `choice`, for `typed` (the pane's
    /// lock is held by `_locked`: typing waits meanwhile).
    pub(crate) fn post_native(
        &self,
        _locked: &PaneSession<'_>,
        a: &AgentRecord,
        typed: &Typed<'_>,
        choice: &Choice,
    ) -> Native {
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
        let _ = RECEIPT_POLL.until(deadline, || {
            let look =
                native::claude::transcript::look(&receipt.record, at, &receipt.marker, state);
            state = look.state;
            at = look.next;
            // Queued behind a busy turn: it waits there; no use waiting
            // here for the end of the turn.
            let queued = state == Confirmation::Accepted && endpoint.busy;
            // Held for the person: nothing changes until they act.
            let held = state == Confirmation::AwaitingApproval;
            if state.is_final() || queued || held {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
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
