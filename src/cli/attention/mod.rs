//! The commands about who needs the person: the activity feed, an agent's
//! screen, and answering its dialog.

pub(super) mod answer;
pub(super) mod feed;
pub(super) mod peek;
