//! Throughput of hashing + selection per CPU second of the benchmark thread.
//!
//! On a shared machine wall-clock time mostly measures the other jobs; the
//! time the thread itself spent on a CPU (`/proc/thread-self/schedstat`,
//! Linux only) does not. Best of `REPS` runs over `MB` megabytes of random
//! bytes (SplitMix64, seed 0x5eed, as in the criterion bench), k = 50 and
//! window `W` (default 100):
//!
//! ```text
//! cargo run --release -p bryo-engine --example cpu_time [FILTER]
//! MB=128 REPS=5 W=1000 cargo run --release -p bryo-engine --example cpu_time kr-bytes
//! ```

use std::time::Instant;

use bryo_engine::{Config, Fingerprinter, HashFunction, Selection, SplitMix64};

/// CPU seconds the calling thread has run, or `None` off Linux.
fn thread_cpu_seconds() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: f64 = s.split_whitespace().next()?.parse().ok()?;
    Some(ns / 1e9)
}

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

fn main() -> Result<(), bryo_engine::Error> {
    let n = env("MB", 256) * 1_000_000;
    let reps = env("REPS", 5).max(1);
    let filter = std::env::args().nth(1).unwrap_or_default();
    let mut rng = SplitMix64::new(0x5eed);
    let mut bytes = Vec::with_capacity(n + 8);
    while bytes.len() < n {
        bytes.extend_from_slice(&rng.next().to_le_bytes());
    }
    bytes.truncate(n);
    let symbols: Vec<u64> = bytes
        .chunks_exact(8)
        .map(|c| c.iter().rev().fold(0, |acc, &b| acc << 8 | u64::from(b)))
        .collect();
    let config = Config::new(50, env("W", 100))?;
    let cases = [
        (
            "kr-bytes",
            HashFunction::KarpRabin,
            Selection::Winnow,
            false,
        ),
        (
            "rabin-bytes",
            HashFunction::RABIN_DEFAULT,
            Selection::Winnow,
            false,
        ),
        (
            "kr-scalar-bytes",
            HashFunction::KarpRabin,
            Selection::Winnow,
            false,
        ),
        (
            "kr-robust-bytes",
            HashFunction::KarpRabin,
            Selection::RobustWinnow,
            false,
        ),
        (
            "kr-symbols",
            HashFunction::KarpRabin,
            Selection::Winnow,
            true,
        ),
        (
            "kr-scalar-symbols",
            HashFunction::KarpRabin,
            Selection::Winnow,
            true,
        ),
        (
            "rabin-symbols",
            HashFunction::RABIN_DEFAULT,
            Selection::Winnow,
            true,
        ),
    ];
    for (name, function, selection, on_symbols) in cases {
        if !name.contains(filter.as_str()) {
            continue;
        }
        // `kr-scalar-*`: the same work as `kr-*` without explicit SIMD.
        let mut f =
            Fingerprinter::new(config, function, selection)?.with_simd(!name.contains("scalar"));
        let mut out = Vec::new();
        let (mut cpu, mut wall) = (f64::MAX, f64::MAX);
        for _ in 0..reps {
            let (c0, t0) = (thread_cpu_seconds(), Instant::now());
            if on_symbols {
                f.fingerprint_symbols_into(&symbols, &mut out)?;
            } else {
                f.fingerprint_bytes_into(&bytes, &mut out)?;
            }
            wall = wall.min(t0.elapsed().as_secs_f64());
            if let (Some(a), Some(b)) = (c0, thread_cpu_seconds()) {
                cpu = cpu.min(b - a);
            }
        }
        println!(
            "{name:16} {:6.3} GB/s per CPU second  {:6.3} GB/s wall  {} fingerprints",
            n as f64 / cpu / 1e9,
            n as f64 / wall / 1e9,
            out.len()
        );
    }
    Ok(())
}
