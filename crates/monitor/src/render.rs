//! `render`: draws a `MonitorState` into a ratatui frame. Pure: the same
//! state gives the same screen, which is what the snapshot tests rely on.
//! Every piece of text is cut or wrapped to its area, so no terminal size
//! (down to nothing at all) can break the layout or panic.

use ratatui::Frame;
use ratatui::layout::{Position, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use swarm_core::support::sanitize;
use swarm_core::support::time;
use swarm_core::{AgentStatus, BudgetLevel, format_age};

use super::feed;
use super::layout::{self, Areas};
use super::needs::{Need, SELECTED_MARK};
use super::state::{ComposeStep, Level, Mode, MonitorState, ScreenDialog};
use super::text::{ELLIPSIS, fit, str_width};

const DIM: Style = Style::new().fg(Color::DarkGray);
const BOLD: Style = Style::new().add_modifier(Modifier::BOLD);

/// Draws the whole screen.
pub fn render(state: &MonitorState, frame: &mut Frame<'_>) {
    let area = frame.area();
    let areas = layout::areas(area, state.status_rows());
    header(state, frame, areas.header);
    status_panel(state, frame, &areas);
    feed_panel(state, frame, areas.feed);
    footer(state, frame, areas.footer);
    if state.mode == Mode::Help {
        help(frame, area);
    }
}

fn header(state: &MonitorState, frame: &mut Frame<'_>, area: Rect) {
    if area.height == 0 {
        return;
    }
    let width = usize::from(area.width);
    let clock = state
        .now
        .with_timezone(&state.tz)
        .format("%H:%M:%S")
        .to_string();
    let sessions = state
        .status
        .registry
        .as_ref()
        .map(|r| {
            if r.session_names.is_empty() {
                r.session_name.clone()
            } else {
                r.session_names.join(",")
            }
        })
        .filter(|s| !s.is_empty() && s != "unknown")
        .unwrap_or_else(|| "-".into());
    let left = vec![
        Span::styled(" swarm monitor ", BOLD),
        Span::raw("│ "),
        Span::raw(sanitize::one_line(&state.project)),
        Span::raw("  session "),
        Span::styled(sanitize::one_line(&sessions), BOLD),
        Span::raw(match state.watcher {
            Some(true) => "  watcher running",
            Some(false) => "  watcher not running",
            None => "",
        }),
    ];
    // The clock stays on the right; the rest is cut to fit before it.
    let right = format!(" {clock} ");
    let room = width.saturating_sub(str_width(&right));
    let mut line = fit(left, room);
    let pad = room.saturating_sub(line.width());
    line.spans.push(Span::raw(" ".repeat(pad)));
    if str_width(&right) <= width {
        line.spans.push(Span::raw(right));
    }
    frame.render_widget(
        Paragraph::new(line).style(Style::new().add_modifier(Modifier::REVERSED)),
        area,
    );
}

/// A status section: title, item rows, what the "none" row says, and each
/// item in brief for the one-line form.
struct Section {
    title: Line<'static>,
    items: Vec<Line<'static>>,
    empty: &'static str,
    brief: Vec<Vec<Span<'static>>>,
    /// What goes between two items in brief.
    sep: &'static str,
}

impl Section {
    /// The title followed by every item in brief, on one line.
    fn inline(self) -> Vec<Span<'static>> {
        let mut spans = self.title.spans;
        spans.push(Span::raw(": "));
        for (i, item) in self.brief.into_iter().enumerate() {
            if i > 0 {
                spans.push(Span::raw(self.sep));
            }
            spans.extend(item);
        }
        spans
    }
}

fn status_panel(state: &MonitorState, frame: &mut Frame<'_>, areas: &Areas) {
    let area = areas.status;
    if area.area() == 0 {
        return;
    }
    let block = Block::new()
        .borders(if areas.side_by_side {
            Borders::RIGHT
        } else {
            Borders::BOTTOM
        })
        .border_style(DIM);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let width = usize::from(inner.width);
    let mut sections = vec![agents(state), locks(state), pending(state)];
    // Only a swarm in worktrees has overlaps: no empty section otherwise.
    if !state.status.overlaps.is_empty() {
        sections.push(overlaps(state));
    }
    let rows = allot(
        &sections
            .iter()
            .map(|s| 1 + s.items.len().max(1))
            .collect::<Vec<_>>(),
        usize::from(inner.height),
    );
    let mut lines: Vec<Line<'static>> = Vec::new();
    for (section, rows) in sections.into_iter().zip(rows) {
        let n = section.items.len();
        if rows == 0 {
            continue;
        }
        if n == 0 {
            lines.push(fit(section.title.spans, width));
            if rows > 1 {
                lines.push(Line::styled(format!("  {}", section.empty), DIM));
            }
        } else if n < rows {
            lines.push(fit(section.title.spans, width));
            lines.extend(section.items.into_iter().map(|i| fit(i.spans, width)));
        } else if rows <= 2 {
            // No room for a row per item: all of them in brief, on the
            // title's line.
            lines.push(fit(section.inline(), width));
        } else {
            lines.push(fit(section.title.spans, width));
            let shown = rows - 2;
            lines.extend(
                section
                    .items
                    .into_iter()
                    .take(shown)
                    .map(|i| fit(i.spans, width)),
            );
            lines.push(Line::styled(
                format!("  {ELLIPSIS} {} more", n - shown),
                DIM,
            ));
        }
    }
    frame.render_widget(Paragraph::new(lines), inner);
}

/// Shares `height` rows between sections wanting `wants` rows each: every
/// section gets its title first, then one item row, then the rest in
/// order.
fn allot(wants: &[usize], height: usize) -> Vec<usize> {
    let mut got = vec![0; wants.len()];
    let mut left = height;
    for limit in [1, 2, usize::MAX] {
        for (g, w) in got.iter_mut().zip(wants) {
            let more = (*w).min(limit).saturating_sub(*g).min(left);
            *g += more;
            left -= more;
        }
    }
    got
}

fn title(text: &str, count: usize, color: Color) -> Line<'static> {
    Line::from(vec![
        Span::styled(text.to_owned(), BOLD.fg(color)),
        Span::styled(format!(" ({count})"), DIM),
    ])
}

/// What a waiting agent asks, with the options its screen shows:
/// `Do you want to proceed? [1 Yes · 2 No]`.
fn asked(question: &str, dialog: Option<&ScreenDialog>) -> String {
    let mut text = sanitize::one_line(question);
    if let Some(d) = dialog.filter(|d| !d.options.is_empty()) {
        let options: Vec<String> = d
            .options
            .iter()
            .map(|(n, label)| format!("{n} {}", sanitize::one_line(label)))
            .collect();
        text.push_str(&format!(" [{}]", options.join(" · ")));
    }
    text
}

/// The words an agent's need adds to its row (none for held messages:
/// the row tells those).
fn need_words(state: &MonitorState, agent: &str, need: &Need) -> Option<Span<'static>> {
    if need.headline.is_empty() {
        return None;
    }
    let dialog = state.screens.get(agent).and_then(|s| s.dialog.as_ref());
    let text = if need.asks {
        let question = dialog.map_or(need.detail.as_str(), |d| d.question.as_str());
        format!(" asks: {}", asked(question, dialog))
    } else if need.detail.is_empty() {
        format!(" {}", need.headline)
    } else {
        format!(" {}: {}", need.headline, sanitize::one_line(&need.detail))
    };
    let color = if need.urgency >= swarm_core::HELD_URGENCY {
        Color::LightRed
    } else {
        Color::LightYellow
    };
    Some(Span::styled(text, Style::new().fg(color)))
}

fn agents(state: &MonitorState) -> Section {
    let list = state.agent_order();
    let answering = state.answering();
    let mut items = Vec::new();
    let mut brief = Vec::new();
    for (a, need) in &list {
        let activity = state.activity.get(a.id.as_str());
        let blocked = activity.is_some_and(|x| x.msg_type == "BLOCKED");
        let (dot, word, color) = match a.status {
            AgentStatus::Active if blocked => ("●", "blocked", Color::LightRed),
            AgentStatus::Active => ("●", "active", Color::LightGreen),
            AgentStatus::Stale => ("○", "stale", Color::Yellow),
            AgentStatus::Dead => ("○", "dead", Color::DarkGray),
        };
        let id = sanitize::one_line(a.id.as_str());
        let mark = state.mark_of(a.id.as_str(), need.as_ref(), answering.as_deref());
        let mark_style = if mark == SELECTED_MARK {
            BOLD.fg(Color::LightCyan)
        } else {
            BOLD.fg(Color::LightRed)
        };
        let mut short = Vec::new();
        if mark != ' ' {
            short.push(Span::styled(mark.to_string(), mark_style));
        }
        short.push(Span::styled(format!("{dot} "), Style::new().fg(color)));
        short.push(Span::styled(id.clone(), BOLD));
        brief.push(short);
        let screen = state.screens.get(a.id.as_str());
        // What the pane shows, once read (idle, typing, busy, dialog, ...).
        let word = match screen {
            Some(s) if a.status == AgentStatus::Active && !blocked => s.state.as_str(),
            _ => word,
        };
        let mut spans = vec![
            Span::styled(mark.to_string(), mark_style),
            Span::styled(format!("{dot} "), Style::new().fg(color)),
            Span::styled(format!("{id:<9}"), BOLD),
            Span::styled(format!(" {word:<7}"), Style::new().fg(color)),
        ];
        spans.extend(
            need.as_ref()
                .and_then(|n| need_words(state, a.id.as_str(), n)),
        );
        if let Some(limited) = screen.and_then(|s| s.limited.as_deref()) {
            spans.push(Span::styled(
                format!(" {limited}"),
                Style::new().fg(Color::LightRed),
            ));
        }
        if let Some(s) = screen.filter(|s| s.held > 0) {
            let age = s
                .held_for
                .map(|d| format_age(d.as_secs_f64()))
                .unwrap_or_default();
            spans.push(Span::styled(
                format!(
                    " {} held {age}: {}",
                    s.held,
                    sanitize::one_line(s.held_reason.as_deref().unwrap_or(""))
                ),
                Style::new().fg(Color::LightRed),
            ));
        }
        match activity {
            Some(x) => {
                let age =
                    x.at.map(|t| format_age(time::age_seconds(t, state.now)))
                        .unwrap_or_else(|| "?".into());
                spans.push(Span::styled(format!(" {age:>6} "), DIM));
                spans.push(Span::styled(
                    sanitize::one_line(&x.msg_type),
                    Style::new().fg(feed::color_of(&x.msg_type)),
                ));
            }
            None => spans.push(Span::styled("      -", DIM)),
        }
        spans.extend(spend_words(state, a.id.as_str()));
        items.push(Line::from(spans));
    }
    let mut head = title("Agents", list.len(), Color::LightCyan);
    let waiting = state.waiting().len();
    if waiting > 0 {
        head.spans.push(Span::styled(
            format!(" {waiting} need{} you", if waiting == 1 { "s" } else { "" }),
            BOLD.fg(Color::LightRed),
        ));
    }
    Section {
        title: head,
        items,
        empty: "no agents registered",
        brief,
        sep: " ",
    }
}

/// The agent's tokens, cost and budget standing, once usage was read.
fn spend_words(state: &MonitorState, agent: &str) -> Vec<Span<'static>> {
    let Some(spend) = state.usage.get(agent) else {
        return Vec::new();
    };
    let mut spans = vec![Span::styled(format!("  {}", spend.amount()), DIM)];
    if let Some(b) = &spend.budget {
        let color = match b.level {
            BudgetLevel::Ok => Color::Gray,
            BudgetLevel::Near => Color::LightYellow,
            BudgetLevel::Over => Color::LightRed,
        };
        spans.push(Span::styled(
            format!(" {}", b.words()),
            Style::new().fg(color),
        ));
    }
    spans
}

fn locks(state: &MonitorState) -> Section {
    let mut items = Vec::new();
    let mut brief = Vec::new();
    for l in &state.status.locks {
        let path = sanitize::one_line(&l.filepath);
        let holder = sanitize::one_line(&l.agent_id);
        let stale = l.is_stale(state.now, state.stale_after).then(|| {
            Span::styled(
                " STALE",
                Style::new()
                    .fg(Color::LightRed)
                    .add_modifier(Modifier::BOLD),
            )
        });
        let mut short = vec![
            Span::raw(format!("{path} ")),
            Span::styled(holder.clone(), BOLD),
        ];
        short.extend(stale.clone());
        brief.push(short);
        let mut spans = vec![
            Span::raw(format!(" {path} ")),
            Span::styled(holder, BOLD),
            Span::styled(format!(" {}", format_age(l.age(state.now))), DIM),
        ];
        spans.extend(stale);
        if !l.reason.is_empty() {
            spans.push(Span::styled(
                format!(" {}", sanitize::one_line(&l.reason)),
                DIM,
            ));
        }
        items.push(Line::from(spans));
    }
    Section {
        title: title("Locks", state.status.locks.len(), Color::LightMagenta),
        items,
        empty: "no locks held",
        brief,
        sep: "; ",
    }
}

fn pending(state: &MonitorState) -> Section {
    let mut items = Vec::new();
    let mut brief = Vec::new();
    for e in &state.status.acks {
        let age = format_age(time::age_seconds(e.sent_at.utc(), state.now));
        let retries = match e.retry_count {
            0 => "no retry yet".to_owned(),
            1 => "1 retry".to_owned(),
            n => format!("{n} retries"),
        };
        let pair = vec![
            Span::styled(sanitize::one_line(e.sender_id.as_str()), BOLD),
            Span::raw("→"),
            Span::styled(sanitize::one_line(e.recipient_id.as_str()), BOLD),
            Span::styled(format!(" {age}"), Style::new().fg(Color::LightYellow)),
        ];
        brief.push(pair.clone());
        let mut spans = vec![Span::styled(
            format!(
                " {} ",
                swarm_core::domain::short(&sanitize::one_line(e.msg_id.as_str()))
            ),
            DIM,
        )];
        spans.extend(pair);
        spans.push(Span::styled(format!(", {retries}"), DIM));
        items.push(Line::from(spans));
    }
    Section {
        title: title("Pending ACKs", state.status.acks.len(), Color::LightYellow),
        items,
        empty: "none",
        brief,
        sep: "; ",
    }
}

/// Files changed on two or more agents' worktree branches: merging both
/// may conflict unless the agents agree first (docs/guide/worktrees.md).
fn overlaps(state: &MonitorState) -> Section {
    let mut items = Vec::new();
    let mut brief = Vec::new();
    for o in &state.status.overlaps {
        let path = sanitize::one_line(&o.path);
        let agents = sanitize::one_line(&o.agents.join(", "));
        brief.push(vec![
            Span::raw(format!("{path} ")),
            Span::styled(agents.clone(), BOLD),
        ]);
        items.push(Line::from(vec![
            Span::raw(format!(" {path} ")),
            Span::styled(agents, BOLD),
        ]));
    }
    Section {
        title: title("Overlaps", state.status.overlaps.len(), Color::LightRed),
        items,
        empty: "no file changed by two agents",
        brief,
        sep: "; ",
    }
}

fn feed_panel(state: &MonitorState, frame: &mut Frame<'_>, area: Rect) {
    if area.area() == 0 {
        return;
    }
    let width = usize::from(area.width);
    let page = usize::from(area.height - 1);
    let mut rows: Vec<Line<'static>> = Vec::new();
    let mut shown = 0;
    for m in state.visible() {
        shown += 1;
        rows.extend(feed::rows(state, m, area.width));
    }
    let max = rows.len().saturating_sub(page);
    let scroll = state.scroll.min(max);
    let end = rows.len() - scroll;
    let start = end.saturating_sub(page);

    let mut head = vec![
        Span::styled("Messages", BOLD),
        Span::styled(format!(" {shown}/{}", state.messages.len()), DIM),
    ];
    let v = &state.view;
    if let Some(t) = &v.msg_type {
        head.push(Span::raw(" type="));
        head.push(Span::styled(
            sanitize::one_line(t),
            Style::new().fg(feed::color_of(t)),
        ));
    }
    if let Some(a) = &v.agent {
        head.push(Span::raw(format!(" agent={}", sanitize::one_line(a))));
    }
    if !v.text.is_empty() {
        head.push(Span::raw(format!(" /{}", sanitize::one_line(&v.text))));
    }
    if !state.base.is_empty() {
        head.push(Span::styled(" (filtered)", DIM));
    }
    if scroll > 0 {
        head.push(Span::styled(
            format!("  ↑{scroll} (End follows)"),
            Style::new().fg(Color::LightYellow),
        ));
    }
    let mut lines = vec![fit(head, width)];
    if rows.is_empty() {
        let why = if state.messages.is_empty() {
            "no messages yet"
        } else {
            "no message matches the filters (c clears them)"
        };
        lines.push(fit(vec![Span::styled(why, DIM)], width));
    }
    lines.extend(rows.into_iter().skip(start).take(end - start));
    frame.render_widget(Paragraph::new(lines), area);
}

fn footer(state: &MonitorState, frame: &mut Frame<'_>, area: Rect) {
    if area.height == 0 {
        return;
    }
    let width = usize::from(area.width);
    let key = |k: &str| Span::styled(k.to_owned(), BOLD.fg(Color::LightCyan));
    let line = match &state.mode {
        Mode::Search { .. } => {
            let spans = vec![key("/"), Span::raw(sanitize::one_line(&state.view.text))];
            input_line(frame, area, spans, "  Enter keeps, Esc cancels")
        }
        Mode::Compose(c) => {
            let mut spans = Vec::new();
            if let Some(e) = &c.error {
                spans.push(Span::styled(
                    format!("{} ", sanitize::one_line(e)),
                    Style::new().fg(Color::LightRed),
                ));
            }
            let (prompt, value) = match c.step {
                ComposeStep::To => ("message to (agent id or all, Tab): ".to_owned(), &c.to),
                ComposeStep::Type => (
                    format!("to {} · type (Tab; Enter for INFO): ", c.to),
                    &c.msg_type,
                ),
                ComposeStep::Text => (format!("to {} · {}: ", c.to, c.msg_type), &c.text),
            };
            spans.push(Span::styled(prompt, DIM));
            spans.push(Span::raw(sanitize::one_line(value)));
            input_line(frame, area, spans, "")
        }
        Mode::Normal | Mode::Help => match &state.notice {
            Some(n) => {
                let color = match n.level {
                    Level::Info => Color::LightGreen,
                    Level::Warn => Color::LightYellow,
                    Level::Error | Level::Outage => Color::LightRed,
                };
                fit(
                    vec![Span::styled(n.text.clone(), Style::new().fg(color))],
                    width,
                )
            }
            None if state.answering().is_some() => answer_line(state, width),
            None => {
                let mut spans = Vec::new();
                for (k, what) in [
                    ("q", "quit"),
                    ("↑↓", "scroll"),
                    ("/", "search"),
                    ("t", "type"),
                    ("a", "agent"),
                    ("c", "clear"),
                    ("m", "message"),
                    ("?", "help"),
                ] {
                    spans.push(key(k));
                    spans.push(Span::styled(format!(" {what}  "), DIM));
                }
                fit(spans, width)
            }
        },
    };
    frame.render_widget(Paragraph::new(line), area);
}

/// The footer while an agent waits in a dialog: whose, what it asks,
/// and the keys that answer it.
fn answer_line(state: &MonitorState, width: usize) -> Line<'static> {
    let key = |k: &str| Span::styled(k.to_owned(), BOLD.fg(Color::LightCyan));
    let Some(agent) = state.answering() else {
        return Line::default();
    };
    let dialog = state.screens.get(&agent).and_then(|s| s.dialog.as_ref());
    let question = state.need_of(&agent).map(|n| n.detail).unwrap_or_default();
    let question = dialog.map_or(question, |d| d.question.clone());
    let mut spans = vec![
        Span::styled(format!("{SELECTED_MARK} "), BOLD.fg(Color::LightCyan)),
        Span::styled(sanitize::one_line(&agent), BOLD),
        Span::styled(
            format!(" asks: {}  ", asked(&question, dialog)),
            Style::new().fg(Color::LightRed),
        ),
    ];
    for (k, what) in [
        ("y", "yes"),
        ("n", "no"),
        ("1-9", "option"),
        ("x", "cancel"),
        ("Tab", "next"),
        ("?", "help"),
    ] {
        spans.push(key(k));
        spans.push(Span::styled(format!(" {what}  "), DIM));
    }
    fit(spans, width)
}

/// An input row: when too long, the start is cut (the end is where the
/// typing happens) and the cursor sits after the text.
fn input_line(
    frame: &mut Frame<'_>,
    area: Rect,
    spans: Vec<Span<'static>>,
    hint: &str,
) -> Line<'static> {
    let width = usize::from(area.width);
    let typed: usize = spans.iter().map(Span::width).sum();
    let mut line = if typed + 1 > width {
        // Keep the last `width - 2` cells, after a marker.
        let text: String = spans.iter().map(|s| s.content.as_ref()).collect();
        let mut keep = String::new();
        let mut used = 0;
        for c in text.chars().rev() {
            let w = super::text::char_width(c);
            if used + w + 2 > width {
                break;
            }
            used += w;
            keep.insert(0, c);
        }
        Line::from(vec![Span::styled(ELLIPSIS, DIM), Span::raw(keep)])
    } else {
        Line::from(spans)
    };
    let at = line.width();
    if at + str_width(hint) <= width {
        line.spans.push(Span::styled(hint.to_owned(), DIM));
    }
    if area.width > 0 {
        let x = area.x
            + u16::try_from(at)
                .unwrap_or(area.width - 1)
                .min(area.width - 1);
        frame.set_cursor_position(Position::new(x, area.y));
    }
    line
}

const HELP: [(&str, &str); 18] = [
    ("y  n", "answer the ▶ agent's dialog yes / no"),
    ("1-9", "pick that option of its dialog"),
    ("x", "cancel its dialog (Escape)"),
    ("Tab  Shift+Tab", "next / previous agent that asks"),
    ("↑ ↓  k j", "scroll one row"),
    ("PgUp PgDn", "scroll one page"),
    ("Home End", "oldest / newest (End follows)"),
    ("/", "search the messages (Enter, Esc)"),
    ("t", "next message type"),
    ("a", "next agent (sender or recipient)"),
    ("c", "clear the filters"),
    ("m", "write a message (Tab completes)"),
    ("?", "this help"),
    ("q  Esc", "quit"),
    ("", ""),
    ("! *", "needs you now / has news for you"),
    ("[awaiting ACK]", "no acknowledgement yet"),
    ("[queued]", "waits in the recipient's inbox"),
];

fn help(frame: &mut Frame<'_>, area: Rect) {
    let w = area.width.min(54);
    let h = area.height.min(HELP.len() as u16 + 2);
    if w < 4 || h < 3 {
        return;
    }
    let popup = Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    );
    frame.render_widget(Clear, popup);
    let block = Block::bordered().title(" Keys (any key closes) ");
    let inner = block.inner(popup);
    frame.render_widget(block, popup);
    let lines: Vec<Line<'static>> = HELP
        .iter()
        .map(|(k, what)| {
            fit(
                vec![
                    Span::styled(format!("{k:<15}"), BOLD.fg(Color::LightCyan)),
                    Span::raw((*what).to_owned()),
                ],
                usize::from(inner.width),
            )
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), inner);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_shared_titles_first() {
        assert_eq!(allot(&[5, 3, 2], 100), [5, 3, 2]);
        assert_eq!(allot(&[5, 3, 2], 3), [1, 1, 1]);
        assert_eq!(allot(&[5, 3, 2], 5), [2, 2, 1]);
        assert_eq!(allot(&[5, 3, 2], 8), [4, 2, 2]);
        assert_eq!(allot(&[5, 3, 2], 0), [0, 0, 0]);
        assert_eq!(allot(&[5, 3, 2], 2), [1, 1, 0]);
    }
}
