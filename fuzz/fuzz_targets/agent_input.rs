//! The demo agent's input parser: any byte stream, split anywhere, gives
//! the same submissions.
#![no_main]

use libfuzzer_sys::fuzz_target;
use swarm::InputParser;

fuzz_target!(|data: &[u8]| {
    let Some((&split, bytes)) = data.split_first() else {
        return;
    };
    let mut whole = InputParser::default();
    let all = whole.feed(bytes);
    let mut parts = InputParser::default();
    let at = (split as usize).min(bytes.len());
    let mut pieces = parts.feed(&bytes[..at]);
    pieces.extend(parts.feed(&bytes[at..]));
    assert_eq!(all, pieces);
    assert_eq!(whole.input(), parts.input());
});
