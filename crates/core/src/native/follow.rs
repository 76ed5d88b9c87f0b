//! Following the messages an agent accepted through its own channel but
//! had not taken yet (busy, or holding them for the person's approval):
//! each round of the watcher looks at their receipts once more and
//! records what changed (delivered, expired, dropped) in the log and the
//! feed. swarm never sends such a message again by itself.
