//! # bryo-engine: document fingerprinting by winnowing
//!
//! The format-agnostic heart of bryo. It turns a sequence of symbols — raw
//! bytes, or the `u64` symbols a front-end produces — into 64-bit hashes of
//! every k-gram, and selects some of them as the document's
//! [`Fingerprint`]s. It knows nothing of files, languages or formats.
//!
//! It implements:
//!
//! * **Karp–Rabin** hashing modulo 2^64 in the improved form of Schleimer,
//!   Wilkerson & Aiken, "Winnowing: Local Algorithms for Document
//!   Fingerprinting" (SIGMOD 2003), §2.2 — [`KarpRabin`];
//! * **Rabin fingerprints** over GF(2) modulo an irreducible polynomial of
//!   degree 64, table-driven as in Broder, "Some applications of Rabin's
//!   fingerprinting method" (1993), §4 — [`Rabin`], [`Polynomial`];
//! * **selection** by winnowing (Definition 1), robust winnowing
//!   (Definition 3), 0 mod p, Safe 0 mod p (§3.1.2), the n smallest hashes
//!   and all hashes — [`Selection`], [`Selector`].
//!
//! ## The guarantee
//!
//! With noise threshold `k` and window `w` (guarantee threshold
//! `t = w + k − 1`), winnowing and robust winnowing select at least one
//! k-gram in every run of `t` symbols, so **two documents that share a run of
//! at least `t` symbols always share a fingerprint hash**, and no match
//! shorter than `k` is ever reported. On random input winnowing selects a
//! share `2/(w+1)` of the hashes. The tests check all of this against naive
//! reference implementations.
//!
//! ## Stability
//!
//! For the same input, configuration and [`HASH_SCHEME_VERSION`], the hashes
//! and fingerprints are identical on every run and machine. Golden tests pin
//! exact values; any change of scheme gets a new version number.
//!
//! ## Example
//!
//! ```
//! use bryo_engine::{Config, Fingerprinter, HashFunction, Selection};
//!
//! let config = Config::new(5, 4)?; // k = 5, w = 4, so t = 8
//! let mut winnow = Fingerprinter::new(config, HashFunction::KarpRabin, Selection::Winnow)?;
//! let original = winnow.fingerprints_bytes(b"adorunrunrunadorunrun")?;
//! let copy = winnow.fingerprints_bytes(b"we ran: adorunrun!")?;
//! let shared = original
//!     .iter()
//!     .filter(|f| copy.iter().any(|g| g.hash == f.hash))
//!     .count();
//! assert!(shared > 0); // "adorunrun" has 9 >= t symbols in common
//! # Ok::<(), bryo_engine::Error>(())
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod config;
mod error;
mod fingerprint;
mod gf2;
mod hash;
mod karp_rabin;
mod mix;
mod rabin;
mod rng;
mod rolling;
mod select;
mod stats;

pub use config::{Config, MAX_PARAMETER};
pub use error::Error;
pub use fingerprint::{Fingerprint, Fingerprinter, Fingerprints};
pub use gf2::Polynomial;
pub use hash::{HashFunction, Hasher, Symbol, UnknownHashFunction};
pub use karp_rabin::{KarpRabin, KARP_RABIN_BASE};
pub use mix::rehash;
pub use rabin::Rabin;
pub use rng::SplitMix64;
pub use select::{Selection, Selector};
pub use stats::GapMeter;

/// Arithmetic on polynomials over GF(2) held in a `u128` (bit `i` is the
/// coefficient of `t^i`), as used to build and check Rabin polynomials.
pub mod poly {
    pub use crate::gf2::{clmul, degree, gcd, is_irreducible, mulmod, rem};
}

/// Version of the hashing scheme: the symbol-to-hash functions, the default
/// polynomial, the Karp–Rabin base and the selection rules. Stored indexes
/// record it; a change to any hash value produced for the same input and
/// options requires a new version.
pub const HASH_SCHEME_VERSION: u32 = 1;
