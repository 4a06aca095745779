//! The whole pipeline: symbols → k-gram hashes → selected fingerprints.

use crate::hash::{kgram_count, Schemes, Symbol};
use crate::rolling::{roll_lanes, Roll};
use crate::select::{block_minima, SpanWinnower, BLOCK};
use crate::{rehash, Config, Error, HashFunction, Hasher, KarpRabin, Rabin, Selection, Selector};

/// A selected k-gram hash and where its k-gram starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Fingerprint {
    /// The k-gram's hash (re-hashed if the fingerprinter asked for it).
    pub hash: u64,
    /// Index of the first symbol of the k-gram in the document.
    pub pos: u32,
}

/// How many k-gram hashes are computed and selected per step. 16 Ki hashes
/// (128 KiB) stay in the L2 cache between hashing and selection.
const CHUNK: usize = 16 * 1024;

/// Fingerprints documents: a [`Hasher`] and a [`Selector`] with reusable
/// buffers. Not thread-safe by design; make one per thread (construction is
/// cheap).
///
/// For plain winnowing [`fingerprint_bytes_into`](Fingerprinter::fingerprint_bytes_into)
/// and [`fingerprint_symbols_into`](Fingerprinter::fingerprint_symbols_into) (and
/// [`fingerprint_bytes`](Fingerprinter::fingerprint_bytes) and
/// [`fingerprint_symbols`](Fingerprinter::fingerprint_symbols), which return a
/// new vector) hash and select in one fused pass over four
/// independent lanes, about 1.3 times as fast on bytes (with Karp–Rabin on
/// a processor with AVX-512, eight lanes in one vector: another 1.27 times,
/// see [`with_simd`](Fingerprinter::with_simd)); the result is the same
/// fingerprints as the general pipeline, which the lazy iterators and every
/// other selection use.
///
/// ```
/// use bryo_engine::{Config, Fingerprinter, HashFunction, Selection};
/// let config = Config::from_thresholds(5, 8).unwrap();
/// let mut f = Fingerprinter::new(config, HashFunction::KarpRabin, Selection::Winnow).unwrap();
/// let a = f.fingerprint_bytes(b"adorunrunrunadorunrun").unwrap();
/// let b = f.fingerprint_bytes(b"xxrunrunrunadoxx").unwrap();
/// // "runrunrunado" (12 symbols >= t = 8) is shared, so a fingerprint is too.
/// assert!(a.iter().any(|x| b.iter().any(|y| x.hash == y.hash)));
/// ```
#[derive(Clone, Debug)]
pub struct Fingerprinter {
    config: Config,
    hasher: Hasher,
    selector: Selector,
    rehash: bool,
    hashes: Vec<u64>,
    /// The fused hash-and-winnow path, for plain winnowing.
    fused: Option<Fused>,
    /// Whether the fused path may use explicit SIMD.
    simd: bool,
}

impl Fingerprinter {
    /// A fingerprinter with the given thresholds, hash and selection.
    pub fn new(
        config: Config,
        function: HashFunction,
        selection: Selection,
    ) -> Result<Fingerprinter, Error> {
        Ok(Fingerprinter {
            config,
            hasher: Hasher::new(function, &config),
            selector: Selector::new(selection, config.w())?,
            rehash: false,
            hashes: Vec::new(),
            fused: Fused::new(config, function, selection),
            simd: true,
        })
    }

    /// Allows (the default) or forbids explicit SIMD. With `true`, plain
    /// winnowing with Karp–Rabin (bytes or symbols) runs eight lanes in AVX-512
    /// vectors when the processor has AVX-512 F, DQ and BW (checked once per
    /// process; the environment variable `BRYO_NO_SIMD=1` turns it off for
    /// the whole process). The fingerprints are the same either way; this
    /// switch exists to compare the two paths.
    pub fn with_simd(mut self, on: bool) -> Fingerprinter {
        self.simd = on;
        self
    }

    /// Whether [`fingerprint_bytes_into`](Fingerprinter::fingerprint_bytes_into) and
    /// [`fingerprint_symbols_into`](Fingerprinter::fingerprint_symbols_into) use
    /// explicit SIMD on this processor for this configuration.
    pub fn uses_simd(&self) -> bool {
        self.simd
            && crate::simd::available()
            && matches!(
                self.fused,
                Some(Fused {
                    hash: FusedHash::KarpRabin(_),
                    ..
                })
            )
    }

    /// Re-hash every selected value with [`rehash`] (a bijection), so that
    /// fingerprint values are uniformly distributed rather than skewed
    /// towards the small values winnowing prefers. Selection itself is
    /// unchanged.
    pub fn with_rehash(mut self, on: bool) -> Fingerprinter {
        self.rehash = on;
        self
    }

    /// The thresholds.
    pub fn config(&self) -> Config {
        self.config
    }

    /// The k-gram hasher.
    pub fn hasher(&self) -> &Hasher {
        &self.hasher
    }

    /// The selection.
    pub fn selection(&self) -> Selection {
        self.selector.selection()
    }

    /// Replaces the contents of `out` with the fingerprints of `bytes`, each
    /// byte one symbol. Reuses `out`'s allocation (for many documents on one
    /// thread); [`fingerprint_bytes`](Fingerprinter::fingerprint_bytes)
    /// returns a new vector instead.
    pub fn fingerprint_bytes_into(
        &mut self,
        bytes: &[u8],
        out: &mut Vec<Fingerprint>,
    ) -> Result<(), Error> {
        self.run(bytes, out)
    }

    /// Replaces the contents of `out` with the fingerprints of `symbols`,
    /// reusing `out`'s allocation;
    /// [`fingerprint_symbols`](Fingerprinter::fingerprint_symbols) returns a
    /// new vector instead.
    pub fn fingerprint_symbols_into(
        &mut self,
        symbols: &[u64],
        out: &mut Vec<Fingerprint>,
    ) -> Result<(), Error> {
        self.run(symbols, out)
    }

    /// The fingerprints of `bytes`, each byte one symbol, in a new vector;
    /// [`fingerprint_bytes_into`](Fingerprinter::fingerprint_bytes_into)
    /// fills a caller's vector instead.
    pub fn fingerprint_bytes(&mut self, bytes: &[u8]) -> Result<Vec<Fingerprint>, Error> {
        let mut out = Vec::new();
        self.run(bytes, &mut out)?;
        Ok(out)
    }

    /// The fingerprints of `symbols` in a new vector;
    /// [`fingerprint_symbols_into`](Fingerprinter::fingerprint_symbols_into)
    /// fills a caller's vector instead.
    pub fn fingerprint_symbols(&mut self, symbols: &[u64]) -> Result<Vec<Fingerprint>, Error> {
        let mut out = Vec::new();
        self.run(symbols, &mut out)?;
        Ok(out)
    }

    /// A lazy iterator over the fingerprints of `bytes`, computed a chunk at
    /// a time in bounded memory.
    pub fn iter_bytes<'a>(&'a mut self, bytes: &'a [u8]) -> Result<Fingerprints<'a, u8>, Error> {
        Fingerprints::new(self, bytes)
    }

    /// A lazy iterator over the fingerprints of `symbols`.
    pub fn iter_symbols<'a>(
        &'a mut self,
        symbols: &'a [u64],
    ) -> Result<Fingerprints<'a, u64>, Error> {
        Fingerprints::new(self, symbols)
    }

    /// The fused path when it takes the document, else the chunked one.
    fn run<S: Schemes>(&mut self, input: &[S], out: &mut Vec<Fingerprint>) -> Result<(), Error> {
        let total = self.check_len(input.len())?;
        let simd = self.simd;
        match &mut self.fused {
            Some(f) if f.takes(total) => {
                out.clear();
                match &f.hash {
                    FusedHash::KarpRabin(kr) => {
                        f.lanes.run(kr.rolling::<S>(simd), input, total, out)
                    }
                    FusedHash::Rabin(r) => f.lanes.run(S::rabin(r), input, total, out),
                }
                self.rehash_from(out, 0);
                Ok(())
            }
            _ => self.run_chunked(input, out),
        }
    }

    /// Hashes a chunk, selects from it, and so on: every selection.
    fn run_chunked<S: Symbol>(
        &mut self,
        input: &[S],
        out: &mut Vec<Fingerprint>,
    ) -> Result<(), Error> {
        out.clear();
        let total = self.check_len(input.len())?;
        self.selector.reset();
        let mut first = 0;
        while first < total {
            self.step(input, first, total, out)?;
            first += CHUNK.min(total - first);
        }
        self.end(out);
        Ok(())
    }

    fn check_len(&self, len: usize) -> Result<usize, Error> {
        let total = kgram_count(len, self.config.k());
        if total as u64 > u64::from(u32::MAX) + 1 {
            return Err(Error::InputTooLong {
                kgrams: total as u64,
            });
        }
        Ok(total)
    }

    /// Hashes and selects the chunk of k-grams starting at `first`.
    fn step<S: Symbol>(
        &mut self,
        input: &[S],
        first: usize,
        total: usize,
        out: &mut Vec<Fingerprint>,
    ) -> Result<(), Error> {
        let n = CHUNK.min(total - first);
        // Only grown: `hash_range` writes all of `hashes[..n]`, and a
        // document's shorter last chunk would otherwise have the next
        // document's first zero the rest again.
        if self.hashes.len() < n {
            self.hashes.resize(n, 0);
        }
        S::hash_range(&self.hasher, input, first, &mut self.hashes[..n]);
        let before = out.len();
        self.selector.push(&self.hashes[..n], out)?;
        self.rehash_from(out, before);
        Ok(())
    }

    fn end(&mut self, out: &mut Vec<Fingerprint>) {
        let before = out.len();
        self.selector.finish(out);
        self.rehash_from(out, before);
    }

    fn rehash_from(&self, out: &mut [Fingerprint], from: usize) {
        if self.rehash {
            for f in &mut out[from..] {
                f.hash = rehash(f.hash);
            }
        }
    }
}

/// Lazy iterator over the fingerprints of one document, from
/// [`Fingerprinter::iter_bytes`] or [`Fingerprinter::iter_symbols`].
#[derive(Debug)]
pub struct Fingerprints<'a, S: Symbol> {
    owner: &'a mut Fingerprinter,
    input: &'a [S],
    next: usize,
    total: usize,
    queue: Vec<Fingerprint>,
    read: usize,
    done: bool,
}

impl<'a, S: Symbol> Fingerprints<'a, S> {
    fn new(owner: &'a mut Fingerprinter, input: &'a [S]) -> Result<Self, Error> {
        let total = owner.check_len(input.len())?;
        owner.selector.reset();
        Ok(Fingerprints {
            owner,
            input,
            next: 0,
            total,
            queue: Vec::new(),
            read: 0,
            done: false,
        })
    }
}

impl<S: Symbol> Iterator for Fingerprints<'_, S> {
    type Item = Fingerprint;

    fn next(&mut self) -> Option<Fingerprint> {
        loop {
            if let Some(&f) = self.queue.get(self.read) {
                self.read += 1;
                return Some(f);
            }
            if self.done {
                return None;
            }
            self.queue.clear();
            self.read = 0;
            if self.next < self.total {
                let first = self.next;
                self.next += CHUNK.min(self.total - first);
                // `step` fails only when positions pass `u32`: `new` checked
                // that the input has at most 2^32 k-grams and reset the
                // selector, and the iterator borrows the fingerprinter
                // mutably, so nothing else can push. A failure is a bug,
                // never a silent end of the fingerprints.
                self.owner
                    .step(self.input, first, self.total, &mut self.queue)
                    .expect("input length checked when the iterator was made");
            } else {
                self.owner.end(&mut self.queue);
                self.done = true;
            }
        }
    }
}

/// Independent hash chains in the fused path (scalar).
const LANES: usize = 4;
/// Independent hash chains in the fused path with explicit SIMD: one vector.
const WIDE: usize = 8;
/// Window ends per lane in a full segment of the fused path.
const LANE_LEN: usize = 1 << 15;
/// Hashes each lane computes per round before winnowing them, while they are
/// still in the L1 cache.
const ROUND: usize = 512;
/// Room per lane in the fused path's hash buffer: the last `w − 1` hashes
/// and one round.
const STRIDE: usize = 4096;

/// The fused hash-and-winnow path for plain winnowing: its own copy of the
/// hash tables (the [`Hasher`] keeps serving the other selections and the
/// lazy iterator) and its buffers.
#[derive(Clone, Debug)]
struct Fused {
    hash: FusedHash,
    lanes: Lanes<LANE_LEN, ROUND, STRIDE>,
}

#[derive(Clone, Debug)]
enum FusedHash {
    KarpRabin(Box<KarpRabin>),
    Rabin(Box<Rabin>),
}

impl Fused {
    fn new(config: Config, function: HashFunction, selection: Selection) -> Option<Fused> {
        let lanes = Lanes::new(config.k(), config.w())?;
        if selection != Selection::Winnow {
            return None;
        }
        let hash = match function {
            HashFunction::KarpRabin => FusedHash::KarpRabin(Box::new(KarpRabin::new(config.k()))),
            HashFunction::Rabin(p) => FusedHash::Rabin(Box::new(Rabin::new(p, config.k()))),
        };
        Some(Fused { hash, lanes })
    }

    /// Whether the fused path handles a document of `total` k-grams: it
    /// needs one whole window (a shorter document is a single short window,
    /// which the general path handles).
    fn takes(&self, total: usize) -> bool {
        total >= self.lanes.w
    }
}

/// Hashing and winnowing in lanes.
///
/// The windows of the document (identified by the position of their last
/// hash) are cut into segments of `LANES · LEN` windows, each segment into
/// `LANES` stretches of `LEN` windows side by side. Each lane hashes its
/// stretch (and the `w − 1` hashes before it) as its own chain, so the
/// processor overlaps the lanes' multiply chains, `ROUND` hashes at a time
/// into its part of a small buffer, and winnows them right away while they
/// are in the L1 cache.
///
/// Plain winnowing is local: the selection for a window depends on that
/// window's hashes only, so each lane selects exactly what the sequential
/// winnower selects for its windows. The one seam effect: the first window
/// of a stretch may select the same k-gram as the last window of the
/// previous stretch, which the sequential winnower reports once; the
/// duplicate is dropped when the lanes' outputs are joined.
///
/// `STRIDE` is the room per lane in the buffer (a window of history plus a
/// round), so windows up to `STRIDE − ROUND + 1` are accepted.
#[derive(Clone, Debug)]
struct Lanes<const LEN: usize, const ROUND: usize, const STRIDE: usize> {
    k: usize,
    w: usize,
    /// Each lane's hashes, `STRIDE` apart.
    buf: Vec<u64>,
    /// The minima of each lane's complete blocks of hashes, `STRIDE / BLOCK`
    /// apart.
    minima: Vec<u64>,
    found: [Vec<Fingerprint>; WIDE],
}

impl<const LEN: usize, const ROUND: usize, const STRIDE: usize> Lanes<LEN, ROUND, STRIDE> {
    /// Lanes for k-grams of `k` symbols and windows of `w` hashes, or `None`
    /// if the window does not fit the buffer.
    fn new(k: usize, w: usize) -> Option<Self> {
        // After a shift a lane keeps up to w − 1 + (BLOCK − 1) hashes.
        let fits = w + BLOCK - 2 + ROUND <= STRIDE;
        let aligned = STRIDE.is_multiple_of(BLOCK) && ROUND.is_multiple_of(BLOCK);
        (k >= 1 && w >= 1 && fits && aligned && LEN >= 1).then(|| Lanes {
            k,
            w,
            buf: Vec::new(),
            minima: Vec::new(),
            found: Default::default(),
        })
    }

    /// Appends to `out` the winnowing fingerprints of `input`, which has
    /// `total >= w` k-grams.
    fn run<R: Roll>(&mut self, r: R, input: &[R::Sym], total: usize, out: &mut Vec<Fingerprint>) {
        if r.wide() {
            self.run_lanes::<R, WIDE>(r, input, total, out);
        } else {
            self.run_lanes::<R, LANES>(r, input, total, out);
        }
    }

    /// [`run`](Self::run) with `L` lanes.
    fn run_lanes<R: Roll, const L: usize>(
        &mut self,
        r: R,
        input: &[R::Sym],
        total: usize,
        out: &mut Vec<Fingerprint>,
    ) {
        self.buf.resize(L * STRIDE, 0);
        self.minima.resize(L * STRIDE / BLOCK, 0);
        let mut e = self.w - 1;
        while total - e >= L * LEN {
            self.segment::<R, L>(r, input, e, LEN, LEN, out);
            e += L * LEN;
        }
        let len = (total - e) / L;
        if len > 0 {
            self.segment::<R, L>(r, input, e, len, len, out);
            e += L * len;
        }
        if e < total {
            self.segment::<R, 1>(r, input, e, 0, total - e, out);
        }
    }

    /// Winnows `L` stretches of `len` windows, the first ending at hash
    /// position `e`, the next each `spacing` positions further on.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn segment<R: Roll, const L: usize>(
        &mut self,
        r: R,
        input: &[R::Sym],
        e: usize,
        spacing: usize,
        len: usize,
        out: &mut Vec<Fingerprint>,
    ) {
        let (k, w) = (self.k, self.w);
        let buf = &mut self.buf[..L * STRIDE];
        let minima = &mut self.minima[..L * STRIDE / BLOCK];
        // The document position of each lane's buffer index 0.
        let mut base: [usize; L] = std::array::from_fn(|j| e + j * spacing + 1 - w);
        let mut state: [u64; L] = std::array::from_fn(|j| r.start(&input[base[j]..base[j] + k]));
        for (lane, &s) in buf.chunks_exact_mut(STRIDE).zip(&state) {
            lane[0] = r.finish(s);
        }
        // The rest of each lane's first window.
        roll_lanes(
            r,
            input,
            k,
            base[0] + 1,
            spacing,
            &mut state,
            &mut buf[1..],
            STRIDE,
            w - 1,
        );
        // Blocks below `blocks` have their minima computed.
        let mut blocks = w / BLOCK;
        for (lane, m) in buf
            .chunks_exact(STRIDE)
            .zip(minima.chunks_exact_mut(STRIDE / BLOCK))
        {
            block_minima(lane, m, 0..blocks);
        }
        let found = &mut self.found;
        let mut win: [SpanWinnower; L] = std::array::from_fn(|j| {
            let lane = &buf[j * STRIDE..(j + 1) * STRIDE];
            let m = &minima[j * (STRIDE / BLOCK)..(j + 1) * (STRIDE / BLOCK)];
            SpanWinnower::start(lane, m, w, base[j] as u64, &mut found[j])
        });
        // Hashes per lane per round. The vector path hashes so cheaply that
        // longer rounds (fewer buffer shifts and partial blocks) pay off
        // more than keeping a round in the L1 cache: four times as long,
        // as far as the buffer allows (`new` checked that ROUND fits).
        let round = if L == WIDE {
            (4 * ROUND).min(STRIDE + 2 - BLOCK - w)
        } else {
            ROUND
        };
        let mut fill = w;
        let mut done = 1;
        while done < len {
            let q = round.min(len - done);
            if fill + q > STRIDE {
                // Keep the last w − 1 hashes, the history of the next
                // window, from a block boundary on.
                let from = (fill + 1 - w) / BLOCK * BLOCK;
                for (j, (lane, m)) in buf
                    .chunks_exact_mut(STRIDE)
                    .zip(minima.chunks_exact_mut(STRIDE / BLOCK))
                    .enumerate()
                {
                    lane.copy_within(from..fill, 0);
                    m.copy_within(from / BLOCK..blocks, 0);
                    base[j] += from;
                    win[j].shift(from);
                }
                fill -= from;
                blocks -= from / BLOCK;
            }
            let at = base[0] + fill;
            let complete = (fill + q) / BLOCK;
            // The blocks whose minima the hashing computed.
            let mut vector = complete..complete;
            match <&mut [u64; WIDE]>::try_from(&mut state[..]) {
                Ok(state) if r.wide() => {
                    vector = r.roll8(input, k, at, spacing, state, buf, STRIDE, fill, q, minima);
                }
                _ => roll_lanes(
                    r,
                    input,
                    k,
                    at,
                    spacing,
                    &mut state,
                    &mut buf[fill..],
                    STRIDE,
                    q,
                ),
            }
            for (j, (lane, m)) in buf
                .chunks_exact(STRIDE)
                .zip(minima.chunks_exact_mut(STRIDE / BLOCK))
                .enumerate()
            {
                block_minima(lane, m, blocks..vector.start);
                block_minima(lane, m, vector.end..complete);
                win[j].run(lane, m, fill, fill + q, base[j] as u64, &mut found[j]);
            }
            blocks = complete;
            fill += q;
            done += q;
        }
        for lane in found.iter_mut().take(L) {
            // The first window of a stretch may repeat the previous one's
            // selection.
            let skip = match (out.last(), lane.first()) {
                (Some(a), Some(b)) if a.pos == b.pos => 1,
                _ => 0,
            };
            out.extend_from_slice(&lane[skip..]);
            lane.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Winnowing by definition: the rightmost minimum of every window (the
    /// whole document if shorter than one), each selection reported once.
    fn naive_winnow(hashes: &[u64], w: usize) -> Vec<Fingerprint> {
        let n = hashes.len();
        let windows: Vec<std::ops::Range<usize>> = match n {
            0 => Vec::new(),
            n if n < w => std::iter::once(0..n).collect(),
            n => (0..=n - w).map(|i| i..i + w).collect(),
        };
        let mut out: Vec<Fingerprint> = Vec::new();
        for win in windows {
            let min = hashes[win.clone()].iter().copied().min().unwrap_or(0);
            let p = win.rev().find(|&i| hashes[i] == min).unwrap_or(0);
            if out.last().is_none_or(|f| f.pos as usize != p) {
                out.push(Fingerprint {
                    hash: hashes[p],
                    pos: p as u32,
                });
            }
        }
        out
    }

    /// Runs the lanes with a small geometry (so that stretches, rounds and
    /// buffer shifts all occur on short inputs) against the naive winnower,
    /// for both hashes and both symbol types.
    fn check<const LEN: usize, const ROUND: usize, const STRIDE: usize>(
        bytes: &[u8],
        k: usize,
        w: usize,
    ) -> Result<(), TestCaseError> {
        let Some(mut lanes) = Lanes::<LEN, ROUND, STRIDE>::new(k, w) else {
            return Ok(());
        };
        let config = Config::new(k, w).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let total = kgram_count(bytes.len(), k);
        let symbols: Vec<u64> = bytes.iter().map(|&b| u64::from(b) * 0x0100_0001).collect();
        for function in [HashFunction::KarpRabin, HashFunction::RABIN_DEFAULT] {
            let hasher = Hasher::new(function, &config);
            let mut hashes = Vec::new();
            hasher.hash_bytes(bytes, &mut hashes);
            let want = naive_winnow(&hashes, w);
            let mut got = Vec::new();
            if total >= w {
                match function {
                    HashFunction::KarpRabin => lanes.run(
                        KarpRabin::new(k).rolling::<u8>(false),
                        bytes,
                        total,
                        &mut got,
                    ),
                    HashFunction::Rabin(p) => {
                        lanes.run(Rabin::new(p, k).bytes(), bytes, total, &mut got)
                    }
                }
                prop_assert_eq!(&got, &want);
                if function == HashFunction::KarpRabin {
                    // Eight lanes in AVX-512 vectors where the processor
                    // has it, eight scalar lanes where not.
                    got.clear();
                    lanes.run(
                        KarpRabin::new(k).rolling::<u8>(true),
                        bytes,
                        total,
                        &mut got,
                    );
                    prop_assert_eq!(&got, &want);
                }
            }
            // The public path, whichever way it goes, with and without SIMD.
            let mut f = Fingerprinter::new(config, function, Selection::Winnow)
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(&f.fingerprint_bytes(bytes).unwrap(), &want);
            let mut g = f.clone().with_simd(false);
            prop_assert!(!g.uses_simd());
            prop_assert_eq!(&g.fingerprint_bytes(bytes).unwrap(), &want);

            hasher.hash_symbols(&symbols, &mut hashes);
            let want = naive_winnow(&hashes, w);
            if total >= w {
                got.clear();
                match function {
                    HashFunction::KarpRabin => lanes.run(
                        KarpRabin::new(k).rolling::<u64>(false),
                        &symbols,
                        total,
                        &mut got,
                    ),
                    HashFunction::Rabin(p) => {
                        lanes.run(Rabin::new(p, k).symbols(), &symbols, total, &mut got)
                    }
                }
                prop_assert_eq!(&got, &want);
                if function == HashFunction::KarpRabin {
                    got.clear();
                    lanes.run(
                        KarpRabin::new(k).rolling::<u64>(true),
                        &symbols,
                        total,
                        &mut got,
                    );
                    prop_assert_eq!(&got, &want);
                }
            }
            prop_assert_eq!(&f.fingerprint_symbols(&symbols).unwrap(), &want);
            prop_assert_eq!(&g.fingerprint_symbols(&symbols).unwrap(), &want);
        }
        Ok(())
    }

    /// Bytes from a small alphabet (many equal hashes), random bytes, one
    /// repeated byte (all hashes equal), or long runs of a few bytes.
    fn text() -> impl Strategy<Value = Vec<u8>> {
        prop_oneof![
            prop::collection::vec(0u8..2, 0..3000),
            prop::collection::vec(any::<u8>(), 0..3000),
            (any::<u8>(), 0usize..3000).prop_map(|(b, n)| vec![b; n]),
            prop::collection::vec((0u8..3, 1usize..200), 0..40).prop_map(|runs| runs
                .into_iter()
                .flat_map(|(b, n)| std::iter::repeat_n(b, n))
                .collect()),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        #[test]
        fn lanes_match_naive_winnowing(bytes in text(), k in 1usize..12, w in 1usize..40) {
            check::<1, 8, 64>(&bytes, k, w)?;
            check::<7, 8, 64>(&bytes, k, w)?;
            check::<64, 16, 64>(&bytes, k, w)?;
            check::<300, 512, 4096>(&bytes, k, w)?;
        }

        /// Lengths around the edges: fewer symbols than k, exactly one
        /// window (k + w − 1 symbols), and the ends of stretches.
        #[test]
        fn lanes_match_naive_winnowing_at_edges(
            seed in any::<u64>(),
            alphabet in 1u64..5,
            k in 1usize..10,
            w in 1usize..30,
            extra in 0usize..3,
            stretches in 0usize..18,
            shape in 0usize..4,
        ) {
            const LEN: usize = 7;
            let windows = match shape {
                // no k-gram, or fewer than one window
                0 => 0,
                // exactly one window
                1 => 1,
                // whole stretches (up to two segments of eight), and one or
                // two windows more
                _ => stretches * LEN + extra,
            };
            let len = match (shape, extra) {
                (0, e) => (k + w).saturating_sub(2 + e),
                _ => k + w - 2 + windows,
            };
            let mut rng = crate::SplitMix64::new(seed);
            let bytes: Vec<u8> = (0..len).map(|_| b'a' + rng.below(alphabet) as u8).collect();
            check::<LEN, 8, 64>(&bytes, k, w)?;
        }
    }

    /// On a processor with AVX-512 the tests above exercise the vector
    /// path (unless `BRYO_NO_SIMD` turned it off).
    #[test]
    fn simd_path_is_used_when_the_processor_has_it() {
        let config = Config::new(50, 100).unwrap();
        let f = Fingerprinter::new(config, HashFunction::KarpRabin, Selection::Winnow).unwrap();
        let off = std::env::var_os("BRYO_NO_SIMD").is_some_and(|v| !v.is_empty() && v != "0");
        assert_eq!(f.uses_simd(), crate::simd::hardware() && !off);
        assert!(!f.clone().with_simd(false).uses_simd());
        let r = Fingerprinter::new(config, HashFunction::RABIN_DEFAULT, Selection::Winnow).unwrap();
        assert!(!r.uses_simd());
        if crate::simd::hardware() && !off {
            assert!(KarpRabin::new(50).rolling::<u8>(true).wide());
        }
    }

    /// Long random and low-entropy documents through the production
    /// geometry (several full segments of eight stretches), both paths.
    #[test]
    fn simd_and_scalar_agree_on_long_documents() {
        let mut rng = crate::SplitMix64::new(11);
        let random: Vec<u8> = (0..600_000).map(|_| rng.below(256) as u8).collect();
        let small: Vec<u8> = (0..600_000).map(|_| rng.below(3) as u8).collect();
        for (k, w) in [(50, 100), (5, 1), (1, 7), (13, 3000)] {
            let config = Config::new(k, w).unwrap();
            let mut f =
                Fingerprinter::new(config, HashFunction::KarpRabin, Selection::Winnow).unwrap();
            for bytes in [&random, &small] {
                let mut hashes = Vec::new();
                f.hasher().hash_bytes(bytes, &mut hashes);
                let want = naive_winnow_fast(&hashes, w);
                assert_eq!(f.fingerprint_bytes(bytes).unwrap(), want);
                let mut g = f.clone().with_simd(false);
                assert_eq!(g.fingerprint_bytes(bytes).unwrap(), want);
            }
            // Symbols spread over all 64 bits.
            for bytes in [&random, &small] {
                let symbols: Vec<u64> = bytes
                    .iter()
                    .map(|&b| u64::from(b).wrapping_mul(0x9E37_79B9_7F4A_7C15))
                    .collect();
                let mut hashes = Vec::new();
                f.hasher().hash_symbols(&symbols, &mut hashes);
                let want = naive_winnow_fast(&hashes, w);
                assert_eq!(f.fingerprint_symbols(&symbols).unwrap(), want);
                let mut g = f.clone().with_simd(false);
                assert_eq!(g.fingerprint_symbols(&symbols).unwrap(), want);
            }
        }
    }

    /// The rightmost minimum of every window by the definition, in
    /// O(n·w / 8) with the windows' minima recomputed from scratch only when
    /// the previous minimum leaves (still a direct reading of Definition 1).
    fn naive_winnow_fast(hashes: &[u64], w: usize) -> Vec<Fingerprint> {
        let n = hashes.len();
        if n < w {
            return naive_winnow(hashes, w);
        }
        let mut out: Vec<Fingerprint> = Vec::new();
        let mut cur: Option<usize> = None;
        for s in 0..=n - w {
            let e = s + w - 1;
            let p = match cur {
                // Still in the window: the new hash wins if it is <= it.
                Some(p) if p >= s => {
                    if hashes[e] <= hashes[p] {
                        e
                    } else {
                        p
                    }
                }
                _ => {
                    let min = hashes[s..=e].iter().copied().min().unwrap_or(0);
                    (s..=e).rev().find(|&i| hashes[i] == min).unwrap_or(s)
                }
            };
            if cur != Some(p) {
                out.push(Fingerprint {
                    hash: hashes[p],
                    pos: p as u32,
                });
            }
            cur = Some(p);
        }
        out
    }

    #[test]
    fn lanes_refuse_windows_that_do_not_fit() {
        // A lane keeps up to w + BLOCK − 2 hashes of history and a round.
        assert!(Lanes::<7, 8, 64>::new(1, 51).is_none());
        assert!(Lanes::<7, 8, 64>::new(1, 50).is_some());
        assert!(Lanes::<7, 8, 64>::new(0, 5).is_none());
        let config = Config::new(3, 5000).unwrap();
        let f = Fingerprinter::new(config, HashFunction::KarpRabin, Selection::Winnow).unwrap();
        assert!(f.fused.is_none());
        let f =
            Fingerprinter::new(config, HashFunction::KarpRabin, Selection::RobustWinnow).unwrap();
        assert!(f.fused.is_none());
    }

    #[test]
    fn large_window_uses_the_general_path_with_the_same_result() {
        let mut rng = crate::SplitMix64::new(3);
        let bytes: Vec<u8> = (0..40_000).map(|_| rng.below(4) as u8).collect();
        let config = Config::new(4, 5000).unwrap();
        let mut f = Fingerprinter::new(config, HashFunction::KarpRabin, Selection::Winnow).unwrap();
        let mut hashes = Vec::new();
        f.hasher().hash_bytes(&bytes, &mut hashes);
        assert_eq!(
            f.fingerprint_bytes(&bytes).unwrap(),
            naive_winnow(&hashes, 5000)
        );
    }
}
