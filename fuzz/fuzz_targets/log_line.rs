//! Message-log lines: any line parses or is skipped, and merging outcomes
//! never panics.
#![no_main]

use libfuzzer_sys::fuzz_target;
use swarm::{LogContents, parse_line};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut contents = LogContents::default();
    for line in text.lines() {
        match parse_line(line) {
            Some(r) => contents.records.push(r),
            None => contents.skipped += 1,
        }
    }
    let _ = contents.messages();
});
