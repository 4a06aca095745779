//! Choosing a rolling hash and computing runs of k-gram hashes.

use std::fmt;
use std::str::FromStr;

use crate::karp_rabin::KarpRabinSymbol;
use crate::rabin::{RabinBytes, RabinSymbols};
use crate::rolling::{hash_range, Roll};
use crate::{Config, Error, KarpRabin, Polynomial, Rabin};

/// Which rolling hash to use for k-grams.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum HashFunction {
    /// Karp–Rabin modulo 2^64 ([`KarpRabin`]): the fastest; the default.
    #[default]
    KarpRabin,
    /// Rabin's fingerprint over GF(2) modulo the given irreducible polynomial
    /// ([`Rabin`]): a provable collision bound (Broder, eq. 7) for a randomly
    /// chosen polynomial.
    Rabin(Polynomial),
}

impl HashFunction {
    /// Rabin fingerprints with bryo's fixed default polynomial.
    pub const RABIN_DEFAULT: HashFunction = HashFunction::Rabin(Polynomial::DEFAULT);

    /// A short stable name: `karp-rabin` or `rabin`.
    pub fn name(self) -> &'static str {
        match self {
            HashFunction::KarpRabin => "karp-rabin",
            HashFunction::Rabin(_) => "rabin",
        }
    }
}

impl fmt::Display for HashFunction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HashFunction::KarpRabin => f.write_str("karp-rabin"),
            HashFunction::Rabin(p) if *p == Polynomial::DEFAULT => f.write_str("rabin"),
            HashFunction::Rabin(p) => write!(f, "rabin (t^64 + {:#018x})", p.low_bits()),
        }
    }
}

/// Error from parsing a [`HashFunction`] name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownHashFunction(pub String);

impl fmt::Display for UnknownHashFunction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown hash function {:?} (expected karp-rabin or rabin)",
            self.0
        )
    }
}

impl std::error::Error for UnknownHashFunction {}

impl FromStr for HashFunction {
    type Err = UnknownHashFunction;

    /// Accepts `karp-rabin` (or `kr`, `karprabin`) and `rabin` (or `gf2`);
    /// `rabin` selects the default polynomial.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "karp-rabin" | "karprabin" | "kr" => Ok(HashFunction::KarpRabin),
            "rabin" | "gf2" => Ok(HashFunction::RABIN_DEFAULT),
            _ => Err(UnknownHashFunction(s.to_string())),
        }
    }
}

/// A ready-to-run rolling hash of k-grams: the chosen [`HashFunction`] with
/// its tables built for one `k`.
///
/// Both schemes are exact: the value obtained by rolling always equals the
/// from-scratch value of that k-gram.
#[derive(Clone, Debug)]
pub struct Hasher {
    k: usize,
    inner: Inner,
}

#[derive(Clone, Debug)]
enum Inner {
    KarpRabin(Box<KarpRabin>),
    Rabin(Box<Rabin>),
}

impl Hasher {
    /// Builds the tables of `function` for the k of `config`.
    pub fn new(function: HashFunction, config: &Config) -> Hasher {
        let k = config.k();
        let inner = match function {
            HashFunction::KarpRabin => Inner::KarpRabin(Box::new(KarpRabin::new(k))),
            HashFunction::Rabin(p) => Inner::Rabin(Box::new(Rabin::new(p, k))),
        };
        Hasher { k, inner }
    }

    /// The k-gram length.
    pub fn k(&self) -> usize {
        self.k
    }

    /// The hash function.
    pub fn function(&self) -> HashFunction {
        match &self.inner {
            Inner::KarpRabin(_) => HashFunction::KarpRabin,
            Inner::Rabin(r) => HashFunction::Rabin(r.polynomial()),
        }
    }

    /// Number of k-grams in an input of `len` symbols.
    pub fn kgram_count(&self, len: usize) -> usize {
        kgram_count(len, self.k)
    }

    /// Replaces the contents of `out` with the hash of every k-gram of
    /// `bytes`, each byte one symbol.
    pub fn hash_bytes(&self, bytes: &[u8], out: &mut Vec<u64>) {
        hash_all(self, bytes, out)
    }

    /// Replaces the contents of `out` with the hash of every k-gram of
    /// `symbols`.
    pub fn hash_symbols(&self, symbols: &[u64], out: &mut Vec<u64>) {
        hash_all(self, symbols, out)
    }

    /// Writes into `out[j]` the hash of the k-gram of `bytes` starting at
    /// `first + j`: hashing a long input a slice at a time, in bounded memory.
    ///
    /// Fails if the range runs past the last k-gram.
    pub fn hash_bytes_range(
        &self,
        bytes: &[u8],
        first: usize,
        out: &mut [u64],
    ) -> Result<(), Error> {
        self.check_range(bytes.len(), first, out.len())?;
        u8::hash_range(self, bytes, first, out);
        Ok(())
    }

    /// Like [`hash_bytes_range`](Hasher::hash_bytes_range), for symbols.
    pub fn hash_symbols_range(
        &self,
        symbols: &[u64],
        first: usize,
        out: &mut [u64],
    ) -> Result<(), Error> {
        self.check_range(symbols.len(), first, out.len())?;
        u64::hash_range(self, symbols, first, out);
        Ok(())
    }

    fn check_range(&self, len: usize, first: usize, count: usize) -> Result<(), Error> {
        let kgrams = self.kgram_count(len);
        match first.checked_add(count) {
            Some(end) if end <= kgrams => Ok(()),
            _ => Err(Error::RangeOutOfBounds {
                first: first as u64,
                count: count as u64,
                kgrams: kgrams as u64,
            }),
        }
    }

    /// The hash of a single k-gram of bytes, from scratch.
    ///
    /// Returns `None` unless `kgram.len() == k`.
    pub fn hash_kgram_bytes(&self, kgram: &[u8]) -> Option<u64> {
        (kgram.len() == self.k).then(|| match &self.inner {
            Inner::KarpRabin(kr) => kr.hash_bytes(kgram),
            Inner::Rabin(r) => r.hash_bytes(kgram),
        })
    }

    /// The hash of a single k-gram of symbols, from scratch.
    ///
    /// Returns `None` unless `kgram.len() == k`.
    pub fn hash_kgram_symbols(&self, kgram: &[u64]) -> Option<u64> {
        (kgram.len() == self.k).then(|| match &self.inner {
            Inner::KarpRabin(kr) => kr.hash_symbols(kgram),
            Inner::Rabin(r) => r.hash_symbols(kgram),
        })
    }
}

fn hash_all<S: Symbol>(h: &Hasher, input: &[S], out: &mut Vec<u64>) {
    let n = kgram_count(input.len(), h.k);
    out.clear();
    out.resize(n, 0);
    S::hash_range(h, input, 0, out);
}

/// Number of k-grams in `len` symbols.
pub(crate) fn kgram_count(len: usize, k: usize) -> usize {
    (len + 1).saturating_sub(k)
}

/// A symbol type the engine can hash: `u8` (raw bytes) or `u64` (front-end
/// symbols). Sealed.
pub trait Symbol: Copy + sealed::Sealed {
    #[doc(hidden)]
    fn hash_range(h: &Hasher, input: &[Self], first: usize, out: &mut [u64]);
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for u8 {}
    impl Sealed for u64 {}
}

impl Symbol for u8 {
    fn hash_range(h: &Hasher, input: &[u8], first: usize, out: &mut [u64]) {
        hash_range_of(h, input, first, out)
    }
}

impl Symbol for u64 {
    fn hash_range(h: &Hasher, input: &[u64], first: usize, out: &mut [u64]) {
        hash_range_of(h, input, first, out)
    }
}

/// The rolling schemes of a symbol type, so that code over bytes and `u64`
/// symbols is written once (monomorphized, it is the same code as two
/// copies: the engine's benches measure no difference).
pub(crate) trait Schemes: Symbol + KarpRabinSymbol {
    /// Rabin's scheme over this symbol type: bytes and `u64` symbols use
    /// different tables.
    type Rabin<'a>: Roll<Sym = Self>;
    /// `r` over this symbol type.
    fn rabin(r: &Rabin) -> Self::Rabin<'_>;
}

impl Schemes for u8 {
    type Rabin<'a> = RabinBytes<'a>;
    fn rabin(r: &Rabin) -> RabinBytes<'_> {
        r.bytes()
    }
}

impl Schemes for u64 {
    type Rabin<'a> = RabinSymbols<'a>;
    fn rabin(r: &Rabin) -> RabinSymbols<'_> {
        r.symbols()
    }
}

fn hash_range_of<S: Schemes>(h: &Hasher, input: &[S], first: usize, out: &mut [u64]) {
    match &h.inner {
        Inner::KarpRabin(kr) => run(&kr.rolling::<S>(false), input, h.k, first, out),
        Inner::Rabin(r) => run(&S::rabin(r), input, h.k, first, out),
    }
}

fn run<R: Roll>(r: &R, input: &[R::Sym], k: usize, first: usize, out: &mut [u64]) {
    if out.is_empty() {
        return;
    }
    hash_range(*r, input, k, first, out)
}
