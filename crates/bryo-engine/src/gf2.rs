//! Arithmetic on polynomials over GF(2) (Z2 in Broder's notation), and the
//! degree-64 irreducible polynomials that define Rabin fingerprints.
//!
//! A polynomial is a bit vector: bit `i` is the coefficient of `t^i`. Addition
//! is XOR, multiplication by `t` is a left shift (Broder §3, property 1).
//! Nothing here is on a hot path — the rolling hashes use tables built from
//! these routines — so the code favours obviousness over speed.

use crate::{Error, SplitMix64};

/// Degree of a non-zero polynomial held in a `u128`; `None` for zero.
pub fn degree(p: u128) -> Option<u32> {
    if p == 0 {
        None
    } else {
        Some(127 - p.leading_zeros())
    }
}

/// Carry-less product of two polynomials of degree < 64.
pub fn clmul(a: u64, b: u64) -> u128 {
    let mut acc = 0u128;
    let a = u128::from(a);
    let mut b = b;
    while b != 0 {
        let i = b.trailing_zeros();
        acc ^= a << i;
        b &= b - 1;
    }
    acc
}

/// `a mod m` for a non-zero modulus `m`.
pub fn rem(a: u128, m: u128) -> u128 {
    let dm = degree(m).expect("modulus must be non-zero");
    let mut a = a;
    while let Some(da) = degree(a) {
        if da < dm {
            break;
        }
        a ^= m << (da - dm);
    }
    a
}

/// `a · b mod m`, for `a`, `b` already reduced modulo `m` and `deg m <= 64`.
pub fn mulmod(a: u128, b: u128, m: u128) -> u128 {
    debug_assert!(degree(m).is_some_and(|d| d <= 64));
    rem(clmul(a as u64, b as u64), m)
}

/// Greatest common divisor of two polynomials (Euclid).
pub fn gcd(a: u128, b: u128) -> u128 {
    let (mut a, mut b) = (a, b);
    while b != 0 {
        let r = rem(a, b);
        a = b;
        b = r;
    }
    a
}

/// The distinct prime factors of `n`, ascending.
pub(crate) fn prime_factors(mut n: u32) -> Vec<u32> {
    let mut out = Vec::new();
    let mut q = 2;
    while q * q <= n {
        if n.is_multiple_of(q) {
            out.push(q);
            while n.is_multiple_of(q) {
                n /= q;
            }
        }
        q += 1;
    }
    if n > 1 {
        out.push(n);
    }
    out
}

/// Rabin's irreducibility test for a polynomial of degree 1 to 64.
///
/// `p` of degree `n` is irreducible over GF(2) iff `t^(2^n) ≡ t (mod p)` and,
/// for every prime `q` dividing `n`, `gcd(t^(2^(n/q)) − t, p) = 1`
/// (Rabin, "Probabilistic algorithms in finite fields", 1980). Returns `false`
/// for constants and for degrees above 64.
pub fn is_irreducible(p: u128) -> bool {
    let n = match degree(p) {
        Some(n) if (1..=64).contains(&n) => n,
        _ => return false,
    };
    let t = rem(2, p);
    // squarings[i] = t^(2^i) mod p
    let mut squarings = Vec::with_capacity(n as usize + 1);
    let mut x = t;
    squarings.push(x);
    for _ in 0..n {
        x = mulmod(x, x, p);
        squarings.push(x);
    }
    if squarings[n as usize] != t {
        return false;
    }
    prime_factors(n)
        .into_iter()
        .all(|q| gcd(p, squarings[(n / q) as usize] ^ t) == 1)
}

/// An irreducible polynomial `P(t) = t^64 + …` of degree 64 over GF(2).
///
/// Only the low 64 coefficients are stored; the leading `t^64` is implicit.
/// Construction always checks irreducibility, so every value of this type is a
/// valid modulus for Rabin fingerprints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Polynomial {
    low_bits: u64,
}

impl Polynomial {
    /// bryo's fixed default polynomial, `t^64 + 0xc55b_e3e6_9b0d_9d09`
    /// (low coefficients as hex, bit `i` = coefficient of `t^i`).
    ///
    /// It is the first irreducible polynomial drawn by
    /// [`Polynomial::random`] from seed [`Polynomial::DEFAULT_SEED`]; a test
    /// re-derives it and proves it irreducible with Rabin's test. Changing it
    /// changes every Rabin hash and requires a new
    /// [`HASH_SCHEME_VERSION`](crate::HASH_SCHEME_VERSION).
    pub const DEFAULT: Polynomial = Polynomial {
        low_bits: 0xc55b_e3e6_9b0d_9d09,
    };

    /// The seed from which [`Polynomial::DEFAULT`] was drawn (ASCII "bryo").
    pub const DEFAULT_SEED: u64 = 0x6272_796f;

    /// The polynomial `t^64 + low_bits`, if it is irreducible.
    pub fn new(low_bits: u64) -> Result<Polynomial, Error> {
        if is_irreducible(Self::full(low_bits)) {
            Ok(Polynomial { low_bits })
        } else {
            Err(Error::ReduciblePolynomial { low_bits })
        }
    }

    /// A uniformly random irreducible polynomial of degree 64, drawn from a
    /// [`SplitMix64`] stream seeded with `seed` (Rabin's scheme: choose `P`
    /// at random after the adversary fixed the strings; Broder §2).
    ///
    /// Candidates with a zero constant term are divisible by `t` and skipped
    /// without testing; about one in 32 of the others is irreducible.
    pub fn random(seed: u64) -> Polynomial {
        let mut rng = SplitMix64::new(seed);
        loop {
            let low_bits = rng.next() | 1;
            if is_irreducible(Self::full(low_bits)) {
                return Polynomial { low_bits };
            }
        }
    }

    /// The low 64 coefficients (`P − t^64`), which is also `t^64 mod P`.
    pub fn low_bits(self) -> u64 {
        self.low_bits
    }

    /// The whole polynomial, leading term included.
    pub fn to_u128(self) -> u128 {
        Self::full(self.low_bits)
    }

    fn full(low_bits: u64) -> u128 {
        (1u128 << 64) | u128::from(low_bits)
    }

    /// `a · b mod P` for residues `a`, `b`.
    pub fn mul(self, a: u64, b: u64) -> u64 {
        mulmod(u128::from(a), u128::from(b), self.to_u128()) as u64
    }

    /// `t^e mod P`, by square-and-multiply.
    pub fn pow_t(self, e: u64) -> u64 {
        let mut result = 1u64;
        let mut base = 2u64; // t
        let mut e = e;
        while e != 0 {
            if e & 1 == 1 {
                result = self.mul(result, base);
            }
            base = self.mul(base, base);
            e >>= 1;
        }
        result
    }
}

impl Default for Polynomial {
    fn default() -> Self {
        Polynomial::DEFAULT
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_known_irreducibles() {
        // x^2+x+1, x^3+x+1, x^4+x+1, x^8+x^4+x^3+x+1 (AES) are irreducible.
        for p in [0b111u128, 0b1011, 0b10011, 0x11b] {
            assert!(is_irreducible(p), "{p:#b}");
        }
        // x^2+1 = (x+1)^2, x^4+x^2+1 = (x^2+x+1)^2, x^3 + x^2 + x + 1 = (x+1)^3.
        for p in [0b101u128, 0b10101, 0b1111, 0, 1] {
            assert!(!is_irreducible(p), "{p:#b}");
        }
    }

    #[test]
    fn pow_t_matches_repeated_multiplication() {
        let p = Polynomial::DEFAULT;
        let mut x = 1u64;
        for e in 0..300u64 {
            assert_eq!(p.pow_t(e), x, "t^{e}");
            x = p.mul(x, 2);
        }
    }
}
