//! Messages held back from panes that were not safe to type into: the
//! store's seam (`held_store.rs`), its file (`on_files.rs`), and holding and
//! releasing them (`release.rs`).

pub(crate) mod held_store;
pub(crate) mod on_files;
pub(crate) mod release;
