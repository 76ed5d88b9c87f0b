//! The answers the dashboard builds itself: JSON written so that it is
//! safe to serve (ASCII only, with `<`, `>` and `&` escaped, so no browser
//! can take a JSON body, or agent text inside it, for markup), the
//! original's `{"detail": ...}` errors, and the page's files.

use axum::body::Body;
use axum::http::{HeaderValue, Response, StatusCode, header};
use serde_json::{Value, json};

use swarm_core::support::json::{self, Layout};

/// A JSON answer.
pub(super) fn json(status: StatusCode, value: &Value) -> Response<Body> {
    let mut r = Response::new(Body::from(json_bytes(value)));
    *r.status_mut() = status;
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

/// `{"detail": text}`, the original's error shape.
pub(super) fn detail(status: StatusCode, text: &str) -> Response<Body> {
    json(status, &json!({ "detail": text }))
}

/// One of the page's files.
pub(super) fn asset(content_type: &'static str, body: impl Into<Body>) -> Response<Body> {
    let mut r = Response::new(body.into());
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    r
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

/// `json_bytes` as text (it is ASCII).
pub(super) fn json_text(value: &Value) -> String {
    String::from_utf8_lossy(&json_bytes(value)).into_owned()
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
}
