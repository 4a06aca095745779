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
/// came from. `symbols.len() == spans.len()`; spans are strictly increasing
/// and never overlap.
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

    /// Empties the stream, keeping its buffers.
    pub fn clear(&mut self) {
        self.symbols.clear();
        self.spans.clear();
    }
}
