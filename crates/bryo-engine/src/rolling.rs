//! The shared rolling loop: hashes of many consecutive k-grams, computed in
//! four independent lanes.
//!
//! A rolling hash is a chain: each value depends on the previous one, so a
//! single lane runs at the latency of one multiply (Karp–Rabin) or one table
//! look-up (Rabin) per symbol. Splitting the k-grams to hash into four
//! contiguous runs, each started from scratch, lets the processor overlap four
//! chains; the from-scratch starts cost `3·k` extra symbol steps per call,
//! which callers amortise by asking for thousands of hashes at a time.

/// One rolling-hash scheme over one symbol type.
pub(crate) trait Roll: Copy {
    /// The symbol type (`u8` for the byte fast path, `u64` for front-ends).
    type Sym: Copy;
    /// The rolling state for the k-gram `kgram` (length k), from scratch.
    fn start(&self, kgram: &[Self::Sym]) -> u64;
    /// Drops `out` (the oldest symbol) and appends `inc`.
    fn roll(&self, state: u64, out: Self::Sym, inc: Self::Sym) -> u64;
    /// The published hash for a state.
    fn finish(&self, state: u64) -> u64;
    /// Whether [`roll8`](Roll::roll8) uses explicit SIMD, so that eight
    /// lanes pay off.
    fn wide(&self) -> bool {
        false
    }
    /// Advances eight lanes: what [`Lanes8::roll`](crate::simd::Lanes8::roll)
    /// does, for any scheme. This default steps them with [`roll_lanes`] and
    /// leaves every block minimum to the caller.
    #[allow(clippy::too_many_arguments)]
    fn roll8(
        &self,
        input: &[Self::Sym],
        k: usize,
        at: usize,
        spacing: usize,
        state: &mut [u64; 8],
        buf: &mut [u64],
        stride: usize,
        fill: usize,
        q: usize,
        _minima: &mut [u64],
    ) -> std::ops::Range<usize> {
        roll_lanes(
            *self,
            input,
            k,
            at,
            spacing,
            state,
            &mut buf[fill..],
            stride,
            q,
        );
        let end = (fill + q) / crate::select::BLOCK;
        end..end
    }
}

const LANES: usize = 4;
/// Hashes per lane in a full block: fixed at compile time, so every lane's
/// offset is an immediate and all four chains stay in registers.
const BIG: usize = 2048;
/// Hashes per lane in the blocks that finish a range (small documents).
const SMALL: usize = 128;

/// Writes into `out[j]` the hash of the k-gram starting at `first + j`.
///
/// Callers guarantee `first + out.len() + k − 1 <= input.len()`.
pub(crate) fn hash_range<R: Roll>(r: R, input: &[R::Sym], k: usize, first: usize, out: &mut [u64]) {
    let n = out.len();
    if n == 0 {
        return;
    }
    let input = &input[first..first + n + k - 1];
    let mut done = 0;
    // Restarting four lanes costs 4·k steps per block; below these sizes a
    // single chain is cheaper.
    if k <= BIG / 8 {
        while n - done >= LANES * BIG {
            block::<R, BIG>(r, &input[done..], k, &mut out[done..done + LANES * BIG]);
            done += LANES * BIG;
        }
    }
    if k <= SMALL / 4 {
        while n - done >= LANES * SMALL {
            block::<R, SMALL>(r, &input[done..], k, &mut out[done..done + LANES * SMALL]);
            done += LANES * SMALL;
        }
    }
    one_lane(&r, &input[done..], k, &mut out[done..]);
}

/// `LANES · Q` consecutive hashes in four interleaved chains.
#[inline(always)]
fn block<R: Roll, const Q: usize>(r: R, input: &[R::Sym], k: usize, out: &mut [u64]) {
    let input = &input[..LANES * Q + k - 1];
    let mut st = [0u64; LANES];
    for (j, state) in st.iter_mut().enumerate() {
        *state = r.start(&input[j * Q..j * Q + k]);
    }
    // Lane j covers out[j·Q .. (j+1)·Q].
    for i in 0..Q - 1 {
        for (j, state) in st.iter_mut().enumerate() {
            let p = j * Q + i;
            out[p] = r.finish(*state);
            *state = r.roll(*state, input[p], input[p + k]);
        }
    }
    for (j, &state) in st.iter().enumerate() {
        out[j * Q + Q - 1] = r.finish(state);
    }
}

fn one_lane<R: Roll>(r: &R, input: &[R::Sym], k: usize, out: &mut [u64]) {
    let Some((head, tail)) = out.split_first_mut() else {
        return;
    };
    let mut state = r.start(&input[..k]);
    *head = r.finish(state);
    let leaving = &input[..tail.len()];
    let entering = &input[k..k + tail.len()];
    for ((slot, &o), &i) in tail.iter_mut().zip(leaving).zip(entering) {
        state = r.roll(state, o, i);
        *slot = r.finish(state);
    }
}

/// Hashes per lane per step of [`roll_lanes`]: input slices of this fixed
/// length let the compiler drop the bounds checks on the reads in the inner
/// loop (one check per lane and step remains).
const STEP: usize = 8;

/// Advances `L` independent hash chains by `q` positions each, interleaved so
/// that the processor overlaps their multiply (or look-up) chains.
///
/// Lane `j` starts at symbol position `at + j·spacing ≥ 1`: on entry
/// `state[j]` is the rolling state of the k-gram starting one position
/// earlier; on return it is that of the k-gram at `at + j·spacing + q − 1`,
/// and `out[j·stride + i]` holds the hash of the k-gram at
/// `at + j·spacing + i` for every `i < q`. All lanes are read through one
/// slice and written through another, so with `spacing` and `stride` known
/// at compile time every lane's address is a constant offset and the loop
/// needs only three pointers.
///
/// Callers guarantee `q <= stride`, `at + (L − 1)·spacing + q + k − 1 <=
/// input.len()` and `(L − 1)·stride + q <= out.len()`; a violation is a bug
/// and panics.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn roll_lanes<R: Roll, const L: usize>(
    r: R,
    input: &[R::Sym],
    k: usize,
    at: usize,
    spacing: usize,
    state: &mut [u64; L],
    out: &mut [u64],
    stride: usize,
    q: usize,
) {
    let full = q - q % STEP;
    let span = (L - 1) * spacing + q;
    let leaving = &input[at - 1..at - 1 + span];
    let entering = &input[at - 1 + k..at - 1 + k + span];
    let out = &mut out[..(L - 1) * stride + q];
    let mut c = 0;
    while c < full {
        let lv: [&[R::Sym; STEP]; L] = std::array::from_fn(|j| chunk(&leaving[j * spacing + c..]));
        let en: [&[R::Sym; STEP]; L] = std::array::from_fn(|j| chunk(&entering[j * spacing + c..]));
        for t in 0..STEP {
            for j in 0..L {
                // The lanes' chains are independent: the processor overlaps
                // them.
                state[j] = r.roll(state[j], lv[j][t], en[j][t]);
                out[j * stride + c + t] = r.finish(state[j]);
            }
        }
        c += STEP;
    }
    for i in full..q {
        for j in 0..L {
            let s = j * spacing + i;
            state[j] = r.roll(state[j], leaving[s], entering[s]);
            out[j * stride + i] = r.finish(state[j]);
        }
    }
}

/// The first `N` elements of a slice as an array; the caller guarantees the
/// slice is long enough.
#[inline(always)]
fn chunk<T, const N: usize>(s: &[T]) -> &[T; N] {
    s.first_chunk().expect("caller guarantees N elements")
}
