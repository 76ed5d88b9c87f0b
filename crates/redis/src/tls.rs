//! The certificate authorities a `rediss://` connection trusts when
//! `store.tls_ca_file` names a file: that file's and the system's, as one
//! PEM bundle (the client takes a single bundle, which replaces the
//! system's roots rather than adding to them).

use std::path::Path;
use std::sync::OnceLock;

use base64::Engine;

/// The system's roots as PEM, read once per process.
static SYSTEM_ROOTS: OnceLock<Vec<u8>> = OnceLock::new();

/// The PEM bundle for a server verified against `ca_file` and the system's
/// roots; an error names the file and what is wrong with it.
pub(crate) fn bundle(ca_file: &Path) -> Result<Vec<u8>, String> {
    let own = std::fs::read(ca_file)
        .map_err(|e| format!("cannot read store.tls_ca_file {}: {e}", ca_file.display()))?;
    if !String::from_utf8_lossy(&own).contains("-----BEGIN CERTIFICATE-----") {
        return Err(format!(
            "store.tls_ca_file {} holds no PEM certificate (-----BEGIN CERTIFICATE-----)",
            ca_file.display()
        ));
    }
    let mut out = own;
    out.push(b'\n');
    out.extend_from_slice(SYSTEM_ROOTS.get_or_init(system_roots));
    Ok(out)
}

/// The system's trusted roots as PEM; none when the system has none (the
/// named file is then the only authority).
fn system_roots() -> Vec<u8> {
    let found = rustls_native_certs::load_native_certs();
    let mut out = Vec::new();
    for cert in found.certs {
        out.extend_from_slice(&pem(cert.as_ref()));
    }
    out
}

/// One DER certificate as PEM: base64 in lines of 64 characters.
fn pem(der: &[u8]) -> Vec<u8> {
    let text = base64::engine::general_purpose::STANDARD.encode(der);
    let mut out = String::from("-----BEGIN CERTIFICATE-----\n");
    for line in text.as_bytes().chunks(64) {
        out.push_str(&String::from_utf8_lossy(line));
        out.push('\n');
    }
    out.push_str("-----END CERTIFICATE-----\n");
    out.into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_certificate_becomes_pem_in_lines_of_64() {
        let der = vec![7u8; 100];
        let text = String::from_utf8(pem(&der)).expect("utf-8");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "-----BEGIN CERTIFICATE-----");
        assert_eq!(lines[1].len(), 64);
        assert_eq!(lines.last(), Some(&"-----END CERTIFICATE-----"));
        let body: String = lines[1..lines.len() - 1].concat();
        let back = base64::engine::general_purpose::STANDARD
            .decode(body)
            .expect("base64");
        assert_eq!(back, der);
    }

    #[test]
    fn a_file_without_a_certificate_is_refused_by_name() {
        let dir = tempfile::tempdir().expect("tempdir");
        let f = dir.path().join("ca.pem");
        std::fs::write(&f, "not a certificate").expect("write");
        let e = bundle(&f).expect_err("no PEM");
        assert!(e.contains("ca.pem") && e.contains("no PEM"), "{e}");
        let e = bundle(&dir.path().join("missing.pem")).expect_err("missing");
        assert!(e.contains("cannot read"), "{e}");
    }
}
