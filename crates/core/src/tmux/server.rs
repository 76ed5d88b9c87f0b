//! Which tmux server a command talks to.

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::path::PathBuf;

/// The tmux server every call of one `swarm` process goes to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Server {
    /// Plain `tmux`: the default socket, which honours `TMUX_TMPDIR`.
    Default,
    /// `tmux -L NAME`: a named socket in tmux's socket directory.
    Named(String),
    /// `tmux -S PATH`: an explicit socket path.
    Socket(PathBuf),
    /// The server of the pane we run in, read from `$TMUX` and passed as
    /// `-S` so that every call names its server explicitly.
    Inherited(PathBuf),
}

impl Server {
    /// Chooses the server: `--tmux-socket` / `SWARM_TMUX_SOCKET` first (a
    /// value containing `/` is a socket path, anything else a socket name),
    /// then the server of the enclosing pane (`$TMUX`), then the default.
    pub fn select(socket: Option<&OsStr>, tmux_env: Option<&OsStr>) -> Server {
        if let Some(socket) = socket.filter(|s| !s.is_empty()) {
            let text = socket.to_string_lossy();
            return if text.contains('/') {
                Server::Socket(PathBuf::from(socket))
            } else {
                Server::Named(text.into_owned())
            };
        }
        if let Some(env) = tmux_env.filter(|s| !s.is_empty()) {
            // $TMUX is "socket_path,server_pid,session_id"; tmux itself cuts
            // at the first comma, so we do too.
            let bytes = env.as_encoded_bytes();
            let end = bytes.iter().position(|&b| b == b',').unwrap_or(bytes.len());
            let path = String::from_utf8_lossy(&bytes[..end]).into_owned();
            if !path.is_empty() {
                return Server::Inherited(PathBuf::from(path));
            }
        }
        Server::Default
    }

    /// The arguments that select this server, to put right after `tmux`.
    pub fn args(&self) -> Vec<OsString> {
        self.args_vec()
    }

    /// The value of `--tmux-socket` that selects this server again (for a
    /// process swarm starts), `None` for the default server.
    pub(crate) fn socket_arg(&self) -> Option<OsString> {
        match self {
            Server::Default => None,
            Server::Named(name) => Some(name.into()),
            Server::Socket(path) | Server::Inherited(path) => Some(path.clone().into_os_string()),
        }
    }

    /// The socket this server listens on, found as tmux finds it (a name
    /// or the default lives in `$TMUX_TMPDIR`, else `/tmp`, under
    /// `tmux-UID`): two ways of naming one server give one path.
    pub fn socket_path(&self) -> PathBuf {
        let in_dir = |name: &str| {
            let base = std::env::var_os("TMUX_TMPDIR")
                .filter(|d| !d.is_empty())
                .map_or_else(|| PathBuf::from("/tmp"), PathBuf::from);
            base.join(format!("tmux-{}", crate::support::sys::own_uid()))
                .join(name)
        };
        match self {
            Server::Default => in_dir("default"),
            Server::Named(name) => in_dir(name),
            Server::Socket(path) | Server::Inherited(path) => path.clone(),
        }
    }

    fn args_vec(&self) -> Vec<OsString> {
        match self {
            Server::Default => Vec::new(),
            Server::Named(name) => vec!["-L".into(), name.into()],
            Server::Socket(path) | Server::Inherited(path) => {
                vec!["-S".into(), path.clone().into_os_string()]
            }
        }
    }
}

impl fmt::Display for Server {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Server::Default => f.write_str("the default tmux socket"),
            Server::Named(name) => write!(f, "tmux socket `{name}` (-L)"),
            Server::Socket(path) => write!(f, "tmux socket {} (-S)", path.display()),
            Server::Inherited(path) => write!(f, "tmux socket {} (from $TMUX)", path.display()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn explicit_socket_wins_over_tmux_env() {
        let s = Server::select(Some(OsStr::new("work")), Some(OsStr::new("/tmp/t/x,1,0")));
        assert_eq!(s, Server::Named("work".into()));
        assert_eq!(s.args(), vec![OsString::from("-L"), OsString::from("work")]);
    }

    #[test]
    fn a_slash_makes_a_socket_path() {
        let s = Server::select(Some(OsStr::new("/run/t.sock")), None);
        assert_eq!(s, Server::Socket("/run/t.sock".into()));
    }

    #[test]
    fn tmux_env_is_cut_at_the_first_comma() {
        let s = Server::select(None, Some(OsStr::new("/tmp/tmux-0/default,4242,3")));
        assert_eq!(s, Server::Inherited("/tmp/tmux-0/default".into()));
        assert_eq!(
            s.args(),
            vec![OsString::from("-S"), OsString::from("/tmp/tmux-0/default")]
        );
    }

    #[test]
    fn empty_values_fall_through_to_default() {
        assert_eq!(
            Server::select(Some(OsStr::new("")), Some(OsStr::new(""))),
            Server::Default
        );
        assert!(Server::Default.args().is_empty());
    }
}
