//! Deliveries between the hosts of one swarm: the store's seam
//! (`relay_store.rs`, Redis only) and handing deliveries over and typing in
//! what other hosts handed over (`hand_over.rs`).

pub(crate) mod hand_over;
pub(crate) mod relay_store;
