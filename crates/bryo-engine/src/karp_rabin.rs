//! Karp–Rabin hashing modulo 2^64 in the winnowing paper's improved form.

use crate::rolling::Roll;

/// The base `b` of the Karp–Rabin polynomial: `⌊2^64/φ⌋`, an odd constant
/// whose bits are well spread, so `b` is invertible modulo 2^64 and every
/// symbol's product with a power of `b` reaches the high bits.
pub const KARP_RABIN_BASE: u64 = 0x9E37_79B9_7F4A_7C15;

/// Karp–Rabin rolling hash of k-grams, all arithmetic modulo 2^64.
///
/// The hash of `c_1 … c_k` is `c_1·b^k + c_2·b^(k−1) + … + c_k·b`: the
/// paper's improved form (§2.2, after Broder), in which the newest symbol is
/// multiplied by `b` too so that it affects all bits. Rolling uses the paper's
/// identity `H'(c_2…c_{k+1}) = ((H'(c_1…c_k) − c_1·b^k) + c_{k+1})·b`.
///
/// Bytes are hashed as the symbols `0..=255`, so hashing a byte string gives
/// exactly the hashes of the same bytes widened to `u64` symbols.
#[derive(Clone, Debug)]
pub struct KarpRabin {
    k: usize,
    /// b^k
    b_k: u64,
    /// leaving[c] = c·b^k
    leaving: [u64; 256],
}

impl KarpRabin {
    /// A Karp–Rabin hasher for k-grams of length `k` (`k >= 1`, checked by
    /// [`Config`](crate::Config)).
    pub fn new(k: usize) -> KarpRabin {
        let b_k = pow(KARP_RABIN_BASE, k as u64);
        let mut leaving = [0u64; 256];
        for c in 0..256u64 {
            leaving[c as usize] = c.wrapping_mul(b_k);
        }
        KarpRabin { k, b_k, leaving }
    }

    /// The k-gram length.
    pub fn k(&self) -> usize {
        self.k
    }

    /// The hash of one k-gram of symbols, computed from scratch (Horner's rule).
    pub fn hash_symbols(&self, kgram: &[u64]) -> u64 {
        kgram.iter().fold(0u64, |h, &c| {
            h.wrapping_add(c).wrapping_mul(KARP_RABIN_BASE)
        })
    }

    /// The hash of one k-gram of bytes, computed from scratch.
    pub fn hash_bytes(&self, kgram: &[u8]) -> u64 {
        kgram.iter().fold(0u64, |h, &c| {
            h.wrapping_add(u64::from(c)).wrapping_mul(KARP_RABIN_BASE)
        })
    }

    pub(crate) fn bytes(&self) -> KarpRabinBytes<'_> {
        KarpRabinBytes(self, false)
    }

    /// The byte scheme, with eight-lane AVX-512 rolling if `simd` and the
    /// processor has it.
    pub(crate) fn bytes_wide(&self, simd: bool) -> KarpRabinBytes<'_> {
        KarpRabinBytes(self, simd && crate::simd::available())
    }

    pub(crate) fn symbols(&self) -> KarpRabinSymbols<'_> {
        KarpRabinSymbols(self, false)
    }

    /// The symbol scheme, with eight-lane AVX-512 rolling if `simd` and the
    /// processor has it.
    pub(crate) fn symbols_wide(&self, simd: bool) -> KarpRabinSymbols<'_> {
        KarpRabinSymbols(self, simd && crate::simd::available())
    }
}

fn pow(mut base: u64, mut e: u64) -> u64 {
    let mut acc = 1u64;
    while e != 0 {
        if e & 1 == 1 {
            acc = acc.wrapping_mul(base);
        }
        base = base.wrapping_mul(base);
        e >>= 1;
    }
    acc
}

#[derive(Clone, Copy)]
pub(crate) struct KarpRabinBytes<'a>(&'a KarpRabin, bool);
#[derive(Clone, Copy)]
pub(crate) struct KarpRabinSymbols<'a>(&'a KarpRabin, bool);

impl Roll for KarpRabinBytes<'_> {
    type Sym = u8;
    #[inline(always)]
    fn start(&self, kgram: &[u8]) -> u64 {
        self.0.hash_bytes(kgram)
    }
    #[inline(always)]
    fn roll(&self, state: u64, out: u8, inc: u8) -> u64 {
        // (H + c_in − c_out·b^k)·b = H·b + c_in·b − c_out·b^(k+1): the term
        // in brackets after H does not depend on the chain, so one add and
        // one multiply sit on it, and one table look-up (for the leaving
        // byte) feeds it.
        let delta = u64::from(inc).wrapping_sub(self.0.leaving[out as usize]);
        state.wrapping_add(delta).wrapping_mul(KARP_RABIN_BASE)
    }
    #[inline(always)]
    fn finish(&self, state: u64) -> u64 {
        state
    }
    fn wide(&self) -> bool {
        self.1
    }
    #[inline(always)]
    fn roll8(
        &self,
        input: &[u8],
        k: usize,
        at: usize,
        spacing: usize,
        state: &mut [u64; 8],
        buf: &mut [u64],
        stride: usize,
        fill: usize,
        q: usize,
        minima: &mut [u64],
    ) -> std::ops::Range<usize> {
        let mstride = stride / crate::select::BLOCK;
        let mut lanes = crate::simd::Lanes8 {
            input: crate::simd::Input::Bytes(input),
            k,
            b_k: self.0.b_k,
            at,
            spacing,
            buf,
            stride,
            fill,
            minima,
            mstride,
        };
        lanes.roll(state, q)
    }
}

impl Roll for KarpRabinSymbols<'_> {
    type Sym = u64;
    #[inline(always)]
    fn start(&self, kgram: &[u64]) -> u64 {
        self.0.hash_symbols(kgram)
    }
    #[inline(always)]
    fn roll(&self, state: u64, out: u64, inc: u64) -> u64 {
        let delta = inc.wrapping_sub(out.wrapping_mul(self.0.b_k));
        state.wrapping_add(delta).wrapping_mul(KARP_RABIN_BASE)
    }
    #[inline(always)]
    fn finish(&self, state: u64) -> u64 {
        state
    }
    fn wide(&self) -> bool {
        self.1
    }
    #[inline(always)]
    fn roll8(
        &self,
        input: &[u64],
        k: usize,
        at: usize,
        spacing: usize,
        state: &mut [u64; 8],
        buf: &mut [u64],
        stride: usize,
        fill: usize,
        q: usize,
        minima: &mut [u64],
    ) -> std::ops::Range<usize> {
        let mstride = stride / crate::select::BLOCK;
        let mut lanes = crate::simd::Lanes8 {
            input: crate::simd::Input::Symbols(input),
            k,
            b_k: self.0.b_k,
            at,
            spacing,
            buf,
            stride,
            fill,
            minima,
            mstride,
        };
        lanes.roll(state, q)
    }
}
