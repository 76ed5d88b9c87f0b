//! The long-running views: the monitor and the dashboard; and the MCP
//! server agents start.

pub(crate) mod dashboard;
pub(crate) mod mcp;
pub(crate) mod monitor;
