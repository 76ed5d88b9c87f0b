//! Opening the dashboard's listening sockets: every address the host
//! stands for, so that a browser finds the dashboard and not another
//! service whichever address family it tries first. For `localhost` that
//! is both 127.0.0.1 and ::1 (browsers try both, whatever `/etc/hosts`
//! says); a port taken on either is an error (the original checked IPv4
//! only).

use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, TcpListener, ToSocketAddrs};

use super::error::DashboardError;

/// How often a free port is looked for when port 0 asks for any.
const EPHEMERAL_TRIES: usize = 5;

/// The addresses to listen on for `host`, in order, without repeats.
/// Addresses swarm adds itself (::1 for `localhost`) are optional: they
/// are skipped when this machine has no IPv6.
pub(super) fn addresses(host: &str, port: u16) -> Result<Vec<(SocketAddr, bool)>, DashboardError> {
    if let Ok(ip) = host.parse::<IpAddr>() {
        return Ok(vec![(SocketAddr::new(ip, port), false)]);
    }
    let resolved: Vec<SocketAddr> = (host, port)
        .to_socket_addrs()
        .map_err(|source| DashboardError::Resolve {
            host: host.to_owned(),
            source,
        })?
        .collect();
    let mut out: Vec<(SocketAddr, bool)> = Vec::new();
    for addr in resolved {
        if !out.iter().any(|(a, _)| *a == addr) {
            out.push((addr, false));
        }
    }
    let bare = host.strip_suffix('.').unwrap_or(host);
    if bare.eq_ignore_ascii_case("localhost") {
        for ip in [
            IpAddr::V4(Ipv4Addr::LOCALHOST),
            IpAddr::V6(Ipv6Addr::LOCALHOST),
        ] {
            let addr = SocketAddr::new(ip, port);
            if !out.iter().any(|(a, _)| *a == addr) {
                out.push((addr, true));
            }
        }
    }
    if out.is_empty() {
        return Err(DashboardError::NoAddress(host.to_owned()));
    }
    Ok(out)
}

/// Listens on every address of `host` at `port` (0: any free port, the
/// same one on every address).
pub(super) fn bind_all(host: &str, port: u16) -> Result<Vec<TcpListener>, DashboardError> {
    let addrs = addresses(host, port)?;
    let mut tries = if port == 0 { EPHEMERAL_TRIES } else { 1 };
    loop {
        tries -= 1;
        match bind_once(&addrs, port) {
            // A free port on the first address can be taken on another:
            // look for another one.
            Err(DashboardError::PortInUse { .. }) if tries > 0 => continue,
            other => return other,
        }
    }
}

fn bind_once(addrs: &[(SocketAddr, bool)], port: u16) -> Result<Vec<TcpListener>, DashboardError> {
    let mut listeners = Vec::new();
    let mut chosen = port;
    let mut first_error = None;
    for &(addr, optional) in addrs {
        let addr = SocketAddr::new(addr.ip(), chosen);
        match TcpListener::bind(addr) {
            Ok(l) => {
                if chosen == 0 {
                    chosen = l
                        .local_addr()
                        .map_err(|source| DashboardError::Bind { addr, source })?
                        .port();
                }
                listeners.push(l);
            }
            Err(e) if e.kind() == io::ErrorKind::AddrInUse => {
                return Err(DashboardError::PortInUse { port: chosen, addr });
            }
            // No such address here (IPv6 switched off, a resolver answer
            // for another interface): fine as long as one address works.
            Err(e)
                if optional
                    || e.kind() == io::ErrorKind::AddrNotAvailable
                    || e.raw_os_error() == Some(libc::EAFNOSUPPORT) =>
            {
                first_error.get_or_insert(DashboardError::Bind { addr, source: e });
            }
            Err(source) => return Err(DashboardError::Bind { addr, source }),
        }
    }
    if listeners.is_empty() {
        let addr = addrs[0].0;
        return Err(first_error.unwrap_or(DashboardError::Bind {
            addr,
            source: io::Error::from(io::ErrorKind::AddrNotAvailable),
        }));
    }
    Ok(listeners)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn localhost_is_both_loopbacks() {
        let addrs: Vec<SocketAddr> = addresses("localhost", 8080)
            .expect("resolve")
            .into_iter()
            .map(|(a, _)| a)
            .collect();
        assert!(addrs.contains(&"127.0.0.1:8080".parse().expect("addr")));
        assert!(addrs.contains(&"[::1]:8080".parse().expect("addr")));
        assert_eq!(
            addresses("::1", 1).expect("literal"),
            [("[::1]:1".parse().expect("addr"), false)]
        );
    }

    #[test]
    fn a_taken_port_is_refused_and_port_zero_finds_one() {
        let taken = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = taken.local_addr().expect("addr").port();
        match bind_all("127.0.0.1", port) {
            Err(DashboardError::PortInUse { port: p, .. }) => assert_eq!(p, port),
            other => panic!("expected the port to be in use: {other:?}"),
        }
        let listeners = bind_all("localhost", 0).expect("any port");
        let ports: Vec<u16> = listeners
            .iter()
            .map(|l| l.local_addr().expect("addr").port())
            .collect();
        assert!(
            ports[0] != 0 && ports.iter().all(|p| *p == ports[0]),
            "{ports:?}"
        );
    }
}
