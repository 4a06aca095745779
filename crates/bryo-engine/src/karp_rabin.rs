//! Karp–Rabin hashing modulo 2^64 in the winnowing paper's improved form.

use std::marker::PhantomData;

use crate::rolling::Roll;
use crate::simd::Input;

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
        self.rolling(false).start(kgram)
    }

    /// The hash of one k-gram of bytes, computed from scratch.
    pub fn hash_bytes(&self, kgram: &[u8]) -> u64 {
        self.rolling(false).start(kgram)
    }

    /// The rolling scheme over symbols `S`, with eight-lane AVX-512 rolling
    /// if `simd` and the processor has it.
    pub(crate) fn rolling<S: KarpRabinSymbol>(&self, simd: bool) -> KarpRabinRoll<'_, S> {
        KarpRabinRoll {
            kr: self,
            wide: simd && crate::simd::available(),
            sym: PhantomData,
        }
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

/// What the Karp–Rabin scheme needs of a symbol type (`u8` or `u64`).
pub(crate) trait KarpRabinSymbol: Copy {
    /// The symbol's value `c`.
    fn value(self) -> u64;
    /// `c·b^k`, the term of the symbol leaving the window.
    fn leaving(self, kr: &KarpRabin) -> u64;
    /// The document as the vector path reads it.
    fn input(s: &[Self]) -> Input<'_>;
}

impl KarpRabinSymbol for u8 {
    #[inline(always)]
    fn value(self) -> u64 {
        u64::from(self)
    }
    /// One table look-up instead of a multiply.
    #[inline(always)]
    fn leaving(self, kr: &KarpRabin) -> u64 {
        kr.leaving[self as usize]
    }
    fn input(s: &[u8]) -> Input<'_> {
        Input::Bytes(s)
    }
}

impl KarpRabinSymbol for u64 {
    #[inline(always)]
    fn value(self) -> u64 {
        self
    }
    #[inline(always)]
    fn leaving(self, kr: &KarpRabin) -> u64 {
        self.wrapping_mul(kr.b_k)
    }
    fn input(s: &[u64]) -> Input<'_> {
        Input::Symbols(s)
    }
}

/// [`KarpRabin`] as a [`Roll`] over symbols `S`; `wide` when the vector
/// path may run.
pub(crate) struct KarpRabinRoll<'a, S> {
    kr: &'a KarpRabin,
    wide: bool,
    sym: PhantomData<fn(S)>,
}

impl<S> Clone for KarpRabinRoll<'_, S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<S> Copy for KarpRabinRoll<'_, S> {}

impl<S: KarpRabinSymbol> Roll for KarpRabinRoll<'_, S> {
    type Sym = S;
    #[inline(always)]
    fn start(&self, kgram: &[S]) -> u64 {
        kgram.iter().fold(0u64, |h, &c| {
            h.wrapping_add(c.value()).wrapping_mul(KARP_RABIN_BASE)
        })
    }
    #[inline(always)]
    fn roll(&self, state: u64, out: S, inc: S) -> u64 {
        // (H + c_in − c_out·b^k)·b = H·b + c_in·b − c_out·b^(k+1): the term
        // in brackets after H does not depend on the chain, so one add and
        // one multiply sit on it.
        let delta = inc.value().wrapping_sub(out.leaving(self.kr));
        state.wrapping_add(delta).wrapping_mul(KARP_RABIN_BASE)
    }
    #[inline(always)]
    fn finish(&self, state: u64) -> u64 {
        state
    }
    fn wide(&self) -> bool {
        self.wide
    }
    #[inline(always)]
    fn roll8(
        &self,
        input: &[S],
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
            input: S::input(input),
            k,
            b_k: self.kr.b_k,
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
