//! How one message looks in the feed: time, sender, recipients, its type
//! in the type's colour, tags (queued, awaiting an acknowledgement), then
//! the content, wrapped to the feed's width and cut with a marker when it
//! is long. Everything taken from the log is sanitised here or before.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Line;

use swarm_core::AgentId;
use swarm_core::DeliveryStatus as Delivery;
use swarm_core::support::sanitize;

use super::feed_message::{AckMark, FeedMessage};
use super::palette::{TypeColor, type_color};
use super::state::MonitorState;
use super::text;

/// Rows one message takes at most; longer ones end with a marker.
pub(super) const MAX_ROWS: usize = 6;

/// Rows after the first are indented this much.
const INDENT: usize = 2;

/// The ratatui colour of a type.
pub(super) fn color_of(msg_type: &str) -> Color {
    match type_color(msg_type) {
        TypeColor::Red => Color::LightRed,
        TypeColor::Yellow => Color::LightYellow,
        TypeColor::Green => Color::LightGreen,
        TypeColor::Blue => Color::LightBlue,
        TypeColor::Magenta => Color::LightMagenta,
        TypeColor::White => Color::White,
    }
}

/// Recipients in a few cells: `agent-1`, `agent-1,agent-2`, `5 agents`.
pub(super) fn recipients_label(recipients: &[AgentId]) -> String {
    match recipients {
        [] => "nobody".into(),
        [one] => one.to_string(),
        list if list.len() <= 3 => list
            .iter()
            .map(AgentId::as_str)
            .collect::<Vec<_>>()
            .join(","),
        list => format!("{} agents", list.len()),
    }
}

/// The rows of one message at `width` cells.
pub(super) fn rows(state: &MonitorState, msg: &FeedMessage, width: u16) -> Vec<Line<'static>> {
    let dim = Style::new().fg(Color::DarkGray);
    let when = msg
        .when
        .map(|t| t.with_timezone(&state.tz).format("%H:%M:%S").to_string())
        .unwrap_or_else(|| "--:--:--".into());
    let mut spans: Vec<(String, Style)> = vec![
        (format!("{when} "), dim),
        (
            msg.message.sender.to_string(),
            Style::new().add_modifier(Modifier::BOLD),
        ),
        (" → ".into(), dim),
        (
            recipients_label(&msg.message.recipients),
            Style::new().fg(Color::Gray),
        ),
        (" ".into(), Style::new()),
        (
            sanitize::one_line(msg.message.msg_type.as_str()),
            Style::new()
                .fg(color_of(msg.message.msg_type.as_str()))
                .add_modifier(Modifier::BOLD),
        ),
        (" ".into(), Style::new()),
    ];
    for (tag, style) in tags(state, msg) {
        spans.push((tag, style));
        spans.push((" ".into(), Style::new()));
    }
    spans.push((msg.body.clone(), Style::new()));
    text::wrap(&spans, usize::from(width), INDENT, MAX_ROWS)
}

/// The tags shown before the content.
fn tags(state: &MonitorState, msg: &FeedMessage) -> Vec<(String, Style)> {
    let mut out = Vec::new();
    match msg.ack {
        AckMark::Asked => {
            if let Some(p) = state.pending_ack(msg.message.msg_id.as_str()) {
                let retries = match p.retry_count {
                    0 => String::new(),
                    1 => ", 1 retry".into(),
                    n => format!(", {n} retries"),
                };
                out.push((
                    format!("[awaiting ACK{retries}]"),
                    Style::new().fg(Color::Black).bg(Color::LightYellow),
                ));
            }
        }
        AckMark::Escalated => out.push((
            "[unacknowledged, escalated]".into(),
            Style::new().fg(Color::Black).bg(Color::LightRed),
        )),
        AckMark::Acknowledged => out.push(("[acked]".into(), Style::new().fg(Color::Green))),
        AckMark::NotAsked => {}
    }
    let queued = msg.queued();
    if queued > 0 {
        let label = if msg.outcomes.len() == 1 {
            "[queued]".to_owned()
        } else {
            format!("[queued {queued}/{}]", msg.outcomes.len())
        };
        out.push((label, Style::new().fg(Color::Yellow)));
    }
    for (words, status) in msg.native_states() {
        let color = match status {
            Delivery::Delivered => Color::Green,
            Delivery::Expired | Delivery::Dropped | Delivery::Refused => Color::LightRed,
            _ => Color::Yellow,
        };
        out.push((format!("[{words}]"), Style::new().fg(color)));
    }
    out
}
