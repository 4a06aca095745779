/// SplitMix64 (Steele, Lea & Flood 2014): a tiny, fast, seeded generator.
///
/// bryo uses it wherever a seed must give the same stream forever — random
/// irreducible polynomials ([`Polynomial::random`](crate::Polynomial::random)),
/// the random text of `bryo density --random` — so the stream is part of the
/// engine's stability contract and never delegated to a crate whose output may
/// change between versions. It is not a cryptographic generator.
#[derive(Clone, Debug)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator whose stream is fully determined by `seed`.
    pub fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    /// The next 64 pseudo-random bits.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        crate::mix::rehash(self.state)
    }

    /// A value in `0..bound` (`bound` > 0), by Lemire's multiply-shift; the
    /// bias is below 2^-32 for the bounds bryo uses.
    pub fn below(&mut self, bound: u64) -> u64 {
        ((u128::from(self.next()) * u128::from(bound)) >> 64) as u64
    }

    /// Fills `buf` with bytes drawn uniformly from `alphabet` (non-empty).
    pub fn fill_from(&mut self, alphabet: &[u8], buf: &mut [u8]) {
        let n = alphabet.len() as u64;
        for b in buf {
            *b = alphabet[self.below(n) as usize];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_stream() {
        // First outputs of SplitMix64 seeded with 1234567, as published with
        // the reference implementation (Vigna, xoshiro/splitmix64.c).
        let mut r = SplitMix64::new(1234567);
        assert_eq!(r.next(), 6457827717110365317);
        assert_eq!(r.next(), 3203168211198807973);
        assert_eq!(r.next(), 9817491932198370423);
    }
}
