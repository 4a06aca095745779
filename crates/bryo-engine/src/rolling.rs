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
pub(crate) trait Roll {
    /// The symbol type (`u8` for the byte fast path, `u64` for front-ends).
    type Sym: Copy;
    /// The rolling state for the k-gram `kgram` (length k), from scratch.
    fn start(&self, kgram: &[Self::Sym]) -> u64;
    /// Drops `out` (the oldest symbol) and appends `inc`.
    fn roll(&self, state: u64, out: Self::Sym, inc: Self::Sym) -> u64;
    /// The published hash for a state.
    fn finish(&self, state: u64) -> u64;
}

const LANES: usize = 4;
/// Below this many hashes, one lane is faster than four from-scratch starts.
const MIN_PER_LANE: usize = 64;

/// Writes into `out[j]` the hash of the k-gram starting at `first + j`.
///
/// Callers guarantee `first + out.len() + k − 1 <= input.len()`.
pub(crate) fn hash_range<R: Roll>(
    r: &R,
    input: &[R::Sym],
    k: usize,
    first: usize,
    out: &mut [u64],
) {
    let n = out.len();
    debug_assert!(first + n + k - 1 <= input.len());
    if n < LANES * MIN_PER_LANE.max(k) {
        one_lane(r, input, k, first, out);
        return;
    }
    let q = n / LANES;
    let (o0, rest) = out.split_at_mut(q);
    let (o1, rest) = rest.split_at_mut(q);
    let (o2, o3) = rest.split_at_mut(q);
    let s = [first, first + q, first + 2 * q, first + 3 * q];
    let mut st = [
        r.start(&input[s[0]..s[0] + k]),
        r.start(&input[s[1]..s[1] + k]),
        r.start(&input[s[2]..s[2] + k]),
        r.start(&input[s[3]..s[3] + k]),
    ];
    // Steps 0..q-1 of every lane: symbol `s + i` leaves, `s + i + k` enters.
    let steps = q - 1;
    let out0 = &input[s[0]..s[0] + steps];
    let out1 = &input[s[1]..s[1] + steps];
    let out2 = &input[s[2]..s[2] + steps];
    let out3 = &input[s[3]..s[3] + steps];
    let in0 = &input[s[0] + k..s[0] + k + steps];
    let in1 = &input[s[1] + k..s[1] + k + steps];
    let in2 = &input[s[2] + k..s[2] + k + steps];
    let in3 = &input[s[3] + k..s[3] + k + steps];
    let (o0, o1, o2) = (&mut o0[..q], &mut o1[..q], &mut o2[..q]);
    let o3_main = &mut o3[..q];
    for i in 0..steps {
        o0[i] = r.finish(st[0]);
        o1[i] = r.finish(st[1]);
        o2[i] = r.finish(st[2]);
        o3_main[i] = r.finish(st[3]);
        st[0] = r.roll(st[0], out0[i], in0[i]);
        st[1] = r.roll(st[1], out1[i], in1[i]);
        st[2] = r.roll(st[2], out2[i], in2[i]);
        st[3] = r.roll(st[3], out3[i], in3[i]);
    }
    o0[steps] = r.finish(st[0]);
    o1[steps] = r.finish(st[1]);
    o2[steps] = r.finish(st[2]);
    o3_main[steps] = r.finish(st[3]);
    // The last lane also takes the remainder of n / LANES.
    let mut state = st[3];
    let base = s[3];
    for (j, slot) in o3.iter_mut().enumerate().skip(q) {
        state = r.roll(state, input[base + j - 1], input[base + j - 1 + k]);
        *slot = r.finish(state);
    }
}

fn one_lane<R: Roll>(r: &R, input: &[R::Sym], k: usize, first: usize, out: &mut [u64]) {
    let Some((head, tail)) = out.split_first_mut() else {
        return;
    };
    let mut state = r.start(&input[first..first + k]);
    *head = r.finish(state);
    let leaving = &input[first..first + tail.len()];
    let entering = &input[first + k..first + k + tail.len()];
    for ((slot, &o), &i) in tail.iter_mut().zip(leaving).zip(entering) {
        state = r.roll(state, o, i);
        *slot = r.finish(state);
    }
}
