//! Collision rate of 32-bit Rabin fingerprints on random strings, against
//! the random-function expectation and Broder's bound (eq. 7).
//!
//! For `n` distinct random strings of `m` bits, counts the pairs with equal
//! fingerprints (a) modulo random irreducible polynomials of degree 32 and
//! (b) modulo bryo's degree-64 polynomial, truncated to its low 32 bits.
//!
//! ```text
//! cargo run --release -p bryo-engine --example collisions [-- N_LOG2 TRIALS]
//! ```

use bryo_engine::{Modulus, SplitMix64};

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
    let mut args = std::env::args().skip(1);
    let n_log2: u32 = args.next().and_then(|a| a.parse().ok()).unwrap_or(18);
    let trials: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(10);
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
