//! Snapshots of the live view drawn into ratatui's test backend from a
//! fixed state: the status panel, colours per type, filters, the message
//! composer, long and hostile text, and terminals down to nothing.

use chrono::{DateTime, FixedOffset, Utc};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::style::Color;
use serde_json::{Value, json};

use crate::harness::four_ways_in;
use swarm::time;
use swarm::{AgentRecord, AgentStatus, Registry};
use swarm::{AgentScreen, EventKind, MonitorState, OpenEpisode, ScreenDialog, Timestamp, render};
use swarm::{BUILTIN_TYPES, parse_line};
use swarm::{DeliveryOutcome, DeliveryRecord, Record};
use swarm::{LockView, Overlap};
use swarm::{PendingEntry, ack_marker};

/// 2026-11-21 13:26:18 UTC: "now" in every test.
const NOW: f64 = 1_795_267_578.0;

fn at(secs_before_now: f64) -> DateTime<Utc> {
    time::from_unix_seconds(NOW - secs_before_now).expect("time")
}

fn utc() -> FixedOffset {
    FixedOffset::east_opt(0).expect("utc")
}

/// A message line as the log holds it.
fn entry(id: &str, from: &str, to: &[&str], kind: &str, ago: f64, content: &str) -> Value {
    json!({
        "sender": from, "timestamp": time::utc_iso(at(ago)), "msg_type": kind,
        "content": content, "recipients": to, "msg_id": id,
        "delivery_status": {}, "success_count": 0, "failure_count": 0,
    })
}

/// The record of a message line.
fn message(line: Value) -> Record {
    parse_line(&line.to_string()).expect("a message line")
}

fn delivered(id: &str, to: &[&str]) -> Record {
    let outcomes: Vec<(String, DeliveryOutcome)> = to
        .iter()
        .map(|r| (r.to_string(), DeliveryOutcome::delivered()))
        .collect();
    Record::Delivery(DeliveryRecord::new(id, &outcomes, None))
}

fn agent(id: &str, pane: &str, status: AgentStatus) -> AgentRecord {
    AgentRecord {
        id: id.parse().expect("an agent id"),
        pane_index: pane.into(),
        pid: 100,
        status,
        last_seen: time::utc_iso(at(10.0)),
        session_name: "swarm-demo".into(),
        tmux_pane_id: Some("%1".parse().expect("a pane id")),
        host: None,
    }
}

fn lock(path: &str, holder: &str, ago: f64, reason: &str) -> LockView {
    LockView {
        filepath: path.into(),
        agent_id: holder.into(),
        locked_at: NOW - ago,
        reason: reason.into(),
    }
}

fn pending(id: &str, from: &str, to: &str, ago: f64, retries: u32) -> PendingEntry {
    // As PENDING_ACKS.json holds it.
    serde_json::from_value(serde_json::json!({
        "msg_id": id,
        "sender_id": from,
        "recipient_id": to,
        "message": {},
        "sent_at": time::local_naive_iso(at(ago)),
        "retry_count": retries,
        "next_retry_at": time::local_naive_iso(at(ago - 30.0)),
    }))
    .expect("a pending entry")
}

const ACK_ID: &str = "7f3c2a10-0000-4000-8000-000000000001";

/// A swarm of three agents in the middle of some work.
fn busy_state() -> MonitorState {
    let mut s = MonitorState::new("/home/dev/shop".into(), at(0.0), utc());
    let mut registry = Registry::empty(time::utc_iso(at(5.0)));
    registry.agents = vec![
        agent("agent-0", "swarm-demo:0.0", AgentStatus::Active),
        agent("agent-1", "swarm-demo:0.1", AgentStatus::Active),
        agent("agent-2", "swarm-demo:0.2", AgentStatus::Stale),
    ];
    registry.recompute_sessions();
    s.set_registry(Some(registry));
    s.set_locks(vec![
        lock("src/auth.py", "agent-1", 185.0, "JWT refactor"),
        lock("docs/*.md", "agent-2", 900.0, ""),
    ]);
    s.set_acks(vec![pending(ACK_ID, "agent-0", "agent-1", 45.0, 1)]);
    let asks_ack = format!("{} which schema do we use?", ack_marker(ACK_ID));
    let mut with_ack = entry(ACK_ID, "agent-0", &["agent-1"], "QUESTION", 45.0, &asks_ack);
    with_ack["requires_ack"] = json!(true);
    s.ingest(
        vec![
            message(entry(
                "m1",
                "agent-0",
                &["agent-1", "agent-2"],
                "INFO",
                600.0,
                "schema v2 merged",
            )),
            delivered("m1", &["agent-1", "agent-2"]),
            message(entry(
                "m2",
                "agent-2",
                &["agent-0"],
                "COMPLETED",
                400.0,
                "tests green on main",
            )),
            delivered("m2", &["agent-0"]),
            message(with_ack),
            message(entry(
                "m3",
                "agent-1",
                &["agent-0"],
                "BLOCKED",
                30.0,
                "need src/db.py, locked by agent-2",
            )),
            Record::Delivery(DeliveryRecord::new(
                "m3",
                &[(
                    "agent-0".into(),
                    DeliveryOutcome::queued("a shell is in the foreground"),
                )],
                None,
            )),
        ],
        None,
    );
    s
}

/// The screen as text, one `|`-terminated row per line (so the width
/// shows and no trailing space is lost).
fn screen(buffer: &Buffer) -> String {
    let mut out = String::new();
    for y in 0..buffer.area.height {
        let mut skip = 0;
        for x in 0..buffer.area.width {
            let symbol = buffer[(x, y)].symbol();
            if skip == 0 {
                out.push_str(symbol);
            }
            skip = std::cmp::max(skip, ratatui::text::Span::raw(symbol).width()).saturating_sub(1);
        }
        out.push_str("|\n");
    }
    out
}

fn draw(state: &MonitorState, width: u16, height: u16) -> Buffer {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("terminal");
    terminal.draw(|f| render(state, f)).expect("draw");
    terminal.backend().buffer().clone()
}

fn snapshot(state: &mut MonitorState, width: u16, height: u16) -> String {
    state.set_viewport(width, height);
    screen(&draw(state, width, height))
}

fn key(state: &mut MonitorState, code: KeyCode) {
    state.handle_key(KeyEvent::new(code, KeyModifiers::NONE));
}

fn typed(state: &mut MonitorState, text: &str) {
    for c in text.chars() {
        key(state, KeyCode::Char(c));
    }
}

#[test]
fn status_panel_shows_agents_locks_and_pending_acks() {
    let mut s = busy_state();
    super::snapshots(|| insta::assert_snapshot!("monitor_busy_wide", snapshot(&mut s, 120, 20)));
}

#[test]
fn overlaps_between_worktree_branches_get_a_section_only_when_there_are_some() {
    let mut s = busy_state();
    let plain = snapshot(&mut s, 120, 30);
    assert!(!plain.contains("Overlaps"), "{plain}");
    s.status.overlaps = vec![Overlap {
        path: "src/a\u{1b}[31m.py".into(),
        agents: vec!["agent-0".into(), "agent-2".into()],
    }];
    let shown = snapshot(&mut s, 120, 30);
    assert!(shown.contains("Overlaps (1)"), "{shown}");
    assert!(shown.contains("src/a.py agent-0, agent-2"), "{shown}");
    assert!(!shown.contains('\u{1b}'), "{shown}");
}

#[test]
fn a_narrow_terminal_stacks_the_panels() {
    let mut s = busy_state();
    super::snapshots(|| insta::assert_snapshot!("monitor_busy_80x24", snapshot(&mut s, 80, 24)));
}

#[test]
fn a_60x15_terminal_still_shows_everything_it_can() {
    let mut s = busy_state();
    super::snapshots(|| insta::assert_snapshot!("monitor_busy_60x15", snapshot(&mut s, 60, 15)));
}

#[test]
fn no_terminal_size_makes_it_panic() {
    let mut s = busy_state();
    let long = "word ".repeat(2000) + &"漢字😀".repeat(300);
    s.ingest(
        vec![message(entry(
            "m9",
            "agent-0",
            &["agent-1"],
            "INFO",
            1.0,
            &long,
        ))],
        None,
    );
    for width in 0..=70 {
        for height in 0..=18 {
            s.set_viewport(width, height);
            let buffer = draw(&s, width, height);
            assert_eq!(buffer.area.width, width);
        }
    }
    // With the help overlay and the composer open too.
    key(&mut s, KeyCode::Char('?'));
    for (w, h) in [(1, 1), (5, 3), (20, 6), (60, 15)] {
        draw(&s, w, h);
    }
    key(&mut s, KeyCode::Esc);
    key(&mut s, KeyCode::Char('m'));
    typed(&mut s, &"x".repeat(300));
    for (w, h) in [(1, 1), (5, 3), (20, 6), (60, 15)] {
        draw(&s, w, h);
    }
}

#[test]
fn every_type_has_its_colour() {
    let expected = |t: &str| match t {
        "BLOCKED" => Color::LightRed,
        "QUESTION" | "ACK" => Color::LightYellow,
        "COMPLETED" => Color::LightGreen,
        "INFO" | "REVIEW-REQUEST" => Color::LightBlue,
        "CHALLENGE" => Color::LightMagenta,
        _ => Color::White,
    };
    let mut s = MonitorState::new("/p".into(), at(0.0), utc());
    s.capacity = 50;
    let types: Vec<String> = BUILTIN_TYPES
        .iter()
        .map(|t| t.to_string())
        .chain(["DEPLOY-DONE".to_string()])
        .collect();
    let records = types
        .iter()
        .enumerate()
        .map(|(i, t)| {
            message(entry(
                &format!("t{i}"),
                "a",
                &["b"],
                t,
                100.0 - i as f64,
                "x",
            ))
        })
        .collect();
    s.ingest(records, None);
    s.set_viewport(60, 40);
    let buffer = draw(&s, 60, 40);
    let mut table = String::new();
    for t in &types {
        let found = (0..buffer.area.height).find_map(|y| {
            let row: String = (0..buffer.area.width)
                .map(|x| buffer[(x, y)].symbol())
                .collect();
            // A byte offset; every cell before it holds one character.
            row.find(&format!(" {t} "))
                .map(|at| (row[..at].chars().count() as u16 + 1, y))
        });
        let (x, y) = found.unwrap_or_else(|| panic!("{t} is not on screen"));
        // Every cell of the name, not just its first.
        for i in 0..t.len() as u16 {
            assert_eq!(buffer[(x + i, y)].fg, expected(t), "colour of {t}");
        }
        table.push_str(&format!("{t:<20} {:?}\n", buffer[(x, y)].fg));
    }
    super::snapshots(|| insta::assert_snapshot!("monitor_type_colours", table));
}

#[test]
fn key_filters_narrow_the_feed_and_say_so() {
    let mut s = busy_state();
    s.set_viewport(100, 16);
    key(&mut s, KeyCode::Char('a'));
    assert_eq!(s.view.agent.as_deref(), Some("agent-0"));
    key(&mut s, KeyCode::Char('/'));
    typed(&mut s, "SCHEMA");
    super::snapshots(|| {
        insta::assert_snapshot!("monitor_search_typing", snapshot(&mut s, 100, 16))
    });
    key(&mut s, KeyCode::Enter);
    key(&mut s, KeyCode::Char('t'));
    assert_eq!(s.view.msg_type.as_deref(), Some("QUESTION"));
    super::snapshots(|| insta::assert_snapshot!("monitor_filtered", snapshot(&mut s, 100, 16)));
    key(&mut s, KeyCode::Char('t'));
    key(&mut s, KeyCode::Char('/'));
    typed(&mut s, "nothing like this");
    key(&mut s, KeyCode::Enter);
    assert!(snapshot(&mut s, 100, 16).contains("no message matches the filters"));
}

#[test]
fn the_composer_prompts_field_by_field() {
    let mut s = busy_state();
    key(&mut s, KeyCode::Char('m'));
    typed(&mut s, "agent-1");
    key(&mut s, KeyCode::Enter);
    typed(&mut s, "urgent");
    key(&mut s, KeyCode::Enter);
    let screen = snapshot(&mut s, 100, 12);
    let footer = screen.lines().last().expect("footer");
    super::snapshots(|| insta::assert_snapshot!("monitor_compose_error", footer));
    key(&mut s, KeyCode::Backspace);
    for _ in 0.."urgen".len() {
        key(&mut s, KeyCode::Backspace);
    }
    typed(&mut s, "review");
    key(&mut s, KeyCode::Tab);
    key(&mut s, KeyCode::Enter);
    typed(&mut s, "please look at src/auth.py");
    let screen = snapshot(&mut s, 100, 12);
    super::snapshots(|| {
        insta::assert_snapshot!(
            "monitor_compose_text",
            screen.lines().last().expect("footer")
        )
    });
}

#[test]
fn long_messages_are_cut_with_a_marker_and_escapes_are_harmless() {
    let mut s = MonitorState::new("/p".into(), at(0.0), utc());
    let hostile = "\x1b[2J\x1b[H\x1b]0;pwned title\x07\x1b[31mred?\x1b[0m \u{202e}gnp.exe \x07bell\r\nsecond line\x1b]52;c;ZXZpbA==\x1b\\";
    let long = format!("start {} end", "lorem ipsum ".repeat(60));
    s.ingest(
        vec![
            message(entry("h1", "agent-0", &["agent-1"], "INFO", 20.0, hostile)),
            message(entry(
                "h2",
                "agent-1",
                &["all"],
                "CHALLENGE\x1b[5m",
                10.0,
                &long,
            )),
        ],
        None,
    );
    // A sender no agent can have makes a line no tool writes: it never
    // reaches the feed.
    let foreign = entry("h3", "agent-1\x1b[5m", &["all"], "INFO", 5.0, "x");
    assert!(parse_line(&foreign.to_string()).is_none());
    let text = snapshot(&mut s, 70, 24);
    super::snapshots(|| insta::assert_snapshot!("monitor_long_and_hostile", text));
    assert!(!text.contains('\x1b') && !text.contains('\x07'));
    assert!(text.contains("red? gnp.exe bell"));
    assert!(
        text.contains("… (+"),
        "the long message is not marked as cut"
    );
}

fn episode(agent: &str, kind: EventKind, ago: f64, detail: &str) -> OpenEpisode {
    OpenEpisode {
        agent: agent.into(),
        kind,
        episode: 1,
        since: Timestamp::from(at(ago)),
        detail: detail.into(),
    }
}

#[test]
fn an_agent_at_its_usage_limit_says_until_when() {
    let mut s = busy_state();
    s.set_screens(vec![AgentScreen {
        agent: "agent-1".into(),
        state: "idle".into(),
        held: 1,
        held_reason: Some("agent-1 is limited until 15:00".into()),
        held_for: None,
        dialog: None,
        limited: Some("limited until 15:00".into()),
    }]);
    let text = snapshot(&mut s, 140, 24);
    let row = text
        .lines()
        .find(|r| r.contains("● agent-1 "))
        .unwrap_or_else(|| panic!("agent-1's row in\n{text}"));
    assert!(row.contains("limited until 15:00"), "{row}");
}

#[test]
fn who_needs_you_comes_first_and_the_footer_says_how_to_answer() {
    let mut s = busy_state();
    // agent-2 waits in a dialog, agent-0 exited; agent-1 has nothing.
    s.set_episodes(vec![
        episode(
            "agent-0",
            EventKind::Exited,
            120.0,
            "its pane shows a shell",
        ),
        episode("agent-2", EventKind::NeedsInput, 20.0, "Run the migration?"),
    ]);
    s.set_screens(vec![AgentScreen {
        agent: "agent-2".into(),
        state: "dialog".into(),
        held: 0,
        held_reason: None,
        held_for: None,
        dialog: Some(ScreenDialog {
            question: "Run the migration?".into(),
            options: vec![(1, "Yes".into()), (2, "No".into())],
            fingerprint: "0123456789abcdef".into(),
        }),
        limited: None,
    }]);
    let text = snapshot(&mut s, 120, 20);
    super::snapshots(|| insta::assert_snapshot!("monitor_needs_you", text));
    let rows: Vec<&str> = text.lines().collect();
    let first = |id: &str| {
        rows.iter()
            .position(|r| r.contains(&format!("● {id} ")) || r.contains(&format!("○ {id} ")))
            .expect(id)
    };
    assert!(first("agent-2") < first("agent-0") && first("agent-0") < first("agent-1"));
    assert!(rows[first("agent-2")].starts_with("▶"), "{text}");
    assert!(rows[first("agent-0")].starts_with('!'), "{text}");
    let footer = rows.last().expect("footer");
    assert!(
        footer.contains("agent-2 asks: Run the migration? [1 Yes · 2 No]")
            && footer.contains("y yes"),
        "{footer}"
    );
    // The help lists the answer keys.
    key(&mut s, KeyCode::Char('?'));
    let help = snapshot(&mut s, 120, 30);
    assert!(help.contains("cancel its dialog (Escape)"), "{help}");
}

#[test]
fn native_outcomes_show_their_status_way_in_and_confirmation_per_recipient() {
    let mut s = MonitorState::new("/p".into(), at(0.0), utc());
    let delivery = json!({
        "event": "delivery", "msg_id": "n1", "timestamp": time::utc_iso(at(5.0)),
        "recipients": [],
        "outcomes": four_ways_in(),
    });
    s.ingest(
        vec![
            message(entry(
                "n1",
                "agent-0",
                &["agent-1", "agent-2", "agent-3", "agent-4"],
                "INFO",
                5.0,
                "schema v3",
            )),
            parse_line(&delivery.to_string()).expect("a delivery line"),
        ],
        None,
    );
    let shown = snapshot(&mut s, 200, 12);
    assert!(shown.contains("[agent-1 accepted (socket)]"), "{shown}");
    assert!(
        shown.contains("[agent-2 delivered (app-server, confirmed by app-server)]"),
        "{shown}"
    );
    // Typed, or written before native channels (no `via`): nothing added.
    assert!(!shown.contains("agent-3 delivered"), "{shown}");
    assert!(!shown.contains("agent-4 delivered"), "{shown}");
}
