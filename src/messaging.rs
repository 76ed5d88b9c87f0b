//! Sending: validate, rate-limit, log first, deliver into each recipient's
//! pane (in parallel for a broadcast), then log the outcome per recipient.
//! A message that could not be typed into a pane waits in the log (the
//! inbox) with the reason, and can be redelivered.

use std::fs;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::PathBuf;
use std::time::Duration;

use crate::agent_matcher::AgentMatcher;
use crate::delivery::{self, DeliverySettings, Target};
use crate::error::{Error, Result};
use crate::message::{Message, MessageType};
use crate::message_log::{DeliveryRecord, MessageLog, MessageView, Outcome, Status};
use crate::rate_limit::{RateLimit, RateLimiter, Verdict};
use crate::registry::{AgentRecord, AgentStatus, Registry};
use crate::store::{Paths, ensure_private_dir};
use crate::time;
use crate::tmux::Tmux;

/// Most recipients of one broadcast (parity).
pub const MAX_BROADCAST_RECIPIENTS: usize = 100;

/// Messaging settings, from the config.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MessagingSettings {
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

/// The world a send needs.
pub struct Messenger<'a> {
    /// The tmux server.
    pub tmux: &'a Tmux,
    /// The project's files.
    pub paths: &'a Paths,
    /// Recognises agents in the foreground of panes.
    pub matcher: &'a AgentMatcher,
    /// Settings.
    pub settings: MessagingSettings,
}

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
}

/// What happened to a message.
#[derive(Clone, Debug)]
pub struct SendReport {
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
pub struct Redelivery {
    /// The message as it was before.
    pub view: MessageView,
    /// The new outcome per recipient tried.
    pub outcomes: Vec<(String, Outcome)>,
}

impl SendReport {
    /// Recipients whose pane got the message.
    pub fn delivered(&self) -> usize {
        self.outcomes
            .iter()
            .filter(|(_, o)| o.is_delivered())
            .count()
    }
}

impl Messenger<'_> {
    /// Sends one message: to one agent or a broadcast.
    pub fn send(&self, registry: &Registry, req: SendRequest) -> Result<SendReport> {
        let recipients = self.resolve(registry, &req)?;
        let mut warnings = Vec::new();
        let (verdict, note) = RateLimiter::new(self.paths).check_and_record(
            &req.sender,
            self.settings.rate,
            time::now(),
        )?;
        warnings.extend(note);
        let message = Message::new(
            req.sender.clone(),
            recipients.iter().map(|a| a.id.clone()).collect(),
            req.msg_type,
            req.content,
        );
        let log = MessageLog::new(self.paths);
        warnings.extend(log.append(&[message.log_entry(&[])])?);

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
                .map(|r| (r.clone(), Outcome::queued(reason.clone())))
                .collect();
            warnings.extend(log.append(&[DeliveryRecord::new(
                &message.msg_id,
                &outcomes,
                note,
            )])?);
            return Ok(SendReport {
                message,
                outcomes,
                rate_limited: Some(wait),
                body_file: None,
                warnings,
            });
        }

        let (text, body_file) =
            self.pane_text(&message.msg_id, &message.header(), &message.content)?;
        let outcomes = self.deliver_all(&recipients, &text, &message.header());
        warnings.extend(log.append(&[DeliveryRecord::new(&message.msg_id, &outcomes, note)])?);
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
    pub fn redeliver(&self, registry: &Registry, views: &[MessageView]) -> Result<Vec<Redelivery>> {
        let log = MessageLog::new(self.paths);
        let mut done = Vec::new();
        for view in views {
            let targets: Vec<&AgentRecord> = view
                .outcomes
                .iter()
                .filter(|(_, o)| o.status == Status::Queued)
                .filter_map(|(r, _)| registry.find(r))
                .collect();
            if targets.is_empty() {
                continue;
            }
            let header = view.entry.header();
            let (text, _) = self.pane_text(&view.entry.msg_id, &header, &view.entry.content)?;
            let owned: Vec<AgentRecord> = targets.into_iter().cloned().collect();
            let outcomes = self.deliver_all(&owned, &text, &header);
            log.append(&[DeliveryRecord::new(
                &view.entry.msg_id,
                &outcomes,
                Some("redelivery".into()),
            )])?;
            done.push(Redelivery {
                view: view.clone(),
                outcomes,
            });
        }
        Ok(done)
    }

    fn resolve(&self, registry: &Registry, req: &SendRequest) -> Result<Vec<AgentRecord>> {
        let known = || registry.active().map(|a| a.id.clone()).collect::<Vec<_>>();
        match &req.to {
            Recipients::One(id) => registry
                .find(id)
                .filter(|a| a.status != AgentStatus::Dead)
                .cloned()
                .map(|a| vec![a])
                .ok_or_else(|| Error::UnknownAgent {
                    id: id.clone(),
                    registry: self.paths.registry(),
                    known: known(),
                }),
            Recipients::All { include_self } => {
                let all: Vec<AgentRecord> = registry
                    .active()
                    .filter(|a| *include_self || a.id != req.sender)
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

    /// The text typed into panes: the message, or for a long body a
    /// one-line pointer to `.swarm/messages/<id>.md` holding it.
    fn pane_text(
        &self,
        msg_id: &str,
        header: &str,
        content: &str,
    ) -> Result<(String, Option<PathBuf>)> {
        if content.len() <= self.settings.max_inline_bytes {
            return Ok((format!("{header}: {content}"), None));
        }
        let dir = self.paths.swarm_dir().join("messages");
        let path = dir.join(format!("{msg_id}.md"));
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
        let lines = content.lines().count();
        Ok((
            format!(
                "{header}: (long message, {} bytes in {lines} lines) read it in full: {}",
                content.len(),
                path.display()
            ),
            Some(path),
        ))
    }

    fn deliver_all(
        &self,
        recipients: &[AgentRecord],
        text: &str,
        marker: &str,
    ) -> Vec<(String, Outcome)> {
        let one = |a: &AgentRecord| {
            let target = Target {
                agent: a.id.clone(),
                pane: a.tmux_pane_id.as_deref().and_then(|p| p.parse().ok()),
                pane_pid: a.pid,
            };
            let outcome = delivery::deliver(
                self.tmux,
                self.paths,
                self.matcher,
                &target,
                text,
                marker,
                &self.settings.delivery,
            );
            (a.id.clone(), outcome)
        };
        if recipients.len() == 1 {
            return recipients.iter().map(one).collect();
        }
        // A broadcast costs about one send: every pane at once.
        std::thread::scope(|scope| {
            let handles: Vec<_> = recipients
                .iter()
                .map(|a| scope.spawn(move || one(a)))
                .collect();
            handles
                .into_iter()
                .zip(recipients)
                .map(|(h, a)| {
                    h.join().unwrap_or_else(|_| {
                        (
                            a.id.clone(),
                            Outcome::queued("delivery thread failed unexpectedly"),
                        )
                    })
                })
                .collect()
        })
    }
}
