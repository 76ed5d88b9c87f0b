//! Answering an agent's dialog for the person (`swarm answer`, the
//! monitor, the dashboard): under the pane's delivery lock, so no message
//! is typed in meanwhile, the screen is read; only while it shows a dialog
//! is anything pressed, and only the keys that pick the chosen option (its
//! digit, where the options are numbered, or the arrows and Enter), never
//! "Enter on whatever is highlighted". An answer given from afar names
//! the dialog it was meant for (`Dialog::fingerprint`), and is typed only
//! into that one. Every answer is audited.

use std::time::{Duration, Instant};

use crate::agents::registry::Registry;
use crate::agents::screen::ScreenState;
use crate::attention::dialog::{self, Choice, Keys};
use crate::attention::event::DialogOption;
use crate::domain::AgentId;
use crate::error::{Error, Result};
use crate::messaging::delivery;
use crate::messaging::messenger::{Messenger, target_of};
use crate::store::audit::{AuditEvent, AuditKind, AuditLog};
use crate::support::sanitize;

/// How long to watch the screen for the dialog to go after the keys.
const SETTLE: Duration = Duration::from_millis(1500);

/// How often to look meanwhile.
const LOOK_EVERY: Duration = Duration::from_millis(50);

/// What the person chose.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// An option (by number, or the one that says yes or no).
    Pick(Choice),
    /// The option whose label is this word or starts with it (any case):
    /// `allow` for `Allow once`; refused, listing the options, when no
    /// option or several do.
    Label(String),
    /// Cancel the dialog (Escape).
    Escape,
}

/// What answering did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answered {
    /// The agent.
    pub agent: String,
    /// The dialog's question, as read.
    pub question: String,
    /// The option picked (`None`: cancelled with Escape).
    pub option: Option<DialogOption>,
    /// The keys pressed.
    pub keys: Vec<String>,
    /// Whether the dialog was seen to close (or change) afterwards.
    pub closed: bool,
}

impl Answered {
    /// What was picked, in words: `2. No`, or `cancelled`.
    pub fn picked(&self) -> String {
        match &self.option {
            Some(o) => format!("{}. {}", o.number, sanitize::one_line(&o.label)),
            None => "cancelled".into(),
        }
    }
}

impl Messenger<'_> {
    /// Answers the dialog open in `agent`'s pane; `seen`, when given, is
    /// the fingerprint of the dialog the person saw (`Dialog::fingerprint`),
    /// and `by` is who answers, for the audit log. Fails, typing nothing,
    /// when the pane shows no dialog, another dialog than `seen`, or one
    /// whose options the answer matches none of.
    pub(crate) fn answer(
        &self,
        registry: &Registry,
        agent: &AgentId,
        answer: Answer,
        seen: Option<&str>,
        by: &str,
    ) -> Result<Answered> {
        let record = registry
            .find(agent.as_str())
            .ok_or_else(|| Error::UnknownAgent {
                id: agent.to_string(),
                registry: self.paths.registry(),
                known: registry.active().map(|a| a.id.to_string()).collect(),
            })?;
        if let Some(there) = record.elsewhere(self.relay.map(|r| r.host())) {
            return Err(Error::Invalid(format!(
                "{agent}'s pane is on host {there}: answer it there (swarm answer runs where the pane is)"
            )));
        }
        let target = target_of(record);
        let session = delivery::open(
            self.tmux,
            self.paths,
            self.matcher,
            &target,
            &self.settings.delivery,
        )
        .map_err(|outcome| {
            Error::Invalid(format!(
                "cannot answer {agent}: {}",
                outcome
                    .reason
                    .unwrap_or_else(|| "its pane cannot be reached".into())
            ))
        })?;
        let Some((reading, capture)) = session.look_now() else {
            return Err(Error::Invalid(format!(
                "cannot answer {agent}: its profile does not read screens, so swarm cannot see a dialog there"
            )));
        };
        if reading.state != ScreenState::Dialog {
            return Err(Error::Refused {
                message: format!(
                    "{agent} shows no dialog (its screen reads as {}); nothing was typed",
                    reading.state
                ),
                hint: format!(
                    "answer once it asks: `swarm peek {agent}` shows its screen, and \
                     `swarm feed` lists the dialogs waiting for you"
                ),
            });
        }
        let read = dialog::read_dialog(&capture);
        if let Some(seen) = seen
            && read.as_ref().is_none_or(|d| d.fingerprint() != seen)
        {
            let now = read
                .as_ref()
                .map(|d| format!(" (it now asks {:?})", d.question))
                .unwrap_or_default();
            return Err(Error::Invalid(format!(
                "{agent}'s dialog changed since it was shown{now}; nothing was typed: look again, then answer"
            )));
        }
        let (option, keys) = match answer {
            Answer::Escape => (None, vec!["Escape".to_owned()]),
            Answer::Pick(_) | Answer::Label(_) => {
                let Some(d) = &read else {
                    return Err(Error::Invalid(format!(
                        "{agent} shows a dialog whose options swarm cannot read; nothing was typed (answer it in its pane, or cancel it with --escape)"
                    )));
                };
                let option = match &answer {
                    Answer::Pick(choice) => d.pick(*choice).map_err(|why| {
                        Error::Invalid(format!("cannot answer {agent}: {why}; nothing was typed"))
                    })?,
                    _ => by_label(d, &answer, agent)?,
                };
                let keys = match d.keys_for(option) {
                    Keys::Digit(n) => vec![n.to_string()],
                    Keys::Move { key, times } => {
                        let mut k = vec![key.to_owned(); times];
                        k.push("Enter".to_owned());
                        k
                    }
                };
                (Some(option.clone()), keys)
            }
        };
        let pressed: Vec<&str> = keys.iter().map(String::as_str).collect();
        session.press(&pressed)?;
        let question = read.map(|d| d.question).unwrap_or_default();
        let closed = wait_for_change(&session, &capture);
        drop(session);
        let mut event = AuditEvent::new(AuditKind::Answered, Some(by));
        event.holder = Some(agent.to_string());
        event.detail = Some(sanitize::one_line(&format!(
            "{question} -> {}",
            option.as_ref().map_or_else(
                || "cancelled (Escape)".to_owned(),
                |o| format!("{}. {}", o.number, o.label)
            )
        )));
        // An answer that went in is not undone because its record failed.
        let _ = AuditLog::new(self.paths).record(&[event]);
        Ok(Answered {
            agent: agent.to_string(),
            question,
            option,
            keys,
            closed,
        })
    }
}

/// The one option of `d` whose label is the word of `answer` or starts
/// with it as a whole word (any case); refused, naming every option, when
/// none or several are.
fn by_label<'d>(
    d: &'d dialog::Dialog,
    answer: &Answer,
    agent: &AgentId,
) -> Result<&'d DialogOption> {
    let Answer::Label(word) = answer else {
        return Err(Error::Invalid(format!(
            "cannot answer {agent}: no option given"
        )));
    };
    let wanted = word.trim().to_lowercase();
    let found: Vec<&DialogOption> = d
        .options
        .iter()
        .filter(|o| !wanted.is_empty() && label_says(&o.label, &wanted))
        .collect();
    match found.as_slice() {
        [one] => Ok(one),
        _ => Err(Error::Refused {
            message: format!(
                "{:?} is {} of {agent}'s dialog ({:?} offers {}); nothing was typed",
                sanitize::one_line(word),
                if found.is_empty() {
                    "not an option"
                } else {
                    "more than one option"
                },
                sanitize::one_line(&d.question),
                sanitize::one_line(&d.describe_options())
            ),
            hint: format!(
                "give the option's number (`swarm answer {agent} 1`), `yes` or `no`, or cancel \
                 with --escape"
            ),
        }),
    }
}

/// True when `label` (`Allow once`) is `word` (`allow once`, lowercase)
/// or starts with it followed by a space or punctuation.
fn label_says(label: &str, word: &str) -> bool {
    let label = label.trim().to_lowercase();
    label
        .strip_prefix(word)
        .is_some_and(|rest| rest.chars().next().is_none_or(|c| !c.is_alphanumeric()))
}

/// Watches the screen until it differs from `before` and no longer reads
/// as the same dialog; false when it did not within `SETTLE`.
fn wait_for_change(session: &delivery::PaneSession<'_>, before: &str) -> bool {
    let old = dialog::read_dialog(before);
    let deadline = Instant::now() + SETTLE;
    loop {
        if let Some((reading, now)) = session.look_now()
            && now != before
            && (reading.state != ScreenState::Dialog || dialog::read_dialog(&now) != old)
        {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(LOOK_EVERY);
    }
}

#[cfg(test)]
mod tests {
    use super::label_says;

    #[test]
    fn a_word_names_the_option_it_begins() {
        assert!(label_says("Allow once", "allow"));
        assert!(label_says("Allow once", "allow once"));
        assert!(label_says("Yes, proceed (y)", "yes"));
        assert!(!label_says("Allowance", "allow"));
        assert!(!label_says("No", "maybe"));
    }
}
