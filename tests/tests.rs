//! Integration tests: the real `swarm` binary against real, private tmux
//! servers. One test binary; each module covers one area.

mod harness;

mod a2a;
mod acks;
mod agent_config;
mod aliases;
mod append_logs;
mod attention;
mod bad_config;
mod cli;
mod codex_app_server;
mod concurrency;
mod config;
mod conversations;
mod coord;
mod crash;
mod damaged_state;
#[cfg(feature = "dashboard")]
mod dashboard;
mod delivery_policy;
mod demo;
mod demo_agent;
mod discovery;
mod docs;
mod down;
mod edit_guard;
mod features;
mod guard;
mod help;
mod hooks;
mod hostile_input;
mod hostile_state;
mod house;
mod housekeeping;
mod inbox;
mod install;
mod launch;
mod leases;
mod limits;
mod locks;
#[cfg(feature = "mcp")]
mod mcp;
mod message_input;
mod message_log;
mod messaging;
#[cfg(feature = "monitor")]
mod monitor;
mod native_delivery;
mod notify;
mod old_tmux;
mod operator;
mod print_to_send;
mod prompt_hook;
#[cfg(feature = "redis")]
mod redis_backend;
#[cfg(feature = "redis")]
mod redis_cluster;
mod resume;
mod review;
mod setup;
mod shell_panes;
#[cfg(feature = "redis")]
mod store_tls;
mod tmux_seam;
mod untrusted_paths;
mod usage;
mod watcher;
mod worktrees;
