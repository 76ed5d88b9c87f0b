//! The Redis store over TLS with a password: a private redis-server that
//! speaks only TLS on its port, with a certificate signed by a CA made for
//! the test, and an ACL user that may touch only the swarm's own keys.
//! swarm reaches it with `rediss://` and `store.tls_ca_file`, and never
//! shows the password: not in errors, `config show` or the doctor.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

use crate::harness::{Project, swarm_outside_tmux, wait_for};

/// The ACL user's password: it must never appear in anything swarm prints.
const PASSWORD: &str = "Hunter2-tls-secret";

/// The swarm's name on the server; its keys are `{swarm:tlsproj}:...`.
const NAME: &str = "tlsproj";

/// A redis-server with a TLS port (and a unix socket for the test's own
/// administration), killed when dropped.
struct TlsServer {
    dir: tempfile::TempDir,
    child: Child,
    port: u16,
}

impl TlsServer {
    fn start() -> TlsServer {
        let dir = tempfile::tempdir().expect("tempdir");
        make_certificates(dir.path());
        // A free port: the listener is closed just before the server binds
        // it; another process taking it in between makes the wait fail.
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let p = |f: &str| dir.path().join(f);
        let child = Command::new("redis-server")
            .args(["--port", "0", "--save", "", "--appendonly", "no"])
            .arg("--unixsocket")
            .arg(p("admin.sock"))
            .args(["--unixsocketperm", "700"])
            .arg("--dir")
            .arg(dir.path())
            .args(["--tls-port", &port.to_string()])
            .arg("--tls-cert-file")
            .arg(p("server.crt"))
            .arg("--tls-key-file")
            .arg(p("server.key"))
            .arg("--tls-ca-cert-file")
            .arg(p("ca.crt"))
            .args(["--tls-auth-clients", "no", "--bind", "127.0.0.1"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server (`scripts/setup redis-server` installs it)");
        let server = TlsServer { dir, child, port };
        wait_for("redis-server to answer PING on its socket", || {
            let mut c = server.admin().ok()?;
            redis::cmd("PING").query::<String>(&mut c).ok()
        });
        let mut admin = server.admin().expect("admin connection");
        // Only the swarm's keys, by their hash-tagged prefix.
        let _: () = redis::cmd("ACL")
            .arg("SETUSER")
            .arg("swarmer")
            .arg("on")
            .arg(format!(">{PASSWORD}"))
            .arg("resetkeys")
            .arg(format!("~{{swarm:{NAME}}}:*"))
            .arg("resetchannels")
            .arg("+@all")
            .query(&mut admin)
            .expect("ACL SETUSER");
        server
    }

    fn admin(&self) -> redis::RedisResult<redis::Connection> {
        let url = format!("unix://{}", self.dir.path().join("admin.sock").display());
        redis::Client::open(url.as_str())?.get_connection()
    }

    fn ca(&self) -> PathBuf {
        self.dir.path().join("ca.crt")
    }

    fn url(&self, password: &str) -> String {
        format!("rediss://swarmer:{password}@localhost:{}", self.port)
    }

    /// Every key on the server.
    fn keys(&self) -> Vec<String> {
        let mut admin = self.admin().expect("admin connection");
        redis::cmd("KEYS").arg("*").query(&mut admin).expect("KEYS")
    }
}

impl Drop for TlsServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A CA and a server certificate it signed, for `localhost` and
/// 127.0.0.1, written to `dir` (`ca.crt`, `server.crt`, `server.key`).
fn make_certificates(dir: &Path) {
    let run = |args: &[&str]| {
        let out = Command::new("openssl")
            .args(args)
            .current_dir(dir)
            .output()
            .expect("openssl (`scripts/setup` installs it)");
        assert!(out.status.success(), "openssl {args:?}: {out:?}");
    };
    let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"];
    run(&[
        &[
            "req",
            "-x509",
            "-nodes",
            "-days",
            "2",
            "-subj",
            "/CN=swarm test CA",
        ][..],
        &ec[..],
        &["-keyout", "ca.key", "-out", "ca.crt"][..],
        &["-addext", "basicConstraints=critical,CA:TRUE"][..],
        &["-addext", "keyUsage=critical,keyCertSign,cRLSign"][..],
    ]
    .concat());
    run(&[
        &["req", "-nodes", "-subj", "/CN=localhost"][..],
        &ec[..],
        &["-keyout", "server.key", "-out", "server.csr"][..],
    ]
    .concat());
    std::fs::write(
        dir.join("server.ext"),
        "subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n\
         keyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n",
    )
    .expect("write server.ext");
    run(&[
        "x509",
        "-req",
        "-in",
        "server.csr",
        "-CA",
        "ca.crt",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-days",
        "2",
        "-out",
        "server.crt",
        "-extfile",
        "server.ext",
    ]);
}

/// `swarm ARGS...` in `project` on `url`, trusting `ca` when given.
fn on(project: &Project, url: &str, ca: Option<&Path>, args: &[&str]) -> Output {
    let mut cmd = swarm_outside_tmux(project);
    cmd.env("SWARM_STORE_BACKEND", "redis")
        .env("SWARM_STORE_URL", url)
        .env("SWARM_STORE_NAME", NAME);
    if let Some(ca) = ca {
        cmd.env("SWARM_STORE_TLS_CA_FILE", ca);
    }
    cmd.args(args).output().expect("run swarm")
}

fn said(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn a_swarm_on_a_tls_server_keeps_to_its_own_keys_and_never_shows_the_password() {
    let server = TlsServer::start();
    let project = Project::new();
    project.register(&["agent-1", "agent-2"]);
    let url = server.url(PASSWORD);
    let ca = server.ca();

    let out = on(
        &project,
        &url,
        Some(&ca),
        &["store", "migrate", "--to", "redis"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
    let out = on(
        &project,
        &url,
        Some(&ca),
        &["lock", "src/a.py", "--agent", "agent-1"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
    let out = on(
        &project,
        &url,
        Some(&ca),
        &["lock", "src/a.py", "--agent", "agent-2"],
    );
    assert_eq!(
        out.status.code(),
        Some(3),
        "the lock is held: {}",
        said(&out)
    );
    let out = on(&project, &url, Some(&ca), &["locks", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
    assert!(said(&out).contains("src/a.py"), "{}", said(&out));
    let keys = server.keys();
    assert!(!keys.is_empty(), "swarm wrote nothing on the server");
    let prefix = format!("{{swarm:{NAME}}}:");
    assert!(
        keys.iter().all(|k| k.starts_with(&prefix)),
        "keys outside the swarm's own: {keys:?}"
    );

    // Read-only views name the server without the password.
    for args in [&["config", "show"][..], &["doctor"][..]] {
        let out = on(&project, &url, Some(&ca), args);
        let text = said(&out);
        assert!(
            !text.contains(PASSWORD),
            "{args:?} showed the password: {text}"
        );
        assert!(text.contains("rediss://***@localhost"), "{args:?}: {text}");
    }

    // The server's certificate is signed by a CA the system does not
    // trust: without the CA file the connection is refused, and so is a
    // wrong password; neither error shows a password.
    let out = on(&project, &url, None, &["locks"]);
    assert_eq!(out.status.code(), Some(8), "{}", said(&out));
    assert!(!said(&out).contains(PASSWORD), "{}", said(&out));
    let wrong = server.url("not-the-password");
    let out = on(&project, &wrong, Some(&ca), &["locks"]);
    assert_ne!(out.status.code(), Some(0), "{}", said(&out));
    assert!(!said(&out).contains("not-the-password"), "{}", said(&out));
    // A CA file that holds no certificate is named.
    project.write("bad-ca.pem", "nothing here\n");
    let out = on(
        &project,
        &url,
        Some(&project.file("bad-ca.pem")),
        &["locks"],
    );
    assert_eq!(out.status.code(), Some(8), "{}", said(&out));
    assert!(said(&out).contains("bad-ca.pem"), "{}", said(&out));
}

#[test]
fn a_password_in_the_project_s_config_file_is_warned_about() {
    let project = Project::new();
    project.write(
        ".claudeswarm.toml",
        "[store]\nurl = \"rediss://swarmer:Hunter2-in-a-file@localhost:1\"\n",
    );
    let out = swarm_outside_tmux(&project)
        .args(["config", "show"])
        .output()
        .expect("run swarm");
    let text = said(&out);
    assert!(
        text.contains("store.url") && text.contains("holds a password"),
        "{text}"
    );
    assert!(text.contains("SWARM_STORE_URL"), "{text}");
    assert!(!text.contains("Hunter2-in-a-file"), "{text}");
}
