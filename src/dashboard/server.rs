//! `Server`: the dashboard's HTTP/1.1 server over `std::net`. One thread
//! accepts on each listening address; each connection gets a thread of
//! its own, at most `MAX_CONNECTIONS` at once (more are answered 503 at
//! once), with time limits on reading the request and on every write, so
//! neither a slow nor a vanished client can hold a thread for long.

use std::io::{BufReader, Read};
use std::net::{Ipv4Addr, Ipv6Addr, Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::thread::{self, JoinHandle};
use std::time::Duration;

use super::app::{self, App, Reply};
use super::error::DashboardError;
use super::event_stream;
use super::listen;
use super::live;
use super::request::{Request, RequestError};
use super::response::Response;
use super::settings::Settings;

/// How long a client has to send its request head.
const READ_TIMEOUT: Duration = Duration::from_secs(10);

/// How long one write may block before the client counts as gone.
const WRITE_TIMEOUT: Duration = Duration::from_secs(10);

/// How long stopping waits for open connections to finish.
const DRAIN: Duration = Duration::from_secs(2);

/// A dashboard bound to its addresses, not yet serving.
#[derive(Debug)]
pub(crate) struct Server {
    listeners: Vec<TcpListener>,
    addrs: Vec<SocketAddr>,
    app: Arc<App>,
}

/// A serving dashboard.
#[derive(Debug)]
pub(crate) struct Running {
    app: Arc<App>,
    watcher: Option<JoinHandle<()>>,
    accepting: Vec<(SocketAddr, JoinHandle<()>)>,
}

impl Server {
    /// Listens on every address of `host` at `port` (0: any free port).
    pub(crate) fn bind(
        host: &str,
        port: u16,
        settings: Settings,
    ) -> Result<Server, DashboardError> {
        let listeners = listen::bind_all(host, port)?;
        let addrs = listeners
            .iter()
            .map(|l| {
                l.local_addr().map_err(|source| DashboardError::Bind {
                    addr: SocketAddr::new(Ipv4Addr::UNSPECIFIED.into(), port),
                    source,
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Server {
            listeners,
            addrs,
            app: Arc::new(App::new(settings)),
        })
    }

    /// The addresses listened on.
    pub(crate) fn addrs(&self) -> &[SocketAddr] {
        &self.addrs
    }

    /// The port listened on (the same on every address).
    pub(crate) fn port(&self) -> u16 {
        self.addrs.first().map_or(0, SocketAddr::port)
    }

    /// Starts serving.
    pub(crate) fn start(self) -> Result<Running, DashboardError> {
        let mut running = Running {
            app: Arc::clone(&self.app),
            watcher: None,
            accepting: Vec::new(),
        };
        let app = Arc::clone(&self.app);
        match thread::Builder::new()
            .name("dashboard-watch".into())
            .spawn(move || live::watch(&app))
        {
            Ok(t) => running.watcher = Some(t),
            Err(e) => {
                running.stop();
                return Err(DashboardError::Thread(e));
            }
        }
        for (listener, addr) in self.listeners.into_iter().zip(self.addrs) {
            let app = Arc::clone(&self.app);
            match thread::Builder::new()
                .name("dashboard-accept".into())
                .spawn(move || accept(&app, &listener))
            {
                Ok(t) => running.accepting.push((addr, t)),
                Err(e) => {
                    running.stop();
                    return Err(DashboardError::Thread(e));
                }
            }
        }
        Ok(running)
    }
}

impl Running {
    /// Stops accepting, ends every event stream (each gets its last
    /// chunk), and waits a little for connections in progress to finish.
    pub(crate) fn stop(self) {
        self.app.stop();
        if let Some(t) = self.watcher {
            let _ = t.join();
        }
        for (addr, t) in self.accepting {
            // The thread is blocked in accept(): a connection of our own
            // wakes it to see that it must stop. If none can be made, the
            // thread is left to end with the process.
            if TcpStream::connect_timeout(&wake_address(addr), Duration::from_secs(1)).is_ok() {
                let _ = t.join();
            }
        }
        self.app.connections.wait_idle(DRAIN);
    }
}

/// Where to connect to reach a listener (an all-interfaces listener is
/// reached on loopback).
fn wake_address(addr: SocketAddr) -> SocketAddr {
    match addr.ip() {
        ip if !ip.is_unspecified() => addr,
        std::net::IpAddr::V4(_) => SocketAddr::new(Ipv4Addr::LOCALHOST.into(), addr.port()),
        std::net::IpAddr::V6(_) => SocketAddr::new(Ipv6Addr::LOCALHOST.into(), addr.port()),
    }
}

fn accept(app: &Arc<App>, listener: &TcpListener) {
    for conn in listener.incoming() {
        if app.stopping() {
            return;
        }
        let conn = match conn {
            Ok(c) => c,
            Err(e) => {
                (app.settings.report)(&format!("could not accept a connection: {e}"));
                // Out of file descriptors, most likely: give connections
                // in progress a moment to finish instead of spinning.
                thread::sleep(Duration::from_millis(100));
                continue;
            }
        };
        let _ = conn.set_read_timeout(Some(READ_TIMEOUT));
        let _ = conn.set_write_timeout(Some(WRITE_TIMEOUT));
        let _ = conn.set_nodelay(true);
        let Some(slot) = app.connections.take() else {
            let _ = app::busy().write_to(&mut &conn, &[], false);
            continue;
        };
        let served = Arc::clone(app);
        let spawned = thread::Builder::new()
            .name("dashboard-conn".into())
            .spawn(move || {
                serve(&served, &conn);
                drop(slot);
            });
        if let Err(e) = spawned {
            (app.settings.report)(&format!("could not start a connection thread: {e}"));
        }
    }
}

/// Answers one request, then closes the connection.
fn serve(app: &App, conn: &TcpStream) {
    let request = match Request::read(&mut BufReader::new(conn)) {
        Ok(r) => r,
        Err(RequestError::Closed) => return,
        Err(RequestError::TooLarge) => {
            let _ = Response::detail(431, "Request Header Fields Too Large").write_to(
                &mut &*conn,
                &[],
                false,
            );
            return close_unread(conn);
        }
        Err(RequestError::Malformed(why)) => {
            let _ = Response::detail(400, why).write_to(&mut &*conn, &[], false);
            return close_unread(conn);
        }
    };
    let cors = app.settings.cors.headers(request.header("origin"));
    match app.handle(&request) {
        Reply::Full(response) => {
            let _ = response.write_to(&mut &*conn, &cors, request.method == "HEAD");
        }
        Reply::Stream => event_stream::serve(app, conn, &request, &cors),
    }
    close(conn);
}

/// Sends the end of the answer (FIN) before the socket is dropped.
fn close(conn: &TcpStream) {
    let _ = conn.shutdown(Shutdown::Write);
}

/// Closes a connection whose request was not read to its end: what the
/// client is still sending is read and dropped first (a little of it, for
/// a short while), because closing a socket with unread input resets the
/// connection, and the reset can destroy the answer before the client has
/// read it.
fn close_unread(conn: &TcpStream) {
    close(conn);
    let _ = conn.set_read_timeout(Some(Duration::from_millis(500)));
    let mut sink = [0u8; 8192];
    let mut left = 1024 * 1024;
    while left > 0 {
        match (&*conn).read(&mut sink) {
            Ok(0) | Err(_) => return,
            Ok(n) => left -= n.min(left),
        }
    }
}
