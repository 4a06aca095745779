//! Broder's collision bound (1993, eq. 7) is tight for an adversary.
//!
//! Two strings collide modulo `P` iff `P` divides `A − B`. If the adversary
//! picks `B = A + Q` with `Q` the product of `r` distinct irreducible
//! polynomials of degree `k` (so `m = deg Q = r·k`), exactly `r` of the `N_k`
//! irreducible polynomials of degree `k` make the pair collide: a random `P`
//! does so with probability `r/N_k = m/(k·N_k) ≈ m/2^k`, the bound itself.
//! For `k = 16`, `k·N_k = 2^16 − 2^8` exactly, which is the denominator of
//! eq. 7 before Broder's `≈`, so the bound is met with equality.
//!
//! Random strings, by contrast, collide at the rate of a random function,
//! `2^−k` per pair, whatever their length.
//!
//! The shares measured over random `P` (drawn by [`Modulus::random`] from
//! fixed seeds) are checked against their expectation `p` within five
//! binomial standard deviations, `5·sqrt(p(1 − p)/T)` for `T` draws: a
//! band a correct implementation leaves with probability of a few in a
//! million (about 2·10^−6 for the smallest case, 49 expected hits), so the
//! fixed seeds are not tuned to pass. The count over *all* degree-16
//! irreducible polynomials is checked exactly.

use std::collections::HashSet;

use bryo_engine::{poly, Modulus, SplitMix64};

/// Degree of the fingerprinting polynomials.
const K: u32 = 16;
/// Irreducible polynomials of degree 16 over GF(2) (OEIS A001037).
const N_K: usize = 4080;

/// Every irreducible polynomial of degree `K`, leading term included.
fn irreducibles() -> Vec<u128> {
    (0..1u128 << K)
        .map(|low| 1u128 << K | low)
        .filter(|&p| poly::is_irreducible(p))
        .collect()
}

/// A polynomial over GF(2) of any degree: bit `i` of the words is the
/// coefficient of `t^i`.
#[derive(Clone, Debug, PartialEq)]
struct BigPoly(Vec<u64>);

impl BigPoly {
    fn one() -> BigPoly {
        BigPoly(vec![1])
    }

    fn random(bits: usize, rng: &mut SplitMix64) -> BigPoly {
        let mut words: Vec<u64> = (0..bits.div_ceil(64)).map(|_| rng.next()).collect();
        if !bits.is_multiple_of(64) {
            if let Some(top) = words.last_mut() {
                *top &= (1u64 << (bits % 64)) - 1;
            }
        }
        BigPoly(words)
    }

    fn degree(&self) -> Option<usize> {
        let i = self.0.iter().rposition(|&w| w != 0)?;
        Some(64 * i + 63 - self.0[i].leading_zeros() as usize)
    }

    fn add(&self, other: &BigPoly) -> BigPoly {
        let n = self.0.len().max(other.0.len());
        let word = |p: &BigPoly, i: usize| p.0.get(i).copied().unwrap_or(0);
        BigPoly((0..n).map(|i| word(self, i) ^ word(other, i)).collect())
    }

    /// The product with a polynomial of degree below 64: shift and add.
    fn mul_small(&self, p: u128) -> BigPoly {
        let mut out = vec![0u64; self.0.len() + 2];
        for s in (0..64).filter(|s| p >> s & 1 == 1) {
            let (words, bits) = (s / 64, s % 64);
            for (i, &w) in self.0.iter().enumerate() {
                out[i + words] ^= w << bits;
                if bits != 0 {
                    out[i + words + 1] ^= w >> (64 - bits);
                }
            }
        }
        BigPoly(out)
    }

    /// The remainder modulo a small polynomial, by long division bit by bit.
    fn rem_small(&self, p: u128) -> u128 {
        let d = poly::degree(p).expect("non-zero modulus");
        let mut r = 0u128;
        for i in (0..64 * self.0.len()).rev() {
            r = r << 1 | u128::from(self.0[i / 64] >> (i % 64) & 1);
            if r >> d & 1 == 1 {
                r ^= p;
            }
        }
        r
    }

    /// The coefficients as `len` bytes, most significant first: the byte
    /// string whose polynomial (eq. 3) this is.
    fn to_bytes(&self, len: usize) -> Vec<u8> {
        (0..len)
            .map(|j| {
                let i = 8 * (len - 1 - j);
                self.0.get(i / 64).map_or(0, |w| (w >> (i % 64)) as u8)
            })
            .collect()
    }
}

/// `n` strings of `m + 1` bits, all of one byte length, whose pairwise
/// differences are chosen by the adversary: `A`, `A + Q_1`, …, `A + Q_(n−1)`
/// with `Q_i` the product of the `i`-th block of `r` irreducibles from
/// `pool` (so `deg Q_i = m = r·K`). Returns the strings and each `Q_i`'s
/// factors.
fn adversarial_set(
    pool: &[u128],
    n: usize,
    r: usize,
    seed: u64,
) -> (Vec<Vec<u8>>, Vec<HashSet<u128>>) {
    let m = r * K as usize;
    let len = (m + 1).div_ceil(8);
    let mut rng = SplitMix64::new(seed);
    let a = BigPoly::random(m, &mut rng);
    let mut strings = vec![a.to_bytes(len)];
    let mut factor_sets = Vec::new();
    for block in pool.chunks(r).take(n - 1) {
        let q = block.iter().fold(BigPoly::one(), |q, &p| q.mul_small(p));
        assert_eq!(q.degree(), Some(m));
        assert!(block.iter().all(|&p| q.rem_small(p) == 0));
        strings.push(a.add(&q).to_bytes(len));
        factor_sets.push(block.iter().copied().collect());
    }
    assert_eq!(strings.len(), n, "pool too small");
    (strings, factor_sets)
}

/// The irreducibles in a seeded random order.
fn shuffled(mut pool: Vec<u128>, seed: u64) -> Vec<u128> {
    let mut rng = SplitMix64::new(seed);
    for i in (1..pool.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        pool.swap(i, j);
    }
    pool
}

fn has_collision(m: &Modulus, strings: &[Vec<u8>]) -> bool {
    let mut seen = HashSet::new();
    !strings.iter().all(|s| seen.insert(m.hash_bytes(s)))
}

fn colliding_pairs(m: &Modulus, strings: &[Vec<u8>]) -> u64 {
    let mut fps: Vec<u128> = strings.iter().map(|s| m.hash_bytes(s)).collect();
    fps.sort_unstable();
    fps.chunk_by(|a, b| a == b)
        .map(|run| (run.len() * (run.len() - 1) / 2) as u64)
        .sum()
}

fn modulus_of(p: u128) -> Modulus {
    Modulus::new(K, p & ((1 << K) - 1)).expect("irreducible by construction")
}

/// Five binomial standard deviations around `p` for `trials` draws.
fn band(p: f64, trials: u64) -> f64 {
    5.0 * (p * (1.0 - p) / trials as f64).sqrt()
}

#[test]
fn there_are_4080_irreducible_polynomials_of_degree_16() {
    let all = irreducibles();
    assert_eq!(all.len(), N_K);
    // Gauss: N_k = (1/k) Σ_{d | k} μ(d) 2^(k/d) = (2^16 − 2^8)/16 for k = 16.
    assert_eq!(K as usize * N_K, (1 << 16) - (1 << 8));
}

#[test]
fn an_adversarial_pair_collides_under_exactly_r_polynomials() {
    let all = irreducibles();
    for (r, seed) in [(10, 1), (100, 2), (1000, 3)] {
        let (pair, factors) = adversarial_set(&shuffled(all.clone(), seed), 2, r, seed);
        let bad: Vec<u128> = all
            .iter()
            .copied()
            .filter(|&p| has_collision(&modulus_of(p), &pair))
            .collect();
        assert_eq!(bad.len(), r, "r = {r}");
        assert!(bad.iter().all(|p| factors[0].contains(p)));
    }
}

#[test]
fn random_polynomials_meet_broders_bound_on_an_adversarial_pair() {
    let all = irreducibles();
    let trials = 20_000u64;
    let cases: Vec<_> = [(10usize, 11u64), (100, 12), (1000, 13)]
        .into_iter()
        .map(|(r, seed)| (r, adversarial_set(&shuffled(all.clone(), seed), 2, r, seed)))
        .collect();
    let mut hits = vec![0u64; cases.len()];
    for seed in 0..trials {
        let m = Modulus::random(K, 160_000 + seed).unwrap();
        let p = 1u128 << K | m.low_bits();
        for ((_, (pair, factors)), hit) in cases.iter().zip(&mut hits) {
            let collides = has_collision(&m, pair);
            // A collision happens exactly when P divides Q = A − B.
            assert_eq!(collides, factors[0].contains(&p));
            *hit += u64::from(collides);
        }
    }
    for ((r, _), &hit) in cases.iter().zip(&hits) {
        let share = hit as f64 / trials as f64;
        let expected = *r as f64 / N_K as f64;
        let m = (*r * K as usize) as f64;
        // Eq. 7 for one pair, deg Q / 2^k, and its exact form before the ≈,
        // m/(2^k − 2^(k/2)): larger by ε = 1/255 for k = 16.
        let bound = m / f64::from(K).exp2();
        let eps = 1.0 / ((1u64 << (K / 2)) - 1) as f64;
        let tol = band(expected, trials);
        assert!(
            (share - expected).abs() <= tol,
            "r = {r}: share {share}, expected {expected} ± {tol}"
        );
        assert!(
            share <= bound * (1.0 + eps) + tol,
            "r = {r}: {share} > {bound}"
        );
        // Tight: the share is the bound, not orders of magnitude below it.
        assert!(share >= bound / 2.0, "r = {r}: {share} far below {bound}");
    }
}

#[test]
fn random_strings_collide_like_a_random_function() {
    // n random strings of m bits: a pair collides with probability
    // (2^(m−k) − 1)/(2^m − 1) ≈ 2^−k, not m/2^k.
    let (n, m_bits, trials) = (512usize, 1600usize, 400u64);
    let mut rng = SplitMix64::new(7);
    let strings: Vec<Vec<u8>> = (0..n)
        .map(|_| BigPoly::random(m_bits, &mut rng).to_bytes(m_bits / 8))
        .collect();
    let total: u64 = (0..trials)
        .map(|seed| colliding_pairs(&Modulus::random(K, 170_000 + seed).unwrap(), &strings))
        .sum();
    // Under one P the pair events are pairwise independent (A − B and A − C
    // are independent and uniform), and nearly so across draws of P, so the
    // binomial standard deviation applies.
    let pair_draws = trials * (n * (n - 1) / 2) as u64;
    let share = total as f64 / pair_draws as f64;
    let expected = f64::from(K).exp2().recip();
    let tol = band(expected, pair_draws);
    assert!(
        (share - expected).abs() <= tol,
        "share {share}, expected {expected} ± {tol}"
    );
    // Orders of magnitude below an adversarial pair's m/2^k at this length.
    assert!(share < m_bits as f64 / f64::from(K).exp2() / 100.0);
}

#[test]
fn an_adversarial_set_of_n_strings_stays_under_the_union_bound() {
    // n strings A, A + Q_1, …, A + Q_(n−1): the pairs (A, A + Q_i) alone
    // make (n − 1)·r polynomials bad; the other pairs differ by Q_i + Q_j,
    // which a degree-16 P divides only by chance. The union bound over the
    // C(n,2) pairs is C(n,2)·m/2^k.
    let all = irreducibles();
    let (n, r) = (8usize, 100usize);
    let (strings, factors) = adversarial_set(&shuffled(all.clone(), 21), n, r, 21);
    let forced: HashSet<u128> = factors.iter().flatten().copied().collect();
    assert_eq!(forced.len(), (n - 1) * r);
    let bad: HashSet<u128> = all
        .iter()
        .copied()
        .filter(|&p| has_collision(&modulus_of(p), &strings))
        .collect();
    assert!(bad.is_superset(&forced));
    // Each pair's difference has degree at most m, so at most r factors of
    // degree 16: the union bound in counts.
    let pairs = n * (n - 1) / 2;
    assert!(bad.len() <= pairs * r);

    let trials = 4_000u64;
    let hits = (0..trials)
        .filter(|seed| has_collision(&Modulus::random(K, 180_000 + seed).unwrap(), &strings))
        .count();
    let share = hits as f64 / trials as f64;
    let expected = bad.len() as f64 / N_K as f64;
    let tol = band(expected, trials);
    assert!(
        (share - expected).abs() <= tol,
        "share {share}, expected {expected} ± {tol}"
    );
    let m = (r * K as usize) as f64;
    let union = pairs as f64 * m / f64::from(K).exp2();
    assert!(share >= (n - 1) as f64 * m / f64::from(K).exp2() - tol);
    assert!(share <= union);
}
