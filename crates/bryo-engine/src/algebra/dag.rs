//! Tags for the nodes of a DAG, equal iff the unfolded trees are isomorphic
//! (Broder §5.1.2).

use crate::{Error, Modulus, SplitMix64};

/// A seeded pseudo-random permutation `T` of the `d`-bit values, as in
/// Broder's implementation (§5.1.2): first a non-linear map — each byte of
/// the value through its own random permutation of `0..256` — then a linear
/// one, multiplication by a random non-singular `d × d` matrix over GF(2).
/// Both steps are bijections, so `T` is one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TagPermutation {
    degree: u32,
    /// One permutation per byte of the value, lowest byte first; the top
    /// one permutes only `degree mod 8` bits when the degree is not a
    /// multiple of 8.
    bytes: Vec<Vec<u8>>,
    /// Row `i` of the matrix: output bit `i` is the parity of `row & x`.
    rows: Vec<u128>,
}

fn mask(degree: u32) -> u128 {
    if degree >= 128 {
        u128::MAX
    } else {
        (1u128 << degree) - 1
    }
}

/// Whether the rows are linearly independent over GF(2) (Gaussian
/// elimination on a copy).
fn non_singular(rows: &[u128]) -> bool {
    let mut rows = rows.to_vec();
    for bit in 0..rows.len() {
        let Some(pivot) = (bit..rows.len()).find(|&r| rows[r] >> bit & 1 == 1) else {
            return false;
        };
        rows.swap(bit, pivot);
        let p = rows[bit];
        for (r, row) in rows.iter_mut().enumerate() {
            if r != bit && *row >> bit & 1 == 1 {
                *row ^= p;
            }
        }
    }
    true
}

impl TagPermutation {
    /// The permutation of `degree`-bit values (`1..=128`) drawn from `seed`.
    pub fn new(degree: u32, seed: u64) -> Result<TagPermutation, Error> {
        if !(1..=128).contains(&degree) {
            return Err(Error::UnsupportedDegree { degree });
        }
        let mut rng = SplitMix64::new(seed);
        let mut bytes = Vec::new();
        let mut low = 0;
        while low < degree {
            let width = (degree - low).min(8);
            let size = 1usize << width;
            let mut p: Vec<u8> = (0..size).map(|x| x as u8).collect();
            // Fisher–Yates.
            for i in (1..size).rev() {
                let j = rng.below(i as u64 + 1) as usize;
                p.swap(i, j);
            }
            bytes.push(p);
            low += width;
        }
        let m = mask(degree);
        let rows = loop {
            let rows: Vec<u128> = (0..degree)
                .map(|_| ((u128::from(rng.next()) << 64) | u128::from(rng.next())) & m)
                .collect();
            // A random square matrix over GF(2) is non-singular with
            // probability about 0.29, so this loop is short.
            if non_singular(&rows) {
                break rows;
            }
        };
        Ok(TagPermutation {
            degree,
            bytes,
            rows,
        })
    }

    /// The number of bits permuted.
    pub fn degree(&self) -> u32 {
        self.degree
    }

    /// `T(x)` for a `d`-bit value (higher bits are ignored).
    pub fn apply(&self, x: u128) -> u128 {
        let x = x & mask(self.degree);
        let mut y = 0u128;
        for (j, p) in self.bytes.iter().enumerate() {
            let byte = (x >> (8 * j) & 0xff) as usize;
            y |= u128::from(p[byte]) << (8 * j);
        }
        self.rows.iter().enumerate().fold(0u128, |acc, (i, row)| {
            acc | (u128::from((row & y).count_ones() & 1) << i)
        })
    }
}

/// Tags of the nodes of a DAG with labelled edges, computed bottom-up
/// (Broder §5.1.2):
///
/// * `Tag(source) = T(f(text))`,
/// * `Tag(parent) = T(f(Label_1 ‖ Tag(child_1) ‖ Label_2 ‖ Tag(child_2) ‖ …))`,
///
/// where `f` is the Rabin fingerprint with the leading 1 and `T` a
/// [`TagPermutation`]. Two nodes get the same tag iff the trees obtained by
/// unfolding the DAG below them are isomorphic (same shape, same edge
/// labels in the same order, same source texts) — up to the collision
/// probability of fingerprints of strings of about `(d + |label|)·fan-out`
/// bits, however large the unfolded trees grow. Broder suggests `d = 96`.
///
/// The strings are unambiguous: a source is the byte `0` then its text; an
/// inner node is the byte `1` then, per edge, the label's length (8 bytes,
/// big-endian), the label and the child's tag in `⌈d/8⌉` big-endian bytes.
#[derive(Clone, Debug)]
pub struct DagTagger {
    modulus: Modulus,
    permutation: TagPermutation,
}

impl DagTagger {
    /// A tagger with the modulus and a permutation drawn from `seed`.
    pub fn new(modulus: Modulus, seed: u64) -> DagTagger {
        let permutation = TagPermutation::new(modulus.degree(), seed)
            .unwrap_or_else(|_| unreachable!("a Modulus degree is always in 1..=128"));
        DagTagger {
            modulus,
            permutation,
        }
    }

    /// The modulus.
    pub fn modulus(&self) -> &Modulus {
        &self.modulus
    }

    /// The tag of a source node with the given text.
    pub fn source(&self, text: &[u8]) -> u128 {
        let fp = self.modulus.fp_bytes(&[0]);
        let fp = self
            .modulus
            .extend_bytes(fp, text)
            .unwrap_or_else(|_| unreachable!("a slice is shorter than 2^61 bytes"));
        self.permutation.apply(self.modulus.prefixed(fp))
    }

    /// The tag of an inner node from its edges, in order: each a label and
    /// the tag of the child the edge leads to.
    pub fn node<L: AsRef<[u8]>>(&self, edges: &[(L, u128)]) -> Result<u128, Error> {
        let m = &self.modulus;
        let tag_bytes = m.degree().div_ceil(8) as usize;
        let mut fp = m.fp_bytes(&[1]);
        for (label, tag) in edges {
            let label = label.as_ref();
            fp = m.extend_bytes(fp, &(label.len() as u64).to_be_bytes())?;
            fp = m.extend_bytes(fp, label)?;
            fp = m.extend_bytes(fp, &tag.to_be_bytes()[16 - tag_bytes..])?;
        }
        Ok(self.permutation.apply(m.prefixed(fp)))
    }
}
