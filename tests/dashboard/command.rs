//! The command itself: its Python name and flags, a port already in use
//! (IPv4 and IPv6), host checks and warnings, opening a browser, and
//! `reload`.

use std::net::TcpListener;
use std::os::unix::fs::PermissionsExt;
use std::process::Output;

use crate::harness::{Project, stderr, wait_for};

use crate::harness::dashboard::{Dashboard, command};

fn run(project: &Project, args: &[&str]) -> Output {
    command(project, args).output().expect("run swarm")
}

#[test]
fn start_dashboard_takes_the_original_flags() {
    let project = Project::new();
    let dash = Dashboard::spawn({
        let mut cmd = command(
            &project,
            &[
                "start-dashboard",
                "--port",
                "0",
                "--host",
                "127.0.0.1",
                "--no-browser",
                "--reload",
            ],
        );
        cmd.env("DISPLAY", ":0");
        cmd
    });
    let health = dash.get("/health");
    assert_eq!(health.status, 200);
    assert_eq!(health.json()["status"], "healthy");
    let (status, printed, stderr) = dash.stop();
    assert!(status.success(), "{stderr}");
    assert!(
        printed[0].starts_with("swarm dashboard for "),
        "{printed:?}"
    );
    assert!(
        printed.iter().any(|l| l == "Press Ctrl+C to stop"),
        "{printed:?}"
    );
    assert!(!stderr.contains("browser"), "--no-browser: {stderr}");
}

#[test]
fn a_port_in_use_is_a_clear_error() {
    let project = Project::new();
    let taken = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = taken.local_addr().expect("addr").port().to_string();
    let out = run(
        &project,
        &[
            "dashboard",
            "--host",
            "127.0.0.1",
            "--port",
            &port,
            "--no-browser",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains(&format!("port {port} is already in use")) && err.contains("--port"),
        "{err}"
    );
    // `localhost` covers both loopbacks, so a port taken on either one
    // is in use.
    let out = run(
        &project,
        &[
            "dashboard",
            "--host",
            "localhost",
            "--port",
            &port,
            "--no-browser",
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
}

#[test]
fn a_port_in_use_on_ipv6_only_is_an_error_too() {
    // Machines without IPv6 have nothing to test here.
    let Ok(taken) = TcpListener::bind("[::1]:0") else {
        return;
    };
    let project = Project::new();
    let port = taken.local_addr().expect("addr").port().to_string();
    for host in ["::1", "localhost"] {
        let out = run(
            &project,
            &["dashboard", "--host", host, "--port", &port, "--no-browser"],
        );
        assert_eq!(
            out.status.code(),
            Some(1),
            "--host {host}: {}",
            stderr(&out)
        );
        assert!(
            stderr(&out).contains(&format!("port {port} is already in use (on [::1]:{port})")),
            "--host {host}: {}",
            stderr(&out)
        );
    }
}

#[test]
fn hosts_are_checked_and_exposed_ones_warned_about() {
    let project = Project::new();
    let out = run(
        &project,
        &["dashboard", "--host", "bad host", "--no-browser"],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("--host: invalid host"),
        "{}",
        stderr(&out)
    );
    let out = run(&project, &["dashboard", "--port", "70000"]);
    assert_eq!(out.status.code(), Some(2));
    // Every interface: warned about before anything is bound (here the
    // port is taken, so nothing is).
    let taken = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = taken.local_addr().expect("addr").port().to_string();
    let out = run(
        &project,
        &[
            "dashboard",
            "--host",
            "0.0.0.0",
            "--port",
            &port,
            "--no-browser",
        ],
    );
    let err = stderr(&out);
    assert!(err.contains("every network interface"), "{err}");
    assert!(err.contains("DASHBOARD_USERNAME"), "{err}");
    assert_eq!(out.status.code(), Some(1), "{err}");
    // The config's host and port are the defaults.
    project.write(
        ".claudeswarm.toml",
        &format!("[dashboard]\nhost = \"127.0.0.1\"\nport = {port}\n"),
    );
    let out = run(&project, &["dashboard", "--no-browser"]);
    assert!(
        stderr(&out).contains(&format!(
            "port {port} is already in use (on 127.0.0.1:{port})"
        )),
        "{}",
        stderr(&out)
    );
}

/// A stand-in `xdg-open` (`open` on macOS) that records the URL it was
/// asked to open.
fn fake_opener(dir: &std::path::Path, record: &std::path::Path) {
    let name = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    let script = dir.join(name);
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$1\" >> '{}'\n",
            record.display()
        ),
    )
    .expect("write");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

#[test]
fn a_browser_is_opened_only_when_one_can_be() {
    let project = Project::new();
    let bin = tempfile::tempdir().expect("tempdir");
    let record = bin.path().join("opened.txt");
    fake_opener(bin.path(), &record);
    let path = format!(
        "{}:{}",
        bin.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    // A graphical session and an opener: the URL is opened.
    let mut cmd = command(
        &project,
        &["dashboard", "--host", "127.0.0.1", "--port", "0"],
    );
    cmd.env("PATH", &path).env("DISPLAY", ":0");
    let dash = Dashboard::spawn(cmd);
    let opened = wait_for("the browser to be opened", || {
        std::fs::read_to_string(&record)
            .ok()
            .filter(|s| !s.is_empty())
    });
    // The opener is handed a private page that goes on to the URL: the
    // secret never shows in a process's arguments (`ps` shows those to
    // every account).
    let page = project.file(".swarm/dashboard-open.html");
    assert_eq!(opened, format!("{}\n", page.display()));
    assert!(!opened.contains(&dash.key()));
    let mode = std::fs::metadata(&page)
        .expect("the page")
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
    let html = std::fs::read_to_string(&page).expect("read the page");
    assert!(
        html.contains(&format!("content=\"0;url={}\"", dash.url())),
        "{html}"
    );
    let addr = dash.addr;
    let (status, _, stderr) = dash.stop();
    assert!(status.success());
    assert!(
        stderr.contains(&format!("Opened browser to http://{addr}/\n")),
        "{stderr}"
    );
    assert!(!page.exists(), "the page goes with the run");

    // No graphical session: nothing is started (xdg-open would run a text
    // browser in this terminal), and the dashboard runs all the same.
    // macOS always has one.
    std::fs::remove_file(&record).expect("rm");
    if !cfg!(target_os = "macos") {
        let mut cmd = command(
            &project,
            &["dashboard", "--host", "127.0.0.1", "--port", "0"],
        );
        cmd.env("PATH", &path);
        let dash = Dashboard::spawn(cmd);
        assert_eq!(dash.get("/health").status, 200);
        let (status, _, stderr) = dash.stop();
        assert!(status.success());
        assert!(
            stderr.contains("Not opening a browser: no graphical session"),
            "{stderr}"
        );
        assert!(!record.exists());
    }

    // A config that says no.
    project.write(
        ".claudeswarm.toml",
        "[dashboard]\nauto_open_browser = false\n",
    );
    let mut cmd = command(
        &project,
        &["dashboard", "--host", "127.0.0.1", "--port", "0"],
    );
    cmd.env("PATH", &path).env("DISPLAY", ":0");
    let dash = Dashboard::spawn(cmd);
    let (status, _, stderr) = dash.stop();
    assert!(status.success());
    assert!(!stderr.contains("browser"), "{stderr}");
    assert!(!record.exists());
}

#[test]
fn reload_says_how_to_update_and_changes_nothing() {
    let project = Project::new();
    let before = project.ls(".");
    for args in [
        vec!["reload"],
        vec!["reload", "--source", "local"],
        vec!["reload", "--source", "github"],
    ] {
        let out = run(&project, &args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains("cargo install --locked --force --path "),
            "{text}"
        );
        assert!(text.contains("Nothing was changed"), "{text}");
    }
    assert_eq!(project.ls("."), before);
    let out = run(&project, &["reload", "--source", "pypi"]);
    assert_eq!(out.status.code(), Some(2));
}
