//! JSON written byte-for-byte the way Python's `json.dumps` writes it, so the
//! Python tool and `diff` see our state files as their own: ASCII only
//! (`\uXXXX` escapes), `", "`/`": "` separators on one line, or 2-space
//! indentation with `","` at line ends.

use std::io;

use serde::Serialize;
use serde_json::ser::{CharEscape, Formatter, Serializer};

/// Layout of the output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// One line, `", "` and `": "` separators (`json.dumps(obj)`).
    Line,
    /// `json.dumps(obj, indent=2)`.
    Indent2,
}

/// Serialises `value` like Python's `json.dumps` with the given layout.
pub fn to_vec<T: Serialize + ?Sized>(value: &T, layout: Layout) -> serde_json::Result<Vec<u8>> {
    let mut out = Vec::with_capacity(256);
    let formatter = PythonFormatter {
        layout,
        depth: 0,
        has_value: false,
    };
    let mut ser = Serializer::with_formatter(&mut out, formatter);
    value.serialize(&mut ser)?;
    Ok(out)
}

/// Same as `to_vec`, as a `String` (always valid: the output is ASCII).
pub fn to_string<T: Serialize + ?Sized>(value: &T, layout: Layout) -> serde_json::Result<String> {
    let bytes = to_vec(value, layout)?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

struct PythonFormatter {
    layout: Layout,
    depth: usize,
    has_value: bool,
}

impl PythonFormatter {
    fn newline_indent<W: ?Sized + io::Write>(&self, w: &mut W) -> io::Result<()> {
        w.write_all(b"\n")?;
        for _ in 0..self.depth {
            w.write_all(b"  ")?;
        }
        Ok(())
    }

    fn begin_nested<W: ?Sized + io::Write>(&mut self, w: &mut W, open: &[u8]) -> io::Result<()> {
        self.depth += 1;
        self.has_value = false;
        w.write_all(open)
    }

    fn end_nested<W: ?Sized + io::Write>(&mut self, w: &mut W, close: &[u8]) -> io::Result<()> {
        self.depth -= 1;
        if self.layout == Layout::Indent2 && self.has_value {
            self.newline_indent(w)?;
        }
        self.has_value = true;
        w.write_all(close)
    }

    fn begin_item<W: ?Sized + io::Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        match (self.layout, first) {
            (Layout::Line, true) => Ok(()),
            (Layout::Line, false) => w.write_all(b", "),
            (Layout::Indent2, first) => {
                if !first {
                    w.write_all(b",")?;
                }
                self.newline_indent(w)
            }
        }
    }
}

impl Formatter for PythonFormatter {
    fn begin_array<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.begin_nested(w, b"[")
    }

    fn end_array<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.end_nested(w, b"]")
    }

    fn begin_array_value<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.begin_item(w, first)
    }

    fn end_array_value<W: ?Sized + io::Write>(&mut self, _w: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    fn begin_object<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.begin_nested(w, b"{")
    }

    fn end_object<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.end_nested(w, b"}")
    }

    fn begin_object_key<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.begin_item(w, first)
    }

    fn begin_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        w.write_all(b": ")
    }

    fn end_object_value<W: ?Sized + io::Write>(&mut self, _w: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    fn write_string_fragment<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        // Python's ensure_ascii: everything above 0x7e as \uXXXX, astral
        // characters as a surrogate pair.
        let mut start = 0;
        for (i, c) in fragment.char_indices() {
            if c.is_ascii() {
                continue;
            }
            w.write_all(&fragment.as_bytes()[start..i])?;
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                write!(w, "\\u{unit:04x}")?;
            }
            start = i + c.len_utf8();
        }
        w.write_all(&fragment.as_bytes()[start..])
    }

    fn write_char_escape<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        escape: CharEscape,
    ) -> io::Result<()> {
        // Python writes control characters as \u00XX but keeps \n, \t, ...
        let s: &[u8] = match escape {
            CharEscape::Quote => b"\\\"",
            CharEscape::ReverseSolidus => b"\\\\",
            CharEscape::Solidus => b"/",
            CharEscape::Backspace => b"\\b",
            CharEscape::FormFeed => b"\\f",
            CharEscape::LineFeed => b"\\n",
            CharEscape::CarriageReturn => b"\\r",
            CharEscape::Tab => b"\\t",
            CharEscape::AsciiControl(byte) => return write!(w, "\\u{byte:04x}"),
        };
        w.write_all(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn indent2_matches_python() {
        let v = json!({"a": 1, "b": [1, {"c": []}], "d": {}, "e": "x"});
        let s = to_string(&v, Layout::Indent2).expect("serialise");
        // json.dumps(v, indent=2)
        assert_eq!(
            s,
            "{\n  \"a\": 1,\n  \"b\": [\n    1,\n    {\n      \"c\": []\n    }\n  ],\n  \"d\": {},\n  \"e\": \"x\"\n}"
        );
    }

    #[test]
    fn line_matches_python() {
        let v = json!({"a": [1, 2], "b": {"c": null}, "t": true});
        // json.dumps(v)
        assert_eq!(
            to_string(&v, Layout::Line).expect("serialise"),
            "{\"a\": [1, 2], \"b\": {\"c\": null}, \"t\": true}"
        );
    }

    #[test]
    fn non_ascii_is_escaped_like_ensure_ascii() {
        let v = json!("é 漢 😀 \u{7f} \u{1b}[0m\n\t");
        // json.dumps("é 漢 😀 \x7f \x1b[0m\n\t")
        assert_eq!(
            to_string(&v, Layout::Line).expect("serialise"),
            "\"\\u00e9 \\u6f22 \\ud83d\\ude00 \u{7f} \\u001b[0m\\n\\t\""
        );
    }

    #[test]
    fn output_round_trips() {
        let v = json!({"k": ["é", 1.5, -3, null, {"z": "😀"}]});
        for layout in [Layout::Line, Layout::Indent2] {
            let back: serde_json::Value =
                serde_json::from_slice(&to_vec(&v, layout).expect("serialise")).expect("parse");
            assert_eq!(back, v);
        }
    }
}
