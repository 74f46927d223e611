//! The text of an input, held as consecutive UTF-8 pieces.
//!
//! A rendered package is the concatenation of hundreds or thousands of file
//! sections. Copying them into one string cost a full pass over fresh memory
//! (botocore: 141 MB, about 90 ms of page faults on one core) and doubled the
//! peak for a moment; keeping the pieces and addressing them by byte offset
//! costs a binary search per lookup. Readers that need contiguous bytes (a
//! pre-check slice that straddles two pieces) get a copy of just that range.
//!
//! Offsets are bytes of the concatenation, exactly as if it were one string:
//! slice spans, report spans and section offsets mean the same thing whether
//! the text has one piece or many. This type never reorders, drops or alters
//! a byte.

use std::borrow::Cow;
use std::ops::Range;

/// An immutable-once-built text made of pieces; see the module docs.
#[derive(Debug, Default, Clone)]
pub struct Text {
    pieces: Vec<String>,
    /// Byte offset of each piece in the concatenation.
    starts: Vec<usize>,
    len: usize,
}

/// Equal when the concatenations are, however each is cut into pieces.
impl PartialEq for Text {
    fn eq(&self, other: &Text) -> bool {
        self.len == other.len && self.contiguous() == other.contiguous()
    }
}

impl Eq for Text {}

impl PartialEq<str> for Text {
    fn eq(&self, other: &str) -> bool {
        self.len == other.len() && self.contiguous() == other
    }
}

impl From<String> for Text {
    fn from(s: String) -> Text {
        let mut t = Text::default();
        t.push(s);
        t
    }
}

impl From<&str> for Text {
    fn from(s: &str) -> Text {
        Text::from(s.to_string())
    }
}

impl Text {
    /// Appends a piece (moved, not copied). Empty pieces are not kept.
    pub fn push(&mut self, piece: String) {
        if piece.is_empty() {
            return;
        }
        self.starts.push(self.len);
        self.len += piece.len();
        self.pieces.push(piece);
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The pieces in order; their concatenation is the text.
    pub fn pieces(&self) -> impl Iterator<Item = &str> + '_ {
        self.pieces.iter().map(String::as_str)
    }

    /// The whole text as one string: borrowed when it is one piece.
    pub fn contiguous(&self) -> Cow<'_, str> {
        match self.pieces.as_slice() {
            [] => Cow::Borrowed(""),
            [one] => Cow::Borrowed(one),
            many => Cow::Owned(many.concat()),
        }
    }

    /// The pieces' bytes in order, with the offset each starts at.
    pub fn pieces_at(&self) -> impl Iterator<Item = (usize, &[u8])> + '_ {
        self.starts
            .iter()
            .copied()
            .zip(self.pieces.iter().map(String::as_bytes))
    }

    /// The pieces overlapping `range` (clamped to the text), each cut to it.
    fn parts(&self, range: Range<usize>) -> impl Iterator<Item = &[u8]> + '_ {
        let end = range.end.min(self.len);
        let start = range.start.min(end);
        let first = self
            .starts
            .partition_point(|&s| s <= start)
            .saturating_sub(1);
        self.pieces[first..]
            .iter()
            .zip(&self.starts[first..])
            .take_while(move |(_, &s)| s < end)
            .map(move |(p, &s)| {
                let a = start.saturating_sub(s);
                let b = (end - s).min(p.len());
                &p.as_bytes()[a..b]
            })
    }

    /// Calls `f` with the bytes of `range` (clamped to the text): borrowed
    /// when the range lies in one piece, else copied into one buffer.
    pub fn with_bytes<R>(&self, range: Range<usize>, f: impl FnOnce(&[u8]) -> R) -> R {
        let mut parts = self.parts(range.clone());
        match (parts.next(), parts.next()) {
            (first, None) => f(first.unwrap_or(&[])),
            _ => {
                let mut buf = Vec::with_capacity(range.len().min(self.len));
                self.extend_into(range, &mut buf);
                f(&buf)
            }
        }
    }

    /// Appends the bytes of `range` (clamped to the text) to `out`.
    pub fn extend_into(&self, range: Range<usize>, out: &mut Vec<u8>) {
        self.parts(range).for_each(|p| out.extend_from_slice(p));
    }

    /// How often `byte` occurs in `range` (clamped to the text).
    pub fn count(&self, range: Range<usize>, byte: u8) -> usize {
        self.parts(range)
            .map(|p| memchr::memchr_iter(byte, p).count())
            .sum()
    }

    /// The text of `range` (clamped to the text), its ends moved inward to
    /// character boundaries: borrowed when it lies in one piece.
    pub fn str_within(&self, range: Range<usize>) -> Cow<'_, str> {
        let end = range.end.min(self.len);
        let mut start = range.start.min(end);
        let mut stop = end;
        while start < stop && !self.is_char_boundary(start) {
            start += 1;
        }
        while stop > start && !self.is_char_boundary(stop) {
            stop -= 1;
        }
        // Pieces are whole strings and both ends sit on character
        // boundaries, so the bytes are valid UTF-8 and nothing is replaced.
        let mut parts = self.parts(start..stop);
        match (parts.next(), parts.next()) {
            (first, None) => String::from_utf8_lossy(first.unwrap_or(&[])),
            _ => {
                let mut buf = Vec::with_capacity(stop - start);
                self.extend_into(start..stop, &mut buf);
                Cow::Owned(
                    String::from_utf8(buf)
                        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
                )
            }
        }
    }

    /// Whether `offset` is the start or end of a character (or of the text).
    pub fn is_char_boundary(&self, offset: usize) -> bool {
        if offset == 0 || offset >= self.len {
            return offset <= self.len;
        }
        let i = self.starts.partition_point(|&s| s <= offset) - 1;
        self.pieces[i].is_char_boundary(offset - self.starts[i])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same text cut at every position of a few cut lists, so each
    /// reader is checked against plain string slicing.
    fn cuts(s: &str) -> Vec<Text> {
        let b: Vec<usize> = s.char_indices().map(|(i, _)| i).chain([s.len()]).collect();
        let mut out = vec![Text::from(s)];
        for step in [1, 2, 3, 7] {
            let mut t = Text::default();
            let mut last = 0;
            for &i in b.iter().step_by(step).chain([&s.len()]) {
                t.push(s[last..i].to_string());
                last = i;
            }
            out.push(t);
        }
        out
    }

    #[test]
    fn every_reader_sees_the_concatenation() {
        let s = "ab\ncaf\u{e9}\n\u{1f600}x\nyz";
        for t in cuts(s) {
            assert_eq!(t.len(), s.len());
            assert_eq!(t.contiguous(), s);
            assert!(t == *s);
            for a in 0..=s.len() + 2 {
                for e in a..=s.len() + 2 {
                    let (ca, ce) = (a.min(s.len()), e.min(s.len()));
                    let want = &s.as_bytes()[ca..ce];
                    t.with_bytes(a..e, |got| assert_eq!(got, want, "{a}..{e}"));
                    let mut out = b"pre".to_vec();
                    t.extend_into(a..e, &mut out);
                    assert_eq!(&out[3..], want);
                    let nl = want.iter().filter(|&&c| c == b'\n').count();
                    assert_eq!(t.count(a..e, b'\n'), nl);
                    let mut x = ca;
                    while !s.is_char_boundary(x) {
                        x += 1;
                    }
                    let mut y = ce;
                    while y > x && !s.is_char_boundary(y) {
                        y -= 1;
                    }
                    assert_eq!(t.str_within(a..e), &s[x..y.max(x)], "{a}..{e}");
                }
                assert_eq!(t.is_char_boundary(a), a <= s.len() && s.is_char_boundary(a));
            }
        }
    }

    #[test]
    fn a_range_inside_one_piece_is_borrowed() {
        let mut t = Text::default();
        t.push("hello ".into());
        t.push(String::new());
        t.push("world".into());
        assert_eq!(t.pieces().count(), 2, "empty pieces are not kept");
        assert!(matches!(t.str_within(6..11), Cow::Borrowed("world")));
        assert!(matches!(t.str_within(4..8), Cow::Owned(ref s) if s == "o wo"));
        let ptr = t.with_bytes(7..9, |b| b.as_ptr());
        assert_eq!(ptr, t.pieces().nth(1).unwrap()[1..].as_ptr());
        assert_eq!(Text::from("hello world"), t);
        assert_ne!(Text::from("hello worle"), t);
    }
}
