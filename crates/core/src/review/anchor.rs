//! Where a review comment's line is now. A comment is anchored by the code
//! line it was made on: still there, it stays; moved (lines added or
//! removed elsewhere), it follows; changed or gone, the comment is
//! outdated. A code line found more than once is followed only where its
//! neighbours tell which one it is, so a changed line is never mistaken
//! for a copy of it elsewhere.

/// A comment's anchor as it was made.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Mark<'a> {
    /// Its line, from 1.
    pub line: u32,
    /// The code line.
    pub code: &'a str,
    /// The line above it, if any.
    pub before: Option<&'a str>,
    /// The line below it, if any.
    pub after: Option<&'a str>,
    /// Whether the code line appeared only once in the file.
    pub unique: bool,
}

/// Where the anchor is in the file now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Anchor {
    /// Its code is on the same line.
    Same,
    /// Its code is on this line now.
    Moved(u32),
    /// Its code changed or went: the comment no longer applies as written.
    Outdated,
}

/// The lines of a text, each without its line end (`\r\n` too).
pub(crate) fn lines(text: &str) -> Vec<&str> {
    text.lines().collect()
}

/// The anchor context of line `line` (from 1) of `lines`: the line above,
/// the line below, and whether its code is unique in the file.
pub(crate) fn context<'a>(
    lines: &[&'a str],
    line: u32,
) -> (Option<&'a str>, Option<&'a str>, bool) {
    let i = (line as usize).saturating_sub(1);
    let code = lines.get(i).copied().unwrap_or_default();
    let before = i.checked_sub(1).and_then(|j| lines.get(j)).copied();
    let after = lines.get(i + 1).copied();
    let unique = lines.iter().filter(|l| **l == code).count() == 1;
    (before, after, unique)
}

/// Finds `mark` in `lines`, as the module says.
pub(crate) fn reanchor(lines: &[&str], mark: &Mark<'_>) -> Anchor {
    let at = (mark.line as usize).checked_sub(1);
    if at.and_then(|i| lines.get(i)) == Some(&mark.code) {
        return Anchor::Same;
    }
    let found: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| **l == mark.code)
        .map(|(i, _)| i)
        .collect();
    let fits = |i: usize| {
        let before = i.checked_sub(1).and_then(|j| lines.get(j)).copied();
        let after = lines.get(i + 1).copied();
        u8::from(mark.before.is_some() && before == mark.before)
            + u8::from(mark.after.is_some() && after == mark.after)
    };
    let to_line = |i: usize| u32::try_from(i + 1).map_or(Anchor::Outdated, Anchor::Moved);
    match found.as_slice() {
        [] => Anchor::Outdated,
        [only] if mark.unique || fits(*only) > 0 => to_line(*only),
        [_] => Anchor::Outdated,
        many => {
            let best = many.iter().map(|i| fits(*i)).max().unwrap_or(0);
            let winners: Vec<usize> = many.iter().copied().filter(|i| fits(*i) == best).collect();
            match winners.as_slice() {
                [one] if best > 0 => to_line(*one),
                _ => Anchor::Outdated,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mark_of<'a>(lines: &[&'a str], line: u32) -> Mark<'a> {
        let (before, after, unique) = context(lines, line);
        Mark {
            line,
            code: lines[line as usize - 1],
            before,
            after,
            unique,
        }
    }

    #[test]
    fn an_untouched_line_stays() {
        let file = ["a", "b", "c"];
        assert_eq!(reanchor(&file, &mark_of(&file, 2)), Anchor::Same);
    }

    #[test]
    fn lines_inserted_above_move_the_anchor_down() {
        let old = ["def f():", "    return 1", "", "def g():", "    return 2"];
        let mark = mark_of(&old, 5);
        let new = [
            "import os",
            "import sys",
            "def f():",
            "    return 1",
            "",
            "def g():",
            "    return 2",
        ];
        assert_eq!(reanchor(&new, &mark), Anchor::Moved(7));
        let fewer = ["def g():", "    return 2"];
        assert_eq!(reanchor(&fewer, &mark), Anchor::Moved(2));
    }

    #[test]
    fn a_changed_line_is_outdated() {
        let old = ["a", "x = 1", "b"];
        let mark = mark_of(&old, 2);
        assert_eq!(reanchor(&["a", "x = 2", "b"], &mark), Anchor::Outdated);
        assert_eq!(reanchor(&["a", "b"], &mark), Anchor::Outdated);
        assert_eq!(reanchor(&[], &mark), Anchor::Outdated);
    }

    #[test]
    fn a_changed_line_with_a_copy_elsewhere_is_outdated_not_moved() {
        // `}` appears twice; the commented one changes, the other stays.
        let old = ["fn a() {", "    1", "}", "fn b() {", "    2", "}"];
        let mark = mark_of(&old, 3);
        assert!(!mark.unique);
        let new = ["fn a() {", "    1", "};", "fn b() {", "    2", "}"];
        assert_eq!(reanchor(&new, &mark), Anchor::Outdated);
        // Moved with its neighbours: followed to the right copy.
        let moved = ["// x", "fn a() {", "    1", "}", "fn b() {", "    2", "}"];
        assert_eq!(reanchor(&moved, &mark), Anchor::Moved(4));
    }

    #[test]
    fn copies_the_neighbours_cannot_tell_apart_are_outdated() {
        let old = ["x", "y", "x"];
        let mark = mark_of(&old, 1);
        let new = ["z", "x", "y", "x", "w"];
        // Line 2 has `y` below like the original: the one match.
        assert_eq!(reanchor(&new, &mark), Anchor::Moved(2));
        let twins = ["q", "x", "q", "x", "q"];
        assert_eq!(reanchor(&twins, &mark), Anchor::Outdated);
    }

    #[test]
    fn windows_line_ends_read_as_the_same_lines() {
        assert_eq!(lines("a\r\nb\r\n"), ["a", "b"]);
    }
}
