//! `AppendWake`: a thread that waits on a shared store's log for appends
//! (`LogStore::append_watch`) and reports each as a changed log, the way
//! `FileWatch` reports a file event. A log on another host's store sends
//! no file event; without this, a view would see a new message only at
//! its next tick.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::log::log_store::AppendWatch;

use super::file_watch::Dirty;

/// The longest one wait blocks: also how long a stop may take.
const WAIT: Duration = Duration::from_millis(500);

/// After a failed wait (the store not answering), the time before the
/// next try; the view's own tick reports the outage meanwhile.
const RETRY_AFTER: Duration = Duration::from_secs(1);

/// The running thread; stopped when dropped.
#[derive(Debug)]
pub struct AppendWake {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl AppendWake {
    /// Starts waiting on `watch`, calling `on_change` with a changed log
    /// for each batch of appends.
    pub fn start(
        mut watch: Box<dyn AppendWatch>,
        on_change: impl Fn(Dirty) + Send + 'static,
    ) -> AppendWake {
        let stop = Arc::new(AtomicBool::new(false));
        let stopping = Arc::clone(&stop);
        let thread = std::thread::spawn(move || {
            let log = Dirty {
                log: true,
                ..Dirty::default()
            };
            while !stopping.load(Ordering::Relaxed) {
                match watch.wait(WAIT) {
                    Ok(true) => on_change(log),
                    Ok(false) => {}
                    Err(_) => std::thread::park_timeout(RETRY_AFTER),
                }
            }
        });
        AppendWake {
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for AppendWake {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            t.thread().unpark();
            // The thread ends within one wait; not joined, so that a view
            // closes at once.
            drop(t);
        }
    }
}
