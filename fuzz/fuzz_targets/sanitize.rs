//! The sanitiser: nothing dangerous survives, and it is idempotent.
#![no_main]

use libfuzzer_sys::fuzz_target;
use swarm::sanitize;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let clean = sanitize::strip_controls(&text);
    for c in clean.chars() {
        let dangerous = (c < ' ' && c != '\n' && c != '\t')
            || c == '\x7f'
            || ('\u{80}'..='\u{9f}').contains(&c)
            || ('\u{202a}'..='\u{202e}').contains(&c)
            || ('\u{2066}'..='\u{2069}').contains(&c);
        assert!(!dangerous, "{c:?} survived");
    }
    assert_eq!(sanitize::strip_controls(&clean), clean);
    let message = sanitize::message(&text);
    assert_eq!(sanitize::message(&message), message);
    assert!(!sanitize::one_line(&text).contains('\n'));
});
