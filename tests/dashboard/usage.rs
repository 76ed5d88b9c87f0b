//! Usage on the dashboard: `GET /api/v1/usage?series=hour` (each agent's
//! tokens per hour over the last day, bounded whatever the number of
//! records; tokens only for a model without a price), and the page's
//! usage section with its chart in a real browser, at desktop and phone
//! width.

use std::fmt::Write as _;

use serde_json::{Value, json};

use crate::harness::chromium::{BrowserTab, Chromium, assert_fits_a_phone, url};
use crate::harness::dashboard::Dashboard;
use crate::harness::usage::{append, spending_agent};
use crate::harness::{Project, TmuxServer};

/// `count` Claude Code responses of one input and one output token each,
/// by a model without a price, without their times (counted when read).
fn many_turns(count: usize) -> String {
    let mut out = String::new();
    for i in 0..count {
        let _ = writeln!(
            out,
            r#"{{"type":"assistant","requestId":"r{i}","message":{{"id":"m{i}","model":"model-without-a-price","usage":{{"input_tokens":1,"output_tokens":1,"cache_creation_input_tokens":0,"cache_read_input_tokens":2}}}}}}"#
        );
    }
    out
}

fn agent<'a>(body: &'a Value, id: &str) -> &'a Value {
    body["agents"]
        .as_array()
        .expect("agents")
        .iter()
        .find(|a| a["agent"] == id)
        .unwrap_or_else(|| panic!("{id} not in {body}"))
}

fn series(body: &Value, id: &str) -> Vec<u64> {
    body["series"]["agents"]
        .as_array()
        .expect("series")
        .iter()
        .find(|a| a["agent"] == id)
        .unwrap_or_else(|| panic!("{id} not in the series of {body}"))["tokens"]
        .as_array()
        .expect("tokens")
        .iter()
        .map(|v| v.as_u64().expect("a count"))
        .collect()
}

#[test]
fn the_usage_series_gives_each_agent_a_day_of_hours() {
    let server = TmuxServer::start();
    let project = Project::new();
    let scratch = tempfile::tempdir().expect("tempdir");
    let (a, _) = spending_agent(&server, &project, &scratch.path().join("a"), "a");
    let (b, b_file) = spending_agent(&server, &project, &scratch.path().join("b"), "b");
    append(&b_file, &many_turns(5000));
    let dash = Dashboard::with(&project, &[("SWARM_TMUX_SOCKET", &server.socket)], &[]);

    // Without a series, the answer is `swarm usage --json`'s.
    let plain = dash.get("/api/v1/usage").json();
    assert!(plain.get("series").is_none(), "{plain}");

    let body = dash.get("/api/v1/usage?series=hour").json();
    assert_eq!(body["series"]["step"], "hour");
    assert_eq!(body["series"]["step_secs"], 3600);
    let (sa, sb) = (series(&body, &a), series(&body, &b));
    assert_eq!((sa.len(), sb.len()), (24, 24));
    // Counted when read, so in the current hour (or the one before, when
    // the hour turned between reading and answering).
    assert_eq!(sa.iter().sum::<u64>(), 30, "{sa:?}");
    assert_eq!(sa[22] + sa[23], 30, "{sa:?}");
    assert_eq!(sb.iter().sum::<u64>(), 30 + 10_000, "{sb:?}");
    // An unpriced model: its tokens count, no cost.
    let b_usage = agent(&body, &b);
    assert_eq!(b_usage["tokens"]["input"], 20 + 5000, "{b_usage}");
    assert_eq!(b_usage["tokens"]["cache_read"], 10_000, "{b_usage}");
    assert!(b_usage["cost"].is_null(), "{b_usage}");
    assert_eq!(
        b_usage["unpriced"],
        json!(["model-without-a-price", "claude-opus-5-5"]),
        "{b_usage}"
    );

    let bad = dash.get("/api/v1/usage?series=minute");
    assert_eq!(bad.status, 422, "{}", bad.text());
    assert!(bad.text().contains("hour"), "{}", bad.text());
}

#[test]
fn without_usage_the_series_is_empty() {
    let project = Project::new();
    let dash = Dashboard::start(&project);
    let body = dash.get("/api/v1/usage?series=hour").json();
    assert_eq!(body["agents"], json!([]));
    assert_eq!(body["series"]["agents"], json!([]));
    assert!(body["series"]["start"].is_string(), "{body}");
}

/// The usage card and chart of agent `id` as the page drew them.
fn drawn(page: &BrowserTab, id: &str) -> Value {
    page.json(&format!(
        r#"JSON.stringify((() => {{
  const card = Array.from(document.querySelectorAll('#usage .usage-card')).find((c) => c.dataset.agent === {id:?});
  if (!card) return null;
  const svg = card.querySelector('svg.usage-chart');
  return {{
    text: card.textContent,
    input: card.querySelector('[data-kind="input"] dd').textContent,
    output: card.querySelector('[data-kind="output"] dd').textContent,
    chart: svg ? svg.dataset.agent : null,
    bars: svg ? Array.from(svg.querySelectorAll('rect')).map((r) => Number(r.dataset.tokens)) : [],
    chart_width: svg ? svg.getBoundingClientRect().width : 0,
  }};
}})())"#
    ))
}

#[test]
fn the_page_shows_each_agents_usage_and_chart_also_on_a_phone() {
    let server = TmuxServer::start();
    let project = Project::new();
    let scratch = tempfile::tempdir().expect("tempdir");
    let (a, _) = spending_agent(&server, &project, &scratch.path().join("a"), "a");
    let (b, b_file) = spending_agent(&server, &project, &scratch.path().join("b"), "b");
    append(&b_file, &many_turns(2000));
    project.write(".claudeswarm.toml", "[budget]\nagent_tokens = 40\n");
    let dash = Dashboard::with(&project, &[("SWARM_TMUX_SOCKET", &server.socket)], &[]);
    let chrome = Chromium::start();
    for phone in [false, true] {
        let page = chrome.tab();
        if phone {
            page.as_phone();
        }
        page.open(&url(&dash));
        page.wait_for_text("#usage", &b);
        let one = drawn(&page, &a);
        assert_eq!(one["chart"], a.as_str(), "{one}");
        assert_eq!(
            (&one["input"], &one["output"]),
            (&json!("20"), &json!("10"))
        );
        assert_eq!(one["bars"], json!([30]), "{one}");
        let text = one["text"].as_str().unwrap_or_default();
        assert!(text.contains("claude-opus-5-5"), "{text}");
        assert!(text.contains("75% of day budget"), "{text}");
        assert!(text.contains("cost unknown"), "{text}");
        let two = drawn(&page, &b);
        assert_eq!(two["chart"], b.as_str(), "{two}");
        assert_eq!(two["bars"], json!([4030]), "{two}");
        assert_eq!(two["input"], "2.0k", "{two}");
        assert!(
            two["text"]
                .as_str()
                .is_some_and(|t| t.contains("over budget")),
            "{two}"
        );
        assert!(one["chart_width"].as_f64() > Some(100.0), "{one}");
        if phone {
            assert_fits_a_phone(&page);
        }
        assert_eq!(page.problems(), Vec::<String>::new());
    }
}
