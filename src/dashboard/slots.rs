//! `Slots`: a bounded number of things in use at once (connections, event
//! streams), so that no number of clients can make the dashboard start
//! threads without end; and a wait for all of them to be given back.

use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// A counter with a ceiling.
#[derive(Debug)]
pub(super) struct Slots {
    used: Mutex<usize>,
    freed: Condvar,
    max: usize,
}

/// One slot in use; given back when dropped.
#[derive(Debug)]
pub(super) struct Slot(Arc<Slots>);

impl Slots {
    /// At most `max` in use at once.
    pub(super) fn new(max: usize) -> Arc<Slots> {
        Arc::new(Slots {
            used: Mutex::new(0),
            freed: Condvar::new(),
            max,
        })
    }

    /// A slot, or `None` when all are in use.
    pub(super) fn take(self: &Arc<Self>) -> Option<Slot> {
        let mut used = self.used.lock().unwrap_or_else(PoisonError::into_inner);
        if *used >= self.max {
            return None;
        }
        *used += 1;
        Some(Slot(Arc::clone(self)))
    }

    /// Waits until none is in use, at most `patience`; true when none is.
    pub(super) fn wait_idle(&self, patience: Duration) -> bool {
        let deadline = Instant::now() + patience;
        let mut used = self.used.lock().unwrap_or_else(PoisonError::into_inner);
        while *used > 0 {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            used = self
                .freed
                .wait_timeout(used, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        true
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut used = self.0.used.lock().unwrap_or_else(PoisonError::into_inner);
        *used = used.saturating_sub(1);
        self.0.freed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn never_more_than_the_ceiling() {
        let slots = Slots::new(2);
        let a = slots.take().expect("first");
        let b = slots.take().expect("second");
        assert!(slots.take().is_none());
        drop(a);
        let c = slots.take().expect("freed");
        assert!(!slots.wait_idle(Duration::ZERO));
        let waiter = {
            let slots = Arc::clone(&slots);
            std::thread::spawn(move || slots.wait_idle(Duration::from_secs(60)))
        };
        drop((b, c));
        assert!(waiter.join().expect("thread"));
        assert!(slots.wait_idle(Duration::ZERO));
    }
}
