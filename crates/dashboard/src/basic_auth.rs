//! `BasicAuth`: HTTP Basic authentication for the dashboard, on when both
//! `DASHBOARD_USERNAME` and `DASHBOARD_PASSWORD` are set. The
//! credentials are compared in constant time, over digests, so neither the
//! content nor the length of a guess shows in how long the answer takes.
//! tower-http's request validation applies it to every request; the check
//! and the answer (the original's JSON) are ours.

use axum::body::Body;
use axum::http::{Request, Response, header};
use base64::Engine;
use base64::alphabet;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use sha2::{Digest, Sha256};
use tower_http::validate_request::ValidateRequest;

use super::reply;

/// The credentials every request must carry.
#[derive(Clone)]
pub struct BasicAuth {
    user: [u8; 32],
    password: [u8; 32],
}

impl std::fmt::Debug for BasicAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("BasicAuth(..)")
    }
}

/// What a request's `Authorization` header amounts to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AuthCheck {
    /// The right credentials.
    Allowed,
    /// No Basic credentials at all.
    Missing,
    /// Credentials that are wrong or cannot be read.
    Wrong,
}

impl BasicAuth {
    /// Credentials from the two variables' values: `None` (no
    /// authentication) unless both are set and non-empty, as in the
    /// original.
    pub fn from_values(user: Option<&str>, password: Option<&str>) -> Option<BasicAuth> {
        match (user, password) {
            (Some(u), Some(p)) if !u.is_empty() && !p.is_empty() => Some(BasicAuth {
                user: digest(u.as_bytes()),
                password: digest(p.as_bytes()),
            }),
            _ => None,
        }
    }

    /// Judges the value of an `Authorization` header.
    pub(crate) fn check(&self, header: Option<&str>) -> AuthCheck {
        let Some(value) = header else {
            return AuthCheck::Missing;
        };
        let value = value.trim();
        let (scheme, rest) = value.split_once(' ').unwrap_or((value, ""));
        if !scheme.eq_ignore_ascii_case("basic") {
            return AuthCheck::Missing;
        }
        let Ok(decoded) = LENIENT.decode(rest.trim()) else {
            return AuthCheck::Wrong;
        };
        let Some(colon) = decoded.iter().position(|&b| b == b':') else {
            return AuthCheck::Wrong;
        };
        let user_ok = same(&digest(&decoded[..colon]), &self.user);
        let password_ok = same(&digest(&decoded[colon + 1..]), &self.password);
        // `&`, not `&&`: both comparisons always run.
        if user_ok & password_ok {
            AuthCheck::Allowed
        } else {
            AuthCheck::Wrong
        }
    }
}

/// Standard base64 with or without its padding, as clients send it.
const LENIENT: GeneralPurpose = GeneralPurpose::new(
    &alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// The check every request goes through: nothing when no credentials are
/// set, otherwise the right ones or a 401 that says which was wrong.
#[derive(Clone, Debug)]
pub(super) struct RequireAuth(pub Option<BasicAuth>);

impl<B> ValidateRequest<B> for RequireAuth {
    type ResponseBody = Body;

    fn validate(&mut self, request: &mut Request<B>) -> Result<(), Response<Body>> {
        let Some(auth) = &self.0 else {
            return Ok(());
        };
        let given = request
            .headers()
            .get(header::AUTHORIZATION)
            .map(|v| v.to_str().unwrap_or("?"));
        let text = match auth.check(given) {
            AuthCheck::Allowed => return Ok(()),
            AuthCheck::Missing => "Authentication required",
            AuthCheck::Wrong => "Invalid credentials",
        };
        let mut refusal = reply::detail(axum::http::StatusCode::UNAUTHORIZED, text);
        refusal.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            header::HeaderValue::from_static("Basic realm=\"swarm dashboard\", charset=\"UTF-8\""),
        );
        Err(refusal)
    }
}

fn digest(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

/// Equal or not, looking at every byte whatever the first difference.
fn same(a: &[u8; 32], b: &[u8; 32]) -> bool {
    let mut diff = 0u8;
    for (x, y) in a.iter().zip(b) {
        diff |= std::hint::black_box(x ^ y);
    }
    diff == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(user_pass: &str) -> String {
        const ALPHABET: &[u8; 64] =
            b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let bytes = user_pass.as_bytes();
        let mut s = String::from("Basic ");
        for chunk in bytes.chunks(3) {
            let n = chunk
                .iter()
                .enumerate()
                .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
            for i in 0..4 {
                if i <= chunk.len() {
                    s.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
                } else {
                    s.push('=');
                }
            }
        }
        s
    }

    #[test]
    fn needs_both_variables() {
        assert!(BasicAuth::from_values(Some("a"), None).is_none());
        assert!(BasicAuth::from_values(None, Some("b")).is_none());
        assert!(BasicAuth::from_values(Some(""), Some("b")).is_none());
        assert!(BasicAuth::from_values(Some("a"), Some("b")).is_some());
    }

    #[test]
    fn judges_credentials() {
        let auth = BasicAuth::from_values(Some("alice"), Some("p:ss wörd")).expect("on");
        assert_eq!(auth.check(None), AuthCheck::Missing);
        assert_eq!(auth.check(Some("Bearer abc")), AuthCheck::Missing);
        assert_eq!(
            auth.check(Some(&header("alice:p:ss wörd"))),
            AuthCheck::Allowed
        );
        assert_eq!(
            auth.check(Some(&header("alice:p:ss wörd").replace("Basic", "basic"))),
            AuthCheck::Allowed
        );
        for wrong in [
            "alice:p:ss",
            "alice:",
            "bob:p:ss wörd",
            ":",
            "alicep:ss wörd",
        ] {
            assert_eq!(
                auth.check(Some(&header(wrong))),
                AuthCheck::Wrong,
                "{wrong}"
            );
        }
        assert_eq!(auth.check(Some("Basic !!!")), AuthCheck::Wrong);
    }
}
