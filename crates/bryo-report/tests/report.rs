//! Golden outputs of every renderer, JSON round trips, schema versioning and
//! escaping of hostile names.
//!
//! To regenerate the golden files after an intended change of output, run
//! `BRYO_BLESS=1 cargo test -p bryo-report --test report` and review the diff.

use std::path::PathBuf;

use bryo_report::{
    write_csv, write_json, write_json_with, write_table, Cluster, CsvPairs, FileEntry, FileRef,
    FileStatus, Fragment, FragmentPart, Frontend, IdenticalFiles, JsonLayout, JsonPairEncoder,
    JsonPairs, Location, Options, Pair, PairWriter, Region, Report, ReportError, Scheme, Score,
    Skipped, Stats, Submission, TableOptions, SCHEMA_ID,
};
use proptest::prelude::*;

fn file(path: &str, symbols: u64, lines: u64, status: FileStatus) -> FileEntry {
    FileEntry {
        path: path.into(),
        language: "python".into(),
        frontend: Frontend::Lexer,
        symbols,
        lines,
        status,
        encoding: "utf-8".into(),
        notes: Vec::new(),
        base_code: Vec::new(),
        raw_fingerprint: None,
        normalized_fingerprint: None,
    }
}

fn loc(file: &str, lines: [u64; 2], bytes: [u64; 2]) -> Location {
    Location {
        file: file.into(),
        lines,
        bytes,
    }
}

/// A small run: three new submissions (one with a long name, one a
/// directory of two files), one old one, three pairs, a cluster, two
/// skipped files.
fn sample() -> Report {
    let mut r = Report::new(
        "0.1.0",
        Options {
            language: Some("python".into()),
            k: 25,
            w: 40,
            max_submissions: None,
            max_pairs: 250,
            min_similarity: 0.0,
            min_fragment_symbols: 0,
            merge_gap: 0,
            merge_ratio: None,
            cluster_threshold: 0.5,
            directory_mode: true,
            base: vec!["starter/hw1.py".into()],
            old: vec!["2025".into()],
            comment: Some("HW1, fall term".into()),
            score: Score::Symmetric,
            scheme: Some(Scheme {
                hash: 1,
                symbol: 1,
                normalization: "full".into(),
                text_mode: "chars".into(),
                token_normalization: false,
            }),
        },
    );
    r.submissions = vec![
        Submission {
            name: "subs/alice".into(),
            old: false,
            files: vec![
                file("subs/alice/hw1.py", 812, 120, FileStatus::Ok),
                file("subs/alice/util.py", 140, 25, FileStatus::Ok),
            ],
        },
        Submission {
            name: "subs/bob".into(),
            old: false,
            files: vec![file("subs/bob/hw1.py", 790, 118, FileStatus::Ok)],
        },
        Submission {
            name: "subs/carol-with-a-remarkably-long-directory-name-from-the-lms-export".into(),
            old: false,
            files: vec![FileEntry {
                path: "subs/carol-with-a-remarkably-long-directory-name-from-the-lms-export/hw1.py"
                    .into(),
                language: "text".into(),
                frontend: Frontend::Text,
                symbols: 300,
                lines: 80,
                status: FileStatus::Fallback {
                    reason: "too many parse errors".into(),
                },
                encoding: "windows-1252".into(),
                notes: vec!["decoded as windows-1252: invalid UTF-8 at offset 3".into()],
                base_code: vec![Region {
                    lines: [1, 4],
                    bytes: [0, 96],
                }],
                raw_fingerprint: None,
                normalized_fingerprint: None,
            }],
        },
        Submission {
            name: "2025/dave".into(),
            old: true,
            files: vec![file("2025/dave/hw1.py", 812, 120, FileStatus::Ok)],
        },
    ];
    r.pairs = vec![
        Pair {
            a: 0,
            b: 3,
            similarity: 1.0,
            a_percent: 100.0,
            b_percent: 100.0,
            a_lines_matched: 145,
            b_lines_matched: 120,
            lines_matched: 145,
            longest_fragment: 812,
            shared_fingerprints: 61,
            identical: true,
            fragments: vec![Fragment {
                a: loc("subs/alice/hw1.py", [1, 120], [0, 3410]),
                b: loc("2025/dave/hw1.py", [1, 120], [0, 3410]),
                symbols: 812,
                parts: vec![],
            }],
        },
        Pair {
            a: 0,
            b: 1,
            similarity: 0.8124,
            a_percent: 83.6,
            b_percent: 78.95,
            a_lines_matched: 98,
            b_lines_matched: 91,
            lines_matched: 98,
            longest_fragment: 410,
            shared_fingerprints: 38,
            identical: false,
            fragments: vec![
                // Merged across one gap: three lines inserted in bob's copy.
                Fragment {
                    a: loc("subs/alice/hw1.py", [10, 70], [220, 1900]),
                    b: loc("subs/bob/hw1.py", [4, 66], [101, 1822]),
                    symbols: 410,
                    parts: vec![
                        FragmentPart {
                            a: loc("subs/alice/hw1.py", [10, 40], [220, 1000]),
                            b: loc("subs/bob/hw1.py", [4, 34], [101, 880]),
                            symbols: 200,
                        },
                        FragmentPart {
                            a: loc("subs/alice/hw1.py", [41, 70], [1001, 1900]),
                            b: loc("subs/bob/hw1.py", [38, 66], [960, 1822]),
                            symbols: 210,
                        },
                    ],
                },
                Fragment {
                    a: loc("subs/alice/util.py", [1, 22], [0, 540]),
                    b: loc("subs/bob/hw1.py", [80, 101], [2300, 2851]),
                    symbols: 120,
                    parts: vec![],
                },
            ],
        },
        Pair {
            a: 1,
            b: 2,
            similarity: 0.0731,
            a_percent: 5.2,
            b_percent: 13.0,
            a_lines_matched: 9,
            b_lines_matched: 11,
            lines_matched: 11,
            longest_fragment: 39,
            shared_fingerprints: 2,
            identical: false,
            fragments: vec![Fragment {
                a: loc("subs/bob/hw1.py", [30, 38], [700, 950]),
                b: loc(
                    "subs/carol-with-a-remarkably-long-directory-name-from-the-lms-export/hw1.py",
                    [12, 22],
                    [300, 610],
                ),
                symbols: 39,
                parts: vec![],
            }],
        },
    ];
    r.clusters = vec![Cluster {
        members: vec![0, 1, 3],
        max_similarity: 1.0,
    }];
    r.skipped = vec![
        Skipped {
            path: "subs/bob/data.bin".into(),
            reason: "binary file".into(),
        },
        Skipped {
            path: "subs/erin/huge.py".into(),
            reason: "larger than the 4 MiB limit".into(),
        },
    ];
    r.stats = Stats {
        files: 5,
        base_files: 1,
        symbols: 2854,
        fingerprints: 190,
        base_hashes: 14,
        common_hashes: 0,
        candidate_pairs: 5,
        duplicate_files: 0,
        template_above: Some(10),
        seed_limit: Some(40),
        discount_below: None,
    };
    r
}

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

/// Compares `actual` with the golden file, or rewrites it when BRYO_BLESS=1.
fn check_golden(name: &str, actual: &[u8]) {
    let path = golden_dir().join(name);
    if std::env::var_os("BRYO_BLESS").is_some_and(|v| v == "1") {
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected =
        std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    assert_eq!(
        String::from_utf8_lossy(actual),
        String::from_utf8_lossy(&expected),
        "output differs from {}",
        path.display()
    );
}

fn render_table(r: &Report, opts: &TableOptions) -> String {
    let mut out = Vec::new();
    write_table(r, &mut out, opts).unwrap();
    String::from_utf8(out).unwrap()
}

fn render_json(r: &Report) -> String {
    let mut out = Vec::new();
    write_json(r, &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

fn render_json_with(r: &Report, layout: JsonLayout) -> String {
    let mut out = Vec::new();
    write_json_with(r, layout, &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

const LAYOUTS: [JsonLayout; 2] = [JsonLayout::Lines, JsonLayout::Pretty];

fn render_csv(r: &Report) -> String {
    let mut out = Vec::new();
    write_csv(r, &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn golden_table() {
    check_golden(
        "sample.txt",
        render_table(&sample(), &TableOptions::default()).as_bytes(),
    );
}

#[test]
fn golden_table_narrow_names_in_colour() {
    let opts = TableOptions {
        color: true,
        max_name_width: 20,
    };
    check_golden(
        "sample-colour-narrow.txt",
        render_table(&sample(), &opts).as_bytes(),
    );
}

#[test]
fn golden_json() {
    check_golden("sample.json", render_json(&sample()).as_bytes());
    check_golden(
        "sample-pretty.json",
        render_json_with(&sample(), JsonLayout::Pretty).as_bytes(),
    );
}

/// The default layout: a line per top-level key, per member of a top-level
/// object and per submission, pair and cluster; nothing broken below that;
/// the same value as the pretty layout.
#[test]
fn json_lines_layout_has_a_line_per_record() {
    let r = sample();
    let json = render_json(&r);
    let pretty = render_json_with(&r, JsonLayout::Pretty);
    assert!(json.len() < pretty.len());
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        value,
        serde_json::from_str::<serde_json::Value>(&pretty).unwrap()
    );
    let lines: Vec<&str> = json.lines().collect();
    let at_indent = |n: usize| {
        lines
            .iter()
            .filter(|l| l.len() > n && l[..n].bytes().all(|b| b == b' ') && l.as_bytes()[n] != b' ')
            .count()
    };
    let object = value.as_object().unwrap();
    // Two lines per non-empty top-level array or object (its key and its
    // closing bracket); one per other key.
    let broken = object
        .values()
        .filter(|v| match v {
            serde_json::Value::Array(a) => !a.is_empty(),
            serde_json::Value::Object(o) => !o.is_empty(),
            _ => false,
        })
        .count();
    assert_eq!(at_indent(2), object.len() + broken, "{json}");
    let records: usize = object
        .values()
        .map(|v| match v {
            serde_json::Value::Array(a) => a.len(),
            serde_json::Value::Object(o) => o.len(),
            _ => 0,
        })
        .sum();
    assert_eq!(at_indent(4), records, "{json}");
    assert_eq!(lines.len(), 2 + object.len() + broken + records, "{json}");
    for (pair, line) in r.pairs.iter().zip(
        lines
            .iter()
            .skip_while(|l| !l.starts_with("  \"pairs\": ["))
            .skip(1),
    ) {
        let line = line.trim_start().trim_end_matches(',');
        assert_eq!(line, serde_json::to_string(pair).unwrap());
    }
}

#[test]
fn golden_csv() {
    check_golden("sample.csv", render_csv(&sample()).as_bytes());
}

#[test]
fn golden_table_without_pairs() {
    let mut r = sample();
    r.pairs.clear();
    r.clusters.clear();
    r.skipped.clear();
    r.stats.candidate_pairs = 0;
    check_golden(
        "empty.txt",
        render_table(&r, &TableOptions::default()).as_bytes(),
    );
}

#[test]
fn json_ends_with_newline_and_is_deterministic() {
    let a = render_json(&sample());
    assert!(a.ends_with("}\n"));
    assert_eq!(a, render_json(&sample()));
    assert!(a.starts_with("{\n  \"schema\": \"bryo.compare/1\",\n  \"bryo_version\""));
}

#[test]
fn json_round_trip_of_the_sample() {
    let json = render_json(&sample());
    assert_eq!(Report::from_json(&json).unwrap(), sample());
}

#[test]
fn unknown_schema_version_is_a_clear_error() {
    let json = render_json(&sample()).replace(SCHEMA_ID, "bryo.compare/2");
    let err = Report::from_json(&json).unwrap_err();
    assert!(
        matches!(err, ReportError::UnknownSchema { ref found, .. } if found == "bryo.compare/2")
    );
    assert_eq!(
        err.to_string(),
        "unknown report schema \"bryo.compare/2\": this version of bryo reads \"bryo.compare/1\""
    );
    let err = Report::from_json(r#"{"schema": 1}"#).unwrap_err();
    assert!(matches!(err, ReportError::UnknownSchema { ref found, .. } if found == "1"));
}

#[test]
fn json_that_is_not_a_report() {
    assert!(matches!(
        Report::from_json(r#"{"pairs": []}"#),
        Err(ReportError::MissingSchema)
    ));
    assert!(matches!(
        Report::from_json("[1, 2]"),
        Err(ReportError::Json(_))
    ));
    assert!(matches!(Report::from_json("{"), Err(ReportError::Json(_))));
    let truncated = r#"{"schema": "bryo.compare/1", "bryo_version": "0.1.0"}"#;
    let err = Report::from_json(truncated).unwrap_err();
    assert!(err.to_string().contains("missing field `options`"), "{err}");
}

#[test]
fn unknown_fields_are_ignored_within_a_version() {
    let json = render_json(&sample()).replacen(
        "\"bryo_version\"",
        "\"added_later\": {\"x\": [1]},\n  \"bryo_version\"",
        1,
    );
    assert_eq!(Report::from_json(&json).unwrap(), sample());
}

#[test]
fn out_of_range_indices_are_rejected() {
    let mut r = sample();
    r.pairs[1].b = 9;
    let mut out = Vec::new();
    assert!(matches!(
        write_json(&r, &mut out),
        Err(ReportError::Invalid(_))
    ));
    // Written by hand (as another tool might), it is rejected on reading.
    let json = render_json(&sample()).replacen("\"b\":3,", "\"b\":9,", 1);
    let err = Report::from_json(&json).unwrap_err();
    assert_eq!(
        err.to_string(),
        "inconsistent report: pair 0 joins submissions 0 and 9 but there are 4"
    );
    // The table and CSV still render such a report without panicking.
    assert!(render_table(&r, &TableOptions::default()).contains("#9"));
    assert!(render_csv(&r).contains(",#9,"));
}

#[test]
fn non_finite_numbers_are_not_written() {
    let mut r = sample();
    r.pairs[0].similarity = f64::NAN;
    let err = write_json(&r, Vec::new()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "inconsistent report: pairs[0].similarity is NaN"
    );
}

/// A report whose two submissions have hostile names.
fn hostile(a: &str, b: &str) -> Report {
    let mut r = sample();
    r.submissions.truncate(2);
    r.submissions[0].name = a.into();
    r.submissions[1].name = b.into();
    r.pairs.truncate(2);
    r.pairs.remove(0);
    r.clusters[0].members = vec![0, 1];
    r
}

const HOSTILE: [&str; 6] = [
    "smith, john",
    "o\"brien \"the\" coder",
    "two\nlines\r\nand more",
    "</script><script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "esc\u{1b}[31mred\u{202e}fdp.exe",
];

#[test]
fn csv_quotes_hostile_names_and_reads_back_exactly() {
    for a in HOSTILE {
        for b in HOSTILE {
            let r = hostile(a, b);
            let text = render_csv(&r);
            let mut reader = csv::Reader::from_reader(text.as_bytes());
            let rows: Vec<csv::StringRecord> = reader.records().map(|x| x.unwrap()).collect();
            assert_eq!(rows.len(), 1, "{text}");
            assert_eq!(&rows[0][1], a);
            assert_eq!(&rows[0][2], b);
            assert_eq!(&rows[0][5], "0.8124");
            assert_eq!(&rows[0][9], "false");
        }
    }
    let text = render_csv(&hostile(HOSTILE[0], HOSTILE[1]));
    assert!(
        text.contains("\"smith, john\",\"o\"\"brien \"\"the\"\" coder\""),
        "{text}"
    );
}

#[test]
fn json_keeps_hostile_names_exactly() {
    for name in HOSTILE {
        let r = hostile(name, "b");
        let json = render_json(&r);
        assert_eq!(Report::from_json(&json).unwrap().submissions[0].name, name);
        // Control characters never appear raw in JSON.
        assert!(!json.contains('\u{1b}') && !json.contains('\r'));
    }
}

#[test]
fn table_rows_stay_on_one_line_and_carry_no_escape_sequences() {
    for name in HOSTILE {
        let r = hostile(name, "b");
        let text = render_table(&r, &TableOptions::default());
        // Summary, header, one row, skipped heading and its files, cluster
        // heading, one cluster.
        let skipped = r.skipped.len();
        assert_eq!(text.lines().count(), 6 + skipped, "{text}");
        assert!(!text.contains('\u{1b}') && !text.contains('\r') && !text.contains('\u{202e}'));
    }
}

// ---- round trip of arbitrary reports -------------------------------------

fn finite() -> impl Strategy<Value = f64> {
    prop_oneof![
        any::<f64>().prop_filter("finite", |x| x.is_finite()),
        0.0..=1.0f64,
        Just(0.0),
        Just(1.0)
    ]
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![any::<String>(), "[a-z/<>\",\n ]{0,12}"]
}

prop_compose! {
    fn location()(file in text(), l in any::<[u64; 2]>(), b in any::<[u64; 2]>()) -> Location {
        Location { file, lines: l, bytes: b }
    }
}

prop_compose! {
    fn file_entry()(
        path in text(),
        language in text(),
        frontend in prop_oneof![
            Just(Frontend::Lexer), Just(Frontend::TreeSitter), Just(Frontend::Text), Just(Frontend::Html)
        ],
        symbols in any::<u64>(),
        lines in any::<u64>(),
        reason in proptest::option::of(text()),
        encoding in text(),
        notes in proptest::collection::vec(text(), 0..3),
        base in proptest::collection::vec((any::<[u64; 2]>(), any::<[u64; 2]>()), 0..3),
        fingerprints in proptest::option::of(any::<(u64, u64)>()),
    ) -> FileEntry {
        let base_code = base.into_iter().map(|(lines, bytes)| Region { lines, bytes }).collect();
        let status = match reason {
            None => FileStatus::Ok,
            Some(reason) => FileStatus::Fallback { reason },
        };
        FileEntry {
            path, language, frontend, symbols, lines, status, encoding, notes,
            base_code,
            raw_fingerprint: fingerprints.map(|(r, _)| format!("{r:016x}")),
            normalized_fingerprint: fingerprints.map(|(_, n)| format!("{n:016x}")),
        }
    }
}

prop_compose! {
    fn options()(
        language in proptest::option::of(text()),
        k in any::<u32>(), w in any::<u32>(), m in proptest::option::of(any::<u32>()), n in any::<u32>(),
        min_similarity in finite(), min_fragment_symbols in any::<u32>(),
        merge_gap in any::<u32>(), merge_ratio in proptest::option::of(finite()),
        cluster_threshold in finite(), directory_mode in any::<bool>(),
        base in proptest::collection::vec(text(), 0..3),
        old in proptest::collection::vec(text(), 0..3),
        comment in proptest::option::of(text()),
        directional in any::<bool>(),
        scheme in proptest::option::of((any::<u32>(), any::<u32>(), text(), text(), any::<bool>())),
    ) -> Options {
        Options {
            language, k, w, max_submissions: m, max_pairs: n, min_similarity,
            min_fragment_symbols, merge_gap, merge_ratio, cluster_threshold, directory_mode,
            base, old, comment,
            score: if directional { Score::Directional } else { Score::Symmetric },
            scheme: scheme.map(|(hash, symbol, normalization, text_mode, token_normalization)| Scheme {
                hash, symbol, normalization, text_mode, token_normalization,
            }),
        }
    }
}

fn report() -> impl Strategy<Value = Report> {
    let subs = proptest::collection::vec(
        (
            text(),
            any::<bool>(),
            proptest::collection::vec(file_entry(), 0..3),
        ),
        2..5,
    );
    (
        options(),
        text(),
        subs,
        any::<[u64; 7]>(),
        proptest::collection::vec(text(), 0..3),
    )
        .prop_flat_map(|(options, version, subs, st, skipped)| {
            let n = subs.len();
            let pair = (
                0..n,
                0..n - 1,
                finite(),
                finite(),
                finite(),
                any::<[u64; 5]>(),
                any::<bool>(),
                proptest::collection::vec(
                    (
                        location(),
                        location(),
                        any::<u64>(),
                        proptest::collection::vec((location(), location(), any::<u64>()), 0..3),
                    ),
                    0..3,
                ),
            )
                .prop_map(move |(a, b, s, ap, bp, nums, identical, frags)| Pair {
                    a,
                    // Any index but `a`.
                    b: if b >= a { b + 1 } else { b },
                    similarity: s,
                    a_percent: ap,
                    b_percent: bp,
                    a_lines_matched: nums[0],
                    b_lines_matched: nums[1],
                    lines_matched: nums[2],
                    longest_fragment: nums[3],
                    shared_fingerprints: nums[4],
                    identical,
                    fragments: frags
                        .into_iter()
                        .map(|(a, b, symbols, parts)| Fragment {
                            a,
                            b,
                            symbols,
                            parts: parts
                                .into_iter()
                                .map(|(a, b, symbols)| FragmentPart { a, b, symbols })
                                .collect(),
                        })
                        .collect(),
                });
            let cluster = (proptest::collection::vec(0..n, 0..4), finite()).prop_map(
                |(members, max_similarity)| Cluster {
                    members,
                    max_similarity,
                },
            );
            (
                proptest::collection::vec(pair, 0..4),
                proptest::collection::vec(cluster, 0..2),
            )
                .prop_map(move |(pairs, clusters)| {
                    let mut r = Report::new(version.clone(), options.clone());
                    r.submissions = subs
                        .iter()
                        .map(|(name, old, files)| Submission {
                            name: name.clone(),
                            old: *old,
                            files: files.clone(),
                        })
                        .collect();
                    r.pairs = pairs;
                    r.clusters = clusters;
                    r.skipped = skipped
                        .iter()
                        .map(|p| Skipped {
                            path: p.clone(),
                            reason: p.repeat(2),
                        })
                        .collect();
                    r.stats = Stats {
                        files: st[0],
                        base_files: st[1],
                        symbols: st[2],
                        fingerprints: st[3],
                        base_hashes: st[4],
                        common_hashes: st[5],
                        candidate_pairs: st[6],
                        duplicate_files: st[0] % 4,
                        template_above: (st[5] % 3 == 0).then_some(st[4]),
                        seed_limit: (st[6] % 3 == 1).then_some(st[3]),
                        discount_below: (st[2] % 2 == 0).then_some(st[0]),
                    };
                    if n >= 2 && st[1] % 2 == 0 {
                        r.identical_submissions = vec![vec![0, n - 1]];
                        r.identical_files = vec![IdenticalFiles {
                            fingerprint: format!("{:016x}", st[2]),
                            symbols: st[3],
                            files: vec![
                                FileRef {
                                    submission: 0,
                                    path: "a/x.py".into(),
                                },
                                FileRef {
                                    submission: n - 1,
                                    path: "b/y.py".into(),
                                },
                            ],
                        }];
                    }
                    r
                })
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn json_round_trip(r in report()) {
        prop_assert_eq!(render_json(&r), render_json_with(&r, JsonLayout::Lines));
        for layout in LAYOUTS {
            let json = render_json_with(&r, layout);
            let back = Report::from_json(&json).unwrap();
            prop_assert_eq!(&back, &r);
            // And writing it again gives the same bytes.
            prop_assert_eq!(render_json_with(&back, layout), json);
        }
    }

    /// Written pair by pair (encoded out of order, as threads would),
    /// a report is byte for byte the whole report's JSON, and its CSV.
    #[test]
    fn streamed_reports_equal_whole_ones(r in report()) {
        let mut head = r.clone();
        head.pairs.clear();
        for layout in LAYOUTS {
            let mut json = match layout {
                JsonLayout::Lines => JsonPairs::begin(&head, Vec::new()).unwrap(),
                JsonLayout::Pretty => JsonPairs::begin_with(&head, layout, Vec::new()).unwrap(),
            };
            // Half of them by the encoder made from the head alone.
            let encoder = JsonPairEncoder::with_layout(&head, layout);
            prop_assert_eq!(encoder, json.encoder());
            let encoded: Vec<Vec<u8>> = r
                .pairs
                .iter()
                .enumerate()
                .rev()
                .map(|(i, p)| match i % 2 {
                    0 => json.encode(i + 1, p).unwrap(),
                    _ => encoder.encode(i + 1, p).unwrap(),
                })
                .collect();
            for e in encoded.iter().rev() {
                json.write_encoded(e).unwrap();
            }
            let json = String::from_utf8(json.finish().unwrap()).unwrap();
            prop_assert_eq!(json, render_json_with(&r, layout));
        }
        prop_assert_eq!(JsonPairEncoder::new(&head), JsonPairEncoder::with_layout(&head, JsonLayout::Lines));
        let mut csv = CsvPairs::begin(&head, Vec::new()).unwrap();
        for p in &r.pairs {
            csv.pair(p).unwrap();
        }
        prop_assert_eq!(String::from_utf8(csv.finish().unwrap()).unwrap(), render_csv(&r));
    }

    #[test]
    fn csv_has_one_record_per_pair(r in report()) {
        let text = render_csv(&r);
        let mut reader = csv::Reader::from_reader(text.as_bytes());
        let rows: Vec<csv::StringRecord> = reader.records().map(|x| x.unwrap()).collect();
        prop_assert_eq!(rows.len(), r.pairs.len());
        for (i, (row, p)) in rows.iter().zip(&r.pairs).enumerate() {
            prop_assert_eq!(&row[0], (i + 1).to_string());
            prop_assert_eq!(&row[1], r.submissions[p.a].name.as_str());
            prop_assert_eq!(row[5].parse::<f64>().unwrap(), p.similarity);
        }
    }

    #[test]
    fn table_has_one_line_per_pair(r in report()) {
        let text = render_table(&r, &TableOptions::default());
        let pair_lines = if r.pairs.is_empty() { 1 } else { r.pairs.len() + 1 };
        // A heading, then up to ten listed files and one "… and N more" line.
        let listed = |n: usize| if n == 0 { 0 } else { 1 + n.min(10) + usize::from(n > 10) };
        let fallbacks = r
            .submissions
            .iter()
            .flat_map(|s| &s.files)
            .filter(|f| matches!(f.status, FileStatus::Fallback { .. }))
            .count();
        let skipped_line = listed(r.skipped.len())
            + listed(fallbacks)
            + listed(r.identical_submissions.len())
            + listed(r.identical_files.len());
        let cluster_lines = if r.clusters.is_empty() { 0 } else { r.clusters.len() + 1 };
        prop_assert_eq!(text.lines().count(), 1 + pair_lines + skipped_line + cluster_lines);
        prop_assert!(!text.contains('\x1b'), "escape character in the table");
    }
}

/// Every key the JSON output can contain is documented in SCHEMA.md.
#[test]
fn schema_doc_lists_every_key() {
    fn keys(v: &serde_json::Value, out: &mut std::collections::BTreeSet<String>) {
        match v {
            serde_json::Value::Object(map) => {
                for (k, v) in map {
                    out.insert(k.clone());
                    keys(v, out);
                }
            }
            serde_json::Value::Array(items) => items.iter().for_each(|v| keys(v, out)),
            _ => {}
        }
    }
    let doc = std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("SCHEMA.md"))
        .unwrap();
    let value: serde_json::Value = serde_json::from_str(&render_json(&sample())).unwrap();
    let mut all = std::collections::BTreeSet::new();
    keys(&value, &mut all);
    assert!(all.contains("reason") && all.contains("max_similarity"));
    for key in all {
        assert!(
            doc.contains(&format!("| `{key}` |")),
            "SCHEMA.md does not document `{key}`"
        );
    }
}

#[test]
fn identical_submissions_and_files_are_shown_and_serialized() {
    let mut r = sample();
    assert!(
        !render_json(&r).contains("identical_files"),
        "omitted when empty"
    );
    r.identical_submissions = vec![vec![0, 1]];
    r.identical_files = vec![IdenticalFiles {
        fingerprint: "00000000000000ff".into(),
        symbols: 42,
        files: vec![
            FileRef {
                submission: 0,
                path: "alice/main.py".into(),
            },
            FileRef {
                submission: 1,
                path: "bob/copy.py".into(),
            },
        ],
    }];
    r.stats.duplicate_files = 1;
    let json = render_json(&r);
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(value["identical_submissions"][0][1], 1);
    assert_eq!(
        value["identical_files"][0]["files"][1]["path"],
        "bob/copy.py"
    );
    assert_eq!(value["stats"]["duplicate_files"], 1);
    assert_eq!(Report::from_json(&json).unwrap(), r);
    let mut table = Vec::new();
    write_table(&r, &mut table, &TableOptions::default()).unwrap();
    let table = String::from_utf8(table).unwrap();
    let names = format!("  {} = {}", r.submissions[0].name, r.submissions[1].name);
    assert!(
        table.contains("1 group of identical submissions"),
        "{table}"
    );
    assert!(table.contains(&names), "{table}");
    assert!(
        table.contains("alice/main.py = bob/copy.py (42 symbols)"),
        "{table}"
    );
}
