//! The index against the in-memory path: `--against` an index equals
//! `--old` with the archived files, whatever the order of adds, compactions
//! and removals; damaged or mismatched indexes are refused with an error.

use bryo_compare::{
    analyze_inputs_with_archive, AnalyzeOptions, ArchivedSubmission, CompareOptions,
};
use bryo_frontend::{Language, TextMode};
use bryo_index::{Index, IndexError, IndexSettings};
use bryo_input::{InputFile, Inputs, Source, Submission};
use bryo_match::Silent;
use bryo_report::Report;
use proptest::prelude::*;

const WORDS: &[&str] = &[
    "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet",
    "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango",
];

fn settings() -> IndexSettings {
    let analyze = AnalyzeOptions {
        language: Language::by_name("text"),
        text_mode: TextMode::Words,
        ..AnalyzeOptions::default()
    };
    IndexSettings::new(analyze, Some(4), Some(3), None).unwrap()
}

fn options(max_submissions: Option<usize>) -> CompareOptions {
    CompareOptions {
        analyze: settings().analyze,
        k: Some(4),
        w: Some(3),
        max_submissions,
        max_pairs: 0,
        ..CompareOptions::default()
    }
}

/// A document: random words with, sometimes, a passage of another one.
#[derive(Clone, Debug)]
struct Doc {
    words: Vec<u16>,
}

/// Word `w` of a vocabulary: one of [`WORDS`], or a made-up one past them.
fn word(w: u16) -> String {
    match WORDS.get(w as usize) {
        Some(w) => w.to_string(),
        None => format!("w{w}"),
    }
}

fn file(name: String, text: String) -> InputFile {
    InputFile {
        display_path: name.clone(),
        bytes: text.into_bytes(),
        source: Source::File(name.into()),
        size_hint: None,
    }
}

/// `terms[t]` = submissions of term `t`, each a list of file texts.
type Terms = Vec<Vec<Vec<String>>>;

fn terms_strategy() -> impl Strategy<Value = Terms> {
    terms_with(WORDS.len() as u16)
}

/// Terms of documents drawn from `vocabulary` words: with [`WORDS`] alone
/// most documents share some k-gram; with thousands, mostly only the
/// planted passages.
fn terms_with(vocabulary: u16) -> impl Strategy<Value = Terms> {
    let doc = proptest::collection::vec(0u16..vocabulary, 0..60).prop_map(|words| Doc { words });
    let sub = proptest::collection::vec(doc, 1..3);
    let term = proptest::collection::vec(sub, 1..4);
    (proptest::collection::vec(term, 2..5), any::<u64>()).prop_map(|(terms, seed)| {
        // Plant copies: each document may take a passage of an earlier one.
        let mut pool: Vec<Vec<u16>> = Vec::new();
        let mut state = seed | 1;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        terms
            .into_iter()
            .map(|subs| {
                subs.into_iter()
                    .map(|docs| {
                        docs.into_iter()
                            .map(|mut d| {
                                if !pool.is_empty() && next() % 2 == 0 {
                                    let src = &pool[(next() % pool.len() as u64) as usize];
                                    if !src.is_empty() {
                                        let a = (next() % src.len() as u64) as usize;
                                        let b = a + (next() % (src.len() - a) as u64 + 1) as usize;
                                        let at = (next() % (d.words.len() as u64 + 1)) as usize;
                                        d.words.splice(at..at, src[a..b].iter().copied());
                                    }
                                }
                                pool.push(d.words.clone());
                                d.words
                                    .iter()
                                    .map(|&w| word(w))
                                    .collect::<Vec<_>>()
                                    .join(" ")
                            })
                            .collect()
                    })
                    .collect()
            })
            .collect()
    })
}

/// The submissions of term `t`, named `t{t}/s{i}` with files
/// `t{t}/s{i}/f{j}.txt`.
fn term_submissions(terms: &Terms, t: usize, old: bool) -> Vec<Submission> {
    terms[t]
        .iter()
        .enumerate()
        .map(|(i, files)| Submission {
            name: format!("t{t}/s{i}"),
            old,
            files: files
                .iter()
                .enumerate()
                .map(|(j, text)| file(format!("t{t}/s{i}/f{j}.txt"), text.clone()))
                .collect(),
        })
        .collect()
}

fn inputs(submissions: Vec<Submission>) -> Inputs {
    Inputs {
        submissions,
        base: Vec::new(),
        skipped: Vec::new(),
    }
}

/// The whole compare job, with archived submissions.
fn run(
    inputs: Inputs,
    archive: Vec<ArchivedSubmission>,
    options: &CompareOptions,
) -> Option<Report> {
    let analysis = analyze_inputs_with_archive(inputs, archive, options, &Silent).ok()?;
    let corpus = analysis.corpus();
    let indexed = bryo_match::fingerprint(&corpus, analysis.match_options(), &Silent)
        .unwrap()
        .index(&Silent)
        .unwrap();
    let candidates = indexed.pairs(&Silent).unwrap();
    let comparison = indexed.fragments(candidates, &Silent).unwrap();
    drop(corpus);
    Some(analysis.report(comparison, options, &Silent).report)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    /// Terms added in any order, compacted at random points, one term
    /// removed: comparing the last term against the index equals
    /// comparing it with the remaining terms' files given as `--old`.
    #[test]
    fn against_equals_old(
        terms in terms_strategy(),
        order_seed in any::<u64>(),
        compact_mask in any::<u8>(),
        remove in any::<Option<prop::sample::Index>>(),
        max_submissions in prop_oneof![Just(None), (1usize..4).prop_map(Some)],
    ) {
        let current = terms.len() - 1;
        let mut order: Vec<usize> = (0..current).collect();
        // A seeded shuffle.
        let mut s = order_seed | 1;
        for i in (1..order.len()).rev() {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            order.swap(i, (s >> 33) as usize % (i + 1));
        }
        let dir = tempfile::tempdir().unwrap();
        let mut index = Index::create(&dir.path().join("index"), settings()).unwrap();
        for (n, &t) in order.iter().enumerate() {
            index.add(inputs(term_submissions(&terms, t, false)), &format!("term{t}")).unwrap();
            if compact_mask & (1 << n) != 0 {
                index.compact().unwrap();
            }
        }
        let removed = remove.map(|r| order[r.index(order.len())]);
        if let Some(t) = removed {
            index.remove_tag(&format!("term{t}")).unwrap();
            if compact_mask & 0x80 != 0 {
                index.compact().unwrap();
            }
        }
        let archive: Vec<ArchivedSubmission> =
            index.archived().unwrap().into_iter().map(|a| a.submission).collect();
        let mut old_subs = term_submissions(&terms, current, false);
        for &t in order.iter().filter(|&&t| Some(t) != removed) {
            old_subs.extend(term_submissions(&terms, t, true));
        }
        let options = options(max_submissions);
        let with_index = run(inputs(term_submissions(&terms, current, false)), archive, &options);
        let with_old = run(inputs(old_subs), Vec::new(), &options);
        prop_assert_eq!(with_index, with_old);

        // Removal removes: nothing of the removed term is archived.
        if let Some(t) = removed {
            let prefix = format!("t{t}/");
            prop_assert!(index.archived().unwrap().iter().all(|a| !a.submission.name.starts_with(&prefix)));
        }
    }

    /// `lookup` equals filtering every live document's fingerprints.
    #[test]
    fn lookup_equals_fingerprints_of_live_documents(terms in terms_strategy(), remove in any::<prop::sample::Index>(), compact in any::<bool>()) {
        let dir = tempfile::tempdir().unwrap();
        let mut index = Index::create(&dir.path().join("index"), settings()).unwrap();
        for t in 0..terms.len() {
            index.add(inputs(term_submissions(&terms, t, false)), &format!("term{t}")).unwrap();
        }
        let removed = remove.index(terms.len());
        index.remove_tag(&format!("term{removed}")).unwrap();
        if compact {
            index.compact().unwrap();
        }
        let config = index.settings().config;
        let mut fingerprinter = bryo_engine::Fingerprinter::new(
            config,
            bryo_engine::HashFunction::KarpRabin,
            bryo_engine::Selection::RobustWinnow,
        ).unwrap();
        // Every fingerprint of the archived documents, by document path.
        let mut expected = Vec::new();
        for a in index.archived().unwrap() {
            for (file, _) in &a.submission.files {
                for f in fingerprinter.fingerprint_symbols(&file.normalized.symbols).unwrap() {
                    expected.push((f.hash, file.path.clone(), f.pos));
                }
            }
        }
        let query: Vec<u64> = expected.iter().map(|e| e.0).step_by(2).collect();
        let mut wanted: Vec<(u64, String, u32)> =
            expected.into_iter().filter(|e| query.contains(&e.0)).collect();
        wanted.sort();
        // Document ids to paths through the catalogue's order.
        let found = index.lookup(&query).unwrap();
        let mut paths = std::collections::HashMap::new();
        for a in index.archived_with(&found.iter().map(|p| p.doc).collect()).unwrap() {
            for (file, _) in &a.submission.files {
                paths.insert(file.path.clone(), ());
            }
        }
        prop_assert_eq!(found.len(), wanted.len());
        prop_assert!(wanted.iter().all(|w| paths.contains_key(&w.1)));
        let gone = format!("t{removed}/");
        prop_assert!(wanted.iter().all(|w| !w.1.starts_with(&gone)));
    }
}

fn small_index(dir: &std::path::Path) -> Index {
    let mut index = Index::create(dir, settings()).unwrap();
    let text = |i: usize| {
        (0..400)
            .map(|j| WORDS[(i * 7 + j * j) % WORDS.len()])
            .collect::<Vec<_>>()
            .join(" ")
    };
    let subs = (0..3)
        .map(|i| Submission {
            name: format!("s{i}"),
            old: false,
            files: vec![file(format!("s{i}.txt"), text(i))],
        })
        .collect();
    index.add(inputs(subs), "fall").unwrap();
    index
}

fn segment_file(dir: &std::path::Path) -> std::path::PathBuf {
    std::fs::read_dir(dir.join(bryo_index::SEGMENTS_DIR))
        .unwrap()
        .map(|e| e.unwrap().path())
        .next()
        .unwrap()
}

#[test]
fn truncated_segment_is_detected() {
    let dir = tempfile::tempdir().unwrap();
    let index = small_index(dir.path());
    let seg = segment_file(dir.path());
    let bytes = std::fs::read(&seg).unwrap();
    for cut in [0, 4, bytes.len() / 2, bytes.len() - 1] {
        std::fs::write(&seg, &bytes[..cut]).unwrap();
        let err = index.lookup(&[1, 2, 3]).unwrap_err();
        assert!(matches!(err, IndexError::CorruptSegment { .. }), "{err}");
        assert!(err.to_string().contains("corrupted segment"), "{err}");
    }
}

#[test]
fn flipped_bytes_in_a_segment_are_detected() {
    let dir = tempfile::tempdir().unwrap();
    let index = small_index(dir.path());
    let seg = segment_file(dir.path());
    let bytes = std::fs::read(&seg).unwrap();
    for at in (0..bytes.len()).step_by(bytes.len() / 50 + 1) {
        let mut damaged = bytes.clone();
        damaged[at] ^= 0x10;
        std::fs::write(&seg, &damaged).unwrap();
        let err = index.lookup(&[1, 2, 3]).unwrap_err();
        assert!(matches!(err, IndexError::CorruptSegment { .. }), "{err}");
    }
    std::fs::remove_file(&seg).unwrap();
    let err = index.lookup(&[1]).unwrap_err();
    assert!(err.to_string().contains("missing"), "{err}");
}

#[test]
fn damaged_document_data_is_detected() {
    let dir = tempfile::tempdir().unwrap();
    drop(small_index(dir.path()));
    let conn = rusqlite::Connection::open(dir.path().join(bryo_index::CATALOG_FILE)).unwrap();
    for column in ["stream", "source"] {
        let blob: Vec<u8> = conn
            .query_row(
                &format!("SELECT {column} FROM documents WHERE id = 1"),
                [],
                |r| r.get(0),
            )
            .unwrap();
        let mut damaged = blob.clone();
        let at = damaged.len() / 2;
        damaged[at] ^= 0x01;
        conn.execute(
            &format!("UPDATE documents SET {column} = ?1 WHERE id = 1"),
            [&damaged],
        )
        .unwrap();
        let err = Index::open(dir.path()).unwrap().archived().unwrap_err();
        assert!(matches!(err, IndexError::CorruptDocument { .. }), "{err}");
        conn.execute(
            &format!("UPDATE documents SET {column} = ?1 WHERE id = 1"),
            [&blob],
        )
        .unwrap();
    }
    assert_eq!(
        Index::open(dir.path()).unwrap().archived().unwrap().len(),
        3
    );
}

#[test]
fn other_scheme_versions_and_options_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let index = small_index(dir.path());
    // Other options: refused by `check`, naming what differs.
    let python = AnalyzeOptions {
        language: Language::by_name("python"),
        ..AnalyzeOptions::default()
    };
    let err = index
        .settings()
        .check(
            dir.path(),
            &IndexSettings::new(python, Some(4), Some(3), None).unwrap(),
        )
        .unwrap_err();
    assert!(err.to_string().contains("language text"), "{err}");
    let err = index
        .settings()
        .check(
            dir.path(),
            &IndexSettings::new(settings().analyze, Some(5), Some(3), None).unwrap(),
        )
        .unwrap_err();
    assert!(
        err.to_string().contains("index made with k 4, but 5"),
        "{err}"
    );
    drop(index);
    // Another hash scheme: refused when opened.
    let conn = rusqlite::Connection::open(dir.path().join(bryo_index::CATALOG_FILE)).unwrap();
    conn.execute(
        "UPDATE meta SET value = '999' WHERE key = 'hash_scheme_version'",
        [],
    )
    .unwrap();
    let err = Index::open(dir.path()).unwrap_err();
    assert!(err.to_string().contains("hash scheme version 999"), "{err}");
    // Not an index at all.
    let err = Index::open(&dir.path().join("segments")).unwrap_err();
    assert!(matches!(err, IndexError::NotAnIndex(_)), "{err}");
    // Creating over an existing index.
    let err = Index::create(dir.path(), settings()).unwrap_err();
    assert!(matches!(err, IndexError::Exists(_)), "{err}");
}

#[test]
fn leftover_segments_are_ignored_and_cleaned() {
    let dir = tempfile::tempdir().unwrap();
    let mut index = small_index(dir.path());
    let stray = dir
        .path()
        .join(bryo_index::SEGMENTS_DIR)
        .join("seg-99999999-dead.parquet");
    std::fs::write(&stray, b"half a segment").unwrap();
    // Readers ignore it.
    let before = index.info().unwrap();
    assert_eq!(before.segments, 1);
    assert!(index.lookup(&[1, 2]).is_ok());
    // The next writer deletes it.
    index.compact().unwrap();
    assert!(!stray.exists());
}

#[test]
fn removing_a_document_removes_its_postings_and_empty_submission() {
    let dir = tempfile::tempdir().unwrap();
    let mut index = small_index(dir.path());
    let all = |index: &Index| -> Vec<String> {
        index
            .archived()
            .unwrap()
            .iter()
            .flat_map(|a| a.submission.files.iter().map(|(f, _)| f.path.clone()))
            .collect()
    };
    assert_eq!(all(&index), ["s0.txt", "s1.txt", "s2.txt"]);
    // The hashes of s1.txt, looked up before and after.
    let archived = index.archived().unwrap();
    let s1 = &archived[1].submission.files[0].0;
    let mut f = bryo_engine::Fingerprinter::new(
        index.settings().config,
        bryo_engine::HashFunction::KarpRabin,
        bryo_engine::Selection::RobustWinnow,
    )
    .unwrap();
    let hashes: Vec<u64> = f
        .fingerprint_symbols(&s1.normalized.symbols)
        .unwrap()
        .iter()
        .map(|p| p.hash)
        .collect();
    let before = index.lookup(&hashes).unwrap();
    let docs: std::collections::HashSet<u32> = before.iter().map(|p| p.doc).collect();
    assert!(docs.contains(&1), "{docs:?}");

    assert_eq!(index.remove_document("s1.txt").unwrap(), 1);
    assert_eq!(all(&index), ["s0.txt", "s2.txt"]);
    let info = index.info().unwrap();
    assert_eq!((info.submissions, info.documents), (2, 2));
    let after = index.lookup(&hashes).unwrap();
    assert!(after.iter().all(|p| p.doc != 1));
    assert_eq!(
        after,
        before
            .iter()
            .copied()
            .filter(|p| p.doc != 1)
            .collect::<Vec<_>>()
    );
    // Compaction drops the postings for good and changes no answer.
    let compacted = index.compact().unwrap();
    assert!(compacted.postings_dropped > 0);
    assert_eq!(index.lookup(&hashes).unwrap(), after);
    assert!(matches!(
        index.remove_document("s1.txt"),
        Err(IndexError::NothingToRemove(_))
    ));
    assert!(matches!(
        index.remove_tag("spring"),
        Err(IndexError::NothingToRemove(_))
    ));
}

/// Records every stage start and the work done in it.
#[derive(Default)]
struct Watcher(std::sync::Mutex<Vec<(bryo_match::Stage, u64, u64)>>);

impl bryo_match::Progress for Watcher {
    fn start(&self, stage: bryo_match::Stage, work: u64) {
        self.0.lock().unwrap().push((stage, work, 0));
    }
    fn advance(&self, done: u64) {
        if let Some(last) = self.0.lock().unwrap().last_mut() {
            last.2 += done;
        }
    }
}

#[test]
fn add_reports_its_progress() {
    let dir = tempfile::tempdir().unwrap();
    let mut index = Index::create(dir.path(), settings()).unwrap();
    let subs = (0..5)
        .map(|i| Submission {
            name: format!("s{i}"),
            old: false,
            files: vec![
                file(format!("s{i}/a.txt"), WORDS[i..].join(" ").repeat(20)),
                file(format!("s{i}/b.txt"), WORDS[..i + 3].join(" ").repeat(20)),
            ],
        })
        .collect();
    let watcher = Watcher::default();
    let summary = index
        .add_with_progress(inputs(subs), "spring", &watcher)
        .unwrap();
    let seen = watcher.0.into_inner().unwrap();
    assert_eq!(
        seen,
        [
            (bryo_match::Stage::Analyze, 10, 10),
            (bryo_match::Stage::Index, summary.postings, summary.postings),
        ]
    );
    assert!(summary.postings > 0);
}

/// What a report says of its pairs and clusters, with submissions named
/// rather than numbered (a filtered archive numbers them differently).
fn named_results(report: &Report) -> (Vec<String>, Vec<String>) {
    let name = |i: usize| report.submissions[i].name.clone();
    let pairs = report
        .pairs
        .iter()
        .map(|p| {
            let mut p = p.clone();
            let (a, b) = (name(p.a), name(p.b));
            (p.a, p.b) = (0, 0);
            format!("{a} | {b} | {p:?}")
        })
        .collect();
    let clusters = report
        .clusters
        .iter()
        .map(|c| {
            let members: Vec<String> = c.members.iter().map(|&m| name(m)).collect();
            format!("{members:?} {}", c.max_similarity)
        })
        .collect();
    (pairs, clusters)
}

/// Compares the new submissions with the whole archive and with the part
/// [`Index::related`] finds; returns both results and the documents
/// loaded of the archive's.
fn whole_and_related(
    index: &Index,
    new: Vec<Submission>,
    options: &CompareOptions,
) -> (Option<Report>, Option<Report>, u64, u64) {
    let whole: Vec<ArchivedSubmission> = index
        .archived()
        .unwrap()
        .into_iter()
        .map(|a| a.submission)
        .collect();
    let with_whole = run(inputs(new.clone()), whole, options);
    let analyzed = analyze_new(&new, options);
    let refs: Vec<&[bryo_compare::Analyzed]> = analyzed.iter().map(Vec::as_slice).collect();
    let related = index
        .related(&refs, options.max_submissions.unwrap_or(0))
        .unwrap();
    let archive = related.archived.into_iter().map(|a| a.submission).collect();
    let with_related = run_excluding(inputs(new), archive, options, &related.excluded);
    (
        with_whole,
        with_related,
        related.loaded_documents,
        related.documents,
    )
}

/// The new submissions' files through their front-end.
fn analyze_new(new: &[Submission], options: &CompareOptions) -> Vec<Vec<bryo_compare::Analyzed>> {
    new.iter()
        .map(|s| {
            s.files
                .iter()
                .map(|f| {
                    bryo_compare::analyze(&f.display_path, &f.bytes, &options.analyze).unwrap()
                })
                .collect()
        })
        .collect()
}

/// [`run`] with hashes excluded from matching.
fn run_excluding(
    inputs: Inputs,
    archive: Vec<ArchivedSubmission>,
    options: &CompareOptions,
    excluded: &[u64],
) -> Option<Report> {
    let analysis = analyze_inputs_with_archive(inputs, archive, options, &Silent).ok()?;
    let mut corpus = analysis.corpus();
    corpus.exclude_hashes(excluded.iter().copied());
    let indexed = bryo_match::fingerprint(&corpus, analysis.match_options(), &Silent)
        .unwrap()
        .index(&Silent)
        .unwrap();
    let candidates = indexed.pairs(&Silent).unwrap();
    let comparison = indexed.fragments(candidates, &Silent).unwrap();
    drop(corpus);
    Some(analysis.report(comparison, options, &Silent).report)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    /// Under `-m N` (and with no limit), the new term compared with the
    /// archived submissions `related` loads, common hashes excluded, gets
    /// the same pairs, fragments, scores and clusters as compared with the
    /// whole archive.
    #[test]
    fn related_part_matches_like_the_whole_archive(
        terms in prop_oneof![terms_strategy(), terms_with(5000)],
        max_submissions in 0usize..4,
        max_pairs in prop_oneof![Just(0usize), 1usize..4],
    ) {
        let current = terms.len() - 1;
        let dir = tempfile::tempdir().unwrap();
        let mut index = Index::create(&dir.path().join("index"), settings()).unwrap();
        for t in 0..current {
            index.add(inputs(term_submissions(&terms, t, false)), &format!("term{t}")).unwrap();
        }
        let mut options = options(Some(max_submissions));
        options.max_pairs = max_pairs;
        let new = term_submissions(&terms, current, false);
        let (whole, related, loaded, total) = whole_and_related(&index, new.clone(), &options);
        prop_assert!(loaded <= total);

        // What `related` loads and excludes, against a naive computation
        // over every archived file.
        let mut fingerprinter = bryo_engine::Fingerprinter::new(
            index.settings().config,
            bryo_engine::HashFunction::KarpRabin,
            bryo_engine::Selection::RobustWinnow,
        ).unwrap();
        let mut hashes_of = |f: &bryo_compare::Analyzed| -> std::collections::BTreeSet<u64> {
            fingerprinter.fingerprint_symbols(&f.normalized.symbols).unwrap().iter().map(|p| p.hash).collect()
        };
        let analyzed = analyze_new(&new, &options);
        let new_per_sub: Vec<std::collections::BTreeSet<u64>> = analyzed
            .iter()
            .map(|files| files.iter().flat_map(&mut hashes_of).collect())
            .collect();
        let new_symbols: Vec<&[u64]> = analyzed
            .iter()
            .flatten()
            .map(|a| &a.normalized.symbols[..])
            .filter(|s| !s.is_empty())
            .collect();
        let everything = index.archived().unwrap();
        let per_sub: Vec<std::collections::BTreeSet<u64>> = everything
            .iter()
            .map(|a| a.submission.files.iter().flat_map(|(f, _)| hashes_of(f)).collect())
            .collect();
        let holders = |h: &u64| {
            per_sub.iter().chain(&new_per_sub).filter(|s| s.contains(h)).count()
        };
        let common = |h: &u64| max_submissions > 0 && holders(h) > max_submissions;
        let wanted: Vec<usize> = (0..everything.len())
            .filter(|&i| {
                new_per_sub.iter().any(|n| per_sub[i].intersection(n).any(|h| !common(h)))
                    || everything[i].submission.files.iter().any(|(f, _)| new_symbols.contains(&&f.normalized.symbols[..]))
            })
            .collect();
        let refs: Vec<&[bryo_compare::Analyzed]> = analyzed.iter().map(Vec::as_slice).collect();
        let found = index.related(&refs, max_submissions).unwrap();
        let names: Vec<&str> = found.archived.iter().map(|a| a.submission.name.as_str()).collect();
        let expected: Vec<&str> = wanted.iter().map(|&i| everything[i].submission.name.as_str()).collect();
        prop_assert_eq!(names, expected);
        let held: std::collections::BTreeSet<u64> = wanted
            .iter()
            .flat_map(|&i| per_sub[i].iter().copied())
            .chain(new_per_sub.iter().flatten().copied())
            .collect();
        let excluded: Vec<u64> = held.into_iter().filter(|h| common(h)).collect();
        prop_assert_eq!(&found.excluded, &excluded);
        match (whole, related) {
            (Some(whole), Some(related)) => {
                prop_assert_eq!(named_results(&whole), named_results(&related));
            }
            // Too few submissions with the whole archive: with part of it too.
            (None, related) => prop_assert!(related.is_none()),
            // Too few submissions with the related part only: the whole
            // archive pairs nothing with the new term.
            (Some(whole), None) => prop_assert!(whole.pairs.is_empty()),
        }
    }
}

/// A text of `n` words unique to `tag`.
fn unique_words(tag: &str, n: usize) -> String {
    (0..n)
        .map(|i| format!("{tag}w{i}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// An archive of ten submissions of which two share passages with the new
/// term: only those two are loaded, and a passage held by four archived
/// submissions is excluded under `-m 3` as with the whole archive — its
/// symbols stop the copied passage's fragment, which without the exclusion
/// would run on into it.
#[test]
fn related_loads_only_submissions_sharing_a_fingerprint() {
    let dir = tempfile::tempdir().unwrap();
    let mut index = Index::create(&dir.path().join("index"), settings()).unwrap();
    let copied = unique_words("copied", 30);
    let common = unique_words("common", 30);
    let mut archived = Vec::new();
    for i in 0..10 {
        let mut text = unique_words(&format!("a{i}"), 40);
        if i < 2 {
            // The passage the new submission copies, followed by common code.
            text = format!("{text} {copied} {common}");
        } else if i < 4 {
            text = format!("{text} {common}");
        }
        archived.push(Submission {
            name: format!("old{i}"),
            old: false,
            files: vec![file(format!("old{i}/f.txt"), text)],
        });
    }
    index.add(inputs(archived), "fall").unwrap();
    // The copy runs on into the first three words of the common passage:
    // too few for a k-gram of it (k = 4).
    let copy = format!(
        "{} {copied} commonw0 commonw1 commonw2",
        unique_words("n0", 40)
    );
    let new = vec![
        Submission {
            name: "new0".to_string(),
            old: false,
            files: vec![file("new0/f.txt".to_string(), copy.clone())],
        },
        Submission {
            name: "new1".to_string(),
            old: false,
            files: vec![file("new1/f.txt".to_string(), unique_words("n1", 50))],
        },
    ];
    // Under -m 2 the copied passage is common too (three submissions).
    for (m, pairs, loaded_documents) in [(0, 2, 2), (2, 0, 0), (3, 2, 2), (5, 2, 2)] {
        let options = options(Some(m));
        let (whole, related, loaded, total) = whole_and_related(&index, new.clone(), &options);
        assert_eq!((loaded, total), (loaded_documents, 10), "-m {m}");
        let (whole, related) = (whole.unwrap(), related.unwrap());
        assert_eq!(named_results(&whole), named_results(&related), "-m {m}");
        assert_eq!(whole.pairs.len(), pairs, "-m {m}");
    }
    let analyzed = analyze_new(&new, &options(None));
    let refs: Vec<&[bryo_compare::Analyzed]> = analyzed.iter().map(Vec::as_slice).collect();
    let related = index.related(&refs, 3).unwrap();
    // The common passage's hashes, in four archived submissions.
    assert!(!related.excluded.is_empty());
    let counts = index.submission_counts(&related.excluded).unwrap();
    assert!(counts.iter().all(|&(_, n)| n == 4), "{counts:?}");
    assert!(index.related(&refs, 4).unwrap().excluded.is_empty());
    assert!(index.related(&refs, 0).unwrap().excluded.is_empty());
    // Without the exclusion the related part alone matches differently.
    let options = options(Some(3));
    let (whole, _, _, _) = whole_and_related(&index, new.clone(), &options);
    let archive = related.archived.into_iter().map(|a| a.submission).collect();
    let unexcluded = run_excluding(inputs(new), archive, &options, &[]).unwrap();
    assert_ne!(named_results(&whole.unwrap()), named_results(&unexcluded));
}

/// A file too short for a k-gram has no fingerprint, yet makes two
/// submissions identical: the archived submission holding the same file as
/// a new one is loaded, and the identical pair is reported as with the
/// whole archive.
#[test]
fn related_loads_identical_submissions_without_fingerprints() {
    let dir = tempfile::tempdir().unwrap();
    let mut index = Index::create(&dir.path().join("index"), settings()).unwrap();
    let mut archived = Vec::new();
    for i in 0..5 {
        archived.push(Submission {
            name: format!("old{i}"),
            old: false,
            files: vec![file(
                format!("old{i}/f.txt"),
                unique_words(&format!("a{i}"), 2),
            )],
        });
    }
    index.add(inputs(archived), "fall").unwrap();
    let new = vec![
        Submission {
            name: "new0".to_string(),
            old: false,
            // The same two words as old3's file.
            files: vec![file("new0/f.txt".to_string(), unique_words("a3", 2))],
        },
        Submission {
            name: "new1".to_string(),
            old: false,
            files: vec![file("new1/f.txt".to_string(), unique_words("n1", 50))],
        },
    ];
    for m in [0, 1, 3] {
        let (whole, related, loaded, total) =
            whole_and_related(&index, new.clone(), &options(Some(m)));
        assert_eq!((loaded, total), (1, 5), "-m {m}");
        let (whole, related) = (whole.unwrap(), related.unwrap());
        assert_eq!(named_results(&whole), named_results(&related), "-m {m}");
        assert_eq!(whole.pairs.len(), 1, "-m {m}");
        assert!(whole.pairs[0].identical, "-m {m}");
    }
}

/// What an index holds, in a comparable form: per archived submission its
/// tag, name, and per file the path, language, front-end, fingerprints,
/// symbols with spans and source bytes; then the documents' ids and the
/// postings of every hash in `hashes`.
fn holdings(index: &Index, hashes: &[u64]) -> Vec<String> {
    let mut out = Vec::new();
    for a in index.archived().unwrap() {
        out.push(format!("{} {}", a.tag, a.submission.name));
        for ((file, fp), source) in a.submission.files.iter().zip(&a.sources) {
            out.push(format!(
                "  {} {} {:?} {:?} {:?} {:?}",
                file.path,
                file.language.name(),
                file.frontend,
                fp,
                file.normalized,
                source
            ));
        }
    }
    for d in index.documents().unwrap() {
        out.push(format!(
            "doc {} {} {} {} {}",
            d.doc, d.path, d.submission, d.tag, d.symbols
        ));
    }
    out.push(format!("{:?}", index.lookup(hashes).unwrap()));
    out
}

/// A directory of submissions: two students with two files each, a file
/// the front-end cannot take and one over the size limit.
fn term_directory(root: &std::path::Path) {
    let text = |i: usize, n: usize| {
        (0..n)
            .map(|j| WORDS[(i * 5 + j * j) % WORDS.len()])
            .collect::<Vec<_>>()
            .join(" ")
    };
    for (i, (dir, name)) in [
        ("bob", "a.txt"),
        ("bob", "b.txt"),
        ("alice", "main.txt"),
        ("alice", "zz.txt"),
        ("carol", "big.txt"),
    ]
    .iter()
    .enumerate()
    {
        std::fs::create_dir_all(root.join(dir)).unwrap();
        let n = if *dir == "carol" { 3000 } else { 300 };
        std::fs::write(root.join(dir).join(name), text(i, n)).unwrap();
    }
    std::fs::write(root.join("alice").join("bin.txt"), b"\x00\x01binary\xff").unwrap();
}

#[test]
fn prepare_and_commit_store_what_add_stores() {
    let dir = tempfile::tempdir().unwrap();
    let term = dir.path().join("term");
    term_directory(&term);
    for directory_mode in [false, true] {
        let discover = || {
            bryo_input::discover(&bryo_input::InputOptions {
                roots: vec![term.clone()],
                directory_mode,
                max_file_size: 8000,
                ..bryo_input::InputOptions::default()
            })
            .unwrap()
        };
        let mode = if directory_mode { "d" } else { "files" };
        let mut added = Index::create(&dir.path().join(format!("add-{mode}")), settings()).unwrap();
        let add_summary = added.add(discover(), "fall").unwrap();

        // The same files, prepared one by one in reverse order (as workers
        // would hand them in), the one over the limit given with its reason.
        let mut committed =
            Index::create(&dir.path().join(format!("commit-{mode}")), settings()).unwrap();
        let mut preparer = committed.preparer().unwrap();
        let inputs = discover();
        let mut prepared: Vec<bryo_index::PreparedDocument> = inputs
            .submissions
            .iter()
            .flat_map(|s| s.files.iter().map(move |f| (s.name.clone(), f)))
            .map(|(name, f)| preparer.prepare(&name, &f.display_path, &f.bytes))
            .collect();
        prepared.extend(
            inputs
                .skipped
                .iter()
                .map(|s| preparer.skipped(&s.path, &s.path, s.reason.to_string())),
        );
        prepared.reverse();
        let hashes: Vec<u64> = prepared
            .iter()
            .filter_map(|d| d.content.as_ref().ok())
            .flat_map(|d| d.fingerprints.iter().map(|f| f.hash))
            .collect();
        let commit_summary = committed
            .commit(prepared.into_iter().map(Ok), "fall")
            .unwrap();

        assert_eq!(commit_summary, add_summary, "{mode}");
        assert_eq!(add_summary.submissions, if directory_mode { 2 } else { 4 });
        assert_eq!(add_summary.documents, 4);
        assert_eq!(add_summary.skipped.len(), 2, "{:?}", add_summary.skipped);
        assert!(add_summary.postings > 0);
        let a = holdings(&added, &hashes);
        assert_eq!(a, holdings(&committed, &hashes), "{mode}");
        assert!(a.len() > 10, "{a:?}");
        let (ia, ic) = (added.info().unwrap(), committed.info().unwrap());
        assert_eq!(
            (
                ia.submissions,
                ia.documents,
                ia.symbols,
                ia.source_bytes,
                ia.tags
            ),
            (
                ic.submissions,
                ic.documents,
                ic.symbols,
                ic.source_bytes,
                ic.tags
            )
        );
        assert_eq!((ia.segments, ia.postings), (ic.segments, ic.postings));
    }
}

/// The index's counts, to compare before and after a command.
fn counts(index: &Index) -> String {
    let i = index.info().unwrap();
    format!(
        "{:?}",
        (
            i.submissions,
            i.documents,
            i.symbols,
            i.tags,
            i.segments,
            i.postings
        )
    )
}

#[test]
fn commit_interrupted_or_refused_leaves_the_index_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let mut index = small_index(dir.path());
    let before_info = counts(&index);
    let before = holdings(&index, &[]);
    let segments = || {
        let mut files: Vec<_> = std::fs::read_dir(dir.path().join(bryo_index::SEGMENTS_DIR))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        files.sort();
        files
    };
    let before_files = segments();
    let text = |i: usize| WORDS[i..].join(" ").repeat(30);
    let mut preparer = index.preparer().unwrap();
    let good: Vec<bryo_index::PreparedDocument> = (0..3)
        .map(|i| preparer.prepare(&format!("n{i}"), &format!("n{i}.txt"), text(i).as_bytes()))
        .collect();
    let mut other = bryo_index::Preparer::new(
        IndexSettings::new(settings().analyze, Some(5), Some(3), None).unwrap(),
    )
    .unwrap();
    let foreign = other.prepare("x", "x.txt", text(4).as_bytes());
    assert!(good.iter().all(|d| d.content.is_ok()));

    // An iterator that fails after two documents.
    let failing =
        good[..2]
            .iter()
            .cloned()
            .map(Ok)
            .chain(std::iter::once(Err(IndexError::Prepared(
                "injected".into(),
            ))));
    let err = index.commit(failing, "spring").unwrap_err();
    assert!(err.to_string().contains("injected"), "{err}");
    // Settings of another index.
    let mixed = vec![good[0].clone(), foreign].into_iter().map(Ok);
    let err = index.commit(mixed, "spring").unwrap_err();
    assert!(
        matches!(
            err,
            IndexError::Mismatch {
                what: "settings",
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("k=5"), "{err}");
    // A path twice.
    let twice = vec![good[0].clone(), good[1].clone(), good[0].clone()]
        .into_iter()
        .map(Ok);
    let err = index.commit(twice, "spring").unwrap_err();
    assert!(matches!(err, IndexError::Prepared(_)), "{err}");

    let after_info = counts(&index);
    assert_eq!(after_info, before_info);
    // The shared-hash table too: it changes only with a commit.
    assert_eq!(
        index.shared_hashes().unwrap(),
        index.shared_hashes_recounted().unwrap()
    );
    assert_eq!(holdings(&index, &[]), before);
    assert_eq!(segments(), before_files);
    // And the index still takes a commit, with the next document ids.
    let summary = index.commit(good.into_iter().map(Ok), "spring").unwrap();
    assert_eq!((summary.submissions, summary.documents), (3, 3));
    let docs = index.documents().unwrap();
    assert_eq!(
        docs.iter().map(|d| d.doc).collect::<Vec<_>>(),
        (0..6).collect::<Vec<_>>()
    );
    assert_eq!(docs[3].path, "n0.txt");
    assert_eq!(docs[3].source, text(0).into_bytes());
    assert_eq!(index.segment_files().unwrap().len(), 2);
}
