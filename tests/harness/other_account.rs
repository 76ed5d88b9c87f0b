//! Another local account, for the tests that hold swarm to "another
//! account gets nothing": the `nobody` account, reached with util-linux's
//! `runuser` (part of every Debian system). Only root may switch: other
//! runs skip, saying why. A Unix socket is tried with perl's socket module
//! (perl-base is part of every Debian system too; scripts/setup checks
//! for both), which prints what `connect` said.

use std::path::Path;
use std::process::Command;

/// The account the tests act as.
pub const OTHER: &str = "nobody";

/// `errno` of a connect refused for want of permission (Linux, macOS and
/// the BSDs agree).
pub const EACCES: i32 = 13;

/// What one `connect` said.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Connect {
    /// It connected.
    Connected,
    /// It was refused with this `errno`.
    Refused(i32),
}

/// The client: connects to the socket named by its one argument and says
/// `connected` or `errno N`.
const CLIENT: &str = r#"use Socket;
socket(my $s, PF_UNIX, SOCK_STREAM, 0) or die "socket: $!\n";
if (connect($s, pack_sockaddr_un($ARGV[0]))) { print "connected\n"; exit 0 }
printf "errno %d\n", $! + 0;"#;

/// True when the tests run as root, so that they can act as another
/// account; otherwise says why `test` is skipped (on stderr, which the
/// test runner shows).
#[allow(clippy::print_stderr)]
pub fn can_switch(test: &str) -> bool {
    let uid = Command::new("id").arg("-u").output().expect("id -u");
    if String::from_utf8_lossy(&uid.stdout).trim() == "0" {
        return true;
    }
    eprintln!("skipping {test}: acting as another user (runuser -u {OTHER}) needs root");
    false
}

/// `program` run as the other account (see `can_switch`), from `/`.
pub fn as_other(program: &str) -> Command {
    let mut command = Command::new("runuser");
    command.args(["-u", OTHER, "--", program]).current_dir("/");
    command
}

/// The other account's uid.
pub fn other_uid() -> u32 {
    let out = Command::new("id")
        .args(["-u", OTHER])
        .output()
        .expect("id -u nobody");
    String::from_utf8_lossy(&out.stdout)
        .trim()
        .parse()
        .expect("a uid")
}

/// Connects to `socket` as the other account.
pub fn connect_as_other(socket: &Path) -> Connect {
    let out = as_other("perl")
        .args(["-e", CLIENT])
        .arg(socket)
        .output()
        .expect("runuser -u nobody -- perl");
    let said = String::from_utf8_lossy(&out.stdout);
    match said.trim().strip_prefix("errno ") {
        Some(n) => Connect::Refused(n.parse().expect("an errno")),
        None if said.trim() == "connected" => Connect::Connected,
        None => panic!(
            "the client said {said:?} ({})",
            String::from_utf8_lossy(&out.stderr)
        ),
    }
}

/// Connects to `socket` as this account: the check that the socket the
/// other account was refused is there and listening.
pub fn connect_as_self(socket: &Path) -> Connect {
    match std::os::unix::net::UnixStream::connect(socket) {
        Ok(_) => Connect::Connected,
        Err(e) => Connect::Refused(e.raw_os_error().unwrap_or(-1)),
    }
}

/// Fails the test unless this account connects to `socket` (it is there
/// and listening) and the other account is refused for want of
/// permission (EACCES).
pub fn assert_only_its_own_account_connects(socket: &Path) {
    assert_eq!(connect_as_self(socket), Connect::Connected);
    assert_eq!(
        connect_as_other(socket),
        Connect::Refused(EACCES),
        "another account reaches {}",
        socket.display()
    );
}
