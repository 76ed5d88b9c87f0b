//! The pattern-overlap check is conservative: whenever globset (the
//! matcher locks use) matches one path with both patterns, the check says
//! they overlap; and overlap is symmetric.
#![no_main]

use globset::GlobBuilder;
use libfuzzer_sys::fuzz_target;
use swarm::GlobModel;

fn matcher(pattern: &str) -> Option<globset::GlobMatcher> {
    GlobBuilder::new(pattern)
        .literal_separator(false)
        .backslash_escape(false)
        .build()
        .ok()
        .map(|g| g.compile_matcher())
}

fuzz_target!(|input: (String, String, String)| {
    let (a, b, path) = input;
    if a.len() > 48 || b.len() > 48 || path.len() > 48 {
        return;
    }
    let (ma, mb) = (GlobModel::pattern(&a), GlobModel::pattern(&b));
    assert_eq!(ma.overlaps(&mb), mb.overlaps(&ma), "overlap of {a:?} and {b:?} is not symmetric");
    if let (Some(ga), Some(gb)) = (matcher(&a), matcher(&b)) {
        if ga.is_match(&path) && gb.is_match(&path) {
            assert!(ma.overlaps(&mb), "{a:?} and {b:?} both match {path:?} but no overlap was seen");
        }
        if ga.is_match(&path) {
            assert!(ma.matches(&path), "{a:?} matches {path:?} but its model does not");
        }
    }
});
