//! Print-to-send in the watcher's round: the `@swarm:AGENT text` lines
//! the agents printed (read off the screens the attention round captured,
//! `looks::Printout`) become messages from the agent that printed them,
//! each claimed in the store first so that it is sent once however many
//! watchers read it; the printing agent gets one short notice per round
//! with what became of its lines (docs/PROFILES.md, "Print-to-send").

use std::collections::BTreeSet;

use crate::agents::pane_state::Printing;
use crate::agents::registry::Registry;
use crate::agents::screen::ScreenState;
use crate::agents::transcript::{PrintedLine, To};
use crate::attention::looks::Printout;
use crate::backend::Operator;
use crate::domain::message::{MessageType, clean_content};
use crate::error::Error;
use crate::messaging::{Recipients, SendRequest};

use super::outage::Tell;

/// How many rows of history are read above a screen whose `@swarm:` lines
/// have no prompt in sight (far more than a turn's reply usually fills).
const HISTORY_ROWS: usize = 2000;

/// The sender of the notices agents get about their printed lines.
const NOTICE_SENDER: &str = "swarm";

/// What print-to-send remembers between rounds.
#[derive(Debug, Default)]
pub(super) struct PrintToSend {
    /// Agents whose printed lines had no prompt in sight: their history is
    /// read in the next round.
    need_history: BTreeSet<String>,
}

impl PrintToSend {
    /// What the look captures for print-to-send when it is on (`on`): the
    /// screens, and the history of the agents that need it.
    pub(super) fn printing(&self, on: bool) -> Option<Printing<'_>> {
        on.then_some(Printing {
            history: &self.need_history,
            rows: HISTORY_ROWS,
        })
    }

    /// Sends what the agents of `printouts` printed (captured as
    /// `printing` said), and tells what became of it.
    pub(super) fn round(
        &mut self,
        op: &Operator,
        registry: &Registry,
        printouts: &[Printout],
        tell: &mut Tell<'_>,
    ) {
        let asked = std::mem::take(&mut self.need_history);
        let printed = send_printed(op, registry, printouts, &asked);
        self.told(printed, tell);
    }

    /// Tells what a round of print-to-send did, and keeps whose history the
    /// next round reads.
    fn told(&mut self, printed: PrintReport, tell: &mut Tell<'_>) {
        for line in printed.done {
            tell.did(line);
        }
        for (what, e) in printed.errors {
            tell.failed(&what, &e);
        }
        self.need_history = printed.need_history;
    }
}

/// What one round of print-to-send did.
#[derive(Debug, Default)]
struct PrintReport {
    /// One line per printed line sent (or refused), for the watcher's log.
    done: Vec<String>,
    /// Problems: the store, a notice that could not be sent.
    errors: Vec<(String, Error)>,
    /// Agents whose lines had no prompt in sight: read their history next
    /// round.
    need_history: BTreeSet<String>,
}

/// Sends what the agents of `printouts` printed; `asked` names the agents
/// whose history was read this round.
fn send_printed(
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::watcher::Said;
    use crate::watcher::outage::tests::heard;

    #[test]
    fn the_history_is_read_once_for_the_agents_whose_lines_had_no_prompt_in_sight() {
        let mut part = PrintToSend::default();
        assert!(part.printing(false).is_none());
        let report = PrintReport {
            done: vec!["agent-1 printed `@swarm:agent-2 hi`: sent".into()],
            errors: vec![(
                "could not claim a printed line".into(),
                Error::Usage("no".into()),
            )],
            need_history: ["agent-3".to_owned()].into(),
        };
        let (said, _) = heard(|tell| part.told(report, tell));
        assert_eq!(
            said,
            [
                Said::Did("agent-1 printed `@swarm:agent-2 hi`: sent".into()),
                Said::Warning("could not claim a printed line: no".into()),
            ]
        );
        let printing = part.printing(true).expect("on");
        assert_eq!(printing.rows, HISTORY_ROWS);
        assert_eq!(printing.history.iter().collect::<Vec<_>>(), ["agent-3"]);
        // The next round asks for it and forgets it once it was read.
        heard(|tell| part.told(PrintReport::default(), tell));
        assert!(part.printing(true).expect("on").history.is_empty());
    }
}
