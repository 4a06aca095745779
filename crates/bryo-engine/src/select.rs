//! Selecting fingerprints from a stream of k-gram hashes.

use std::collections::{BTreeMap, VecDeque};
use std::fmt;

use crate::{Error, Fingerprint};

/// How fingerprints are chosen among the k-gram hashes of a document.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Selection {
    /// Winnowing (paper, Definition 1): in every window of `w` consecutive
    /// hashes select the minimum, the rightmost one on ties. Guarantees that
    /// any shared run of `t = w + k − 1` symbols shares a fingerprint; density
    /// `2/(w+1)` on random input.
    Winnow,
    /// Robust winnowing (Definition 3): like winnowing, but a tie is broken in
    /// favour of the hash the previous window selected when it is still in the
    /// window. Same guarantee; on low-entropy runs such as `0000…` it selects
    /// one hash per window instead of nearly every hash.
    RobustWinnow,
    /// Manber's 0 mod p: every hash divisible by `p`. Density `1/p`, no
    /// guarantee (a run with no multiple of p can be arbitrarily long).
    ModP {
        /// The modulus (≥ 1).
        p: u64,
    },
    /// Safe 0 mod p (§3.1.2): hashes are *Good* when 0 mod p, *Bad* when they
    /// and the `w − 1` hashes to their left are all not Good, *Ugly*
    /// otherwise; all non-Ugly hashes are selected. Same guarantee as
    /// winnowing; density `1/p + (1 − 1/p)^w`.
    SafeModP {
        /// The modulus (≥ 1).
        p: u64,
    },
    /// The `n` smallest distinct hash values of the document (Heintze; Broder's
    /// resemblance sketch), each at its leftmost position. Detects
    /// resemblance of whole documents, not containment.
    Smallest {
        /// The sketch size (≥ 1).
        n: usize,
    },
    /// Every hash.
    All,
}

impl Selection {
    /// Checks the parameters of the selection.
    pub fn validate(self) -> Result<Selection, Error> {
        match self {
            Selection::ModP { p: 0 } | Selection::SafeModP { p: 0 } => Err(Error::ZeroModulus),
            Selection::Smallest { n: 0 } => Err(Error::ZeroSketch),
            other => Ok(other),
        }
    }

    /// The expected share of hashes selected on independent uniformly random
    /// hashes, for window `w` (paper §3); `None` for [`Selection::Smallest`],
    /// whose output size does not grow with the document.
    pub fn expected_density(self, w: usize) -> Option<f64> {
        let w = w as f64;
        match self {
            Selection::Winnow | Selection::RobustWinnow => Some(2.0 / (w + 1.0)),
            Selection::ModP { p } => Some(1.0 / p as f64),
            Selection::SafeModP { p } => {
                let q = 1.0 / p as f64;
                Some(q + (1.0 - q).powf(w))
            }
            Selection::Smallest { .. } => None,
            Selection::All => Some(1.0),
        }
    }
}

impl fmt::Display for Selection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Selection::Winnow => f.write_str("winnowing"),
            Selection::RobustWinnow => f.write_str("robust winnowing"),
            Selection::ModP { p } => write!(f, "0 mod {p}"),
            Selection::SafeModP { p } => write!(f, "safe 0 mod {p}"),
            Selection::Smallest { n } => write!(f, "{n} smallest"),
            Selection::All => f.write_str("all hashes"),
        }
    }
}

/// A streaming fingerprint selector: feed it the k-gram hashes of one
/// document in order, in pieces of any size, then call
/// [`finish`](Selector::finish). Hash `i` of the stream has position `i`.
///
/// ```
/// use bryo_engine::{Fingerprint, Selection, Selector};
/// // The hashes of the paper's Figure 2(d), window 4.
/// let hashes = [77, 74, 42, 17, 98, 50, 17, 98, 8, 88, 67, 39, 77, 74, 42, 17, 98];
/// let mut sel = Selector::new(Selection::Winnow, 4).unwrap();
/// let mut out = Vec::new();
/// sel.push(&hashes[..5], &mut out).unwrap();
/// sel.push(&hashes[5..], &mut out).unwrap();
/// sel.finish(&mut out);
/// let got: Vec<(u64, u32)> = out.iter().map(|f| (f.hash, f.pos)).collect();
/// // Figure 2(g): [17,3] [17,6] [8,8] [39,11] [17,15]
/// assert_eq!(got, [(17, 3), (17, 6), (8, 8), (39, 11), (17, 15)]);
/// ```
#[derive(Clone, Debug)]
pub struct Selector {
    selection: Selection,
    /// Hashes consumed so far in this document.
    seen: u64,
    state: State,
}

#[derive(Clone, Debug)]
enum State {
    Winnow(Box<Winnower>),
    ModP { p: Divisor },
    SafeModP { p: Divisor, w: u64, run: u64 },
    Smallest { n: usize, best: BTreeMap<u64, u64> },
    All,
}

impl Selector {
    /// A selector for `selection` with window `w` (used by the winnowing
    /// variants and Safe 0 mod p).
    pub fn new(selection: Selection, w: usize) -> Result<Selector, Error> {
        let selection = selection.validate()?;
        if w == 0 {
            return Err(Error::ZeroWindow);
        }
        if w > crate::config::MAX_PARAMETER {
            return Err(Error::TooLarge {
                name: "w",
                value: w as u64,
                max: crate::config::MAX_PARAMETER as u64,
            });
        }
        let state = match selection {
            Selection::Winnow => State::Winnow(Box::new(Winnower::new(w, false))),
            Selection::RobustWinnow => State::Winnow(Box::new(Winnower::new(w, true))),
            Selection::ModP { p } => State::ModP { p: Divisor::new(p) },
            Selection::SafeModP { p } => State::SafeModP {
                p: Divisor::new(p),
                w: w as u64,
                run: 0,
            },
            Selection::Smallest { n } => State::Smallest {
                n,
                best: BTreeMap::new(),
            },
            Selection::All => State::All,
        };
        Ok(Selector {
            selection,
            seen: 0,
            state,
        })
    }

    /// The selection this selector applies.
    pub fn selection(&self) -> Selection {
        self.selection
    }

    /// Number of hashes consumed in the current document.
    pub fn hashes_seen(&self) -> u64 {
        self.seen
    }

    /// Consumes the next hashes of the document, appending the fingerprints
    /// they complete to `out` in increasing position order.
    ///
    /// Fails, consuming nothing, if positions would no longer fit in `u32`.
    pub fn push(&mut self, hashes: &[u64], out: &mut Vec<Fingerprint>) -> Result<(), Error> {
        let base = self.seen;
        let end = base + hashes.len() as u64;
        if end > u64::from(u32::MAX) + 1 {
            return Err(Error::InputTooLong { kgrams: end });
        }
        match &mut self.state {
            State::Winnow(wn) => wn.push(hashes, base, out),
            State::ModP { p } => {
                let p = *p;
                for (i, &h) in hashes.iter().enumerate() {
                    if p.divides(h) {
                        out.push(fp(h, base + i as u64));
                    }
                }
            }
            State::SafeModP { p, w, run } => {
                let (p, w) = (*p, *w);
                for (i, &h) in hashes.iter().enumerate() {
                    if p.divides(h) {
                        *run = 0;
                        out.push(fp(h, base + i as u64));
                    } else {
                        *run += 1;
                        if *run >= w {
                            out.push(fp(h, base + i as u64));
                        }
                    }
                }
            }
            State::Smallest { n, best } => {
                for (i, &h) in hashes.iter().enumerate() {
                    if best.len() < *n {
                        best.entry(h).or_insert(base + i as u64);
                    } else if best.last_key_value().is_some_and(|(&max, _)| h < max)
                        && !best.contains_key(&h)
                    {
                        best.insert(h, base + i as u64);
                        best.pop_last();
                    }
                }
            }
            State::All => {
                out.extend(
                    hashes
                        .iter()
                        .enumerate()
                        .map(|(i, &h)| fp(h, base + i as u64)),
                );
            }
        }
        self.seen = end;
        Ok(())
    }

    /// Ends the document: appends the fingerprints that depend on its end
    /// (a document shorter than one window contributes its minimum; the
    /// smallest-n sketch is emitted here), then resets the selector for the
    /// next document.
    pub fn finish(&mut self, out: &mut Vec<Fingerprint>) {
        match &mut self.state {
            State::Winnow(wn) => wn.finish(self.seen, out),
            State::SafeModP { run, .. } => *run = 0,
            State::Smallest { best, .. } => {
                let mut picked: Vec<Fingerprint> =
                    best.iter().map(|(&h, &pos)| fp(h, pos)).collect();
                picked.sort_unstable_by_key(|f| f.pos);
                out.extend(picked);
                best.clear();
            }
            State::ModP { .. } | State::All => {}
        }
        self.seen = 0;
    }

    /// Forgets the current document without emitting anything.
    pub fn reset(&mut self) {
        match &mut self.state {
            State::Winnow(wn) => wn.reset(),
            State::SafeModP { run, .. } => *run = 0,
            State::Smallest { best, .. } => best.clear(),
            State::ModP { .. } | State::All => {}
        }
        self.seen = 0;
    }
}

/// Divisibility by a run-time constant without a division (Lemire, Kaser &
/// Kurz, "Faster remainder by direct computation", 2019): with
/// `c = ⌈2^128 / p⌉`, a 64-bit `n` is divisible by `p` iff
/// `(c · n) mod 2^128 < c`. A hardware division costs tens of cycles; this is
/// two multiplications.
#[derive(Clone, Copy, Debug)]
struct Divisor {
    /// `⌈2^128 / p⌉`, or 0 for p = 1 (everything is divisible).
    c: u128,
}

impl Divisor {
    fn new(p: u64) -> Divisor {
        debug_assert!(p >= 1);
        Divisor {
            c: if p == 1 {
                0
            } else {
                u128::MAX / u128::from(p) + 1
            },
        }
    }

    #[inline(always)]
    fn divides(self, n: u64) -> bool {
        self.c == 0 || self.c.wrapping_mul(u128::from(n)) < self.c
    }
}

#[inline(always)]
fn fp(hash: u64, pos: u64) -> Fingerprint {
    Fingerprint {
        hash,
        pos: pos as u32,
    }
}

/// Winnowing in O(1) amortised time per hash, worst case.
///
/// The common case costs two predictable comparisons: is the new hash a new
/// minimum, and has the current minimum just left the window? When it has,
/// the new minimum of window `[j, i]` is the better of
/// * the rightmost minimum of `[j, s_hi]`, read from `records`: the suffix
///   minima of an earlier window `[s_lo, s_hi]`, found by one right-to-left
///   scan and kept as a stack of (value, position) records — only the
///   positions where the suffix minimum changes, about ln w of them on random
///   input — from which records left of `j` are popped, and
/// * `tail`, the rightmost minimum of `(s_hi, i]`, extended lazily.
///
/// Once `j` passes `s_hi` the records are rebuilt over the current window.
/// Rebuilt windows never overlap and every position enters `tail` at most
/// once, so the total work is O(n) for any input (the paper's Figure 5
/// rescans the whole window on every expiry instead, which is O(w) per hash on
/// an increasing sequence).
#[derive(Clone, Debug)]
struct Winnower {
    w: u64,
    robust: bool,
    /// The last `w − 1` hashes before the current chunk.
    carry: VecDeque<u64>,
    cur_val: u64,
    /// Position at which the current selection leaves the window.
    expire: u64,
    /// Suffix-minimum records of `[s_lo, s_hi]`, positions decreasing.
    records: Vec<(u64, u64)>,
    s_hi: u64,
    tail_val: u64,
    tail_pos: u64,
    tail_upto: u64,
}

/// The hashes at positions `[carry_start, base + chunk.len())`.
struct Window<'a> {
    carry: &'a VecDeque<u64>,
    chunk: &'a [u64],
    base: u64,
}

impl Window<'_> {
    #[inline]
    fn get(&self, pos: u64) -> u64 {
        if pos >= self.base {
            self.chunk[(pos - self.base) as usize]
        } else {
            self.carry[self.carry.len() - (self.base - pos) as usize]
        }
    }
}

impl Winnower {
    fn new(w: usize, robust: bool) -> Winnower {
        Winnower {
            w: w as u64,
            robust,
            carry: VecDeque::with_capacity(w),
            cur_val: 0,
            expire: 0,
            records: Vec::new(),
            s_hi: 0,
            tail_val: u64::MAX,
            tail_pos: 0,
            tail_upto: 0,
        }
    }

    fn reset(&mut self) {
        self.carry.clear();
    }

    fn push(&mut self, chunk: &[u64], base: u64, out: &mut Vec<Fingerprint>) {
        let w = self.w;
        let end = base + chunk.len() as u64;
        // The first full window ends at position w − 1.
        let mut start = base;
        if base < w && end >= w {
            let win = Window {
                carry: &self.carry,
                chunk,
                base,
            };
            let (v, p) = rebuild(&mut self.records, &win, 0, w - 1);
            self.set_rebuilt(w - 1);
            self.select(v, p, out);
            start = w;
        } else if end < w {
            start = end;
        }
        if start < end {
            if self.robust {
                self.run::<true>(chunk, base, start, out);
            } else {
                self.run::<false>(chunk, base, start, out);
            }
        }
        // Keep the last w − 1 hashes for the next chunk.
        let keep = (w - 1) as usize;
        if chunk.len() >= keep {
            self.carry.clear();
            self.carry.extend(&chunk[chunk.len() - keep..]);
        } else {
            self.carry.extend(chunk);
            let excess = self.carry.len().saturating_sub(keep);
            self.carry.drain(..excess);
        }
    }

    /// The hot loop: between two events (a new minimum enters, the current
    /// one expires) it is a plain search for the first hash `<=` (robust:
    /// `<`) the current minimum.
    #[inline(always)]
    fn run<const ROBUST: bool>(
        &mut self,
        chunk: &[u64],
        base: u64,
        start: u64,
        out: &mut Vec<Fingerprint>,
    ) {
        let len = chunk.len();
        let mut idx = (start - base) as usize;
        while idx < len {
            // The current minimum leaves the window at chunk index `expire`.
            let expire = (self.expire - base) as usize;
            let stop = expire.min(len);
            let cur = self.cur_val;
            let found = find_first::<ROBUST>(&chunk[idx..stop], cur);
            if let Some(off) = found {
                let p = idx + off;
                self.select(chunk[p], base + p as u64, out);
                idx = p + 1;
            } else if expire < len {
                // A hash that beats the minimum at the expiry position is
                // found by on_expire, which scans the window through it.
                self.on_expire(chunk, base, base + expire as u64, out);
                idx = expire + 1;
            } else {
                idx = stop;
            }
        }
    }

    #[cold]
    #[inline(never)]
    fn on_expire(&mut self, chunk: &[u64], base: u64, i: u64, out: &mut Vec<Fingerprint>) {
        let j = i + 1 - self.w;
        let win = Window {
            carry: &self.carry,
            chunk,
            base,
        };
        if j <= self.s_hi {
            let from = self.tail_upto + 1;
            let (mut tv, mut tp) = (self.tail_val, self.tail_pos);
            if from >= base {
                let lo = (from - base) as usize;
                let hi = (i - base) as usize;
                for (off, &v) in chunk[lo..=hi].iter().enumerate() {
                    if v <= tv {
                        tv = v;
                        tp = from + off as u64;
                    }
                }
            } else {
                for p in from..=i {
                    let v = win.get(p);
                    if v <= tv {
                        tv = v;
                        tp = p;
                    }
                }
            }
            (self.tail_val, self.tail_pos, self.tail_upto) = (tv, tp, i);
            while self.records.last().is_some_and(|&(_, p)| p < j) {
                self.records.pop();
            }
            // j <= s_hi, and the record at s_hi itself is never popped.
            let (sv, sp) = *self.records.last().expect("record at s_hi");
            // The tail lies to the right, so it wins ties.
            if self.tail_val <= sv {
                self.select(self.tail_val, self.tail_pos, out);
            } else {
                self.select(sv, sp, out);
            }
        } else {
            let (v, p) = rebuild(&mut self.records, &win, j, i);
            self.set_rebuilt(i);
            self.select(v, p, out);
        }
    }

    fn set_rebuilt(&mut self, hi: u64) {
        self.s_hi = hi;
        self.tail_val = u64::MAX;
        self.tail_pos = hi;
        self.tail_upto = hi;
    }

    fn select(&mut self, v: u64, p: u64, out: &mut Vec<Fingerprint>) {
        self.cur_val = v;
        self.expire = p + self.w;
        out.push(fp(v, p));
    }

    fn finish(&mut self, seen: u64, out: &mut Vec<Fingerprint>) {
        if seen > 0 && seen < self.w {
            // A document shorter than one window is one (short) window.
            let (mut v, mut p) = (u64::MAX, 0);
            for (i, &h) in self.carry.iter().enumerate() {
                if h <= v {
                    v = h;
                    p = i as u64;
                }
            }
            out.push(fp(v, p));
        }
        self.reset();
    }
}

/// Index of the first hash `<= cur` (robust: `< cur`). Tests eight hashes
/// per branch: new minima are rare, so the branch is almost never taken.
#[inline(always)]
fn find_first<const ROBUST: bool>(hashes: &[u64], cur: u64) -> Option<usize> {
    let hit = |h: u64| if ROBUST { h < cur } else { h <= cur };
    let mut blocks = hashes.chunks_exact(8);
    let mut base = 0;
    for b in &mut blocks {
        let any = (hit(b[0]) | hit(b[1]) | hit(b[2]) | hit(b[3]))
            | (hit(b[4]) | hit(b[5]) | hit(b[6]) | hit(b[7]));
        if any {
            return b.iter().position(|&h| hit(h)).map(|o| base + o);
        }
        base += 8;
    }
    blocks
        .remainder()
        .iter()
        .position(|&h| hit(h))
        .map(|o| base + o)
}

/// Replaces `records` with the suffix-minimum records of `[lo, hi]` (the
/// positions whose hash is smaller than every hash to their right, from `hi`
/// leftwards); returns the last one, the rightmost minimum of `[lo, hi]`.
fn rebuild(records: &mut Vec<(u64, u64)>, win: &Window<'_>, lo: u64, hi: u64) -> (u64, u64) {
    records.clear();
    // Scanning right to left, only a strictly smaller value is a new record,
    // so ties keep the rightmost position.
    let mut best = win.get(hi);
    records.push((best, hi));
    if lo >= win.base {
        // The whole window is in the current chunk: a tight slice loop.
        let from = (lo - win.base) as usize;
        let to = (hi - win.base) as usize;
        for (off, &v) in win.chunk[from..to].iter().enumerate().rev() {
            if v < best {
                best = v;
                records.push((v, lo + off as u64));
            }
        }
    } else {
        for p in (lo..hi).rev() {
            let v = win.get(p);
            if v < best {
                best = v;
                records.push((v, p));
            }
        }
    }
    (best, records.last().expect("non-empty").1)
}

/// Hashes per block of [`block_minima`].
pub(crate) const BLOCK: usize = 8;

/// Writes into `minima[b]` the minimum of `hashes[BLOCK·b .. BLOCK·(b+1)]`
/// for every block `b` in `blocks`.
#[inline]
pub(crate) fn block_minima(hashes: &[u64], minima: &mut [u64], blocks: std::ops::Range<usize>) {
    let (chunks, _) = hashes[blocks.start * BLOCK..blocks.end * BLOCK].as_chunks::<BLOCK>();
    for (m, c) in minima[blocks].iter_mut().zip(chunks) {
        let a = c[0].min(c[1]).min(c[2].min(c[3]));
        let b = c[4].min(c[5]).min(c[6].min(c[7]));
        *m = a.min(b);
    }
}

/// Plain winnowing (Definition 1) over one buffer of consecutive hashes that
/// holds each window whole, with the minimum of every complete block of
/// [`BLOCK`] hashes alongside: the fused hash-and-select paths keep the last
/// window's hashes at the front of their buffers themselves, so this needs
/// no carry between chunks. Positions are buffer indices; `base` is the
/// document position of index 0.
///
/// The block minima make both halves of the work cheap: a block whose
/// minimum exceeds the current selection and in which the selection does not
/// expire is skipped with one comparison, and when the selection expires the
/// new window's rightmost minimum is found from about `w / BLOCK` block
/// minima and two partial blocks instead of `w` hashes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SpanWinnower {
    w: usize,
    /// The current selection's hash.
    cur: u64,
    /// The index at which the current selection leaves the window.
    expire: usize,
}

impl SpanWinnower {
    /// Selects in the first window, `hashes[..w]`, and returns the winnower
    /// positioned after it. `minima` must hold the minima of the blocks
    /// inside that window.
    pub(crate) fn start(
        hashes: &[u64],
        minima: &[u64],
        w: usize,
        base: u64,
        out: &mut Vec<Fingerprint>,
    ) -> SpanWinnower {
        let mut s = SpanWinnower {
            w,
            cur: 0,
            expire: 0,
        };
        let p = rightmost_min(hashes, minima, 0, w - 1);
        s.select(hashes[p], p, base, out);
        s
    }

    /// Handles the windows ending at the indices `from..to` of `hashes` (the
    /// window ending at `from − 1` must have been handled before). `minima`
    /// must hold the minima of every complete block below `to`.
    #[inline]
    pub(crate) fn run(
        &mut self,
        hashes: &[u64],
        minima: &[u64],
        from: usize,
        to: usize,
        base: u64,
        out: &mut Vec<Fingerprint>,
    ) {
        let mut i = from;
        let head = from.next_multiple_of(BLOCK).min(to);
        while i < head {
            self.step(hashes, minima, i, base, out);
            i += 1;
        }
        // Whole blocks: skip those where nothing happens (no hash <= the
        // current selection, which does not expire there) by their minima.
        let end = to / BLOCK;
        let mut b = i / BLOCK;
        while b < end {
            let stop = (self.expire / BLOCK).min(end);
            b = match find_first::<false>(&minima[b..stop], self.cur) {
                Some(off) => b + off,
                None => stop,
            };
            if b < end {
                for j in b * BLOCK..b * BLOCK + BLOCK {
                    self.step(hashes, minima, j, base, out);
                }
                b += 1;
            }
        }
        i = i.max(end * BLOCK);
        while i < to {
            self.step(hashes, minima, i, base, out);
            i += 1;
        }
    }

    /// The window ending at `i`.
    #[inline(always)]
    fn step(
        &mut self,
        hashes: &[u64],
        minima: &[u64],
        i: usize,
        base: u64,
        out: &mut Vec<Fingerprint>,
    ) {
        let h = hashes[i];
        if h <= self.cur {
            // No hash between the selection and i is <= it, so h is the
            // window's rightmost minimum.
            self.select(h, i, base, out);
        } else if i == self.expire {
            let p = rightmost_min(hashes, minima, i + 1 - self.w, i);
            self.select(hashes[p], p, base, out);
        }
    }

    /// The buffer's contents moved `by` places towards its front.
    pub(crate) fn shift(&mut self, by: usize) {
        self.expire -= by;
    }

    #[inline(always)]
    fn select(&mut self, v: u64, p: usize, base: u64, out: &mut Vec<Fingerprint>) {
        self.cur = v;
        self.expire = p + self.w;
        out.push(fp(v, base + p as u64));
    }
}

/// Index of the rightmost minimum of `hashes[lo..=hi]`, reading the minima
/// of the complete blocks inside the range instead of their hashes.
fn rightmost_min(hashes: &[u64], minima: &[u64], lo: usize, hi: usize) -> usize {
    let end = hi + 1;
    let head_end = lo.next_multiple_of(BLOCK).min(end);
    let (mut best, mut at) = (u64::MAX, lo);
    for (p, &v) in hashes[lo..head_end].iter().enumerate() {
        if v <= best {
            (best, at) = (v, lo + p);
        }
    }
    // Scanning left to right with <= keeps the rightmost minimum.
    let (b0, b1) = (head_end / BLOCK, (end / BLOCK).max(head_end / BLOCK));
    let mut block = usize::MAX;
    for (b, &v) in minima[b0..b1].iter().enumerate() {
        if v <= best {
            (best, block) = (v, b0 + b);
        }
    }
    let tail = (b1 * BLOCK).max(head_end);
    for (p, &v) in hashes[tail..end].iter().enumerate() {
        if v <= best {
            (best, at, block) = (v, tail + p, usize::MAX);
        }
    }
    if block == usize::MAX {
        return at;
    }
    let b = &hashes[block * BLOCK..block * BLOCK + BLOCK];
    block * BLOCK + b.iter().rposition(|&v| v == best).unwrap_or(0)
}
