//! The renderer on hand-made reports: what reaches the pages, missing and
//! changed sources, malformed reports, determinism.

use bryo_html::{pair_page_name, render_html, write_html, HtmlFile};
use bryo_report::{
    FileEntry, FileRef, FileStatus, Fragment, FragmentPart, Frontend, IdenticalFiles, Location,
    Options, Pair, Region, Report, Skipped, Submission,
};

const CODE: &str = "import os\n\ndef walk(top):\n    for name in os.listdir(top):\n        print(name)  # each one\n    return 'done'\n";

fn options() -> Options {
    Options {
        language: None,
        k: 3,
        w: 2,
        max_submissions: Some(10),
        max_pairs: 250,
        min_similarity: 0.0,
        min_fragment_symbols: 3,
        merge_gap: 0,
        merge_ratio: None,
        cluster_threshold: 0.5,
        directory_mode: false,
        base: vec!["starter.py".into()],
        old: vec![],
        comment: Some("<b>term</b> & co".into()),
        score: Default::default(),
        scheme: None,
    }
}

fn entry(path: &str) -> FileEntry {
    FileEntry {
        path: path.into(),
        language: "python".into(),
        frontend: Frontend::Lexer,
        symbols: 20,
        lines: 6,
        status: FileStatus::Ok,
        encoding: "UTF-8".into(),
        notes: vec![],
        raw_fingerprint: None,
        normalized_fingerprint: None,
        base_code: vec![Region {
            lines: [1, 1],
            bytes: [0, 9],
        }],
    }
}

fn loc(file: &str, lines: [u64; 2], bytes: [u64; 2]) -> Location {
    Location {
        file: file.into(),
        lines,
        bytes,
    }
}

fn report() -> Report {
    let mut r = Report::new("0.1.0", options());
    for name in ["a.py", "b.py", "gone.py"] {
        r.submissions.push(Submission {
            name: name.into(),
            old: false,
            files: vec![entry(name)],
        });
    }
    let pair = |a: usize, b: usize, fragments: Vec<Fragment>| Pair {
        a,
        b,
        similarity: 0.5,
        a_percent: 50.0,
        b_percent: 50.0,
        a_lines_matched: 3,
        b_lines_matched: 3,
        lines_matched: 3,
        longest_fragment: 10,
        shared_fingerprints: 4,
        identical: false,
        fragments,
    };
    let f = |x: &str, y: &str| Fragment {
        a: loc(x, [3, 4], [11, 68]),
        b: loc(y, [3, 4], [11, 68]),
        symbols: 10,
        parts: vec![],
    };
    r.pairs.push(pair(0, 1, vec![f("a.py", "b.py")]));
    r.pairs.push(pair(0, 2, vec![f("a.py", "gone.py")]));
    // A malformed pair: no submission 9.
    r.pairs.push(pair(1, 9, vec![]));
    r.skipped.push(Skipped {
        path: "x.bin".into(),
        reason: "binary file".into(),
    });
    r
}

fn loader(path: &str) -> Result<Vec<u8>, String> {
    match path {
        "a.py" => Ok(CODE.as_bytes().to_vec()),
        "b.py" => Ok(CODE.replace("walk", "stroll").into_bytes()),
        _ => Err(format!("{path}: no such file")),
    }
}

fn page<'a>(files: &'a [HtmlFile], name: &str) -> &'a str {
    let file = files.iter().find(|f| f.name == name).unwrap();
    std::str::from_utf8(&file.contents).unwrap()
}

#[test]
fn pages_and_scripts_are_listed_in_order() {
    let files = render_html(&report(), &loader);
    let names: Vec<&str> = files.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "index.html",
            "bryo.css",
            "bryo.js",
            "pair-1.html",
            "pair-2.html",
            "pair-3.html",
            "files/s0-0.js",
            "files/s1-0.js"
        ]
    );
    assert_eq!(pair_page_name(12), "pair-12.html");
}

#[test]
fn overview_escapes_and_summarises() {
    let files = render_html(&report(), &loader);
    let index = page(&files, "index.html");
    assert!(index.contains("&lt;b&gt;term&lt;/b&gt; &amp; co"));
    assert!(index.contains("binary file: 1 file"));
    assert!(index.contains("<code>starter.py</code>"));
    assert!(index.contains("<a href=\"pair-3.html\">#9</a>"));
    assert!(index.contains("3 of 3 pairs"));
    assert!(!index.contains("earlier term"));
    // Submissions from earlier terms are marked in the table and the pair page.
    let mut old = report();
    old.submissions[1].old = true;
    let files = render_html(&old, &loader);
    let row = page(&files, "index.html")
        .lines()
        .find(|l| l.contains("href=\"pair-1.html\""))
        .unwrap()
        .to_string();
    assert!(row.contains("b.py</a> <span class=\"old\""), "{row}");
    assert!(page(&files, "pair-1.html").contains("<span class=\"old\""));
}

#[test]
fn a_missing_source_is_a_note_not_an_error() {
    let files = render_html(&report(), &loader);
    let pair = page(&files, "pair-2.html");
    assert!(pair.contains("Source not available: gone.py: no such file"));
    // The side that exists still shows its code.
    assert!(pair
        .contains("data-src=\"s0-0\" data-marks=\"11,68,0\" data-gaps=\"\" data-base=\"0,9,0\""));
    assert!(pair.contains("<script src=\"files/s0-0.js\"></script>"));
    assert!(!pair.contains("files/s2-0.js"));
    // A pair naming a submission that does not exist renders, empty.
    let broken = page(&files, "pair-3.html");
    assert!(broken.contains("<h2>#9</h2>"));
    assert!(broken.contains("No fragment"));
}

#[test]
fn a_changed_source_is_flagged() {
    let shorter = |path: &str| -> Result<Vec<u8>, String> {
        loader(path).map(|mut b| {
            b.truncate(30);
            b
        })
    };
    let files = render_html(&report(), &shorter);
    assert!(page(&files, "pair-1.html").contains("This file differs from the one compared"));
    let files = render_html(&report(), &loader);
    assert!(!page(&files, "pair-1.html").contains("This file differs"));
}

#[test]
fn output_is_deterministic_whatever_the_threads() {
    let first = render_html(&report(), &loader);
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap()
        .install(|| render_html(&report(), &loader));
    assert_eq!(first, one);
    assert_eq!(first, render_html(&report(), &loader));
}

#[test]
fn writes_a_directory() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("nested/report");
    write_html(&report(), &loader, &out).unwrap();
    assert!(out.join("index.html").is_file());
    assert!(out.join("files/s1-0.js").is_file());
    let script = std::fs::read_to_string(out.join("files/s0-0.js")).unwrap();
    assert!(script.contains("[\"s0-0\"] ="));
    assert!(script.contains("<b>def</b> walk(top):"));
    assert!(script.contains("<i># each one</i>"));
    // A file where the directory should be: an error, no panic.
    let blocked = dir.path().join("file");
    std::fs::write(&blocked, "x").unwrap();
    let err = write_html(&report(), &loader, &blocked.join("sub")).unwrap_err();
    assert!(
        err.to_string()
            .contains("cannot create the report directory"),
        "{err}"
    );
}

#[test]
fn exact_copies_are_listed_linked_and_escaped() {
    let mut r = report();
    r.submissions.push(Submission {
        name: "<i>c</i>".into(),
        old: false,
        files: vec![entry("<i>c</i>/x.py")],
    });
    // a.py = b.py is reported as pair 1; a.py = <i>c</i> is not reported.
    r.identical_submissions = vec![vec![0, 1, 3]];
    r.identical_files = vec![IdenticalFiles {
        fingerprint: "00112233aabbccdd".into(),
        symbols: 20,
        files: vec![
            FileRef {
                submission: 0,
                path: "a.py".into(),
            },
            FileRef {
                submission: 3,
                path: "<i>c</i>/x.py".into(),
            },
        ],
    }];
    let files = render_html(&r, &loader);
    let index = page(&files, "index.html");
    assert!(index.contains(
        "<dt>Exact copies</dt><dd><a href=\"#identical\">1 group of identical submissions, 1 file content identical"
    ));
    let start = index.find("<section id=\"identical\">").unwrap();
    let section = &index[start..start + index[start..].find("</section>").unwrap()];
    assert!(section.contains("<span class=\"member\">a.py</span> (1 file, 20 symbols)"));
    assert!(section.contains("<span class=\"member\">&lt;i&gt;c&lt;/i&gt;</span>"));
    assert!(section.contains("<a href=\"pair-1.html\">a.py and b.py</a>: pair 1"));
    // Two pairs of the group (a–c, b–c) have no page.
    assert!(section.contains("2 pairs of this group are outside the top -n 250"));
    assert!(section.contains("<code>&lt;i&gt;c&lt;/i&gt;/x.py</code>"));
    assert!(section.contains("<code>00112233aabbccdd</code>"));
    assert!(!section.contains("<i>"));
    // Without exact copies the section says so.
    let files = render_html(&report(), &loader);
    assert!(page(&files, "index.html").contains("No two submissions are exact copies."));
}

#[test]
fn an_earlier_bigger_report_leaves_nothing_stale_and_other_files_stay() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path();
    write_html(&report(), &loader, out).unwrap();
    assert!(out.join("pair-3.html").is_file());
    // The user's own files, some with names close to bryo's.
    for name in [
        "notes.txt",
        "pair-1.html.bak",
        "pair-x.html",
        "files/mine.js",
    ] {
        std::fs::write(out.join(name), "keep").unwrap();
    }
    std::fs::create_dir(out.join("pair-9.html")).unwrap();
    // A smaller report: one pair, one submission shown.
    let mut smaller = report();
    smaller.pairs.truncate(1);
    smaller.pairs[0].b = 2;
    smaller.pairs[0].fragments[0].b.file = "gone.py".into();
    write_html(&smaller, &loader, out).unwrap();
    assert!(out.join("pair-1.html").is_file());
    assert!(!out.join("pair-2.html").exists());
    assert!(!out.join("pair-3.html").exists());
    assert!(out.join("files/s0-0.js").is_file());
    assert!(
        !out.join("files/s1-0.js").exists(),
        "stale text of file s1-0"
    );
    for name in [
        "notes.txt",
        "pair-1.html.bak",
        "pair-x.html",
        "files/mine.js",
    ] {
        assert_eq!(
            std::fs::read_to_string(out.join(name)).unwrap(),
            "keep",
            "{name}"
        );
    }
    assert!(out.join("pair-9.html").is_dir());
    // The directory holds exactly what render_html gives, plus the user's files.
    let mut names: Vec<String> = render_html(&smaller, &loader)
        .into_iter()
        .map(|f| f.name)
        .collect();
    names.extend(
        [
            "notes.txt",
            "pair-1.html.bak",
            "pair-x.html",
            "files/mine.js",
        ]
        .map(String::from),
    );
    names.sort();
    let mut found = Vec::new();
    for d in [out.to_path_buf(), out.join("files")] {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            if e.file_type().unwrap().is_file() {
                let rel = e
                    .path()
                    .strip_prefix(out)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                found.push(rel);
            }
        }
    }
    found.sort();
    assert_eq!(found, names);
}

/// A merged fragment is highlighted whole, its gaps marked inside it on
/// each side, and the table says how many parts it has.
#[test]
fn the_gaps_of_a_merged_fragment_are_marked() {
    let mut r = report();
    let part = |a: [u64; 2], b: [u64; 2], symbols| FragmentPart {
        a: loc("a.py", [3, 4], a),
        b: loc("b.py", [3, 4], b),
        symbols,
    };
    r.pairs[0].fragments[0].parts = vec![part([11, 30], [11, 30], 6), part([40, 68], [47, 68], 4)];
    let files = render_html(&r, &loader);
    let pair = page(&files, "pair-1.html");
    assert!(
        pair.contains("data-marks=\"11,68,0\" data-gaps=\"30,40,0\""),
        "{pair}"
    );
    assert!(
        pair.contains("data-marks=\"11,68,0\" data-gaps=\"30,47,0\""),
        "{pair}"
    );
    assert!(pair.contains("<td>10 <small"), "{pair}");
    assert!(pair.contains("in 2 parts</small>"));
    // Without parts: no gap.
    let plain = page(&files, "pair-2.html");
    assert!(plain.contains("data-gaps=\"\""));
    assert!(!plain.contains("parts</small>"));
}

/// A fragment whose parts lie out of text order on one side (code moved by
/// `--normalize`) is marked part by part there, without gaps, and whole on
/// the side where they are in order.
#[test]
fn the_parts_of_a_fragment_through_moved_code_are_marked_one_by_one() {
    let mut r = report();
    let part = |a: [u64; 2], b: [u64; 2], symbols| FragmentPart {
        a: loc("a.py", [3, 4], a),
        b: loc("b.py", [3, 4], b),
        symbols,
    };
    // In order in a.py; in b.py the second part comes first.
    r.pairs[0].fragments[0].parts = vec![part([11, 30], [50, 68], 6), part([40, 68], [11, 29], 4)];
    let files = render_html(&r, &loader);
    let pair = page(&files, "pair-1.html");
    assert!(
        pair.contains("data-marks=\"11,68,0\" data-gaps=\"30,40,0\""),
        "{pair}"
    );
    assert!(
        pair.contains("data-marks=\"11,29,0 50,68,0\" data-gaps=\"\""),
        "{pair}"
    );
    assert!(pair.contains("in 2 parts, moved</small>"), "{pair}");
}
