//! An MCP client (rmcp's) of `swarm mcp`, started as a child process the
//! way an agent CLI starts it: in the project, with the agent pane's
//! `TMUX` and `TMUX_PANE`.

use rmcp::model::{CallToolRequestParams, CallToolResult, ResourceUpdatedNotificationParam};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::Value;
use tokio::sync::mpsc;

use super::{Project, TmuxServer, swarm, swarm_bin};

/// A client that passes on every "resource updated" notification.
#[derive(Clone)]
pub struct Client {
    pub updated: mpsc::UnboundedSender<String>,
}

impl ClientHandler for Client {
    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let _ = self.updated.send(params.uri);
    }
}

pub type Session = RunningService<RoleClient, Client>;

/// A project with `n` demo agents registered as agent-0.., each recording
/// its submissions into `rec-<i>.jsonl`; returns their panes.
pub fn swarm_of(server: &TmuxServer, project: &Project, n: usize) -> Vec<String> {
    let panes: Vec<String> = (0..n)
        .map(|i| server.demo_agent(&project.path(), &project.file(&format!("rec-{i}.jsonl"))))
        .collect();
    swarm(project, server).arg("discover").assert().success();
    panes
}

/// `$TMUX` as tmux sets it inside a pane of `server`.
pub fn tmux_env(server: &TmuxServer) -> String {
    let info = server.tmux(&["display-message", "-p", "#{socket_path},#{pid},0"]);
    info.trim().to_owned()
}

/// `swarm mcp` started for `pane` as the agent in it would start it, and
/// a client connected to it; notifications go to the returned receiver.
pub async fn connect(
    server: &TmuxServer,
    project: &Project,
    pane: &str,
) -> (Session, mpsc::UnboundedReceiver<String>) {
    let mut cmd = tokio::process::Command::new(swarm_bin());
    cmd.arg("mcp")
        .current_dir(project.path())
        .env_remove("CLAUDESWARM_ROOT")
        .env_remove("SWARM_TMUX_SOCKET")
        .env("TMUX", tmux_env(server))
        .env("TMUX_PANE", pane)
        .env("NO_COLOR", "1");
    let (tx, rx) = mpsc::unbounded_channel();
    let transport = TokioChildProcess::new(cmd).expect("start swarm mcp");
    let session = Client { updated: tx }
        .serve(transport)
        .await
        .expect("MCP handshake");
    (session, rx)
}

/// One tool call, whatever its outcome.
pub async fn call(session: &Session, tool: &str, args: Value) -> CallToolResult {
    let mut params = CallToolRequestParams::new(tool.to_owned());
    if let Value::Object(map) = args {
        params = params.with_arguments(map);
    }
    session
        .call_tool(params)
        .await
        .unwrap_or_else(|e| panic!("{tool}: protocol error {e}"))
}

/// The structured result of a successful call.
pub async fn ok(session: &Session, tool: &str, args: Value) -> Value {
    let r = call(session, tool, args).await;
    assert_ne!(r.is_error, Some(true), "{tool} failed: {r:?}");
    r.structured_content
        .unwrap_or_else(|| panic!("{tool}: no structured content"))
}

/// The text of a failed call (a tool error, not a protocol error).
pub async fn err(session: &Session, tool: &str, args: Value) -> String {
    let r = call(session, tool, args).await;
    assert_eq!(r.is_error, Some(true), "{tool} should fail: {r:?}");
    let text = r
        .content
        .first()
        .and_then(|c| c.as_text())
        .map(|t| t.text.clone())
        .unwrap_or_default();
    assert!(text.starts_with("error: "), "{text}");
    text
}

/// A runtime for one test's client calls.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
}
