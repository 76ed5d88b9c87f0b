//! What an agent's own hook tells swarm: the JSON an agent hands its
//! hook command on stdin, read into a `HookEvent` for the three agents
//! whose hooks swarm installs (Claude Code, Codex CLI, Gemini CLI). The
//! payload is untrusted input: it is bounded, never makes this panic, and
//! what it carries is cleaned before it reaches a feed line.
//! docs/AGENTS.md lists which events each agent reports this way.

use std::fmt;

use serde_json::Value;

use crate::support::sanitize;

/// The most of a submitted prompt kept (a prompt hook's payload holds the
/// whole prompt, and only its message ids matter here). The payload itself
/// is always read whole: a cut one is no JSON.
pub const MAX_PAYLOAD_BYTES: usize = 1 << 20;

/// How many characters of a detail a feed line keeps.
const DETAIL_CHARS: usize = 200;

/// An agent program whose hooks swarm installs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Vendor {
    /// Claude Code (`.claude/settings.json`).
    Claude,
    /// Codex CLI (`.codex/hooks.json`).
    Codex,
    /// Gemini CLI (`.gemini/settings.json`).
    Gemini,
}

/// Every vendor, in the order commands list them.
pub const VENDORS: [Vendor; 3] = [Vendor::Claude, Vendor::Codex, Vendor::Gemini];

impl Vendor {
    /// Its name on the command line and in files (`claude`, `codex`,
    /// `gemini`), which is also its program's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Vendor::Claude => "claude",
            Vendor::Codex => "codex",
            Vendor::Gemini => "gemini",
        }
    }

    /// The vendor a name stands for.
    pub fn parse(name: &str) -> Option<Vendor> {
        VENDORS.into_iter().find(|v| v.as_str() == name)
    }

    /// Its product name, for people.
    pub fn product(self) -> &'static str {
        match self {
            Vendor::Claude => "Claude Code",
            Vendor::Codex => "Codex CLI",
            Vendor::Gemini => "Gemini CLI",
        }
    }
}

impl fmt::Display for Vendor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a turn failed, as the agent's hook names it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum FailureReason {
    /// A rate or usage limit of the account (Claude Code: `rate_limit`).
    RateLimit,
    /// The key or sign-in was refused (`authentication_failed`).
    Authentication,
    /// The account cannot pay (`billing_error`).
    Billing,
    /// The request was refused as malformed (`invalid_request`).
    InvalidRequest,
    /// The model's server failed or was overloaded (`server_error`).
    Server,
    /// The answer hit the output limit (`max_output_tokens`).
    MaxOutputTokens,
    /// Any other name, kept as the hook gave it (cleaned).
    Other(String),
}

impl FailureReason {
    /// The reason a hook's error name stands for.
    pub fn parse(name: &str) -> FailureReason {
        match name {
            "rate_limit" => FailureReason::RateLimit,
            "authentication_failed" => FailureReason::Authentication,
            "billing_error" => FailureReason::Billing,
            "invalid_request" => FailureReason::InvalidRequest,
            "server_error" => FailureReason::Server,
            "max_output_tokens" => FailureReason::MaxOutputTokens,
            other => FailureReason::Other(clean(other, 60)),
        }
    }

    /// Its name in a feed line's detail (`rate_limit`, ...).
    pub fn as_str(&self) -> &str {
        match self {
            FailureReason::RateLimit => "rate_limit",
            FailureReason::Authentication => "authentication_failed",
            FailureReason::Billing => "billing_error",
            FailureReason::InvalidRequest => "invalid_request",
            FailureReason::Server => "server_error",
            FailureReason::MaxOutputTokens => "max_output_tokens",
            FailureReason::Other(s) => s,
        }
    }
}

/// A turn that ended on an error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TurnFailure {
    /// Why, as a typed value.
    pub reason: FailureReason,
    /// What the agent showed (its last message), cleaned and cut.
    pub message: String,
}

impl TurnFailure {
    /// The feed line's detail: `rate_limit: <what the agent showed>`.
    pub fn detail(&self) -> String {
        if self.message.is_empty() {
            self.reason.as_str().to_owned()
        } else {
            format!("{}: {}", self.reason.as_str(), self.message)
        }
    }

    /// The reason at the front of a feed line's detail written by
    /// `detail` (for a reader of the feed).
    pub fn reason_of(detail: &str) -> FailureReason {
        FailureReason::parse(detail.split(':').next().unwrap_or_default().trim())
    }
}

/// What a hook's event means to swarm.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Signal {
    /// The agent is about to ask the person (a permission dialog).
    NeedsInput {
        /// What it asks, as the payload says it.
        question: String,
        /// What it is about (the command), at most a few rows.
        context: Vec<String>,
    },
    /// The turn ended.
    Finished,
    /// The turn ended on an error.
    TurnFailed(TurnFailure),
    /// The agent's session ended (it exits).
    Exited {
        /// Why, as the payload says it.
        reason: String,
    },
    /// A prompt was submitted (typed, pasted, or taken from the queue).
    Prompt {
        /// The submitted text (at most `MAX_PAYLOAD_BYTES` of it).
        text: String,
    },
    /// Claude Code asks whether a tool may edit a file (the edit guard).
    EditCheck,
    /// An event swarm has nothing to do with.
    Other,
}

/// One hook invocation, read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HookEvent {
    /// Whose hook it is.
    pub vendor: Vendor,
    /// The event's name as the agent gave it (`Stop`, `BeforeAgent`).
    pub name: String,
    /// The agent's working directory, when the payload gives it.
    pub cwd: Option<String>,
    /// What it means.
    pub signal: Signal,
}

/// Reads `payload` as `vendor`'s hook input. Errors are for a log line
/// (the hook still lets the agent go on).
pub fn parse(vendor: Vendor, payload: &[u8]) -> Result<HookEvent, String> {
    let value: Value =
        serde_json::from_slice(payload).map_err(|e| format!("the hook input is not JSON: {e}"))?;
    let Some(obj) = value.as_object() else {
        return Err("the hook input is not a JSON object".into());
    };
    let text = |key: &str| obj.get(key).and_then(Value::as_str).unwrap_or_default();
    let name = text("hook_event_name");
    if name.is_empty() {
        return Err("the hook input names no event (`hook_event_name`)".into());
    }
    let signal = match (vendor, name) {
        (Vendor::Claude | Vendor::Codex, "PermissionRequest") => tool_request(obj),
        (Vendor::Gemini, "Notification") if text("notification_type") == "ToolPermission" => {
            gemini_permission(obj)
        }
        (Vendor::Claude | Vendor::Codex, "Stop") | (Vendor::Gemini, "AfterAgent") => {
            Signal::Finished
        }
        (Vendor::Claude, "StopFailure") => Signal::TurnFailed(TurnFailure {
            reason: FailureReason::parse(text("error")),
            message: clean(text("last_assistant_message"), DETAIL_CHARS),
        }),
        (Vendor::Claude | Vendor::Gemini, "SessionEnd") => {
            let reason = clean(text("reason"), 60);
            // `/clear` ends a conversation, not the program.
            if reason == "clear" {
                Signal::Other
            } else {
                Signal::Exited { reason }
            }
        }
        (Vendor::Claude | Vendor::Codex, "UserPromptSubmit") | (Vendor::Gemini, "BeforeAgent") => {
            Signal::Prompt {
                text: prefix(text("prompt"), MAX_PAYLOAD_BYTES).to_owned(),
            }
        }
        (Vendor::Claude, "PreToolUse") => Signal::EditCheck,
        _ => Signal::Other,
    };
    Ok(HookEvent {
        vendor,
        name: clean(name, 60),
        cwd: obj
            .get("cwd")
            .and_then(Value::as_str)
            .filter(|c| !c.is_empty())
            .map(str::to_owned),
        signal,
    })
}

/// Claude Code's and Codex CLI's `PermissionRequest`: the tool and what
/// it would do.
fn tool_request(obj: &serde_json::Map<String, Value>) -> Signal {
    let tool = obj
        .get("tool_name")
        .and_then(Value::as_str)
        .unwrap_or("a tool");
    let input = obj.get("tool_input");
    let field = |key: &str| {
        input
            .and_then(|i| i.get(key))
            .and_then(Value::as_str)
            .map(|s| clean(s, DETAIL_CHARS))
            .filter(|s| !s.is_empty())
    };
    let mut context = Vec::new();
    if let Some(c) = field("command") {
        context.push(format!("$ {c}"));
    }
    if let Some(p) = field("file_path") {
        context.push(p);
    }
    if let Some(d) = field("description") {
        context.push(d);
    }
    Signal::NeedsInput {
        question: format!("Allow {}?", clean(tool, 60)),
        context,
    }
}

/// Gemini CLI's `Notification` of type `ToolPermission`: its message
/// (`Tool Shell requires execution`) and the command in its details.
fn gemini_permission(obj: &serde_json::Map<String, Value>) -> Signal {
    let message = obj
        .get("message")
        .and_then(Value::as_str)
        .map(|m| clean(m, DETAIL_CHARS))
        .filter(|m| !m.is_empty())
        .unwrap_or_else(|| "Allow a tool?".into());
    let details = obj.get("details");
    let mut context = Vec::new();
    for key in ["command", "fileName", "serverName", "toolName"] {
        if let Some(v) = details
            .and_then(|d| d.get(key))
            .and_then(Value::as_str)
            .map(|s| clean(s, DETAIL_CHARS))
            .filter(|s| !s.is_empty())
        {
            context.push(if key == "command" {
                format!("$ {v}")
            } else {
                v
            });
        }
    }
    Signal::NeedsInput {
        question: message,
        context,
    }
}

/// The longest start of `text` of at most `max` bytes that ends on a
/// character boundary.
fn prefix(text: &str, max: usize) -> &str {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// One line of untrusted text, fit for a feed line: control characters
/// gone, at most `max` characters.
fn clean(text: &str, max: usize) -> String {
    let line = sanitize::one_line(text);
    let line = line.trim();
    match line.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &line[..i]),
        None => line.to_owned(),
    }
}

/// The short message ids (`[#1a2b3c4d]`, as swarm types them into a pane)
/// in a submitted prompt, in order, each once.
pub fn message_ids(prompt: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    let mut rest = prompt;
    while let Some(at) = rest.find("[#") {
        rest = &rest[at + 2..];
        let Some(end) = rest.find(']') else { break };
        let id = &rest[..end];
        if (4..=64).contains(&id.len())
            && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
            && !found.iter().any(|f| f == id)
        {
            found.push(id.to_owned());
        }
        rest = &rest[end..];
    }
    found
}

#[cfg(test)]
#[path = "payload_tests.rs"]
mod tests;
