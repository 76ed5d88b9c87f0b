//! `DashboardError`: why the dashboard could not start.

use std::io;
use std::net::SocketAddr;
use std::path::PathBuf;

use swarm_core::{Error, ExitCode, Reported};

/// A failure to start serving. Messages read after "failed to ...".
#[derive(Debug, thiserror::Error)]
pub enum DashboardError {
    /// Another program listens on the port.
    #[error("port {port} is already in use (on {addr})")]
    PortInUse {
        /// The port asked for.
        port: u16,
        /// The address that could not be bound.
        addr: SocketAddr,
    },
    /// The host name could not be resolved.
    #[error("could not find the address of host {host:?}: {source}")]
    Resolve {
        /// The host.
        host: String,
        /// Why.
        source: io::Error,
    },
    /// Binding failed for another reason (permissions, an address this
    /// machine does not have).
    #[error("could not listen on {addr}: {source}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// Why.
        source: io::Error,
    },
    /// The host resolved to no address at all.
    #[error("host {0:?} has no address to listen on")]
    NoAddress(String),
    /// A thread (or the runtime's threads) could not be started.
    #[error("could not start a dashboard thread: {0}")]
    Thread(io::Error),
    /// The Ctrl-C and SIGTERM handlers could not be installed.
    #[error("could not install the Ctrl-C handler: {0}")]
    Signals(io::Error),
    /// A file that keeps the dashboard's URL could not be written.
    #[error("could not write {}: {source}", path.display())]
    UrlFile {
        /// The file (or its directory).
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
}

impl From<DashboardError> for Error {
    fn from(e: DashboardError) -> Error {
        Error::Server(Box::new(e))
    }
}

/// The command that shows who listens on a TCP port here.
fn who_listens(port: u16) -> String {
    if cfg!(target_os = "linux") {
        format!("`ss -ltnp 'sport = :{port}'`")
    } else {
        format!("`lsof -nP -iTCP:{port} -sTCP:LISTEN`")
    }
}

impl Reported for DashboardError {
    fn exit_code(&self) -> ExitCode {
        ExitCode::Failure
    }

    fn hint(&self) -> Option<String> {
        match self {
            DashboardError::PortInUse { port, .. } => Some(format!(
                "try a different port with --port (or dashboard.port in the config), or stop \
                 the other service ({} shows it)",
                who_listens(*port)
            )),
            DashboardError::Resolve { .. } | DashboardError::NoAddress(_) => {
                Some("use an IP address, localhost, or a name listed in /etc/hosts".into())
            }
            DashboardError::Bind { source, .. }
                if source.kind() == io::ErrorKind::PermissionDenied =>
            {
                Some("ports below 1024 need privileges: use a port from 1024 up".into())
            }
            DashboardError::Bind { .. } => Some(
                "--host must be an address of this machine (127.0.0.1, localhost, or 0.0.0.0 \
                 for every interface)"
                    .into(),
            ),
            DashboardError::Thread(_)
            | DashboardError::Signals(_)
            | DashboardError::UrlFile { .. } => None,
        }
    }
}
