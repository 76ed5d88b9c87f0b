//! The `list-panes -F` parser never panics, and what it accepts is sane.
#![no_main]

use libfuzzer_sys::fuzz_target;
use swarm::parse_list_panes;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (panes, _skipped) = parse_list_panes(&text);
    for p in panes {
        assert!(p.id.as_str().starts_with('%'));
        assert!(!p.address().is_empty());
    }
});
