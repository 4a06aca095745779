//! Inputs discovered with `defer_reading` (files listed, not read) are read
//! by the analysis: the in-memory run reports what it reports for the same
//! files read at discovery, and a file that cannot be read then is skipped
//! with the reason, never analyzed as an empty file.

use std::path::Path;

use bryo_compare::{compare, CompareOptions};
use bryo_frontend::Language;
use bryo_input::{discover, InputOptions};
use proptest::prelude::*;

/// Forty Python lines whose token streams differ.
fn line(i: usize) -> String {
    const OPS: [&str; 8] = ["+", "-", "*", "//", "%", "<<", "&", "|"];
    let op = OPS[(i / 5) % OPS.len()];
    let args = vec!["a"; i % 5 + 1].join(", ");
    match i % 3 {
        0 => format!("value = compute({args}) {op} 3\n"),
        1 => format!("for item in range({args}):\n    total = total {op} item\n"),
        _ => format!("if check({args}) {op} 2 > limit:\n    result.append([{args}])\n"),
    }
}

/// Writes file `n` of `files` as `root/d{dir}/f{n}.py`: the lines given, or
/// a copy of an earlier file's, or nothing at all.
fn write_corpus(root: &Path, files: &[(usize, Vec<usize>, Option<usize>)]) {
    for (n, (dir, lines, copy_of)) in files.iter().enumerate() {
        let lines = match copy_of {
            Some(c) if *c < n => &files[*c].1,
            _ => lines,
        };
        let text: String = lines.iter().map(|&i| line(i)).collect();
        let dir = root.join(format!("d{dir}"));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(format!("f{n}.py")), text).unwrap();
    }
}

fn json(report: &bryo_report::Report) -> String {
    let mut out = Vec::new();
    bryo_report::write_json(report, &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

fn python() -> CompareOptions {
    let mut options = CompareOptions {
        max_pairs: 0,
        ..CompareOptions::default()
    };
    options.analyze.language = Language::by_name("python");
    options
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// Random corpora with exact copies and empty files, in directory mode
    /// or not: the same report whether discovery read the files or only
    /// listed them.
    #[test]
    fn deferred_inputs_report_what_read_ones_do(
        files in proptest::collection::vec(
            (0usize..4, proptest::collection::vec(0usize..40, 0..20),
             proptest::option::weighted(0.3, 0usize..10)),
            2..16,
        ),
        directory_mode in any::<bool>(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        write_corpus(dir.path(), &files);
        let mut input = InputOptions {
            roots: vec![dir.path().to_path_buf()],
            directory_mode,
            ..InputOptions::default()
        };
        let options = CompareOptions { directory_mode, ..python() };
        let read = compare(discover(&input).unwrap(), &options);
        input.defer_reading = true;
        let listed = discover(&input).unwrap();
        prop_assert!(listed.submissions.iter().flat_map(|s| &s.files).all(|f| f.bytes.is_empty()));
        let deferred = compare(listed, &options);
        match (read, deferred) {
            (Ok(read), Ok(deferred)) => {
                prop_assert_eq!(json(&read.report), json(&deferred.report));
            }
            (Err(a), Err(b)) => prop_assert_eq!(a.to_string(), b.to_string()),
            (a, b) => prop_assert!(false, "{:?} against {:?}", a.is_ok(), b.is_ok()),
        }
    }
}

/// A listed file removed before the run, and one grown past the size
/// limit, are skipped with the reason discovery would have given; the
/// other files are compared.
#[test]
fn files_that_cannot_be_read_at_analysis_are_skipped_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let body: String = (0..30).map(line).collect();
    for name in ["a.py", "b.py", "c.py", "gone.py", "grown.py"] {
        std::fs::write(dir.path().join(name), &body).unwrap();
    }
    let limit = body.len() as u64 + 10;
    let input = InputOptions {
        roots: vec![dir.path().to_path_buf()],
        defer_reading: true,
        max_file_size: limit,
        ..InputOptions::default()
    };
    let listed = discover(&input).unwrap();
    assert_eq!(listed.submissions.len(), 5);
    std::fs::remove_file(dir.path().join("gone.py")).unwrap();
    std::fs::write(dir.path().join("grown.py"), body.repeat(2)).unwrap();
    let options = CompareOptions {
        max_file_size: limit,
        ..python()
    };
    let report = compare(listed, &options).unwrap().report;

    let names: Vec<&str> = report.submissions.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names.len(), 3, "{names:?}");
    assert!(names
        .iter()
        .all(|n| !n.ends_with("gone.py") && !n.ends_with("grown.py")));
    let reason = |file: &str| {
        let skipped: Vec<_> = report
            .skipped
            .iter()
            .filter(|s| s.path.ends_with(file))
            .collect();
        assert_eq!(skipped.len(), 1, "{:?}", report.skipped);
        skipped[0].reason.clone()
    };
    assert!(
        reason("gone.py").starts_with("cannot read"),
        "{}",
        reason("gone.py")
    );
    assert!(
        reason("grown.py").contains("limit"),
        "{}",
        reason("grown.py")
    );
    // The three files read are copies of one another, pair for pair.
    assert_eq!(report.pairs.len(), 3);
    assert!(report.pairs.iter().all(|p| p.similarity > 0.99));
}
