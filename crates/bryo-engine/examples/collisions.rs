//! Collision rates of Rabin fingerprints against Broder's bound (eq. 7).
//!
//! Two parts:
//!
//! * `bound [TRIALS]` — the adversarial case where the bound is tight, at
//!   degree k = 16. The adversary picks `B = A + Q` with `Q` the product of
//!   `r` distinct irreducible polynomials of degree 16 (`m = deg Q = 16r`);
//!   `P` is then drawn at random (`Modulus::random(16, seed)`) and the share
//!   of draws with `f_P(A) = f_P(B)` is measured. It is `r/N_16 =
//!   m/(2^16 − 2^8)`, Broder's bound before his `≈`. Also: random strings
//!   for contrast (a pair collides with probability 2^−16), and sets of `n`
//!   strings `A, A + Q_1, …, A + Q_(n−1)` against the union bound over pairs.
//! * `random [N_LOG2 TRIALS]` (or just `N_LOG2 TRIALS`) — `n` distinct random
//!   256-bit strings, pairs with equal fingerprints (a) modulo random
//!   irreducible polynomials of degree 32 and (b) modulo random degree-64
//!   polynomials truncated to their low 32 bits.
//!
//! Without arguments, both run with their defaults.
//!
//! ```text
//! cargo run --release -p bryo-engine --example collisions [-- bound [TRIALS]]
//! cargo run --release -p bryo-engine --example collisions [-- random [N_LOG2 TRIALS]]
//! ```

use std::collections::HashSet;

use bryo_engine::{poly, Modulus, SplitMix64};

/// Pairs of equal values.
fn colliding_pairs(mut values: Vec<u32>) -> u64 {
    values.sort_unstable();
    let mut pairs = 0u64;
    let mut i = 0;
    while i < values.len() {
        let run = values[i..].iter().take_while(|&&v| v == values[i]).count() as u64;
        pairs += run * (run - 1) / 2;
        i += run as usize;
    }
    pairs
}

fn strings(n: usize, bytes: usize, seed: u64) -> Vec<Vec<u8>> {
    let mut rng = SplitMix64::new(seed);
    (0..n)
        .map(|_| (0..bytes).map(|_| rng.next() as u8).collect())
        .collect()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let num = |i: usize, default: u64| -> u64 {
        args.get(i).and_then(|a| a.parse().ok()).unwrap_or(default)
    };
    match args.first().map(String::as_str) {
        Some("bound") => bound(num(1, 200_000)),
        Some("random") => random(num(1, 18) as u32, num(2, 10)),
        Some(_) => random(num(0, 18) as u32, num(1, 10)),
        None => {
            bound(200_000);
            println!();
            random(18, 10);
        }
    }
}

/// Degree of the polynomials in the adversarial experiment.
const K: u32 = 16;

/// Every irreducible polynomial of degree `K`, leading term included.
fn irreducibles() -> Vec<u128> {
    (0..1u128 << K)
        .map(|low| 1u128 << K | low)
        .filter(|&p| poly::is_irreducible(p))
        .collect()
}

/// A polynomial over GF(2) of any degree: bit `i` of the words is the
/// coefficient of `t^i`.
struct BigPoly(Vec<u64>);

impl BigPoly {
    fn random(bits: usize, rng: &mut SplitMix64) -> BigPoly {
        let mut words: Vec<u64> = (0..bits.div_ceil(64)).map(|_| rng.next()).collect();
        if !bits.is_multiple_of(64) {
            if let Some(top) = words.last_mut() {
                *top &= (1u64 << (bits % 64)) - 1;
            }
        }
        BigPoly(words)
    }

    fn add(&self, other: &BigPoly) -> BigPoly {
        let n = self.0.len().max(other.0.len());
        let word = |p: &BigPoly, i: usize| p.0.get(i).copied().unwrap_or(0);
        BigPoly((0..n).map(|i| word(self, i) ^ word(other, i)).collect())
    }

    /// The product with a polynomial of degree below 64.
    fn mul_small(&self, p: u128) -> BigPoly {
        let mut out = vec![0u64; self.0.len() + 2];
        for s in (0..64).filter(|s| p >> s & 1 == 1) {
            for (i, &w) in self.0.iter().enumerate() {
                out[i] ^= w << s;
                if s != 0 {
                    out[i + 1] ^= w >> (64 - s);
                }
            }
        }
        BigPoly(out)
    }

    /// The coefficients as `len` bytes, most significant first.
    fn to_bytes(&self, len: usize) -> Vec<u8> {
        (0..len)
            .map(|j| {
                let i = 8 * (len - 1 - j);
                self.0.get(i / 64).map_or(0, |w| (w >> (i % 64)) as u8)
            })
            .collect()
    }
}

/// `A, A + Q_1, …, A + Q_(n−1)`, each `Q_i` the product of the `i`-th block
/// of `r` polynomials of `pool`; all strings have one byte length.
fn adversarial_set(pool: &[u128], n: usize, r: usize, seed: u64) -> Vec<Vec<u8>> {
    let m = r * K as usize;
    let len = (m + 1).div_ceil(8);
    let mut rng = SplitMix64::new(seed);
    let a = BigPoly::random(m, &mut rng);
    let mut strings = vec![a.to_bytes(len)];
    for block in pool.chunks(r).take(n - 1) {
        let q = block.iter().fold(BigPoly(vec![1]), |q, &p| q.mul_small(p));
        strings.push(a.add(&q).to_bytes(len));
    }
    strings
}

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

/// One row of the table: what was fingerprinted and how often it collided.
struct Row {
    case: &'static str,
    r: Option<usize>,
    n: usize,
    m: usize,
    trials: u64,
    hits: u64,
    /// The exact probability over a uniformly random `P`.
    exact: f64,
}

fn print_row(row: &Row) {
    let two_k = f64::from(K).exp2();
    let m = row.m as f64;
    let n = row.n as f64;
    let share = row.hits as f64 / row.trials as f64;
    let sd = (share * (1.0 - share) / row.trials as f64).sqrt();
    let r = row.r.map_or("-".to_string(), |r| r.to_string());
    println!(
        "| {} | {K} | {r} | {} | {} | {} | {share:.3e} ± {sd:.1e} | {:.3e} | {:.3e} | {:.3e} | {:.3e} |",
        row.case,
        row.n,
        row.m,
        row.trials,
        row.exact,
        m / two_k,
        n * (n - 1.0) / 2.0 * m / two_k,
        n * m * m / two_k,
    );
}

/// The adversarial experiment at degree 16.
fn bound(trials: u64) {
    let all = irreducibles();
    let n_k = all.len();
    println!(
        "k = {K}: {n_k} irreducible polynomials (k·N_k = {})",
        K as usize * n_k
    );
    println!(
        "P drawn {trials} times by Modulus::random({K}, seed); share of draws with a collision."
    );
    println!();
    println!("| case | k | r | n | m | trials | measured share ± sd | exact over all P | m/2^k | C(n,2)·m/2^k | n·m²/2^k (eq. 7 as printed) |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    let mut rows = Vec::new();
    let pairs: Vec<(usize, Vec<Vec<u8>>)> = [(10usize, 1u64), (100, 2), (1000, 3)]
        .into_iter()
        .map(|(r, seed)| (r, adversarial_set(&shuffled(all.clone(), seed), 2, r, seed)))
        .collect();
    let (n_set, r_set) = (8usize, 100usize);
    let set = adversarial_set(&shuffled(all.clone(), 21), n_set, r_set, 21);
    let mut rng = SplitMix64::new(7);
    let m_rand = 1600;
    let n_random_set = 64;
    let random_set: Vec<Vec<u8>> = (0..n_random_set)
        .map(|_| BigPoly::random(m_rand, &mut rng).to_bytes(m_rand / 8))
        .collect();
    // Exact shares: count the bad polynomials among all N_k.
    let exact_share = |strings: &[Vec<u8>]| -> f64 {
        let bad = all
            .iter()
            .filter(|&&p| {
                let m = Modulus::new(K, p & ((1 << K) - 1)).expect("irreducible");
                has_collision(&m, strings)
            })
            .count();
        bad as f64 / n_k as f64
    };
    let mut hits = vec![0u64; pairs.len() + 2];
    for seed in 0..trials {
        let m = Modulus::random(K, 160_000 + seed).expect("degree 16 is supported");
        for (hit, (_, pair)) in hits.iter_mut().zip(&pairs) {
            *hit += u64::from(has_collision(&m, pair));
        }
        hits[pairs.len()] += u64::from(has_collision(&m, &set));
        hits[pairs.len() + 1] += u64::from(has_collision(&m, &random_set));
    }
    for ((r, pair), &hit) in pairs.iter().zip(&hits) {
        rows.push(Row {
            case: "adversarial pair",
            r: Some(*r),
            n: 2,
            m: r * K as usize,
            trials,
            hits: hit,
            exact: exact_share(pair),
        });
    }
    rows.push(Row {
        case: "adversarial set",
        r: Some(r_set),
        n: n_set,
        m: r_set * K as usize,
        trials,
        hits: hits[pairs.len()],
        exact: exact_share(&set),
    });
    rows.push(Row {
        case: "random set",
        r: None,
        n: n_random_set,
        m: m_rand,
        trials,
        hits: hits[pairs.len() + 1],
        exact: exact_share(&random_set),
    });
    // Random pairs: many strings, every pair counted, fewer draws of P.
    let (n_pairs, p_draws) = (512usize, trials / 100);
    let strings: Vec<Vec<u8>> = (0..n_pairs)
        .map(|_| BigPoly::random(m_rand, &mut rng).to_bytes(m_rand / 8))
        .collect();
    let total: u64 = (0..p_draws)
        .map(|seed| {
            let m = Modulus::random(K, 170_000 + seed).expect("degree 16 is supported");
            colliding_pairs(strings.iter().map(|s| m.hash_bytes(s) as u32).collect())
        })
        .sum();
    rows.push(Row {
        case: "random pairs (per pair)",
        r: None,
        n: 2,
        m: m_rand,
        trials: p_draws * (n_pairs * (n_pairs - 1) / 2) as u64,
        hits: total,
        exact: f64::from(K).exp2().recip(),
    });
    for row in &rows {
        print_row(row);
    }
    println!();
    println!("exact over all P: adversarial pair r/N_k; adversarial and random set: bad P counted");
    println!("over all N_k; random pairs: 2^-k, the probability for a random difference.");
}

/// 32-bit fingerprints of random 256-bit strings.
fn random(n_log2: u32, trials: u64) {
    let n = 1usize << n_log2;
    let m_bytes: usize = 32;
    let m_bits = (8 * m_bytes) as f64;
    let pairs = n as f64 * (n as f64 - 1.0) / 2.0;
    let k = 32.0f64;
    let expected = pairs / k.exp2();
    // Eq. (7): P(some collision) <= deg Q / 2^k, deg Q <= n * sum |A| = n^2 m
    // (per pair: at most m/k factors of degree k among ~2^k/k candidates,
    // so at most m / 2^k).
    let bound = pairs * m_bits / k.exp2();
    println!(
        "n = 2^{n_log2} random strings of m = {} bits; {} trials",
        m_bits, trials
    );
    println!("expected colliding pairs, random 32-bit function: C(n,2)/2^32 = {expected:.2}");
    println!("Broder's bound on expected colliding pairs, C(n,2)*m/2^32 = {bound:.0}");
    let (mut total32, mut total64) = (0u64, 0u64);
    for trial in 0..trials {
        let set = strings(n, m_bytes, 1000 + trial);
        let p32 = Modulus::random(32, 32_000 + trial).expect("degree 32 is supported");
        let c32 = colliding_pairs(set.iter().map(|s| p32.hash_bytes(s) as u32).collect());
        let p64 = Modulus::random(64, 64_000 + trial).expect("degree 64 is supported");
        let c64 = colliding_pairs(set.iter().map(|s| p64.hash_bytes(s) as u32).collect());
        println!(
            "trial {trial}: degree-32 P: {c32:>4} pairs   degree-64 P, low 32 bits: {c64:>4} pairs"
        );
        total32 += c32;
        total64 += c64;
    }
    let t = trials as f64;
    println!(
        "mean: degree 32: {:.2}  truncated degree 64: {:.2}  (expected {expected:.2}, bound {bound:.0})",
        total32 as f64 / t,
        total64 as f64 / t
    );
}
