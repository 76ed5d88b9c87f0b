//! `LockRequest`: what an agent asks for when it takes locks: for whom,
//! why, exclusive or shared, and for how long.

use std::time::Duration;

/// One request to take locks.
#[derive(Clone, Debug)]
pub struct LockRequest<'a> {
    /// The agent taking them.
    pub agent: &'a str,
    /// Its reason; `None` keeps the reason of a lock it already holds.
    pub reason: Option<&'a str>,
    /// The reason of a new lock taken without one.
    pub default_reason: &'a str,
    /// A shared lock (reading: any number of agents may hold it, none
    /// edits) instead of an exclusive one.
    pub shared: bool,
    /// A lease: the claim ends by itself this long after it is taken,
    /// whatever the stale timeout says. `None`: the stale timeout applies.
    pub ttl: Option<Duration>,
}

impl<'a> LockRequest<'a> {
    /// An exclusive lock without a lease, as `swarm lock PATH` takes it.
    pub fn exclusive(
        agent: &'a str,
        reason: Option<&'a str>,
        default_reason: &'a str,
    ) -> LockRequest<'a> {
        LockRequest {
            agent,
            reason,
            default_reason,
            shared: false,
            ttl: None,
        }
    }
}

/// The longest lease: 30 days (a longer claim is not a lease).
pub(crate) const MAX_TTL: Duration = Duration::from_secs(30 * 86_400);

/// Parses a lease length as people type it (`30s`, `10m`, `2h`,
/// `1h30m`; a bare number is seconds): at least one second, at most 30
/// days.
pub fn parse_ttl(text: &str) -> Result<Duration, String> {
    let ttl = crate::support::time::parse_duration(text)?;
    if ttl < Duration::from_secs(1) {
        return Err(format!(
            "a lease of {text:?} ends before it starts: give at least 1s"
        ));
    }
    if ttl > MAX_TTL {
        return Err(format!("a lease of {text:?} is longer than 30 days"));
    }
    Ok(ttl)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leases_are_one_second_to_thirty_days() {
        assert_eq!(parse_ttl("10m"), Ok(Duration::from_secs(600)));
        assert_eq!(parse_ttl("30d"), Ok(MAX_TTL));
        for bad in ["0", "0s", "31d", "soon", ""] {
            assert!(parse_ttl(bad).is_err(), "{bad}");
        }
    }
}
