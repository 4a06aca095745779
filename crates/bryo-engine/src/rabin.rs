//! Rabin fingerprints over GF(2), table-driven and rolling (Broder §4).

use crate::rolling::Roll;
use crate::Polynomial;

/// Rabin's fingerprint of k-grams: the k-gram, read as a bit string prefixed
/// by a 1 (Broder §2: "the implementation must actually prefix every string
/// … by a 1"), taken as a polynomial over GF(2) modulo an irreducible
/// polynomial `P` of degree 64.
///
/// * Byte path: each byte is 8 bits, most significant first. Appending a byte
///   costs one look-up (`t^64`-reduction of the byte shifted out of the top)
///   and removing the byte that leaves the window another (`c·t^(8k) mod P`).
/// * Symbol path: each `u64` symbol is 64 bits, most significant first, so
///   the hash of symbols equals the byte-path hash of their big-endian bytes
///   with `8k`-byte windows. Appending and removing a symbol each cost eight
///   look-ups, one per byte (Broder's multi-table scheme widened to 64 bits).
///
/// Tables are built at run time for any polynomial, in microseconds.
#[derive(Clone, Debug)]
pub struct Rabin {
    poly: Polynomial,
    k: usize,
    /// reduce[x] = x(t)·t^64 mod P: the byte shifted out of the top, folded back.
    reduce: [u64; 256],
    /// leave_byte[c] = c(t)·t^(8k) mod P.
    leave_byte: [u64; 256],
    /// t^(8k) mod P: the leading 1 of a k-byte string.
    one_bytes: u64,
    /// shift64[j][x] = x(t)·t^(8j)·t^64 mod P, for byte j of the state.
    shift64: Box<[[u64; 256]; 8]>,
    /// leave_sym[j][x] = x(t)·t^(8j)·t^(64k) mod P, for byte j of the symbol leaving.
    leave_sym: Box<[[u64; 256]; 8]>,
    /// t^(64k) mod P: the leading 1 of a k-symbol string.
    one_syms: u64,
}

/// `x(t)·m mod P` for every byte value x, by linearity over GF(2).
fn byte_table(p: Polynomial, m: u64) -> [u64; 256] {
    let mut basis = [0u64; 8];
    for (bit, slot) in basis.iter_mut().enumerate() {
        *slot = p.mul(1u64 << bit, m);
    }
    let mut table = [0u64; 256];
    for (x, slot) in table.iter_mut().enumerate() {
        *slot = (0..8)
            .filter(|bit| x >> bit & 1 == 1)
            .fold(0, |acc, bit| acc ^ basis[bit]);
    }
    table
}

impl Rabin {
    /// Rabin hashing of k-grams of length `k` modulo `poly`.
    pub fn new(poly: Polynomial, k: usize) -> Rabin {
        let k64 = k as u64;
        let t64 = poly.low_bits(); // t^64 mod P
        let reduce = byte_table(poly, t64);
        let one_bytes = poly.pow_t(8 * k64);
        let leave_byte = byte_table(poly, one_bytes);
        let one_syms = poly.pow_t(64 * k64);
        let mut shift64 = Box::new([[0u64; 256]; 8]);
        let mut leave_sym = Box::new([[0u64; 256]; 8]);
        for j in 0..8 {
            let tj = poly.pow_t(8 * j as u64);
            shift64[j] = byte_table(poly, poly.mul(tj, t64));
            leave_sym[j] = byte_table(poly, poly.mul(tj, one_syms));
        }
        Rabin {
            poly,
            k,
            reduce,
            leave_byte,
            one_bytes,
            shift64,
            leave_sym,
            one_syms,
        }
    }

    /// The modulus.
    pub fn polynomial(&self) -> Polynomial {
        self.poly
    }

    /// The k-gram length.
    pub fn k(&self) -> usize {
        self.k
    }

    #[inline(always)]
    fn append_byte(&self, g: u64, c: u8) -> u64 {
        (g << 8) ^ u64::from(c) ^ self.reduce[(g >> 56) as usize]
    }

    /// `g·t^64 mod P`: the state shifted by one whole symbol.
    #[inline(always)]
    fn times_t64(&self, g: u64) -> u64 {
        by_bytes(&self.shift64, g)
    }

    /// `s·t^(64k) mod P`: the contribution of the symbol leaving the window.
    #[inline(always)]
    fn leaving_symbol(&self, s: u64) -> u64 {
        by_bytes(&self.leave_sym, s)
    }

    /// The fingerprint of one string of bytes of any length, from scratch,
    /// with the leading 1 (for a k-gram this equals the rolling value).
    pub fn hash_bytes(&self, bytes: &[u8]) -> u64 {
        let g = bytes.iter().fold(0u64, |g, &c| self.append_byte(g, c));
        g ^ self.poly.pow_t(8 * bytes.len() as u64)
    }

    /// The fingerprint of one string of `u64` symbols, from scratch, with the
    /// leading 1.
    pub fn hash_symbols(&self, symbols: &[u64]) -> u64 {
        let g = symbols.iter().fold(0u64, |g, &s| s ^ self.times_t64(g));
        g ^ self.poly.pow_t(64 * symbols.len() as u64)
    }

    pub(crate) fn bytes(&self) -> RabinBytes<'_> {
        RabinBytes(self)
    }

    pub(crate) fn symbols(&self) -> RabinSymbols<'_> {
        RabinSymbols(self)
    }
}

/// A linear map over GF(2) applied byte by byte: `XOR_j tables[j][byte j of x]`.
#[inline(always)]
pub(crate) fn by_bytes(t: &[[u64; 256]; 8], x: u64) -> u64 {
    // Written out: the eight look-ups are independent and must stay so.
    t[0][(x & 0xff) as usize]
        ^ t[1][(x >> 8 & 0xff) as usize]
        ^ t[2][(x >> 16 & 0xff) as usize]
        ^ t[3][(x >> 24 & 0xff) as usize]
        ^ t[4][(x >> 32 & 0xff) as usize]
        ^ t[5][(x >> 40 & 0xff) as usize]
        ^ t[6][(x >> 48 & 0xff) as usize]
        ^ t[7][(x >> 56) as usize]
}

#[derive(Clone, Copy)]
pub(crate) struct RabinBytes<'a>(&'a Rabin);
#[derive(Clone, Copy)]
pub(crate) struct RabinSymbols<'a>(&'a Rabin);

impl Roll for RabinBytes<'_> {
    type Sym = u8;
    #[inline(always)]
    fn start(&self, kgram: &[u8]) -> u64 {
        kgram.iter().fold(0u64, |g, &c| self.0.append_byte(g, c))
    }
    #[inline(always)]
    fn roll(&self, g: u64, out: u8, inc: u8) -> u64 {
        self.0.append_byte(g, inc) ^ self.0.leave_byte[out as usize]
    }
    #[inline(always)]
    fn finish(&self, g: u64) -> u64 {
        g ^ self.0.one_bytes
    }
}

impl Roll for RabinSymbols<'_> {
    type Sym = u64;
    #[inline(always)]
    fn start(&self, kgram: &[u64]) -> u64 {
        kgram.iter().fold(0u64, |g, &s| s ^ self.0.times_t64(g))
    }
    #[inline(always)]
    fn roll(&self, g: u64, out: u64, inc: u64) -> u64 {
        inc ^ self.0.times_t64(g) ^ self.0.leaving_symbol(out)
    }
    #[inline(always)]
    fn finish(&self, g: u64) -> u64 {
        g ^ self.0.one_syms
    }
}
