//! A query against the index read in part (`compare_against`) writes the
//! report of the whole archive loaded as old submissions, and the index's
//! shared-hash table, kept current by `add` and `remove`, equals one
//! counted again from every posting.

use std::path::Path;

use bryo_compare::{
    analyze_inputs_with_archive, compare_against, AnalyzeOptions, ArchivedSubmission,
    CompareOptions, StreamOptions,
};
use bryo_frontend::Language;
use bryo_index::{archive_label, Index, IndexSettings};
use bryo_input::{discover, InputOptions, Inputs};
use bryo_match::Silent;
use proptest::prelude::*;

/// Python lines whose token streams differ (shape, arity, operator).
fn line(i: usize) -> String {
    const OPS: [&str; 8] = ["+", "-", "*", "/", "%", "<<", ">>", "^"];
    let op = OPS[(i / 4) % OPS.len()];
    let args = vec!["a"; i % 5 + 1].join(", ");
    match i % 4 {
        0 => format!("value = compute({args}) {op} 3\n"),
        1 => format!("for item in range({args}):\n    total = total {op} item\n"),
        2 => format!("if check({args}) {op} 2 > limit:\n    result.append([{args}])\n"),
        _ => format!("table[{args}] = {{'key': ({args},)}} {op} other\n"),
    }
}

/// A file: its submission, its lines, and maybe the number of an earlier
/// file (of any term) it copies exactly.
type FileSpec = (usize, Vec<usize>, Option<usize>);

/// Writes term `t`'s files under `root/t{t}/s{sub}/f{n}.py`; `texts` holds
/// the text of every file written so far (copies read it).
fn write_term(root: &Path, t: usize, files: &[FileSpec], texts: &mut Vec<String>) {
    let term = root.join(format!("t{t}"));
    std::fs::create_dir_all(&term).unwrap();
    for (n, (sub, lines, copy_of)) in files.iter().enumerate() {
        let text = match copy_of {
            Some(c) if !texts.is_empty() => texts[c % texts.len()].clone(),
            _ => lines.iter().map(|&i| line(i)).collect(),
        };
        let dir = term.join(format!("s{sub}"));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(format!("f{n}.py")), &text).unwrap();
        texts.push(text);
    }
}

fn inputs(root: &Path, defer_reading: bool) -> Inputs {
    discover(&InputOptions {
        roots: vec![root.to_path_buf()],
        defer_reading,
        ..InputOptions::default()
    })
    .unwrap()
}

fn json(report: &bryo_report::Report) -> String {
    let mut out = Vec::new();
    bryo_report::write_json(report, &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

/// The whole archive loaded, named as a query names it, and the whole
/// compare job in memory.
fn in_memory(index: &Index, new: Inputs, options: &CompareOptions) -> Result<String, String> {
    let archive: Vec<ArchivedSubmission> = index
        .archived()
        .unwrap()
        .into_iter()
        .map(|a| {
            let label = archive_label(&a.tag);
            let mut s = a.submission;
            s.name = format!("{} {label}", s.name);
            for (f, _) in &mut s.files {
                f.path = format!("{} {label}", f.path);
            }
            s
        })
        .collect();
    let analysis =
        analyze_inputs_with_archive(new, archive, options, &Silent).map_err(|e| e.to_string())?;
    let corpus = analysis.corpus();
    let indexed = bryo_match::fingerprint(&corpus, analysis.match_options(), &Silent)
        .unwrap()
        .index(&Silent)
        .unwrap();
    let candidates = indexed.pairs(&Silent).unwrap();
    let comparison = indexed.fragments(candidates, &Silent).unwrap();
    drop(corpus);
    Ok(json(&analysis.report(comparison, options, &Silent).report))
}

fn file_spec() -> impl Strategy<Value = FileSpec> {
    (
        0usize..3,
        proptest::collection::vec(0usize..40, 0..20),
        proptest::option::weighted(0.25, any::<usize>()),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(160))]

    /// Terms added in any order with compactions and a removal between
    /// them; the last term compared against the index, under MOSS's rule
    /// and the rarity rule, with `-n` and `--min-similarity`, spilled or
    /// not.
    #[test]
    fn queries_read_in_part_equal_the_whole_archive(
        terms in proptest::collection::vec(proptest::collection::vec(file_spec(), 1..7), 2..5),
        compact_mask in any::<u8>(),
        remove in prop_oneof![Just(None), any::<prop::sample::Index>().prop_map(Some)],
        remove_file in any::<bool>(),
        max_submissions in prop_oneof![Just(None), (0usize..4).prop_map(Some)],
        max_pairs in prop_oneof![Just(0usize), 1usize..4, Just(250)],
        min_similarity in prop_oneof![Just(0.0), Just(0.3)],
        discount in any::<bool>(),
        spill in any::<bool>(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("terms");
        let mut texts = Vec::new();
        for (t, files) in terms.iter().enumerate() {
            write_term(&root, t, files, &mut texts);
        }
        let analyze = AnalyzeOptions {
            language: Language::by_name("python"),
            ..AnalyzeOptions::default()
        };
        let settings = IndexSettings::new(analyze, None, None, None).unwrap();
        let mut index = Index::create(&dir.path().join("index"), settings).unwrap();
        let last = terms.len() - 1;
        for t in 0..last {
            index.add(inputs(&root.join(format!("t{t}")), false), &format!("term{t}")).unwrap();
            if compact_mask & (1 << t) != 0 {
                index.compact().unwrap();
            }
            prop_assert_eq!(index.shared_hashes().unwrap(), index.shared_hashes_recounted().unwrap());
        }
        if let Some(r) = remove {
            let documents = index.documents().unwrap();
            let removed = if remove_file && !documents.is_empty() {
                index.remove_document(&documents[r.index(documents.len())].path).map(|_| ())
            } else {
                index.remove_tag(&format!("term{}", r.index(last))).map(|_| ())
            };
            // A term whose files were all skipped has no tag to remove.
            let _ = removed;
            if compact_mask & 0x80 != 0 {
                index.compact().unwrap();
            }
            prop_assert_eq!(index.shared_hashes().unwrap(), index.shared_hashes_recounted().unwrap());
        }
        let options = CompareOptions {
            analyze,
            max_submissions,
            max_pairs,
            min_similarity,
            rarity_discount: discount,
            ..CompareOptions::default()
        };
        let new = root.join(format!("t{last}"));
        let whole = in_memory(&index, inputs(&new, false), &options);
        let stream = StreamOptions {
            batch_files: 3,
            ..StreamOptions::new(if spill { 0 } else { 1 << 30 }, dir.path().to_path_buf())
        };
        let archive = index.archive().unwrap();
        let part = compare_against(inputs(&new, true), &archive, &options, &stream, &Silent)
            .map(|s| json(&s.report))
            .map_err(|e| e.to_string());
        prop_assert_eq!(whole, part);
    }
}

/// An index of format version 1 (no per-document facts, no shared-hash
/// table) is upgraded when opened: the same table as one counted again,
/// and the same report as before it was taken back to version 1.
#[test]
fn format_1_indexes_are_upgraded_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("terms");
    let mut texts = Vec::new();
    let specs: Vec<Vec<FileSpec>> = (0..4)
        .map(|t| {
            (0..6)
                .map(|n| {
                    let lines = (0..12).map(|i| (i * 7 + n * 3 + t) % 40).collect();
                    let copy = (t > 0 && n % 3 == 0).then_some(n + t);
                    (n % 3, lines, copy)
                })
                .collect()
        })
        .collect();
    for (t, files) in specs.iter().enumerate() {
        write_term(&root, t, files, &mut texts);
    }
    let analyze = AnalyzeOptions {
        language: Language::by_name("python"),
        ..AnalyzeOptions::default()
    };
    let settings = IndexSettings::new(analyze, None, None, None).unwrap();
    let path = dir.path().join("index");
    let mut index = Index::create(&path, settings).unwrap();
    for t in 0..3 {
        index
            .add(
                inputs(&root.join(format!("t{t}")), false),
                &format!("term{t}"),
            )
            .unwrap();
    }
    let options = CompareOptions {
        analyze,
        max_pairs: 0,
        ..CompareOptions::default()
    };
    let stream = StreamOptions::new(1 << 30, dir.path().to_path_buf());
    let query = |index: &Index| {
        let archive = index.archive().unwrap();
        json(
            &compare_against(
                inputs(&root.join("t3"), true),
                &archive,
                &options,
                &stream,
                &Silent,
            )
            .unwrap()
            .report,
        )
    };
    let before = query(&index);
    let table = index.shared_hashes().unwrap();
    assert!(!table.is_empty());
    assert!(before.contains("[term0]"), "{before}");
    drop(index);
    let conn = rusqlite::Connection::open(path.join(bryo_index::CATALOG_FILE)).unwrap();
    conn.execute_batch(
        "ALTER TABLE documents DROP COLUMN lines;
         ALTER TABLE documents DROP COLUMN encoding;
         ALTER TABLE documents DROP COLUMN fingerprints;
         DROP TABLE shared_hashes;
         UPDATE meta SET value = '1' WHERE key = 'format_version';",
    )
    .unwrap();
    drop(conn);
    let index = Index::open(&path).unwrap();
    assert_eq!(index.shared_hashes().unwrap(), table);
    assert_eq!(index.shared_hashes_recounted().unwrap(), table);
    assert_eq!(query(&index), before);
    let conn = rusqlite::Connection::open(path.join(bryo_index::CATALOG_FILE)).unwrap();
    let version: String = conn
        .query_row(
            "SELECT value FROM meta WHERE key = 'format_version'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(version, bryo_index::INDEX_FORMAT_VERSION.to_string());
}
