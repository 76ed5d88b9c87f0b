//! `onboard`: finds the agents of the project (a discovery refresh,
//! recorded like every other) and tells each of them, once, how to work in
//! this swarm: one broadcast from `system` to every active agent, counted
//! once against the rate limit, so any number of agents can be onboarded.

use crate::agents::discovery::{self, DiscoverOptions};
use crate::backend::Operator;
use crate::domain::message::{self, MessageType};
use crate::error::{Error, Result};
use crate::messaging::onboarding;
use crate::messaging::{Recipients, SendReport, SendRequest};

/// The sender id of onboarding messages.
const SENDER: &str = "system";

/// How to look for the agents and what to add to the text: ready to run.
#[derive(Clone, Debug)]
pub struct OnboardPlan {
    discover: DiscoverOptions,
    extra: Vec<String>,
    dry_run: bool,
}

impl OnboardPlan {
    /// Onboards the agents a refresh with `discover` finds, with the
    /// `extra` lines of the config (`onboarding.custom_messages`).
    pub fn new(discover: DiscoverOptions, extra: Vec<String>) -> OnboardPlan {
        OnboardPlan {
            discover,
            extra,
            dry_run: false,
        }
    }

    /// Only writes the text, sending nothing, when `dry_run`.
    pub fn dry_run(mut self, dry_run: bool) -> OnboardPlan {
        self.dry_run = dry_run;
        self
    }
}

/// What `onboard` did.
#[derive(Clone, Debug)]
pub struct OnboardReport {
    /// The active agents onboarded (or to be, on a dry run).
    pub agents: Vec<String>,
    /// The onboarding text.
    pub text: String,
    /// How the message went; `None` on a dry run or with no agent.
    pub sent: Option<SendReport>,
    /// What the refresh, its record and the send warned of, in order.
    pub warnings: Vec<String>,
}

impl OnboardReport {
    /// The error for a refresh that found no active agent.
    pub fn no_agents() -> Error {
        Error::NoRecipients(
            "no agents discovered in this project: start agents in tmux panes (or `swarm launch N`)"
                .into(),
        )
    }
}

/// Refreshes the registry, then sends the onboarding text to every
/// active agent. With no active agent nothing is sent (`agents` is
/// empty, and so is `sent`): `no_agents` is the error to tell.
pub fn onboard(op: &Operator, plan: &OnboardPlan) -> Result<OnboardReport> {
    let found = discovery::refresh(
        &op.tmux,
        op.backend.registry.as_ref(),
        &op.paths,
        &op.matcher,
        &plan.discover,
    )?;
    let mut warnings = found.warnings.clone();
    warnings.extend(op.record_roster(&found, false));
    let agents: Vec<String> = found.registry.active().map(|a| a.id.to_string()).collect();
    let text = onboarding::message(&agents, &plan.extra);
    if plan.dry_run || agents.is_empty() {
        return Ok(OnboardReport {
            agents,
            text,
            sent: None,
            warnings,
        });
    }
    let content = message::clean_content(&text)?;
    let report = op.messenger().send(
        &found.registry,
        SendRequest::new(
            SENDER.into(),
            Recipients::All { include_self: true },
            MessageType::builtin("INFO"),
            content,
        ),
    )?;
    warnings.extend(report.warnings.iter().cloned());
    Ok(OnboardReport {
        agents,
        text,
        sent: Some(report),
        warnings,
    })
}
