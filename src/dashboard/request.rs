//! `Request`: the head of one HTTP/1.x request, read with hard limits on
//! its size so that no client can make the server buffer without end. The
//! dashboard only serves GET, so a body is never read: every answer closes
//! the connection instead.

use std::io::{self, BufRead, Read};

/// Most bytes accepted for the request line and headers together.
pub(super) const MAX_HEAD_BYTES: usize = 16 * 1024;

/// Most header lines accepted.
pub(super) const MAX_HEADERS: usize = 100;

/// The HTTP version a request spoke.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Version {
    /// HTTP/1.0: no chunked answers.
    Http10,
    /// HTTP/1.1.
    Http11,
}

/// One request's head.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Request {
    /// `GET`, `HEAD`, ... (case-sensitive, as HTTP says).
    pub method: String,
    /// The path as sent, not decoded, without the query.
    pub path: String,
    /// The query string after `?`, if any, not decoded.
    pub query: Option<String>,
    /// The protocol version.
    pub version: Version,
    /// Header names in lower case, with their values, in order.
    pub headers: Vec<(String, String)>,
}

/// Why no request could be read.
#[derive(Debug)]
pub(super) enum RequestError {
    /// The client closed the connection (or sent nothing in time).
    Closed,
    /// The head is larger than `MAX_HEAD_BYTES` or has too many headers.
    TooLarge,
    /// Not HTTP/1.x.
    Malformed(&'static str),
}

impl Request {
    /// Reads a request head.
    pub(super) fn read(reader: &mut impl BufRead) -> Result<Request, RequestError> {
        let mut budget = MAX_HEAD_BYTES;
        // A client may send empty lines before the request line (RFC 9112
        // section 2.2).
        let mut line = String::new();
        for _ in 0..4 {
            line = read_line(reader, &mut budget)?.ok_or(RequestError::Closed)?;
            if !line.is_empty() {
                break;
            }
        }
        let mut parts = line.split(' ');
        let (Some(method), Some(target), Some(version), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(RequestError::Malformed("bad request line"));
        };
        if method.is_empty() || !method.bytes().all(is_token_byte) {
            return Err(RequestError::Malformed("bad method"));
        }
        let version = match version {
            "HTTP/1.1" => Version::Http11,
            "HTTP/1.0" => Version::Http10,
            _ => return Err(RequestError::Malformed("unsupported HTTP version")),
        };
        let target = origin_form(target).ok_or(RequestError::Malformed("bad request target"))?;
        let (path, query) = match target.split_once('?') {
            Some((p, q)) => (p.to_owned(), Some(q.to_owned())),
            None => (target.to_owned(), None),
        };
        let mut headers = Vec::new();
        loop {
            let line = read_line(reader, &mut budget)?
                .ok_or(RequestError::Malformed("the head ended early"))?;
            if line.is_empty() {
                break;
            }
            if headers.len() == MAX_HEADERS {
                return Err(RequestError::TooLarge);
            }
            let (name, value) = line
                .split_once(':')
                .ok_or(RequestError::Malformed("bad header line"))?;
            // Folded lines and spaces before the colon are obsolete forms
            // that proxies read differently: refused (RFC 9112 section 5).
            if name.is_empty() || !name.bytes().all(is_token_byte) {
                return Err(RequestError::Malformed("bad header name"));
            }
            headers.push((
                name.to_ascii_lowercase(),
                value.trim_matches([' ', '\t']).to_owned(),
            ));
        }
        Ok(Request {
            method: method.to_owned(),
            path,
            query,
            version,
            headers,
        })
    }

    /// The value of a header (the first one of that name).
    pub(super) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// A query parameter, decoded; the last one when it is repeated.
    pub(super) fn query_param(&self, name: &str) -> Option<String> {
        let query = self.query.as_deref()?;
        query.split('&').rev().find_map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            (percent_decode(k) == name).then(|| percent_decode(v))
        })
    }
}

/// The path-and-query of a request target: as is in origin form
/// (`/api?x`), the part after the authority in absolute form
/// (`http://host/api?x`, which servers must accept too).
fn origin_form(target: &str) -> Option<&str> {
    if target.starts_with('/') {
        return Some(target);
    }
    let lower = target.get(..8).unwrap_or(target).to_ascii_lowercase();
    let rest = if lower.starts_with("http://") {
        &target[7..]
    } else if lower.starts_with("https://") {
        &target[8..]
    } else {
        return None;
    };
    Some(rest.find('/').map_or("/", |i| &rest[i..]))
}

fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// One line without its line ending; `None` at the end of the stream.
fn read_line(
    reader: &mut impl BufRead,
    budget: &mut usize,
) -> Result<Option<String>, RequestError> {
    let mut bytes = Vec::new();
    let limit = u64::try_from(*budget).unwrap_or(u64::MAX).saturating_add(1);
    let n = match reader.by_ref().take(limit).read_until(b'\n', &mut bytes) {
        Ok(n) => n,
        Err(e) if e.kind() == io::ErrorKind::Interrupted => return read_line(reader, budget),
        Err(_) => return Err(RequestError::Closed),
    };
    if n == 0 {
        return Ok(None);
    }
    if n > *budget {
        return Err(RequestError::TooLarge);
    }
    if bytes.last() != Some(&b'\n') {
        return Err(RequestError::Closed);
    }
    *budget -= n;
    bytes.pop();
    if bytes.last() == Some(&b'\r') {
        bytes.pop();
    }
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|_| RequestError::Malformed("the head is not UTF-8"))
}

/// `%XX` escapes decoded and `+` read as a space (form encoding); a `%`
/// not followed by two hex digits is kept as it is.
pub(super) fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' => match (
                bytes.get(i + 1).copied().and_then(hex),
                bytes.get(i + 2).copied().and_then(hex),
            ) {
                (Some(high), Some(low)) => {
                    out.push(high << 4 | low);
                    i += 2;
                }
                _ => out.push(b'%'),
            },
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn hex(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Request, RequestError> {
        Request::read(&mut io::Cursor::new(text.as_bytes().to_vec()))
    }

    #[test]
    fn reads_a_request_head() {
        let r =
            parse("GET /api/v1/messages?limit=5&x=%41+b HTTP/1.1\r\nHost: a\r\nX-Y:  z \r\n\r\n")
                .expect("valid");
        assert_eq!(
            (r.method.as_str(), r.path.as_str()),
            ("GET", "/api/v1/messages")
        );
        assert_eq!(r.version, Version::Http11);
        assert_eq!(r.header("host"), Some("a"));
        assert_eq!(r.header("X-y"), Some("z"));
        assert_eq!(r.query_param("limit").as_deref(), Some("5"));
        assert_eq!(r.query_param("x").as_deref(), Some("A b"));
        assert_eq!(r.query_param("nope"), None);
        let r = parse("\nHEAD http://h:1/a?limit=1&limit=2 HTTP/1.0\n\n").expect("valid");
        assert_eq!((r.path.as_str(), r.version), ("/a", Version::Http10));
        assert_eq!(r.query_param("limit").as_deref(), Some("2"));
        assert_eq!(parse("GET http://h HTTP/1.1\n\n").expect("valid").path, "/");
    }

    #[test]
    fn refuses_what_is_not_http() {
        for bad in [
            "GET /\r\n\r\n",
            "GET / HTTP/2.0\r\n\r\n",
            "GET  / HTTP/1.1\r\n\r\n",
            "G(T / HTTP/1.1\r\n\r\n",
            "GET * HTTP/1.1\r\n\r\n",
            "GET / HTTP/1.1\r\nno colon\r\n\r\n",
            "GET / HTTP/1.1\r\nName : v\r\n\r\n",
            "GET / HTTP/1.1\r\n folded\r\n\r\n",
            "GET / HTTP/1.1\r\nA: b\r\n",
        ] {
            assert!(
                matches!(parse(bad), Err(RequestError::Malformed(_))),
                "{bad:?}"
            );
        }
        assert!(matches!(parse(""), Err(RequestError::Closed)));
        assert!(matches!(parse("GET / HT"), Err(RequestError::Closed)));
    }

    #[test]
    fn limits_the_head() {
        let long = format!("GET /{} HTTP/1.1\r\n\r\n", "a".repeat(MAX_HEAD_BYTES));
        assert!(matches!(parse(&long), Err(RequestError::TooLarge)));
        let many = format!(
            "GET / HTTP/1.1\r\n{}\r\n",
            "A: b\r\n".repeat(MAX_HEADERS + 1)
        );
        assert!(matches!(parse(&many), Err(RequestError::TooLarge)));
    }

    #[test]
    fn decodes_percent_escapes() {
        assert_eq!(percent_decode("a%2Fb+c%zz%4"), "a/b c%zz%4");
        assert_eq!(percent_decode("%2e%2E"), "..");
        assert_eq!(percent_decode("%ff"), "\u{fffd}");
    }
}
