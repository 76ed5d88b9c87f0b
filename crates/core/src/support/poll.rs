//! Waiting for something another process does (a lock another agent
//! holds, a child that is still running, a key another host set): one
//! loop that looks again after a growing pause and never sleeps past its
//! deadline, and the same pauses one by one for a wait that spans the
//! rounds of a longer loop (a store that stopped answering). The pauses
//! are backon's exponential schedule, so that every wait in the tree
//! grows the same way.

use std::ops::ControlFlow;
use std::thread;
use std::time::{Duration, Instant};

use backon::{BackoffBuilder, ExponentialBackoff, ExponentialBuilder};

/// How the pause between two looks grows: from `first`, doubled after
/// each look, up to `most`; with jitter, each pause is up to as long
/// again at random, so that racing waiters do not look in step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pauses {
    first: Duration,
    most: Duration,
    jitter: bool,
}

impl Pauses {
    /// Pauses from `first` up to `most`, without jitter.
    pub const fn new(first: Duration, most: Duration) -> Pauses {
        Pauses {
            first,
            most,
            jitter: false,
        }
    }

    /// The same pauses, each lengthened at random by up to itself.
    pub const fn with_jitter(self) -> Pauses {
        Pauses {
            jitter: true,
            ..self
        }
    }

    /// The pauses one after another, without end: `first`, then each
    /// twice the one before, then `most` for ever.
    pub(crate) fn schedule(self) -> Schedule {
        let mut builder = ExponentialBuilder::new()
            .with_min_delay(self.first)
            .with_max_delay(self.most)
            .with_factor(2.0)
            .without_max_times();
        if self.jitter {
            builder = builder.with_jitter();
        }
        Schedule {
            pauses: builder.build(),
            most: self.most,
        }
    }

    /// Calls `look` until it breaks with an answer, which is returned;
    /// between two looks it sleeps the next pause, cut short at
    /// `deadline`. When `look` says "not yet" at or after `deadline`,
    /// that last "not yet" is the error. `look` runs at least once, so a
    /// deadline already past means exactly one look.
    pub fn until<B, C>(
        self,
        deadline: Instant,
        mut look: impl FnMut() -> ControlFlow<B, C>,
    ) -> Result<B, C> {
        let mut pauses = self.schedule();
        loop {
            let not_yet = match look() {
                ControlFlow::Break(answer) => return Ok(answer),
                ControlFlow::Continue(not_yet) => not_yet,
            };
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(not_yet);
            }
            thread::sleep(pauses.next_pause().min(left));
        }
    }
}

/// The pauses of a `Pauses`, one by one (`Pauses::schedule`).
#[derive(Debug)]
pub(crate) struct Schedule {
    pauses: ExponentialBackoff,
    most: Duration,
}

impl Schedule {
    /// The next pause.
    pub(crate) fn next_pause(&mut self) -> Duration {
        // The schedule has no end (`without_max_times`); `most` is what it
        // would give anyway.
        self.pauses.next().unwrap_or(self.most)
    }
}

/// The instant `wait` from now; a wait too long for the clock (a
/// setting of years) is as good as no end.
pub(crate) fn deadline_in(wait: Duration) -> Instant {
    let now = Instant::now();
    now.checked_add(wait)
        .or_else(|| now.checked_add(FAR))
        .unwrap_or(now)
}

/// A wait no one waits out: a century.
const FAR: Duration = Duration::from_secs(100 * 365 * 24 * 60 * 60);

#[cfg(test)]
mod tests {
    use super::*;

    const QUICK: Pauses = Pauses::new(Duration::from_millis(1), Duration::from_millis(4));

    #[test]
    fn a_schedule_doubles_from_the_first_pause_up_to_the_most() {
        let s = |ms: u64| Duration::from_millis(ms);
        let mut pauses = Pauses::new(s(1000), s(16_000)).schedule();
        let got: Vec<Duration> = (0..7).map(|_| pauses.next_pause()).collect();
        assert_eq!(got, [1000, 2000, 4000, 8000, 16_000, 16_000, 16_000].map(s));
    }

    #[test]
    fn a_deadline_too_far_for_the_clock_is_far_not_a_panic() {
        let far = deadline_in(Duration::MAX);
        assert!(far > Instant::now() + Duration::from_secs(365 * 24 * 60 * 60));
        assert!(deadline_in(Duration::ZERO) <= Instant::now());
    }

    #[test]
    fn the_answer_ends_the_wait() {
        let mut looks = 0;
        let got: Result<u32, ()> = QUICK.until(Instant::now() + Duration::from_secs(60), || {
            looks += 1;
            if looks == 4 {
                ControlFlow::Break(looks)
            } else {
                ControlFlow::Continue(())
            }
        });
        assert_eq!(got, Ok(4));
    }

    #[test]
    fn a_past_deadline_means_one_look_and_the_last_not_yet() {
        let mut looks = 0;
        let got: Result<(), u32> = QUICK.with_jitter().until(Instant::now(), || {
            looks += 1;
            ControlFlow::Continue(looks)
        });
        assert_eq!(got, Err(1));
    }

    #[test]
    fn the_deadline_ends_a_wait_that_gets_no_answer() {
        let deadline = Instant::now() + Duration::from_millis(30);
        let mut looks = 0u32;
        let got: Result<(), u32> = QUICK.until(deadline, || {
            looks += 1;
            ControlFlow::Continue(looks)
        });
        let Err(last) = got else {
            panic!("no answer was ever given")
        };
        assert!(Instant::now() >= deadline);
        assert!(last > 1, "it looked again before the deadline: {last}");
    }
}
