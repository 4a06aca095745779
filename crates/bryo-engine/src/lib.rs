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
//! ## Speed and SIMD
//!
//! Plain winnowing through [`Fingerprinter::fingerprint_bytes_into`] and
//! [`Fingerprinter::fingerprint_symbols_into`] hashes and selects in one pass
//! over independent lanes. With Karp–Rabin on an x86-64 processor with
//! AVX-512 (F, DQ, BW; detected once at run time) eight lanes run in one
//! vector; elsewhere, or with the environment variable `BRYO_NO_SIMD=1`, or
//! with [`Fingerprinter::with_simd`]`(false)`, scalar code computes the same
//! fingerprints. All `unsafe` code of the crate is in that one private
//! module.

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
//! let original = winnow.fingerprint_bytes(b"adorunrunrunadorunrun")?;
//! let copy = winnow.fingerprint_bytes(b"we ran: adorunrun!")?;
//! let shared = original
//!     .iter()
//!     .filter(|f| copy.iter().any(|g| g.hash == f.hash))
//!     .count();
//! assert!(shared > 0); // "adorunrun" has 9 >= t symbols in common
//! # Ok::<(), bryo_engine::Error>(())
//! ```
//!
//! # Rabin fingerprints as an algebra (Broder 1993)
//!
//! Besides the rolling hashes, the crate exposes Broder's fingerprints as
//! values that compose. A [`Modulus`] is an irreducible polynomial `P` of
//! degree `d` from 1 to 128 (the default is [`Polynomial::DEFAULT`], degree
//! 64; [`Modulus::random`] draws one of any degree from a seed). An [`Fp`] is
//! `f(A) = A(t) mod P` together with the length `|A|` in bits, so pieces
//! compose; [`Modulus::prefixed`] applies Broder's convention of prefixing
//! the string with a 1 bit so that leading zeros count. Byte strings are
//! fingerprinted one table look-up per byte (§4).
//!
//! ## Sum and concatenation (equations 8–10)
//!
//! `f(A + B) = f(A) + f(B)` (8); `f(concat(A, B)) = f(concat(f(A), B))` (9),
//! i.e. fingerprinting can resume from `f(A)` alone; and
//! `f(concat(A, B)) = f(f(A)·f(t^|B|)) + f(B)` (10), from the two
//! fingerprints and `|B|`, with `f(t^l)` precomputed by a [`PowerTable`].
//!
//! ```
//! use bryo_engine::{Modulus, PowerTable};
//!
//! let m = Modulus::default_64();
//! let (a, b) = (m.fp_bytes(b"winnow"), m.fp_bytes(b"ing"));
//! let whole = m.fp_bytes(b"winnowing");
//! assert_eq!(m.concat(a, b)?, whole); // (10)
//! assert_eq!(PowerTable::new(&m, 1024).concat(&m, a, b)?, whole); // (10), table
//! assert_eq!(m.extend_bytes(a, b"ing")?, whole); // (9)
//! assert_eq!(whole.bits(), 72);
//! let (x, y) = (m.fp_bytes(&[0b1100]), m.fp_bytes(&[0b1010]));
//! assert_eq!(x.sum(y), m.fp_bytes(&[0b0110])); // (8)
//! // With the leading 1, a zero byte is not the empty string.
//! assert_ne!(m.hash_bytes(&[0]), m.hash_bytes(&[]));
//! # Ok::<(), bryo_engine::Error>(())
//! ```
//!
//! ## Field arithmetic modulo `P`
//!
//! [`Modulus::mul`], [`Modulus::square`], [`Modulus::pow`] and
//! [`Modulus::inverse`] (by exponentiation: `a^(2^d − 2)`). Degrees above
//! 64 use the same code on `u128` residues; Broder suggests 96 bits for DAG
//! tags.
//!
//! ```
//! use bryo_engine::Modulus;
//!
//! let m = Modulus::random(96, 2026)?; // irreducible, reproducible from the seed
//! let a = m.fp_bytes(b"any residue").value();
//! let inv = m.inverse(a).expect("non-zero");
//! assert_eq!(m.mul(a, inv), 1);
//! assert_eq!(m.square(a), m.mul(a, a));
//! # Ok::<(), bryo_engine::Error>(())
//! ```
//!
//! ## Subsets (§5.2, equations 11–12)
//!
//! With a numbered ground set, `f(A) = Σ_{ω_i ∈ A} t^i mod P` (12) —
//! [`GroundSet`], [`SubsetSum`]. When the ground set is open-ended,
//! `f(A) = Π_{ω ∈ A} R(ω) mod P` (11) with a pseudo-random polynomial per
//! element ([`ElementPolynomials`]) — [`SubsetProduct`]; adding an element
//! multiplies by `R`, removing it by `R^(−1)`, both O(1). Both are
//! independent of order; the product also counts multiplicities.
//!
//! ```
//! use bryo_engine::{ElementPolynomials, GroundSet, Modulus, SubsetProduct};
//!
//! let m = Modulus::default_64();
//! let ground = GroundSet::new(&m, 100);
//! let mut s = ground.subset([3, 14, 15])?;
//! assert_eq!(s, ground.subset([15, 3, 14])?); // (12), any order
//! s.remove(&ground, 14)?;
//! assert_eq!(s, ground.subset([3, 15])?);
//!
//! let r = ElementPolynomials::new(7);
//! let [a, b, c] = [10u128, 20, 30].map(|k| r.element(&m, k));
//! let mut f = SubsetProduct::of(&m, [a, b, c]); // (11)
//! assert_eq!(f, SubsetProduct::of(&m, [c, a, b]));
//! f.remove(&m, b); // multiply by the inverse of R(b)
//! assert_eq!(f, SubsetProduct::of(&m, [a, c]));
//! # Ok::<(), bryo_engine::Error>(())
//! ```
//!
//! ## Binary trees by intercalation (§5.3, equations 13–15)
//!
//! A leaf is the string `11`, a missing child `10`, an inner node the
//! intercalation `S(A, B)` of its children's strings (13–14), and the tree's
//! fingerprint is `f(C)` (15). Because squaring in `Z2[t]` spreads bits apart,
//! `f(S(A, B)) = f(A)²·t + f(B)²`, so [`tree_fingerprint`] works bottom-up
//! in linear time although the encoding can be exponentially long.
//!
//! ```
//! use bryo_engine::{tree_fingerprint, BinaryTree, Modulus};
//!
//! let m = Modulus::default_64();
//! let leaf = BinaryTree::leaf;
//! let t = BinaryTree::node(Some(leaf()), None);
//! let u = BinaryTree::node(None, Some(leaf()));
//! assert_eq!(t.encoding(), [true, true, true, false]); // S(11, 10)
//! assert_eq!(tree_fingerprint(&m, &t), m.fp_bits(&t.encoding()).value());
//! assert_ne!(tree_fingerprint(&m, &t), tree_fingerprint(&m, &u));
//! ```
//!
//! ## DAG tags (§5.1.2)
//!
//! [`DagTagger`] gives each node of a DAG with labelled edges a tag
//! `T(f(Label_1 ‖ Tag(child_1) ‖ …))`, where `T` is a seeded pseudo-random
//! permutation ([`TagPermutation`]: a random permutation of each byte, then
//! an invertible linear map over GF(2)). Tags are computed bottom-up from
//! the children's tags, so strings stay short, and two nodes share a tag iff
//! the trees they unfold to are isomorphic.
//!
//! ```
//! use bryo_engine::{DagTagger, Modulus};
//!
//! let tagger = DagTagger::new(Modulus::random(96, 1)?, 42);
//! let (x, y) = (tagger.source(b"x.c"), tagger.source(b"y.c"));
//! let obj1 = tagger.node(&[("cc", x)])?;
//! let obj2 = tagger.node(&[("cc", x)])?; // derived the same way
//! let lib = tagger.node(&[("ld", obj1), ("ld", y)])?;
//! assert_eq!(obj1, obj2);
//! assert_ne!(obj1, tagger.node(&[("cc", y)])?);
//! assert_ne!(lib, tagger.node(&[("ld", y), ("ld", obj1)])?);
//! # Ok::<(), bryo_engine::Error>(())
//! ```
#![deny(missing_docs)]
#![deny(unsafe_code)]

mod algebra;
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
#[allow(unsafe_code)]
mod simd;
mod stats;

// Broder's fingerprint algebra: strings, sets, trees and DAG nodes.
pub use algebra::{
    bits_of, intercalate, residue_bits, tree_fingerprint, BinaryTree, DagTagger, Element,
    ElementPolynomials, Fp, GroundSet, Modulus, PowerTable, SubsetProduct, SubsetSum,
    TagPermutation, MAX_DEGREE,
};
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
