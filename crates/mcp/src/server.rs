//! The MCP server: the tool list and calls (run off the event loop, each a
//! short synchronous operation), the inbox resource, and its "updated"
//! notifications, both to clients that subscribe the classic way
//! (`resources/subscribe`) and to those that listen for them
//! (`subscriptions/listen`).

use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, ListResourcesResult, ListToolsResult,
    PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult,
    Resource, ResourceContents, ResourceUpdatedNotificationParam, ServerCapabilities, ServerConfig,
    SubscribeRequestParams, SubscriptionFilter, UnsubscribeRequestParams,
};
use rmcp::service::{RequestContext, SubscriptionContext};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use tokio::sync::broadcast;

use swarm_core::{Error, Result};

use super::inbox_watch;
use super::ops;
use super::project::Project;
use super::reply::failure;
use super::tools::Tool;

/// The inbox resource: this agent's unread messages.
pub(super) const INBOX_URI: &str = "swarm://inbox";

/// What the model is told about the server as a whole.
const INSTRUCTIONS: &str = "swarm coordinates the AI coding agents working on this project, each \
in its own terminal. You are one of them (whoami). Before editing shared files, lock them (lock) \
and unlock them when done; if a lock is in your way, message its holder. Tell others what they \
need to know with send_message or broadcast (types: QUESTION, BLOCKED, INFO, COMPLETED, \
REVIEW-REQUEST). Read your new messages with read_messages, and acknowledge the ones that ask for \
it. Shared work can be split into tasks (create_task, claim_task, update_task, list_tasks).";

#[derive(Clone)]
struct SwarmServer {
    project: Arc<Project>,
    /// One value per change that brought this agent a message.
    updated: broadcast::Sender<()>,
    /// Bumped by each classic subscribe and unsubscribe: a forwarding
    /// task stops once its generation is no longer the current one.
    subscription: Arc<Mutex<u64>>,
    /// Receivers taken when a `subscriptions/listen` is accepted, before
    /// the client hears it was (so no message in between goes unheard);
    /// `listen` picks one up. All are alike: each hears every update.
    listening: Arc<Mutex<Vec<broadcast::Receiver<()>>>>,
}

impl SwarmServer {
    fn generation(&self) -> std::sync::MutexGuard<'_, u64> {
        self.subscription
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

impl ServerHandler for SwarmServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_resources()
                .enable_resources_subscribe()
                .enable_tools()
                .build(),
        )
        .with_server_info(Implementation::new("swarm", env!("CARGO_PKG_VERSION")))
        .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(
            Tool::ALL.iter().map(|t| t.listed()).collect(),
        ))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let project = Arc::clone(&self.project);
        let name = request.name.to_string();
        let args = request.arguments;
        let done = tokio::task::spawn_blocking(move || ops::call(&project, &name, args)).await;
        let result = match done {
            Ok(Ok(reply)) => reply.into_result(),
            Ok(Err(e)) => failure(&e),
            Err(e) => failure(&Error::Invalid(format!(
                "the tool stopped unexpectedly: {e}"
            ))),
        };
        Ok(result.into())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(ListResourcesResult::with_all_items(vec![
            Resource::new(INBOX_URI, "inbox")
                .with_description(
                    "Your unread swarm messages (JSON), without marking them read; \
                     read_messages takes them. Subscribe to be told when one arrives.",
                )
                .with_mime_type("application/json"),
        ]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if request.uri != INBOX_URI {
            return Err(ErrorData::resource_not_found(
                format!(
                    "no resource {:?}; the one resource is {INBOX_URI}",
                    request.uri
                ),
                None,
            ));
        }
        let project = Arc::clone(&self.project);
        let done = tokio::task::spawn_blocking(move || {
            let agent = project.agent()?;
            ops::peek_inbox(&project, &agent, 100)
        })
        .await;
        let value = match done {
            Ok(Ok(v)) => v,
            Ok(Err(e)) => {
                let mut m = e.to_string();
                if let Some(h) = e.hint() {
                    m.push_str(&format!(" (hint: {h})"));
                }
                return Err(ErrorData::internal_error(m, None));
            }
            Err(e) => return Err(ErrorData::internal_error(e.to_string(), None)),
        };
        Ok(ReadResourceResult::new(vec![
            ResourceContents::text(value.to_string(), INBOX_URI).with_mime_type("application/json"),
        ])
        .into())
    }

    #[allow(deprecated)]
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        if request.uri != INBOX_URI {
            return Err(ErrorData::resource_not_found(
                format!(
                    "no resource {:?}; the one resource is {INBOX_URI}",
                    request.uri
                ),
                None,
            ));
        }
        let mine = {
            let mut g = self.generation();
            *g += 1;
            *g
        };
        let mut rx = self.updated.subscribe();
        let peer = context.peer;
        let me = self.clone();
        tokio::spawn(async move {
            loop {
                match rx.recv().await {
                    Ok(()) | Err(broadcast::error::RecvError::Lagged(_)) => {}
                    Err(broadcast::error::RecvError::Closed) => break,
                }
                if *me.generation() != mine {
                    break;
                }
                let note = ResourceUpdatedNotificationParam::new(INBOX_URI);
                if peer.notify_resource_updated(note).await.is_err() {
                    break;
                }
            }
        });
        Ok(())
    }

    #[allow(deprecated)]
    async fn unsubscribe(
        &self,
        _request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        *self.generation() += 1;
        Ok(())
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        let mut accepted = SubscriptionFilter::new();
        if requested
            .resource_subscriptions
            .as_ref()
            .is_some_and(|uris| uris.iter().any(|u| u == INBOX_URI))
        {
            accepted.resource_subscriptions = Some(vec![INBOX_URI.to_owned()]);
            self.listening
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(self.updated.subscribe());
        }
        Some(accepted)
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        let wanted = context
            .accepted()
            .resource_subscriptions
            .as_ref()
            .is_some_and(|uris| uris.iter().any(|u| u == INBOX_URI));
        if !wanted {
            context.cancelled().await;
            return Ok(());
        }
        let taken = self
            .listening
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop();
        let mut rx = taken.unwrap_or_else(|| self.updated.subscribe());
        loop {
            tokio::select! {
                () = context.cancelled() => return Ok(()),
                got = rx.recv() => match got {
                    Ok(()) | Err(broadcast::error::RecvError::Lagged(_)) => {
                        if context.sink().notify_resource_updated(INBOX_URI).await.is_err() {
                            return Ok(());
                        }
                    }
                    Err(broadcast::error::RecvError::Closed) => return Ok(()),
                },
            }
        }
    }
}

/// A failure of the server itself (not of a tool): it could not start or
/// its connection broke.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(crate) struct ServeError(String);

impl swarm_core::Reported for ServeError {
    fn exit_code(&self) -> swarm_core::ExitCode {
        swarm_core::ExitCode::Failure
    }

    fn hint(&self) -> Option<String> {
        Some("swarm mcp is started by an agent (see `swarm mcp install`), talking on stdin and stdout".into())
    }
}

/// Serves `project` on stdin and stdout until the client closes the
/// connection. The tokio runtime lives only here.
pub fn serve(project: Project) -> Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|source| Error::Io {
            what: "start the MCP server's runtime".into(),
            source,
        })?;
    let project = Arc::new(project);
    let (updated, _) = broadcast::channel(16);
    let _watch = inbox_watch::start(Arc::clone(&project), updated.clone());
    let server = SwarmServer {
        project,
        updated,
        subscription: Arc::new(Mutex::new(0)),
        listening: Arc::new(Mutex::new(Vec::new())),
    };
    runtime.block_on(async move {
        let running = server.serve(rmcp::transport::stdio()).await.map_err(|e| {
            Error::Server(Box::new(ServeError(format!("start the MCP session: {e}"))))
        })?;
        running.waiting().await.map_err(|e| {
            Error::Server(Box::new(ServeError(format!("the MCP session ended: {e}"))))
        })?;
        Ok(())
    })
}
