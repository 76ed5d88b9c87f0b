//! Sending: validate, rate-limit, log first, deliver into each recipient's
//! pane (in parallel for a broadcast), then log the outcome per recipient.
//! A message that could not be typed into a pane waits in the log (the
//! inbox) with the reason, and can be redelivered.

use std::time::Duration;

use crate::acks;
use crate::agents::registry::{AgentRecord, AgentStatus, Registry};
use crate::attention::event::{EventKind, FeedEntry};
use crate::domain::message::{Message, MessageType, Urgency};
use crate::domain::{AgentId, MessageId, Timestamp};
use crate::error::{Error, Result};
use crate::log::log_line::LoggedMessage;
use crate::log::record::{
    DeliveryOutcome, DeliveryRecord, DeliveryStatus, MessageView, Record, Via,
};
use crate::native;
use crate::support::sanitize;
use crate::tmux::{PaneId, ScreenDetail};

use super::delivery::{self, PaneSession, TypingAhead, Wait};
use super::held::release::Released;
use super::messenger::{Messenger, target_of};
use super::native_post::{Channels, Native, with_note};
use super::pane_text::pane_header;
use super::rates::rate_store::RateDecision;
use super::send_report::{Redelivery, SendReport};

/// The outcome per recipient, in recipient order.
pub(crate) type Outcomes = Vec<(String, DeliveryOutcome)>;

/// What one delivery types into panes, and how urgently.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Typed<'t> {
    /// The message.
    pub msg_id: &'t str,
    /// Exactly what is typed.
    pub text: &'t str,
    /// The piece of the text that identifies it on screen (its header).
    pub marker: &'t str,
    /// How urgently it goes into a busy agent's pane.
    pub urgency: Urgency,
    /// Sent by the person: an urgent one goes into an agent at its usage
    /// limit all the same.
    pub from_person: bool,
}

/// Most recipients of one broadcast (parity).
pub(crate) const MAX_BROADCAST_RECIPIENTS: usize = 100;

/// Who a message goes to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Recipients {
    /// One agent.
    One(String),
    /// Every active agent, the sender only when `include_self`.
    All {
        /// Also deliver to the sender.
        include_self: bool,
    },
    /// The active agents among a topic's subscribers, the sender only
    /// when `include_self`.
    Subscribers {
        /// The topic.
        topic: String,
        /// Its subscribers.
        agents: Vec<String>,
        /// Also deliver to the sender (when subscribed).
        include_self: bool,
    },
}

/// A send request, already validated by the caller's types.
#[derive(Clone, Debug)]
pub struct SendRequest {
    /// Sender id.
    pub sender: String,
    /// Recipients.
    pub to: Recipients,
    /// Type.
    pub msg_type: MessageType,
    /// Sanitised, size-checked body (`message::clean_content`).
    pub content: String,
    /// Set when an agent sends as another (`--as-other`): the real one.
    pub sent_by: Option<String>,
    /// The recipient must acknowledge it within this long (one recipient
    /// only): the message is recorded in `PENDING_ACKS.json` and retried.
    pub ack_timeout: Option<Duration>,
    /// The message this one answers.
    pub parent_msg_id: Option<String>,
    /// Sent by swarm itself (retries, escalations, ACK notices): not
    /// subject to the sender's rate limit.
    pub system: bool,
    /// Recipients over their budget, with the reason: their copy is kept
    /// in their inbox (queued), not typed in (docs/USAGE.md).
    pub over_budget: Vec<(String, String)>,
    /// How urgently it goes into a busy agent's pane.
    pub urgency: Urgency,
    /// The topic of a broadcast to its subscribers, recorded with the
    /// delivery outcomes.
    pub topic: Option<String>,
}

impl SendRequest {
    /// A plain request: no ACK, no parent, rate limited.
    pub fn new(
        sender: String,
        to: Recipients,
        msg_type: MessageType,
        content: String,
    ) -> SendRequest {
        SendRequest {
            sender,
            to,
            msg_type,
            content,
            sent_by: None,
            ack_timeout: None,
            parent_msg_id: None,
            system: false,
            over_budget: Vec::new(),
            urgency: Urgency::Normal,
            topic: None,
        }
    }
}

impl<'a> Messenger<'a> {
    /// Sends one message: to one agent or a broadcast.
    pub(crate) fn send(&self, registry: &Registry, mut req: SendRequest) -> Result<SendReport> {
        let recipients = self.resolve(registry, &req)?;
        let over = |a: &AgentRecord| req.over_budget.iter().find(|(id, _)| a.id == id.as_str());
        let to_type: Vec<AgentRecord> = recipients
            .iter()
            .filter(|a| over(a).is_none())
            .cloned()
            .collect();
        let over_budget: Vec<(String, DeliveryOutcome)> = recipients
            .iter()
            .filter_map(|a| {
                over(a).map(|(id, why)| (id.clone(), DeliveryOutcome::queued(why.clone())))
            })
            .collect();
        if req.urgency == Urgency::Normal
            && self
                .settings
                .urgent_types
                .iter()
                .any(|t| t == req.msg_type.as_str())
        {
            req.urgency = Urgency::Urgent;
        }
        // The channels first: a recipient with one of its own needs no tmux
        // client. Those the others will use start now, while the rate
        // window, the log and the locks are dealt with.
        let channels = self.channels(&to_type, req.urgency);
        let ahead = self.start_ahead(&to_type, &channels);
        if req.ack_timeout.is_some() && recipients.len() != 1 {
            return Err(Error::Invalid(
                "an acknowledgement can only be asked of one recipient".into(),
            ));
        }
        let mut warnings = Vec::new();
        // The person has a limit of their own: an agent's would stop them
        // answering a busy swarm from the monitor or the dashboard.
        let limit = if req.sender == self.settings.person_id {
            self.settings.person_rate
        } else {
            self.settings.rate
        };
        let verdict = if req.system {
            RateDecision::Allowed
        } else {
            let (verdict, note) = self.rates.check_and_record(
                &AgentId::parse(&req.sender)?,
                limit,
                Timestamp::now(),
            )?;
            warnings.extend(note);
            verdict
        };
        let mut message = Message::new(
            AgentId::parse(&req.sender)?,
            recipients.iter().map(|a| a.id.clone()).collect(),
            req.msg_type,
            req.content,
        );
        message.parent_msg_id = req.parent_msg_id.map(MessageId::from_stored);
        if req.ack_timeout.is_some() {
            message.requires_ack = true;
            message.content = format!(
                "{} {}",
                acks::ack_marker(message.msg_id.as_str()),
                message.content
            );
        }
        if let Some(timeout) = req.ack_timeout {
            // Recorded before the message is logged or typed: from here on
            // the retry loop owns it, whatever happens to this process, so
            // a message in the log always has its pending acknowledgement.
            // (A process killed before the log write leaves an obligation
            // whose retries type the message in all the same.)
            warnings.extend(acks::register(
                self.acks,
                &message,
                &recipients[0].id,
                timeout,
            )?);
        }
        match self
            .log
            .append(&[Record::Message(LoggedMessage::new(message.clone()))])
        {
            Ok(more) => warnings.extend(more),
            Err(e) => {
                // Nothing was sent: the obligation recorded above goes
                // with it, or its retries would type in a message whose
                // send failed. Should that fail too, the retries do go
                // out (once too often rather than never); the error that
                // stopped the send is the one to report.
                if req.ack_timeout.is_some() {
                    let _ = self
                        .acks
                        .acknowledge(message.msg_id.as_str(), &recipients[0].id);
                }
                return Err(e.into());
            }
        }

        let note = req
            .sent_by
            .as_ref()
            .map(|by| format!("sent by {by} as {} (--as-other)", message.sender));
        if let RateDecision::Limited(wait) = verdict {
            let reason = format!(
                "rate limited: {} sent {} messages in the last {}s",
                message.sender,
                limit.max,
                limit.window.as_secs()
            );
            let outcomes: Vec<(String, DeliveryOutcome)> = message
                .recipients
                .iter()
                .map(|r| (r.to_string(), DeliveryOutcome::queued(reason.clone())))
                .collect();
            warnings.extend(
                self.log.append(&[Record::Delivery(
                    DeliveryRecord::new(message.msg_id.as_str(), &outcomes, note)
                        .with_topic(req.topic.clone()),
                )])?,
            );
            return Ok(SendReport {
                message,
                outcomes,
                rate_limited: Some(wait),
                rate: limit,
                body_file: None,
                warnings,
            });
        }

        // Recorded as sent before anything is typed: a reader of the feed
        // sees it before what it causes.
        if let Err(e) = self.feed.append(&[sent_entry(&message)]) {
            warnings.push(format!("could not write the activity feed: {e}"));
        }
        let (text, body_file) = self.pane_text(&message, None)?;
        let marker = pane_header(&message);
        let mut outcomes = Vec::new();
        if !over_budget.is_empty() {
            warnings.extend(
                self.log.append(&[Record::Delivery(
                    DeliveryRecord::new(
                        message.msg_id.as_str(),
                        &over_budget,
                        Some("over budget".into()),
                    )
                    .with_topic(req.topic.clone()),
                )])?,
            );
            outcomes.extend(over_budget);
        }
        if !to_type.is_empty() {
            let typed = Typed {
                msg_id: message.msg_id.as_str(),
                text: &text,
                marker: &marker,
                urgency: req.urgency,
                from_person: req.sender == self.settings.person_id,
            };
            let early = Some((ahead, channels));
            let (typed, more) =
                self.deliver_logged_as(typed, &to_type, note, req.topic.clone(), early)?;
            warnings.extend(more);
            outcomes.extend(typed);
        }
        Ok(SendReport {
            message,
            outcomes,
            rate_limited: None,
            rate: limit,
            body_file,
            warnings,
        })
    }

    /// Tries again to deliver queued messages: each recipient whose latest
    /// outcome is "queued" and who is still registered. Returns the
    /// attempts per message (messages with nothing to retry are left out).
    pub(crate) fn redeliver(
        &self,
        registry: &Registry,
        views: &[MessageView],
    ) -> Result<Vec<Redelivery>> {
        let mut done = Vec::new();
        for view in views {
            let targets: Vec<AgentRecord> = view
                .outcomes
                .iter()
                .filter(|(_, o)| o.status == DeliveryStatus::Queued)
                .filter_map(|(r, _)| registry.find(r).cloned())
                .collect();
            if targets.is_empty() {
                continue;
            }
            let (text, _) = self.pane_text(&view.message, None)?;
            let marker = pane_header(&view.message);
            let typed = Typed {
                msg_id: view.message.msg_id.as_str(),
                text: &text,
                marker: &marker,
                // Asked for by hand: at once (the refusal of a message
                // held for a usage limit, and `--force`, are the caller's).
                urgency: Urgency::Urgent,
                from_person: true,
            };
            let (outcomes, _) =
                self.deliver_logged(typed, &targets, Some("redelivery".into()), None)?;
            done.push(Redelivery {
                view: view.clone(),
                outcomes,
            });
        }
        Ok(done)
    }

    /// Delivers `text` for message `msg_id` to `targets` (in parallel when
    /// there are several) and appends the outcomes to the log. `ahead`: the
    /// tmux clients `start_ahead` started for these targets, when the
    /// caller started them early; otherwise the targets' channels are
    /// chosen and the clients started for the others here.
    pub(crate) fn deliver_logged(
        &self,
        typed: Typed<'_>,
        targets: &[AgentRecord],
        note: Option<String>,
        ahead: Option<TypingAhead<'a>>,
    ) -> Result<(Outcomes, Vec<String>)> {
        let early = ahead.map(|a| (Some(a), self.channels(targets, typed.urgency)));
        self.deliver_logged_as(typed, targets, note, None, early)
    }

    /// `deliver_logged`, the outcomes recorded with the topic the message
    /// was broadcast to. `early`: the tmux clients `start_ahead` started
    /// and the channels chosen for these targets, when the caller did that
    /// early; otherwise it is done here.
    fn deliver_logged_as(
        &self,
        typed: Typed<'_>,
        targets: &[AgentRecord],
        note: Option<String>,
        topic: Option<String>,
        early: Option<(Option<TypingAhead<'a>>, Channels)>,
    ) -> Result<(Outcomes, Vec<String>)> {
        let (ahead, channels) = early.unwrap_or_else(|| {
            let channels = self.channels(targets, typed.urgency);
            (self.start_ahead(targets, &channels), channels)
        });
        let (mut outcomes, released) = self.deliver_all(typed, targets, ahead, &channels);
        for (agent, o) in &mut outcomes {
            if o.is_delivered() && o.via.is_none() && *agent != self.settings.person_id {
                o.via = Some(Via::Typed);
            }
        }
        // A client started for a capture that no pane needed.
        self.tmux.cool_down();
        super::hook_confirm::await_hooks(self.paths, typed.msg_id, targets, &mut outcomes);
        let mut warnings = self.log_released(&released)?;
        warnings.extend(self.log.append(&[Record::Delivery(
            DeliveryRecord::new(typed.msg_id, &outcomes, note).with_topic(topic),
        )])?);
        Ok((outcomes, warnings))
    }

    /// The agents `req` goes to: the one named (refused when unknown,
    /// unless swarm itself sends), or every active one for a broadcast.
    fn resolve(&self, registry: &Registry, req: &SendRequest) -> Result<Vec<AgentRecord>> {
        let known = || {
            registry
                .active()
                .map(|a| a.id.to_string())
                .collect::<Vec<_>>()
        };
        match &req.to {
            Recipients::One(id) => {
                match registry.find(id).filter(|a| a.status != AgentStatus::Dead) {
                    Some(a) => Ok(vec![a.clone()]),
                    // swarm's own notices (an ACK to a sender that is not a
                    // registered agent) still go to the log, queued; a
                    // message to the person goes to their inbox.
                    None if req.system || *id == self.settings.person_id => Ok(vec![AgentRecord {
                        id: AgentId::parse(id)?,
                        pane_index: String::new(),
                        pid: 0,
                        status: AgentStatus::Active,
                        last_seen: String::new(),
                        session_name: self.asleep_in(id).unwrap_or_default(),
                        tmux_pane_id: None,
                        host: None,
                    }]),
                    // An agent of a recorded session that is down: the
                    // message waits in its inbox for `swarm resume`.
                    None if let Some(session) = self.asleep_in(id) => Ok(vec![AgentRecord {
                        id: AgentId::parse(id)?,
                        pane_index: String::new(),
                        pid: 0,
                        status: AgentStatus::Active,
                        last_seen: String::new(),
                        session_name: session,
                        tmux_pane_id: None,
                        host: None,
                    }]),
                    None => Err(Error::UnknownAgent {
                        id: id.clone(),
                        registry: self.paths.registry(),
                        known: known(),
                    }),
                }
            }
            Recipients::Subscribers {
                topic,
                agents,
                include_self,
            } => {
                let all: Vec<AgentRecord> = registry
                    .active()
                    .filter(|a| agents.iter().any(|s| a.id == s.as_str()))
                    .filter(|a| *include_self || a.id != req.sender.as_str())
                    .cloned()
                    .collect();
                if all.is_empty() {
                    return Err(Error::NoSubscribers(topic.to_string()));
                }
                if all.len() > MAX_BROADCAST_RECIPIENTS {
                    return Err(Error::Invalid(format!(
                        "too many recipients for one broadcast ({}, at most {MAX_BROADCAST_RECIPIENTS})",
                        all.len()
                    )));
                }
                Ok(all)
            }
            Recipients::All { include_self } => {
                let all: Vec<AgentRecord> = registry
                    .active()
                    .filter(|a| *include_self || a.id != req.sender.as_str())
                    .cloned()
                    .collect();
                if all.is_empty() {
                    return Err(Error::NoRecipients(if registry.active().next().is_some() {
                        format!(
                            "no other active agents: only {} is active (use --include-self to send to yourself)",
                            req.sender
                        )
                    } else {
                        "no active agents to broadcast to".into()
                    }));
                }
                if all.len() > MAX_BROADCAST_RECIPIENTS {
                    return Err(Error::Invalid(format!(
                        "too many recipients for one broadcast ({}, at most {MAX_BROADCAST_RECIPIENTS})",
                        all.len()
                    )));
                }
                Ok(all)
            }
        }
    }

    /// The recorded session of `agent`, which the registry does not list
    /// (its session is down); `None` when no recorded session has it or
    /// the records cannot be read.
    fn asleep_in(&self, agent: &str) -> Option<String> {
        self.sessions
            .list()
            .ok()?
            .into_iter()
            .find(|s| s.agent(agent).is_some())
            .map(|s| s.name)
    }

    /// Delivers to every recipient: those on this host by typing (one by
    /// one, or as a batch), those on other hosts by handing over. Returns
    /// the outcomes in recipient order and the held messages released on
    /// the way.
    fn deliver_all(
        &self,
        typed: Typed<'_>,
        recipients: &[AgentRecord],
        ahead: Option<TypingAhead<'a>>,
        channels: &Channels,
    ) -> (Outcomes, Vec<Released>) {
        // An agent whose session is down has no pane to type into.
        if let [a] = recipients
            && a.tmux_pane_id.is_none()
            && a.pid == 0
            && !a.session_name.is_empty()
            && a.id.as_str() != self.settings.person_id
        {
            let why = format!(
                "{}'s session {} is not running: the message waits in its inbox and is typed in \
                 after `swarm resume {}`",
                a.id, a.session_name, a.session_name
            );
            return (
                vec![(a.id.to_string(), DeliveryOutcome::queued(why))],
                Vec::new(),
            );
        }
        // The person has no pane: their inbox is where a message to them
        // goes, and being there is its delivery.
        if let [a] = recipients
            && a.id.as_str() == self.settings.person_id
        {
            return (
                vec![(a.id.to_string(), DeliveryOutcome::to_person())],
                Vec::new(),
            );
        }
        if recipients.iter().any(|a| self.elsewhere(a).is_some()) {
            // The other hosts' shares first, each in one batch: their
            // watchers then type while this host types its own share
            // (and waits out its agents' pause before Enter).
            let remote: Vec<(&AgentRecord, &str)> = recipients
                .iter()
                .filter_map(|a| Some((a, self.elsewhere(a)?)))
                .collect();
            let mut handed = self.hand_over_all(&remote, typed).into_iter();
            let local: Vec<AgentRecord> = recipients
                .iter()
                .filter(|a| self.elsewhere(a).is_none())
                .cloned()
                .collect();
            let (mut here, released) = if local.is_empty() {
                (Vec::new(), Vec::new())
            } else {
                self.deliver_all(typed, &local, ahead, channels)
            };
            let mut outcomes = Vec::with_capacity(recipients.len());
            for a in recipients {
                match self.elsewhere(a) {
                    Some(_) => {
                        let outcome = handed.next().unwrap_or_else(|| {
                            DeliveryOutcome::queued(format!("{} is on another host", a.id))
                        });
                        outcomes.push((a.id.to_string(), outcome));
                    }
                    None => {
                        let k = here.iter().position(|(id, _)| a.id == id.as_str());
                        if let Some(k) = k {
                            outcomes.push(here.remove(k));
                        }
                    }
                }
            }
            return (outcomes, released);
        }
        let results: Vec<(DeliveryOutcome, Vec<Released>)> = match recipients {
            [a] => vec![self.deliver_one(a, typed, ahead, channels.of(a.id.as_str()))],
            _ => self.deliver_batch(recipients, typed, ahead, channels),
        };
        let mut outcomes = Vec::new();
        let mut released = Vec::new();
        for (a, (outcome, more)) in recipients.iter().zip(results) {
            outcomes.push((a.id.to_string(), outcome));
            released.extend(more);
        }
        (outcomes, released)
    }

    /// A broadcast: about the cost of one send. The panes are locked in a
    /// fixed order (by pane number, so two broadcasts never wait on each
    /// other crosswise), their screens read in one tmux call, and the text
    /// pasted into every pane that is safe in one call and submitted in
    /// one more. Agents with a channel of their own get it then, all at
    /// once; agents with held messages go one by one, after them.
    fn deliver_batch(
        &self,
        recipients: &[AgentRecord],
        typed: Typed<'_>,
        ahead: Option<TypingAhead<'a>>,
        channels: &Channels,
    ) -> Vec<(DeliveryOutcome, Vec<Released>)> {
        let mut order: Vec<usize> = (0..recipients.len()).collect();
        order.sort_by_key(|&i| target_of(&recipients[i]).pane.map(|p| p.number()));
        let held = self.held.list().unwrap_or_default();
        let mut results: Vec<Option<(DeliveryOutcome, Vec<Released>)>> =
            vec![None; recipients.len()];
        let mut locked: Vec<(usize, delivery::LockedPane<'_>)> = Vec::new();
        let mut one_by_one: Vec<usize> = Vec::new();
        let mut natives: Vec<usize> = Vec::new();
        for i in order {
            let a = &recipients[i];
            // Agents with held messages go one by one; those with a
            // channel of their own are posted to together.
            if held.iter().any(|h| a.id == h.agent.as_str()) {
                one_by_one.push(i);
                continue;
            }
            if channels.of(a.id.as_str()).is_some() {
                natives.push(i);
                continue;
            }
            match delivery::lock(
                self.tmux,
                self.paths,
                &target_of(a),
                &self.settings.delivery,
            ) {
                Ok(l) => locked.push((i, l)),
                Err(outcome) => results[i] = Some((outcome, Vec::new())),
            }
        }
        // Each pane's foreground and profile first, which say how to
        // capture its screen; then all screens in one tmux call, answered
        // while the paste is made ready.
        let (order, locked): (Vec<usize>, Vec<_>) = locked.into_iter().unzip();
        let checked =
            delivery::LockedPane::check_all(locked, self.matcher, &self.settings.delivery);
        let mut sessions: Vec<(usize, PaneSession<'_>)> = Vec::new();
        for (i, checked) in order.into_iter().zip(checked) {
            match checked {
                Ok(s) => sessions.push((i, s)),
                Err(outcome) => results[i] = Some((outcome, Vec::new())),
            }
        }
        let reading: Vec<(PaneId, ScreenDetail)> = sessions
            .iter()
            .filter(|(_, s)| s.reads_screen())
            .map(|(_, s)| s.screen_request())
            .collect();
        let pending = self.tmux.start_capture_screens(&reading);
        let all: Vec<&PaneSession<'_>> = sessions.iter().map(|(_, s)| s).collect();
        let prepared = delivery::prepare_many(&all, ahead);
        let mut captures = pending.finish().into_iter();
        let mut ready: Vec<(usize, &PaneSession<'_>)> = Vec::new();
        for (i, s) in &sessions {
            let wait = if s.reads_screen() {
                let capture = captures.next().flatten();
                s.read_capture(capture.as_deref())
                    .and_then(|r| delivery::wait_for(&r, s.agent()))
                    .filter(|w| w.stops(typed.urgency))
            } else {
                None
            };
            match wait {
                None => ready.push((*i, s)),
                Some(wait) => {
                    results[*i] = Some((self.hold_outcome(s, s.agent(), typed, &wait), Vec::new()));
                }
            }
        }
        let outcomes = delivery::type_text_many(
            &ready.iter().map(|(_, s)| *s).collect::<Vec<_>>(),
            typed.text,
            typed.marker,
            prepared,
        );
        for ((i, _), outcome) in ready.iter().zip(outcomes) {
            results[*i] = Some((outcome, Vec::new()));
        }
        drop(sessions);
        let posted = self.deliver_natives(recipients, &natives, typed, channels);
        for (i, result) in natives.into_iter().zip(posted) {
            results[i] = Some(result);
        }
        for i in one_by_one {
            let a = &recipients[i];
            results[i] = Some(self.deliver_one(a, typed, None, channels.of(a.id.as_str())));
        }
        results
            .into_iter()
            .map(|r| r.unwrap_or_else(|| (DeliveryOutcome::queued("not attempted"), Vec::new())))
            .collect()
    }

    /// Delivers one message to one agent, after any messages held for it
    /// (order is kept: while those wait, so does this one, unless it is
    /// urgent and they wait only for the end of the agent's turn), through
    /// its own channel when it has one (`native`: then no screen is read
    /// and no tmux client started unless the channel refuses).
    pub(crate) fn deliver_one(
        &self,
        a: &AgentRecord,
        typed: Typed<'_>,
        ahead: Option<TypingAhead<'a>>,
        native: Option<&native::Choice>,
    ) -> (DeliveryOutcome, Vec<Released>) {
        let (target, settings) = (target_of(a), &self.settings.delivery);
        let opened = match native {
            Some(_) => delivery::lock(self.tmux, self.paths, &target, settings)
                .and_then(|l| l.check(self.matcher, settings)),
            None => delivery::open(self.tmux, self.paths, self.matcher, &target, settings),
        };
        let session = match opened {
            Ok(s) => s,
            Err(outcome) => return (outcome, Vec::new()),
        };
        if native.is_none() {
            session.prepare_typing(ahead);
        }
        let (released, blocked) = self.release_pending(&session, a.id.as_str());
        // An urgent message from the person passes a usage limit that
        // keeps the held ones back.
        let limit = self.limit_wait(a.id.as_str(), None);
        let passes = limit.is_some() && self.limit_wait(a.id.as_str(), Some(&typed)).is_none();
        // The agent's own channel, where it has one and nothing of swarm's
        // waits ahead of this message: a busy agent queues it itself.
        let mut native_note = None;
        if (limit.is_none() || passes)
            && blocked.is_none()
            && let Some(choice) = native
        {
            match self.post_native(&session, a, &typed, choice) {
                Native::Posted(outcome) => return (outcome, released),
                Native::Typing(note) => native_note = note,
            }
        }
        let wait = limit
            .filter(|_| !passes)
            .or_else(|| {
                blocked.filter(|w| {
                    w.stops(typed.urgency) && !(passes && matches!(w, Wait::Limited(_)))
                })
            })
            .or_else(|| session.wait().filter(|w| w.stops(typed.urgency)));
        let Some(wait) = wait else {
            // An agent may put the stopped turn's prompt back into its
            // input box: the message then waits rather than join it.
            if typed.urgency == Urgency::Interrupt
                && session.interrupt()
                && let Some(wait) = after_interrupt(&session)
            {
                return (
                    self.hold_outcome(&session, a.id.as_str(), typed, &wait),
                    released,
                );
            }
            let outcome = session.type_text(typed.text, typed.marker);
            return (with_note(outcome, native_note), released);
        };
        (
            self.hold_outcome(&session, a.id.as_str(), typed, &wait),
            released,
        )
    }

    /// Holds the message for `agent` until `wait` is over; the outcome
    /// says so (queued instead when it could not be held).
    fn hold_outcome(
        &self,
        session: &PaneSession<'_>,
        agent: &str,
        typed: Typed<'_>,
        wait: &Wait,
    ) -> DeliveryOutcome {
        match self.hold(session, agent, typed, wait.reason()) {
            Ok(()) => wait.held(),
            Err(e) => DeliveryOutcome::queued(format!(
                "{}; could not hold it for later: {e}",
                wait.reason()
            )),
        }
    }
}

/// How long a stopped turn's screen may take to let a message in: agents
/// redraw after Escape (Gemini CLI shows no input box for a moment).
const SETTLE: Duration = Duration::from_secs(2);

/// What keeps an urgent message out of `session`'s pane right after its
/// turn was stopped, once the screen has settled (or `SETTLE` passed).
fn after_interrupt(session: &PaneSession<'_>) -> Option<Wait> {
    let deadline = std::time::Instant::now() + SETTLE;
    loop {
        let wait = session.wait().filter(|w| w.stops(Urgency::Urgent));
        if wait.is_none() || std::time::Instant::now() >= deadline {
            return wait;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The longest detail of a feed line about a message.
const FEED_DETAIL_CHARS: usize = 200;

/// The start of `message`'s body as a feed line's detail: one line, at
/// most `FEED_DETAIL_CHARS` characters.
pub(crate) fn feed_detail(message: &Message) -> String {
    sanitize::one_line(&message.content)
        .chars()
        .take(FEED_DETAIL_CHARS)
        .collect()
}

/// The `message_sent` line of `message`: its type, recipients and the
/// start of its body.
fn sent_entry(message: &Message) -> FeedEntry {
    let detail = feed_detail(message);
    let to = message
        .recipients
        .iter()
        .map(|r| r.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    FeedEntry::new(
        EventKind::MessageSent,
        Some(message.sender.as_str()),
        format!("{} to {to}: {detail}", message.msg_type.as_str()),
    )
    .with_message(message.msg_id.as_str())
}
