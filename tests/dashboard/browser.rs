//! The dashboard in a real browser: headless Chromium (Debian's `chromium`,
//! installed by `scripts/setup chromium`) driven over the DevTools protocol. Every
//! console message, uncaught exception and content-security-policy
//! violation of the page is recorded, so a page that works only by luck
//! fails here.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener};
use std::path::PathBuf;
use std::time::Duration;

use headless_chrome::protocol::cdp::Page;
use serde_json::Value;

use crate::harness::{Project, TmuxServer, swarm, swarm_bin, wait_for, wait_for_records};

use crate::harness::answers;
use crate::harness::chromium::{BrowserTab, Chromium, assert_fits_a_phone, fit, url};
use crate::harness::dashboard::{Dashboard, Watched};
use crate::harness::watcher::Watch;

use super::populated_project;

fn types_into(page: &BrowserTab, selector: &str, text: &str) {
    page.tab
        .wait_for_element(selector)
        .expect("element")
        .click()
        .expect("focus");
    page.tab.type_str(text).expect("type");
}

#[test]
fn the_page_shows_a_real_project_without_errors_or_csp_violations() {
    let project = populated_project();
    let dash = Dashboard::start(&project);
    let chrome = Chromium::start();
    let page = chrome.tab();
    page.open(&url(&dash));
    page.wait_for_text("#connection", "live");
    let agents = page.wait_for_text("#agents", "agent-0");
    assert!(
        agents.contains("agent-1") && agents.contains("stale"),
        "{agents}"
    );
    let locks = page.wait_for_text("#locks", "src/a.py");
    assert!(
        locks.contains("docs/*") && locks.contains("editing <a>"),
        "{locks}"
    );
    assert!(!locks.contains("old.txt"), "the stale lock is left out");
    let messages = page.wait_for_text("#messages", "schema v2 merged");
    // Agent text shows as text: the markup in it neither runs nor vanishes.
    assert!(
        messages.contains("<script>alert('x')</script> & <img src=x onerror=alert(1)>"),
        "{messages}"
    );
    assert_eq!(
        page.json(
            "JSON.stringify(document.querySelectorAll('#messages img, #messages script').length)"
        ),
        0
    );
    page.wait_for_text("#acks", "agent-1 → agent-0");
    assert_eq!(page.problems(), Vec::<String>::new());

    // The recorder is not blind: an inline script is a violation it sees.
    page.json(
        "(() => { const s = document.createElement('script'); s.textContent = 'window.x = 1'; \
         document.body.append(s); return JSON.stringify(true); })()",
    );
    wait_for("the CSP violation to be recorded", || {
        page.problems()
            .iter()
            .any(|p| p.contains("CSP") && p.contains("script-src"))
            .then_some(())
    });
    assert_eq!(page.json("JSON.stringify(window.x === undefined)"), true);
}

#[test]
fn a_message_sent_with_swarm_msg_appears_without_a_reload() {
    let project = populated_project();
    let dash = Dashboard::start(&project);
    let chrome = Chromium::start();
    let page = chrome.tab();
    page.open(&url(&dash));
    page.wait_for_text("#connection", "live");
    page.wait_for_text("#messages", "schema v2 merged");
    page.json("(() => { window.__samePage = 'yes'; return JSON.stringify(1); })()");
    let out = std::process::Command::new(swarm_bin())
        .current_dir(project.path())
        .env_remove("TMUX")
        .env_remove("TMUX_PANE")
        .env(
            "SWARM_TMUX_SOCKET",
            format!("swarm-test-absent-{}", std::process::id()),
        )
        .args([
            "msg",
            "agent-0",
            "COMPLETED",
            "fresh from the command line",
            "--from",
            "agent-1",
        ])
        .output()
        .expect("swarm msg");
    // Exit 7: queued (no tmux server here), but logged.
    assert!(
        matches!(out.status.code(), Some(0 | 7)),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    page.wait_for_text("#messages", "fresh from the command line");
    assert_eq!(
        page.json("JSON.stringify(window.__samePage)"),
        "yes",
        "no reload"
    );
    assert_eq!(page.problems(), Vec::<String>::new());
}

#[test]
fn a_message_s_thread_button_shows_its_whole_conversation_and_only_it() {
    let project = populated_project();
    // A reply to the first message, and one more message of no thread.
    let mut reply: Value = serde_json::from_str(&super::log_line(
        "5d0b1a2c-0000-4000-8000-000000000010",
        "agent-1",
        &["agent-0"],
        "INFO",
        "2026-11-21T13:30:00.000000+00:00",
        "the reply in the thread",
    ))
    .expect("a log line");
    reply["parent_msg_id"] = "9c2c68bd-7f2c-490f-a333-2015aba90f22".into();
    super::append(&project, &reply.to_string());
    let dash = Dashboard::start(&project);
    let chrome = Chromium::start();
    let page = chrome.tab();
    page.open(&url(&dash));
    page.wait_for_text("#messages", "the reply in the thread");
    let clicked = page.json(
        "(() => { const li = Array.from(document.querySelectorAll('#messages li'))\
           .find((l) => l.textContent.includes('the reply in the thread')); \
         const b = li && Array.from(li.querySelectorAll('button')).find((x) => x.textContent === 'thread'); \
         if (b) b.click(); return JSON.stringify(Boolean(b)); })()",
    );
    assert_eq!(clicked, true, "a thread button on the reply");
    page.wait_for_text("#messages-count", "2 in the thread");
    let shown = page.text("#messages");
    // Oldest first: the question, then its reply; nothing else.
    let (first, second) = (
        shown.find("schema v2 merged").expect("the first message"),
        shown.find("the reply in the thread").expect("the reply"),
    );
    assert!(first < second, "{shown}");
    assert!(!shown.contains("need src/a.py"), "{shown}");
    // The search box says what is shown.
    assert_eq!(
        page.json("JSON.stringify(document.getElementById('search').value)"),
        "thread:5d0b1a2c-0000-4000-8000-000000000010"
    );
    assert_eq!(page.problems(), Vec::<String>::new());
}

#[test]
fn a_message_sent_from_the_page_reaches_the_agents_pane() {
    let server = TmuxServer::start();
    let project = Project::new();
    let record = project.file("rec.jsonl");
    let pane = server.demo_agent(&project.path(), &record);
    swarm(&project, &server).arg("discover").assert().success();
    let dash = Dashboard::with(&project, &[("SWARM_TMUX_SOCKET", &server.socket)], &[]);
    let chrome = Chromium::start();
    let page = chrome.tab();
    page.open(&url(&dash));
    page.wait_for_text("#compose-to", "agent-0");
    page.json(
        "(() => { document.getElementById('compose-to').value = 'agent-0'; \
         document.getElementById('compose-type').value = 'QUESTION'; return JSON.stringify(1); })()",
    );
    types_into(&page, "#compose-text", "does the page reach you?");
    page.tab
        .find_element("#compose-send")
        .expect("send button")
        .click()
        .expect("click");
    let result = page.wait_for_text("#action-result", "Sent QUESTION");
    assert!(result.contains("agent-0: delivered"), "{result}");
    let got = wait_for_records(&record, 1);
    let text = got[0]["text"].as_str().expect("text");
    assert!(
        text.contains("operator")
            && text.contains("QUESTION")
            && text.contains("does the page reach you?"),
        "{text}"
    );
    server.wait_for_screen(&pane, "does the page reach you?");
    // The message is on the page too, from the log, as any other.
    page.wait_for_text("#messages", "does the page reach you?");
    assert_eq!(page.problems(), Vec::<String>::new());
}

#[test]
fn the_page_shows_screen_states_and_held_messages() {
    let server = TmuxServer::start();
    let project = Project::new();
    let pane = server.demo_agent(&project.path(), &project.file("rec.jsonl"));
    swarm(&project, &server).arg("discover").assert().success();
    server.tmux(&["send-keys", "-t", &pane, "-l", "--", "a person types"]);
    server.wait_for_screen(&pane, "> a person types");
    let out = swarm(&project, &server)
        .args([
            "msg",
            "agent-0",
            "INFO",
            "--from",
            "operator",
            "--",
            "held for later",
        ])
        .output()
        .expect("run");
    assert!(String::from_utf8_lossy(&out.stdout).contains("[HELD]"));
    let dash = Dashboard::with(&project, &[("SWARM_TMUX_SOCKET", &server.socket)], &[]);
    let chrome = Chromium::start();
    let page = chrome.tab();
    page.open(&url(&dash));
    page.wait_for_text("#agents", "typing");
    let held = page.wait_for_text("#held", "held for later");
    assert!(held.contains("agent-0"), "{held}");
    assert!(held.contains("someone is typing"), "{held}");
    assert_eq!(
        page.json("JSON.stringify(document.getElementById('held-release').hidden)"),
        serde_json::json!(false),
        "the release button shows while something is held"
    );
    // The person clears the line: the message goes in by itself and the
    // page shows the agent idle and nothing held.
    server.tmux(&["send-keys", "-t", &pane, "C-u"]);
    wait_for("the page to show nothing held", || {
        (page.json("JSON.stringify(document.getElementById('held-empty').hidden)")
            == serde_json::json!(false))
        .then_some(())
    });
    page.wait_for_text("#agents", "idle");
    assert_eq!(page.problems(), Vec::<String>::new());
}

/// Taps the needs-you button of option `option` (its number).
fn tap_option(page: &BrowserTab, option: &str) {
    page.tab
        .wait_for_element(&format!(
            "#needs button[data-option=\"{option}\"]:not([disabled])"
        ))
        .expect("the option's button")
        .click()
        .expect("tap");
}

/// On a phone (390 x 844 CSS px): an agent waiting in a dialog comes
/// first, with its question, its options as buttons big enough to tap
/// and its screen, nothing wider than the window; a tap answers it, and
/// a dialog without numbers is answered by its label's position.
#[test]
fn on_a_phone_a_waiting_dialog_is_answered_with_one_tap() {
    let Watched {
        server,
        project: _project,
        record,
        pane,
        watch: _watch,
        dash,
    } = Watched::start();
    let chrome = Chromium::start();
    let page = chrome.tab();
    page.as_phone();
    page.open(&url(&dash));
    page.wait_for_text("#connection", "live");
    page.wait_for_text("#needs-empty", "Nobody needs you");

    server.type_line(&pane, "run it DEMOASK");
    let card = page.wait_for_text("#needs", "2. No");
    assert!(
        card.contains("agent-0") && card.contains("needs you"),
        "{card}"
    );
    assert!(card.contains("Do you want to proceed?"), "{card}");
    assert!(
        card.contains("1. Yes") && card.contains("Cancel (Esc)"),
        "{card}"
    );
    // Its live screen is there too, cleaned.
    let screen = page.wait_for_text("#needs pre.screen", "? Do you want to proceed?");
    assert!(screen.contains("Esc to cancel"), "{screen}");
    // The section is the first thing on the page.
    assert_eq!(
        page.json("JSON.stringify(document.querySelector('main > section').id)"),
        "needs-section"
    );
    let fit = fit(&page);
    assert_eq!(fit["inner"], 390, "{fit}");
    assert!(
        fit["scroll"].as_f64() <= fit["inner"].as_f64(),
        "the page is wider than the window: {fit}"
    );
    assert_eq!(fit["buttons"], 4, "Yes, No, Cancel and Send: {fit}");
    assert!(
        fit["narrowest"].as_f64() >= Some(44.0) && fit["lowest"].as_f64() >= Some(44.0),
        "a button smaller than 44 x 44 px: {fit}"
    );
    assert!(
        fit["body_font"].as_f64() >= Some(14.0) && fit["question_font"].as_f64() >= Some(16.0),
        "{fit}"
    );

    tap_option(&page, "2");
    page.wait_for_text("#needs", "Answered: 2. No");
    wait_for("the demo agent's answer", || {
        (!answers(&record).is_empty()).then_some(())
    });
    assert_eq!(answers(&record), ["no"]);
    // The watcher sees the dialog go; the card goes with it.
    wait_for("the card to go", || {
        (page.json("JSON.stringify(document.getElementById('needs-empty').hidden)")
            == Value::Bool(false))
        .then_some(())
    });
    page.wait_for_text("#activity", "answered");

    // No listed first and no numbers, under the answered dialog still on
    // screen: only the arrows and Enter pick.
    server.type_line(&pane, "again DEMOASKNO");
    let card = page.wait_for_text("#needs", "2. Yes");
    assert!(card.contains("1. No"), "{card}");
    let fit = self::fit(&page);
    assert!(fit["scroll"].as_f64() <= fit["inner"].as_f64(), "{fit}");
    tap_option(&page, "2");
    wait_for("the second answer", || {
        (answers(&record).len() == 2).then_some(())
    });
    assert_eq!(answers(&record), ["no", "yes"]);
    assert_eq!(page.problems(), Vec::<String>::new());
}

/// At 390 px the rest of the page fits too, with every section shown.
#[test]
fn on_a_phone_nothing_is_wider_than_the_window() {
    let project = populated_project();
    let dash = Dashboard::start(&project);
    let chrome = Chromium::start();
    let page = chrome.tab();
    page.as_phone();
    page.open(&url(&dash));
    page.wait_for_text("#connection", "live");
    page.wait_for_text("#locks", "src/a.py");
    page.wait_for_text("#messages", "schema v2 merged");
    assert_fits_a_phone(&page);
    assert_eq!(page.problems(), Vec::<String>::new());
}

/// For each cell of column `column` (0-based) of the table body
/// `selector`: its text and the characters after which the browser broke
/// it onto a new line (found by where each character is drawn).
fn line_breaks(page: &BrowserTab, selector: &str, column: usize) -> Vec<(String, Vec<String>)> {
    let js = format!(
        r#"JSON.stringify(Array.from(document.querySelectorAll({selector:?} + ' tr')).map((tr) => {{
  const cell = tr.children[{column}];
  const chars = [];
  const walk = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
  for (let node = walk.nextNode(); node; node = walk.nextNode()) {{
    for (let i = 0; i < node.length; i++) {{
      const range = document.createRange();
      range.setStart(node, i);
      range.setEnd(node, i + 1);
      const rect = range.getClientRects()[0];
      if (rect) chars.push([node.data[i], rect.top, rect.height]);
    }}
  }}
  const breaks = [];
  for (let i = 1; i < chars.length; i++) {{
    if (chars[i][1] > chars[i - 1][1] + chars[i - 1][2] / 2) breaks.push(chars[i - 1][0]);
  }}
  return [cell.textContent, breaks];
}}))"#
    );
    serde_json::from_value(page.json(&js)).expect("cells")
}

/// At 1300 px, a width people use, the locks table keeps agent ids whole
/// and breaks a path only after a `/`.
#[test]
fn the_locks_table_breaks_paths_only_at_slashes_and_never_an_agent_id() {
    let project = Project::new();
    let ids: Vec<String> = (0..12).map(|i| format!("agent-{i}")).collect();
    project.register(&ids.iter().map(String::as_str).collect::<Vec<_>>());
    for (path, holder, reason) in [
        ("src/main.rs", "agent-0", None),
        (
            "src/dashboard/assets/style.css",
            "agent-1",
            Some("the locks table breaks words in the middle at some widths"),
        ),
        (
            "tests/dashboard/browser.rs",
            "agent-11",
            Some("a check at 1300 px"),
        ),
        ("docs/*", "agent-2", Some("rewriting the guides")),
        (
            "src/setup/mcp_config.rs",
            "agent-10",
            Some("modes of the files people commit"),
        ),
    ] {
        let mut args = vec!["lock", path, "--agent", holder];
        if let Some(reason) = reason {
            args.extend(["--reason", reason]);
        }
        super::swarm_ok(&project, &args);
    }
    let dash = Dashboard::start(&project);
    let chrome = Chromium::sized(1300, 900);
    let page = chrome.tab();
    page.open(&url(&dash));
    page.wait_for_text("#locks", "src/setup/mcp_config.rs");
    for (holder, breaks) in line_breaks(&page, "#locks", 1) {
        assert!(breaks.is_empty(), "{holder:?} is broken after {breaks:?}");
    }
    for (path, breaks) in line_breaks(&page, "#locks", 0) {
        assert!(
            breaks.iter().all(|c| c == "/"),
            "{path:?} is broken after {breaks:?}"
        );
    }
    assert_eq!(page.problems(), Vec::<String>::new());
}

/// Serves `html` to every request, from another origin than the
/// dashboard's (another port of this machine).
fn other_origin(html: String) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr");
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(mut conn) = conn else { return };
            let _ = conn.set_read_timeout(Some(Duration::from_secs(5)));
            let mut head = Vec::new();
            let mut byte = [0u8; 1];
            while !head.ends_with(b"\r\n\r\n") && head.len() < 16_384 {
                match conn.read(&mut byte) {
                    Ok(1) => head.push(byte[0]),
                    _ => break,
                }
            }
            let _ = write!(
                conn,
                "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\n\
                 Connection: close\r\n\r\n{html}",
                html.len()
            );
        }
    });
    addr
}

#[test]
fn a_page_from_another_origin_cannot_act_or_read() {
    let project = populated_project();
    let dash = Dashboard::start(&project);
    let target = format!("http://{}", dash.addr);
    // What a hostile page would try: a simple POST that needs no
    // preflight, a JSON POST with a guessed token (preflighted), a plain
    // form post, and reading the messages.
    let html = format!(
        r#"<!doctype html><html><body>
<form id="f" method="POST" action="{target}/api/v1/actions/send" enctype="text/plain" target="sink">
<input name='{{"to":"agent-1","type":"INFO","content":"evil form","x":"' value='"}}'></form>
<iframe name="sink"></iframe>
<script>
window.results = {{}};
async function attempt(name, f) {{
  try {{ const r = await f(); window.results[name] = r && r.type === 'opaque' ? 'opaque' : (r ? r.status : 'done'); }}
  catch (e) {{ window.results[name] = 'blocked'; }}
}}
window.done = Promise.all([
  attempt('simple', () => fetch('{target}/api/v1/actions/send', {{method: 'POST', mode: 'no-cors',
    headers: {{'Content-Type': 'text/plain'}},
    body: JSON.stringify({{to: 'agent-1', type: 'INFO', content: 'evil simple'}})}})),
  attempt('json', () => fetch('{target}/api/v1/actions/send', {{method: 'POST',
    headers: {{'Content-Type': 'application/json', 'X-Swarm-Token': 'guess'}},
    body: JSON.stringify({{to: 'agent-1', type: 'INFO', content: 'evil json'}})}})),
  attempt('unlock', () => fetch('{target}/api/v1/actions/unlock', {{method: 'POST', mode: 'no-cors',
    headers: {{'Content-Type': 'text/plain'}}, body: JSON.stringify({{path: 'src/a.py'}})}})),
  attempt('read', () => fetch('{target}/api/v1/messages').then((r) => r.json())),
  new Promise((resolve) => {{
    document.querySelector('iframe').addEventListener('load', resolve);
    document.getElementById('f').submit();
  }}),
]).then(() => JSON.stringify(window.results));
</script></body></html>"#
    );
    let evil = other_origin(html);
    let chrome = Chromium::start();
    let page = chrome.tab();
    page.open(&format!("http://{evil}/"));
    let results = page.json("window.done");
    // The JSON post never left the preflight; reading was refused.
    assert_eq!(results["json"], "blocked", "{results}");
    assert_eq!(results["read"], "blocked", "{results}");
    let log = std::fs::read_to_string(project.file("agent_messages.log")).expect("log");
    assert!(!log.contains("evil"), "a cross-origin request acted: {log}");
    assert_eq!(
        dash.get("/api/v1/locks").json()["count"],
        2,
        "no lock released"
    );
    assert!(!project.file(".swarm/audit.log").exists());

    // A foreign name pointed at this machine (DNS rebinding) gets nothing.
    let rebound = format!("http://rebound.evil.test:{}/", dash.addr.port());
    page.open(&rebound);
    let body = page.text("body");
    assert!(body.contains("Host not allowed"), "{body}");
    assert!(
        !body.contains("agent-0") && !body.contains("schema"),
        "{body}"
    );
    let api = page.json(
        "fetch('/api/v1/messages').then((r) => r.text().then((t) => JSON.stringify([r.status, t])))",
    );
    assert_eq!(api[0], 403, "{api}");
    assert!(
        !api[1].as_str().unwrap_or_default().contains("schema"),
        "{api}"
    );
}

#[test]
fn with_a_password_set_nothing_loads_without_it() {
    let project = populated_project();
    let dash = Dashboard::with(
        &project,
        &[
            ("DASHBOARD_USERNAME", "alice"),
            ("DASHBOARD_PASSWORD", "s3cret pw"),
        ],
        &[],
    );
    let chrome = Chromium::start();
    let page = chrome.tab();
    // Headless Chromium has nobody to ask for the password: the page
    // fails to load, and nothing of the swarm is shown.
    let refused = page
        .tab
        .navigate_to(&url(&dash))
        .and_then(|t| t.wait_until_navigated().map(|_| ()));
    let why = refused.expect_err("the page must not load without the password");
    assert!(why.to_string().contains("AUTH"), "{why}");
    let body = page.text("body");
    assert!(
        !body.contains("agent-0") && !body.contains("schema"),
        "{body}"
    );
    assert_eq!(
        page.json("JSON.stringify(document.getElementById('agents'))"),
        Value::Null
    );
    // With the credentials, the same page loads.
    page.tab
        .set_extra_http_headers(
            [("Authorization", "Basic YWxpY2U6czNjcmV0IHB3")]
                .into_iter()
                .collect(),
        )
        .expect("headers");
    page.open(&url(&dash));
    page.wait_for_text("#agents", "agent-0");
    page.wait_for_text("#connection", "live");
}

/// Writes docs/dashboard.png: three demo agents at work, one of them
/// waiting for permission (raised by the project's watcher), a message
/// to the person, locks, a pending ACK and a few messages. Run by
/// scripts/screenshot; `SWARM_SCREENSHOT_PHONE=path` also writes the page
/// as a phone shows it.
#[test]
#[ignore = "writes docs/dashboard.png; run scripts/screenshot"]
fn screenshot() {
    let server = TmuxServer::start();
    let project = Project::new();
    let panes: Vec<String> = (0..3)
        .map(|i| server.demo_agent(&project.path(), &project.file(&format!("rec-{i}.jsonl"))))
        .collect();
    swarm(&project, &server).arg("discover").assert().success();
    let run = |args: &[&str]| {
        swarm(&project, &server).args(args).output().expect("swarm");
    };
    run(&[
        "lock",
        "src/auth/*.py",
        "--agent",
        "agent-0",
        "--reason",
        "JWT refactor",
    ]);
    run(&[
        "lock",
        "docs/API.md",
        "--agent",
        "agent-2",
        "--reason",
        "documenting the v2 schema",
    ]);
    run(&[
        "msg",
        "agent-1",
        "BLOCKED",
        "need src/auth/session.py, locked by agent-0",
        "--from",
        "agent-2",
    ]);
    run(&[
        "broadcast",
        "INFO",
        "schema v2 merged; rebase before you push",
        "--from",
        "agent-0",
    ]);
    run(&[
        "msg",
        "agent-0",
        "QUESTION",
        "can I take tests/auth next?",
        "--from",
        "agent-1",
        "--ack",
    ]);
    run(&[
        "msg",
        "agent-2",
        "COMPLETED",
        "API docs updated for v2",
        "--from",
        "agent-1",
    ]);
    let _watch = Watch::start(&project, &server);
    server.type_line(&panes[0], "run the migration DEMOASK");
    server.wait_for_screen(&panes[0], "Do you want to proceed?");
    run(&[
        "msg",
        "operator",
        "QUESTION",
        "API docs are done: merge them now or after the review?",
        "--from",
        "agent-2",
    ]);
    let dash = Dashboard::with(&project, &[("SWARM_TMUX_SOCKET", &server.socket)], &[]);
    let chrome = Chromium::start();
    let page = chrome.tab();
    page.open(&url(&dash));
    page.wait_for_text("#connection", "live");
    page.wait_for_text("#needs", "2. No");
    page.wait_for_text("#needs", "merge them now");
    page.wait_for_text("#messages", "API docs updated");
    page.wait_for_text("#acks", "agent-1 → agent-0");
    page.json(
        "(() => { document.getElementById('compose-to').value = 'agent-1'; \
         document.getElementById('compose-text').value = 'tests/auth is yours after agent-0 is done'; \
         return JSON.stringify(1); })()",
    );
    let png = page
        .tab
        .capture_screenshot(Page::CaptureScreenshotFormatOption::Png, None, None, true)
        .expect("screenshot");
    let out = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs/dashboard.png");
    std::fs::write(&out, png).expect("write the screenshot");
    if let Some(phone) = std::env::var_os("SWARM_SCREENSHOT_PHONE") {
        let small = chrome.tab();
        small.as_phone();
        small.open(&url(&dash));
        small.wait_for_text("#needs", "2. No");
        let png = small
            .tab
            .capture_screenshot(Page::CaptureScreenshotFormatOption::Png, None, None, true)
            .expect("screenshot");
        std::fs::write(phone, png).expect("write the phone's screenshot");
    }
}
