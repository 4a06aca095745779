//! `bryo density` and `bryo rank` on generated corpora with known answers:
//! every reported figure is checked against a naive reference.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use bryo_engine::{Config, HashFunction, Hasher};
use serde_json::Value;

mod support;
use support::{bryo, json, json_bytes};

/// Lowercase letters from a fixed-seed xorshift generator.
fn letters(seed: u64, n: usize) -> Vec<u8> {
    let mut x = seed.max(1);
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            b'a' + (x % 26) as u8
        })
        .collect()
}

// ---- naive references -------------------------------------------------------

/// Winnowing (Definition 1) or robust winnowing (Definition 3), one window
/// at a time: the positions selected, in order.
fn naive_winnow(h: &[u64], w: usize, robust: bool) -> Vec<usize> {
    let mut picked: Vec<usize> = Vec::new();
    if h.is_empty() {
        return picked;
    }
    let windows = if h.len() >= w { h.len() - w + 1 } else { 1 };
    for i in 0..windows {
        let win = i..(i + w).min(h.len());
        let min = h[win.clone()].iter().copied().min().unwrap();
        let last = picked.last().copied();
        let keep = robust && last.is_some_and(|p| win.contains(&p) && h[p] == min);
        let pos = if keep {
            last.unwrap()
        } else {
            win.clone().rev().find(|&j| h[j] == min).unwrap()
        };
        if last != Some(pos) {
            picked.push(pos);
        }
    }
    picked
}

fn naive_mod_p(h: &[u64], p: u64) -> Vec<usize> {
    (0..h.len()).filter(|&i| h[i].is_multiple_of(p)).collect()
}

/// Safe 0 mod p as the engine defines it: a hash 0 mod p is taken; after
/// `w` hashes in a row that are not, every further one is taken too.
fn naive_safe_mod_p(h: &[u64], p: u64, w: usize) -> Vec<usize> {
    let mut run = 0;
    let mut out = Vec::new();
    for (i, &x) in h.iter().enumerate() {
        if x.is_multiple_of(p) {
            run = 0;
            out.push(i);
        } else {
            run += 1;
            if run >= w {
                out.push(i);
            }
        }
    }
    out
}

/// The longest run of symbols in which no selected k-gram lies wholly.
fn naive_longest_gap(picked: &[usize], n: usize, k: usize) -> usize {
    let mut covered_starts = vec![false; n];
    for &p in picked {
        covered_starts[p] = true;
    }
    // A run [a, b) is free when no selected start s has a <= s and s + k <= b.
    let mut best = 0;
    for a in 0..=n {
        let next = (a..n).find(|&s| covered_starts[s]);
        let end = match next {
            Some(s) => s + k - 1, // the run may not contain all of k-gram s
            None => n,
        };
        best = best.max(end.min(n) - a);
    }
    best
}

struct Expected {
    doc_hashes: Vec<usize>,
    fingerprints: [usize; 4],
    gaps: [usize; 4],
}

fn expected(docs: &[Vec<u64>], symbols: &[usize], k: usize, w: usize, p: u64) -> Expected {
    let mut e = Expected {
        doc_hashes: docs.iter().map(Vec::len).collect(),
        fingerprints: [0; 4],
        gaps: [0; 4],
    };
    for (h, &n) in docs.iter().zip(symbols) {
        let picks = [
            naive_winnow(h, w, false),
            naive_winnow(h, w, true),
            naive_mod_p(h, p),
            naive_safe_mod_p(h, p, w),
        ];
        for (i, picked) in picks.iter().enumerate() {
            e.fingerprints[i] += picked.len();
            e.gaps[i] = e.gaps[i].max(naive_longest_gap(picked, n, k));
        }
    }
    e
}

fn check_density(v: &Value, e: &Expected, hashes: usize, w: usize, p: u64) {
    assert_eq!(v["hashes"], hashes as u64);
    for (i, key) in ["winnow", "robust_winnow", "mod_p", "safe_mod_p"]
        .into_iter()
        .enumerate()
    {
        let s = &v[key];
        assert_eq!(s["fingerprints"], e.fingerprints[i] as u64, "{key}");
        assert_eq!(
            s["density"].as_f64().unwrap(),
            e.fingerprints[i] as f64 / hashes as f64,
            "{key}"
        );
        assert_eq!(s["longest_gap"], e.gaps[i] as u64, "{key}");
    }
    let exp = |key: &str| v[key]["expected_density"].as_f64().unwrap();
    // Random text cut at these lengths: one fingerprint for each document's
    // first window, then 2/(w+1) per further hash.
    let docs_with_hashes = e.doc_hashes.iter().filter(|&&n| n > 0).count() as f64;
    let past: usize = e.doc_hashes.iter().map(|&n| n.saturating_sub(w)).sum();
    let for_lengths = (docs_with_hashes + 2.0 / (w as f64 + 1.0) * past as f64) / hashes as f64;
    for key in ["winnow", "robust_winnow"] {
        assert_eq!(
            v[key]["expected_density_for_lengths"].as_f64().unwrap(),
            for_lengths
        );
    }
    assert_eq!(exp("winnow"), 2.0 / (w as f64 + 1.0));
    assert_eq!(exp("mod_p"), 1.0 / p as f64);
    assert_eq!(v["mod_p"]["p"], p);
}

// ---- density -----------------------------------------------------------------

/// Random text with a planted run of 3,000 zeros, split over files, read
/// raw: every figure equals the naive reference, on one thread and on two.
#[test]
fn density_of_a_planted_low_entropy_run_matches_the_naive_reference() {
    let (k, w) = (5usize, 10usize);
    let p = 5u64; // (w + 1) / 2 rounded down
    let dir = tempfile::tempdir().unwrap();
    let mut doc = letters(7, 5000);
    doc.extend(std::iter::repeat_n(b'0', 3000));
    doc.extend(letters(8, 5000));
    let docs_bytes = [doc, letters(9, 2000), letters(10, 3)];
    let hasher = Hasher::new(HashFunction::KarpRabin, &Config::new(k, w).unwrap());
    let mut hashes = Vec::new();
    for (i, d) in docs_bytes.iter().enumerate() {
        std::fs::write(dir.path().join(format!("doc{i}.txt")), d).unwrap();
        let mut h = Vec::new();
        hasher.hash_bytes(d, &mut h);
        hashes.push(h);
    }
    let symbols: Vec<usize> = docs_bytes.iter().map(Vec::len).collect();
    let e = expected(&hashes, &symbols, k, w, p);
    let total_hashes: usize = hashes.iter().map(Vec::len).sum();
    let d = dir.path().to_str().unwrap();
    let run = |j| json_bytes(None, &["density", "-k", "5", "-w", "10", "-j", j, d]);
    let bytes = run("1");
    assert_eq!(bytes, run("2"), "results do not depend on the threads");
    assert_eq!(bytes, run("8"), "results do not depend on the threads");
    let one: Value = serde_json::from_slice(&bytes).unwrap();
    check_density(&one, &e, total_hashes, w, p);
    assert_eq!(one["documents"], 3);
    assert_eq!(one["total_bytes"], 13_000 + 2000 + 3);
    assert_eq!(one["symbols"], 13_000 + 2000 + 3);
    assert_eq!(one["front_end"], "raw");
    // The paper's "0000…" case: winnowing takes nearly every hash of the
    // run, robust winnowing about one per window.
    let wf = one["winnow"]["fingerprints"].as_u64().unwrap();
    let rf = one["robust_winnow"]["fingerprints"].as_u64().unwrap();
    assert!(wf - rf > 2500, "winnow {wf}, robust {rf}");
    // The guarantee holds in every document at least t symbols long.
    assert!(one["winnow"]["longest_gap"].as_u64().unwrap() <= (w + k - 2) as u64);
    // The run of one k-gram has no hash 0 mod p (unless "00000" is one).
    let zeros = hasher.hash_kgram_bytes(b"00000").unwrap();
    if !zeros.is_multiple_of(p) {
        assert!(one["mod_p"]["longest_gap"].as_u64().unwrap() >= 3000);
        assert!(one["mod_p"]["longest_gap_path"]
            .as_str()
            .unwrap()
            .ends_with("doc0.txt"));
    }
}

/// HTML through the front-end: symbols are the characters of the text.
#[test]
fn density_of_html_counts_text_characters() {
    let (k, w) = (4usize, 6usize);
    let p = 3u64;
    let dir = tempfile::tempdir().unwrap();
    let pages: Vec<String> = (0..4u64)
        .map(|i| {
            let words = String::from_utf8(letters(20 + i, 400)).unwrap();
            format!(
                "<!DOCTYPE html><html><head><style>p {{ color: red }}</style></head>\
                 <body><p class=\"x\">{} &amp; {}</p><script>var x = 1;</script></body></html>",
                &words[..200],
                &words[200..]
            )
        })
        .collect();
    let mut hashes = Vec::new();
    let mut symbols = Vec::new();
    let hasher = Hasher::new(HashFunction::KarpRabin, &Config::new(k, w).unwrap());
    let mut bytes = 0;
    for (i, page) in pages.iter().enumerate() {
        std::fs::write(dir.path().join(format!("p{i}.html")), page).unwrap();
        bytes += page.len();
        let n = bryo_frontend::normalize_html(page, bryo_frontend::TextMode::Chars);
        let mut h = Vec::new();
        hasher.hash_symbols(&n.symbols, &mut h);
        symbols.push(n.symbols.len());
        hashes.push(h);
    }
    std::fs::write(dir.path().join("style.css"), "p { color: red }").unwrap();
    let e = expected(&hashes, &symbols, k, w, p);
    let v = json(&[
        "density",
        "-l",
        "html",
        "-k",
        "4",
        "-w",
        "6",
        dir.path().to_str().unwrap(),
    ]);
    check_density(&v, &e, hashes.iter().map(Vec::len).sum(), w, p);
    assert_eq!(v["documents"], 4);
    assert_eq!(v["symbols"], 4 * 400, "only the letters of the text");
    assert_eq!(v["total_bytes"], bytes as u64);
    assert_eq!(v["input"]["other_extension"], 1, "the stylesheet");
    assert_eq!(v["front_end"], "html");
    assert_eq!(v["text_mode"], "chars");
}

#[test]
fn density_timing_is_only_reported_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), letters(1, 1000)).unwrap();
    let d = dir.path().to_str().unwrap();
    let v = json(&["density", d]);
    assert!(v.get("timing").is_none());
    let v = json(&["density", "--timing", "-j", "3", d]);
    let seconds = v["timing"]["seconds"].as_f64().unwrap();
    assert!(seconds > 0.0 && seconds < 60.0, "{seconds}");
    assert_eq!(v["timing"]["threads"], 3);
    // Timing is the only difference from a run without it.
    let mut without = v.clone();
    without.as_object_mut().unwrap().remove("timing");
    assert_eq!(without, json(&["density", d]));
    assert_eq!(
        v["timing"]["bytes_per_second"].as_f64().unwrap(),
        1000.0 / v["timing"]["seconds"].as_f64().unwrap()
    );
}

// ---- rank --------------------------------------------------------------------

/// Writes a corpus where every document is exactly one k-gram of a fixed
/// pool, so every hash's frequency is known: `pool[i]` appears `freq[i]`
/// times. Returns the k-grams with their frequencies.
fn pool_corpus(dir: &Path, k: usize) -> Vec<(Vec<u8>, u64)> {
    let freqs = [5u64, 3, 2, 2, 1, 1, 1, 1, 1, 1];
    let pool: Vec<(Vec<u8>, u64)> = freqs
        .iter()
        .enumerate()
        .map(|(i, &f)| (letters(100 + i as u64, k), f))
        .collect();
    let mut n = 0;
    // Interleave the copies so no file order hides a bug.
    for round in 0..5u64 {
        for (kgram, f) in &pool {
            if round < *f {
                std::fs::write(dir.join(format!("doc{n:03}.txt")), kgram).unwrap();
                n += 1;
            }
        }
    }
    pool
}

fn least_squares_slope(points: &[(f64, f64)]) -> f64 {
    let n = points.len() as f64;
    let mx = points.iter().map(|p| p.0).sum::<f64>() / n;
    let my = points.iter().map(|p| p.1).sum::<f64>() / n;
    let sxy: f64 = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let sxx: f64 = points.iter().map(|p| (p.0 - mx).powi(2)).sum();
    sxy / sxx
}

#[test]
fn rank_of_a_pool_of_kgrams_with_known_frequencies() {
    let k = 8;
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("corpus");
    std::fs::create_dir(&corpus).unwrap();
    let pool = pool_corpus(&corpus, k);
    let plots = dir.path().join("plots");
    let v = json(&[
        "rank",
        "-k",
        "8",
        "-w",
        "4",
        "--top",
        "3",
        "-o",
        plots.to_str().unwrap(),
        corpus.to_str().unwrap(),
    ]);
    assert_eq!(v["documents"], 18);
    assert_eq!(v["symbols"], 18 * 8);
    // One k-gram per document, selected by winnowing: both curves agree.
    for key in ["hashes", "fingerprints"] {
        let d = &v[key];
        assert_eq!(d["occurrences"], 18, "{key}");
        assert_eq!(d["distinct"], 10, "{key}");
        assert_eq!(d["once"]["hashes"], 6);
        assert_eq!(d["once"]["share"], 0.6);
        assert_eq!(d["twice"]["share"], 0.2);
        assert_eq!(d["three_times"]["share"], 0.1);
        assert_eq!(d["max_frequency"], 5);
        let plateaus: Vec<Vec<u64>> = serde_json::from_value(d["plateaus"].clone()).unwrap();
        assert_eq!(
            plateaus,
            [[5, 1, 1], [3, 2, 2], [2, 3, 4], [1, 5, 10]].map(|p| p.to_vec())
        );
        // Fitted on plateau endpoints, single-rank plateaus counted twice.
        let ends = [
            (1, 5),
            (1, 5),
            (2, 3),
            (2, 3),
            (3, 2),
            (4, 2),
            (5, 1),
            (10, 1),
        ];
        let logs: Vec<(f64, f64)> = ends
            .iter()
            .map(|&(r, f): &(u32, u32)| (f64::from(r).log10(), f64::from(f).log10()))
            .collect();
        let slope = d["power_law"]["slope"].as_f64().unwrap();
        assert!(
            (slope - least_squares_slope(&logs)).abs() < 1e-12,
            "{slope}"
        );
        assert_eq!(d["power_law"]["points"], 8);
    }
    // The top list: the 5× and 3× k-grams, then the smaller hash of the 2×.
    let hasher = Hasher::new(HashFunction::KarpRabin, &Config::new(k, 4).unwrap());
    let hash_of = |b: &[u8]| hasher.hash_kgram_bytes(b).unwrap();
    let mut twice: Vec<&Vec<u8>> = pool.iter().filter(|p| p.1 == 2).map(|p| &p.0).collect();
    twice.sort_by_key(|b| hash_of(b));
    let top = v["top"].as_array().unwrap();
    assert_eq!(top.len(), 3);
    for (i, (kgram, count)) in [(&pool[0].0, 5), (&pool[1].0, 3), (twice[0], 2)]
        .into_iter()
        .enumerate()
    {
        assert_eq!(top[i]["rank"], i as u64 + 1);
        assert_eq!(top[i]["count"], count);
        assert_eq!(top[i]["documents"], count);
        assert_eq!(top[i]["text"], std::str::from_utf8(kgram).unwrap());
        assert_eq!(top[i]["hash"], format!("{:#018x}", hash_of(kgram)));
        assert_eq!(top[i]["position"], 0);
        // The sample is the first file, in sorted order, holding the k-gram.
        let first = (0..18)
            .map(|n| corpus.join(format!("doc{n:03}.txt")))
            .find(|f| std::fs::read(f).unwrap() == *kgram)
            .unwrap();
        assert_eq!(top[i]["path"], first.to_str().unwrap());
    }
    // One k-gram per document, always a fingerprint: the same list.
    assert_eq!(v["top"], v["top_fingerprints"]);
    for file in ["rank.svg", "rank.png"] {
        let meta = std::fs::metadata(plots.join(file)).unwrap();
        assert!(meta.len() > 1000, "{file}");
    }
    let svg = std::fs::read_to_string(plots.join("rank.svg")).unwrap();
    assert!(svg.starts_with("<svg"));
    assert_eq!(v["plot"]["svg"], plots.join("rank.svg").to_str().unwrap());
}

/// Longer documents: k-grams overlap, words recur. The counts equal a naive
/// count of every hash and of every winnowed fingerprint, and spilling with
/// a tiny memory budget changes nothing but the number of runs.
#[test]
fn rank_counts_equal_a_naive_count_with_and_without_spilling() {
    let (k, w) = (6usize, 5usize);
    let dir = tempfile::tempdir().unwrap();
    let words: Vec<Vec<u8>> = (0..30)
        .map(|i| letters(300 + i, 4 + (i as usize % 5)))
        .collect();
    let hasher = Hasher::new(HashFunction::KarpRabin, &Config::new(k, w).unwrap());
    let mut all: BTreeMap<u64, u64> = BTreeMap::new();
    let mut fps: BTreeMap<u64, u64> = BTreeMap::new();
    let mut docs_with: BTreeMap<u64, BTreeSet<usize>> = BTreeMap::new();
    let mut x = 12345u64;
    for d in 0..25 {
        let mut doc = Vec::new();
        for _ in 0..60 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            // A skewed choice: low word numbers are frequent.
            let r = (x >> 33) % 900;
            let idx = ((r as f64).sqrt() as usize).min(29);
            doc.extend_from_slice(&words[idx]);
        }
        std::fs::write(dir.path().join(format!("d{d:02}")), &doc).unwrap();
        let mut h = Vec::new();
        hasher.hash_bytes(&doc, &mut h);
        for &v in &h {
            *all.entry(v).or_insert(0) += 1;
            docs_with.entry(v).or_default().insert(d);
        }
        for p in naive_winnow(&h, w, false) {
            *fps.entry(h[p]).or_insert(0) += 1;
        }
    }
    let d = dir.path().to_str().unwrap();
    let roomy = json(&["rank", "-k", "6", "-w", "5", "-j", "2", d]);
    let tiny = json(&["rank", "-k", "6", "-w", "5", "-j", "1", "--memory", "4K", d]);
    assert_eq!(roomy["spilled_runs"], 0);
    // Without spilling, 1, 2 and 8 threads write the same bytes.
    let at = |j| json_bytes(None, &["rank", "-k", "6", "-w", "5", "-j", j, d]);
    let one = at("1");
    assert_eq!(one, at("2"), "-j 1 vs -j 2");
    assert_eq!(one, at("8"), "-j 1 vs -j 8");
    assert!(
        tiny["spilled_runs"].as_u64().unwrap() > 10,
        "{}",
        tiny["spilled_runs"]
    );
    for key in [
        "hashes",
        "fingerprints",
        "top",
        "top_fingerprints",
        "documents",
        "symbols",
    ] {
        assert_eq!(roomy[key], tiny[key], "{key}");
    }
    for (key, counts) in [("hashes", &all), ("fingerprints", &fps)] {
        let d = &roomy[key];
        let distinct = counts.len() as u64;
        let with = |f: u64| counts.values().filter(|&&c| c == f).count() as u64;
        assert_eq!(d["occurrences"], counts.values().sum::<u64>(), "{key}");
        assert_eq!(d["distinct"], distinct, "{key}");
        assert_eq!(d["once"]["hashes"], with(1), "{key}");
        assert_eq!(d["twice"]["hashes"], with(2), "{key}");
        assert_eq!(d["three_times"]["hashes"], with(3), "{key}");
        assert_eq!(
            d["once"]["share"].as_f64().unwrap(),
            with(1) as f64 / distinct as f64
        );
        assert_eq!(d["max_frequency"], *counts.values().max().unwrap(), "{key}");
    }
    for (key, counts) in [("top", &all), ("top_fingerprints", &fps)] {
        let mut ranked: Vec<(u64, u64)> = counts.iter().map(|(&h, &c)| (c, h)).collect();
        ranked.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        let top = roomy[key].as_array().unwrap();
        assert_eq!(top.len(), 20, "{key}");
        for (t, (count, hash)) in top.iter().zip(&ranked) {
            assert_eq!(t["count"], *count, "{key}");
            assert_eq!(t["hash"], format!("{hash:#018x}"), "{key}");
            assert_eq!(t["documents"], docs_with[hash].len() as u64, "{key}");
            let first = *docs_with[hash].first().unwrap();
            assert!(t["path"]
                .as_str()
                .unwrap()
                .ends_with(&format!("d{first:02}")));
            // The sample's text hashes to the listed hash.
            let text = t["text"].as_str().unwrap();
            assert_eq!(
                hasher.hash_kgram_bytes(text.as_bytes()),
                Some(*hash),
                "{key}"
            );
        }
    }
}

#[test]
fn rank_rejects_bad_options() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a"), "abc").unwrap();
    let d = dir.path().to_str().unwrap();
    for (args, message) in [
        (vec!["rank", "--memory", "12Q", d], "unknown unit"),
        (vec!["rank", "--memory", "1", d], "too small"),
        (vec!["rank", "-k", "0", d], "noise threshold k"),
        (vec!["rank", "-j", "0", d], "-j must be at least 1"),
        (vec!["rank"], "required"),
        (
            vec!["rank", "-o", d, "--font", "/nonexistent/font.ttf", d],
            "cannot read the font",
        ),
    ] {
        let out = bryo().args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(message), "{args:?}: {err}");
    }
}

/// The prose front-end, in characters and in words.
#[test]
fn density_of_text_in_characters_and_words() {
    let dir = tempfile::tempdir().unwrap();
    let text: String = (0..300u64)
        .map(|i| {
            let w = String::from_utf8(letters(500 + i % 37, 2 + (i % 5) as usize)).unwrap();
            if i % 7 == 0 {
                format!("{}, ", w.to_uppercase())
            } else {
                format!("{w} ")
            }
        })
        .collect();
    std::fs::write(dir.path().join("t.txt"), &text).unwrap();
    let d = dir.path().to_str().unwrap();
    for (mode, tm) in [
        ("chars", bryo_frontend::TextMode::Chars),
        ("words", bryo_frontend::TextMode::Words),
    ] {
        let (k, w, p) = (3usize, 4usize, 2u64);
        let n = bryo_frontend::normalize_text(&text, tm);
        let hasher = Hasher::new(HashFunction::KarpRabin, &Config::new(k, w).unwrap());
        let mut h = Vec::new();
        hasher.hash_symbols(&n.symbols, &mut h);
        let e = expected(std::slice::from_ref(&h), &[n.symbols.len()], k, w, p);
        let v = json(&[
            "density",
            "-l",
            "text",
            "--text-mode",
            mode,
            "-k",
            "3",
            "-w",
            "4",
            d,
        ]);
        check_density(&v, &e, h.len(), w, p);
        assert_eq!(v["symbols"], n.symbols.len() as u64, "{mode}");
        assert_eq!(v["text_mode"], mode);
        assert_eq!(v["front_end"], "text");
    }
    // A binary file is listed as skipped, with the reason, and counts nowhere.
    std::fs::write(dir.path().join("z.bin"), b"\x00\x01\x02binary").unwrap();
    let v = json(&["density", "-l", "text", "-k", "3", "-w", "4", d]);
    assert_eq!(v["documents"], 1);
    let skipped = v["input"]["skipped"].as_array().unwrap();
    assert_eq!(skipped.len(), 1);
    assert!(skipped[0]["path"].as_str().unwrap().ends_with("z.bin"));
    assert!(
        skipped[0]["reason"].as_str().unwrap().contains("binary"),
        "{}",
        skipped[0]
    );
}

// ---- one stream ----------------------------------------------------------------

/// Writes `contents` as `f00.EXT`, `f01.EXT`, … (the listing order is the
/// order of the names) and returns the directory.
fn write_numbered(contents: &[Vec<u8>], ext: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (i, c) in contents.iter().enumerate() {
        std::fs::write(dir.path().join(format!("f{i:02}.{ext}")), c).unwrap();
    }
    dir
}

/// `--one-stream` against the naive reference run on the explicitly
/// concatenated symbols of the files: one document of `symbols.len()`
/// symbols.
fn check_one_stream(dir: &Path, format: &str, hasher: &Hasher, symbols: &[u64], docs: u64) {
    let (k, w, p) = (5usize, 8usize, 4u64);
    let mut h = Vec::new();
    hasher.hash_symbols(symbols, &mut h);
    let e = expected(std::slice::from_ref(&h), &[symbols.len()], k, w, p);
    let d = dir.to_str().unwrap();
    let v = json(&[
        "density",
        "--one-stream",
        "-l",
        format,
        "-k",
        "5",
        "-w",
        "8",
        d,
    ]);
    check_density(&v, &e, h.len(), w, p);
    assert_eq!(v["one_stream"], true, "{format}");
    assert_eq!(v["documents"], docs, "{format}");
    assert_eq!(v["symbols"], symbols.len() as u64, "{format}");
    assert_eq!(
        v["hashes"],
        (symbols.len() + 1 - k) as u64,
        "{format}: hashes computed = symbols − (k − 1), as in the paper"
    );
    for key in ["winnow", "robust_winnow", "mod_p", "safe_mod_p"] {
        assert!(v[key].get("longest_gap_path").is_none(), "{format} {key}");
    }
    // The per-document mode of the same files differs: k-grams and
    // windows no longer span the boundaries.
    let per_doc = json(&["density", "-l", format, "-k", "5", "-w", "8", d]);
    assert_eq!(per_doc["one_stream"], false);
    assert!(
        per_doc["hashes"].as_u64().unwrap() < v["hashes"].as_u64().unwrap(),
        "{format}"
    );
}

/// Raw bytes: files of every length around k − 1 (empty, shorter than the
/// carried tail, longer than a window), a planted low-entropy run that
/// crosses a file boundary.
#[test]
fn one_stream_raw_equals_the_naive_reference_on_the_concatenation() {
    let mut files: Vec<Vec<u8>> = [0usize, 2, 3, 1, 700, 4, 0, 9, 1500]
        .iter()
        .enumerate()
        .map(|(i, &n)| letters(40 + i as u64, n))
        .collect();
    files[4].extend(std::iter::repeat_n(b'0', 300));
    files[5] = b"0000".to_vec();
    files[7].extend(std::iter::repeat_n(b'0', 200));
    let dir = write_numbered(&files, "bin");
    let hasher = Hasher::new(HashFunction::KarpRabin, &Config::new(5, 8).unwrap());
    let symbols: Vec<u64> = files.concat().into_iter().map(u64::from).collect();
    // The engine hashes a byte as the symbol of the same value.
    let mut from_bytes = Vec::new();
    hasher.hash_bytes(&files.concat(), &mut from_bytes);
    let mut from_symbols = Vec::new();
    hasher.hash_symbols(&symbols, &mut from_symbols);
    assert_eq!(from_bytes, from_symbols);
    check_one_stream(dir.path(), "raw", &hasher, &symbols, files.len() as u64);
}

/// Prose and HTML: the front-end's symbols of each file, concatenated in
/// listing order; a binary file is skipped and is not part of the stream.
#[test]
fn one_stream_text_and_html_equal_the_naive_reference_on_the_concatenation() {
    let hasher = Hasher::new(HashFunction::KarpRabin, &Config::new(5, 8).unwrap());
    let words = |seed: u64, n: usize| -> String {
        let l = letters(seed, n);
        l.chunks(5)
            .map(|c| String::from_utf8(c.to_vec()).unwrap())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let texts: Vec<Vec<u8>> = [300usize, 3, 0, 2, 120, 4, 900]
        .iter()
        .enumerate()
        .map(|(i, &n)| words(60 + i as u64, n).to_uppercase().into_bytes())
        .collect();
    let dir = write_numbered(&texts, "txt");
    std::fs::write(dir.path().join("f03b.txt"), b"\x00\x01binary").unwrap();
    let symbols: Vec<u64> = texts
        .iter()
        .flat_map(|t| {
            let t = std::str::from_utf8(t).unwrap();
            bryo_frontend::normalize_text(t, bryo_frontend::TextMode::Chars).symbols
        })
        .collect();
    check_one_stream(dir.path(), "text", &hasher, &symbols, texts.len() as u64);

    let pages: Vec<Vec<u8>> = [250usize, 2, 600, 0, 3, 400]
        .iter()
        .enumerate()
        .map(|(i, &n)| {
            format!(
                "<html><head><style>p {{ color: red }}</style></head><body><p>{}</p>\
                 <script>var x = 1;</script></body></html>",
                words(80 + i as u64, n)
            )
            .into_bytes()
        })
        .collect();
    let dir = write_numbered(&pages, "html");
    std::fs::write(dir.path().join("style.css"), "p { color: red }").unwrap();
    let symbols: Vec<u64> = pages
        .iter()
        .flat_map(|t| {
            let t = std::str::from_utf8(t).unwrap();
            bryo_frontend::normalize_html(t, bryo_frontend::TextMode::Chars).symbols
        })
        .collect();
    check_one_stream(dir.path(), "html", &hasher, &symbols, pages.len() as u64);
}

/// On a single file the one stream is that file: every figure equals the
/// per-document mode's.
#[test]
fn one_stream_of_a_single_file_equals_the_per_document_mode() {
    let dir = tempfile::tempdir().unwrap();
    let mut doc = letters(90, 3000);
    doc.extend(std::iter::repeat_n(b'0', 400));
    doc.extend(letters(91, 2000));
    let page = format!("<p>{}</p>", String::from_utf8(doc.clone()).unwrap());
    std::fs::write(dir.path().join("a.txt"), &doc).unwrap();
    std::fs::write(dir.path().join("a.html"), page).unwrap();
    for (format, file) in [("raw", "a.txt"), ("text", "a.txt"), ("html", "a.html")] {
        let path = dir.path().join(file);
        let p = path.to_str().unwrap();
        let args = ["density", "-l", format, "-k", "7", "-w", "9", p];
        let mut per_doc = json(&args);
        let mut one = json(&[&args[..], &["--one-stream"]].concat());
        assert_eq!(one["one_stream"], true);
        assert_eq!(per_doc["one_stream"], false);
        for v in [&mut per_doc, &mut one] {
            let v = v.as_object_mut().unwrap();
            v.remove("one_stream");
            for key in ["winnow", "robust_winnow", "mod_p", "safe_mod_p"] {
                v[key].as_object_mut().unwrap().remove("longest_gap_path");
            }
        }
        assert_eq!(one, per_doc, "{format}");
        assert!(one["winnow"]["fingerprints"].as_u64().unwrap() > 0);
    }
}

#[test]
fn one_stream_is_said_in_the_text_output_and_excludes_random() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), letters(1, 500)).unwrap();
    let d = dir.path().to_str().unwrap();
    let out = bryo()
        .args(["density", "--one-stream", "-k", "5", "-w", "8", d])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("one stream:"), "{text}");
    assert!(
        text.contains("expected for one stream of this length"),
        "{text}"
    );
    let out = bryo()
        .args(["density", "--one-stream", "--random", "1000"])
        .output()
        .unwrap();
    assert!(!out.status.success());
}
