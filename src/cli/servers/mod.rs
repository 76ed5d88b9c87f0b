//! The long-running views: the monitor and the dashboard.

pub(crate) mod dashboard;
pub(crate) mod monitor;
