//! Tokens by kind, the one shape every vendor's usage is read into: what
//! was sent fresh (`input`), written (`output`, reasoning included), read
//! from the vendor's prompt cache (`cache_read`) and written to it
//! (`cache_write`). `reasoning` is the part of `output` the model spent
//! thinking, shown apart and never counted twice.

use std::ops::{Add, AddAssign};

use serde::{Deserialize, Serialize};

/// Token counts by kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Tokens {
    /// Prompt tokens sent fresh (not read from the cache).
    pub input: u64,
    /// Tokens the model wrote, reasoning included.
    pub output: u64,
    /// Prompt tokens read from the vendor's cache.
    pub cache_read: u64,
    /// Prompt tokens written to the vendor's cache.
    pub cache_write: u64,
    /// The part of `output` spent reasoning.
    pub reasoning: u64,
}

impl Tokens {
    /// What a budget in tokens counts: input plus output (cache reads and
    /// writes are not work the agent chose to do).
    pub fn counted(&self) -> u64 {
        self.input.saturating_add(self.output)
    }

    /// Whether nothing was counted.
    pub(crate) fn is_zero(&self) -> bool {
        *self == Tokens::default()
    }

    /// `self` less `other`, kind by kind, never below zero.
    pub(crate) fn less(&self, other: &Tokens) -> Tokens {
        Tokens {
            input: self.input.saturating_sub(other.input),
            output: self.output.saturating_sub(other.output),
            cache_read: self.cache_read.saturating_sub(other.cache_read),
            cache_write: self.cache_write.saturating_sub(other.cache_write),
            reasoning: self.reasoning.saturating_sub(other.reasoning),
        }
    }

    /// Whether any kind is smaller than in `other` (a running total that
    /// started again).
    pub(crate) fn any_below(&self, other: &Tokens) -> bool {
        self.input < other.input
            || self.output < other.output
            || self.cache_read < other.cache_read
            || self.cache_write < other.cache_write
            || self.reasoning < other.reasoning
    }
}

impl Add for Tokens {
    type Output = Tokens;

    fn add(self, o: Tokens) -> Tokens {
        Tokens {
            input: self.input.saturating_add(o.input),
            output: self.output.saturating_add(o.output),
            cache_read: self.cache_read.saturating_add(o.cache_read),
            cache_write: self.cache_write.saturating_add(o.cache_write),
            reasoning: self.reasoning.saturating_add(o.reasoning),
        }
    }
}

impl AddAssign for Tokens {
    fn add_assign(&mut self, o: Tokens) {
        *self = *self + o;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_and_differences() {
        let a = Tokens {
            input: 10,
            output: 5,
            cache_read: 100,
            cache_write: 7,
            reasoning: 2,
        };
        assert_eq!(a.counted(), 15);
        let b = a + a;
        assert_eq!(b.input, 20);
        assert_eq!(b.less(&a), a);
        assert_eq!(a.less(&b), Tokens::default());
        assert!(a.any_below(&b));
        assert!(!b.any_below(&a));
        assert!(Tokens::default().is_zero());
    }
}
