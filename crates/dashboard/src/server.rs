//! `Server`: the dashboard's HTTP/1.1 server: axum's router served by
//! hyper on a tokio runtime of its own (the only one in swarm: every other
//! command stays synchronous). Each connection is bounded in what it may
//! cost: its request head must arrive within `READ_TIMEOUT` and fit in
//! `MAX_HEAD_BYTES` (hyper answers 431 otherwise), at most
//! `MAX_CONNECTIONS` are served at once (more are answered 503 at once),
//! and each answer closes its connection. Ctrl-C or SIGTERM stops it
//! gracefully: no new connection is accepted, every event stream gets its
//! end, and connections in progress get `DRAIN` to finish.

use std::convert::Infallible;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::http::{HeaderValue, Request, StatusCode, header};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::runtime::Runtime;
use tokio::signal::unix::{Signal, SignalKind, signal};
use tokio::sync::{Semaphore, watch};
use tokio::task::JoinSet;

use super::app::{self, App};
use super::error::DashboardError;
use super::listen;
use super::live;
use super::reply;
use super::settings::Settings;

/// How long a client has to send its request head.
const READ_TIMEOUT: Duration = Duration::from_secs(10);

/// Most bytes accepted for a request head (hyper's smallest buffer is
/// 8 KiB).
const MAX_HEAD_BYTES: usize = 16 * 1024;

/// Most connections served at once (event streams included).
const MAX_CONNECTIONS: usize = 64;

/// How long stopping waits for open connections to finish.
const DRAIN: Duration = Duration::from_secs(2);

/// A dashboard bound to its addresses, with its stop signals installed,
/// not yet serving.
#[derive(Debug)]
pub struct Server {
    runtime: Runtime,
    listeners: Vec<TcpListener>,
    addrs: Vec<SocketAddr>,
    app: Arc<App>,
    signals: (Signal, Signal),
}

impl Server {
    /// Listens on every address of `host` at `port` (0: any free port) and
    /// installs the Ctrl-C and SIGTERM handlers, so that a stop signal from
    /// now on ends the dashboard cleanly.
    pub fn bind(host: &str, port: u16, mut settings: Settings) -> Result<Server, DashboardError> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("dashboard")
            .enable_all()
            .build()
            .map_err(DashboardError::Thread)?;
        let _entered = runtime.enter();
        let signals = (
            signal(SignalKind::interrupt()).map_err(DashboardError::Signals)?,
            signal(SignalKind::terminate()).map_err(DashboardError::Signals)?,
        );
        let std_listeners = listen::bind_all(host, port)?;
        let mut listeners = Vec::new();
        let mut addrs = Vec::new();
        for l in std_listeners {
            let addr = l.local_addr().map_err(|source| DashboardError::Bind {
                addr: SocketAddr::new(Ipv4Addr::UNSPECIFIED.into(), port),
                source,
            })?;
            let listener = l
                .set_nonblocking(true)
                .and_then(|()| TcpListener::from_std(l))
                .map_err(|source| DashboardError::Bind { addr, source })?;
            listeners.push(listener);
            addrs.push(addr);
        }
        let port = addrs.first().map_or(port, SocketAddr::port);
        settings.hosts.set_port(port);
        drop(_entered);
        Ok(Server {
            runtime,
            listeners,
            addrs,
            app: Arc::new(App::new(settings, port)),
            signals,
        })
    }

    /// The addresses listened on.
    pub fn addrs(&self) -> &[SocketAddr] {
        &self.addrs
    }

    /// The port listened on (the same on every address).
    pub fn port(&self) -> u16 {
        self.addrs.first().map_or(0, SocketAddr::port)
    }

    /// Serves until Ctrl-C or SIGTERM, then stops gracefully.
    pub fn serve(self) -> Result<(), DashboardError> {
        let Server {
            runtime,
            listeners,
            app,
            signals: (mut interrupt, mut terminate),
            ..
        } = self;
        let watcher = {
            let app = Arc::clone(&app);
            std::thread::Builder::new()
                .name("dashboard-watch".into())
                .spawn(move || live::watch(&app))
                .map_err(DashboardError::Thread)?
        };
        let service = app::service(Arc::clone(&app));
        runtime.block_on(async {
            let (stop_tx, stop_rx) = watch::channel(false);
            let slots = Arc::new(Semaphore::new(MAX_CONNECTIONS));
            let mut accepting = JoinSet::new();
            for listener in listeners {
                accepting.spawn(accept(
                    listener,
                    service.clone(),
                    Arc::clone(&app),
                    Arc::clone(&slots),
                    stop_rx.clone(),
                ));
            }
            tokio::select! {
                _ = interrupt.recv() => {}
                _ = terminate.recv() => {}
            }
            app.stop();
            let _ = stop_tx.send(true);
            while accepting.join_next().await.is_some() {}
        });
        let _ = watcher.join();
        // Whatever is still running (a client that never reads) ends with
        // the runtime.
        runtime.shutdown_timeout(Duration::from_millis(100));
        Ok(())
    }
}

/// Accepts connections on one listener until told to stop, then waits a
/// little for those in progress.
async fn accept(
    listener: TcpListener,
    service: app::Service,
    app: Arc<App>,
    slots: Arc<Semaphore>,
    mut stop: watch::Receiver<bool>,
) {
    let graceful = GracefulShutdown::new();
    loop {
        let (stream, _) = tokio::select! {
            conn = listener.accept() => match conn {
                Ok(c) => c,
                Err(e) => {
                    (app.settings.report)(&format!("could not accept a connection: {e}"));
                    // Out of file descriptors, most likely: give
                    // connections in progress a moment to finish.
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            _ = stop.changed() => break,
        };
        let _ = stream.set_nodelay(true);
        let io = TokioIo::new(stream);
        let mut http = http1::Builder::new();
        http.timer(TokioTimer::new())
            .header_read_timeout(READ_TIMEOUT)
            .max_buf_size(MAX_HEAD_BYTES)
            .keep_alive(false);
        match Arc::clone(&slots).try_acquire_owned() {
            Ok(slot) => {
                let conn = graceful
                    .watch(http.serve_connection(io, TowerToHyperService::new(service.clone())));
                tokio::spawn(async move {
                    let _ = conn.await;
                    drop(slot);
                });
            }
            Err(_) => {
                let conn = http.serve_connection(io, hyper::service::service_fn(busy));
                tokio::spawn(conn);
            }
        }
    }
    let _ = tokio::time::timeout(DRAIN, graceful.shutdown()).await;
}

/// The answer when every connection slot is taken.
async fn busy(_: Request<Incoming>) -> Result<axum::http::Response<Body>, Infallible> {
    let mut r = reply::detail(
        StatusCode::SERVICE_UNAVAILABLE,
        "Too many connections; try again shortly",
    );
    r.headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static("2"));
    Ok(r)
}
