//! Broder's fingerprint algebra (Broder 1993, §§3–5): fingerprints of
//! strings that compose (`Modulus`, `Fp`), of sets (`subset`), of binary
//! trees (`bintree`) and of DAG nodes (`dag`). Off the hot path: the
//! rolling hashes (`rabin`, `karp_rabin`) never call into it. It is used
//! to find exact copies (whole documents and submissions) and by `bryo
//! fingerprint`; the crate root re-exports everything, so callers never name
//! this module.

mod bintree;
mod dag;
mod modulus;
mod subset;

pub use bintree::{intercalate, tree_fingerprint, BinaryTree};
pub use dag::{DagTagger, TagPermutation};
pub use modulus::{bits_of, residue_bits, Fp, Modulus, PowerTable, MAX_DEGREE};
pub use subset::{Element, ElementPolynomials, GroundSet, SubsetProduct, SubsetSum};
