//! `swarm dashboard` itself, built with the `dashboard` feature.

use std::env;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use swarm_core::domain::validate;
use swarm_core::support::sanitize;
use swarm_core::{Backend, Error, ExitCode, Operator, Result};
use swarm_dashboard::{
    AccessKey, AllowedHosts, BasicAuth, Cors, Opened, Server, Settings, UrlFiles, open_browser,
};

use crate::cli::context::Context;

use super::DashboardArgs;
use crate::cli::housekeeping;

/// The checked arguments.
struct Plan {
    host: String,
    port: u16,
    open_browser: bool,
    settings: Settings,
}

fn plan(ctx: &Context, args: &DashboardArgs) -> Result<Plan> {
    let config = ctx.config()?;
    let (raw_host, what) = match &args.host {
        Some(h) => (h.clone(), "--host"),
        None => (config.dashboard.host.clone(), "dashboard.host"),
    };
    let host = validate::host(&raw_host).map_err(|e| Error::Invalid(format!("{what}: {e}")))?;
    if let Some(w) = &host.warning {
        ctx.out.warn(w);
    }
    let port = match args.port {
        Some(p) => p,
        None => u16::try_from(config.dashboard.port).map_err(|_| {
            Error::Invalid(format!(
                "dashboard.port: {} is not a port",
                config.dashboard.port
            ))
        })?,
    };
    let user = env::var("DASHBOARD_USERNAME").ok();
    let password = env::var("DASHBOARD_PASSWORD").ok();
    let auth = BasicAuth::from_values(user.as_deref(), password.as_deref());
    if auth.is_none() && (user.is_some() || password.is_some()) {
        ctx.out.warn(
            "only one of DASHBOARD_USERNAME and DASHBOARD_PASSWORD is set (or one is empty): \
             the dashboard runs without a password (the secret of the URL it prints guards it)",
        );
    }
    if auth.is_none() && !is_loopback(&host.name) {
        return Err(Error::Invalid(format!(
            "refusing to listen on {} without a password: anyone who can reach it could read \
             the messages and act as the operator; set DASHBOARD_USERNAME and \
             DASHBOARD_PASSWORD, or listen on localhost",
            host.name
        )));
    }
    let hosts = AllowedHosts::new(&host.name, &config.dashboard.allowed_hosts)
        .map_err(|e| Error::Invalid(format!("dashboard.allowed_hosts: {e}")))?;
    let from =
        validate::agent_id(&args.from).map_err(|e| Error::Invalid(format!("--from: {e}")))?;
    let backend = Arc::new(Backend::open(
        &ctx.paths,
        config,
        crate::cli::features::shared_stores(),
    )?);
    let op = Operator::new(
        ctx.tmux.server().clone(),
        ctx.paths.clone(),
        Arc::clone(&backend),
        config,
    )?;
    if let Err(e) = op.keep_watch() {
        ctx.out
            .warn(&format!("could not start the project's watcher: {e}"));
    }
    let cors = Cors::from_env_value(env::var("ALLOWED_ORIGINS").ok().as_deref(), auth.is_some());
    let out = ctx.out.clone();
    let settings = Settings {
        paths: ctx.paths.clone(),
        backend,
        stale_after: config.locking.stale_timeout,
        tick: Duration::from_secs(u64::from(config.dashboard.refresh_interval.max(1))),
        auth,
        key: AccessKey::random(),
        cors,
        hosts,
        op: Arc::new(op),
        person_id: from,
        report: Arc::new(move |m: &str| out.warn(&sanitize::one_line(m))),
    };
    Ok(Plan {
        host: host.name,
        port,
        open_browser: config.dashboard.auto_open_browser && !args.no_browser,
        settings,
    })
}

fn is_loopback(host: &str) -> bool {
    match host.parse::<IpAddr>() {
        Ok(ip) => ip.is_loopback(),
        Err(_) => host
            .strip_suffix('.')
            .unwrap_or(host)
            .eq_ignore_ascii_case("localhost"),
    }
}

/// The address to type into a browser (without its secret): the host as
/// given, an IPv6 address in brackets, and loopback for "every interface".
fn url(host: &str, port: u16) -> String {
    let shown = match host.parse::<IpAddr>() {
        Ok(IpAddr::V4(ip)) if ip.is_unspecified() => "127.0.0.1".to_owned(),
        Ok(IpAddr::V6(ip)) if ip.is_unspecified() => "[::1]".to_owned(),
        Ok(IpAddr::V6(ip)) => format!("[{ip}]"),
        Ok(IpAddr::V4(ip)) => ip.to_string(),
        Err(_) => host.to_owned(),
    };
    format!("http://{shown}:{port}/")
}

/// Serves until stopped.
pub(super) fn run(ctx: &Context, args: &DashboardArgs) -> Result<ExitCode> {
    let plan = plan(ctx, args)?;
    // Without a password, the URL's secret is what lets the person in.
    let key = plan
        .settings
        .auth
        .is_none()
        .then(|| plan.settings.key.clone());
    // Binding installs the Ctrl-C and SIGTERM handlers too, so that a stop
    // signal at any moment from here on ends the dashboard cleanly.
    let server = Server::bind(&plan.host, plan.port, plan.settings)?;
    let base = url(&plan.host, server.port());
    let url = match &key {
        Some(key) => format!("{base}?token={}", key.as_str()),
        None => base.clone(),
    };
    // Only the person may read the files: the URL is printed (whatever
    // the output is), kept in one and handed to a browser through the
    // other, never in an opener's arguments.
    let files = match UrlFiles::write(&ctx.paths, &url) {
        Ok(f) => Some(f),
        Err(e) => {
            ctx.out.warn(&format!("{e}; the URL above still works"));
            None
        }
    };
    let listening: Vec<String> = server.addrs().iter().map(ToString::to_string).collect();
    ctx.out.print(&format!(
        "swarm dashboard for {}\nDashboard URL: {url}\nListening on {}\nPress Ctrl+C to stop\n",
        ctx.paths.root().display(),
        listening.join(", "),
    ))?;
    if plan.open_browser {
        let target = match (&key, &files) {
            (None, _) => Some(base.clone()),
            (Some(_), Some(f)) => Some(f.open_page().display().to_string()),
            // The secret would have to go into the opener's arguments.
            (Some(_), None) => None,
        };
        let opened = match target {
            Some(t) => open_browser(&t),
            None => {
                Opened::Unavailable("the page that hands it the URL could not be written".into())
            }
        };
        match opened {
            Opened::Started => ctx.out.note(&format!("Opened browser to {base}")),
            Opened::Unavailable(why) => ctx.out.note(&format!("Not opening a browser: {why}")),
            Opened::Failed(why) => ctx.out.warn(&format!("could not open a browser: {why}")),
        }
    }
    // While it serves, about every second, held messages whose pane is
    // safe again go in (as `swarm watch` does); the server's end ends that.
    let (done, stopped) = std::sync::mpsc::channel::<()>();
    let served = std::thread::scope(|s| {
        let serving = s.spawn(move || {
            let served = server.serve();
            drop(done);
            served
        });
        while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) =
            stopped.recv_timeout(Duration::from_secs(1))
        {
            if let Err(e) = housekeeping::release_held(ctx) {
                ctx.out
                    .warn(&format!("could not deliver held messages: {e}"));
            }
        }
        match serving.join() {
            Ok(served) => served.map_err(Error::from),
            Err(_) => Err(Error::Invalid(
                "the dashboard's server thread stopped unexpectedly".into(),
            )),
        }
    });
    if let Some(f) = files {
        f.remove();
    }
    served?;
    ctx.out.print("Dashboard stopped\n")?;
    Ok(ExitCode::Success)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_a_browser_can_open() {
        assert_eq!(url("localhost", 8080), "http://localhost:8080/");
        assert_eq!(url("127.0.0.1", 1), "http://127.0.0.1:1/");
        assert_eq!(url("0.0.0.0", 2), "http://127.0.0.1:2/");
        assert_eq!(url("::", 3), "http://[::1]:3/");
        assert_eq!(url("::1", 4), "http://[::1]:4/");
    }

    #[test]
    fn loopback_hosts() {
        for h in ["localhost", "LOCALHOST.", "127.0.0.1", "127.1.2.3", "::1"] {
            assert!(is_loopback(h), "{h}");
        }
        for h in ["0.0.0.0", "::", "192.168.1.2", "example.com"] {
            assert!(!is_loopback(h), "{h}");
        }
    }
}
