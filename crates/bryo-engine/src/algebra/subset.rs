//! Fingerprints of subsets of a ground set (Broder §5.2, equations 11–12).

use crate::{Error, Modulus, SplitMix64};

/// A numbered ground set `{ω_0, …, ω_(r−1)}` with `t^i mod P` precomputed, for
/// subset fingerprints by equation (12): `f(A) = Σ_{ω_i ∈ A} t^i mod P`.
///
/// This is the cheapest scheme when the ground set is known in advance and
/// its elements are numbered: adding or removing `ω_i` adds `t^i`.
#[derive(Clone, Debug)]
pub struct GroundSet {
    powers: Vec<u128>,
}

/// A subset fingerprint by equation (12). Addition in GF(2) is its own
/// inverse, so adding an element and removing it are the same operation;
/// [`insert`](SubsetSum::insert) expects an element not yet in the set and
/// [`remove`](SubsetSum::remove) one that is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct SubsetSum(u128);

impl GroundSet {
    /// The ground set `{ω_0, …, ω_(r−1)}` modulo `m`.
    pub fn new(m: &Modulus, r: usize) -> GroundSet {
        let mut powers = Vec::with_capacity(r);
        let mut x = m.pow_t(0);
        for _ in 0..r {
            powers.push(x);
            x = m.mul(x, m.pow_t(1));
        }
        GroundSet { powers }
    }

    /// The number of elements `r`.
    pub fn len(&self) -> usize {
        self.powers.len()
    }

    /// Whether the ground set is empty.
    pub fn is_empty(&self) -> bool {
        self.powers.is_empty()
    }

    fn power(&self, i: u64) -> Result<u128, Error> {
        usize::try_from(i)
            .ok()
            .and_then(|j| self.powers.get(j))
            .copied()
            .ok_or(Error::ElementOutOfRange {
                index: i,
                len: self.powers.len() as u64,
            })
    }

    /// The fingerprint of the set of the given element numbers (each listed
    /// once), in any order.
    pub fn subset(&self, elements: impl IntoIterator<Item = u64>) -> Result<SubsetSum, Error> {
        let mut s = SubsetSum::default();
        for i in elements {
            s.insert(self, i)?;
        }
        Ok(s)
    }
}

impl SubsetSum {
    /// The fingerprint of the empty set.
    pub const EMPTY: SubsetSum = SubsetSum(0);

    /// Adds `ω_i` (not already in the set): `f += t^i`, O(1).
    pub fn insert(&mut self, ground: &GroundSet, i: u64) -> Result<(), Error> {
        self.0 ^= ground.power(i)?;
        Ok(())
    }

    /// Removes `ω_i` (in the set): `f −= t^i`, O(1).
    pub fn remove(&mut self, ground: &GroundSet, i: u64) -> Result<(), Error> {
        self.insert(ground, i)
    }

    /// The fingerprint value.
    pub fn value(self) -> u128 {
        self.0
    }
}

/// Per-element polynomials `R(ω)` for subset fingerprints by equation (11),
/// derived from a seed and an element key.
///
/// Broder allows `R_i` to be "just random polynomials of degree k" (the
/// degree of `P`) at a cost of `1/2^k` per pair in the collision bound; the
/// polynomial of a key is drawn from a [`SplitMix64`] stream seeded with the
/// seed and the key, skipping zero (which has no inverse).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ElementPolynomials {
    seed: u64,
}

/// An element's polynomial `R` and its inverse modulo `P`, so that adding
/// and removing the element both cost one multiplication.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Element {
    r: u128,
    inverse: u128,
}

impl Element {
    /// `R mod P`.
    pub fn polynomial(self) -> u128 {
        self.r
    }

    /// `R^(−1) mod P`.
    pub fn inverse(self) -> u128 {
        self.inverse
    }
}

impl ElementPolynomials {
    /// Element polynomials determined by `seed`.
    pub fn new(seed: u64) -> ElementPolynomials {
        ElementPolynomials { seed }
    }

    /// The polynomial of the element with the given key, with its inverse.
    /// The key is folded to 64 bits (two keys share a polynomial with
    /// probability about `2^-64`), which seeds the stream.
    pub fn element(&self, m: &Modulus, key: u128) -> Element {
        self.draws(m, key)
            .find_map(|r| m.inverse(r).map(|inverse| Element { r, inverse }))
            // Never `None`: the draws are endless.
            .unwrap_or(Element { r: 1, inverse: 1 })
    }

    /// The polynomial `R` of the element with the given key: that of
    /// [`element`](Self::element) without its inverse (zero, the one
    /// residue without one, is skipped alike), for a product that only
    /// grows ([`SubsetProduct::of_polynomials`]). An inverse costs about
    /// `d` squarings; this costs none.
    pub fn polynomial(&self, m: &Modulus, key: u128) -> u128 {
        // Never `None`: the draws are endless.
        self.draws(m, key).find(|&r| r != 0).unwrap_or(1)
    }

    /// The residues the polynomial of `key` is drawn from, in order: an
    /// endless stream, of which the first non-zero one is taken.
    fn draws<'m>(&self, m: &'m Modulus, key: u128) -> impl Iterator<Item = u128> + 'm {
        let (lo, hi) = (key as u64, (key >> 64) as u64);
        let mut rng = SplitMix64::new(crate::rehash(lo ^ crate::rehash(hi ^ self.seed)));
        std::iter::repeat_with(move || {
            let bits = (u128::from(rng.next()) << 64) | u128::from(rng.next());
            m.add(bits, 0)
        })
    }
}

/// A fingerprint of a multiset of elements by equation (11):
/// `f(A) = Π_{ω ∈ A} R(ω) mod P`.
///
/// It is order-independent, counts multiplicities, and is updated in O(1):
/// adding `ω` multiplies by `R(ω)`, removing it by `R(ω)^(−1)` (the residues
/// modulo an irreducible `P` form a field). Disjoint unions multiply, and a
/// sub-multiset is taken away by multiplying with its inverse.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SubsetProduct {
    value: u128,
    len: u64,
}

impl SubsetProduct {
    /// The fingerprint of the empty set, `1`.
    pub fn empty(m: &Modulus) -> SubsetProduct {
        SubsetProduct {
            value: m.pow_t(0),
            len: 0,
        }
    }

    /// The fingerprint of a multiset of elements, in any order.
    pub fn of(m: &Modulus, elements: impl IntoIterator<Item = Element>) -> SubsetProduct {
        let mut s = SubsetProduct::empty(m);
        for e in elements {
            s.insert(m, e);
        }
        s
    }

    /// The fingerprint of a multiset given by its elements' polynomials
    /// ([`ElementPolynomials::polynomial`]), in any order: equal to
    /// [`SubsetProduct::of`] the same elements.
    pub fn of_polynomials(
        m: &Modulus,
        polynomials: impl IntoIterator<Item = u128>,
    ) -> SubsetProduct {
        let mut s = SubsetProduct::empty(m);
        for r in polynomials {
            s.value = m.mul(s.value, r);
            s.len += 1;
        }
        s
    }

    /// Adds an element: one multiplication by `R`.
    pub fn insert(&mut self, m: &Modulus, e: Element) {
        self.value = m.mul(self.value, e.r);
        self.len += 1;
    }

    /// Removes an element that is in the multiset: one multiplication by
    /// `R^(−1)`. Returns `false` (and changes nothing) if the multiset is
    /// empty.
    pub fn remove(&mut self, m: &Modulus, e: Element) -> bool {
        if self.len == 0 {
            return false;
        }
        self.value = m.mul(self.value, e.inverse);
        self.len -= 1;
        true
    }

    /// The fingerprint of the union of two disjoint multisets.
    pub fn union(self, m: &Modulus, other: SubsetProduct) -> SubsetProduct {
        SubsetProduct {
            value: m.mul(self.value, other.value),
            len: self.len + other.len,
        }
    }

    /// The fingerprint of `self \ other` for `other` contained in `self`:
    /// `f(A)·f(B)^(−1)`; `None` if `other` has more elements.
    pub fn difference(self, m: &Modulus, other: SubsetProduct) -> Option<SubsetProduct> {
        let len = self.len.checked_sub(other.len)?;
        Some(SubsetProduct {
            value: m.mul(self.value, m.inverse(other.value)?),
            len,
        })
    }

    /// The fingerprint value.
    pub fn value(self) -> u128 {
        self.value
    }

    /// The number of elements (with multiplicity).
    pub fn len(self) -> u64 {
        self.len
    }

    /// Whether the multiset is empty.
    pub fn is_empty(self) -> bool {
        self.len == 0
    }
}
