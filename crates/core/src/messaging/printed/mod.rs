//! Print-to-send's shared claims: which lines an agent printed have been
//! sent, so that each is sent once however many watchers read the screen
//! (`PrintedStore`; files: `FilePrinted`).

pub(crate) mod on_files;
pub(crate) mod printed_store;
