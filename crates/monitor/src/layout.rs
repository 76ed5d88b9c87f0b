//! Where each part of the live view goes for a terminal size: a header
//! row, the status panel beside the message feed on wide terminals and
//! above it on narrow ones, and a footer row. Shared by drawing and by
//! scrolling (which needs the height of a page).

use ratatui::layout::Rect;

/// Terminals at least this wide show the status panel beside the feed.
pub(super) const SIDE_BY_SIDE_FROM: u16 = 100;

/// Sections of the status panel (agents, locks, pending ACKs); in a tight
/// spot each gets one line.
pub(super) const STATUS_SECTIONS: u16 = 3;

/// The areas of one frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Areas {
    /// One row: project, session, time.
    pub header: Rect,
    /// Agents, locks and pending acknowledgements.
    pub status: Rect,
    /// The messages; its first row is the feed's title.
    pub feed: Rect,
    /// One row: keys, input, or the latest notice.
    pub footer: Rect,
    /// The status panel is left of the feed (else above it).
    pub side_by_side: bool,
}

impl Areas {
    /// Rows of messages the feed shows at once.
    pub(crate) fn page(&self) -> usize {
        usize::from(self.feed.height.saturating_sub(1))
    }
}

/// Splits `area`; `status_rows` is how many rows the status panel would
/// like when it sits above the feed.
pub(crate) fn areas(area: Rect, status_rows: u16) -> Areas {
    let header_h = area.height.min(1);
    let footer_h = area.height.saturating_sub(header_h).min(1);
    let body_h = area.height - header_h - footer_h;
    let header = Rect::new(area.x, area.y, area.width, header_h);
    let body = Rect::new(area.x, area.y + header_h, area.width, body_h);
    let footer = Rect::new(area.x, body.y + body_h, area.width, footer_h);
    if area.width >= SIDE_BY_SIDE_FROM {
        // About a third for the status, within sensible bounds; the
        // border column belongs to the status panel.
        let status_w = (area.width / 3).clamp(34, 56);
        return Areas {
            header,
            status: Rect::new(body.x, body.y, status_w, body_h),
            feed: Rect::new(body.x + status_w, body.y, area.width - status_w, body_h),
            footer,
            side_by_side: true,
        };
    }
    // Stacked: the status takes what it needs plus its border row when
    // that is at most half of the body, else one line per section, so the
    // feed always keeps room.
    let full = status_rows.saturating_add(1);
    let status_h = if full <= body_h / 2 {
        full
    } else {
        (STATUS_SECTIONS + 1).min(body_h / 2)
    };
    Areas {
        header,
        status: Rect::new(body.x, body.y, area.width, status_h),
        feed: Rect::new(body.x, body.y + status_h, area.width, body_h - status_h),
        footer,
        side_by_side: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_area_fits_and_nothing_overlaps() {
        for (w, h) in [
            (200, 50),
            (100, 30),
            (99, 30),
            (80, 24),
            (60, 15),
            (10, 3),
            (1, 1),
            (0, 0),
        ] {
            for want in [0, 5, 40] {
                let full = Rect::new(0, 0, w, h);
                let a = areas(full, want);
                for r in [a.header, a.status, a.feed, a.footer] {
                    assert!(
                        full.contains(r.as_position()) || r.area() == 0,
                        "{w}x{h} {r:?}"
                    );
                    assert!(r.right() <= w && r.bottom() <= h, "{w}x{h} {r:?}");
                }
                let total = a.header.area() + a.status.area() + a.feed.area() + a.footer.area();
                assert_eq!(total, full.area(), "{w}x{h}");
            }
        }
    }

    #[test]
    fn narrow_terminals_stack_and_wide_ones_do_not() {
        let a = areas(Rect::new(0, 0, 60, 15), 9);
        assert!(!a.side_by_side);
        assert_eq!((a.status.height, a.feed.height), (4, 9));
        let roomy = areas(Rect::new(0, 0, 80, 24), 9);
        assert_eq!((roomy.status.height, roomy.feed.height), (10, 12));
        let b = areas(Rect::new(0, 0, 160, 40), 9);
        assert!(b.side_by_side);
        assert_eq!(b.status.width + b.feed.width, 160);
    }
}
