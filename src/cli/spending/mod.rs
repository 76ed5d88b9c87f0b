//! Commands about what the agents spend and may spend: `usage`, `budget`
//! and `limits`.

pub(super) mod budget;
pub(super) mod limits;
pub(super) mod usage;
