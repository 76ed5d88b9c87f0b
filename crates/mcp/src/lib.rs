//! `swarm mcp`: a Model Context Protocol server on stdio, started by an
//! agent (Claude Code, Codex CLI, Gemini CLI) itself, so that the agent
//! uses the swarm through typed tools instead of shell commands. The
//! agent's pane is the server's identity; every tool runs the same
//! operations, with the same rules, as the matching `swarm` command. The
//! tools and the inbox resource are listed in docs/AGENTS-MCP.md.

// Items are `pub(crate)` unless the crate's API needs them.
#![warn(unreachable_pub)]

mod args;
mod conversations;
mod inbox_watch;
mod ops;
mod project;
mod reply;
mod review;
mod server;
mod tools;

pub use project::Project;
pub use server::serve;
