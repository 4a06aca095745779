//! `bryo index` and `bryo compare --against`, on the real binary: the
//! archive equals `--old`, reports mark archived sides, mismatched options
//! are refused, and a killed `add` leaves the index as before or as after.

mod support;

use std::path::Path;
use std::time::Instant;

use serde_json::Value;
use support::{bryo, json};

const WORDS: &[&str] = &[
    "river", "stone", "light", "market", "winter", "garden", "silver", "engine", "harbor",
    "candle", "forest", "mirror", "ladder", "signal", "thunder", "velvet", "anchor", "bridge",
    "copper", "desert", "feather", "glacier", "island", "jungle", "kettle", "lantern",
];

/// Words drawn by a fixed-seed generator.
fn words(seed: u64, n: usize) -> String {
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            WORDS[(s % WORDS.len() as u64) as usize]
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Three terms of `-d` submissions (a directory of two files each); term
/// 2 copies from terms 0 and 1.
fn terms(root: &Path) {
    for t in 0..3 {
        for s in 0..4 {
            let dir = root.join(format!("term{t}/s{s}"));
            std::fs::create_dir_all(&dir).unwrap();
            let own = words(100 * t + s, 300);
            let copied = match (t, s) {
                (2, 0) => format!("{} {}", words(0, 300), words(7, 40)),
                (2, 1) => words(101, 300),
                (1, 3) => words(2, 300),
                _ => String::new(),
            };
            std::fs::write(dir.join("a.txt"), own).unwrap();
            std::fs::write(
                dir.join("b.txt"),
                copied + " " + &words(1000 + 10 * t + s, 50),
            )
            .unwrap();
        }
    }
}

fn ok(args: &[&str]) -> String {
    let out = bryo().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "bryo {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The report without `options.old` and without the ` [TAG]` marks, for
/// comparing `--against` with `--old`.
fn unmarked(mut report: Value) -> Value {
    report["options"]["old"] = Value::Null;
    let text = serde_json::to_string(&report).unwrap();
    let text = text.replace(" [fall]", "").replace(" [spring]", "");
    serde_json::from_str(&text).unwrap()
}

#[test]
fn against_equals_old_and_marks_the_archive() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    terms(root);
    let idx = root.join("idx");
    let (idx_s, t0, t1, t2) = (
        idx.to_str().unwrap(),
        root.join("term0"),
        root.join("term1"),
        root.join("term2"),
    );
    let (t0, t1, t2) = (
        t0.to_str().unwrap(),
        t1.to_str().unwrap(),
        t2.to_str().unwrap(),
    );
    ok(&[
        "index",
        "create",
        idx_s,
        "-l",
        "text",
        "--text-mode",
        "words",
    ]);
    let added = ok(&["index", "add", idx_s, "--tag", "fall", "-d", t0]);
    assert!(
        added.contains("added 4 submissions, 8 documents"),
        "{added}"
    );
    ok(&["index", "add", idx_s, "--tag", "spring", "-d", t1]);
    let info = ok(&["index", "info", idx_s]);
    assert!(info.contains("8 submissions, 16 documents"), "{info}");
    assert!(
        info.contains("language text") && info.contains("text mode words"),
        "{info}"
    );
    assert!(info.lines().any(|l| l.starts_with("fall ")), "{info}");

    let common = [
        "compare",
        "-l",
        "text",
        "--text-mode",
        "words",
        "-d",
        "-n",
        "0",
    ];
    let mut against: Vec<&str> = common.to_vec();
    against.extend(["--against", idx_s, t2]);
    let mut old: Vec<&str> = common.to_vec();
    old.extend(["--old", t0, "--old", t1, t2]);
    let a = json(&against);
    let o = json(&old);
    // term2/s0 and term2/s1 copied from the archive (term1/s3 copied
    // term0/s2, but old submissions are not compared with each other).
    assert_eq!(a["pairs"].as_array().unwrap().len(), 2, "{a}");
    assert_eq!(unmarked(a.clone()), unmarked(o));
    // Read in part (the default with a language) or loaded whole
    // (--in-memory), and spilling: the same report.
    let mut whole = against.clone();
    whole.push("--in-memory");
    assert_eq!(json(&whole), a);
    let mut spilled = against.clone();
    spilled.extend(["--memory", "1K"]);
    assert_eq!(json(&spilled), a);
    // The archived side is named with its tag, in JSON …
    let names: Vec<&str> = a["submissions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert!(
        names.iter().any(|n| n.ends_with("term0/s0 [fall]")),
        "{names:?}"
    );
    assert!(
        names.iter().any(|n| n.ends_with("term1/s1 [spring]")),
        "{names:?}"
    );
    // … in the table, the CSV and the HTML report.
    let table = ok(&against);
    assert!(table.contains("[fall]"), "{table}");
    let mut csv = against.clone();
    csv.extend(["--format", "csv"]);
    assert!(ok(&csv).contains("[spring]"));
    let html = root.join("html");
    let mut h = against.clone();
    h.extend(["--format", "html", "-o", html.to_str().unwrap()]);
    ok(&h);
    let page = std::fs::read_to_string(html.join("pair-1.html")).unwrap();
    assert!(
        page.contains("[fall]") || page.contains("[spring]"),
        "{page}"
    );
    assert!(!page.contains("was not among the files read"), "{page}");
    // Read in part, the pages are those of the whole archive loaded.
    let whole = root.join("html-whole");
    let mut w = against.clone();
    w.extend([
        "--in-memory",
        "--format",
        "html",
        "-o",
        whole.to_str().unwrap(),
    ]);
    ok(&w);
    assert_eq!(support::tree_of(&html), support::tree_of(&whole));

    // Removal and compaction change what is compared, not how.
    ok(&["index", "remove", idx_s, "--tag", "spring"]);
    ok(&["index", "compact", idx_s]);
    let a = json(&against);
    let mut old: Vec<&str> = common.to_vec();
    old.extend(["--old", t0, t2]);
    assert_eq!(unmarked(a), unmarked(json(&old)));
}

#[test]
fn mismatched_options_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    terms(tmp.path());
    let idx = tmp.path().join("idx");
    let idx_s = idx.to_str().unwrap();
    let t2 = tmp.path().join("term2");
    ok(&["index", "create", idx_s, "-l", "text", "-k", "8"]);
    let out = bryo()
        .args([
            "compare",
            "-l",
            "python",
            "--against",
            idx_s,
            t2.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("index made with language text, but python is asked for"),
        "{err}"
    );
    let out = bryo()
        .args([
            "compare",
            "-k",
            "9",
            "--against",
            idx_s,
            t2.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("index made with k 8, but 9"), "{err}");
    let out = bryo()
        .args(["index", "info", tmp.path().to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a bryo index"));
}

/// `(submissions, documents)` from `bryo index info`.
fn counts(idx: &str) -> (u64, u64) {
    let info = ok(&["index", "info", idx]);
    let line = info.lines().find(|l| l.contains(" documents, ")).unwrap();
    // "1,503 submissions, 1,503 documents, …"
    let n: Vec<u64> = line
        .split(", ")
        .map(|part| {
            part.split(' ')
                .next()
                .unwrap()
                .replace(',', "")
                .parse()
                .unwrap()
        })
        .collect();
    (n[0], n[1])
}

#[test]
fn killed_add_leaves_the_index_before_or_after() {
    let tmp = tempfile::tempdir().unwrap();
    let big = tmp.path().join("big");
    std::fs::create_dir(&big).unwrap();
    for i in 0..1500 {
        std::fs::write(big.join(format!("f{i:04}.txt")), words(i, 400)).unwrap();
    }
    let first = tmp.path().join("first");
    std::fs::create_dir(&first).unwrap();
    for i in 0..3 {
        std::fs::write(first.join(format!("g{i}.txt")), words(5000 + i, 400)).unwrap();
    }
    let base = tmp.path().join("base");
    let base_s = base.to_str().unwrap();
    ok(&["index", "create", base_s, "-l", "text"]);
    ok(&[
        "index",
        "add",
        base_s,
        "--tag",
        "first",
        first.to_str().unwrap(),
    ]);
    let before = counts(base_s);
    let after = (before.0 + 1500, before.1 + 1500);

    // How long an uninterrupted add takes here.
    let copy = |to: &Path| {
        std::fs::create_dir_all(to.join("segments")).unwrap();
        for entry in walk(&base) {
            let rel = entry.strip_prefix(&base).unwrap();
            std::fs::copy(&entry, to.join(rel)).unwrap();
        }
    };
    let timed = tmp.path().join("timed");
    copy(&timed);
    let start = Instant::now();
    ok(&[
        "index",
        "add",
        timed.to_str().unwrap(),
        big.to_str().unwrap(),
    ]);
    let full = start.elapsed();
    assert_eq!(counts(timed.to_str().unwrap()), after);

    // Killed at fixed fractions of that time, and well beyond it.
    let mut outcomes = (0, 0);
    for (n, fraction) in [0.0, 0.1, 0.25, 0.4, 0.55, 0.7, 0.85, 0.95, 1.5, 3.0]
        .iter()
        .enumerate()
    {
        let dir = tmp.path().join(format!("killed{n}"));
        copy(&dir);
        let dir_s = dir.to_str().unwrap();
        let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("bryo"))
            .args(["index", "add", dir_s, big.to_str().unwrap()])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(full.mul_f64(*fraction));
        let _ = child.kill();
        let _ = child.wait();
        let now = counts(dir_s);
        assert!(
            now == before || now == after,
            "killed at {fraction}: {now:?}"
        );
        if now == before {
            outcomes.0 += 1;
        } else {
            outcomes.1 += 1;
        }
        // Readable: a query runs — reading the index in part (its
        // shared-hash table) as loading it whole — and the next writer
        // succeeds and cleans up.
        let query = [
            "compare",
            "--against",
            dir_s,
            "-n",
            "0",
            first.to_str().unwrap(),
        ];
        let whole = [&query[..], &["--in-memory"]].concat();
        assert_eq!(
            support::json_bytes(None, &query),
            support::json_bytes(None, &whole),
            "killed at {fraction}"
        );
        ok(&["index", "compact", dir_s]);
        let segments = std::fs::read_dir(dir.join("segments")).unwrap().count();
        let info = ok(&["index", "info", dir_s]);
        // Only the segment the catalogue lists is left on disk.
        assert!(info.contains(&format!("{segments} segments")), "{info}");
        ok(&[
            "index",
            "add",
            dir_s,
            "--tag",
            "again",
            first.to_str().unwrap(),
        ]);
    }
    // Both outcomes happened: the kills did land in the middle of adds.
    assert!(
        outcomes.0 > 0 && outcomes.1 > 0,
        "{outcomes:?} after {full:?}"
    );
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[test]
fn an_index_made_with_normalize_refuses_a_query_without_it() {
    let tmp = tempfile::tempdir().unwrap();
    let idx = tmp.path().join("idx");
    let idx_s = idx.to_str().unwrap();
    let old = tmp.path().join("old");
    let new = tmp.path().join("new");
    for (dir, extra) in [(&old, "    unused = 3\n"), (&new, "")] {
        std::fs::create_dir_all(dir).unwrap();
        let program = format!(
            "def f(a, n):\n    s = 0\n{extra}    for i in range(n):\n        s += a[i] * {}\n    return s\n\nprint(f([1, 2, 3], 3))\n",
            words(3, 1).len()
        );
        std::fs::write(dir.join("p.py"), program).unwrap();
    }
    ok(&["index", "create", idx_s, "-l", "python", "--normalize"]);
    ok(&["index", "add", idx_s, old.to_str().unwrap()]);
    let info = ok(&["index", "info", idx_s]);
    assert!(info.contains("statements with no effect dropped"), "{info}");
    let out = bryo()
        .args([
            "compare",
            "--parser",
            "tree-sitter",
            "--against",
            idx_s,
            new.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    let version = bryo_compare::TOKEN_NORMALIZATION_VERSION;
    assert!(
        err.contains(&format!(
            "index made with token_normalization {version}, but off is asked for"
        )),
        "{err}"
    );
    let against = |flags: &[&str]| -> Value {
        let args = [
            &["compare"],
            flags,
            &["--format", "json", "--against", idx_s],
        ]
        .concat();
        serde_json::from_str(&ok(&[&args[..], &[new.to_str().unwrap()]].concat())).unwrap()
    };
    let report = against(&["--normalize"]);
    // The archived program differs only by a dead assignment: identical
    // symbols once it is left out.
    assert_eq!(
        report["pairs"][0]["similarity"].as_f64(),
        Some(1.0),
        "{report}"
    );
    // Without front-end flags the query takes the index's normalization
    // (Python is not normalized by default).
    let report = against(&[]);
    assert_eq!(report["options"]["scheme"]["token_normalization"], true);
    assert_eq!(report["pairs"][0]["similarity"].as_f64(), Some(1.0));
}

#[test]
fn an_index_takes_the_default_normalization_of_its_language() {
    let tmp = tempfile::tempdir().unwrap();
    let (java, plain) = (tmp.path().join("java"), tmp.path().join("plain"));
    ok(&["index", "create", java.to_str().unwrap(), "-l", "java"]);
    let info = ok(&["index", "info", java.to_str().unwrap()]);
    assert!(
        info.contains("parser tree-sitter (statements with no effect dropped"),
        "{info}"
    );
    ok(&[
        "index",
        "create",
        plain.to_str().unwrap(),
        "-l",
        "java",
        "--no-normalize",
    ]);
    let info = ok(&["index", "info", plain.to_str().unwrap()]);
    assert!(info.contains("parser lexer,"), "{info}");
    let python = tmp.path().join("python");
    ok(&["index", "create", python.to_str().unwrap(), "-l", "python"]);
    let info = ok(&["index", "info", python.to_str().unwrap()]);
    assert!(info.contains("parser lexer,"), "{info}");
}
