//! Measurements of a fingerprint set: what `bryo density` reports.

/// Tracks the longest run of symbols that contains no fingerprinted k-gram.
///
/// A run of symbols "has no fingerprint" when no selected k-gram lies wholly
/// inside it. Between selected positions `p < q` the longest such run is
/// `q − p + k − 2` symbols; before the first fingerprint `q` it is
/// `q + k − 1`, after the last `p` it is `n − 1 − p`, and a document with no
/// fingerprint is one run of all its `n` symbols. Winnowing keeps this at most
/// `t − 1 = w + k − 2` in every document with at least `t` symbols.
///
/// ```
/// use bryo_engine::GapMeter;
/// let mut g = GapMeter::new(5);
/// for pos in [3, 6, 8, 11, 15] { g.observe(pos); }
/// // 21 symbols: runs of 7, 6, 5, 6, 7 and 5 symbols.
/// assert_eq!(g.finish(21), 7);
/// ```
#[derive(Clone, Debug)]
pub struct GapMeter {
    k: u64,
    last: Option<u64>,
    longest: u64,
}

impl GapMeter {
    /// A meter for k-grams of length `k`.
    pub fn new(k: usize) -> GapMeter {
        GapMeter {
            k: k as u64,
            last: None,
            longest: 0,
        }
    }

    /// Records a fingerprint position; positions must not decrease within a
    /// document (equal positions are ignored).
    pub fn observe(&mut self, pos: u64) {
        let gap = match self.last {
            None => pos + self.k - 1,
            Some(p) if pos <= p => return,
            Some(p) => pos - p + self.k - 2,
        };
        self.longest = self.longest.max(gap);
        self.last = Some(pos);
    }

    /// Ends a document of `n_symbols` symbols and returns its longest run
    /// without a fingerprint; the meter is reset for the next document.
    pub fn finish(&mut self, n_symbols: u64) -> u64 {
        let end_gap = match self.last {
            None => n_symbols,
            Some(p) => n_symbols.saturating_sub(p + 1),
        };
        let longest = self.longest.max(end_gap);
        self.last = None;
        self.longest = 0;
        longest
    }
}
