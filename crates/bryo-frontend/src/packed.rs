//! Spans packed for keeping: a symbol stream held for a whole run costs
//! its symbols and about two bytes per span instead of eight.

use crate::{Normalized, Span};

/// Spans between two marks.
const STRIDE: usize = 16;

/// A sequence of [`Span`]s in about a quarter of the memory of a
/// `Vec<Span>`, read back exactly: each span is written as two
/// variable-length integers, its distance from the previous span's end
/// (zigzag, so spans out of text order cost a few bytes more, never fail)
/// and its length. A mark every 16 spans makes [`PackedSpans::get`] read
/// at most 16 of them.
///
/// ```
/// use bryo_frontend::{PackedSpans, Span};
/// let spans = [Span::new(0, 3), Span::new(4, 9), Span::new(1, 2)];
/// let packed = PackedSpans::from(&spans[..]);
/// assert_eq!(packed.get(1), Some(Span::new(4, 9)));
/// assert_eq!(packed.iter().collect::<Vec<_>>(), spans);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PackedSpans {
    bytes: Vec<u8>,
    /// Before span `16 m`: where it starts in `bytes` and the end of the
    /// span before it.
    marks: Vec<(u32, u32)>,
    len: usize,
}

impl PackedSpans {
    /// Number of spans.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are none.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Span `i`, or `None` past the end.
    pub fn get(&self, i: usize) -> Option<Span> {
        if i >= self.len {
            return None;
        }
        let (at, end) = self.marks[i / STRIDE];
        let mut reader = Reader {
            bytes: &self.bytes,
            at: at as usize,
            end,
        };
        reader.skip(i % STRIDE);
        Some(reader.next_span())
    }

    /// Spans `range` in order (cut at the end), read on from the mark
    /// before its start: one mark's spans skipped, then each span read
    /// once, where a [`PackedSpans::get`] per span would read up to 16.
    ///
    /// ```
    /// use bryo_frontend::{PackedSpans, Span};
    /// let spans: Vec<Span> = (0..40).map(|i| Span::new(3 * i, 3 * i + 2)).collect();
    /// let packed = PackedSpans::from(&spans[..]);
    /// assert_eq!(packed.range(14..19).collect::<Vec<_>>(), spans[14..19]);
    /// assert_eq!(packed.range(38..50).count(), 2);
    /// ```
    pub fn range(&self, range: std::ops::Range<usize>) -> impl ExactSizeIterator<Item = Span> + '_ {
        let end = range.end.min(self.len);
        let start = range.start.min(end);
        let mut reader = Reader {
            bytes: &self.bytes,
            at: 0,
            end: 0,
        };
        if start < end {
            let (at, before) = self.marks[start / STRIDE];
            (reader.at, reader.end) = (at as usize, before);
            reader.skip(start % STRIDE);
        }
        (start..end).map(move |_| reader.next_span())
    }

    /// The spans in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Span> + '_ {
        let mut reader = Reader {
            bytes: &self.bytes,
            at: 0,
            end: 0,
        };
        (0..self.len).map(move |_| reader.next_span())
    }

    /// Bytes held (for memory budgets).
    pub fn heap_bytes(&self) -> usize {
        self.bytes.capacity() + self.marks.capacity() * std::mem::size_of::<(u32, u32)>()
    }
}

/// The most bytes a span takes: its gap (zigzag, up to 34 bits) and its
/// length (up to 32 bits), five varint bytes each.
const MAX_SPAN_BYTES: usize = 10;

impl From<&[Span]> for PackedSpans {
    fn from(spans: &[Span]) -> Self {
        // Most spans take two or three bytes: room for three, so the
        // buffer seldom grows (it is shrunk to its size at the end).
        let mut bytes = Vec::with_capacity(spans.len() * 3 + STRIDE * MAX_SPAN_BYTES);
        let mut marks = Vec::with_capacity(spans.len().div_ceil(STRIDE));
        // One mark's spans are written here, into room for the worst case
        // (no capacity check per byte), then appended at once.
        let mut room = [0u8; STRIDE * MAX_SPAN_BYTES];
        let mut end = 0u32;
        for run in spans.chunks(STRIDE) {
            marks.push((bytes.len() as u32, end));
            let mut at = 0;
            let mut quads = run.chunks_exact(4);
            for quad in &mut quads {
                // The four spans' gaps and lengths; when all eight fit in
                // seven bits (most spans in text order) they are eight
                // one-byte varints, written as one word.
                let mut values = [0u64; 8];
                for (pair, span) in values.chunks_exact_mut(2).zip(quad) {
                    (pair[0], pair[1]) = gap_and_len(span, end);
                    end = span.end.max(span.start);
                }
                if values.iter().fold(0, |all, &v| all | v) < 0x80 {
                    let word = values.iter().rev().fold(0u64, |word, &v| word << 8 | v);
                    room[at..at + 8].copy_from_slice(&word.to_le_bytes());
                    at += 8;
                } else {
                    for &v in &values {
                        at = put_varint(&mut room, at, v);
                    }
                }
            }
            for span in quads.remainder() {
                let (zigzag, len) = gap_and_len(span, end);
                at = put_varint(&mut room, at, zigzag);
                at = put_varint(&mut room, at, len);
                end = span.end.max(span.start);
            }
            bytes.extend_from_slice(&room[..at]);
        }
        bytes.shrink_to_fit();
        PackedSpans {
            bytes,
            marks,
            len: spans.len(),
        }
    }
}

/// The zigzag gap of `span` from `end`, the end of the span before, and
/// its length: the two numbers a span is written as.
#[inline]
fn gap_and_len(span: &Span, end: u32) -> (u64, u64) {
    let gap = i64::from(span.start) - i64::from(end);
    (
        ((gap << 1) ^ (gap >> 63)) as u64,
        u64::from(span.end.saturating_sub(span.start)),
    )
}

/// Writes `v` as a varint at `out[at..]`; returns where it ends.
#[inline]
fn put_varint(out: &mut [u8], mut at: usize, mut v: u64) -> usize {
    while v >= 0x80 {
        out[at] = v as u8 | 0x80;
        v >>= 7;
        at += 1;
    }
    out[at] = v as u8;
    at + 1
}

/// Reads spans from a mark on.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
    /// The end of the span before.
    end: u32,
}

impl Reader<'_> {
    #[inline]
    fn varint(&mut self) -> u64 {
        let mut v = 0u64;
        let mut shift = 0;
        loop {
            let b = self.bytes[self.at];
            self.at += 1;
            v |= u64::from(b & 0x7f) << shift;
            if b < 0x80 {
                return v;
            }
            shift += 7;
        }
    }

    /// Reads past `n` spans. Four at a time while their eight bytes are
    /// four one-byte gaps, none backwards, and four one-byte lengths (most
    /// spans in text order): then the end moves by the sum of the gaps
    /// and lengths, summed in the word.
    #[inline]
    fn skip(&mut self, mut n: usize) {
        const HIGH: u64 = 0x8080_8080_8080_8080;
        // The zigzag sign bit of each gap (bytes 0, 2, 4, 6).
        const GAP_SIGNS: u64 = 0x0001_0001_0001_0001;
        const EVEN_BYTES: u64 = 0x00ff_00ff_00ff_00ff;
        // Multiplied by it, a word of four 16-bit lanes holds their sum
        // in its top lane.
        const LANES: u64 = 0x0001_0001_0001_0001;
        while n >= 4 {
            let Some(word) = self.bytes.get(self.at..self.at + 8) else {
                break;
            };
            let word = u64::from_le_bytes(word.try_into().expect("eight bytes"));
            if word & (HIGH | GAP_SIGNS) != 0 {
                break;
            }
            let gaps = (word & EVEN_BYTES).wrapping_mul(LANES) >> 48 >> 1;
            let lens = (word >> 8 & EVEN_BYTES).wrapping_mul(LANES) >> 48;
            self.end += (gaps + lens) as u32;
            self.at += 8;
            n -= 4;
        }
        for _ in 0..n {
            self.next_span();
        }
    }

    #[inline]
    fn next_span(&mut self) -> Span {
        let zigzag = self.varint();
        let gap = (zigzag >> 1) as i64 ^ -((zigzag & 1) as i64);
        let start = (i64::from(self.end) + gap) as u32;
        let end = start + self.varint() as u32;
        self.end = end;
        Span::new(start, end)
    }
}

/// A symbol stream kept for a whole run: the symbols as they are, the
/// spans packed ([`PackedSpans`]). `symbols.len() == spans.len()`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PackedStream {
    /// The symbols.
    pub symbols: Vec<u64>,
    /// `spans.get(i)` is where `symbols[i]` came from.
    pub spans: PackedSpans,
}

impl PackedStream {
    /// Number of symbols.
    #[inline]
    pub fn len(&self) -> usize {
        self.symbols.len()
    }

    /// Whether there are no symbols.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.symbols.is_empty()
    }

    /// The stream unpacked.
    pub fn unpack(&self) -> Normalized {
        Normalized {
            symbols: self.symbols.clone(),
            spans: self.spans.iter().collect(),
        }
    }
}

impl From<Normalized> for PackedStream {
    fn from(n: Normalized) -> Self {
        let spans = PackedSpans::from(&n.spans[..]);
        let mut symbols = n.symbols;
        symbols.shrink_to_fit();
        PackedStream { symbols, spans }
    }
}

impl From<&Normalized> for PackedStream {
    fn from(n: &Normalized) -> Self {
        PackedStream {
            symbols: n.symbols.clone(),
            spans: PackedSpans::from(&n.spans[..]),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn spans() -> impl Strategy<Value = Vec<Span>> {
        prop::collection::vec(
            prop_oneof![
                (0u32..64, 0u32..40),
                (0u32..u32::MAX / 2, 0u32..u32::MAX / 2),
                // Near the top of the range: a gap from or to a short span
                // at the start wraps to a short one in 32 bits.
                (u32::MAX - 100..u32::MAX - 40, 0u32..40),
            ],
            0..200,
        )
        .prop_map(|v| {
            v.into_iter()
                .map(|(start, len)| Span::new(start, start + len))
                .collect()
        })
    }

    /// Spans in text order (as [`text_order`] draws them) from an offset
    /// near 2^31 or near the end of the `u32` range, cut where they would
    /// pass it.
    fn far_text_order() -> impl Strategy<Value = Vec<Span>> {
        let bases = prop_oneof![
            Just((1u32 << 31) - 3000),
            Just(1u32 << 31),
            Just(u32::MAX - 300_000)
        ];
        (text_order(), bases).prop_map(|(spans, base)| {
            spans
                .iter()
                .map_while(|s| {
                    Some(Span::new(
                        s.start.checked_add(base)?,
                        s.end.checked_add(base)?,
                    ))
                })
                .collect()
        })
    }

    /// Spans mostly in text order, as a lexer writes them: short steps
    /// forwards, some long or backwards.
    fn text_order() -> impl Strategy<Value = Vec<Span>> {
        prop::collection::vec(
            prop_oneof![
                8 => (0i64..64, 0u32..128),
                1 => (64i64..100_000, 0u32..100_000),
                1 => (-50i64..0, 0u32..10),
            ],
            0..300,
        )
        .prop_map(|steps| {
            let mut end = 0i64;
            steps
                .iter()
                .map(|&(gap, len)| {
                    let start = (end + gap).max(0) as u32;
                    let s = Span::new(start, start + len);
                    end = i64::from(s.end);
                    s
                })
                .collect()
        })
    }

    proptest! {
        /// Every span reads back exactly, by index and in order, whatever
        /// their order and size.
        #[test]
        fn spans_read_back(spans in spans()) {
            let packed = PackedSpans::from(&spans[..]);
            prop_assert_eq!(packed.len(), spans.len());
            prop_assert_eq!(packed.iter().collect::<Vec<_>>(), spans.clone());
            for (i, &span) in spans.iter().enumerate() {
                prop_assert_eq!(packed.get(i), Some(span));
            }
            prop_assert_eq!(packed.get(spans.len()), None);
        }

        /// A range reads what indexing each span reads, from any start,
        /// cut at the end.
        #[test]
        fn ranges_read_what_indexing_reads(spans in spans(), a in 0usize..220, b in 0usize..220) {
            let packed = PackedSpans::from(&spans[..]);
            let (from, to) = (a.min(b), a.max(b));
            let expected: Vec<Span> = (from..to).filter_map(|i| packed.get(i)).collect();
            let range = packed.range(from..to);
            prop_assert_eq!(range.len(), expected.len());
            prop_assert_eq!(range.collect::<Vec<_>>(), expected);
        }

        /// The bytes are the plain encoding: per span, the zigzag gap from
        /// the end before and the length, each a little-endian base-128
        /// varint (what an index stores); for spans anywhere and for spans
        /// mostly in text order, whose runs of four short ones are written
        /// a word at a time.
        #[test]
        fn bytes_are_the_plain_varints(
            spans in prop_oneof![spans(), text_order(), far_text_order()]
        ) {
            let mut expected = Vec::new();
            let mut end = 0i64;
            for s in &spans {
                let gap = i64::from(s.start) - end;
                let zigzag = if gap >= 0 { 2 * gap as u64 } else { 2 * gap.unsigned_abs() - 1 };
                for mut v in [zigzag, u64::from(s.end - s.start)] {
                    loop {
                        let low = (v % 128) as u8;
                        v /= 128;
                        if v == 0 {
                            expected.push(low);
                            break;
                        }
                        expected.push(low + 128);
                    }
                }
                end = i64::from(s.end.max(s.start));
            }
            prop_assert_eq!(PackedSpans::from(&spans[..]).bytes, expected);
        }

        /// Spans mostly in text order, as a lexer writes them (short steps
        /// forwards, some long or backwards), read back by index and by
        /// range from every start: the words of four short spans skipped at
        /// once give what reading each gives.
        #[test]
        fn text_order_spans_read_back(spans in prop_oneof![text_order(), far_text_order()]) {
            let packed = PackedSpans::from(&spans[..]);
            for (i, &span) in spans.iter().enumerate() {
                prop_assert_eq!(packed.get(i), Some(span));
                prop_assert_eq!(packed.range(i..spans.len()).collect::<Vec<_>>(), &spans[i..]);
            }
        }

        /// Text-order spans of a real stream cost a few bytes each.
        #[test]
        fn text_order_spans_are_small(lens in prop::collection::vec((0u32..4, 1u32..30), 1..500)) {
            let mut end = 0;
            let spans: Vec<Span> = lens
                .iter()
                .map(|&(gap, len)| {
                    let s = Span::new(end + gap, end + gap + len);
                    end = s.end;
                    s
                })
                .collect();
            let packed = PackedSpans::from(&spans[..]);
            prop_assert!(packed.heap_bytes() <= 3 * spans.len() + 16);
        }
    }

    #[test]
    fn a_stream_packs_and_unpacks() {
        let mut n = Normalized::default();
        n.push(7, Span::new(2, 5));
        n.push(9, Span::new(6, 6));
        let packed = PackedStream::from(&n);
        assert_eq!(packed.len(), 2);
        assert_eq!(packed.unpack(), n);
        assert_eq!(PackedStream::from(n.clone()), packed);
    }
}
