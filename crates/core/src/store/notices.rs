//! Notices from stores whose operations return no warnings of their own:
//! a damaged state file set aside (the held messages, the sessions, the
//! attention episodes, the usage limits, the hook sightings, the printed
//! lines), a log that could not be written beside a lock change. Each is
//! handed to the reporter the front door installed (the command line
//! prints it as a warning, the hook writes it to its error log), or kept
//! until the front door takes it.

use std::sync::{Mutex, OnceLock};

/// Where notices go once a front door has said.
type Reporter = Box<dyn Fn(&str) + Send + Sync>;

static REPORTER: OnceLock<Reporter> = OnceLock::new();

/// Notices made before a reporter was installed (or with none).
static PENDING: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Installs the process's reporter of notices (the first one installed
/// stays) and hands it the notices made so far.
pub fn set_notice_reporter(reporter: impl Fn(&str) + Send + Sync + 'static) {
    let _ = REPORTER.set(Box::new(reporter));
    for note in take() {
        report(note);
    }
}

/// Tells the user about `note`: at once through the reporter, or later
/// through `take`.
pub(crate) fn report(note: String) {
    // The reason quotes what the damaged file held: no control character
    // of it may reach a terminal or a log line.
    let note = crate::support::sanitize::one_line(&note);
    match REPORTER.get() {
        Some(reporter) => reporter(&note),
        None => PENDING
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(note),
    }
}

/// The notices no reporter has taken yet, oldest first.
pub(crate) fn take() -> Vec<String> {
    std::mem::take(
        &mut *PENDING
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner),
    )
}
