//! A streamed run (`compare_streamed`) writes the in-memory run's report.

use std::path::Path;

use bryo_compare::{compare, compare_streamed, CompareOptions, FragmentKeeping, StreamOptions};
use bryo_frontend::Language;
use bryo_input::{discover, InputOptions};
use proptest::prelude::*;

/// Sixty Python lines whose token streams differ (shape, arity, operator).
fn line(i: usize) -> String {
    const OPS: [&str; 12] = [
        "+", "-", "*", "/", "%", "**", "//", "<<", ">>", "&", "|", "^",
    ];
    let op = OPS[(i / 4) % OPS.len()];
    let args = vec!["a"; i % 5 + 1].join(", ");
    match i % 4 {
        0 => format!("value = compute({args}) {op} 3\n"),
        1 => format!("for item in range({args}):\n    total = total {op} item\n"),
        2 => format!("if check({args}) {op} 2 > limit:\n    result.append([{args}])\n"),
        _ => format!("table[{args}] = {{'key': ({args},)}} {op} other\n"),
    }
}

type FileSpec = (usize, Vec<usize>, bool, Option<usize>);

fn write_corpus(root: &Path, files: &[FileSpec]) {
    for (n, (dir, lines, old, copy_of)) in files.iter().enumerate() {
        let lines = match copy_of {
            Some(c) if *c < n => &files[*c].1,
            _ => lines,
        };
        let text: String = lines.iter().map(|&i| line(i)).collect();
        let side = if *old { "old" } else { "new" };
        let dir = root.join(side).join(format!("d{dir}"));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(format!("f{n}.py")), text).unwrap();
    }
    std::fs::create_dir_all(root.join("new")).unwrap();
}

fn json(report: &bryo_report::Report) -> String {
    let mut out = Vec::new();
    bryo_report::write_json(report, &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Random corpora on disk, with exact copies, old submissions and
    /// directory mode, under MOSS's rule and the rarity rule, spilled
    /// (a budget of a few entries) or not.
    #[test]
    fn streamed_reports_equal_in_memory_ones(
        files in proptest::collection::vec(
            (0usize..5, proptest::collection::vec(0usize..60, 2..25), proptest::bool::weighted(0.2),
             proptest::option::weighted(0.2, 0usize..12)),
            2..30,
        ),
        max_submissions in prop_oneof![Just(None), (0usize..4).prop_map(Some)],
        max_pairs in prop_oneof![Just(0usize), 1usize..4, Just(250)],
        min_similarity in prop_oneof![Just(0.0), Just(0.3)],
        directory_mode in any::<bool>(),
        spill in any::<bool>(),
        discount in any::<bool>(),
        keeping in prop_oneof![
            Just(FragmentKeeping::Kept),
            Just(FragmentKeeping::Spilled),
            Just(FragmentKeeping::Dropped),
        ],
    ) {
        let dir = tempfile::tempdir().unwrap();
        write_corpus(dir.path(), &files);
        let has_old = files.iter().any(|f| f.2);
        let mut input = InputOptions {
            roots: vec![dir.path().join("new")],
            old: if has_old { vec![dir.path().join("old")] } else { Vec::new() },
            directory_mode,
            ..InputOptions::default()
        };
        let mut options = CompareOptions {
            max_submissions,
            max_pairs,
            min_similarity,
            directory_mode,
            rarity_discount: discount,
            ..CompareOptions::default()
        };
        options.analyze.language = Language::by_name("python");
        let whole = compare(discover(&input).unwrap(), &options);
        input.defer_reading = true;
        let deferred = discover(&input).unwrap();
        prop_assert!(deferred.submissions.iter().flat_map(|s| &s.files).all(|f| f.bytes.is_empty()));
        let memory = if spill { 0 } else { 1 << 30 };
        let stream = StreamOptions {
            batch_files: 3,
            fragments: keeping,
            ..StreamOptions::new(memory, dir.path().to_path_buf())
        };
        let streamed = compare_streamed(deferred, &options, &stream, &bryo_compare::Silent);
        match (whole, streamed) {
            (Ok(whole), Ok(mut streamed)) => {
                let spilled = streamed.pairs.take();
                prop_assert_eq!(spilled.is_some(), keeping != FragmentKeeping::Kept);
                if let Some(spilled) = &spilled {
                    // The report holds no pairs; they are read back in rank
                    // order, in any batches, as they were.
                    prop_assert!(streamed.report.pairs.is_empty());
                    prop_assert_eq!(spilled.len(), whole.report.pairs.len());
                    prop_assert_eq!(
                        spilled.max_similarity(),
                        whole.report.pairs.iter().map(|p| p.similarity).reduce(f64::max)
                    );
                    // Twice, as the table reads them (widths, then rows).
                    for _ in 0..2 {
                        let mut reader = spilled.reader().unwrap();
                        let mut read = Vec::new();
                        loop {
                            let batch = reader.next_batch(2).unwrap();
                            if batch.is_empty() {
                                break;
                            }
                            read.extend(batch);
                        }
                        streamed.report.pairs = read;
                        let mut expected = whole.report.clone();
                        if keeping == FragmentKeeping::Dropped {
                            for pair in &mut expected.pairs {
                                pair.fragments.clear();
                            }
                        }
                        prop_assert_eq!(json(&expected), json(&streamed.report));
                    }
                } else {
                    prop_assert_eq!(json(&whole.report), json(&streamed.report));
                }
                if !spill {
                    prop_assert_eq!(streamed.spilled_runs, 0);
                }
            }
            (Err(a), Err(b)) => prop_assert_eq!(a.to_string(), b.to_string()),
            (a, b) => prop_assert!(false, "in memory {:?}, streamed {:?}", a.map(|o| o.report.pairs.len()), b.map(|s| s.report.pairs.len())),
        }
    }
}
