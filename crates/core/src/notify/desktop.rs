//! The desktop channel (notify-rust): a notification titled `swarm:
//! agent-1 needs you` with the event's detail as its body; on Linux and
//! the BSDs through the D-Bus session bus, on macOS through the
//! notification centre. Whether a session bus can be reached is checked
//! once, up front: on a server, in a container or over SSH there is none,
//! and the channel is then off rather than failing every time.

#[cfg(all(unix, not(target_os = "macos")))]
use std::ffi::OsStr;
#[cfg(all(unix, not(target_os = "macos")))]
use std::path::PathBuf;
use std::sync::mpsc::Sender;

use notify_rust::Notification;

use crate::attention::event::FeedEntry;
#[cfg(all(unix, not(target_os = "macos")))]
use crate::support::sys;

use super::delivery::{Channel, Delivery, in_background};
use super::message;

/// The desktop of this session, known to be reachable.
#[derive(Clone, Copy, Debug)]
pub(super) struct Desktop(());

impl Desktop {
    /// The desktop, when this process can reach one; why not otherwise.
    pub(super) fn detect() -> Result<Desktop, String> {
        #[cfg(all(unix, not(target_os = "macos")))]
        {
            let address = std::env::var_os("DBUS_SESSION_BUS_ADDRESS");
            if address.as_deref().is_none_or(OsStr::is_empty) {
                let sockets = bus_sockets(
                    std::env::var_os("XDG_RUNTIME_DIR").as_deref(),
                    sys::own_uid(),
                );
                if !sockets.iter().any(|s| s.exists()) {
                    let shown: Vec<String> =
                        sockets.iter().map(|s| s.display().to_string()).collect();
                    return Err(format!(
                        "no D-Bus session bus: DBUS_SESSION_BUS_ADDRESS is unset and there is no {}",
                        if shown.is_empty() {
                            "/run/user/UID/bus".to_owned()
                        } else {
                            shown.join(" or ")
                        }
                    ));
                }
            }
        }
        Ok(Desktop(()))
    }

    /// The channel, as a failure names it.
    pub(super) fn channel(&self) -> Channel {
        Channel::Desktop
    }

    /// Shows `entry`; waits for the notification server's answer.
    pub(super) fn show(&self, entry: &FeedEntry) -> Result<(), String> {
        let mut note = Notification::new();
        note.appname("swarm").summary(&message::title(entry));
        let body = message::detail(entry);
        #[cfg(all(unix, not(target_os = "macos")))]
        {
            // The XDG servers read a subset of HTML in the body; an
            // agent's text is text.
            note.body(&escape_markup(&body));
            if entry.event == crate::attention::event::EventKind::NeedsInput {
                // It stays until seen: the agent waits until then.
                note.urgency(notify_rust::Urgency::Critical);
            }
        }
        #[cfg(not(all(unix, not(target_os = "macos"))))]
        note.body(&body);
        note.show().map(drop).map_err(|e| e.to_string())
    }

    /// `show` on a thread of its own; how it went is sent on `report`.
    pub(super) fn show_in_background(&self, entry: &FeedEntry, report: &Sender<Delivery>) {
        let desktop = *self;
        let owned = entry.clone();
        in_background(self.channel(), entry, report, move || desktop.show(&owned));
    }
}

/// Where a session bus's socket may be, when no address is given:
/// `$XDG_RUNTIME_DIR/bus`, then `/run/user/<uid>/bus`.
#[cfg(all(unix, not(target_os = "macos")))]
fn bus_sockets(runtime_dir: Option<&OsStr>, uid: u32) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = runtime_dir
        .filter(|d| !d.is_empty())
        .map(|d| PathBuf::from(d).join("bus"))
        .into_iter()
        .collect();
    let path = PathBuf::from(format!("/run/user/{uid}/bus"));
    if !out.contains(&path) {
        out.push(path);
    }
    out
}

/// `&`, `<` and `>` as entities, for a body read as markup.
#[cfg(all(unix, not(target_os = "macos")))]
fn escape_markup(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(all(test, unix, not(target_os = "macos")))]
mod tests {
    use super::*;

    #[test]
    fn the_bus_is_looked_for_where_the_session_keeps_it() {
        assert_eq!(
            bus_sockets(Some(OsStr::new("/run/user/1000")), 1000),
            [PathBuf::from("/run/user/1000/bus")]
        );
        assert_eq!(
            bus_sockets(Some(OsStr::new("/tmp/rt")), 7),
            [
                PathBuf::from("/tmp/rt/bus"),
                PathBuf::from("/run/user/7/bus")
            ]
        );
        assert_eq!(
            bus_sockets(Some(OsStr::new("")), 0),
            [PathBuf::from("/run/user/0/bus")]
        );
        assert_eq!(bus_sockets(None, 501), [PathBuf::from("/run/user/501/bus")]);
    }

    #[test]
    fn markup_in_a_body_is_shown_as_text() {
        assert_eq!(
            escape_markup("<b>x</b> & y"),
            "&lt;b&gt;x&lt;/b&gt; &amp; y"
        );
    }
}
