//! Print-to-send in the watcher's round: the `@swarm:AGENT text` lines
//! the agents printed (read off the screens the attention round captured,
//! `looks::Printout`) become messages from the agent that printed them,
//! each claimed in the store first so that it is sent once however many
//! watchers read it; the printing agent gets one short notice per round
//! with what became of its lines (docs/PROFILES.md, "Print-to-send").

use std::collections::BTreeSet;

use crate::agents::registry::Registry;
use crate::agents::screen::ScreenState;
use crate::agents::transcript::{PrintedLine, To};
use crate::attention::looks::Printout;
use crate::backend::Operator;
use crate::domain::message::{MessageType, clean_content};
use crate::error::Error;
use crate::messaging::{Recipients, SendRequest};

/// How many rows of history are read above a screen whose `@swarm:` lines
/// have no prompt in sight (far more than a turn's reply usually fills).
pub(crate) const HISTORY_ROWS: usize = 2000;

/// The sender of the notices agents get about their printed lines.
const NOTICE_SENDER: &str = "swarm";

/// What one round of print-to-send did.
#[derive(Debug, Default)]
pub(crate) struct PrintReport {
    /// One line per printed line sent (or refused), for the watcher's log.
    pub done: Vec<String>,
    /// Problems: the store, a notice that could not be sent.
    pub errors: Vec<(String, Error)>,
    /// Agents whose lines had no prompt in sight: read their history next
    /// round.
    pub need_history: BTreeSet<String>,
}

/// Sends what the agents of `printouts` printed; `asked` names the agents
/// whose history was read this round.
pub(crate) fn send_printed(
    op: &Operator,
    registry: &Registry,
    printouts: &[Printout],
    asked: &BTreeSet<String>,
) -> PrintReport {
    let mut report = PrintReport::default();
    for p in printouts {
        // A line may still be growing while the agent works.
        let busy = p
            .profile
            .read(&p.screen)
            .is_some_and(|r| r.state == ScreenState::Busy);
        if busy {
            continue;
        }
        let complete = p
            .history
            .as_deref()
            .is_some_and(|h| h.lines().count() < HISTORY_ROWS);
        let Some(printed) = p.profile.printed(p.history.as_deref(), &p.screen, complete) else {
            continue;
        };
        if printed.unanchored && !asked.contains(&p.agent) {
            report.need_history.insert(p.agent.clone());
        }
        let mut notices = Vec::new();
        for line in &printed.lines {
            match op.backend.printed.claim(&p.agent, &line.key) {
                Ok(true) => {}
                Ok(false) => continue,
                Err(e) => {
                    report
                        .errors
                        .push(("could not claim a printed line".into(), e.into()));
                    continue;
                }
            }
            let outcome = send_line(op, registry, &p.agent, line);
            report
                .done
                .push(format!("{} printed `{}`: {outcome}", p.agent, line.line));
            notices.push(outcome);
        }
        if notices.is_empty() {
            continue;
        }
        let notice = format!("print-to-send: {}", notices.join("; "));
        let mut req = SendRequest::new(
            NOTICE_SENDER.to_owned(),
            Recipients::One(p.agent.clone()),
            MessageType::builtin("INFO"),
            notice,
        );
        req.system = true;
        if let Err(e) = op.send(registry, req) {
            report
                .errors
                .push((format!("could not tell {} what it sent", p.agent), e));
        }
    }
    report
}

/// Sends one printed line as a message from `agent`; what became of it,
/// in a few words.
fn send_line(op: &Operator, registry: &Registry, agent: &str, line: &PrintedLine) -> String {
    let (to, named) = match &line.to {
        To::Everyone => (
            Recipients::All {
                include_self: false,
            },
            "everyone".to_owned(),
        ),
        To::Agent(id) => (Recipients::One(id.clone()), id.clone()),
    };
    let content = match clean_content(&line.text) {
        Ok(c) => c,
        Err(e) => return format!("not sent to {named}: {e}"),
    };
    let req = SendRequest::new(agent.to_owned(), to, MessageType::builtin("INFO"), content);
    match op.send(registry, req) {
        Ok(r) if r.rate_limited.is_some() => format!(
            "queued for {named} as {} (over the rate limit)",
            r.message.msg_id.short()
        ),
        Ok(r) => format!("sent to {named} as {}", r.message.msg_id.short()),
        Err(Error::UnknownAgent { id, .. }) => format!("not sent: no agent named {id}"),
        Err(e) => format!("not sent to {named}: {e}"),
    }
}
