//! Explicit SIMD: AVX-512 for the fused Karp–Rabin byte path, and carry-less
//! multiplication (PCLMULQDQ) for whole-string Rabin fingerprints of degree
//! 64 ([`fold`]). This module holds all of the crate's `unsafe` code.
//!
//! Eight hash chains, one per 64-bit lane of a 512-bit vector, each over its
//! own stretch of the input, advance together: per step
//! `H ← (H + c_in − c_out·b^k)·b` with the native 64-bit multiply
//! (`vpmullq`). The bytes of eight steps are read with one 8-byte load per
//! lane and per side (entering, leaving) and picked out per step with a byte
//! shuffle. Every eight steps the eight step vectors are reduced to the
//! lanes' block minima (seven `vpminuq`) and transposed so that each lane's
//! eight consecutive hashes are stored with one store into its own part of
//! the buffer, where the lane's winnower reads them.
//!
//! The processor is checked once per path, at first use, with
//! `is_x86_feature_detected!`; setting the environment variable
//! `BRYO_NO_SIMD` to anything but `0` or the empty string before that turns
//! both vector paths off for the whole process. Without the features (or off
//! x86-64) the same function computes the same values with scalar code.

use std::ops::Range;
use std::sync::atomic::{AtomicU8, Ordering};

use crate::select::BLOCK;
use crate::KARP_RABIN_BASE;

/// 0: not yet checked; 1: no vector path; 2: the vector path is used.
static STATE: AtomicU8 = AtomicU8::new(0);

/// Whether the AVX-512 path is used: the processor has AVX-512 F, DQ and BW
/// and `BRYO_NO_SIMD` is not set. Checked once per process.
pub(crate) fn available() -> bool {
    match STATE.load(Ordering::Relaxed) {
        1 => false,
        2 => true,
        _ => {
            let on = !disabled_by_env() && hardware();
            STATE.store(if on { 2 } else { 1 }, Ordering::Relaxed);
            on
        }
    }
}

fn disabled_by_env() -> bool {
    std::env::var_os("BRYO_NO_SIMD").is_some_and(|v| !v.is_empty() && v != "0")
}

/// Whether the processor has the instructions the vector path needs.
pub(crate) fn hardware() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        is_x86_feature_detected!("avx512f")
            && is_x86_feature_detected!("avx512dq")
            && is_x86_feature_detected!("avx512bw")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// A document: bytes, or `u64` symbols.
#[derive(Clone, Copy)]
pub(crate) enum Input<'a> {
    /// Each byte a symbol.
    Bytes(&'a [u8]),
    /// Front-end symbols.
    Symbols(&'a [u64]),
}

impl Input<'_> {
    fn len(self) -> usize {
        match self {
            Input::Bytes(b) => b.len(),
            Input::Symbols(s) => s.len(),
        }
    }

    fn get(self, p: usize) -> u64 {
        match self {
            Input::Bytes(b) => u64::from(b[p]),
            Input::Symbols(s) => s[p],
        }
    }
}

/// Where eight Karp–Rabin lanes read and write.
pub(crate) struct Lanes8<'a> {
    /// The document.
    pub input: Input<'a>,
    /// The k-gram length.
    pub k: usize,
    /// `b^k` modulo 2^64.
    pub b_k: u64,
    /// Lane `j`'s next k-gram starts at `at + j·spacing` (`at >= 1`).
    pub at: usize,
    /// Distance between the lanes in the input.
    pub spacing: usize,
    /// Eight lanes' hash buffers, `stride` apart.
    pub buf: &'a mut [u64],
    /// Distance between the lanes in `buf`.
    pub stride: usize,
    /// Lane `j`'s next hash goes to `buf[j·stride + fill]`.
    pub fill: usize,
    /// Eight lanes' block minima, `mstride` apart.
    pub minima: &'a mut [u64],
    /// Distance between the lanes in `minima`.
    pub mstride: usize,
}

impl Lanes8<'_> {
    /// Advances the eight chains in `state` by `q` steps: on entry
    /// `state[j]` is the state of the k-gram starting at `at + j·spacing − 1`,
    /// on return that of the one at `at + j·spacing + q − 1`, and
    /// `buf[j·stride + fill + i]` holds the hash of the k-gram at
    /// `at + j·spacing + i` for `i < q` (exactly what
    /// [`roll_lanes`](crate::rolling::roll_lanes) computes).
    ///
    /// Also writes the minimum of some complete blocks of [`BLOCK`] hashes
    /// (buffer indices `BLOCK·b ..`) into `minima[j·mstride + b]` and returns
    /// the range of those `b`, which lies within
    /// `⌊fill/BLOCK⌋ ..= ⌊(fill+q)/BLOCK⌋`; the caller computes the others.
    ///
    /// Panics (a bug in the caller) if the input, buffer or minima are too
    /// short for these positions.
    pub(crate) fn roll(&mut self, state: &mut [u64; 8], q: usize) -> Range<usize> {
        let (k, sp, at, fill) = (self.k, self.spacing, self.at, self.fill);
        assert!(at >= 1 && fill + q <= self.stride);
        assert!(at - 1 + k + 7 * sp + q <= self.input.len());
        assert!(7 * self.stride + fill + q <= self.buf.len());
        // Steps before the first block boundary, whole blocks, the rest.
        let head = (fill.next_multiple_of(BLOCK) - fill).min(q);
        let groups = (q - head) / BLOCK;
        let lo = (fill + head) / BLOCK;
        assert!(groups == 0 || 7 * self.mstride + lo + groups <= self.minima.len());
        self.scalar(state, 0..head);
        if groups > 0 && self.groups_vector(state, head, groups, lo) {
            self.scalar(state, head + groups * BLOCK..q);
            lo..lo + groups
        } else {
            // No vector path: the blocks are left to the caller.
            self.scalar(state, head..q);
            lo..lo
        }
    }

    /// Runs [`groups_avx512`](Self::groups_avx512) if the processor can;
    /// returns whether it did.
    fn groups_vector(
        &mut self,
        state: &mut [u64; 8],
        first: usize,
        groups: usize,
        lo: usize,
    ) -> bool {
        #[cfg(target_arch = "x86_64")]
        if available() {
            // SAFETY: `available()` checked that the processor has
            // AVX-512 F, DQ and BW, the features `groups_avx512` enables;
            // it checks its own memory accesses (see its comment).
            unsafe { self.groups_avx512(state, first, groups, lo) };
            return true;
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = (state, first, groups, lo);
        false
    }

    /// Steps `steps` (relative to `at` and `fill`) one lane at a time.
    fn scalar(&mut self, state: &mut [u64; 8], steps: Range<usize>) {
        let (k, sp) = (self.k, self.spacing);
        for i in steps {
            for (j, s) in state.iter_mut().enumerate() {
                let p = self.at - 1 + j * sp + i;
                let out = self.input.get(p);
                let inc = self.input.get(p + k);
                let delta = inc.wrapping_sub(out.wrapping_mul(self.b_k));
                *s = s.wrapping_add(delta).wrapping_mul(KARP_RABIN_BASE);
                self.buf[j * self.stride + self.fill + i] = *s;
            }
        }
    }

    /// `groups` blocks of eight steps each, the first at step `first`, which
    /// is at the start of block `lo` of the buffer.
    ///
    /// # Safety
    ///
    /// The processor must support AVX-512 F, DQ and BW. Memory: bytes are
    /// read through bounds-checked slices; each vector load or store goes
    /// through a pointer to an 8-element sub-slice of the symbols or of
    /// `buf` (bounds-checked when taken) or to a local `[u64; 8]`, so no
    /// access can leave its slice.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512dq,avx512bw")]
    unsafe fn groups_avx512(
        &mut self,
        state: &mut [u64; 8],
        first: usize,
        groups: usize,
        lo: usize,
    ) {
        use std::arch::x86_64::*;
        let (k, sp, at) = (self.k, self.spacing, self.at);
        match self.input {
            Input::Bytes(bytes) => {
                // Byte t of each 64-bit lane, zero-extended: vpshufb works
                // within 128-bit blocks, so the odd lanes read bytes 8 + t.
                let pick: [__m512i; 8] = std::array::from_fn(|t| {
                    let even = 0x8080_8080_8080_8000u64 | t as u64;
                    let odd = even + 8;
                    _mm512_set_epi64(
                        odd as i64,
                        even as i64,
                        odd as i64,
                        even as i64,
                        odd as i64,
                        even as i64,
                        odd as i64,
                        even as i64,
                    )
                });
                let word = |p: usize| -> i64 {
                    let bytes: &[u8; 8] = bytes[p..]
                        .first_chunk()
                        .expect("checked by the caller's bounds");
                    i64::from_le_bytes(*bytes)
                };
                // The eight lanes' eight bytes from `base`, one word each.
                let words = |base: usize| {
                    _mm512_set_epi64(
                        word(base + 7 * sp),
                        word(base + 6 * sp),
                        word(base + 5 * sp),
                        word(base + 4 * sp),
                        word(base + 3 * sp),
                        word(base + 2 * sp),
                        word(base + sp),
                        word(base),
                    )
                };
                self.run_groups(state, first, groups, lo, |i| {
                    let (leaving, entering) = (words(at - 1 + i), words(at - 1 + k + i));
                    (
                        std::array::from_fn(|t| _mm512_shuffle_epi8(leaving, pick[t])),
                        std::array::from_fn(|t| _mm512_shuffle_epi8(entering, pick[t])),
                    )
                });
            }
            Input::Symbols(symbols) => {
                // Lane j's eight symbols from `p`.
                let load = |p: usize| {
                    let v: &[u64; 8] = symbols[p..]
                        .first_chunk()
                        .expect("checked by the caller's bounds");
                    // SAFETY: `v` is 8 readable u64 (64 bytes); the load is
                    // unaligned.
                    unsafe { _mm512_loadu_si512(v.as_ptr().cast()) }
                };
                self.run_groups(state, first, groups, lo, |i| {
                    let (l, e) = (at - 1 + i, at - 1 + k + i);
                    (
                        transpose(std::array::from_fn(|j| load(l + j * sp))),
                        transpose(std::array::from_fn(|j| load(e + j * sp))),
                    )
                });
            }
        }
    }

    /// The loop of [`groups_avx512`](Self::groups_avx512): `symbols(i)`
    /// gives the leaving and entering symbols of steps `i .. i + 8`, one
    /// vector per step with one lane per chain.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512dq,avx512bw")]
    fn run_groups<F>(
        &mut self,
        state: &mut [u64; 8],
        first: usize,
        groups: usize,
        lo: usize,
        mut symbols: F,
    ) where
        F: FnMut(
            usize,
        ) -> (
            [std::arch::x86_64::__m512i; 8],
            [std::arch::x86_64::__m512i; 8],
        ),
    {
        use std::arch::x86_64::*;
        let b = _mm512_set1_epi64(KARP_RABIN_BASE as i64);
        let b_k = _mm512_set1_epi64(self.b_k as i64);
        let mut h = _mm512_set_epi64(
            state[7] as i64,
            state[6] as i64,
            state[5] as i64,
            state[4] as i64,
            state[3] as i64,
            state[2] as i64,
            state[1] as i64,
            state[0] as i64,
        );
        let mut tmp = [0u64; 8];
        for g in 0..groups {
            let i = first + g * BLOCK;
            let (c_out, c_in) = symbols(i);
            // r[t]: the hashes of step t of the eight lanes.
            let mut r = [_mm512_setzero_si512(); 8];
            for (t, slot) in r.iter_mut().enumerate() {
                let delta = _mm512_sub_epi64(c_in[t], _mm512_mullo_epi64(c_out[t], b_k));
                h = _mm512_mullo_epi64(_mm512_add_epi64(h, delta), b);
                *slot = h;
            }
            // Block minima of the eight lanes.
            let m = _mm512_min_epu64(
                _mm512_min_epu64(_mm512_min_epu64(r[0], r[1]), _mm512_min_epu64(r[2], r[3])),
                _mm512_min_epu64(_mm512_min_epu64(r[4], r[5]), _mm512_min_epu64(r[6], r[7])),
            );
            // SAFETY: `tmp` is 64 writable bytes; the store is unaligned.
            unsafe { _mm512_storeu_si512(tmp.as_mut_ptr().cast(), m) };
            for (j, &v) in tmp.iter().enumerate() {
                self.minima[j * self.mstride + lo + g] = v;
            }
            // Lane j's vector holds its hashes of steps 0..8.
            let lanes = transpose(r);
            let dst = self.fill + i;
            for (j, &v) in lanes.iter().enumerate() {
                let at = j * self.stride + dst;
                let lane: &mut [u64; 8] = (&mut self.buf[at..at + 8])
                    .try_into()
                    .expect("eight elements");
                // SAFETY: `lane` is 8 writable u64 (64 bytes) of `buf`; the
                // store is unaligned.
                unsafe { _mm512_storeu_si512(lane.as_mut_ptr().cast(), v) };
            }
        }
        // SAFETY: `tmp` is 64 writable bytes; the store is unaligned.
        unsafe { _mm512_storeu_si512(tmp.as_mut_ptr().cast(), h) };
        *state = tmp;
    }
}

/// The 8×8 transpose of 64-bit elements: element `j` of vector `t` becomes
/// element `t` of vector `j`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn transpose(r: [std::arch::x86_64::__m512i; 8]) -> [std::arch::x86_64::__m512i; 8] {
    use std::arch::x86_64::*;
    let idx = |a: [i64; 8]| _mm512_set_epi64(a[7], a[6], a[5], a[4], a[3], a[2], a[1], a[0]);
    let mid_lo = idx([0, 1, 8, 9, 4, 5, 12, 13]);
    let mid_hi = idx([2, 3, 10, 11, 6, 7, 14, 15]);
    let last_lo = idx([0, 1, 2, 3, 8, 9, 10, 11]);
    let last_hi = idx([4, 5, 6, 7, 12, 13, 14, 15]);
    // s[2a], s[2a+1]: the even and odd elements of r[2a] and r[2a+1].
    let s: [__m512i; 8] = std::array::from_fn(|a| {
        let e = a & !1;
        if a & 1 == 0 {
            _mm512_unpacklo_epi64(r[e], r[e + 1])
        } else {
            _mm512_unpackhi_epi64(r[e], r[e + 1])
        }
    });
    // u[0]: elements 0 and 4 of r[0..4]; u[1]: 1, 5; u[2]: 2, 6;
    // u[3]: 3, 7; u[4..8] the same of r[4..8].
    let u: [__m512i; 8] = std::array::from_fn(|a| {
        let (half, x) = (a & 4, a & 3);
        let (p, q) = (s[half + (x & 1)], s[half + (x & 1) + 2]);
        if x < 2 {
            _mm512_permutex2var_epi64(p, mid_lo, q)
        } else {
            _mm512_permutex2var_epi64(p, mid_hi, q)
        }
    });
    std::array::from_fn(|j| {
        if j < 4 {
            _mm512_permutex2var_epi64(u[j], last_lo, u[j + 4])
        } else {
            _mm512_permutex2var_epi64(u[j - 4], last_hi, u[j])
        }
    })
}

/// Folding constants of a degree-64 modulus `P` for carry-less
/// multiplication: `(t^(n+64) mod P, t^n mod P)` for a fold by `n` bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FoldKeys {
    /// Fold by 128 bits (one 16-byte block).
    pub by128: (u64, u64),
    /// Fold by 512 bits (four blocks, one per accumulator).
    pub by512: (u64, u64),
}

/// 0: not yet checked; 1: no carry-less multiplication; 2: used.
static CLMUL: AtomicU8 = AtomicU8::new(0);

/// Whether the carry-less multiplication path is used: the processor has
/// PCLMULQDQ and SSSE3 (x86-64) or PMULL (aarch64) and `BRYO_NO_SIMD` is
/// not set. Checked once.
pub(crate) fn clmul_available() -> bool {
    match CLMUL.load(Ordering::Relaxed) {
        1 => false,
        2 => true,
        _ => {
            let on = clmul_hardware() && !disabled_by_env();
            CLMUL.store(if on { 2 } else { 1 }, Ordering::Relaxed);
            on
        }
    }
}

/// Whether the processor has carry-less multiplication: PCLMULQDQ and
/// SSSE3 on x86-64, PMULL on aarch64.
pub(crate) fn clmul_hardware() -> bool {
    #[cfg(target_arch = "x86_64")]
    let hw = is_x86_feature_detected!("pclmulqdq") && is_x86_feature_detected!("ssse3");
    #[cfg(target_arch = "aarch64")]
    let hw = std::arch::is_aarch64_feature_detected!("pmull");
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    let hw = false;
    hw
}

/// A string of 16-byte blocks to fold: bytes (most significant first), or
/// `u64` symbols, each its eight big-endian bytes (two per block).
#[derive(Clone, Copy)]
pub(crate) enum Blocks<'a> {
    /// Bytes; only whole blocks are folded.
    Bytes(&'a [u8]),
    /// Symbols; only whole pairs are folded.
    Symbols(&'a [u64]),
}

impl Blocks<'_> {
    /// Whole 16-byte blocks.
    fn count(self) -> usize {
        match self {
            Blocks::Bytes(b) => b.len() / 16,
            Blocks::Symbols(s) => s.len() / 2,
        }
    }
}

/// Folds the whole blocks of `blocks` behind the residue `g`: returns a
/// 128-bit polynomial `A` with `A ≡ g·t^(128·n) + blocks (mod P)` and the
/// number `n` of blocks folded, or `None` without the instructions or when
/// there are fewer than four blocks. Four accumulators fold 64 bytes per
/// round, each by 512 bits with two carry-less multiplications (Gopal et
/// al., "Fast CRC Computation for Generic Polynomials Using PCLMULQDQ",
/// Intel 2009, without bit reflection: Rabin's fingerprints read the most
/// significant bit first).
pub(crate) fn fold(g: u64, blocks: Blocks<'_>, keys: FoldKeys) -> Option<(u128, usize)> {
    if blocks.count() < 4 || !clmul_available() {
        return None;
    }
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: `clmul_available()` checked that the processor has
        // PCLMULQDQ and SSSE3, the features `fold_clmul` enables; its loads
        // read whole blocks inside the slice (see its comment).
        Some(unsafe { fold_clmul(g, blocks, keys) })
    }
    #[cfg(target_arch = "aarch64")]
    {
        // SAFETY: `clmul_available()` checked that the processor has PMULL,
        // the feature `fold_pmull` enables.
        Some(unsafe { fold_pmull(g, blocks, keys) })
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        let _ = (g, keys);
        None
    }
}

/// Block `i` as the 128-bit polynomial it stands for (bit `j` is the
/// coefficient of `t^j`): sixteen bytes, the first most significant, or two
/// symbols, the first the high half. `i` must be below `blocks.count()`.
#[cfg(any(test, target_arch = "aarch64"))]
#[inline(always)]
fn block_value(blocks: Blocks<'_>, i: usize) -> u128 {
    match blocks {
        Blocks::Bytes(b) => {
            u128::from_be_bytes(b[16 * i..16 * i + 16].try_into().expect("16 bytes"))
        }
        Blocks::Symbols(s) => (u128::from(s[2 * i]) << 64) | u128::from(s[2 * i + 1]),
    }
}

/// [`fold`]'s rounds written once over 128-bit integers, with `clmul` the
/// carry-less product of two 64-bit polynomials: the aarch64 path (PMULL)
/// and, with [`clmul_bitwise`], the reference its folding is tested
/// against on every machine. `blocks` must have at least four whole blocks.
#[cfg(any(test, target_arch = "aarch64"))]
#[inline(always)]
pub(crate) fn fold_with(
    g: u64,
    blocks: Blocks<'_>,
    keys: FoldKeys,
    clmul: impl Fn(u64, u64) -> u128,
) -> (u128, usize) {
    let n = blocks.count();
    // `a·t^n + d (mod P)` with `(high, low) = (t^(n+64), t^n) mod P`.
    let step = |a: u128, (high, low): (u64, u64), d: u128| {
        clmul((a >> 64) as u64, high) ^ clmul(a as u64, low) ^ d
    };
    let mut acc = [0u128; 4];
    for (j, a) in acc.iter_mut().enumerate() {
        *a = block_value(blocks, j);
    }
    // g precedes the first block: g·t^128 folded into it.
    acc[0] = step(u128::from(g), keys.by128, acc[0]);
    let rounds = n / 4;
    for r in 1..rounds {
        for (j, a) in acc.iter_mut().enumerate() {
            *a = step(*a, keys.by512, block_value(blocks, 4 * r + j));
        }
    }
    let mut a = step(acc[0], keys.by128, acc[1]);
    a = step(a, keys.by128, acc[2]);
    a = step(a, keys.by128, acc[3]);
    for i in 4 * rounds..n {
        a = step(a, keys.by128, block_value(blocks, i));
    }
    (a, n)
}

/// The carry-less product of two 64-bit polynomials, bit by bit.
#[cfg(test)]
pub(crate) fn clmul_bitwise(a: u64, b: u64) -> u128 {
    (0..64)
        .filter(|i| b >> i & 1 == 1)
        .fold(0u128, |p, i| p ^ (u128::from(a) << i))
}

/// See [`fold`]: [`fold_with`] on PMULL (`vmull_p64`), one 64×64-bit
/// carry-less multiplication per instruction.
///
/// # Safety
///
/// The processor must support PMULL (the `aes` feature), and `blocks` must
/// have at least four whole blocks (loads are bounds-checked slices).
#[cfg(target_arch = "aarch64")]
#[target_feature(enable = "neon,aes")]
unsafe fn fold_pmull(g: u64, blocks: Blocks<'_>, keys: FoldKeys) -> (u128, usize) {
    // The closure has this function's target features: PMULL is safe here.
    fold_with(g, blocks, keys, |a, b| std::arch::aarch64::vmull_p64(a, b))
}

/// Block `i` as the 128-bit polynomial it stands for (`u128` order: bit `j`
/// is the coefficient of `t^j`).
///
/// # Safety
///
/// The processor must support SSSE3; `i` must be below `blocks.count()`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2,ssse3")]
#[inline]
unsafe fn load_block(blocks: Blocks<'_>, i: usize) -> std::arch::x86_64::__m128i {
    use std::arch::x86_64::*;
    match blocks {
        Blocks::Bytes(b) => {
            let block = &b[16 * i..16 * i + 16];
            // SAFETY: `block` is 16 readable bytes; the load is unaligned.
            let v = unsafe { _mm_loadu_si128(block.as_ptr().cast()) };
            // Byte 0 is the most significant: reverse all sixteen.
            _mm_shuffle_epi8(
                v,
                _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
            )
        }
        Blocks::Symbols(s) => {
            let pair = &s[2 * i..2 * i + 2];
            // SAFETY: `pair` is two readable u64 (16 bytes); unaligned load.
            let v = unsafe { _mm_loadu_si128(pair.as_ptr().cast()) };
            // The first symbol is the high half.
            _mm_shuffle_epi32(v, 0x4E)
        }
    }
}

/// `a·t^n + d (mod P)` as a 128-bit polynomial, with `keys = (t^(n+64) mod
/// P, t^n mod P)`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2,pclmulqdq")]
#[inline]
fn fold_step(
    a: std::arch::x86_64::__m128i,
    keys: std::arch::x86_64::__m128i,
    d: std::arch::x86_64::__m128i,
) -> std::arch::x86_64::__m128i {
    use std::arch::x86_64::*;
    let high = _mm_clmulepi64_si128(a, keys, 0x11);
    let low = _mm_clmulepi64_si128(a, keys, 0x00);
    _mm_xor_si128(_mm_xor_si128(high, low), d)
}

/// See [`fold`].
///
/// # Safety
///
/// The processor must support PCLMULQDQ and SSSE3, and `blocks` must have
/// at least four whole blocks. Memory: every load goes through
/// [`load_block`] with an index below `blocks.count()`, which takes a
/// bounds-checked sub-slice of exactly one block.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2,ssse3,pclmulqdq")]
unsafe fn fold_clmul(g: u64, blocks: Blocks<'_>, keys: FoldKeys) -> (u128, usize) {
    use std::arch::x86_64::*;
    let n = blocks.count();
    let key = |(high, low): (u64, u64)| _mm_set_epi64x(high as i64, low as i64);
    let (k128, k512) = (key(keys.by128), key(keys.by512));
    let mut acc = [_mm_setzero_si128(); 4];
    for (j, a) in acc.iter_mut().enumerate() {
        // SAFETY: j < 4 <= n blocks.
        *a = unsafe { load_block(blocks, j) };
    }
    // g precedes the first block: g·t^128 folded into it.
    acc[0] = fold_step(_mm_set_epi64x(0, g as i64), k128, acc[0]);
    let rounds = n / 4;
    for r in 1..rounds {
        for (j, a) in acc.iter_mut().enumerate() {
            // SAFETY: 4·r + j < 4·rounds <= n.
            let d = unsafe { load_block(blocks, 4 * r + j) };
            *a = fold_step(*a, k512, d);
        }
    }
    let mut a = fold_step(acc[0], k128, acc[1]);
    a = fold_step(a, k128, acc[2]);
    a = fold_step(a, k128, acc[3]);
    for i in 4 * rounds..n {
        // SAFETY: i < n.
        let d = unsafe { load_block(blocks, i) };
        a = fold_step(a, k128, d);
    }
    let mut out = [0u8; 16];
    // SAFETY: `out` is 16 writable bytes; the store is unaligned.
    unsafe { _mm_storeu_si128(out.as_mut_ptr().cast(), a) };
    (u128::from_le_bytes(out), n)
}
