//! Throughput of hashing + winnowing (k = 50, w = 100), the paper's setting.
//!
//! `cargo bench -p bryo-engine --bench engine`; set `BRYO_BENCH_MB` to change
//! the input size (default 256 MB, as in BENCHMARKS.md).

use bryo_engine::{Config, Fingerprinter, HashFunction, Hasher, Selection, SplitMix64};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

fn input_bytes() -> usize {
    std::env::var("BRYO_BENCH_MB")
        .ok()
        .and_then(|s| s.parse::<usize>().ok())
        .unwrap_or(256)
        * 1_000_000
}

fn random_bytes(n: usize) -> Vec<u8> {
    let mut rng = SplitMix64::new(0x5eed);
    let mut out = Vec::with_capacity(n + 8);
    while out.len() < n {
        out.extend_from_slice(&rng.next().to_le_bytes());
    }
    out.truncate(n);
    out
}

fn bench(c: &mut Criterion) {
    let n = input_bytes();
    let bytes = random_bytes(n);
    let config = Config::new(50, 100).unwrap();
    let functions = [
        ("karp-rabin", HashFunction::KarpRabin),
        ("rabin", HashFunction::RABIN_DEFAULT),
    ];

    let mut g = c.benchmark_group("winnow-bytes");
    g.sample_size(10).throughput(Throughput::Bytes(n as u64));
    for (name, function) in functions {
        let mut f = Fingerprinter::new(config, function, Selection::Winnow).unwrap();
        let mut out = Vec::new();
        g.bench_function(BenchmarkId::from_parameter(name), |b| {
            b.iter(|| {
                f.fingerprint_bytes_into(&bytes, &mut out).unwrap();
                out.len()
            })
        });
    }
    let mut f =
        Fingerprinter::new(config, HashFunction::KarpRabin, Selection::RobustWinnow).unwrap();
    let mut out = Vec::new();
    g.bench_function(BenchmarkId::from_parameter("karp-rabin-robust"), |b| {
        b.iter(|| {
            f.fingerprint_bytes_into(&bytes, &mut out).unwrap();
            out.len()
        })
    });
    g.finish();

    // The same work two ways in one run: the fused lanes that
    // `fingerprint_bytes_into` uses for plain winnowing, and the general
    // pipeline (hash a 16 Ki chunk into a buffer, then select from it) that
    // the lazy iterator uses; the ratio is what the fused path gains.
    let mut g = c.benchmark_group("winnow-bytes-paths");
    g.sample_size(10).throughput(Throughput::Bytes(n as u64));
    let mut f = Fingerprinter::new(config, HashFunction::KarpRabin, Selection::Winnow).unwrap();
    let mut out = Vec::new();
    g.bench_function(BenchmarkId::from_parameter("fused"), |b| {
        b.iter(|| {
            f.fingerprint_bytes_into(&bytes, &mut out).unwrap();
            out.len()
        })
    });
    g.bench_function(BenchmarkId::from_parameter("chunked"), |b| {
        b.iter(|| {
            out.clear();
            out.extend(f.iter_bytes(&bytes).unwrap());
            out.len()
        })
    });
    g.finish();

    // The fused path with and without explicit SIMD (eight lanes in AVX-512
    // vectors where the processor has it), in one run.
    let mut g = c.benchmark_group("winnow-bytes-simd");
    g.sample_size(10).throughput(Throughput::Bytes(n as u64));
    let mut f = Fingerprinter::new(config, HashFunction::KarpRabin, Selection::Winnow).unwrap();
    let simd = if f.uses_simd() {
        "simd"
    } else {
        "simd-unavailable"
    };
    g.bench_function(BenchmarkId::from_parameter(simd), |b| {
        b.iter(|| {
            f.fingerprint_bytes_into(&bytes, &mut out).unwrap();
            out.len()
        })
    });
    let mut f = f.with_simd(false);
    g.bench_function(BenchmarkId::from_parameter("scalar"), |b| {
        b.iter(|| {
            f.fingerprint_bytes_into(&bytes, &mut out).unwrap();
            out.len()
        })
    });
    g.finish();

    // The u64-symbol path, over the same number of input bytes (n / 8 symbols).
    let symbols: Vec<u64> = bytes
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let mut g = c.benchmark_group("winnow-symbols");
    g.sample_size(10)
        .throughput(Throughput::Elements(symbols.len() as u64));
    for (name, function) in functions {
        let mut f = Fingerprinter::new(config, function, Selection::Winnow).unwrap();
        let mut out = Vec::new();
        g.bench_function(BenchmarkId::from_parameter(name), |b| {
            b.iter(|| {
                f.fingerprint_symbols_into(&symbols, &mut out).unwrap();
                out.len()
            })
        });
    }
    g.finish();

    // The symbol path with and without explicit SIMD, in one run.
    let mut g = c.benchmark_group("winnow-symbols-simd");
    g.sample_size(10)
        .throughput(Throughput::Elements(symbols.len() as u64));
    let mut f = Fingerprinter::new(config, HashFunction::KarpRabin, Selection::Winnow).unwrap();
    let simd = if f.uses_simd() {
        "simd"
    } else {
        "simd-unavailable"
    };
    g.bench_function(BenchmarkId::from_parameter(simd), |b| {
        b.iter(|| {
            f.fingerprint_symbols_into(&symbols, &mut out).unwrap();
            out.len()
        })
    });
    let mut f = f.with_simd(false);
    g.bench_function(BenchmarkId::from_parameter("scalar"), |b| {
        b.iter(|| {
            f.fingerprint_symbols_into(&symbols, &mut out).unwrap();
            out.len()
        })
    });
    g.finish();

    // Hashing alone (into a reused 16 Ki-hash buffer, as the fingerprinter
    // does), to show what selection costs on top.
    let mut g = c.benchmark_group("hash-bytes");
    g.sample_size(10).throughput(Throughput::Bytes(n as u64));
    let mut hashes = vec![0u64; 16 * 1024];
    for (name, function) in functions {
        let h = Hasher::new(function, &config);
        let total = h.kgram_count(bytes.len());
        g.bench_function(BenchmarkId::from_parameter(name), |b| {
            b.iter(|| {
                let mut first = 0;
                let mut acc = 0u64;
                while first < total {
                    let m = hashes.len().min(total - first);
                    h.hash_bytes_range(&bytes, first, &mut hashes[..m]).unwrap();
                    acc = acc.wrapping_add(hashes[0]);
                    first += m;
                }
                acc
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
