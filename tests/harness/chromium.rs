//! A headless Chromium (Debian's `chromium`, driven over the DevTools
//! protocol) for the dashboard's browser tests: a fresh profile per
//! browser, and every CSP violation, uncaught error and console warning of
//! its pages where a test can read them.

use std::ffi::OsStr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use headless_chrome::protocol::cdp::types::Event;
use headless_chrome::protocol::cdp::{Emulation, Page, Runtime};
use headless_chrome::{Browser, LaunchOptions, Tab};
use serde_json::Value;

use super::dashboard::Dashboard;
use super::wait_for;

/// The `chromium` binary; fails the test (never skips it) when missing.
fn chromium() -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|d| d.join("chromium"))
        .find(|p| p.is_file())
        .unwrap_or_else(|| {
            panic!(
                "chromium is not installed: the browser tests need Debian's `chromium` package; \
                 run scripts/setup chromium (as root it installs it with apt-get)"
            )
        })
}

/// Installed before any script of the page runs: records CSP violations
/// and uncaught errors where the test can read them.
const RECORDER: &str = r#"
window.__swarmProblems = [];
document.addEventListener('securitypolicyviolation', (e) => {
  window.__swarmProblems.push('CSP: ' + e.violatedDirective + ' blocked ' + (e.blockedURI || 'inline'));
});
window.addEventListener('error', (e) => {
  window.__swarmProblems.push('error: ' + (e.message || e.type));
});
"#;

/// A browser with a fresh profile, and what its page reported.
pub struct Chromium {
    pub browser: Browser,
    _profile: tempfile::TempDir,
}

/// One tab and everything its pages wrote to the console.
pub struct BrowserTab {
    pub tab: Arc<Tab>,
    pub console: Arc<Mutex<Vec<String>>>,
}

impl Chromium {
    pub fn start() -> Chromium {
        Chromium::sized(1280, 1100)
    }

    /// A browser whose window (the page's viewport) is `width` x `height`.
    pub fn sized(width: u32, height: u32) -> Chromium {
        let profile = tempfile::tempdir().expect("profile dir");
        let args: Vec<&OsStr> = [
            "--headless",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            // Stands for DNS pointing a foreign name at this machine, as
            // a rebinding attack makes it.
            "--host-resolver-rules=MAP rebound.evil.test 127.0.0.1",
        ]
        .iter()
        .map(OsStr::new)
        .collect();
        let options = LaunchOptions {
            headless: true,
            sandbox: false,
            path: Some(chromium()),
            user_data_dir: Some(profile.path().to_owned()),
            window_size: Some((width, height)),
            idle_browser_timeout: Duration::from_secs(300),
            args,
            ..LaunchOptions::default()
        };
        let browser = Browser::new(options).expect("start chromium");
        Chromium {
            browser,
            _profile: profile,
        }
    }

    pub fn tab(&self) -> BrowserTab {
        let tab = self.browser.new_tab().expect("a tab");
        tab.set_default_timeout(crate::harness::PATIENCE);
        let console = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&console);
        tab.add_event_listener(Arc::new(move |event: &Event| {
            let line = match event {
                Event::LogEntryAdded(e) => Some(format!(
                    "log {:?} {:?}: {}",
                    e.params.entry.level, e.params.entry.source, e.params.entry.text
                )),
                Event::RuntimeConsoleAPICalled(e) => Some(format!(
                    "console.{:?}: {:?}",
                    e.params.Type,
                    e.params
                        .args
                        .iter()
                        .map(|a| a.value.clone().unwrap_or(Value::Null))
                        .collect::<Vec<_>>()
                )),
                Event::RuntimeExceptionThrown(e) => {
                    Some(format!("exception: {}", e.params.exception_details.text))
                }
                _ => None,
            };
            if let Some(line) = line {
                sink.lock().expect("console").push(line);
            }
        }))
        .expect("listen");
        tab.enable_log().expect("log domain");
        tab.enable_runtime().expect("runtime domain");
        tab.call_method(Page::AddScriptToEvaluateOnNewDocument {
            source: RECORDER.into(),
            world_name: None,
            include_command_line_api: None,
            run_immediately: None,
        })
        .expect("recorder");
        BrowserTab { tab, console }
    }
}

impl BrowserTab {
    /// Makes the tab a phone's screen: 390 x 844 CSS pixels at three
    /// device pixels each, with the page's viewport meta applied (a
    /// window of its own cannot be narrower than 500 px).
    pub fn as_phone(&self) {
        self.tab
            .call_method(Emulation::SetDeviceMetricsOverride {
                width: 390,
                height: 844,
                device_scale_factor: 3.0,
                mobile: true,
                scale: None,
                screen_width: None,
                screen_height: None,
                position_x: None,
                position_y: None,
                dont_set_visible_size: None,
                screen_orientation: None,
                viewport: None,
                display_feature: None,
                device_posture: None,
            })
            .expect("phone metrics");
    }

    pub fn open(&self, url: &str) {
        self.tab
            .navigate_to(url)
            .expect("navigate")
            .wait_until_navigated()
            .expect("loaded");
    }

    /// Evaluates `js`, which must produce a string (awaited when it is a
    /// promise), and parses it as JSON.
    pub fn json(&self, js: &str) -> Value {
        let result: Runtime::RemoteObject = self
            .tab
            .evaluate(js, true)
            .unwrap_or_else(|e| panic!("evaluate {js}: {e}"));
        let text = result
            .value
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_else(|| panic!("{js} gave no string: {:?}", result.description));
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{js}: {e}: {text}"))
    }

    /// The text of the element `selector` ("" when there is none).
    pub fn text(&self, selector: &str) -> String {
        let js = format!(
            "JSON.stringify((document.querySelector({selector:?}) || {{}}).textContent || '')"
        );
        self.json(&js).as_str().unwrap_or_default().to_owned()
    }

    /// Waits until the element `selector` contains `wanted`.
    pub fn wait_for_text(&self, selector: &str, wanted: &str) -> String {
        wait_for(&format!("{wanted:?} in {selector}"), || {
            let text = self.text(selector);
            text.contains(wanted).then_some(text)
        })
    }

    /// CSP violations and errors the page recorded, and every console
    /// message at warning level or above.
    pub fn problems(&self) -> Vec<String> {
        let mut all: Vec<String> = self
            .json("JSON.stringify(window.__swarmProblems || ['recorder missing'])")
            .as_array()
            .expect("list")
            .iter()
            .map(|v| v.as_str().unwrap_or_default().to_owned())
            .collect();
        all.extend(
            self.console
                .lock()
                .expect("console")
                .iter()
                .filter(|l| {
                    l.starts_with("exception")
                        || l.contains("Error")
                        || l.contains("Warning")
                        || l.starts_with("console.Error")
                        || l.starts_with("console.Warning")
                })
                .cloned(),
        );
        all
    }
}

/// The URL the dashboard printed: its secret lets the browser in.
pub fn url(dash: &Dashboard) -> String {
    dash.url()
}

/// How the page fits a window: its widest part against the window, and
/// the smallest answer or send button of the needs-you section.
pub fn fit(page: &BrowserTab) -> Value {
    page.json(
        r#"JSON.stringify((() => {
  const buttons = Array.from(document.querySelectorAll('#needs .need-options button, #needs .need-send button'));
  const sizes = buttons.map((b) => b.getBoundingClientRect());
  const font = (sel) => {
    const node = document.querySelector(sel);
    return node ? parseFloat(getComputedStyle(node).fontSize) : null;
  };
  return {
    inner: window.innerWidth,
    scroll: Math.max(document.documentElement.scrollWidth, document.body.scrollWidth),
    buttons: buttons.length,
    narrowest: Math.min(...sizes.map((r) => r.width)),
    lowest: Math.min(...sizes.map((r) => r.height)),
    body_font: font('body'),
    question_font: font('#needs .need-question'),
  };
})())"#,
    )
}

/// Nothing on the page is wider than a phone's 390 px window.
pub fn assert_fits_a_phone(page: &BrowserTab) {
    let fit = fit(page);
    assert_eq!(fit["inner"], 390, "{fit}");
    assert!(
        fit["scroll"].as_f64() <= fit["inner"].as_f64(),
        "the page is wider than the window: {fit}"
    );
}
