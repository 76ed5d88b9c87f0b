//! Commands about what the agents spend: `usage` and `budget`.

pub(super) mod budget;
pub(super) mod usage;
