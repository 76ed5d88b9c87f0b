//! Integration tests: the real `swarm` binary against real, private tmux
//! servers. One test binary; each module covers one area.

mod harness;

mod a2a;
mod acks;
mod aliases;
mod attention;
mod cli;
mod concurrency;
mod config;
mod conversations;
mod coord;
mod crash;
mod dashboard;
mod delivery_policy;
mod discovery;
mod first_hour;
mod first_use;
mod guard;
mod hostile_input;
mod hostile_state;
mod house;
mod install;
mod launch;
mod leases;
mod locks;
mod mcp;
mod message_log;
mod messaging;
mod monitor;
mod notify;
mod old_tmux;
mod print_to_send;
mod redis_backend;
mod redis_cluster;
mod resume;
mod setup;
mod store_tls;
mod tmux_seam;
mod usage;
mod worktrees;
