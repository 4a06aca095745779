//! Counting hash frequencies: all in memory against spilling sorted runs.
//!
//! Input: 4 million hashes with a skewed frequency distribution (hash
//! `floor(u^3 · 2^21)` for uniform `u` from a fixed seed, so small values
//! recur often, as k-grams of boilerplate do on the web).

use bryo_engine::{rehash, SplitMix64};
use bryo_stats::{summarize, HashCounter};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

fn hashes() -> Vec<u64> {
    let mut rng = SplitMix64::new(42);
    (0..4_000_000)
        .map(|_| {
            let u = (rng.next() >> 11) as f64 / (1u64 << 53) as f64;
            rehash((u * u * u * f64::from(1u32 << 21)) as u64)
        })
        .collect()
}

fn count(c: &mut Criterion) {
    let input = hashes();
    let dir = tempfile::tempdir().expect("temporary folder");
    let mut g = c.benchmark_group("count");
    g.throughput(Throughput::Elements(input.len() as u64));
    g.sample_size(10);
    for (name, budget) in [("in_memory", 1 << 24), ("spill_64k", 1 << 16)] {
        g.bench_function(name, |b| {
            b.iter(|| {
                let mut counter = HashCounter::new(budget, dir.path()).expect("budget");
                counter.add_all(&input).expect("count");
                summarize(vec![counter], 20)
                    .expect("merge")
                    .table
                    .distinct()
            })
        });
    }
    g.finish();
}

criterion_group!(benches, count);
criterion_main!(benches);
