//! Integration tests: the real `swarm` binary against real, private tmux
//! servers. One test binary; each module covers one area.

mod harness;

mod cli;
mod discovery;
mod guard;
mod launch;
mod locks;
mod tmux_seam;
