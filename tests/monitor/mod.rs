//! `swarm monitor`: the screen it draws (ratatui's test backend), the
//! plain stream, and the live view running in a private tmux server.

mod plain;
mod render;
mod tui;
mod usage;

/// Runs snapshot assertions with the snapshots kept beside every other
/// one, in `tests/snapshots`, named without the module path.
fn snapshots(f: impl FnOnce()) {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("../snapshots");
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(f);
}
