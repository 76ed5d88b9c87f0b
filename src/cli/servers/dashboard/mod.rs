//! `swarm dashboard` (alias `start-dashboard`): serves the live web view
//! of the swarm until Ctrl-C or SIGTERM, and meanwhile types held messages
//! into their pane once it is safe.

use clap::Args;

use swarm_core::{ExitCode, Result};

use crate::cli::context::Context;

#[cfg(feature = "dashboard")]
mod live;

/// Arguments of `swarm dashboard`.
#[derive(Debug, Args)]
#[command(after_help = "\
Access: open the URL it prints; its token is this run's secret (also in
.swarm/dashboard.url, 0600), without which nothing but /health is served.
Or set DASHBOARD_USERNAME and DASHBOARD_PASSWORD (both) to require them on
every request instead; they are required when --host is not a loopback address.
Other web origins allowed to read the API from a browser: ALLOWED_ORIGINS
(comma-separated). The dashboard answers only to the host it listens on (and to
the names in dashboard.allowed_hosts, taken from your own config file or
SWARM_DASHBOARD_ALLOWED_HOSTS only), and takes actions (send, acknowledge,
force-release) only from its own page.")]
pub(crate) struct DashboardArgs {
    /// Port to listen on; 0 picks a free one [default: dashboard.port, 8080]
    #[arg(long, value_name = "N")]
    port: Option<u16>,
    /// Host to listen on: localhost (both 127.0.0.1 and ::1), an address of
    /// this machine, or 0.0.0.0 / :: for every interface [default:
    /// dashboard.host, localhost]
    #[arg(long, value_name = "HOST")]
    host: Option<String>,
    /// Do not open a browser (one is opened only when dashboard.auto_open_browser
    /// is set, a graphical session runs and xdg-open is installed; on macOS,
    /// `open`)
    #[arg(long)]
    no_browser: bool,
    /// Sender id of the messages sent from the page, and the agent a lock
    /// released from the page is recorded under
    #[arg(long, value_name = "ID", default_value = "operator")]
    from: String,
    /// Accepted for the Python tool's `start-dashboard --reload`; no effect
    /// (the page is built into swarm)
    #[arg(long, hide = true)]
    reload: bool,
}

/// Runs `swarm dashboard`, or says that this build has no dashboard.
pub(crate) fn run(ctx: &Context, args: &DashboardArgs) -> Result<ExitCode> {
    #[cfg(feature = "dashboard")]
    {
        live::run(ctx, args)
    }
    #[cfg(not(feature = "dashboard"))]
    {
        let _ = (ctx, args);
        Err(crate::cli::features::missing("dashboard", "dashboard"))
    }
}
