//! `render_html` on a synthetic report shaped like the Python standard
//! library's: 400 one-file submissions of generated Python (about 1,000
//! lines, 30 kB each), 250 pairs with 12 fragments each, base code in every
//! file. Fixed seed; the text is generated, so nothing is read from disk.
//!
//! Run: `cargo bench -p bryo-html --bench render -- --warm-up-time 1 --measurement-time 3`

use bryo_html::render_html;
use bryo_report::{
    FileEntry, FileStatus, Fragment, Frontend, Location, Options, Pair, Region, Report, Submission,
};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

const SUBMISSIONS: usize = 400;
const LINES: usize = 1_000;
const PAIRS: usize = 250;
const FRAGMENTS: usize = 12;

/// xorshift64*: a fixed, dependency-free generator.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) % n
    }
}

fn program(rng: &mut Rng) -> String {
    const LINES_POOL: [&str; 8] = [
        "    for item in items:\n",
        "        if item.value > limit:  # over the limit\n",
        "            total += item.value * 2\n",
        "    return {'total': total, \"name\": name}\n",
        "def handle(items, limit, name):\n",
        "    \"\"\"Sum the <large> values & report.\"\"\"\n",
        "        else:\n",
        "    result = [x for x in range(10) if x % 3 == 0]\n",
    ];
    (0..LINES)
        .map(|_| LINES_POOL[rng.below(LINES_POOL.len() as u64) as usize])
        .collect()
}

fn setup() -> (Report, Vec<String>) {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let texts: Vec<String> = (0..SUBMISSIONS).map(|_| program(&mut rng)).collect();
    let options = Options {
        language: Some("python".into()),
        k: 12,
        w: 12,
        max_submissions: Some(10),
        max_pairs: PAIRS as u32,
        min_similarity: 0.0,
        min_fragment_symbols: 12,
        merge_gap: 0,
        merge_ratio: None,
        cluster_threshold: 0.5,
        directory_mode: false,
        base: vec!["starter.py".into()],
        old: vec![],
        comment: None,
        score: Default::default(),
        scheme: None,
    };
    let mut report = Report::new("0.1.0", options);
    for (i, text) in texts.iter().enumerate() {
        report.submissions.push(Submission {
            name: format!("subs/s{i}.py"),
            old: false,
            files: vec![FileEntry {
                path: format!("subs/s{i}.py"),
                language: "python".into(),
                frontend: Frontend::Lexer,
                symbols: 10 * LINES as u64,
                lines: LINES as u64,
                status: FileStatus::Ok,
                encoding: "UTF-8".into(),
                notes: vec![],
                raw_fingerprint: None,
                normalized_fingerprint: None,
                base_code: vec![Region {
                    lines: [1, 5],
                    bytes: [0, text.lines().take(5).map(|l| l.len() as u64 + 1).sum()],
                }],
            }],
        });
    }
    // Fragments: line-aligned byte ranges, disjoint on each side.
    let line_starts: Vec<Vec<u64>> = texts
        .iter()
        .map(|t| {
            let mut starts = vec![0u64];
            starts.extend(t.match_indices('\n').map(|(i, _)| i as u64 + 1));
            starts
        })
        .collect();
    let side = |sub: usize, slot: usize, rng: &mut Rng| {
        let span = LINES / FRAGMENTS;
        let first = 5 + slot * span + rng.below(span as u64 / 2) as usize;
        let last = (first + 3 + rng.below(span as u64 / 3) as usize).min(LINES - 1);
        Location {
            file: format!("subs/s{sub}.py"),
            lines: [first as u64 + 1, last as u64 + 1],
            bytes: [line_starts[sub][first], line_starts[sub][last + 1] - 1],
        }
    };
    for _ in 0..PAIRS {
        let a = rng.below(SUBMISSIONS as u64) as usize;
        let b = (a + 1 + rng.below(SUBMISSIONS as u64 - 1) as usize) % SUBMISSIONS;
        let fragments = (0..FRAGMENTS)
            .map(|slot| Fragment {
                a: side(a, slot, &mut rng),
                b: side(b, FRAGMENTS - 1 - slot, &mut rng),
                symbols: 40,
                parts: vec![],
            })
            .collect();
        report.pairs.push(Pair {
            a: a.min(b),
            b: a.max(b),
            similarity: 0.3,
            a_percent: 30.0,
            b_percent: 30.0,
            a_lines_matched: 100,
            b_lines_matched: 100,
            lines_matched: 100,
            longest_fragment: 40,
            shared_fingerprints: 20,
            identical: false,
            fragments,
        });
    }
    (report, texts)
}

fn bench(c: &mut Criterion) {
    let (report, texts) = setup();
    let loader = |path: &str| -> Result<Vec<u8>, String> {
        let i: usize = path
            .trim_start_matches("subs/s")
            .trim_end_matches(".py")
            .parse()
            .map_err(|_| format!("unknown file {path}"))?;
        Ok(texts[i].as_bytes().to_vec())
    };
    let files = render_html(&report, &loader);
    let shown: u64 = files
        .iter()
        .filter(|f| f.name.starts_with("files/"))
        .map(|f| f.contents.len() as u64)
        .sum();
    let mut group = c.benchmark_group("render_html");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(shown));
    group.bench_function("250 pairs, 400 files of 1,000 lines", |b| {
        b.iter(|| render_html(&report, &loader))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
