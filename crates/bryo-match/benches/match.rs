//! `match_corpus` on a synthetic corpus shaped like a batch of programs: ~4,000
//! symbols per document drawn from a Zipf-distributed alphabet, half of the
//! "lines" taken from a shared pool of idioms (so many hashes are common and
//! `-m` matters), and a planted copied passage in every tenth document.
//! Fixed seed; 200, 800 and 1,790 documents (the size of the Python
//! standard library).
//!
//! Run: `cargo bench -p bryo-match --bench match -- --warm-up-time 1 --measurement-time 3`

use bryo_engine::{rehash, Config, SplitMix64};
use bryo_match::{match_corpus, Corpus, Document, MatchOptions, SubmissionId};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

const SYMBOLS_PER_DOC: usize = 4_000;
const ALPHABET: usize = 120;
const POOL_LINES: usize = 3_000;

/// Samples `0..weights.len()` by cumulative weights.
fn zipf_sampler(n: usize) -> Vec<f64> {
    let mut cum = Vec::with_capacity(n);
    let mut total = 0.0;
    for r in 1..=n {
        total += 1.0 / r as f64;
        cum.push(total);
    }
    cum.iter().map(|c| c / total).collect()
}

fn sample(cum: &[f64], rng: &mut SplitMix64) -> usize {
    let u = (rng.next() >> 11) as f64 / (1u64 << 53) as f64;
    cum.partition_point(|&c| c < u).min(cum.len() - 1)
}

fn corpus(docs: usize, seed: u64) -> Vec<Vec<u64>> {
    let mut rng = SplitMix64::new(seed);
    let tokens = zipf_sampler(ALPHABET);
    let line = |rng: &mut SplitMix64| -> Vec<u64> {
        let len = 3 + rng.below(10) as usize;
        (0..len)
            .map(|_| rehash(sample(&tokens, rng) as u64 + 1))
            .collect()
    };
    let pool: Vec<Vec<u64>> = (0..POOL_LINES).map(|_| line(&mut rng)).collect();
    let pool_pick = zipf_sampler(POOL_LINES);
    let mut out: Vec<Vec<u64>> = Vec::with_capacity(docs);
    for i in 0..docs {
        let mut d = Vec::with_capacity(SYMBOLS_PER_DOC + 16);
        while d.len() < SYMBOLS_PER_DOC {
            if rng.below(2) == 0 {
                d.extend(&pool[sample(&pool_pick, &mut rng)]);
            } else {
                d.extend(line(&mut rng));
            }
        }
        if i % 10 == 9 {
            let src = &out[rng.below(i as u64) as usize];
            let start = rng.below((src.len() - 400) as u64) as usize;
            let chunk = src[start..start + 400].to_vec();
            let at = rng.below(d.len() as u64) as usize;
            d.splice(at..at, chunk);
        }
        out.push(d);
    }
    out
}

fn bench(c: &mut Criterion) {
    let all = corpus(1_790, 42);
    let mut options = MatchOptions::new(Config::from_thresholds(12, 20).expect("valid"));
    options.max_pairs = 250;
    let mut group = c.benchmark_group("compare");
    group.sample_size(10);
    for n in [200, 800, 1_790] {
        let corpus: Corpus = all[..n]
            .iter()
            .enumerate()
            .map(|(i, d)| Document::new(SubmissionId(i as u32), d))
            .collect();
        let symbols: usize = all[..n].iter().map(Vec::len).sum();
        group.throughput(Throughput::Elements(symbols as u64));
        group.bench_with_input(BenchmarkId::new("n250", n), &corpus, |b, corpus| {
            b.iter(|| match_corpus(corpus, &options).expect("valid"))
        });
    }
    let corpus: Corpus = all
        .iter()
        .enumerate()
        .map(|(i, d)| Document::new(SubmissionId(i as u32), d))
        .collect();
    let mut every = options;
    every.max_pairs = 0;
    group.bench_with_input(
        BenchmarkId::new("all_pairs", 1_790),
        &corpus,
        |b, corpus| b.iter(|| match_corpus(corpus, &every).expect("valid")),
    );
    group.finish();
    let r = match_corpus(&corpus, &every).expect("valid");
    eprintln!("1,790 documents, all pairs: {:?}", r.stats);
}

criterion_group!(benches, bench);
criterion_main!(benches);
