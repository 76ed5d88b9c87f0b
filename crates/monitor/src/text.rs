//! Laying out text in terminal cells: display widths, cutting a line to a
//! width with a visible marker, and wrapping a message into rows. Long
//! text never spills past its area and never breaks the layout.

use ratatui::style::Style;
use ratatui::text::{Line, Span};

/// The marker put where text was cut.
pub(super) const ELLIPSIS: &str = "…";

/// Cells a string takes on screen.
pub(super) fn str_width(s: &str) -> usize {
    Span::raw(s).width()
}

/// Cells one character takes (0 for combining marks, 2 for wide ones).
pub(super) fn char_width(c: char) -> usize {
    let mut buf = [0u8; 4];
    str_width(c.encode_utf8(&mut buf))
}

/// Cuts styled spans to at most `width` cells; when anything is cut, the
/// last cell shows `…`.
pub(super) fn fit(spans: Vec<Span<'static>>, width: usize) -> Line<'static> {
    let total: usize = spans.iter().map(Span::width).sum();
    if total <= width {
        return Line::from(spans);
    }
    if width == 0 {
        return Line::default();
    }
    let mut left = width - 1;
    let mut out = Vec::new();
    let mut last_style = Style::default();
    for span in spans {
        last_style = span.style;
        let w = span.width();
        if w <= left {
            left -= w;
            out.push(span);
            continue;
        }
        let mut cut = String::new();
        for c in span.content.chars() {
            let cw = char_width(c);
            if cw > left {
                break;
            }
            left -= cw;
            cut.push(c);
        }
        if !cut.is_empty() {
            out.push(Span::styled(cut, span.style));
        }
        break;
    }
    out.push(Span::styled(ELLIPSIS, last_style));
    Line::from(out)
}

/// One character of wrapped text with its style.
#[derive(Clone, Copy, Debug)]
struct Cell {
    c: char,
    style: Style,
    width: usize,
}

/// Wraps styled text into rows of at most `width` cells, breaking after
/// spaces where it can and inside words where it must; `\n` starts a new
/// row. Rows after the first start with `indent` spaces. At most
/// `max_rows` rows are made; when text is left over, the last row ends in
/// `… (+N chars)`.
pub(super) fn wrap(
    spans: &[(String, Style)],
    width: usize,
    indent: usize,
    max_rows: usize,
) -> Vec<Line<'static>> {
    let width = width.max(1);
    // An indent that leaves no room for text would loop forever.
    let indent = if indent * 2 >= width { 0 } else { indent };
    let max_rows = max_rows.max(1);
    let cells: Vec<Cell> = spans
        .iter()
        .flat_map(|(text, style)| {
            text.chars().map(move |c| Cell {
                c,
                style: *style,
                width: if c == '\n' { 0 } else { char_width(c) },
            })
        })
        .collect();
    let mut rows: Vec<Vec<Cell>> = Vec::new();
    let mut row: Vec<Cell> = Vec::new();
    let mut used = 0;
    let mut i = 0;
    let start_row = |rows: &Vec<Vec<Cell>>| -> (Vec<Cell>, usize) {
        if rows.is_empty() {
            (Vec::new(), 0)
        } else {
            let pad = Cell {
                c: ' ',
                style: Style::default(),
                width: 1,
            };
            (vec![pad; indent], indent)
        }
    };
    while i < cells.len() {
        if rows.len() == max_rows {
            break;
        }
        let cell = cells[i];
        if cell.c == '\n' {
            rows.push(std::mem::take(&mut row));
            (row, used) = start_row(&rows);
            i += 1;
            continue;
        }
        if used + cell.width <= width {
            used += cell.width;
            row.push(cell);
            i += 1;
            continue;
        }
        // The cell does not fit: break after the last space of the row,
        // if that leaves something on it, else right here.
        let floor = if rows.is_empty() { 0 } else { indent };
        let space = row.iter().rposition(|c| c.c == ' ').filter(|&p| p > floor);
        let carried: Vec<Cell> = match space {
            Some(p) => {
                let tail = row.split_off(p + 1);
                row.pop();
                tail
            }
            None => Vec::new(),
        };
        if row.len() <= floor && carried.is_empty() {
            // Not even one cell fits on an empty row (a wide character
            // in a one-cell area): drop it rather than loop.
            i += 1;
            continue;
        }
        rows.push(std::mem::take(&mut row));
        (row, used) = start_row(&rows);
        for c in carried {
            used += c.width;
            row.push(c);
        }
    }
    if rows.len() == max_rows {
        // Rows ran out: what was carried onto the next row and every cell
        // not reached yet are not shown.
        let pad = if rows.is_empty() { 0 } else { indent };
        let left = cells.len() - i + row.len().saturating_sub(pad);
        if left > 0 {
            mark_truncated(&mut rows, left, width);
        }
    } else if rows.is_empty() || row.len() > indent {
        rows.push(row);
    }
    rows.into_iter().map(to_line).collect()
}

/// Ends the last row with `… (+N chars)`, cutting the row to make room.
fn mark_truncated(rows: &mut [Vec<Cell>], left: usize, width: usize) {
    let Some(last) = rows.last_mut() else {
        return;
    };
    let full = format!("{ELLIPSIS} (+{left} chars)");
    let marker = if str_width(&full) < width {
        full
    } else {
        ELLIPSIS.to_owned()
    };
    let marker_width = str_width(&marker);
    let mut used: usize = last.iter().map(|c| c.width).sum();
    while used + marker_width > width {
        match last.pop() {
            Some(c) => used -= c.width,
            None => break,
        }
    }
    let style = Style::default().add_modifier(ratatui::style::Modifier::DIM);
    for c in marker.chars() {
        last.push(Cell {
            c,
            style,
            width: char_width(c),
        });
    }
}

fn to_line(row: Vec<Cell>) -> Line<'static> {
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut text = String::new();
    let mut style = None;
    for cell in row {
        if style.is_some_and(|s| s != cell.style) {
            spans.push(Span::styled(
                std::mem::take(&mut text),
                style.unwrap_or_default(),
            ));
        }
        style = Some(cell.style);
        text.push(cell.c);
    }
    if !text.is_empty() {
        spans.push(Span::styled(text, style.unwrap_or_default()));
    }
    Line::from(spans)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(lines: &[Line<'_>]) -> Vec<String> {
        lines.iter().map(|l| l.to_string()).collect()
    }

    fn text(s: &str) -> Vec<(String, Style)> {
        vec![(s.to_owned(), Style::default())]
    }

    #[test]
    fn widths() {
        assert_eq!(str_width("abc"), 3);
        assert_eq!(str_width("漢字"), 4);
        assert_eq!(char_width('😀'), 2);
        assert_eq!(char_width('\u{301}'), 0);
    }

    #[test]
    fn fit_cuts_with_a_marker() {
        let spans = || vec![Span::raw("hello "), Span::raw("world")];
        assert_eq!(fit(spans(), 20).to_string(), "hello world");
        assert_eq!(fit(spans(), 11).to_string(), "hello world");
        assert_eq!(fit(spans(), 8).to_string(), "hello w…");
        assert_eq!(fit(spans(), 1).to_string(), "…");
        assert_eq!(fit(spans(), 0).to_string(), "");
        assert_eq!(fit(vec![Span::raw("漢字漢字")], 4).to_string(), "漢…");
    }

    #[test]
    fn wrap_breaks_at_spaces_and_indents() {
        let rows = wrap(&text("the quick brown fox jumps"), 10, 2, 10);
        assert_eq!(plain(&rows), ["the quick", "  brown", "  fox", "  jumps"]);
        for row in &rows {
            assert!(row.width() <= 10);
        }
    }

    #[test]
    fn wrap_breaks_long_words_and_keeps_newlines() {
        let rows = wrap(&text("abcdefghijkl\nxy"), 5, 1, 10);
        assert_eq!(plain(&rows), ["abcde", " fghi", " jkl", " xy"]);
    }

    #[test]
    fn wrap_truncates_with_a_marker() {
        let rows = wrap(&text(&"word ".repeat(40)), 20, 2, 3);
        assert_eq!(rows.len(), 3);
        let last = rows[2].to_string();
        assert!(last.contains("… (+"), "{last}");
        for row in &rows {
            assert!(row.width() <= 20, "{row:?}");
        }
    }

    #[test]
    fn wrap_survives_tiny_widths_and_wide_characters() {
        for width in 0..6 {
            let rows = wrap(&text("漢字 and 😀 text, long enough to wrap"), width, 2, 50);
            for row in &rows {
                assert!(row.width() <= width.max(1), "{width}: {row:?}");
            }
        }
        assert_eq!(plain(&wrap(&text(""), 10, 2, 3)), [""]);
    }

    #[test]
    fn styles_are_kept_per_span() {
        let red = Style::default().fg(ratatui::style::Color::Red);
        let rows = wrap(
            &[("BLOCKED".into(), red), (" text".into(), Style::default())],
            40,
            2,
            2,
        );
        assert_eq!(rows[0].spans.len(), 2);
        assert_eq!(rows[0].spans[0].style, red);
    }
}
