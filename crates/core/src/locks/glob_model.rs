//! `GlobModel`: a glob pattern as a tiny automaton over bytes, used to ask
//! whether two lock patterns can match a common path. globset answers
//! "does this path match this glob" but not "do these two globs overlap",
//! so that question is answered here.
//!
//! The model over-approximates globset: every path globset matches, the
//! model matches too (alternations `{a,b}` become `*`, negated or
//! non-ASCII classes become "any byte", `**` forms become `*`). Overlap is
//! then decided exactly on the models, so the check may report a conflict
//! between two patterns that share no path, but never misses one.

/// One position of the automaton.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tok {
    /// Exactly one byte from the set.
    One(ByteSet),
    /// Any run of bytes, `/` included, possibly empty.
    Star,
}

/// A set of bytes as a 256-bit map.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ByteSet([u64; 4]);

impl ByteSet {
    const ALL: ByteSet = ByteSet([u64::MAX; 4]);
    const EMPTY: ByteSet = ByteSet([0; 4]);

    fn single(b: u8) -> ByteSet {
        let mut s = ByteSet::EMPTY;
        s.insert(b);
        s
    }

    fn insert(&mut self, b: u8) {
        self.0[usize::from(b >> 6)] |= 1 << (b & 63);
    }

    fn insert_range(&mut self, lo: u8, hi: u8) {
        for b in lo..=hi {
            self.insert(b);
        }
    }

    fn complement(self) -> ByteSet {
        ByteSet(self.0.map(|w| !w))
    }

    fn intersects(self, other: ByteSet) -> bool {
        self.0.iter().zip(other.0).any(|(a, b)| a & b != 0)
    }

    fn is_empty(self) -> bool {
        self.0.iter().all(|w| *w == 0)
    }
}

/// A pattern (or a literal path) as a sequence of byte sets and stars.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GlobModel {
    toks: Vec<Tok>,
}

impl GlobModel {
    /// The model of a literal path: exactly these bytes.
    pub fn literal(path: &str) -> GlobModel {
        GlobModel {
            toks: path.bytes().map(|b| Tok::One(ByteSet::single(b))).collect(),
        }
    }

    /// The model of a glob pattern with globset's syntax (`*` crossing
    /// `/`, no backslash escapes). Never fails: anything it does not
    /// understand is widened, which keeps the model a superset.
    pub fn pattern(glob: &str) -> GlobModel {
        let b = glob.as_bytes();
        let mut toks = Vec::with_capacity(b.len());
        let mut depth = 0usize;
        let mut i = 0;
        let push = |toks: &mut Vec<Tok>, depth: usize, tok: Tok| {
            if depth > 0 || (tok == Tok::Star && toks.last() == Some(&Tok::Star)) {
                return;
            }
            toks.push(tok);
        };
        while i < b.len() {
            match b[i] {
                b'*' => {
                    let start = i;
                    while i < b.len() && b[i] == b'*' {
                        i += 1;
                    }
                    push(&mut toks, depth, Tok::Star);
                    // `**/` at the start or after `/` may match nothing at
                    // all (globset: `a/**/b` matches `a/b`), so the slash
                    // goes into the star.
                    let whole_component = i - start >= 2 && (start == 0 || b[start - 1] == b'/');
                    if whole_component && i < b.len() && b[i] == b'/' {
                        i += 1;
                    }
                    continue;
                }
                b'?' => push(&mut toks, depth, Tok::One(ByteSet::ALL)),
                b'[' => match parse_class(b, i + 1) {
                    Some((set, next)) => {
                        push(&mut toks, depth, Tok::One(set));
                        i = next;
                        continue;
                    }
                    None => push(&mut toks, depth, Tok::One(ByteSet::single(b'['))),
                },
                b'{' => {
                    push(&mut toks, depth, Tok::Star);
                    depth += 1;
                }
                b'}' if depth > 0 => depth -= 1,
                c => push(&mut toks, depth, Tok::One(ByteSet::single(c))),
            }
            i += 1;
        }
        GlobModel { toks }
    }

    /// This model followed by `/` and anything: the paths below what it
    /// matches (a lock covers what lies below the path it names).
    pub fn subtree(&self) -> GlobModel {
        let mut toks = self.toks.clone();
        toks.push(Tok::One(ByteSet::single(b'/')));
        toks.push(Tok::Star);
        GlobModel { toks }
    }

    /// True when some byte string is matched by both models.
    pub fn overlaps(&self, other: &GlobModel) -> bool {
        let (a, b) = (&self.toks, &other.toks);
        let width = b.len() + 1;
        let mut seen = vec![false; (a.len() + 1) * width];
        let mut stack = vec![(0usize, 0usize)];
        while let Some((i, j)) = stack.pop() {
            if std::mem::replace(&mut seen[i * width + j], true) {
                continue;
            }
            if i == a.len() && j == b.len() {
                return true;
            }
            let ta = a.get(i).copied();
            let tb = b.get(j).copied();
            // A star may match nothing.
            if ta == Some(Tok::Star) {
                stack.push((i + 1, j));
            }
            if tb == Some(Tok::Star) {
                stack.push((i, j + 1));
            }
            // Both consume the same byte.
            match (ta, tb) {
                (Some(Tok::One(x)), Some(Tok::One(y))) if x.intersects(y) => {
                    stack.push((i + 1, j + 1));
                }
                (Some(Tok::Star), Some(Tok::One(y))) if !y.is_empty() => stack.push((i, j + 1)),
                (Some(Tok::One(x)), Some(Tok::Star)) if !x.is_empty() => stack.push((i + 1, j)),
                _ => {}
            }
        }
        false
    }

    /// True when the model matches `path`.
    pub fn matches(&self, path: &str) -> bool {
        self.overlaps(&GlobModel::literal(path))
    }
}

/// Parses a class whose `[` was just before `start`, with globset's rules
/// (`!` or `^` negates, a leading `]` or `-` is literal, `a-z` is a
/// range). Returns the byte set and the index after `]`, or `None` when
/// the class is not closed (then `[` is a literal).
fn parse_class(b: &[u8], start: usize) -> Option<(ByteSet, usize)> {
    let mut i = start;
    let negated = matches!(b.get(i), Some(b'!' | b'^'));
    if negated {
        i += 1;
    }
    let mut set = ByteSet::EMPTY;
    let mut wide = false;
    let mut first = true;
    let mut prev: Option<u8> = None;
    let mut in_range = false;
    loop {
        let c = *b.get(i)?;
        i += 1;
        if c == b']' && !first {
            break;
        }
        if c >= 0x80 {
            // A multi-byte character: globset turns it into a class of
            // bytes; "any byte" covers whatever that matches.
            wide = true;
        } else if c == b'-' && !first && !in_range {
            in_range = true;
        } else if in_range {
            // globset extends the last range (`[a-c-e]` is `a` to `e`),
            // so the range start stays the start for a following `-`.
            let lo = prev.unwrap_or(c);
            set.insert_range(lo.min(c), lo.max(c));
            in_range = false;
            prev = Some(lo.min(c));
        } else {
            set.insert(c);
            prev = Some(c);
        }
        first = false;
    }
    if in_range {
        set.insert(b'-');
    }
    let set = if wide {
        ByteSet::ALL
    } else if negated {
        set.complement()
    } else {
        set
    };
    Some((set, i))
}

#[cfg(test)]
mod tests {
    use super::*;
    use globset::GlobBuilder;
    use proptest::prelude::*;

    fn globset_match(pattern: &str, path: &str) -> Option<bool> {
        let glob = GlobBuilder::new(pattern)
            .literal_separator(false)
            .backslash_escape(false)
            .build()
            .ok()?;
        Some(glob.compile_matcher().is_match(path))
    }

    #[test]
    fn literal_and_simple_patterns() {
        let p = GlobModel::pattern;
        assert!(p("src/*.py").matches("src/a.py"));
        assert!(p("src/*.py").matches("src/x/y.py"), "* crosses /");
        assert!(!p("src/*.py").matches("src/a.rs"));
        assert!(p("src/?.py").matches("src/a.py"));
        assert!(p("src/[ab].py").matches("src/b.py"));
        assert!(!p("src/[ab].py").matches("src/c.py"));
        assert!(p("src/[!ab].py").matches("src/c.py"));
        assert!(!p("src/[!ab].py").matches("src/a.py"));
        assert!(p("src/[a-c].py").matches("src/b.py"));
        assert!(p("a/**/b").matches("a/b"));
        assert!(p("**/b").matches("b"));
        assert!(p("src/{a,b}.py").matches("src/b.py"));
    }

    #[test]
    fn overlaps_between_patterns() {
        let p = GlobModel::pattern;
        assert!(p("src/*.py").overlaps(&p("src/a*")));
        assert!(p("src/*").overlaps(&p("*/main.rs")));
        assert!(!p("src/*.py").overlaps(&p("docs/*")));
        assert!(!p("*.py").overlaps(&p("*.rs")));
        assert!(p("*.py").overlaps(&p("*")));
        assert!(!p("a?").overlaps(&p("a")));
        assert!(
            GlobModel::literal("src/auth")
                .subtree()
                .overlaps(&p("src/*/login.py"))
        );
    }

    /// Every normalised path of up to `max` characters over `a`, `b`, `/`.
    fn small_paths(max: usize) -> Vec<String> {
        let mut all = vec![String::new()];
        let mut level = vec![String::new()];
        for _ in 0..max {
            let mut next = Vec::new();
            for s in &level {
                for c in ['a', 'b', '/'] {
                    next.push(format!("{s}{c}"));
                }
            }
            all.extend(next.iter().cloned());
            level = next;
        }
        all.retain(|s| {
            !s.is_empty() && !s.starts_with('/') && !s.ends_with('/') && !s.contains("//")
        });
        all
    }

    fn pattern_strategy() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            Just("a"),
            Just("b"),
            Just("/"),
            Just("*"),
            Just("?"),
            Just("**"),
            Just("[ab]"),
            Just("[!a]"),
            Just("{a,b/}"),
            Just("[+-.-/]"),
        ];
        proptest::collection::vec(piece, 1..5).prop_map(|v| v.concat())
    }

    proptest! {
        /// The model never matches less than globset does.
        #[test]
        fn model_is_a_superset_of_globset(pattern in pattern_strategy()) {
            let model = GlobModel::pattern(&pattern);
            for path in small_paths(4) {
                if globset_match(&pattern, &path) == Some(true) {
                    prop_assert!(model.matches(&path), "{} should match {}", pattern, path);
                }
            }
        }

        /// Two patterns that globset shows to share a path always overlap.
        #[test]
        fn overlap_never_misses_a_common_path(p in pattern_strategy(), q in pattern_strategy()) {
            let common = small_paths(4).into_iter().find(|path| {
                globset_match(&p, path) == Some(true) && globset_match(&q, path) == Some(true)
            });
            if let Some(path) = common {
                prop_assert!(
                    GlobModel::pattern(&p).overlaps(&GlobModel::pattern(&q)),
                    "{} and {} share {}", p, q, path
                );
            }
        }
    }
}
