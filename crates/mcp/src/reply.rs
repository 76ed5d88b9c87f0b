//! What a tool call returns: a short text for the model and the same
//! facts as structured content; a failure is a tool error (the command
//! line's message and hint), never a protocol error.

use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::{Value, json};

use swarm_core::Error;

/// A successful result.
#[derive(Debug)]
pub(super) struct Reply {
    /// One or a few lines saying what happened.
    pub text: String,
    /// The result as JSON (an object).
    pub data: Value,
}

impl Reply {
    /// A reply of `text` and `data`.
    pub(super) fn new(text: impl Into<String>, data: Value) -> Reply {
        Reply {
            text: text.into(),
            data,
        }
    }

    /// The tool result: the text, then the data as JSON (for clients that
    /// show the model only the text), and the data as structured content.
    pub(super) fn into_result(self) -> CallToolResult {
        let mut r = CallToolResult::success(vec![ContentBlock::text(format!(
            "{}\n{}",
            self.text.trim_end(),
            self.data
        ))]);
        r.structured_content = Some(self.data);
        r
    }
}

/// The tool error for `e`: its message and hint as text, and as
/// structured content with the exit code the command line would end with.
pub(super) fn failure(e: &Error) -> CallToolResult {
    let message = e.to_string();
    let hint = match e {
        // The command line's hint names its --agent flag, which the
        // server does not have: its identity is its pane's.
        Error::NoIdentity(_) => Some(
            "run `swarm discover` in the project (or start the agents with `swarm launch`), \
             then call the tool again"
                .to_owned(),
        ),
        _ => e.hint(),
    };
    let mut text = format!("error: {message}");
    if let Some(h) = &hint {
        text.push_str(&format!("\nhint: {h}"));
    }
    let mut r = CallToolResult::error(vec![ContentBlock::text(text)]);
    r.structured_content = Some(json!({
        "error": message,
        "hint": hint,
        "exit_code": e.exit_code().code(),
    }));
    r
}
