//! The demo agent's hooks: with `SWARM_DEMO_HOOKS=<agent>` in its
//! environment (`claude`, `codex` or `gemini`), the demo agent runs
//! `swarm hook <agent>` as that agent runs its hooks (a payload of its
//! shape on stdin, waited for), so that tests can drive swarm's hooks
//! through a real pane without the real agent. Its own events map to the
//! agent's: a submission is the prompt hook, a question the permission
//! hook, the end of a turn the end-of-turn hook.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

/// The environment variable naming the agent whose hooks the demo agent
/// runs.
pub(crate) const DEMO_HOOKS_VAR: &str = "SWARM_DEMO_HOOKS";

/// What the demo agent reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DemoEvent {
    /// A prompt was submitted (taken as a turn).
    Prompt,
    /// A question is about to be shown.
    Asks,
    /// The turn ended.
    TurnEnd,
}

/// The hooks the demo agent runs.
#[derive(Clone, Debug)]
pub(crate) struct DemoHooks {
    agent: String,
    program: PathBuf,
}

impl DemoHooks {
    /// The hooks named by the environment, if any.
    pub(crate) fn from_env() -> Option<DemoHooks> {
        let agent = std::env::var(DEMO_HOOKS_VAR).ok()?;
        if !matches!(agent.as_str(), "claude" | "codex" | "gemini") {
            return None;
        }
        Some(DemoHooks {
            agent,
            program: std::env::current_exe().ok()?,
        })
    }

    /// Runs the hook of `event` (with `prompt` for a prompt) and waits for
    /// it, as the agents do; its output is dropped, its failure ignored.
    pub(crate) fn run(&self, event: DemoEvent, prompt: &str) {
        let payload = self.payload(event, prompt);
        let Ok(mut child) = Command::new(&self.program)
            .args(["hook", &self.agent])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
        else {
            return;
        };
        if let Some(mut stdin) = child.stdin.take() {
            let _ = stdin.write_all(payload.to_string().as_bytes());
        }
        let _ = child.wait();
    }

    fn payload(&self, event: DemoEvent, prompt: &str) -> Value {
        let cwd = std::env::current_dir()
            .map(|d| d.display().to_string())
            .unwrap_or_default();
        let gemini = self.agent == "gemini";
        let (name, extra) = match event {
            DemoEvent::Prompt if gemini => ("BeforeAgent", json!({"prompt": prompt})),
            DemoEvent::Prompt => ("UserPromptSubmit", json!({"prompt": prompt})),
            DemoEvent::Asks if gemini => (
                "Notification",
                json!({"notification_type": "ToolPermission",
                       "message": "Tool Shell requires execution",
                       "details": {"type": "exec", "command": "demo"}}),
            ),
            DemoEvent::Asks => (
                "PermissionRequest",
                json!({"tool_name": "Bash", "tool_input": {"command": "demo"}}),
            ),
            DemoEvent::TurnEnd if gemini => ("AfterAgent", json!({"prompt_response": ""})),
            DemoEvent::TurnEnd => ("Stop", json!({"stop_hook_active": false})),
        };
        let mut payload = json!({
            "session_id": "demo",
            "transcript_path": "",
            "cwd": cwd,
            "hook_event_name": name,
        });
        if let (Some(p), Value::Object(e)) = (payload.as_object_mut(), extra) {
            p.extend(e);
        }
        payload
    }
}
