//! `Response`: one complete HTTP answer (status, headers, body), the
//! headers every answer carries, and JSON written so that it is safe to
//! serve: ASCII only, with `<`, `>` and `&` escaped, so no browser can take
//! a JSON body (or agent text inside it) for markup.

use std::io::{self, Write};

use serde_json::{Value, json};

use crate::support::json::{self, Layout};

/// Sent with every answer: no sniffing, no framing, a content security
/// policy that allows the dashboard's own files and nothing inline, no
/// referrer leaving the page.
pub(super) const SECURITY_HEADERS: [(&str, &str); 5] = [
    ("X-Content-Type-Options", "nosniff"),
    ("X-Frame-Options", "DENY"),
    (
        "Content-Security-Policy",
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
         connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; \
         frame-ancestors 'none'",
    ),
    ("X-XSS-Protection", "1; mode=block"),
    ("Referrer-Policy", "no-referrer"),
];

/// A complete answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Response {
    /// The status code.
    pub status: u16,
    /// Headers besides the common ones, `Content-Length` and `Connection`.
    pub headers: Vec<(&'static str, String)>,
    /// The body.
    pub body: Vec<u8>,
}

impl Response {
    /// A JSON body.
    pub(super) fn json(status: u16, value: &Value) -> Response {
        Response {
            status,
            headers: vec![
                ("Content-Type", "application/json".into()),
                ("Cache-Control", "no-store".into()),
            ],
            body: json_bytes(value),
        }
    }

    /// `{"detail": text}`, the original's error shape.
    pub(super) fn detail(status: u16, text: &str) -> Response {
        Response::json(status, &json!({ "detail": text }))
    }

    /// One of the page's files.
    pub(super) fn asset(content_type: &str, body: &'static str) -> Response {
        Response {
            status: 200,
            headers: vec![
                ("Content-Type", content_type.to_owned()),
                ("Cache-Control", "no-cache".into()),
            ],
            body: body.as_bytes().to_vec(),
        }
    }

    /// A temporary redirect that keeps the method.
    pub(super) fn redirect(location: String) -> Response {
        let mut r = Response::detail(307, "Temporary Redirect");
        r.headers.push(("Location", location));
        r
    }

    /// The same answer with one more header.
    pub(super) fn with(mut self, name: &'static str, value: impl Into<String>) -> Response {
        self.headers.push((name, value.into()));
        self
    }

    /// Writes the answer and its headers plus `extra` (CORS); the body is
    /// left out for a HEAD request. The connection is closed afterwards.
    pub(super) fn write_to(
        &self,
        out: &mut impl Write,
        extra: &[(&'static str, String)],
        head_only: bool,
    ) -> io::Result<()> {
        let mut head = format!("HTTP/1.1 {} {}\r\n", self.status, reason(self.status));
        for (name, value) in SECURITY_HEADERS
            .iter()
            .map(|(n, v)| (*n, *v))
            .chain(self.headers.iter().map(|(n, v)| (*n, v.as_str())))
            .chain(extra.iter().map(|(n, v)| (*n, v.as_str())))
        {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str(&format!(
            "Content-Length: {}\r\nConnection: close\r\n\r\n",
            self.body.len()
        ));
        let mut bytes = head.into_bytes();
        if !head_only {
            bytes.extend_from_slice(&self.body);
        }
        out.write_all(&bytes)?;
        out.flush()
    }
}

/// The reason phrase of the status codes the dashboard uses.
pub(super) fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        307 => "Temporary Redirect",
        400 => "Bad Request",
        401 => "Unauthorized",
        404 => "Not Found",
        405 => "Method Not Allowed",
        422 => "Unprocessable Content",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "",
    }
}

/// `value` on one line, ASCII only, with `<`, `>` and `&` as `\u` escapes.
/// Those three can only occur inside JSON strings, where the escape means
/// the same character, so the JSON is unchanged for any reader.
pub(super) fn json_bytes(value: &Value) -> Vec<u8> {
    // A `Value` always serialises.
    let plain = json::to_vec(value, Layout::Line).unwrap_or_else(|_| b"null".to_vec());
    let mut out = Vec::with_capacity(plain.len() + 16);
    for b in plain {
        match b {
            b'<' => out.extend_from_slice(b"\\u003c"),
            b'>' => out.extend_from_slice(b"\\u003e"),
            b'&' => out.extend_from_slice(b"\\u0026"),
            _ => out.push(b),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_is_ascii_and_markup_free_yet_the_same_value() {
        let v = json!({"content": "<script>alert('x')</script> & é \u{2028}", "n": 1});
        let bytes = json_bytes(&v);
        let text = String::from_utf8(bytes.clone()).expect("utf-8");
        assert!(text.is_ascii());
        assert!(!text.contains('<') && !text.contains('>') && !text.contains('&'));
        assert!(text.contains("\\u003cscript\\u003e"));
        let back: Value = serde_json::from_slice(&bytes).expect("valid JSON");
        assert_eq!(back, v);
    }

    #[test]
    fn writes_a_complete_answer() {
        let mut out = Vec::new();
        Response::detail(404, "Not Found")
            .write_to(&mut out, &[("Vary", "Origin".into())], false)
            .expect("write");
        let text = String::from_utf8(out).expect("utf-8");
        assert!(text.starts_with("HTTP/1.1 404 Not Found\r\n"), "{text}");
        assert!(text.contains("\r\nX-Frame-Options: DENY\r\n"));
        assert!(text.contains("\r\nVary: Origin\r\n"));
        assert!(text.contains("\r\nContent-Length: 23\r\n"));
        assert!(text.ends_with("\r\n\r\n{\"detail\": \"Not Found\"}"));
        assert!(
            !SECURITY_HEADERS
                .iter()
                .any(|(_, v)| v.contains("unsafe-inline"))
        );
        let mut head = Vec::new();
        Response::detail(404, "Not Found")
            .write_to(&mut head, &[], true)
            .expect("write");
        assert!(
            String::from_utf8(head)
                .expect("utf-8")
                .ends_with("\r\n\r\n")
        );
    }
}
