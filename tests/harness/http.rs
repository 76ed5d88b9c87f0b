//! A small HTTP server for the tests of what swarm posts (webhooks): it
//! answers with the statuses it is given and hands over every request it
//! read.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::mpsc;
use std::thread;

use super::PATIENCE;

/// One request as the test server read it.
#[derive(Debug)]
pub struct Received {
    pub method: String,
    pub path: String,
    /// Header names in lower case.
    pub headers: HashMap<String, String>,
    pub body: Vec<u8>,
}

impl Received {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "body is not JSON ({e}): {}",
                String::from_utf8_lossy(&self.body)
            )
        })
    }
}

/// A one-thread HTTP server on 127.0.0.1 that answers its connections,
/// in order, with `statuses`, then stops; every request it read comes
/// out of the receiver. Returns its port.
pub fn http_server(statuses: &[u16]) -> (u16, mpsc::Receiver<Received>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("address").port();
    let (tx, rx) = mpsc::channel();
    let statuses = statuses.to_vec();
    thread::spawn(move || {
        for status in statuses {
            let Ok((stream, _)) = listener.accept() else {
                return;
            };
            stream.set_read_timeout(Some(PATIENCE)).expect("timeout");
            let mut reader = BufReader::new(stream);
            let mut line = String::new();
            reader.read_line(&mut line).expect("request line");
            let mut words = line.split_whitespace();
            let method = words.next().unwrap_or_default().to_owned();
            let path = words.next().unwrap_or_default().to_owned();
            let mut headers = HashMap::new();
            loop {
                let mut header = String::new();
                reader.read_line(&mut header).expect("header");
                let header = header.trim_end();
                if header.is_empty() {
                    break;
                }
                if let Some((name, value)) = header.split_once(':') {
                    headers.insert(name.trim().to_ascii_lowercase(), value.trim().to_owned());
                }
            }
            let length: usize = headers
                .get("content-length")
                .and_then(|l| l.parse().ok())
                .unwrap_or(0);
            let mut body = vec![0; length];
            reader.read_exact(&mut body).expect("body");
            let answer = format!(
                "HTTP/1.1 {status} Whatever\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"
            );
            let mut stream = reader.into_inner();
            stream.write_all(answer.as_bytes()).expect("answer");
            let _ = tx.send(Received {
                method,
                path,
                headers,
                body,
            });
        }
    });
    (port, rx)
}
