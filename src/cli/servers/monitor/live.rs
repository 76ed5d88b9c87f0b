//! `swarm monitor` itself, built with the `monitor` feature.

use std::io::IsTerminal;
use std::time::Duration;

use chrono::{FixedOffset, Local, Offset};
use owo_colors::OwoColorize;

use swarm_core::domain::validate;
use swarm_core::support::sys;
use swarm_core::support::time;
use swarm_core::{
    AgentStatus, Backend, Error, ExitCode, MessageType, Operator, Result, SwarmStatus,
    status_changes,
};
use swarm_monitor::{
    self, BaseFilter, FeedMessage, Level, MonitorState, Report, Session, TypeColor, Update,
    WorkerSetup,
};

use crate::cli::context::Context;

use super::MonitorArgs;

/// The checked arguments.
struct Plan {
    base: BaseFilter,
    capacity: usize,
    sender: String,
    plain: bool,
}

fn plan(ctx: &Context, args: &MonitorArgs) -> Result<Plan> {
    let custom = ctx.custom_types()?;
    let types = args
        .filter_type
        .iter()
        .map(|t| {
            MessageType::parse(t, &custom)
                .map(|t| t.as_str().to_owned())
                .map_err(|e| Error::Invalid(format!("--filter-type: {e}")))
        })
        .collect::<Result<Vec<_>>>()?;
    let agents = args
        .filter_agent
        .iter()
        .map(|a| validate::agent_id(a).map_err(|e| Error::Invalid(format!("--filter-agent: {e}"))))
        .collect::<Result<Vec<_>>>()?;
    let since = args
        .since
        .as_deref()
        .map(|s| {
            let d = time::parse_duration(s).map_err(|e| Error::Invalid(format!("--since: {e}")))?;
            chrono::Duration::from_std(d)
                .ok()
                .and_then(|d| time::now().checked_sub_signed(d))
                .ok_or_else(|| Error::Invalid(format!("--since: {s:?} is too long ago")))
        })
        .transpose()?;
    let sender = match &args.from {
        Some(from) => {
            validate::agent_id(from).map_err(|e| Error::Invalid(format!("--from: {e}")))?
        }
        None => ctx.config()?.messaging.operator.clone(),
    };
    Ok(Plan {
        base: BaseFilter {
            types,
            agents,
            since,
        },
        capacity: args.lines as usize,
        sender,
        plain: args.plain || !std::io::stdout().is_terminal(),
    })
}

fn local_offset() -> FixedOffset {
    Local::now().offset().fix()
}

/// Runs the monitor until it is stopped.
pub(super) fn run(ctx: &Context, args: &MonitorArgs) -> Result<ExitCode> {
    let plan = plan(ctx, args)?;
    let custom = ctx.custom_types()?;
    let setup = WorkerSetup {
        op: Operator::new(
            ctx.tmux.server().clone(),
            ctx.paths.clone(),
            std::sync::Arc::new(Backend::open(
                &ctx.paths,
                ctx.config()?,
                crate::cli::features::shared_stores(),
            )?),
            ctx.config()?,
        )?,
        sender: plan.sender.clone(),
    };
    if let Err(e) = setup.op.keep_watch() {
        ctx.out
            .warn(&format!("could not start the project's watcher: {e}"));
    }
    let mut state = MonitorState::new(
        ctx.paths.root().display().to_string(),
        time::now(),
        local_offset(),
    );
    state.capacity = plan.capacity;
    state.base = plan.base;
    state.sender = plan.sender;
    state.known_types = MessageType::all(&custom);
    state.stale_after = Duration::from_secs(u64::from(ctx.config()?.locking.stale_timeout));
    let (mut session, mut first) = Session::open(ctx.paths.clone(), setup, &mut |batch| {
        state.absorb_records(batch)
    })?;
    if plan.plain {
        return plain(ctx, &mut session, &mut state, &mut first);
    }
    let problems = state.absorb(&mut first, None);
    for (level, text) in problems.into_iter().chain(first.notes) {
        state.notify(level, &text);
    }
    swarm_monitor::run_tui(&mut session, &mut state)?;
    Ok(ExitCode::Success)
}

/// The stream: the kept messages first, a status summary, then every new
/// message and status change as it happens.
fn plain(
    ctx: &Context,
    session: &mut Session,
    state: &mut MonitorState,
    first: &mut Update,
) -> Result<ExitCode> {
    let problems = state.absorb(first, None);
    warn_all(ctx, problems.into_iter().chain(first.notes.drain(..)));
    let mut out = String::new();
    for m in &state.messages {
        out.push_str(&message_line(ctx, m, &state.tz));
    }
    out.push_str(&swarm_monitor::status_line(
        state.now,
        &state.tz,
        &summary(ctx, &state.status),
    ));
    out.push('\n');
    ctx.out.print(&out)?;
    loop {
        let mut update = session.wait();
        if update.stop || (update.tick && sys::stdout_reader_gone()) {
            return Ok(ExitCode::Success);
        }
        let (before, before_at) = (state.status.clone(), state.now);
        state.set_now(time::now(), local_offset());
        let mut out = String::new();
        let tz = state.tz;
        let problems = state.absorb(
            &mut update,
            Some(&mut |m: &FeedMessage| out.push_str(&message_line(ctx, m, &tz))),
        );
        warn_all(ctx, problems.into_iter().chain(update.notes.drain(..)));
        for change in status_changes(
            &before,
            before_at,
            &state.status,
            state.now,
            state.stale_after,
        ) {
            out.push_str(&swarm_monitor::status_line(
                state.now,
                &tz,
                &change.to_string(),
            ));
            out.push('\n');
        }
        for report in update.reports.drain(..) {
            if let Report::Usage(spend, notes) = report {
                warn_all(ctx, notes.into_iter());
                for line in state.take_usage(spend) {
                    out.push_str(&swarm_monitor::status_line(state.now, &tz, &line));
                    out.push('\n');
                }
                continue;
            }
            // Pane states are for the live view; the stream has no panel.
            let (Report::Sent(lines) | Report::Acks(lines)) = report else {
                continue;
            };
            for (_, text) in lines {
                out.push_str(&swarm_monitor::status_line(state.now, &tz, &text));
                out.push('\n');
            }
        }
        if !out.is_empty() {
            ctx.out.print(&out)?;
        }
    }
}

fn warn_all(ctx: &Context, notes: impl Iterator<Item = (Level, String)>) {
    for (_, text) in notes {
        ctx.out
            .warn(&swarm_core::support::sanitize::one_line(&text));
    }
}

fn summary(ctx: &Context, status: &SwarmStatus) -> String {
    let agents = status
        .registry
        .as_ref()
        .map(|r| r.agents.as_slice())
        .unwrap_or_default();
    let active: Vec<&str> = agents
        .iter()
        .filter(|a| a.status == AgentStatus::Active)
        .map(|a| a.id.as_str())
        .collect();
    format!(
        "watching {}: {} agent{} active{}, {} lock{}, {} pending ACK{}",
        ctx.paths.root().display(),
        active.len(),
        if active.len() == 1 { "" } else { "s" },
        if active.is_empty() {
            String::new()
        } else {
            format!(" ({})", active.join(" "))
        },
        status.locks.len(),
        if status.locks.len() == 1 { "" } else { "s" },
        status.acks.len(),
        if status.acks.len() == 1 { "" } else { "s" },
    )
}

fn message_line(ctx: &Context, m: &FeedMessage, tz: &FixedOffset) -> String {
    let line = swarm_monitor::message_line(m, tz);
    let kind = if ctx.out.colors_stdout() {
        let t = line.msg_type.as_str();
        match swarm_monitor::type_color(m.message.msg_type.as_str()) {
            TypeColor::Red => t.bright_red().to_string(),
            TypeColor::Yellow => t.bright_yellow().to_string(),
            TypeColor::Green => t.bright_green().to_string(),
            TypeColor::Blue => t.bright_blue().to_string(),
            TypeColor::Magenta => t.bright_magenta().to_string(),
            TypeColor::White => t.bright_white().to_string(),
        }
    } else {
        line.msg_type.clone()
    };
    format!("{}{kind}{}\n", line.head, line.tail)
}
