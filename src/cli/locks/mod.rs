//! Commands about file locks.

pub(crate) mod list;
pub(crate) mod lock;
pub(crate) mod lock_view;
pub(crate) mod unlock;
pub(crate) mod who;
