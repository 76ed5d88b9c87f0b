//! The long-running views: the monitor and the dashboard; the MCP server
//! agents start; and the detached deliverer of one notification.

pub(crate) mod dashboard;
pub(crate) mod mcp;
pub(crate) mod monitor;
pub(crate) mod notify_event;
