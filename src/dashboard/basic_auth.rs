//! `BasicAuth`: HTTP Basic authentication for the dashboard, on when both
//! `DASHBOARD_USERNAME` and `DASHBOARD_PASSWORD` are set (README, Dashboard). The
//! credentials are compared in constant time, over digests, so neither the
//! content nor the length of a guess shows in how long the answer takes.

use sha2::{Digest, Sha256};

/// The credentials every request must carry.
#[derive(Clone)]
pub(crate) struct BasicAuth {
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
pub(crate) enum Verdict {
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
    pub(crate) fn from_values(user: Option<&str>, password: Option<&str>) -> Option<BasicAuth> {
        match (user, password) {
            (Some(u), Some(p)) if !u.is_empty() && !p.is_empty() => Some(BasicAuth {
                user: digest(u.as_bytes()),
                password: digest(p.as_bytes()),
            }),
            _ => None,
        }
    }

    /// Judges the value of an `Authorization` header.
    pub(crate) fn check(&self, header: Option<&str>) -> Verdict {
        let Some(value) = header else {
            return Verdict::Missing;
        };
        let value = value.trim();
        let (scheme, rest) = value.split_once(' ').unwrap_or((value, ""));
        if !scheme.eq_ignore_ascii_case("basic") {
            return Verdict::Missing;
        }
        let Some(decoded) = base64_decode(rest.trim()) else {
            return Verdict::Wrong;
        };
        let Some(colon) = decoded.iter().position(|&b| b == b':') else {
            return Verdict::Wrong;
        };
        let user_ok = same(&digest(&decoded[..colon]), &self.user);
        let password_ok = same(&digest(&decoded[colon + 1..]), &self.password);
        // `&`, not `&&`: both comparisons always run.
        if user_ok & password_ok {
            Verdict::Allowed
        } else {
            Verdict::Wrong
        }
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

/// Standard base64 (RFC 4648), padding optional; `None` for anything else.
pub(super) fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let text = text.trim_end_matches('=');
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let mut acc = 0u32;
    let mut bits = 0;
    for b in text.bytes() {
        let v = match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    // A single leftover character cannot be the end of any encoding.
    (bits < 6).then_some(out)
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
    fn decodes_base64() {
        assert_eq!(
            base64_decode("YWxpY2U6czNjcjN0"),
            Some(b"alice:s3cr3t".to_vec())
        );
        assert_eq!(base64_decode("YQ=="), Some(b"a".to_vec()));
        assert_eq!(base64_decode("YQ"), Some(b"a".to_vec()));
        assert_eq!(base64_decode(""), Some(Vec::new()));
        assert_eq!(base64_decode("Y"), None);
        assert_eq!(base64_decode("YW!j"), None);
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
        assert_eq!(auth.check(None), Verdict::Missing);
        assert_eq!(auth.check(Some("Bearer abc")), Verdict::Missing);
        assert_eq!(
            auth.check(Some(&header("alice:p:ss wörd"))),
            Verdict::Allowed
        );
        assert_eq!(
            auth.check(Some(&header("alice:p:ss wörd").replace("Basic", "basic"))),
            Verdict::Allowed
        );
        for wrong in [
            "alice:p:ss",
            "alice:",
            "bob:p:ss wörd",
            ":",
            "alicep:ss wörd",
        ] {
            assert_eq!(auth.check(Some(&header(wrong))), Verdict::Wrong, "{wrong}");
        }
        assert_eq!(auth.check(Some("Basic !!!")), Verdict::Wrong);
    }
}
