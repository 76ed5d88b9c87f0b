//! Sending: validate, rate-limit, log first, deliver into each recipient's
//! pane (in parallel for a broadcast), then log the outcome per recipient.
//! A message that could not be typed into a pane waits in the log (the
//! inbox) with the reason, and can be redelivered.

use std::fs;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::PathBuf;
use std::time::Duration;

use sha2::{Digest, Sha256};

use crate::acks;
use crate::agents::agent_matcher::AgentMatcher;
use crate::agents::profile::Profiles;
use crate::domain::message::{Message, MessageType};
use crate::error::{Error, Result};
use crate::log::log_line::LoggedMessage;
use crate::log::log_store::LogStore;
use crate::log::record::{DeliveryRecord, MessageView, Outcome, Record, Status};
use crate::messaging::delivery::{self, DeliverySettings, PaneSession, Target, TypingAhead};
use crate::messaging::held_store::{HeldMessage, HeldStore, ToHold};
use crate::support::sanitize;

/// Outcome per recipient, in recipient order.
pub(crate) type Outcomes = Vec<(String, Outcome)>;

/// (recipient, message id, outcome) of one delivery taken from the relay.
pub(crate) type RelayedOne = (String, String, Outcome);

/// What the deliveries taken from the relay came to.
pub(crate) type Relayed = Vec<RelayedOne>;
use crate::acks::AckStore;
use crate::agents::registry::{AgentRecord, AgentStatus, Registry};
use crate::domain::{AgentId, MessageId, Timestamp};
use crate::messaging::rate_store::{RateLimit, RateStore, Verdict};
use crate::messaging::relay::{HandedOver, Handoff, Relay, Taken};
use crate::store::{Paths, ensure_private_dir};
use crate::tmux::{PaneId, ScreenDetail, Tmux};

/// Most recipients of one broadcast (parity).
pub(crate) const MAX_BROADCAST_RECIPIENTS: usize = 100;

/// Messaging settings, from the config.
#[derive(Clone, Debug)]
pub(crate) struct MessagingSettings {
    /// How each delivery behaves.
    pub delivery: DeliverySettings,
    /// Bodies longer than this (bytes) go to `.swarm/messages/<id>.md` and
    /// the pane gets a one-line pointer.
    pub max_inline_bytes: usize,
    /// Per-sender limit.
    pub rate: RateLimit,
}

impl Default for MessagingSettings {
    fn default() -> Self {
        MessagingSettings {
            delivery: DeliverySettings::default(),
            max_inline_bytes: 4096,
            rate: RateLimit {
                max: 10,
                window: Duration::from_secs(60),
            },
        }
    }
}

impl MessagingSettings {
    /// The settings a project's config gives.
    pub(crate) fn from_config(c: &crate::config::Config) -> MessagingSettings {
        MessagingSettings {
            rate: RateLimit {
                max: c.rate_limiting.messages_per_minute,
                window: Duration::from_secs(u64::from(c.rate_limiting.window_seconds)),
            },
            delivery: DeliverySettings {
                pause: c
                    .messaging
                    .delivery_pause_ms
                    .map(|ms| Duration::from_millis(u64::from(ms))),
                confirm: c.messaging.confirm_delivery,
                profiles: Profiles::new(&c.profiles),
                ..DeliverySettings::default()
            },
            max_inline_bytes: c.messaging.max_inline_bytes as usize,
        }
    }
}

/// The world a send needs.
pub(crate) struct Messenger<'a> {
    /// The tmux server.
    pub tmux: &'a Tmux,
    /// The project's files.
    pub paths: &'a Paths,
    /// Recognises agents in the foreground of panes.
    pub matcher: &'a AgentMatcher,
    /// Settings.
    pub settings: MessagingSettings,
    /// The pending acknowledgements.
    pub acks: &'a dyn AckStore,
    /// Messages held back from panes.
    pub held: &'a dyn HeldStore,
    /// The senders' rate windows.
    pub rates: &'a dyn RateStore,
    /// The message log and the read cursors.
    pub log: &'a dyn LogStore,
    /// Deliveries to the hosts of other agents' panes (`None`: one host).
    pub relay: Option<&'a dyn Relay>,
}

/// Who a message goes to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Recipients {
    /// One agent.
    One(String),
    /// Every active agent, the sender only when `include_self`.
    All {
        /// Also deliver to the sender.
        include_self: bool,
    },
}

/// A send request, already validated by the caller's types.
#[derive(Clone, Debug)]
pub(crate) struct SendRequest {
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
}

impl SendRequest {
    /// A plain request: no ACK, no parent, rate limited.
    pub(crate) fn new(
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
        }
    }
}

/// What happened to a message.
#[derive(Clone, Debug)]
pub(crate) struct SendReport {
    /// The message as logged.
    pub message: Message,
    /// Outcome per recipient, in recipient order.
    pub outcomes: Vec<(String, Outcome)>,
    /// Set when the sender was over its rate limit: the time until the
    /// next send is allowed. The message is logged, queued for everyone.
    pub rate_limited: Option<Duration>,
    /// Where the body went when it was too long to paste.
    pub body_file: Option<PathBuf>,
    /// Problems worth telling the user about (damaged state files).
    pub warnings: Vec<String>,
}

/// One message tried again.
#[derive(Clone, Debug)]
pub(crate) struct Redelivery {
    /// The message as it was before.
    pub view: MessageView,
    /// The new outcome per recipient tried.
    pub outcomes: Vec<(String, Outcome)>,
}

impl SendReport {
    /// Recipients whose pane got the message.
    pub(crate) fn delivered(&self) -> usize {
        self.outcomes
            .iter()
            .filter(|(_, o)| o.is_delivered())
            .count()
    }
}

impl<'a> Messenger<'a> {
    /// Sends one message: to one agent or a broadcast.
    pub(crate) fn send(&self, registry: &Registry, req: SendRequest) -> Result<SendReport> {
        let recipients = self.resolve(registry, &req)?;
        // The tmux clients this delivery will use start now, while the
        // rate window, the log and the locks are dealt with.
        let ahead = self.start_ahead(&recipients);
        if req.ack_timeout.is_some() && recipients.len() != 1 {
            return Err(Error::Invalid(
                "an acknowledgement can only be asked of one recipient".into(),
            ));
        }
        let mut warnings = Vec::new();
        let verdict = if req.system {
            Verdict::Allowed
        } else {
            let (verdict, note) = self.rates.check_and_record(
                &AgentId::parse(&req.sender)?,
                self.settings.rate,
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
                acks::marker(message.msg_id.as_str()),
                message.content
            );
        }
        warnings.extend(
            self.log
                .append(&[Record::Message(LoggedMessage::new(message.clone()))])?,
        );
        if let Some(timeout) = req.ack_timeout {
            // Recorded before any delivery attempt: from here on the retry
            // loop owns it, whatever happens to this process.
            warnings.extend(acks::register(
                self.acks,
                &message,
                &recipients[0].id,
                timeout,
            )?);
        }

        let note = req
            .sent_by
            .as_ref()
            .map(|by| format!("sent by {by} as {} (--as-other)", message.sender));
        if let Verdict::Limited(wait) = verdict {
            let reason = format!(
                "rate limited: {} sent {} messages in the last {}s",
                message.sender,
                self.settings.rate.max,
                self.settings.rate.window.as_secs()
            );
            let outcomes: Vec<(String, Outcome)> = message
                .recipients
                .iter()
                .map(|r| (r.to_string(), Outcome::queued(reason.clone())))
                .collect();
            warnings.extend(self.log.append(&[Record::Delivery(DeliveryRecord::new(
                message.msg_id.as_str(),
                &outcomes,
                note,
            ))])?);
            return Ok(SendReport {
                message,
                outcomes,
                rate_limited: Some(wait),
                body_file: None,
                warnings,
            });
        }

        let (text, body_file) = self.pane_text(&message, None)?;
        let (outcomes, more) = self.deliver_logged(
            message.msg_id.as_str(),
            &recipients,
            &text,
            &message.header(),
            note,
            ahead,
        )?;
        warnings.extend(more);
        Ok(SendReport {
            message,
            outcomes,
            rate_limited: None,
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
                .filter(|(_, o)| o.status == Status::Queued)
                .filter_map(|(r, _)| registry.find(r).cloned())
                .collect();
            if targets.is_empty() {
                continue;
            }
            let (text, _) = self.pane_text(&view.message, None)?;
            let (outcomes, _) = self.deliver_logged(
                view.message.msg_id.as_str(),
                &targets,
                &text,
                &view.message.header(),
                Some("redelivery".into()),
                None,
            )?;
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
    /// caller started them early; otherwise they start here.
    pub(crate) fn deliver_logged(
        &self,
        msg_id: &str,
        targets: &[AgentRecord],
        text: &str,
        marker: &str,
        note: Option<String>,
        ahead: Option<TypingAhead<'a>>,
    ) -> Result<(Outcomes, Vec<String>)> {
        let ahead = ahead.or_else(|| self.start_ahead(targets));
        let (outcomes, released) = self.deliver_all(msg_id, targets, text, marker, ahead);
        // A client started for a capture that no pane needed.
        self.tmux.cool_down();
        let mut warnings = self.log_released(&released)?;
        warnings.extend(self.log.append(&[Record::Delivery(DeliveryRecord::new(
            msg_id, &outcomes, note,
        ))])?);
        Ok((outcomes, warnings))
    }

    /// The text typed into panes for a message: `header: content`,
    /// with `prefix` (a retry mark) before the content, the ACK hint on its
    /// own line when an answer is required, and for a long body a one-line
    /// pointer to `.swarm/messages/<id>.md` holding it.
    pub(crate) fn pane_text(
        &self,
        message: &Message,
        prefix: Option<&str>,
    ) -> Result<(String, Option<PathBuf>)> {
        let header = message.header();
        let prefix = prefix.map(|p| format!("{p} ")).unwrap_or_default();
        let hint = if message.requires_ack {
            format!("\n{}", acks::hint(message.msg_id.as_str()))
        } else {
            String::new()
        };
        let content = &message.content;
        if content.len() <= self.settings.max_inline_bytes {
            return Ok((format!("{header}: {prefix}{content}{hint}"), None));
        }
        let path = self.write_body(message.msg_id.as_str(), &header, content)?;
        let lines = content.lines().count();
        Ok((
            format!(
                "{header}: {prefix}(long message, {} bytes in {lines} lines) read it in full: {}{hint}",
                content.len(),
                path.display()
            ),
            Some(path),
        ))
    }

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
                    // registered agent) still go to the log, queued.
                    None if req.system => Ok(vec![AgentRecord {
                        id: AgentId::parse(id)?,
                        pane_index: String::new(),
                        pid: 0,
                        status: AgentStatus::Active,
                        last_seen: String::new(),
                        session_name: String::new(),
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

    /// Writes a long body to `.swarm/messages/<id>.md` (once).
    fn write_body(&self, msg_id: &str, header: &str, content: &str) -> Result<PathBuf> {
        let dir = self.paths.swarm_dir().join("messages");
        let path = dir.join(body_file_name(msg_id));
        let write_err = |source| Error::Io {
            what: format!("write the long message to {}", path.display()),
            source,
        };
        ensure_private_dir(&dir).map_err(write_err)?;
        // One file per message id, written once: exclusive creation, so a
        // redelivery finds it in place and never rewrites it.
        match fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&path)
        {
            Ok(mut file) => file
                .write_all(format!("{header}\n\n{content}\n").as_bytes())
                .map_err(write_err)?,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(write_err(e)),
        }
        Ok(path)
    }

    /// The host of `agent`'s pane when it is another host than this one.
    fn elsewhere<'r>(&self, agent: &'r AgentRecord) -> Option<&'r str> {
        let here = self.relay?.host();
        agent.host.as_deref().filter(|there| *there != here)
    }

    /// Hands the delivery to `agent` over to the host of its pane; the
    /// message waits in its inbox until that host types it in.
    fn hand_over(
        &self,
        agent: &AgentRecord,
        host: &str,
        msg_id: &str,
        text: &str,
        marker: &str,
    ) -> Outcome {
        let Some(relay) = self.relay else {
            return Outcome::queued(format!("{} is on host {host}", agent.id));
        };
        let handoff = Handoff {
            msg_id: msg_id.to_owned(),
            agent: agent.id.to_string(),
            text: text.to_owned(),
            marker: marker.to_owned(),
            from: relay.host().to_owned(),
            note: None,
        };
        match relay.hand_over(host, &handoff) {
            Ok(HandedOver::Queued) => Outcome::queued(format!(
                "{} is on host {host}: its swarm watch delivers it",
                agent.id
            )),
            Ok(HandedOver::AlreadyWaiting) => Outcome::queued(format!(
                "{} is on host {host}: it already waits there for its swarm watch",
                agent.id
            )),
            Err(e) => Outcome::queued(format!(
                "{} is on host {host}, and it could not be handed over ({e})",
                agent.id
            )),
        }
    }

    /// Types the deliveries this host took from the relay into their
    /// panes, records each outcome in the log, and only then marks them
    /// done, so that a crash in between leaves them to be taken again.
    /// Returns (recipient, message id, outcome) for each.
    pub(crate) fn deliver_taken(
        &self,
        registry: &Registry,
        taken: Vec<Taken>,
    ) -> Result<(Relayed, Vec<String>)> {
        let Some(relay) = self.relay else {
            return Ok((Vec::new(), Vec::new()));
        };
        let mut done = Vec::new();
        let mut warnings = Vec::new();
        let mut finished = Vec::new();
        for t in taken {
            match self.deliver_one_taken(registry, &t) {
                Ok((outcome, more)) => {
                    warnings.extend(more);
                    done.extend(outcome);
                    finished.push(t);
                }
                Err(e) => {
                    // What went in is marked done before the error is
                    // told; the rest is taken again.
                    relay.done(&finished)?;
                    return Err(e);
                }
            }
        }
        relay.done(&finished)?;
        Ok((done, warnings))
    }

    /// One delivery taken from the relay: typed in and its outcome logged.
    fn deliver_one_taken(
        &self,
        registry: &Registry,
        t: &Taken,
    ) -> Result<(Option<RelayedOne>, Vec<String>)> {
        let mut warnings = Vec::new();
        let Some(h) = &t.handoff else {
            warnings.push(format!(
                "skipped delivery {} handed to this host: it cannot be read",
                t.id
            ));
            return Ok((None, warnings));
        };
        let note = Some(h.note.clone().map_or_else(
            || format!("from host {}", h.from),
            |n| format!("{n}, from host {}", h.from),
        ));
        let outcome = match registry
            .find(&h.agent)
            .filter(|a| a.status != AgentStatus::Dead)
        {
            Some(a) if self.elsewhere(a).is_none() => {
                let (outcomes, more) = self.deliver_logged(
                    &h.msg_id,
                    std::slice::from_ref(a),
                    &h.text,
                    &h.marker,
                    note,
                    None,
                )?;
                warnings.extend(more);
                outcomes.into_iter().next().map(|(_, o)| o)
            }
            // It moved to another host meanwhile, or left: recorded
            // as waiting in its inbox.
            found => {
                let outcome = Outcome::queued(match found.and_then(|a| a.host.as_deref()) {
                    Some(host) => format!("{} is now on host {host}", h.agent),
                    None => format!("{} is no longer registered", h.agent),
                });
                warnings.extend(self.log.append(&[Record::Delivery(DeliveryRecord::new(
                    &h.msg_id,
                    &[(h.agent.clone(), outcome.clone())],
                    note,
                ))])?);
                Some(outcome)
            }
        };
        Ok((
            outcome.map(|o| (h.agent.clone(), h.msg_id.clone(), o)),
            warnings,
        ))
    }

    /// Starts the tmux clients a delivery to the panes of `recipients` on
    /// this host will use: one that will capture their screens
    /// (`Tmux::warm_up`) and, for agents that need no pause, the paste and
    /// Enter waiting for its text. Neither touches a pane until the
    /// delivery has taken the panes' locks and read their screens;
    /// dropped, they end without a trace.
    fn start_ahead(&self, recipients: &[AgentRecord]) -> Option<TypingAhead<'a>> {
        let panes: Vec<PaneId> = recipients
            .iter()
            .filter(|a| self.elsewhere(a).is_none())
            .filter_map(|a| target_of(a).pane)
            .collect();
        if panes.is_empty() {
            return None;
        }
        self.tmux.warm_up();
        Some(TypingAhead::start(self.tmux, panes))
    }

    fn deliver_all(
        &self,
        msg_id: &str,
        recipients: &[AgentRecord],
        text: &str,
        marker: &str,
        ahead: Option<TypingAhead<'a>>,
    ) -> (Outcomes, Vec<Released>) {
        if recipients.iter().any(|a| self.elsewhere(a).is_some()) {
            let local: Vec<AgentRecord> = recipients
                .iter()
                .filter(|a| self.elsewhere(a).is_none())
                .cloned()
                .collect();
            let (mut here, released) = if local.is_empty() {
                (Vec::new(), Vec::new())
            } else {
                self.deliver_all(msg_id, &local, text, marker, ahead)
            };
            let mut outcomes = Vec::with_capacity(recipients.len());
            for a in recipients {
                match self.elsewhere(a) {
                    Some(host) => outcomes.push((
                        a.id.to_string(),
                        self.hand_over(a, host, msg_id, text, marker),
                    )),
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
        let results: Vec<(Outcome, Vec<Released>)> = match recipients {
            [a] => vec![self.deliver_one(a, msg_id, text, marker, ahead)],
            _ => self.deliver_batch(recipients, msg_id, text, marker, ahead),
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
    /// one more. Agents with held messages go one by one, after them.
    fn deliver_batch(
        &self,
        recipients: &[AgentRecord],
        msg_id: &str,
        text: &str,
        marker: &str,
        ahead: Option<TypingAhead<'a>>,
    ) -> Vec<(Outcome, Vec<Released>)> {
        let mut order: Vec<usize> = (0..recipients.len()).collect();
        order.sort_by_key(|&i| target_of(&recipients[i]).pane.map(|p| p.number()));
        let held = self.held.list().unwrap_or_default();
        let mut results: Vec<Option<(Outcome, Vec<Released>)>> = vec![None; recipients.len()];
        let mut locked: Vec<(usize, delivery::LockedPane<'_>)> = Vec::new();
        let mut one_by_one: Vec<usize> = Vec::new();
        for i in order {
            let a = &recipients[i];
            if held.iter().any(|h| a.id == h.agent.as_str()) {
                one_by_one.push(i);
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
            let reason = if s.reads_screen() {
                let capture = captures.next().flatten();
                s.read_capture(capture.as_deref())
                    .and_then(|r| r.hold_reason(s.agent()))
            } else {
                None
            };
            match reason {
                None => ready.push((*i, s)),
                Some(reason) => {
                    let outcome = match self.hold(s, s.agent(), msg_id, text, marker, &reason) {
                        Ok(()) => Outcome::held(reason),
                        Err(e) => {
                            Outcome::queued(format!("{reason}; could not hold it for later: {e}"))
                        }
                    };
                    results[*i] = Some((outcome, Vec::new()));
                }
            }
        }
        let typed = delivery::type_text_many(
            &ready.iter().map(|(_, s)| *s).collect::<Vec<_>>(),
            text,
            marker,
            prepared,
        );
        for ((i, _), outcome) in ready.iter().zip(typed) {
            results[*i] = Some((outcome, Vec::new()));
        }
        drop(sessions);
        for i in one_by_one {
            results[i] = Some(self.deliver_one(&recipients[i], msg_id, text, marker, None));
        }
        results
            .into_iter()
            .map(|r| r.unwrap_or_else(|| (Outcome::queued("not attempted"), Vec::new())))
            .collect()
    }

    /// Delivers one message to one agent, after any messages held for it
    /// (order is kept: while those wait, so does this one).
    fn deliver_one(
        &self,
        a: &AgentRecord,
        msg_id: &str,
        text: &str,
        marker: &str,
        ahead: Option<TypingAhead<'a>>,
    ) -> (Outcome, Vec<Released>) {
        let session = match delivery::open(
            self.tmux,
            self.paths,
            self.matcher,
            &target_of(a),
            &self.settings.delivery,
        ) {
            Ok(s) => s,
            Err(outcome) => return (outcome, Vec::new()),
        };
        session.prepare_typing(ahead);
        let (released, blocked) = self.release_pending(&session, a.id.as_str());
        let Some(reason) = blocked.or_else(|| session.hold_reason()) else {
            return (session.type_text(text, marker), released);
        };
        match self.hold(&session, a.id.as_str(), msg_id, text, marker, &reason) {
            Ok(()) => (Outcome::held(reason), released),
            Err(e) => (
                Outcome::queued(format!("{reason}; could not hold it for later: {e}")),
                released,
            ),
        }
    }

    /// Adds one message to the held queue and tells the person at the pane
    /// (once per episode) that messages wait.
    fn hold(
        &self,
        session: &PaneSession<'_>,
        agent: &str,
        msg_id: &str,
        text: &str,
        marker: &str,
        reason: &str,
    ) -> Result<()> {
        let holding = self.held.hold(ToHold {
            msg_id: &MessageId::from_stored(msg_id),
            agent: &AgentId::parse(agent)?,
            text,
            marker,
            reason,
        })?;
        let count = holding.count;
        let note = if holding.first_notice {
            sanitize::one_line(&format!(
                "swarm: messages for {agent} are waiting ({reason}); they go in by themselves once the input box is empty"
            ))
        } else {
            String::new()
        };
        // Telling the person is a courtesy: the message is held either way.
        let _ = self.tmux.notify_pane(session.pane(), &note, count);
        Ok(())
    }

    /// Types the messages held for `agent`, in order, while its screen is
    /// safe. Returns what went, and the reason it stopped when something
    /// is still held. Each entry leaves the queue (under its lock) before
    /// it is typed, so two processes can never both type it.
    fn release_pending(
        &self,
        session: &PaneSession<'_>,
        agent: &str,
    ) -> (Vec<Released>, Option<String>) {
        let pending: Vec<HeldMessage> = match self.held.list() {
            Ok(all) => all
                .into_iter()
                .filter(|h| h.agent.as_str() == agent)
                .collect(),
            Err(e) => {
                return (
                    Vec::new(),
                    Some(format!("could not read held messages: {e}")),
                );
            }
        };
        let mut done = Vec::new();
        if pending.is_empty() {
            return (done, None);
        }
        for h in pending {
            if let Some(reason) = session.hold_reason() {
                if reason != h.reason {
                    let _ = self.held.set_reason(&h.agent, &reason);
                }
                return (done, Some(reason));
            }
            let taken = match self.held.release(h.seq) {
                Ok(taken) => taken,
                Err(e) => {
                    return (
                        done,
                        Some(format!("could not update the held messages: {e}")),
                    );
                }
            };
            if !taken {
                continue;
            }
            let outcome = session.type_text(&h.text, &h.marker);
            done.push(Released { held: h, outcome });
        }
        let _ = self.tmux.notify_pane(session.pane(), "", 0);
        (done, None)
    }

    /// Delivers held messages whose pane is safe again, for every agent
    /// that has some, and logs each outcome. Cheap when nothing is held
    /// (one failed `open`). A pane another delivery is busy with is left
    /// for the next round.
    pub(crate) fn release_held(&self, registry: &Registry) -> Result<ReleaseReport> {
        let held = self.held.list()?;
        let mut report = ReleaseReport::default();
        if held.is_empty() {
            return Ok(report);
        }
        let mut agents: Vec<AgentId> = Vec::new();
        for h in &held {
            if !agents.contains(&h.agent) {
                agents.push(h.agent.clone());
            }
        }
        let settings = DeliverySettings {
            lock_timeout: RELEASE_LOCK_WAIT,
            ..self.settings.delivery.clone()
        };
        for agent in agents {
            let record = registry
                .find(agent.as_str())
                .filter(|a| a.status != AgentStatus::Dead);
            // Held on another host: that host's watch releases them.
            if record.is_some_and(|a| self.elsewhere(a).is_some()) {
                continue;
            }
            let opened = match record {
                Some(a) => delivery::open(
                    self.tmux,
                    self.paths,
                    self.matcher,
                    &target_of(a),
                    &settings,
                ),
                None => Err(Outcome::queued(format!("{agent} is no longer registered"))),
            };
            match opened {
                Ok(session) => {
                    let (released, blocked) = self.release_pending(&session, agent.as_str());
                    report.released.extend(released);
                    if let Some(reason) = blocked {
                        report.still_held.push((agent.to_string(), reason));
                    }
                }
                Err(outcome)
                    if outcome
                        .reason
                        .as_deref()
                        .is_some_and(|r| r.contains("delivery lock")) => {}
                Err(outcome) => {
                    // The agent left (or a shell took its pane): its held
                    // messages become ordinary queued ones, in the inbox.
                    for h in self.held.release_all(&agent)? {
                        report.released.push(Released {
                            held: h,
                            outcome: outcome.clone(),
                        });
                    }
                }
            }
        }
        report.warnings = self.log_released(&report.released)?;
        Ok(report)
    }

    /// Appends one delivery record per released message.
    fn log_released(&self, released: &[Released]) -> Result<Vec<String>> {
        if released.is_empty() {
            return Ok(Vec::new());
        }
        let records: Vec<Record> = released
            .iter()
            .map(|r| {
                Record::Delivery(DeliveryRecord::new(
                    r.held.msg_id.as_str(),
                    &[(r.held.agent.to_string(), r.outcome.clone())],
                    Some("released: it had been held".into()),
                ))
            })
            .collect();
        Ok(self.log.append(&records)?)
    }
}

/// How long a release waits for a pane another delivery holds.
const RELEASE_LOCK_WAIT: Duration = Duration::from_millis(300);

/// The file name of a long body: the message id when it is a plain name
/// (swarm's ids, the Python tool's UUIDs), else a digest of it, so that an
/// id from a log line edited by hand (`../x`) never names a file outside
/// `.swarm/messages/`.
fn body_file_name(msg_id: &str) -> String {
    let plain = !msg_id.is_empty()
        && msg_id.len() <= 64
        && msg_id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if plain {
        format!("{msg_id}.md")
    } else {
        let digest = Sha256::digest(msg_id.as_bytes());
        let hex: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
        format!("id-{hex}.md")
    }
}

fn target_of(a: &AgentRecord) -> Target {
    Target {
        agent: a.id.to_string(),
        pane: a.tmux_pane_id.clone(),
        pane_pid: a.pid,
    }
}

/// A held message that left the queue, and what became of it.
#[derive(Clone, Debug)]
pub(crate) struct Released {
    /// The message as it was held.
    pub held: HeldMessage,
    /// Its outcome.
    pub outcome: Outcome,
}

/// What one `release_held` round did.
#[derive(Clone, Debug, Default)]
pub(crate) struct ReleaseReport {
    /// Messages that left the queue, in order.
    pub released: Vec<Released>,
    /// Agents that still have held messages, with the reason.
    pub still_held: Vec<(String, String)>,
    /// Problems worth telling the user about.
    pub warnings: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::body_file_name;

    #[test]
    fn a_long_body_is_named_by_its_id_only_when_the_id_is_a_plain_name() {
        let uuid = "0f8fad5b-d9cb-469f-a165-70867728950e";
        assert_eq!(body_file_name(uuid), format!("{uuid}.md"));
        for hostile in ["../../x", "a/b", "", ".", "..", "x\0y", &"a".repeat(65)] {
            let name = body_file_name(hostile);
            assert!(name.starts_with("id-") && name.ends_with(".md"), "{name}");
            assert!(!name.contains('/') && !name.contains(".."), "{name}");
        }
        assert_ne!(body_file_name("../x"), body_file_name("../y"));
    }
}
