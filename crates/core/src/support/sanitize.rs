//! Sanitising untrusted text (message bodies, anything an agent wrote)
//! before it reaches a pane, a terminal or a log line: no control
//! character or escape sequence survives except `\n` and `\t`.

/// Removes every terminal control: escape sequences (CSI, OSC, DCS, SOS,
/// PM, APC, and two-byte ESC sequences) as whole units, C1 sequences, other
/// C0 and C1 controls, DEL, bidirectional overrides and zero-width
/// characters. CR and CRLF become LF; `\n` and `\t` are kept.
pub fn strip_controls(input: &str) -> String {
    let mut out = String::with_capacity(input.len());
    let mut chars = input.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\n' | '\t' => out.push(c),
            '\r' => {
                if chars.peek() != Some(&'\n') {
                    out.push('\n');
                }
            }
            '\x1b' => skip_escape(&mut chars),
            // 8-bit CSI / OSC / DCS / SOS / PM / APC introduce sequences too.
            '\u{9b}' => skip_csi(&mut chars),
            '\u{9d}' | '\u{90}' | '\u{98}' | '\u{9e}' | '\u{9f}' => skip_string(&mut chars),
            c if is_removed(c) => {}
            c => out.push(c),
        }
    }
    out
}

/// The message-body rules of the original (docs/FORMATS.md) on top of
/// `strip_controls`: trailing whitespace of every line and surrounding
/// whitespace of the whole text removed.
pub fn message(input: &str) -> String {
    let clean = strip_controls(input);
    let lines: Vec<&str> = clean.split('\n').map(str::trim_end).collect();
    lines.join("\n").trim().to_owned()
}

/// One line for a log view or table: controls removed and line breaks and
/// tabs turned into single spaces.
pub fn one_line(input: &str) -> String {
    strip_controls(input).replace(['\n', '\t'], " ")
}

fn is_removed(c: char) -> bool {
    c < ' '
        || c == '\x7f'
        || ('\u{80}'..='\u{9f}').contains(&c)
        || ('\u{202a}'..='\u{202e}').contains(&c)
        || ('\u{2066}'..='\u{2069}').contains(&c)
        || matches!(
            c,
            '\u{200b}'
                | '\u{200c}'
                | '\u{200d}'
                | '\u{2060}'
                | '\u{feff}'
                | '\u{200e}'
                | '\u{200f}'
                | '\u{061c}'
        )
}

type Chars<'a> = std::iter::Peekable<std::str::Chars<'a>>;

fn skip_escape(chars: &mut Chars<'_>) {
    match chars.next() {
        Some('[') => skip_csi(chars),
        Some(']' | 'P' | 'X' | '^' | '_') => skip_string(chars),
        // nF sequences: intermediates 0x20-0x2f then one final byte.
        Some(c) if (' '..='/').contains(&c) => {
            while chars.next_if(|c| (' '..='/').contains(c)).is_some() {}
            chars.next();
        }
        // Any other ESC x is a two-character sequence; both go.
        _ => {}
    }
}

fn skip_csi(chars: &mut Chars<'_>) {
    // Parameters and intermediates (0x20-0x3f), then a final byte 0x40-0x7e.
    // A sequence cut short by a non-CSI character ends there.
    while let Some(&c) = chars.peek() {
        if (' '..='?').contains(&c) {
            chars.next();
        } else {
            if ('@'..='~').contains(&c) {
                chars.next();
            }
            return;
        }
    }
}

fn skip_string(chars: &mut Chars<'_>) {
    // Runs to BEL, ST (ESC \) or 8-bit ST; an unterminated string swallows
    // the rest, which is what a terminal would do too.
    while let Some(c) = chars.next() {
        match c {
            '\x07' | '\u{9c}' => return,
            '\x1b' => {
                chars.next_if_eq(&'\\');
                return;
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn keeps_text_newlines_and_tabs() {
        let s = "héllo 漢字 😀\n\tindented; $(touch x) `y` \\; -x";
        assert_eq!(strip_controls(s), s);
    }

    #[test]
    fn removes_escape_sequences_whole() {
        assert_eq!(strip_controls("a\x1b[31mred\x1b[0m b"), "ared b");
        assert_eq!(strip_controls("\x1b]0;pwned title\x07ok"), "ok");
        assert_eq!(strip_controls("\x1b]52;c;ZXZpbA==\x1b\\ok"), "ok");
        assert_eq!(strip_controls("\x1bP1$qm\x1b\\ok"), "ok");
        assert_eq!(strip_controls("\x1b(Bok\x1bcx"), "okx");
        assert_eq!(strip_controls("\u{9b}2Jok\u{9d}0;t\u{9c}!"), "ok!");
        assert_eq!(strip_controls("\x1b[200~paste\x1b[201~"), "paste");
        assert_eq!(strip_controls("a\x1b"), "a");
        assert_eq!(strip_controls("a\x1b["), "a");
    }

    #[test]
    fn removes_controls_and_invisible_characters() {
        assert_eq!(strip_controls("a\0b\x07c\x08d\x7fe"), "abcde");
        assert_eq!(strip_controls("x\u{202e}y\u{200b}z\u{feff}"), "xyz");
        assert_eq!(strip_controls("a\r\nb\rc"), "a\nb\nc");
    }

    #[test]
    fn message_trims_like_the_original() {
        assert_eq!(message("  \n hi  \n  there\t\n\n"), "hi\n  there");
        assert_eq!(message("\x1b[2J\0"), "");
        assert_eq!(message(";"), ";");
    }

    #[test]
    fn one_line_flattens() {
        assert_eq!(one_line("a\nb\tc\x1b[1m"), "a b c");
    }

    proptest! {
        #[test]
        fn nothing_dangerous_survives(s in "(\\PC|[\\x00-\\x1f\\x7f\\u{80}-\\u{9f}])*") {
            let out = strip_controls(&s);
            for c in out.chars() {
                prop_assert!(c == '\n' || c == '\t' || !is_removed(c), "{:?} survived", c);
            }
        }

        #[test]
        fn sanitising_is_idempotent(s in "(\\PC|[\\x00-\\x1f\\x7f\\u{80}-\\u{9f}])*") {
            let once = strip_controls(&s);
            prop_assert_eq!(strip_controls(&once), once.clone());
            let m = message(&s);
            prop_assert_eq!(message(&m), m);
        }
    }
}
