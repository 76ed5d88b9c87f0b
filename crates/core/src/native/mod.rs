//! Native delivery: reaching an agent through its own way in instead of
//! typing into its pane. Codex CLI: the app server swarm starts beside
//! the TUI in each Codex pane it launches (`codex/`).

pub mod codex;
