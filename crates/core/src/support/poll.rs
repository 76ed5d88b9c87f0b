//! Waiting for something another process does (a lock another agent
//! holds, a child that is still running, a key another host set): one
//! loop that looks again after a growing pause and never sleeps past its
//! deadline. The pauses are backon's exponential schedule, so that every
//! wait in the tree grows the same way.

use std::ops::ControlFlow;
use std::thread;
use std::time::{Duration, Instant};

use backon::{BackoffBuilder, ExponentialBuilder};

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
        let mut builder = ExponentialBuilder::new()
            .with_min_delay(self.first)
            .with_max_delay(self.most)
            .with_factor(2.0)
            .without_max_times();
        if self.jitter {
            builder = builder.with_jitter();
        }
        let mut pauses = builder.build();
        loop {
            let not_yet = match look() {
                ControlFlow::Break(answer) => return Ok(answer),
                ControlFlow::Continue(not_yet) => not_yet,
            };
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(not_yet);
            }
            // The schedule has no end (`without_max_times`); `most` is
            // what it would give anyway.
            let pause = pauses.next().unwrap_or(self.most);
            thread::sleep(pause.min(left));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const QUICK: Pauses = Pauses::new(Duration::from_millis(1), Duration::from_millis(4));

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
