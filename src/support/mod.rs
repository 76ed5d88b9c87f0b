//! Small pieces every layer uses and that know nothing of swarm's world:
//! JSON layouts, time formats, sanitising untrusted text, the exit-code
//! table and the few operating-system calls std does not offer.

pub(crate) mod as_read;
pub(crate) mod exit_code;
pub(crate) mod json;
pub mod sanitize;
pub(crate) mod sys;
pub mod time;
