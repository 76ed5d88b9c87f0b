//! `AllowedHosts`: the `Host` headers the dashboard answers to. A web page
//! on another site can point its own name at 127.0.0.1 (DNS rebinding) and
//! then read a loopback server as if it were its own origin; the browser
//! still sends that site's name in `Host`, so refusing every name but the
//! ones the dashboard was started on (and those configured in
//! `dashboard.allowed_hosts`) closes the hole. Addresses typed as numbers
//! cannot be rebound, so a dashboard listening on every interface answers
//! to any of its addresses.

use std::net::IpAddr;

use swarm_core::domain::validate;

/// One allowed name, with the port it must come with (`None`: any).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Entry {
    name: String,
    port: Option<u16>,
}

/// The allowed `Host` values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AllowedHosts {
    entries: Vec<Entry>,
    /// Any IP address literal (listening on every interface).
    any_address: bool,
    /// The port listened on (0 until known).
    port: u16,
}

impl AllowedHosts {
    /// The names a dashboard listening on `host` answers to, plus
    /// `configured` ones (`name`, `name:port`, `[v6]:port`); an entry
    /// that is no host name or address is the error.
    pub fn new(host: &str, configured: &[String]) -> Result<AllowedHosts, String> {
        let mut hosts = AllowedHosts {
            entries: Vec::new(),
            any_address: false,
            port: 0,
        };
        let own = normal(host);
        match own.parse::<IpAddr>() {
            Ok(ip) if ip.is_unspecified() => {
                hosts.any_address = true;
                hosts.listened("localhost");
            }
            Ok(ip) if ip.is_loopback() => {
                hosts.listened(&ip.to_string());
                hosts.listened("localhost");
            }
            Ok(ip) => hosts.listened(&ip.to_string()),
            Err(_) if own == "localhost" => {
                for name in ["localhost", "127.0.0.1", "::1"] {
                    hosts.listened(name);
                }
            }
            Err(_) => hosts.listened(&own),
        }
        for raw in configured {
            let (name, port) =
                split(raw).ok_or_else(|| format!("{raw:?} is not a host or host:port"))?;
            validate::host(&name).map_err(|e| format!("{raw:?}: {e}"))?;
            hosts.entries.push(Entry { name, port });
        }
        Ok(hosts)
    }

    /// Sets the port listened on (known once bound); the names the
    /// dashboard was started on must come with it.
    pub(crate) fn set_port(&mut self, port: u16) {
        self.port = port;
        for e in &mut self.entries {
            if e.port == Some(0) {
                e.port = Some(port);
            }
        }
    }

    /// Adds a name that must come with the port listened on.
    fn listened(&mut self, name: &str) {
        self.entries.push(Entry {
            name: normal(name),
            port: Some(0),
        });
    }

    /// True when a request with this `Host` header may be answered.
    pub(crate) fn allows(&self, header: Option<&str>) -> bool {
        let Some((name, port)) = header.and_then(split) else {
            return false;
        };
        let port = port.unwrap_or(80);
        if self.any_address && name.parse::<IpAddr>().is_ok() && port == self.port {
            return true;
        }
        self.entries
            .iter()
            .any(|e| e.name == name && e.port.is_none_or(|p| p == port))
    }
}

/// A name in the form it is compared in: lower case, no trailing dot, an
/// IPv6 address without brackets.
fn normal(name: &str) -> String {
    let name = name.trim().trim_start_matches('[').trim_end_matches(']');
    let name = name.strip_suffix('.').unwrap_or(name);
    match name.parse::<IpAddr>() {
        Ok(ip) => ip.to_string(),
        Err(_) => name.to_ascii_lowercase(),
    }
}

/// `name[:port]` or `[v6][:port]` as name and port; `None` when the port
/// is not a number or the text is empty.
fn split(raw: &str) -> Option<(String, Option<u16>)> {
    let raw = raw.trim();
    let (name, port) = if let Some(rest) = raw.strip_prefix('[') {
        let (addr, after) = rest.split_once(']')?;
        match after {
            "" => (addr, None),
            p => (addr, Some(p.strip_prefix(':')?)),
        }
    } else if raw.matches(':').count() > 1 {
        // A bare IPv6 address carries no port.
        (raw, None)
    } else {
        match raw.rsplit_once(':') {
            Some((n, p)) => (n, Some(p)),
            None => (raw, None),
        }
    };
    let port = match port {
        Some(p) if !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) => Some(p.parse().ok()?),
        Some(_) => return None,
        None => None,
    };
    let name = normal(name);
    (!name.is_empty()).then_some((name, port))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hosts(host: &str, configured: &[&str], port: u16) -> AllowedHosts {
        let configured: Vec<String> = configured.iter().map(|s| s.to_string()).collect();
        let mut h = AllowedHosts::new(host, &configured).expect("valid");
        h.set_port(port);
        h
    }

    #[test]
    fn the_address_started_on_and_nothing_else() {
        let h = hosts("localhost", &[], 8080);
        for ok in [
            "localhost:8080",
            "LOCALHOST.:8080",
            "127.0.0.1:8080",
            "[::1]:8080",
        ] {
            assert!(h.allows(Some(ok)), "{ok}");
        }
        for bad in [
            "evil.example:8080",
            "localhost:8081",
            "localhost",
            "127.0.0.2:8080",
            "localhost.evil.example:8080",
            "",
            "localhost:80x",
        ] {
            assert!(!h.allows(Some(bad)), "{bad}");
        }
        assert!(!h.allows(None), "no Host at all");
        let h = hosts("127.0.0.1", &[], 9000);
        assert!(h.allows(Some("127.0.0.1:9000")) && h.allows(Some("localhost:9000")));
        assert!(!h.allows(Some("[::1]:9000")));
    }

    #[test]
    fn every_interface_takes_addresses_but_names_only_when_configured() {
        let h = hosts("0.0.0.0", &["box.lan", "dash.example:443"], 8080);
        assert!(h.allows(Some("192.168.1.20:8080")));
        assert!(h.allows(Some("[fe80::1]:8080")));
        assert!(h.allows(Some("box.lan:8080")) && h.allows(Some("BOX.LAN")));
        assert!(h.allows(Some("dash.example:443")));
        assert!(!h.allows(Some("dash.example:8080")));
        assert!(!h.allows(Some("rebound.evil.example:8080")));
        assert!(!h.allows(Some("192.168.1.20:9999")));
    }

    #[test]
    fn configured_entries_are_checked() {
        assert!(AllowedHosts::new("localhost", &["bad host".into()]).is_err());
        assert!(AllowedHosts::new("localhost", &["a.example:port".into()]).is_err());
        assert!(AllowedHosts::new("localhost", &["[::1]:8080".into()]).is_ok());
    }
}
