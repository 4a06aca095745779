use bryo_engine::*;
use std::time::Instant;
fn main() {
    let which: String = std::env::args().nth(1).unwrap_or_default();
    let n: usize = std::env::var("N").ok().and_then(|s| s.parse().ok()).unwrap_or(64_000_000);
    let mut rng = SplitMix64::new(1);
    let mut bytes = vec![0u8; n];
    for c in bytes.chunks_mut(8) { let v = rng.next().to_le_bytes(); c.copy_from_slice(&v[..c.len()]); }
    let config = Config::new(50, 100).unwrap();
    for f in [HashFunction::KarpRabin, HashFunction::RABIN_DEFAULT] {
        if !which.is_empty() && !f.to_string().starts_with(&which) { continue; }
        let h = Hasher::new(f, &config);
        let mut out = Vec::new();
        for _ in 0..2 {
        let t = Instant::now();
        let mut s = 0u64;
        for c in bytes.chunks(16 * 1024 + 49) { h.hash_bytes(c, &mut out); s = s.wrapping_add(out[0]); }
        let e = t.elapsed().as_secs_f64();
        println!("{f} hash-only chunked: {:.0} MB/s ({s})", n as f64 / e / 1e6);
        }
        let only = std::env::args().nth(2).unwrap_or_default();
        for sel in [Selection::Winnow, Selection::RobustWinnow, Selection::ModP{p:50}] {
            if !only.is_empty() && sel.to_string() != only { continue; }
            let mut fp = Fingerprinter::new(config, f, sel).unwrap();
            let mut out = Vec::new();
            for _ in 0..2 {
            let t = Instant::now();
            fp.fingerprint_bytes(&bytes, &mut out).unwrap();
            let e = t.elapsed().as_secs_f64();
            println!("{f} {sel}: {:.0} MB/s ({} fps)", n as f64 / e / 1e6, out.len());
            }
        }
    }
}
