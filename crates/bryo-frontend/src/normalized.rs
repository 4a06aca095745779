use std::ops::Range;

/// A half-open byte range `[start, end)` in the decoded text of a file.
///
/// For UTF-8 files without a byte-order mark the decoded text *is* the file,
/// so spans are file offsets; for other encodings `Decoded::original_range`
///  maps them back to the file's bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Span {
    /// First byte.
    pub start: u32,
    /// One past the last byte.
    pub end: u32,
}

impl Span {
    /// The span `[start, end)`.
    #[inline]
    pub fn new(start: u32, end: u32) -> Self {
        Span { start, end }
    }

    /// The span as a `usize` range, for slicing the text.
    #[inline]
    pub fn range(self) -> Range<usize> {
        self.start as usize..self.end as usize
    }

    /// Its length in bytes.
    #[inline]
    pub fn len(self) -> u32 {
        self.end - self.start
    }

    /// Whether it covers no byte.
    #[inline]
    pub fn is_empty(self) -> bool {
        self.end == self.start
    }
}

/// The standard stream every front-end produces: one `u64` symbol per
/// normalized token (or character, or word), and for each the span of text it
/// came from. `symbols.len() == spans.len()`; spans never overlap. They are
/// in text order (strictly increasing) unless a front-end put the symbols
/// in a canonical order (the tree-sitter front-end's
/// `Options::canonical_order`); [`Normalized::text_ranks`] then maps each
/// symbol to its place in the text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Normalized {
    /// The symbols, fed to the fingerprinting engine.
    pub symbols: Vec<u64>,
    /// `spans[i]` is where `symbols[i]` came from.
    pub spans: Vec<Span>,
}

impl Normalized {
    /// An empty stream with room for `n` symbols.
    pub fn with_capacity(n: usize) -> Self {
        Normalized {
            symbols: Vec::with_capacity(n),
            spans: Vec::with_capacity(n),
        }
    }

    /// Appends one symbol and its span.
    #[inline]
    pub fn push(&mut self, symbol: u64, span: Span) {
        self.symbols.push(symbol);
        self.spans.push(span);
    }

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

    /// Whether the spans are in text order (each ends before the next
    /// starts).
    pub fn in_text_order(&self) -> bool {
        self.spans.windows(2).all(|w| w[0].end <= w[1].start)
    }

    /// For a stream out of text order, each symbol's place in text order
    /// (`ranks[i]` symbols start before symbol `i` does); `None` for a
    /// stream in text order, where that is `i`.
    ///
    /// ```
    /// use bryo_frontend::{Normalized, Span};
    /// let mut n = Normalized::default();
    /// n.push(1, Span::new(10, 12));
    /// n.push(2, Span::new(0, 3));
    /// n.push(3, Span::new(4, 6));
    /// assert_eq!(n.text_ranks(), Some(vec![2, 0, 1]));
    /// ```
    pub fn text_ranks(&self) -> Option<Vec<u32>> {
        if self.in_text_order() {
            return None;
        }
        // Each symbol as `start << 32 | index`: one number to sort, no
        // look-up per comparison. A canonical order moves whole runs of
        // symbols, so the stream is a few runs already in text order, which
        // the stable sort finds and merges (about linear time).
        let mut by_start: Vec<u64> = self
            .spans
            .iter()
            .enumerate()
            .map(|(i, s)| u64::from(s.start) << 32 | i as u64)
            .collect();
        by_start.sort();
        let mut ranks = vec![0u32; self.spans.len()];
        for (rank, &key) in by_start.iter().enumerate() {
            ranks[key as u32 as usize] = rank as u32;
        }
        Some(ranks)
    }

    /// Empties the stream, keeping its buffers.
    pub fn clear(&mut self) {
        self.symbols.clear();
        self.spans.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::{Normalized, Span};
    use proptest::prelude::*;

    proptest! {
        /// Each symbol's rank is the number of symbols that start before
        /// it, for streams made of text-order runs moved about (as a
        /// canonical order makes them) and for any order at all.
        #[test]
        fn text_ranks_count_the_symbols_starting_before(
            lens in proptest::collection::vec(1u32..5, 1..120),
            cuts in proptest::collection::vec(0usize..120, 0..6),
            shuffled in any::<bool>(),
            seed in any::<u64>(),
        ) {
            // Disjoint spans in text order, then runs of them moved.
            let mut spans = Vec::new();
            let mut at = 0;
            for len in lens {
                spans.push(Span::new(at, at + len));
                at += len + 1;
            }
            let mut order: Vec<usize> = (0..spans.len()).collect();
            if shuffled {
                let mut x = seed | 1;
                for i in (1..order.len()).rev() {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    order.swap(i, (x % (i as u64 + 1)) as usize);
                }
            } else {
                for &c in &cuts {
                    let c = c % order.len();
                    order.rotate_left(c);
                    order[..c / 2 + 1].reverse();
                }
            }
            let mut n = Normalized::default();
            for &i in &order {
                n.push(i as u64, spans[i]);
            }
            let starts: Vec<u32> = n.spans.iter().map(|s| s.start).collect();
            let naive: Vec<u32> = starts
                .iter()
                .map(|&s| starts.iter().filter(|&&t| t < s).count() as u32)
                .collect();
            match n.text_ranks() {
                None => prop_assert!(naive.iter().enumerate().all(|(i, &r)| r as usize == i)),
                Some(ranks) => prop_assert_eq!(ranks, naive),
            }
        }
    }
}
