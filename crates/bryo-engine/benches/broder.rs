//! Throughput of whole-string Rabin fingerprints on 16 MB of seeded random
//! bytes: `Modulus::fp_bytes` for degrees 64 (carry-less folding, or
//! slice-by-8 with `BRYO_NO_SIMD=1`), 96 and 128 (one table look-up per
//! byte), `Modulus::fp_symbols` at degree 64 on the same bytes as 2 M
//! symbols, against the rolling hash's `Rabin::hash_bytes` at degree 64.
//!
//! `cargo bench -p bryo-engine --bench broder`

use bryo_engine::{Modulus, Polynomial, Rabin, SplitMix64};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

fn bench(c: &mut Criterion) {
    let n = 16_000_000;
    let mut rng = SplitMix64::new(0x5eed);
    let bytes: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
    let mut g = c.benchmark_group("fingerprint-bytes");
    g.sample_size(10).throughput(Throughput::Bytes(n as u64));
    let rabin = Rabin::new(Polynomial::DEFAULT, 1);
    g.bench_function("rabin-hash-bytes-64", |b| {
        b.iter(|| rabin.hash_bytes(std::hint::black_box(&bytes)))
    });
    for degree in [64, 96, 128] {
        let m = Modulus::random(degree, 1).expect("supported degree");
        g.bench_with_input(BenchmarkId::new("modulus-fp-bytes", degree), &m, |b, m| {
            b.iter(|| m.fp_bytes(std::hint::black_box(&bytes)))
        });
    }
    let symbols: Vec<u64> = bytes
        .chunks_exact(8)
        .map(|c| u64::from_be_bytes(c.try_into().expect("eight bytes")))
        .collect();
    let m = Modulus::random(64, 1).expect("supported degree");
    g.bench_function("modulus-fp-symbols-64", |b| {
        b.iter(|| m.fp_symbols(std::hint::black_box(&symbols)))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
