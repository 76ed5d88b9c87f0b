//! The webhook channel: each notification is POSTed to one URL, over
//! HTTP or HTTPS (rustls), with bounded timeouts and retries.
//!
//! What the server receives depends on who it is:
//!
//! * ntfy (a host `ntfy.sh`, `*.ntfy.sh`, or whose first label is `ntfy`,
//!   as self-hosted servers are usually named): ntfy shows a request's
//!   body as the message, so it gets the plain text of `Webhook::request`
//!   (`agent-1 needs you: Do you want to proceed?`) as
//!   `text/plain; charset=utf-8`, with the headers `Title` (`swarm: agent-1
//!   needs you`), `Tags` (the event's kind), `Priority: high` for
//!   `needs_input` and `exited`, and `Click` (the dashboard link) when
//!   there is one.
//! * everyone else: `application/json`, the feed entry's own object
//!   (`FeedEntry::to_json`, a line of `.swarm/feed.jsonl`: `time`,
//!   `event`, `agent`, `detail`, and `host`, `episode`, `options`,
//!   `msg_id`, `by` when set)
//!   with three more: `text`, the same one line (Slack shows `text`),
//!   `content`, the same again (Discord shows `content`), and `link`, the
//!   dashboard's URL, when there is one. For example:
//!
//! ```json
//! {"time": "2026-11-26T08:00:00.000000+00:00", "event": "needs_input",
//!  "agent": "agent-1", "detail": "Do you want to proceed?", "episode": 3,
//!  "options": [{"number": 1, "label": "Yes", "highlighted": true}],
//!  "text": "agent-1 needs you: Do you want to proceed?",
//!  "content": "agent-1 needs you: Do you want to proceed?",
//!  "link": "http://localhost:8080/"}
//! ```
//!
//! A server at another address is never guessed to be ntfy from its path
//! alone: a JSON receiver at `https://example.com/hook` would then get
//! plain text. `text` and `content` are cut to 2000 characters.
//!
//! The URL is a secret (anyone who has an ntfy topic's URL can read it):
//! a failure names the host only.

use std::fmt;
use std::sync::mpsc::Sender;
use std::thread;
use std::time::{Duration, Instant};

use backon::{BackoffBuilder, ExponentialBuilder};
use serde_json::Value;

use crate::attention::event::{EventKind, FeedEntry};
use crate::domain::validate;

use super::delivery::{Channel, Delivery, in_background};
use super::message;

/// How long connecting may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// How long one whole request may take, answer included.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// Attempts in all, the first included.
const ATTEMPTS: usize = 4;

/// The wait before the second attempt; it doubles for each further one.
const FIRST_RETRY_AFTER: Duration = Duration::from_millis(500);

/// What one notification costs at most in the background: every attempt
/// at its whole timeout, and the waits between.
pub(super) const WORST_CASE: Duration = Duration::from_secs(50);

/// One webhook: its URL, how its server wants the body, and a client.
#[derive(Clone)]
pub(super) struct Webhook {
    url: String,
    host: String,
    form: Form,
    agent: ureq::Agent,
}

/// The shape of the body a server gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Form {
    /// The feed entry's JSON object with `text`, `content` and `link`.
    Json,
    /// ntfy's: the text as the body, the rest in headers.
    Ntfy,
}

impl Form {
    /// The form the server at `url` reads (see the module's comment).
    pub(super) fn of(url: &str) -> Form {
        let host = validate::url_host(url);
        let name = host
            .rsplit_once(':')
            .filter(|(_, port)| port.chars().all(|c| c.is_ascii_digit()))
            .map_or(host, |(name, _)| name)
            .to_ascii_lowercase();
        if name == "ntfy.sh" || name.ends_with(".ntfy.sh") || name.starts_with("ntfy.") {
            Form::Ntfy
        } else {
            Form::Json
        }
    }
}

/// One request, before it is sent: what a test can look at.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Request {
    /// `Content-Type`.
    pub content_type: &'static str,
    /// Further headers.
    pub headers: Vec<(&'static str, String)>,
    /// The body.
    pub body: Vec<u8>,
}

/// Why one attempt failed, and whether another may do better.
struct Attempt {
    reason: String,
    retry: bool,
}

impl Webhook {
    /// The webhook at `url` (checked by the config, `validate::webhook_url`).
    pub(super) fn new(url: &str) -> Webhook {
        let agent = ureq::Agent::config_builder()
            .timeout_connect(Some(CONNECT_TIMEOUT))
            .timeout_global(Some(REQUEST_TIMEOUT))
            // A 4xx or 5xx is an answer to read the status of, not an
            // error without one.
            .http_status_as_error(false)
            // A POST is not followed elsewhere: the answer says where.
            .max_redirects(0)
            .user_agent(concat!("swarm/", env!("CARGO_PKG_VERSION")))
            .build()
            .new_agent();
        Webhook {
            url: url.trim().to_owned(),
            host: validate::url_host(url).to_owned(),
            form: Form::of(url),
            agent,
        }
    }

    /// The channel, as a failure names it.
    pub(super) fn channel(&self) -> Channel {
        Channel::Webhook {
            host: self.host.clone(),
        }
    }

    /// The request that tells this server about `entry`, with the
    /// dashboard's `link` when there is one.
    pub(super) fn request(&self, entry: &FeedEntry, link: Option<&str>) -> Request {
        match self.form {
            Form::Json => Request {
                content_type: "application/json",
                headers: Vec::new(),
                body: serde_json::to_vec(&json_body(entry, link)).unwrap_or_default(),
            },
            Form::Ntfy => {
                let mut headers = vec![
                    ("Title", header_value(&message::title(entry))),
                    ("Tags", entry.event.as_str().to_owned()),
                ];
                if matches!(entry.event, EventKind::NeedsInput | EventKind::Exited) {
                    headers.push(("Priority", "high".into()));
                }
                if let Some(link) = link {
                    headers.push(("Click", header_value(link)));
                }
                Request {
                    content_type: "text/plain; charset=utf-8",
                    headers,
                    body: message::text(entry).into_bytes(),
                }
            }
        }
    }

    /// Posts `entry`, retrying a failure that another attempt may not
    /// meet (no answer, a timeout, a 5xx, 408 or 429) with growing waits,
    /// up to `ATTEMPTS` and never past `deadline`. The error names the
    /// host at most.
    pub(super) fn send(
        &self,
        entry: &FeedEntry,
        link: Option<&str>,
        deadline: Instant,
    ) -> Result<(), String> {
        let request = self.request(entry, link);
        let mut waits = ExponentialBuilder::default()
            .with_min_delay(FIRST_RETRY_AFTER)
            .with_factor(2.0)
            .with_max_times(ATTEMPTS - 1)
            .with_jitter()
            .build();
        let mut attempts = 0;
        loop {
            attempts += 1;
            let Attempt { reason, retry } = match self.post_once(&request, deadline) {
                Ok(()) => return Ok(()),
                Err(failed) => failed,
            };
            let wait = waits.next().filter(|wait| {
                retry
                    && Instant::now()
                        .checked_add(*wait)
                        .is_some_and(|then| then < deadline)
            });
            match wait {
                Some(wait) => thread::sleep(wait),
                None => {
                    let plural = if attempts == 1 { "" } else { "s" };
                    return Err(self.scrubbed(format!("{reason} ({attempts} attempt{plural})")));
                }
            }
        }
    }

    /// `send` on a thread of its own; how it went is sent on `report`.
    pub(super) fn send_in_background(
        &self,
        entry: &FeedEntry,
        link: Option<&str>,
        deadline: Instant,
        report: &Sender<Delivery>,
    ) {
        let webhook = self.clone();
        let owned = entry.clone();
        let link = link.map(str::to_owned);
        in_background(self.channel(), entry, report, move || {
            webhook.send(&owned, link.as_deref(), deadline)
        });
    }

    /// One attempt, within `REQUEST_TIMEOUT` and `deadline`.
    fn post_once(&self, request: &Request, deadline: Instant) -> Result<(), Attempt> {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(Attempt {
                reason: "no time left to send".into(),
                retry: false,
            });
        }
        let mut call = self
            .agent
            .post(&self.url)
            .config()
            .timeout_global(Some(left.min(REQUEST_TIMEOUT)))
            .build()
            .header("Content-Type", request.content_type);
        for (name, value) in &request.headers {
            call = call.header(*name, value);
        }
        match call.send(&request.body[..]) {
            Ok(answer) => {
                let status = answer.status().as_u16();
                match status {
                    200..=299 => Ok(()),
                    300..=399 => Err(Attempt {
                        reason: format!(
                            "the server answered {status}, a redirect (give the URL it points to)"
                        ),
                        retry: false,
                    }),
                    _ => Err(Attempt {
                        reason: format!("the server answered {status}"),
                        retry: status >= 500 || status == 408 || status == 429,
                    }),
                }
            }
            Err(e) => Err(attempt_error(&e)),
        }
    }

    /// `text` with the URL, should it appear, shown as its scheme and host.
    fn scrubbed(&self, text: String) -> String {
        if self.url.is_empty() {
            return text;
        }
        text.replace(&self.url, &validate::redact_secret_url(&self.url))
    }
}

/// Written by hand: the URL is a secret.
impl fmt::Debug for Webhook {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Webhook")
            .field("url", &validate::redact_secret_url(&self.url))
            .field("form", &self.form)
            .finish()
    }
}

/// The JSON body: the feed entry's object with `text`, `content` (the
/// same line) and `link` (when given).
pub(super) fn json_body(entry: &FeedEntry, link: Option<&str>) -> Value {
    let mut body = entry.to_json();
    let text = message::text(entry);
    if let Value::Object(map) = &mut body {
        map.insert("text".into(), Value::String(text.clone()));
        map.insert("content".into(), Value::String(text));
        if let Some(link) = link {
            map.insert("link".into(), Value::String(link.to_owned()));
        }
    }
    body
}

/// A header value made only of visible ASCII and spaces (what every
/// server reads the same way); anything else becomes `?`.
fn header_value(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c == ' ' || c.is_ascii_graphic() {
                c
            } else {
                '?'
            }
        })
        .collect()
}

/// Why a request got no answer, in words that never include the URL.
fn attempt_error(e: &ureq::Error) -> Attempt {
    use ureq::Error as E;
    let (reason, retry) = match e {
        E::Timeout(_) => ("timed out".to_owned(), true),
        E::HostNotFound => ("the host was not found".to_owned(), true),
        E::ConnectionFailed => ("could not connect".to_owned(), true),
        E::Io(io) => (format!("could not connect or send: {}", io.kind()), true),
        E::Protocol(_) => ("the answer was not HTTP".to_owned(), true),
        E::Tls(what) => (format!("TLS failed: {what}"), false),
        E::Rustls(tls) => (format!("TLS failed: {tls}"), false),
        E::BadUri(_) | E::Http(_) => ("the URL cannot be used".to_owned(), false),
        E::InvalidProxyUrl => ("the proxy setting (*_PROXY) is not a URL".to_owned(), false),
        _ => ("the request failed".to_owned(), false),
    };
    Attempt { reason, retry }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attention::event::DialogOption;
    use serde_json::json;

    fn dialog() -> FeedEntry {
        let mut e = FeedEntry::new(
            EventKind::NeedsInput,
            Some("agent-1"),
            "Do you want to proceed?",
        );
        e.episode = Some(3);
        e.options.push(DialogOption {
            number: 1,
            label: "Yes".into(),
            highlighted: true,
        });
        e
    }

    #[test]
    fn a_json_receiver_gets_the_feed_line_with_text_content_and_link() {
        let e = dialog();
        let hook = Webhook::new("https://hooks.example.com/services/T0/B0/XYZ");
        let r = hook.request(&e, Some("http://localhost:8080/"));
        assert_eq!(r.content_type, "application/json");
        assert!(r.headers.is_empty());
        let body: Value = serde_json::from_slice(&r.body).expect("JSON");
        let mut expected = e.to_json();
        let text = "agent-1 needs you: Do you want to proceed?";
        expected["text"] = json!(text);
        expected["content"] = json!(text);
        expected["link"] = json!("http://localhost:8080/");
        assert_eq!(body, expected);
        assert_eq!(body["event"], "needs_input");
        assert_eq!(body["episode"], 3);
        assert_eq!(body["options"][0]["label"], "Yes");
        let without = json_body(&e, None);
        assert!(without.get("link").is_none());
    }

    #[test]
    fn ntfy_gets_plain_text_and_headers() {
        for url in [
            "https://ntfy.sh/my-topic",
            "https://NTFY.SH:443/t",
            "https://eu.ntfy.sh/t",
            "http://ntfy.example.com/t",
        ] {
            assert_eq!(Form::of(url), Form::Ntfy, "{url}");
        }
        for url in [
            "http://127.0.0.1:9/topic",
            "https://example.com/ntfy",
            "https://notntfy.sh/t",
            "https://hooks.slack.com/services/x",
        ] {
            assert_eq!(Form::of(url), Form::Json, "{url}");
        }
        let r = Webhook::new("https://ntfy.sh/my-topic").request(&dialog(), Some("http://h:1/"));
        assert_eq!(r.content_type, "text/plain; charset=utf-8");
        assert_eq!(r.body, b"agent-1 needs you: Do you want to proceed?");
        assert_eq!(
            r.headers,
            [
                ("Title", "swarm: agent-1 needs you".to_owned()),
                ("Tags", "needs_input".to_owned()),
                ("Priority", "high".to_owned()),
                ("Click", "http://h:1/".to_owned()),
            ]
        );
        let finished = FeedEntry::new(EventKind::Finished, Some("agent-é"), "");
        let r = Webhook::new("https://ntfy.sh/t").request(&finished, None);
        assert_eq!(
            r.headers,
            [
                ("Title", "swarm: agent-? finished its turn".to_owned()),
                ("Tags", "finished".to_owned()),
            ]
        );
    }

    #[test]
    fn a_failure_names_the_host_only() {
        // A port nobody listens on any more: every attempt is refused.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let hook = Webhook::new(&format!("http://127.0.0.1:{port}/secret-topic"));
        assert_eq!(
            hook.channel(),
            Channel::Webhook {
                host: format!("127.0.0.1:{port}")
            }
        );
        let deadline = Instant::now() + Duration::from_secs(20);
        let e = hook
            .send(&dialog(), None, deadline)
            .expect_err("nobody listens");
        assert!(!e.contains("secret-topic"), "{e}");
        assert!(e.ends_with("(4 attempts)"), "{e}");
        let debug = format!("{hook:?}");
        assert!(!debug.contains("secret-topic"), "{debug}");
    }

    #[test]
    fn no_attempt_is_made_past_the_deadline() {
        let hook = Webhook::new("http://127.0.0.1:9/t");
        let e = hook
            .send(&dialog(), None, Instant::now())
            .expect_err("no time");
        assert_eq!(e, "no time left to send (1 attempt)");
    }
}
