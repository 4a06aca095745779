//! The compare job run stage by stage, watched and cancelled.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use bryo_compare::{
    analyze_inputs, compare, compare_with_progress, AnalyzeOptions, Cancel, CompareError,
    CompareOptions, Progress, Stage,
};
use bryo_frontend::Language;
use bryo_input::{InputFile, Inputs, Source, Submission};

/// Four Python submissions: two share a function, one is an exact copy of
/// another, one stands alone.
fn inputs() -> Inputs {
    let shared = "def area(shape, scale):\n    total = 0\n    for side in shape.sides():\n        total += side * scale\n        if total > 100:\n            total = total // 2\n    return total + len(shape.name)\n";
    let files = [
        (
            "alice.py",
            format!("import math\n{shared}print(area(s, 2))\n"),
        ),
        (
            "bob.py",
            format!("x = [1, 2, 3]\n{shared}\nprint(sum(x))\n"),
        ),
        (
            "carol.py",
            format!("import math\n{shared}print(area(s, 2))\n"),
        ),
        (
            "dave.py",
            "for i in range(10):\n    print(i * i, 'squares')\nwhile True:\n    break\n"
                .to_string(),
        ),
    ];
    Inputs {
        submissions: files
            .into_iter()
            .map(|(name, text)| Submission {
                name: name.to_string(),
                old: false,
                files: vec![InputFile {
                    display_path: name.to_string(),
                    bytes: text.into_bytes(),
                    source: Source::File(name.into()),
                    size_hint: None,
                }],
            })
            .collect(),
        base: Vec::new(),
        skipped: Vec::new(),
    }
}

fn options() -> CompareOptions {
    CompareOptions {
        analyze: AnalyzeOptions {
            language: Some(Language::by_name("python").expect("python is known")),
            ..AnalyzeOptions::default()
        },
        k: Some(5),
        w: Some(4),
        ..CompareOptions::default()
    }
}

#[derive(Default)]
struct Watcher {
    stages: Mutex<Vec<(Stage, u64)>>,
    done: AtomicU64,
}

impl Progress for Watcher {
    fn start(&self, stage: Stage, work: u64) {
        self.stages.lock().unwrap().push((stage, work));
    }
    fn advance(&self, done: u64) {
        self.done.fetch_add(done, Ordering::Relaxed);
    }
}

#[test]
fn stages_one_by_one_give_the_whole_run() {
    let options = options();
    let whole = compare(inputs(), &options).unwrap();
    assert!(!whole.report.pairs.is_empty());

    let watcher = Watcher::default();
    let analysis = analyze_inputs(inputs(), &options, &watcher).unwrap();
    assert_eq!(analysis.files().count(), 4);
    let comparison = {
        let corpus = analysis.corpus();
        assert_eq!(corpus.len(), 4);
        assert_eq!(corpus.identical_pairs().len(), 1, "alice and carol");
        let indexed = bryo_match::fingerprint(&corpus, analysis.match_options(), &watcher)
            .unwrap()
            .index(&watcher)
            .unwrap();
        let candidates = indexed.pairs(&watcher).unwrap();
        indexed.fragments(candidates, &watcher).unwrap()
    };
    // alice and carol are one content: winnowed once.
    assert_eq!(comparison.stats.duplicate_documents, 1);
    let staged = analysis.report(comparison, &options, &watcher);
    assert_eq!(staged.report, whole.report);

    let stages: Vec<Stage> = watcher.stages.lock().unwrap().iter().map(|s| s.0).collect();
    assert_eq!(
        stages,
        [
            Stage::Analyze,
            Stage::Fingerprint,
            Stage::Index,
            Stage::Pairs,
            Stage::Fragments,
            Stage::Report
        ]
    );
    // Four files analyzed, three distinct ones fingerprinted, and one unit
    // per candidate pair.
    let work: Vec<u64> = watcher.stages.lock().unwrap().iter().map(|s| s.1).collect();
    assert_eq!(&work[..2], &[4, 3]);
    assert_eq!(watcher.done.load(Ordering::Relaxed), 4 + 3 + work[4]);
}

#[test]
fn a_cancelled_run_is_an_error() {
    let cancel = Cancel::new();
    cancel.cancel();
    let err = compare_with_progress(inputs(), &options(), &cancel).unwrap_err();
    assert!(
        matches!(err, CompareError::Match(bryo_match::Error::Cancelled)),
        "{err}"
    );
    assert_eq!(err.to_string(), "the comparison was cancelled");
}

/// Byte-identical files share one front-end run; each keeps its own path,
/// and a copy under another extension is detected (and analyzed) as what
/// its extension says.
#[test]
fn byte_identical_files_are_analyzed_as_each_alone() {
    let text = "def f(x):\n    return [y * 2 for y in range(x) if y % 3]\n\nprint(f(10), 'done')\n";
    let names = ["a/main.py", "b/main.py", "c/main.txt", "d/other.py"];
    let inputs = Inputs {
        submissions: names
            .iter()
            .map(|name| Submission {
                name: name.split('/').next().unwrap().to_string(),
                old: false,
                files: vec![InputFile {
                    display_path: name.to_string(),
                    bytes: if name.starts_with('d') {
                        format!("# another\n{text}").into_bytes()
                    } else {
                        text.as_bytes().to_vec()
                    },
                    source: Source::File(name.into()),
                    size_hint: None,
                }],
            })
            .collect(),
        base: Vec::new(),
        skipped: Vec::new(),
    };
    let options = CompareOptions {
        k: Some(5),
        w: Some(4),
        ..CompareOptions::default()
    };
    let outcome = compare(inputs.clone(), &options).unwrap();
    for (sub, files) in inputs.submissions.iter().zip(&outcome.files) {
        let file = &sub.files[0];
        let alone =
            bryo_compare::analyze(&file.display_path, &file.bytes, &options.analyze).unwrap();
        assert_eq!(files[0].path, file.display_path);
        assert_eq!(files[0].language.name(), alone.language.name());
        assert_eq!(files[0].normalized, alone.normalized);
        assert_eq!(files[0].notes, alone.notes);
    }
    assert_eq!(outcome.files[2][0].language.name(), "text");
    assert_eq!(outcome.report.submissions[1].files[0].path, "b/main.py");
    // d differs only by a comment: identical after normalization; c was
    // read as prose.
    assert_eq!(outcome.report.identical_submissions, vec![vec![0, 1, 3]]);
}

/// The same submissions, one with a byte-order mark and one in
/// Windows-1252, so that the report's byte offsets go through the map
/// back to the file rather than equal the text's.
fn inputs_with_encodings() -> Inputs {
    let mut inputs = inputs();
    let mut bom = b"\xEF\xBB\xBF# r\xC3\xA9sum\xC3\xA9\n".to_vec();
    bom.extend_from_slice(&inputs.submissions[0].files[0].bytes);
    inputs.submissions[0].files[0].bytes = bom;
    let mut latin = b"# caf\xE9 \xE9t\xE9\n".to_vec();
    latin.extend_from_slice(&inputs.submissions[1].files[0].bytes);
    inputs.submissions[1].files[0].bytes = latin;
    inputs
}

#[test]
fn releasing_the_text_changes_no_report() {
    let kept = compare(inputs_with_encodings(), &options()).unwrap();
    let released = compare(
        inputs_with_encodings(),
        &CompareOptions {
            keep_text: false,
            ..options()
        },
    )
    .unwrap();
    assert_eq!(released.report, kept.report);
    assert!(kept.files.iter().flatten().all(|f| !f.text().is_empty()));
    assert!(released.files.iter().flatten().all(|f| f.text().is_empty()));
    // The byte ranges are the file's, not the text's: in both re-encoded
    // files the shared function is where the report says it is.
    let bytes = |name: &str| {
        inputs_with_encodings()
            .submissions
            .into_iter()
            .find(|s| s.name == name)
            .map(|s| s.files[0].bytes.clone())
            .unwrap()
    };
    let mut checked = 0;
    for location in released
        .report
        .pairs
        .iter()
        .flat_map(|p| &p.fragments)
        .flat_map(|f| [&f.a, &f.b])
        .filter(|l| l.file == "alice.py" || l.file == "bob.py")
    {
        let file = bytes(&location.file);
        let [start, end] = location.bytes.map(|b| b as usize);
        let matched = String::from_utf8_lossy(&file[start..end]).to_string();
        // A whole token first: an offset of the text used as one of the
        // file would be 3 bytes off in both files.
        assert!(
            matched.starts_with("def area") || matched.starts_with("import math"),
            "{matched:?}"
        );
        assert!(matched.contains("return total"), "{matched:?}");
        checked += 1;
    }
    assert!(checked >= 2, "alice's and bob's side of their fragment");
}
