//! Rabin fingerprints modulo an irreducible polynomial of any degree from 1
//! to 128, and Broder's algebra on them (§3, equations 8–10).
//!
//! Residues are held in a `u128` (bit `i` is the coefficient of `t^i`); the
//! modulus `P = t^d + low` keeps its leading term implicit so that degree 128
//! fits. Strings are read most significant bit first, bytes most significant
//! bit first, as in [`Rabin`](crate::Rabin): with the default degree-64
//! polynomial, [`Modulus::hash_bytes`] equals
//! [`Rabin::hash_bytes`](crate::Rabin::hash_bytes).

use crate::gf2::{self, Polynomial};
use crate::simd::{self, Blocks, FoldKeys};
use crate::{Error, SplitMix64};

/// The largest supported degree.
pub const MAX_DEGREE: u32 = 128;

/// An irreducible polynomial `P(t) = t^d + low` over GF(2), `1 <= d <= 128`,
/// with the tables for byte-at-a-time fingerprinting (Broder §4).
///
/// Every value of this type has been checked irreducible (Rabin's test), so
/// the residues modulo `P` form the field GF(2^d): every non-zero residue has
/// an [`inverse`](Modulus::inverse).
#[derive(Clone, Debug)]
pub struct Modulus {
    degree: u32,
    low: u128,
    mask: u128,
    /// reduce[x] = x(t)·t^d mod P: the byte shifted out of the top, folded back.
    reduce: Box<[u128; 256]>,
    /// powers[i] = t^(2^i) mod P, for `t^l` with any `u64` length `l`.
    powers: Box<[u128; 64]>,
    /// Degree 64 only: eight bytes per step and carry-less folding.
    wide: Option<Box<Wide>>,
}

/// Whole strings modulo a degree-64 `P` at memory speed (what a CRC does:
/// a CRC *is* a Rabin fingerprint with a fixed polynomial). With
/// carry-less multiplication, four 16-byte accumulators fold 64 bytes per
/// round ([`simd::fold`]); without it, or for what is left, eight bytes per
/// step with eight independent table look-ups (slice-by-8) instead of one
/// dependent look-up per byte. Same values as the byte-at-a-time table
/// (property-tested).
#[derive(Clone, Debug)]
struct Wide {
    /// `slice[i][x] = x(t)·t^(64 + 8i) mod P`; `slice[0]` is also the
    /// byte-at-a-time table.
    slice: Box<[[u64; 256]; 8]>,
    keys: FoldKeys,
}

impl Wide {
    fn new(m: &Modulus) -> Wide {
        let mut slice = Box::new([[0u64; 256]; 8]);
        for x in 0..256 {
            // Degree 64: every residue fits in 64 bits.
            let mut v = m.reduce[x];
            for table in slice.iter_mut() {
                table[x] = v as u64;
                v = m.times_t8(v);
            }
        }
        let key = |n: u64| (m.pow_t(n + 64) as u64, m.pow_t(n) as u64);
        Wide {
            slice,
            keys: FoldKeys {
                by128: key(128),
                by512: key(512),
            },
        }
    }

    /// `g·t^64 + b mod P`: eight bytes, eight independent look-ups.
    #[inline]
    fn step(&self, g: u64, b: u64) -> u64 {
        b ^ crate::rabin::by_bytes(&self.slice, g)
    }

    /// `g·t^(8·|bytes|) + bytes mod P`.
    fn extend_bytes(&self, g: u64, bytes: &[u8], clmul: bool) -> u64 {
        let (mut g, mut rest) = (g, bytes);
        if let Some((a, n)) = clmul
            .then(|| simd::fold(g, Blocks::Bytes(rest), self.keys))
            .flatten()
        {
            g = self.step((a >> 64) as u64, a as u64);
            rest = &rest[16 * n..];
        }
        let mut words = rest.chunks_exact(8);
        for w in &mut words {
            g = self.step(g, u64::from_be_bytes(w.try_into().expect("eight bytes")));
        }
        for &c in words.remainder() {
            g = (g << 8) ^ u64::from(c) ^ self.slice[0][(g >> 56) as usize];
        }
        g
    }

    /// `g·t^(64·|symbols|) + symbols mod P`, each symbol eight big-endian
    /// bytes.
    fn extend_symbols(&self, g: u64, symbols: &[u64], clmul: bool) -> u64 {
        let (mut g, mut rest) = (g, symbols);
        if let Some((a, n)) = clmul
            .then(|| simd::fold(g, Blocks::Symbols(rest), self.keys))
            .flatten()
        {
            g = self.step((a >> 64) as u64, a as u64);
            rest = &rest[2 * n..];
        }
        rest.iter().fold(g, |g, &s| self.step(g, s))
    }
}

impl PartialEq for Modulus {
    fn eq(&self, other: &Self) -> bool {
        self.degree == other.degree && self.low == other.low
    }
}

impl Eq for Modulus {}

fn mask(degree: u32) -> u128 {
    if degree >= 128 {
        u128::MAX
    } else {
        (1u128 << degree) - 1
    }
}

/// `t^n mod r` for a non-zero `r` (any degree up to 127).
fn t_pow_mod(n: u32, r: u128) -> u128 {
    let mut x = gf2::rem(1, r);
    for _ in 0..n {
        x = gf2::rem(x << 1, r);
    }
    x
}

fn check_degree(degree: u32) -> Result<(), Error> {
    if (1..=MAX_DEGREE).contains(&degree) {
        Ok(())
    } else {
        Err(Error::UnsupportedDegree { degree })
    }
}

impl Modulus {
    /// The polynomial `t^degree + low_bits`, if `1 <= degree <= 128`, the low
    /// bits have degree below `degree`, and the polynomial is irreducible.
    pub fn new(degree: u32, low_bits: u128) -> Result<Modulus, Error> {
        check_degree(degree)?;
        if low_bits & !mask(degree) != 0 {
            return Err(Error::UnsupportedDegree { degree });
        }
        let m = Modulus::unchecked(degree, low_bits);
        if m.is_irreducible() {
            Ok(m)
        } else {
            Err(Error::ReducibleModulus { degree, low_bits })
        }
    }

    /// A random irreducible polynomial of the given degree, drawn from a
    /// [`SplitMix64`] stream seeded with `seed`: the same seed always gives
    /// the same polynomial. Candidates are uniform among polynomials with a
    /// non-zero constant term; about one in `degree` is irreducible.
    pub fn random(degree: u32, seed: u64) -> Result<Modulus, Error> {
        check_degree(degree)?;
        let mut rng = SplitMix64::new(seed);
        loop {
            let bits = (u128::from(rng.next()) << 64) | u128::from(rng.next());
            let low = (bits & mask(degree)) | 1;
            let m = Modulus::unchecked(degree, low);
            if m.is_irreducible() {
                return Ok(m);
            }
        }
    }

    /// bryo's default degree-64 polynomial, [`Polynomial::DEFAULT`].
    pub fn default_64() -> Modulus {
        Modulus::from(Polynomial::DEFAULT)
    }

    /// [`Modulus::default_64`], built once per process and shared: its
    /// tables take tens of microseconds to build, too long to build them
    /// again for every file or pair.
    ///
    /// ```
    /// use bryo_engine::Modulus;
    ///
    /// assert!(std::ptr::eq(Modulus::shared_64(), Modulus::shared_64()));
    /// assert_eq!(*Modulus::shared_64(), Modulus::default_64());
    /// ```
    pub fn shared_64() -> &'static Modulus {
        static SHARED: std::sync::OnceLock<Modulus> = std::sync::OnceLock::new();
        SHARED.get_or_init(Modulus::default_64)
    }

    fn unchecked(degree: u32, low: u128) -> Modulus {
        let mut m = Modulus {
            degree,
            low,
            mask: mask(degree),
            reduce: Box::new([0; 256]),
            powers: Box::new([0; 64]),
            wide: None,
        };
        // t^d mod P = low; reduce[x] = x·t^d by linearity over GF(2).
        let mut basis = [0u128; 8];
        let mut b = m.reduce_small(low);
        for slot in basis.iter_mut() {
            *slot = b;
            b = m.times_t(b);
        }
        for (x, slot) in m.reduce.iter_mut().enumerate() {
            *slot = (0..8)
                .filter(|bit| x >> bit & 1 == 1)
                .fold(0, |acc, bit| acc ^ basis[bit]);
        }
        let mut p = m.reduce_small(2);
        let mut powers = [0u128; 64];
        for slot in powers.iter_mut() {
            *slot = p;
            p = m.square(p);
        }
        m.powers = Box::new(powers);
        if degree == 64 {
            m.wide = Some(Box::new(Wide::new(&m)));
        }
        m
    }

    /// `x mod P` for `x` of degree at most `d` (one subtraction at most).
    fn reduce_small(&self, x: u128) -> u128 {
        if self.degree < 128 && x >> self.degree & 1 == 1 {
            (x & self.mask) ^ self.low
        } else {
            x & self.mask
        }
    }

    /// The degree `d` of `P`, which is also the number of bits of a
    /// fingerprint.
    pub fn degree(&self) -> u32 {
        self.degree
    }

    /// `P − t^d`, which is also `t^d mod P`.
    pub fn low_bits(&self) -> u128 {
        self.low
    }

    /// Rabin's irreducibility test (see [`poly::is_irreducible`](crate::poly::is_irreducible)),
    /// for degrees up to 128.
    fn is_irreducible(&self) -> bool {
        let n = self.degree;
        let t = self.reduce_small(2);
        let mut squarings = Vec::with_capacity(n as usize + 1);
        let mut x = t;
        squarings.push(x);
        for _ in 0..n {
            x = self.mul(x, x);
            squarings.push(x);
        }
        if squarings[n as usize] != t {
            return false;
        }
        gf2::prime_factors(n)
            .into_iter()
            .all(|q| self.gcd_with_p(squarings[(n / q) as usize] ^ t) == 1)
    }

    /// `gcd(P, r)` for a residue `r`.
    fn gcd_with_p(&self, r: u128) -> u128 {
        if r == 0 {
            // gcd(P, 0) = P, which is not 1.
            return 0;
        }
        // P mod r = (t^d mod r) + (low mod r); then Euclid on u128 values.
        let p_mod_r = t_pow_mod(self.degree, r) ^ gf2::rem(self.low, r);
        gf2::gcd(r, p_mod_r)
    }

    /// `a·t mod P`.
    #[inline]
    fn times_t(&self, a: u128) -> u128 {
        let top = a >> (self.degree - 1) & 1;
        let shifted = (a << 1) & self.mask;
        if top == 1 {
            shifted ^ self.low
        } else {
            shifted
        }
    }

    /// `a + b` (exclusive or).
    pub fn add(&self, a: u128, b: u128) -> u128 {
        (a ^ b) & self.mask
    }

    /// `a·t^8 mod P`, one table look-up (degree at least 8).
    #[inline]
    fn times_t8(&self, a: u128) -> u128 {
        ((a << 8) & self.mask) ^ self.reduce[(a >> (self.degree - 8)) as usize]
    }

    /// `a·t^4 mod P`, one table look-up (degree at least 8): the four bits
    /// shifted out of the top index `reduce`, whose entries below 16 are
    /// `x·t^d`.
    #[inline]
    fn times_t4(&self, a: u128) -> u128 {
        ((a << 4) & self.mask) ^ self.reduce[(a >> (self.degree - 4)) as usize]
    }

    /// `a·b mod P` for residues `a`, `b`: Horner's rule on the 4-bit digits
    /// of `b` with the 16 multiples of `a` precomputed (bit by bit below
    /// degree 8).
    pub fn mul(&self, a: u128, b: u128) -> u128 {
        let (a, b) = (a & self.mask, b & self.mask);
        if self.degree < 8 {
            let mut acc = 0u128;
            for i in (0..self.degree).rev() {
                acc = self.times_t(acc);
                if b >> i & 1 == 1 {
                    acc ^= a;
                }
            }
            return acc;
        }
        let a1 = self.times_t(a);
        let a2 = self.times_t(a1);
        let a3 = self.times_t(a2);
        let basis = [a, a1, a2, a3];
        let mut multiples = [0u128; 16];
        for n in 1..16 {
            // n = (n without its top bit) + top bit.
            let top = 31 - (n as u32).leading_zeros();
            multiples[n] = multiples[n ^ (1 << top)] ^ basis[top as usize];
        }
        let mut acc = 0u128;
        for i in (0..self.degree.div_ceil(4)).rev() {
            acc = self.times_t4(acc) ^ multiples[(b >> (4 * i) & 0xf) as usize];
        }
        acc
    }

    /// `a² mod P`, computed as `a(t²) mod P`: in `Z2[t]` squaring spreads the
    /// bits of `a` apart (Broder §5.3), so this is Horner's rule on the bytes
    /// of `a`, each spread to 16 bits, with a step of `t^16` (bit by bit
    /// below degree 16).
    pub fn square(&self, a: u128) -> u128 {
        let a = a & self.mask;
        if self.degree < 16 {
            let mut acc = 0u128;
            for i in (0..self.degree).rev() {
                acc = self.times_t(self.times_t(acc));
                if a >> i & 1 == 1 {
                    acc ^= 1;
                }
            }
            return acc;
        }
        let mut acc = 0u128;
        for i in (0..self.degree.div_ceil(8)).rev() {
            let byte = (a >> (8 * i) & 0xff) as usize;
            acc = self.times_t8(self.times_t8(acc)) ^ u128::from(SPREAD[byte]);
        }
        acc
    }

    /// `a^e mod P`, by square-and-multiply.
    pub fn pow(&self, a: u128, e: u128) -> u128 {
        let mut result = self.reduce_small(1);
        let mut base = a & self.mask;
        let mut e = e;
        while e != 0 {
            if e & 1 == 1 {
                result = self.mul(result, base);
            }
            base = self.square(base);
            e >>= 1;
        }
        result
    }

    /// `t^l mod P` for any `u64` length, from the precomputed `t^(2^i)`.
    pub fn pow_t(&self, l: u64) -> u128 {
        let mut result = self.reduce_small(1);
        for (i, p) in self.powers.iter().enumerate() {
            if l >> i & 1 == 1 {
                result = self.mul(result, *p);
            }
        }
        result
    }

    /// The inverse of `a` modulo `P`, `a^(2^d − 2)` (the multiplicative group
    /// of GF(2^d) has order `2^d − 1`); `None` for zero. Computed as
    /// `(a^(2^(d−1) − 1))²` with the Itoh–Tsujii addition chain: `d − 1`
    /// squarings and about `2·log2 d` multiplications.
    pub fn inverse(&self, a: u128) -> Option<u128> {
        let a = a & self.mask;
        if a == 0 {
            return None;
        }
        if self.degree == 1 {
            return Some(a);
        }
        Some(self.square(self.pow_2k_minus_1(a, self.degree - 1)))
    }

    /// `a^(2^k − 1)` for `k >= 1`: `a^(2^(2j) − 1) = (a^(2^j − 1))^(2^j) ·
    /// a^(2^j − 1)` and `a^(2^(j+1) − 1) = (a^(2^j − 1))² · a`.
    fn pow_2k_minus_1(&self, a: u128, k: u32) -> u128 {
        if k == 1 {
            return a;
        }
        if k.is_multiple_of(2) {
            let half = self.pow_2k_minus_1(a, k / 2);
            let mut x = half;
            for _ in 0..k / 2 {
                x = self.square(x);
            }
            self.mul(x, half)
        } else {
            let prev = self.pow_2k_minus_1(a, k - 1);
            self.mul(self.square(prev), a)
        }
    }

    /// The fingerprint of a bit string (first bit most significant), bit by
    /// bit: Horner's rule of Broder §3, property 3.
    pub fn fp_bits(&self, bits: &[bool]) -> Fp {
        self.extend_bits_unchecked(Fp::EMPTY, bits)
    }

    fn extend_bits_unchecked(&self, a: Fp, bits: &[bool]) -> Fp {
        let value = bits
            .iter()
            .fold(a.value, |g, &b| self.times_t(g) ^ u128::from(b));
        Fp {
            value,
            bits: a.bits + bits.len() as u64,
        }
    }

    /// The fingerprint of a byte string (each byte most significant bit
    /// first), one table look-up per byte (Broder §4).
    pub fn fp_bytes(&self, bytes: &[u8]) -> Fp {
        self.extend_bytes_unchecked(Fp::EMPTY, bytes)
    }

    fn extend_bytes_unchecked(&self, a: Fp, bytes: &[u8]) -> Fp {
        if let Some(wide) = &self.wide {
            return Fp {
                value: u128::from(wide.extend_bytes(
                    a.value as u64,
                    bytes,
                    simd::clmul_available(),
                )),
                bits: a.bits + 8 * bytes.len() as u64,
            };
        }
        self.extend_bytes_bytewise(a, bytes)
    }

    /// One table look-up per byte, any degree: the reference the wide path
    /// is tested against.
    fn extend_bytes_bytewise(&self, a: Fp, bytes: &[u8]) -> Fp {
        let value = if self.degree >= 8 {
            let shift = self.degree - 8;
            bytes.iter().fold(a.value, |g, &c| {
                ((g << 8) & self.mask) ^ u128::from(c) ^ self.reduce[(g >> shift) as usize]
            })
        } else {
            bytes.iter().fold(a.value, |g, &c| {
                (0..8)
                    .rev()
                    .fold(g, |g, i| self.times_t(g) ^ u128::from(c >> i & 1))
            })
        };
        Fp {
            value,
            bits: a.bits + 8 * bytes.len() as u64,
        }
    }

    /// The fingerprint of a string of `u64` symbols, each read as its eight
    /// big-endian bytes (the convention of [`Rabin::hash_symbols`](crate::Rabin::hash_symbols)).
    pub fn fp_symbols(&self, symbols: &[u64]) -> Fp {
        match &self.wide {
            Some(wide) => Fp {
                value: u128::from(wide.extend_symbols(0, symbols, simd::clmul_available())),
                bits: 64 * symbols.len() as u64,
            },
            None => symbols.iter().fold(Fp::EMPTY, |a, s| {
                self.extend_bytes_bytewise(a, &s.to_be_bytes())
            }),
        }
    }

    /// Equation (9): `f(concat(A, B)) = f(concat(f(A), B))` — the fingerprint
    /// of `A` followed by the bits of `B`, continuing from `f(A)` alone.
    pub fn extend_bits(&self, a: Fp, bits: &[bool]) -> Result<Fp, Error> {
        grow(
            a.bits,
            u64::try_from(bits.len()).map_err(|_| Error::StringTooLong)?,
        )?;
        Ok(self.extend_bits_unchecked(a, bits))
    }

    /// Equation (9) for bytes, table-driven.
    pub fn extend_bytes(&self, a: Fp, bytes: &[u8]) -> Result<Fp, Error> {
        let len = u64::try_from(bytes.len()).map_err(|_| Error::StringTooLong)?;
        grow(a.bits, len.checked_mul(8).ok_or(Error::StringTooLong)?)?;
        Ok(self.extend_bytes_unchecked(a, bytes))
    }

    /// Equation (10): `f(concat(A, B)) = f(f(A)·f(t^|B|)) + f(B)`, from the
    /// two fingerprints alone (their lengths are part of the values).
    pub fn concat(&self, a: Fp, b: Fp) -> Result<Fp, Error> {
        Ok(Fp {
            value: self.mul(a.value, self.pow_t(b.bits)) ^ b.value,
            bits: grow(a.bits, b.bits)?,
        })
    }

    /// Broder's convention (§2): the fingerprint of the string prefixed by a
    /// 1 bit, `f(1 ‖ A) = t^|A| + f(A) mod P`, so that leading zeros count.
    pub fn prefixed(&self, a: Fp) -> u128 {
        self.pow_t(a.bits) ^ a.value
    }

    /// `f(1 ‖ bytes)`: the fingerprint of a byte string with Broder's
    /// leading 1. For [`Modulus::default_64`] it equals
    /// [`Rabin::hash_bytes`](crate::Rabin::hash_bytes).
    pub fn hash_bytes(&self, bytes: &[u8]) -> u128 {
        self.prefixed(self.fp_bytes(bytes))
    }

    /// `f(1 ‖ symbols)`, each symbol eight big-endian bytes. For
    /// [`Modulus::default_64`] it equals
    /// [`Rabin::hash_symbols`](crate::Rabin::hash_symbols).
    pub fn hash_symbols(&self, symbols: &[u64]) -> u128 {
        self.prefixed(self.fp_symbols(symbols))
    }

    /// `f(1 ‖ bits)`.
    pub fn hash_bits(&self, bits: &[bool]) -> u128 {
        self.prefixed(self.fp_bits(bits))
    }
}

/// `SPREAD[x]` = the bits of `x` moved to the even positions: `x(t²)`.
const SPREAD: [u16; 256] = {
    let mut table = [0u16; 256];
    let mut x = 0;
    while x < 256 {
        let mut bit = 0;
        while bit < 8 {
            if x >> bit & 1 == 1 {
                table[x] |= 1 << (2 * bit);
            }
            bit += 1;
        }
        x += 1;
    }
    table
};

fn grow(a: u64, b: u64) -> Result<u64, Error> {
    a.checked_add(b).ok_or(Error::StringTooLong)
}

impl From<Polynomial> for Modulus {
    fn from(p: Polynomial) -> Modulus {
        // Already proven irreducible by `Polynomial`'s constructors.
        Modulus::unchecked(64, u128::from(p.low_bits()))
    }
}

impl Default for Modulus {
    fn default() -> Self {
        Modulus::default_64()
    }
}

/// The fingerprint `f(A) = A(t) mod P` of a bit string `A`, together with
/// the length `|A|` in bits, so that pieces compose (Broder §4: "make the
/// length of the underlying string a part of the fingerprint").
///
/// The value has no leading 1; [`Modulus::prefixed`] adds it. An `Fp` only
/// means something together with the [`Modulus`] that computed it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Fp {
    value: u128,
    bits: u64,
}

impl Fp {
    /// The fingerprint of the empty string.
    pub const EMPTY: Fp = Fp { value: 0, bits: 0 };

    /// `A(t) mod P`.
    pub fn value(self) -> u128 {
        self.value
    }

    /// `|A|`, in bits.
    pub fn bits(self) -> u64 {
        self.bits
    }

    /// Equation (8): `f(A + B) = f(A) + f(B)`, where `A + B` is the sum of
    /// the two polynomials (bitwise exclusive or of the strings aligned on
    /// their last bit; the result is as long as the longer one).
    pub fn sum(self, other: Fp) -> Fp {
        Fp {
            value: self.value ^ other.value,
            bits: self.bits.max(other.bits),
        }
    }
}

/// Precomputed `f(t^l)` for `l < limit`, so that equation (10) costs one
/// multiplication (Broder: "it is useful to precompute `f(t^l)` for a
/// suitable range of values").
#[derive(Clone, Debug)]
pub struct PowerTable {
    powers: Vec<u128>,
}

impl PowerTable {
    /// `t^l mod P` for every `l < limit`.
    pub fn new(m: &Modulus, limit: usize) -> PowerTable {
        let mut powers = Vec::with_capacity(limit);
        let mut x = m.reduce_small(1);
        for _ in 0..limit {
            powers.push(x);
            x = m.times_t(x);
        }
        PowerTable { powers }
    }

    /// `t^l mod P`, from the table when `l` is in range.
    pub fn pow_t(&self, m: &Modulus, l: u64) -> u128 {
        match usize::try_from(l).ok().and_then(|i| self.powers.get(i)) {
            Some(&p) => p,
            None => m.pow_t(l),
        }
    }

    /// Equation (10) with the table: `f(A)·t^|B| + f(B)`.
    pub fn concat(&self, m: &Modulus, a: Fp, b: Fp) -> Result<Fp, Error> {
        Ok(Fp {
            value: m.mul(a.value, self.pow_t(m, b.bits)) ^ b.value,
            bits: grow(a.bits, b.bits)?,
        })
    }
}

/// The bits of a byte string, most significant bit of each byte first.
pub fn bits_of(bytes: &[u8]) -> Vec<bool> {
    bytes
        .iter()
        .flat_map(|&b| (0..8).rev().map(move |i| b >> i & 1 == 1))
        .collect()
}

/// The `d` bits of a residue, most significant first (the string `f(A)` of
/// equation 9).
pub fn residue_bits(m: &Modulus, x: u128) -> Vec<bool> {
    (0..m.degree()).rev().map(|i| x >> i & 1 == 1).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// The wide path — folded with carry-less multiplication where the
        /// processor has it, and slice-by-8 — gives exactly the byte-at-a-time
        /// values, from any starting residue, for any length (the folding
        /// starts at four blocks and leaves any tail), on the default and
        /// random polynomials.
        #[test]
        fn wide_bytes_equal_byte_at_a_time(
            seed in any::<u64>(),
            start in any::<u64>(),
            bytes in prop::collection::vec(any::<u8>(), 0..400),
        ) {
            for m in [Modulus::default_64(), Modulus::random(64, seed).unwrap()] {
                let wide = m.wide.as_ref().unwrap();
                let a = Fp { value: u128::from(start), bits: 64 };
                let reference = m.extend_bytes_bytewise(a, &bytes).value as u64;
                prop_assert_eq!(wide.extend_bytes(start, &bytes, false), reference);
                prop_assert_eq!(wide.extend_bytes(start, &bytes, true), reference);
                prop_assert_eq!(m.extend_bytes_unchecked(a, &bytes).value as u64, reference);
            }
        }

        #[test]
        fn wide_symbols_equal_byte_at_a_time(
            seed in any::<u64>(),
            start in any::<u64>(),
            symbols in prop::collection::vec(any::<u64>(), 0..60),
        ) {
            for m in [Modulus::default_64(), Modulus::random(64, seed).unwrap()] {
                let wide = m.wide.as_ref().unwrap();
                let bytes: Vec<u8> = symbols.iter().flat_map(|s| s.to_be_bytes()).collect();
                let a = Fp { value: u128::from(start), bits: 64 };
                let reference = m.extend_bytes_bytewise(a, &bytes).value as u64;
                prop_assert_eq!(wide.extend_symbols(start, &symbols, false), reference);
                prop_assert_eq!(wide.extend_symbols(start, &symbols, true), reference);
                prop_assert_eq!(
                    m.fp_symbols(&symbols),
                    m.extend_bytes_bytewise(Fp::EMPTY, &bytes)
                );
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// The folding written over 128-bit integers (the aarch64 path,
        /// there on PMULL) with a bit-by-bit carry-less product gives the
        /// byte-at-a-time values on every machine: bytes and symbols, any
        /// starting residue, four blocks and more, random polynomials.
        #[test]
        fn folding_with_any_carry_less_product_equals_byte_at_a_time(
            seed in any::<u64>(),
            start in any::<u64>(),
            bytes in prop::collection::vec(any::<u8>(), 64..300),
        ) {
            for m in [Modulus::default_64(), Modulus::random(64, seed).unwrap()] {
                let wide = m.wide.as_ref().unwrap();
                let a = Fp { value: u128::from(start), bits: 64 };
                let reference = m.extend_bytes_bytewise(a, &bytes).value as u64;
                let (folded, n) =
                    simd::fold_with(start, Blocks::Bytes(&bytes), wide.keys, simd::clmul_bitwise);
                prop_assert_eq!(n, bytes.len() / 16);
                let rest = bytes[16 * n..]
                    .iter()
                    .fold(wide.step((folded >> 64) as u64, folded as u64), |g, &c| {
                        (g << 8) ^ u64::from(c) ^ wide.slice[0][(g >> 56) as usize]
                    });
                prop_assert_eq!(rest, reference);

                let symbols: Vec<u64> = bytes
                    .chunks_exact(8)
                    .map(|w| u64::from_be_bytes(w.try_into().unwrap()))
                    .collect();
                let reference = m
                    .extend_bytes_bytewise(a, &bytes[..8 * symbols.len()])
                    .value as u64;
                let (folded, n) =
                    simd::fold_with(start, Blocks::Symbols(&symbols), wide.keys, simd::clmul_bitwise);
                let rest = symbols[2 * n..]
                    .iter()
                    .fold(wide.step((folded >> 64) as u64, folded as u64), |g, &s| wide.step(g, s));
                prop_assert_eq!(rest, reference);
            }
        }
    }

    /// Where the processor has carry-less multiplication (PCLMULQDQ on
    /// x86-64, PMULL on aarch64) the folding path is taken.
    #[test]
    fn carry_less_multiplication_is_used_where_the_processor_has_it() {
        let off = std::env::var_os("BRYO_NO_SIMD").is_some_and(|v| !v.is_empty() && v != "0");
        if !simd::clmul_hardware() || off {
            eprintln!("SKIP: no carry-less multiplication here (or BRYO_NO_SIMD)");
            return;
        }
        assert!(simd::clmul_available());
        let m = Modulus::default_64();
        let bytes = [7u8; 64];
        assert!(simd::fold(0, Blocks::Bytes(&bytes), m.wide.as_ref().unwrap().keys).is_some());
    }

    /// Long inputs exercise many folding rounds; the residue is also checked
    /// against bit-by-bit long division.
    #[test]
    fn wide_path_on_long_inputs() {
        let m = Modulus::default_64();
        let mut rng = SplitMix64::new(11);
        let bytes: Vec<u8> = (0..100_003).map(|_| rng.next() as u8).collect();
        let reference = m.extend_bytes_bytewise(Fp::EMPTY, &bytes);
        assert_eq!(m.fp_bytes(&bytes), reference);
        assert_eq!(
            m.fp_bits(&bits_of(&bytes[..3_001])),
            m.fp_bytes(&bytes[..3_001])
        );
        let symbols: Vec<u64> = (0..20_001).map(|_| rng.next()).collect();
        let as_bytes: Vec<u8> = symbols.iter().flat_map(|s| s.to_be_bytes()).collect();
        assert_eq!(
            m.fp_symbols(&symbols),
            m.extend_bytes_bytewise(Fp::EMPTY, &as_bytes)
        );
    }

    #[test]
    fn agrees_with_the_degree_64_test() {
        let mut rng = SplitMix64::new(7);
        for _ in 0..400 {
            let low = rng.next();
            let ours = Modulus::new(64, u128::from(low)).is_ok();
            assert_eq!(ours, gf2::is_irreducible((1u128 << 64) | u128::from(low)));
        }
    }

    #[test]
    fn small_degrees() {
        // t+1, t^2+t+1, t^3+t+1, t^8+t^4+t^3+t+1 are irreducible; t^2+1 is not.
        for (d, low) in [(1, 1), (2, 0b11), (3, 0b011), (8, 0x1b)] {
            assert!(Modulus::new(d, low).is_ok(), "degree {d}");
        }
        assert!(Modulus::new(2, 0b01).is_err());
        assert!(Modulus::new(0, 0).is_err());
        assert!(Modulus::new(129, 1).is_err());
        assert!(Modulus::new(8, 0x100).is_err());
    }

    #[test]
    fn known_degree_128_irreducible() {
        // The GCM polynomial t^128 + t^7 + t^2 + t + 1.
        assert!(Modulus::new(128, 0x87).is_ok());
        // t^128 + 1 = (t + 1)^128.
        assert!(Modulus::new(128, 1).is_err());
    }
}
