//! End-to-end tests of `bryo compare`, `bryo tokens` and `bryo languages`:
//! the real binary on corpora generated in temporary directories.

use std::fs;
use std::io::Write;
use std::path::Path;

use serde_json::Value;
use tempfile::TempDir;

mod support;
use support::{bryo, json_bytes, json_in};

fn write(dir: &Path, rel: &str, text: &str) {
    let path = dir.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

/// Runs `bryo compare --format json` in `dir`; panics unless the exit code
/// is `code`.
fn compare_json(dir: &Path, args: &[&str]) -> Value {
    json_in(dir, &[&["compare"], args].concat())
}

fn names(report: &Value) -> Vec<String> {
    report["submissions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap().to_string())
        .collect()
}

/// `(a, b, similarity)` of every reported pair, by submission name.
fn pairs(report: &Value) -> Vec<(String, String, f64)> {
    let n = names(report);
    report["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                n[p["a"].as_u64().unwrap() as usize].clone(),
                n[p["b"].as_u64().unwrap() as usize].clone(),
                p["similarity"].as_f64().unwrap(),
            )
        })
        .collect()
}

/// Whether submission `name` is `x` or ends with the path component(s) `x`.
fn is(name: &str, x: &str) -> bool {
    name == x || name.ends_with(&format!("/{x}"))
}

fn similarity(report: &Value, x: &str, y: &str) -> f64 {
    pairs(report)
        .into_iter()
        .find(|(a, b, _)| (is(a, x) && is(b, y)) || (is(a, y) && is(b, x)))
        .map_or(0.0, |p| p.2)
}

/// A Python program of about 60 lines whose token sequence depends on
/// `seed`: random statements built from many templates and operators, so two
/// seeds share no run of a dozen tokens by chance.
fn program(seed: u32) -> String {
    let mut x = seed.wrapping_mul(2_654_435_761) | 1;
    let mut next = move |n: u32| {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        x % n
    };
    const OPS: [&str; 10] = ["+", "-", "*", "//", "%", "<<", ">>", "&", "|", "^"];
    const CMP: [&str; 6] = ["<", ">", "<=", ">=", "==", "!="];
    let mut s = String::new();
    for f in 0..6 {
        s.push_str(&format!("def f{f}_{seed}(a, b):\n"));
        for _ in 0..8 {
            let (o1, o2, c) = (
                OPS[next(10) as usize],
                OPS[next(10) as usize],
                CMP[next(6) as usize],
            );
            let line = match next(8) {
                0 => format!("    a = a {o1} b {o2} 2\n"),
                1 => format!("    if a {c} b:\n        return [a, b {o1} 1]\n"),
                2 => format!("    for i in range(b {o1} 3):\n        a = a {o2} i\n"),
                3 => format!("    b = {{'k': a {o1} 1, 'v': (b, a {o2} b)}}\n"),
                4 => format!("    while a {c} 10 and not b:\n        a = a {o1} 1\n"),
                5 => format!("    print(a {o1} b, b {o2} a, sep=', ')\n"),
                6 => format!("    b = len(str(a {o1} b)) {o2} 7\n"),
                _ => format!("    a, b = b {o1} 1, a {o2} (b {c} 0)\n"),
            };
            s.push_str(&line);
        }
        s.push_str("    return a\n\n");
    }
    s
}

/// `program(seed)` with every identifier renamed, comments added and the
/// functions in reverse order.
fn disguised(seed: u32) -> String {
    let original = program(seed);
    let mut functions: Vec<String> = original
        .split("\n\n")
        .filter(|f| !f.trim().is_empty())
        .map(|f| {
            let mut out = String::new();
            let mut word = String::new();
            for ch in f.chars().chain(std::iter::once('\n')) {
                if ch.is_alphanumeric() || ch == '_' {
                    word.push(ch);
                    continue;
                }
                out.push_str(match word.as_str() {
                    "a" => "left",
                    "b" => "right",
                    "i" => "idx",
                    w => w,
                });
                word.clear();
                out.push(ch);
            }
            out
        })
        .collect();
    functions.reverse();
    functions
        .iter()
        .map(|f| format!("# my own work\n{}\n", f.trim_end()))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn planted_copies_rank_above_unrelated_files() {
    let dir = TempDir::new().unwrap();
    for i in 0..8 {
        write(dir.path(), &format!("s{i}.py"), &program(100 + i));
    }
    write(dir.path(), "copy_of_s3.py", &disguised(103));
    let report = compare_json(dir.path(), &["."]);
    let ranked = pairs(&report);
    assert!(!ranked.is_empty());
    let top = &ranked[0];
    assert!(
        (is(&top.0, "s3.py") && is(&top.1, "copy_of_s3.py"))
            || (is(&top.1, "s3.py") && is(&top.0, "copy_of_s3.py")),
        "top pair is {top:?}"
    );
    let copied = similarity(&report, "s3.py", "copy_of_s3.py");
    assert!(copied > 0.8, "similarity of the disguised copy {copied}");
    for (a, b, s) in &ranked[1..] {
        assert!(*s < copied, "{a} ~ {b} = {s} not below the copy's {copied}");
    }
}

#[test]
fn fragments_map_to_the_right_lines() {
    let dir = TempDir::new().unwrap();
    let shared = program(7);
    let a = format!("{}\n{shared}", program(1));
    let b = format!("{shared}\n{}", program(2));
    write(dir.path(), "a.py", &a);
    write(dir.path(), "b.py", &b);
    let report = compare_json(dir.path(), &["a.py", "b.py"]);
    let pair = &report["pairs"][0];
    let shared_lines = shared.lines().count() as u64;
    let a_offset = program(1).lines().count() as u64 + 1; // lines before `shared` in a.py
    let frag = &pair["fragments"][0];
    let (fa, fb) = (&frag["a"], &frag["b"]);
    let side = |loc: &Value, name: &str| loc["file"].as_str().unwrap().ends_with(name);
    let (in_a, in_b) = if side(fa, "a.py") { (fa, fb) } else { (fb, fa) };
    let a_lines = [
        in_a["lines"][0].as_u64().unwrap(),
        in_a["lines"][1].as_u64().unwrap(),
    ];
    let b_lines = [
        in_b["lines"][0].as_u64().unwrap(),
        in_b["lines"][1].as_u64().unwrap(),
    ];
    // The longest fragment lies inside the shared block on both sides and
    // covers most of it.
    assert!(
        a_lines[0] > a_offset && a_lines[1] <= a_offset + shared_lines,
        "{a_lines:?}"
    );
    assert!(b_lines[0] >= 1 && b_lines[1] <= shared_lines, "{b_lines:?}");
    assert!(
        a_lines[1] - a_lines[0] + 1 >= shared_lines / 2,
        "{a_lines:?}"
    );
    assert_eq!(
        a_lines[0] - a_offset,
        b_lines[0],
        "same line of the shared block"
    );
    // Byte ranges point at the same text.
    let a_bytes = &a.as_bytes()
        [in_a["bytes"][0].as_u64().unwrap() as usize..in_a["bytes"][1].as_u64().unwrap() as usize];
    let b_bytes = &b.as_bytes()
        [in_b["bytes"][0].as_u64().unwrap() as usize..in_b["bytes"][1].as_u64().unwrap() as usize];
    assert_eq!(a_bytes, b_bytes);
}

#[test]
fn base_code_is_not_counted() {
    let dir = TempDir::new().unwrap();
    let starter = program(50);
    write(dir.path(), "starter/hw.py", &starter);
    write(
        dir.path(),
        "subs/x.py",
        &format!("{starter}\n{}", program(1)),
    );
    write(
        dir.path(),
        "subs/y.py",
        &format!("{starter}\n{}", program(2)),
    );
    let without = compare_json(dir.path(), &["subs"]);
    assert!(similarity(&without, "x.py", "y.py") > 0.3);
    let with = compare_json(dir.path(), &["-b", "starter", "subs"]);
    assert!(
        similarity(&with, "x.py", "y.py") < 0.1,
        "base code still counted: {}",
        similarity(&with, "x.py", "y.py")
    );
    // Each file lists the starter as base code: a region from the first
    // byte over (nearly) all of the starter's lines, then perhaps short
    // passages that happen to equal a k-gram of the starter, in file order.
    let starter_lines = starter.lines().count() as u64;
    for sub in with["submissions"].as_array().unwrap() {
        let file = &sub["files"][0];
        let base = file["base_code"].as_array().expect("base_code listed");
        assert_eq!(base[0]["bytes"][0], 0, "{file}");
        assert_eq!(base[0]["lines"][0], 1, "{file}");
        let first_end = base[0]["lines"][1].as_u64().unwrap();
        assert!(
            first_end + 2 >= starter_lines,
            "base code ends on line {first_end}, the starter has {starter_lines}"
        );
        let bytes: Vec<(u64, u64)> = base
            .iter()
            .map(|r| {
                (
                    r["bytes"][0].as_u64().unwrap(),
                    r["bytes"][1].as_u64().unwrap(),
                )
            })
            .collect();
        assert!(bytes.windows(2).all(|w| w[0].1 <= w[1].0), "{bytes:?}");
    }
    assert!(without["submissions"][0]["files"][0]
        .get("base_code")
        .is_none());
}

#[test]
fn max_submissions_ignores_common_passages_like_moss() {
    let dir = TempDir::new().unwrap();
    let common = program(9);
    for i in 0..4 {
        write(
            dir.path(),
            &format!("s{i}.py"),
            &format!("{common}\n{}", program(20 + i)),
        );
    }
    let pair_only = program(77);
    write(
        dir.path(),
        "s4.py",
        &format!("{pair_only}\n{}", program(30)),
    );
    write(
        dir.path(),
        "s5.py",
        &format!("{pair_only}\n{}", program(31)),
    );
    // -m 2: only passages in exactly two submissions count.
    let report = compare_json(dir.path(), &["-m", "2", "."]);
    assert!(similarity(&report, "s4.py", "s5.py") > 0.3);
    assert!(similarity(&report, "s0.py", "s1.py") < 0.05);
    // -m 10 and the default keep a passage in four submissions.
    let report = compare_json(dir.path(), &["-m", "10", "."]);
    assert!(similarity(&report, "s0.py", "s1.py") > 0.3);
    let report = compare_json(dir.path(), &["."]);
    assert!(similarity(&report, "s0.py", "s1.py") > 0.3);
    assert!(report["options"]["max_submissions"].is_null());
}

/// Without -m, code most of a class shares is template code: neither
/// matched nor counted, and the user is told; a group of copiers larger
/// than MOSS's ten keeps its matches.
#[test]
fn template_code_is_found_without_base_files() {
    let dir = TempDir::new().unwrap();
    let template = program(3);
    let copied = program(50);
    for i in 0..30 {
        let own = if i < 12 {
            copied.clone()
        } else {
            program(100 + i)
        };
        write(
            dir.path(),
            &format!("s{i:02}.py"),
            &format!("{template}\n{own}\n{}", program(200 + i)),
        );
    }
    let out = bryo()
        .current_dir(dir.path())
        .args([
            "compare", "-l", "python", "-n", "0", "--format", "json", ".",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("template code"), "{stderr}");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["stats"]["template_above"], 15);
    // Twelve copiers: matched at the defaults, erased by -m 10. Template
    // lines cut their copy into matches shorter than four k-grams, each in
    // 12 of 30 submissions, which the rarity discount weighs at about a
    // half; without it the copy counts in full.
    assert_eq!(report["stats"]["discount_below"], 48);
    let copiers = similarity(&report, "s00.py", "s11.py");
    assert!(copiers > 0.25, "{copiers}");
    let plain = compare_json(dir.path(), &["--no-discount", "-n", "0", "."]);
    assert!(plain["stats"].get("discount_below").is_none());
    assert!(similarity(&plain, "s00.py", "s11.py") > 0.4);
    assert!(similarity(&plain, "s00.py", "s11.py") > copiers);
    let moss = compare_json(dir.path(), &["-m", "10", "-n", "0", "."]);
    assert!(similarity(&moss, "s00.py", "s11.py") < 0.1);
    // Two who share only the template score next to nothing (a few
    // symbols where the template meets their own code, as with -b).
    assert!(similarity(&report, "s20.py", "s21.py") < 0.1);
    assert!(copiers > 3.0 * similarity(&report, "s20.py", "s21.py"));
    // The header states the rule that applied.
    let text = bryo()
        .current_dir(dir.path())
        .args(["compare", "-l", "python", "."])
        .output()
        .unwrap();
    let header = String::from_utf8_lossy(&text.stdout);
    assert!(
        header.contains(
            "template above 15 submissions, matches under 48 symbols discounted by rarity"
        ),
        "{header}"
    );
}

#[test]
fn directory_mode_never_pairs_files_of_one_submission() {
    let dir = TempDir::new().unwrap();
    let shared = program(5);
    write(dir.path(), "subs/ann/a.py", &shared);
    write(dir.path(), "subs/ann/b.py", &shared);
    write(dir.path(), "subs/ben/main.py", &program(6));
    write(dir.path(), "subs/cat/main.py", &shared);
    let report = compare_json(dir.path(), &["-d", "subs"]);
    let n = names(&report);
    assert_eq!(n.len(), 3, "{n:?}");
    assert_eq!(
        report["submissions"][0]["files"].as_array().unwrap().len(),
        2
    );
    for p in report["pairs"].as_array().unwrap() {
        assert_ne!(p["a"], p["b"]);
    }
    assert!(similarity(&report, "ann", "cat") > 0.4);
}

#[test]
fn old_submissions_are_not_compared_with_each_other() {
    let dir = TempDir::new().unwrap();
    let shared = program(3);
    write(dir.path(), "old/o1.py", &shared);
    write(dir.path(), "old/o2.py", &shared);
    write(dir.path(), "new/n1.py", &shared);
    write(dir.path(), "new/n2.py", &program(4));
    let report = compare_json(dir.path(), &["--old", "old", "new"]);
    for (a, b, _) in pairs(&report) {
        assert!(!(a.contains("old/") && b.contains("old/")), "{a} ~ {b}");
    }
    assert!(similarity(&report, "o1.py", "n1.py") > 0.9);
}

#[test]
fn identical_submissions_are_flagged() {
    let dir = TempDir::new().unwrap();
    write(dir.path(), "a.py", &program(1));
    // Same tokens, different layout and comments.
    write(
        dir.path(),
        "b.py",
        &format!("# copied\n{}", program(1).replace("    ", "\t")),
    );
    write(dir.path(), "c.py", &program(2));
    let report = compare_json(dir.path(), &["."]);
    let top = &report["pairs"][0];
    assert_eq!(top["identical"], true);
    assert_eq!(top["similarity"], 1.0);
}

#[test]
fn binary_and_unknown_files_are_listed_as_skipped() {
    let dir = TempDir::new().unwrap();
    write(dir.path(), "a.py", &program(1));
    write(dir.path(), "b.py", &program(2));
    fs::write(dir.path().join("blob.py"), b"\x00\x01\x02binary").unwrap();
    write(dir.path(), "notes.unknownext", "hello");
    let report = compare_json(dir.path(), &["."]);
    let skipped = report["skipped"].as_array().unwrap();
    let reason = |name: &str| {
        skipped
            .iter()
            .find(|s| s["path"].as_str().unwrap().ends_with(name))
            .map(|s| s["reason"].as_str().unwrap().to_string())
    };
    assert!(reason("blob.py").unwrap().contains("binary"), "{skipped:?}");
    assert!(
        reason("notes.unknownext").unwrap().contains("language"),
        "{skipped:?}"
    );
    assert_eq!(names(&report).len(), 2);
}

#[test]
fn zip_archives_are_read() {
    let dir = TempDir::new().unwrap();
    let file = fs::File::create(dir.path().join("batch.zip")).unwrap();
    let mut zip = zip::ZipWriter::new(file);
    let opts = zip::write::SimpleFileOptions::default();
    zip.start_file("ann/main.py", opts).unwrap();
    zip.write_all(program(11).as_bytes()).unwrap();
    zip.start_file("ben/main.py", opts).unwrap();
    zip.write_all(program(11).as_bytes()).unwrap();
    zip.start_file("cat/main.py", opts).unwrap();
    zip.write_all(program(12).as_bytes()).unwrap();
    zip.finish().unwrap();
    let report = compare_json(dir.path(), &["-d", "batch.zip"]);
    assert_eq!(names(&report).len(), 3, "{:?}", names(&report));
    assert!(similarity(&report, "ann", "ben") > 0.99);
}

/// Writes a zip archive of `(name, text)` entries at `path`.
fn zip_of(path: &Path, entries: &[(&str, &str)]) {
    let mut zip = zip::ZipWriter::new(fs::File::create(path).unwrap());
    let opts = zip::write::SimpleFileOptions::default();
    for (name, text) in entries {
        zip.start_file(*name, opts).unwrap();
        zip.write_all(text.as_bytes()).unwrap();
    }
    zip.finish().unwrap();
}

#[test]
fn one_zip_per_student_in_a_directory_is_one_submission_each() {
    let dir = TempDir::new().unwrap();
    fs::create_dir(dir.path().join("subs")).unwrap();
    let copied = program(21);
    zip_of(
        &dir.path().join("subs/alice.zip"),
        &[("hw/main.py", &copied), ("hw/README.md", "# homework\n")],
    );
    zip_of(&dir.path().join("subs/bob.zip"), &[("main.py", &copied)]);
    zip_of(
        &dir.path().join("subs/cat.zip"),
        &[("main.py", &program(22)), ("old.zip", "PK")],
    );
    let report = compare_json(dir.path(), &["-d", "-l", "python", "subs"]);
    assert_eq!(
        names(&report),
        ["subs/alice.zip", "subs/bob.zip", "subs/cat.zip"]
    );
    assert!(similarity(&report, "alice.zip", "bob.zip") > 0.99);
    assert!(similarity(&report, "alice.zip", "cat.zip") < 0.2);
    let skipped = report["skipped"].as_array().unwrap();
    let reason = |name: &str| {
        skipped
            .iter()
            .find(|s| s["path"].as_str().unwrap() == name)
            .map(|s| s["reason"].as_str().unwrap().to_string())
    };
    assert!(
        reason("subs/alice.zip/hw/README.md")
            .unwrap()
            .contains("extension .md"),
        "{skipped:?}"
    );
    assert!(
        reason("subs/cat.zip/old.zip")
            .unwrap()
            .contains("zip inside a zip"),
        "{skipped:?}"
    );
}

#[test]
fn files_named_explicitly_are_compared_whatever_the_language() {
    let dir = TempDir::new().unwrap();
    write(dir.path(), "a.py", &program(31));
    write(dir.path(), "b.py", &program(31));
    let report = compare_json(dir.path(), &["-l", "text", "a.py", "b.py"]);
    assert_eq!(names(&report), ["a.py", "b.py"]);
    assert!(similarity(&report, "a.py", "b.py") > 0.99);
    assert!(report["skipped"].as_array().unwrap().is_empty());
}

#[test]
fn output_is_deterministic_in_every_format() {
    let dir = TempDir::new().unwrap();
    for i in 0..6 {
        write(dir.path(), &format!("s{i}.py"), &program(i % 3));
    }
    for format in ["json", "csv", "text"] {
        let run = || {
            bryo()
                .current_dir(dir.path())
                .args(["compare", "--format", format, "--color", "never", "."])
                .output()
                .unwrap()
                .stdout
        };
        assert_eq!(run(), run(), "{format}");
    }
}

/// Results do not depend on the number of threads: 1, 2 and 8 threads
/// write the same bytes (the JSON has no timing fields).
#[test]
fn json_is_byte_identical_at_1_2_and_8_threads() {
    let dir = TempDir::new().unwrap();
    for i in 0..12 {
        write(dir.path(), &format!("s{i:02}.py"), &program(i % 4));
    }
    let run = |j: &str| json_bytes(Some(dir.path()), &["compare", "-n", "0", "-j", j, "."]);
    let one = run("1");
    assert!(!one.is_empty());
    assert_eq!(one, run("2"), "-j 1 vs -j 2");
    assert_eq!(one, run("8"), "-j 1 vs -j 8");
}

/// The default JSON has a line per submission and per pair; `--pretty`
/// indents every member, and both hold the same report. `--pretty` lays
/// out JSON only.
#[test]
fn json_layouts_hold_the_same_report() {
    let dir = TempDir::new().unwrap();
    for i in 0..6 {
        write(dir.path(), &format!("s{i}.py"), &program(i % 3));
    }
    let lines = json_bytes(Some(dir.path()), &["compare", "-n", "0", "."]);
    let pretty = json_bytes(Some(dir.path()), &["compare", "-n", "0", "--pretty", "."]);
    let value: Value = serde_json::from_slice(&lines).unwrap();
    assert_eq!(value, serde_json::from_slice::<Value>(&pretty).unwrap());
    let n_pairs = value["pairs"].as_array().unwrap().len();
    let n_subs = value["submissions"].as_array().unwrap().len();
    assert!(n_pairs >= 3 && n_subs == 6, "{value}");
    let text = String::from_utf8(lines).unwrap();
    let records = text.lines().filter(|l| l.starts_with("    {")).count();
    assert!(
        records >= n_pairs + n_subs,
        "one line per pair and per submission: {text}"
    );
    assert!(pretty.len() > text.len() * 3 / 2);
    assert!(String::from_utf8(pretty)
        .unwrap()
        .contains("\n      \"fragments\": [\n"));
    let out = bryo()
        .current_dir(dir.path())
        .args(["compare", "--pretty", "--format", "csv", "."])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("--pretty lays out JSON"));
}

/// Reports of many candidates are written pair by pair, each pair's
/// fragments computed again: the same bytes as the whole report, in JSON,
/// CSV and the table (which keeps no fragments), under a cut and a minimum similarity, with old submissions,
/// identical ones and base code; `--fail-above` still sees every pair.
#[test]
fn reports_written_pair_by_pair_equal_whole_ones() {
    let dir = TempDir::new().unwrap();
    for i in 0..16 {
        write(dir.path(), &format!("new/s{i:02}.py"), &program(i % 5));
    }
    write(dir.path(), "new/twin.py", &program(2));
    for i in 0..4 {
        write(dir.path(), &format!("old/o{i}.py"), &disguised(i));
    }
    write(dir.path(), "base/given.py", &program(4));
    let run = |stream_above: &str, extra: &[&str]| {
        let out = bryo()
            .current_dir(dir.path())
            .env("BRYO_STREAM_CANDIDATES", stream_above)
            .args([
                "compare",
                "--old",
                "old",
                "-b",
                "base",
                "--fail-above",
                "0.95",
            ])
            .args(extra)
            .arg("new")
            .output()
            .unwrap();
        (out.status.code(), out.stdout)
    };
    for format in [
        &["--format", "json"][..],
        &["--format", "json", "--pretty"],
        &["--format", "csv"],
        &["--format", "text"],
    ] {
        for cut in [
            &["-n", "0"][..],
            &["-n", "7"],
            &["-n", "0", "--min-similarity", "0.3"],
        ] {
            let args = [format, cut].concat();
            let (code, whole) = run("1000000", &args);
            assert_eq!(code, Some(1), "{args:?}: the twins reach 0.95");
            assert!(whole.len() > 100, "{args:?}");
            assert_eq!(run("0", &args), (code, whole), "{args:?}");
        }
    }
}

/// The phases `--timings` printed on standard error.
fn timing_phases(stderr: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(stderr)
        .lines()
        .skip_while(|l| !l.starts_with("phase"))
        .skip(1)
        .take_while(|l| !l.starts_with("bryo:"))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect()
}

/// Identical pairs count towards the pairs that make a report stream: a
/// class of copies of a file too short for a k-gram has no candidate pair,
/// yet every pair is reported. Streamed, each pair's report is made as it
/// is written, so `--timings` shows no report phase of its own.
#[test]
fn identical_pairs_without_a_shared_fingerprint_are_streamed_too() {
    let dir = TempDir::new().unwrap();
    for i in 0..8 {
        write(dir.path(), &format!("s{i}.c"), "int main(){return 0;}\n");
    }
    let run = |stream_above: &str| {
        let out = bryo()
            .current_dir(dir.path())
            .env("BRYO_STREAM_CANDIDATES", stream_above)
            .args(["compare", "-l", "c", "-n", "0", "--format", "json"])
            .args(["--timings", "."])
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        (out.stdout, timing_phases(&out.stderr))
    };
    let (whole, whole_phases) = run("1000000");
    let json: Value = serde_json::from_slice(&whole).unwrap();
    assert_eq!(json["stats"]["candidate_pairs"], 0, "{json}");
    assert_eq!(json["pairs"].as_array().unwrap().len(), 28, "{json}");
    assert!(
        whole_phases.iter().any(|p| p == "report"),
        "{whole_phases:?}"
    );
    // 28 identical pairs, above a threshold of 10.
    let (streamed, phases) = run("10");
    assert_eq!(streamed, whole);
    assert_eq!(
        phases[phases.len() - 3..],
        ["fragments", "write", "total"],
        "{phases:?}"
    );
}

#[test]
fn csv_has_one_row_per_pair() {
    let dir = TempDir::new().unwrap();
    for i in 0..4 {
        write(dir.path(), &format!("s{i}.py"), &program(i % 2));
    }
    let out = bryo()
        .current_dir(dir.path())
        .args(["compare", "--format", "csv", "."])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let json = compare_json(dir.path(), &["."]);
    assert_eq!(
        text.lines().count(),
        1 + json["pairs"].as_array().unwrap().len()
    );
}

#[test]
fn fail_above_sets_exit_code_one() {
    let dir = TempDir::new().unwrap();
    write(dir.path(), "a.py", &program(1));
    write(dir.path(), "b.py", &program(1));
    bryo()
        .current_dir(dir.path())
        .args(["compare", "--fail-above", "90%", "."])
        .assert()
        .code(1);
    write(dir.path(), "b.py", &program(2));
    write(dir.path(), "a.py", &program(3));
    bryo()
        .current_dir(dir.path())
        .args(["compare", "--fail-above", "0.99", "."])
        .assert()
        .code(0);
}

#[test]
fn errors_are_one_line_with_exit_code_two() {
    let dir = TempDir::new().unwrap();
    write(dir.path(), "a.py", &program(1));
    let cases: [&[&str]; 4] = [
        &["compare", "missing-dir"],
        &["compare", "a.py"],
        &["compare", "-l", "klingon", "a.py", "a.py"],
        &["compare", "-k", "0", "a.py", "."],
    ];
    for args in cases {
        let out = bryo().current_dir(dir.path()).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(
            err.starts_with("bryo: error: ") || err.starts_with("error: "),
            "{args:?}: {err}"
        );
        assert!(!err.contains("panicked"), "{err}");
    }
}

#[test]
fn the_readme_example_ranks_the_copies_first() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let report = compare_json(
        &root,
        &[
            "-l",
            "python",
            "-d",
            "-b",
            "examples/wordfreq/starter",
            "examples/wordfreq/submissions",
        ],
    );
    let ranked = pairs(&report);
    let top: Vec<(&str, &str)> = ranked
        .iter()
        .take(3)
        .map(|(a, b, _)| (a.rsplit('/').next().unwrap(), b.rsplit('/').next().unwrap()))
        .collect();
    assert_eq!(top[0], ("alice", "bob"));
    assert!(top.contains(&("alice", "dave")), "{top:?}");
    // The independent solutions share far less.
    for (a, b, s) in &ranked {
        if a.ends_with("carol")
            || b.ends_with("carol")
            || a.ends_with("erin")
            || b.ends_with("erin")
        {
            assert!(*s < 0.5, "{a} ~ {b} = {s}");
        }
    }
}

/// `bryo tokens ARGS FILE` in `dir`: its standard output.
fn tokens(dir: &Path, args: &[&str], file: &str) -> Vec<u8> {
    let out = bryo()
        .current_dir(dir)
        .arg("tokens")
        .args(args)
        .arg(file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

#[test]
fn tokens_prints_symbols_with_positions() {
    let dir = TempDir::new().unwrap();
    write(dir.path(), "t.py", "x = 1  # one\nprint(x)\n");
    let v: Value =
        serde_json::from_slice(&tokens(dir.path(), &["--format", "json"], "t.py")).unwrap();
    assert_eq!(v["language"], "python");
    assert_eq!(v["frontend"], "lexer");
    assert!(v["fallback"].is_null());
    let tokens = v["tokens"].as_array().unwrap();
    let texts: Vec<&str> = tokens.iter().map(|t| t["text"].as_str().unwrap()).collect();
    assert_eq!(texts, ["x", "=", "1", "print", "(", "x", ")"]);
    assert_eq!(
        (tokens[3]["line"].as_u64(), tokens[3]["col"].as_u64()),
        (Some(2), Some(1))
    );
    // Both identifiers are one symbol; the comment is gone.
    assert_eq!(tokens[0]["symbol"], tokens[5]["symbol"]);
}

#[test]
fn tokens_show_what_normalization_wrote() {
    let dir = TempDir::new().unwrap();
    write(
        dir.path(),
        "A.java",
        "class A { int f(int n) { int z = 0; z++; for (int i = 0; i < n; i++) z = z + i; return z; } }\n",
    );
    let run = |args: &[&str]| tokens(dir.path(), args, "A.java");
    let v: Value = serde_json::from_slice(&run(&["--format", "json"])).unwrap();
    assert_eq!(v["frontend"], "tree-sitter");
    let pairs: Vec<(&str, &str)> = v["tokens"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let text = t["text"].as_str().unwrap();
            (text, t["normalized"].as_str().unwrap_or(text))
        })
        .collect();
    // `z++` is `z += 1` at the bytes of `++`; `for` is `while`; `z = z + i`
    // is `z += i`; the symbols written as they are have no `normalized`.
    let wrote =
        |text: &str| -> Vec<&str> { pairs.iter().filter(|p| p.0 == text).map(|p| p.1).collect() };
    assert_eq!(wrote("for"), ["while"]);
    assert!(
        pairs
            .windows(3)
            .any(|w| w == [("z", "z"), ("+", "+="), ("+", "1")]),
        "{pairs:?}"
    );
    assert!(
        pairs
            .windows(3)
            .any(|w| w == [("z", "z"), ("=", "+="), ("i", "i")]),
        "{pairs:?}"
    );
    assert_eq!(wrote("int"), ["int"; 4]);
    let text = String::from_utf8(run(&[])).unwrap();
    assert!(text.contains("while  (written for)"), "{text}");
    // Without normalization nothing is rewritten.
    let v: Value = serde_json::from_slice(&run(&["--no-normalize", "--format", "json"])).unwrap();
    assert!(v["tokens"]
        .as_array()
        .unwrap()
        .iter()
        .all(|t| t.get("normalized").is_none()));
}

#[test]
fn languages_lists_every_moss_name() {
    let out = bryo()
        .args(["languages", "--format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let all: Vec<String> = v
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|l| {
            let mut names = vec![l["name"].as_str().unwrap().to_string()];
            names.extend(
                l["aliases"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|a| a.as_str().unwrap().to_string()),
            );
            names
        })
        .collect();
    for moss in [
        "c",
        "cc",
        "java",
        "ml",
        "pascal",
        "ada",
        "lisp",
        "scheme",
        "haskell",
        "fortran",
        "ascii",
        "vhdl",
        "perl",
        "matlab",
        "python",
        "mips",
        "prolog",
        "spice",
        "vb",
        "csharp",
        "modula2",
        "a8086",
        "javascript",
        "plsql",
        "verilog",
    ] {
        assert!(all.iter().any(|n| n == moss), "{moss} missing");
    }
}

/// Random prose of `n` words from a fixed vocabulary.
fn prose(seed: u64, n: usize) -> Vec<String> {
    const WORDS: [&str; 24] = [
        "river",
        "lantern",
        "quietly",
        "harbour",
        "seventeen",
        "marble",
        "distant",
        "orchard",
        "beneath",
        "crimson",
        "velvet",
        "thunder",
        "meadow",
        "copper",
        "whisper",
        "glacier",
        "furnace",
        "saddle",
        "violet",
        "anchor",
        "pepper",
        "timber",
        "canyon",
        "falcon",
    ];
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            WORDS[(x % 24) as usize].to_string()
        })
        .collect()
}

fn wrap(words: &[String]) -> String {
    words
        .chunks(11)
        .map(|l| l.join(" "))
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

#[test]
fn prose_copies_edited_every_twelve_words_are_found_and_common_phrases_are_not() {
    let dir = TempDir::new().unwrap();
    let a = prose(1, 3000);
    // b: its own text with 300 words of a's, one word in twelve replaced.
    let mut b = prose(2, 3000);
    for (i, w) in a[1000..1300].iter().enumerate() {
        b[1500 + i] = if i % 12 == 5 {
            "EDITED".to_string()
        } else {
            w.to_uppercase()
        };
    }
    // c: its own text sharing only a few short phrases with a.
    let mut c = prose(3, 3000);
    for at in [100, 900, 1700, 2500] {
        for (j, w) in a[at..at + 4].iter().enumerate() {
            c[at + 7 + j] = w.clone();
        }
    }
    write(dir.path(), "a.txt", &wrap(&a));
    write(dir.path(), "b.txt", &wrap(&b));
    write(dir.path(), "c.txt", &wrap(&c));
    let report = compare_json(dir.path(), &["-l", "text", "."]);
    let ab = similarity(&report, "a.txt", "b.txt");
    assert!(ab > 0.05, "edited copy: {ab}");
    assert_eq!(similarity(&report, "a.txt", "c.txt"), 0.0);
    assert!(pairs(&report)[0].0.ends_with("a.txt") && pairs(&report)[0].1.ends_with("b.txt"));
    // Without merging across the edits (a floor per fragment) most of the
    // copy would fall under the floor: the merged copy covers most of the
    // 300 words, in one fragment whose parts are the runs between edits.
    let pair = &report["pairs"][0];
    let covered: u64 = pair["fragments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["symbols"].as_u64().unwrap())
        .sum();
    let copied_chars: usize = a[1000..1300].iter().map(|w| w.len()).sum();
    assert!(
        covered as usize * 10 >= copied_chars * 7,
        "{covered} of {copied_chars}"
    );
    assert!(pair["fragments"][0]["parts"].as_array().unwrap().len() > 10);
}

/// A C program and a copy with a dead statement after every third
/// statement: with `--merge-gap` the copy is one merged fragment whose parts
/// cover exactly what matched and leave the inserted lines as gaps; without
/// merging the pieces fall under the shortest fragment.
#[test]
fn merged_fragments_list_their_parts_and_gaps() {
    let dir = TempDir::new().unwrap();
    // Statements of varied shape (identifiers are one symbol to the
    // lexer, so the shape is all that tells them apart).
    let ops = ["+", "-", "*", "/", "%", "<<", "^", "&"];
    let mut seed = 7u64;
    let mut next = |n: u64| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) % n
    };
    let body: Vec<String> = (0..30)
        .map(|i| {
            let mut e = format!("x{}", i + 1);
            for _ in 0..1 + next(4) {
                let operand = match next(3) {
                    0 => format!("{}", next(90) + 1),
                    1 => format!("g(x{})", i + 2),
                    _ => format!("(x{} {} 3)", i, ops[next(8) as usize]),
                };
                e = format!("{e} {} {operand}", ops[next(8) as usize]);
            }
            format!("    x{} = {e};", i + 3)
        })
        .collect();
    let program = |dead: bool| {
        let mut out = String::from("int f(int x1, int x2) {\n");
        for (i, line) in body.iter().enumerate() {
            out.push_str(line);
            out.push('\n');
            if dead && i % 3 == 2 {
                out.push_str(&format!("    int unused{i} = {i};\n"));
            }
        }
        out.push_str("    return x32;\n}\n");
        out
    };
    write(dir.path(), "a.c", &program(false));
    write(dir.path(), "b.c", &program(true));
    // Without token normalization, which would drop the unused variables.
    let args = [
        "-l",
        "c",
        "--no-normalize",
        "-k",
        "6",
        "-w",
        "4",
        "--min-tokens",
        "40",
    ];
    let merged = compare_json(
        dir.path(),
        &[&args[..], &["--merge-gap", "8", "."]].concat(),
    );
    assert_eq!(merged["options"]["merge_gap"], 8);
    let fragments = merged["pairs"][0]["fragments"].as_array().unwrap();
    assert_eq!(fragments.len(), 1, "{fragments:?}");
    let f = &fragments[0];
    let parts = f["parts"].as_array().unwrap();
    assert!(parts.len() >= 8, "{parts:?}");
    let total: u64 = parts.iter().map(|p| p["symbols"].as_u64().unwrap()).sum();
    assert_eq!(f["symbols"].as_u64().unwrap(), total);
    let b_text = program(true);
    for side in ["a", "b"] {
        let range = |x: &Value| {
            let b = x[side]["bytes"].as_array().unwrap();
            (b[0].as_u64().unwrap(), b[1].as_u64().unwrap())
        };
        let (start, end) = range(f);
        assert_eq!(range(&parts[0]).0, start);
        assert_eq!(range(&parts[parts.len() - 1]).1, end);
        for w in parts.windows(2) {
            let ((_, e0), (s1, _)) = (range(&w[0]), range(&w[1]));
            assert!(e0 <= s1);
            // On b, every gap is an inserted line; on a, there is none.
            let gap = &b_text[e0 as usize..s1 as usize];
            if side == "b" {
                assert!(gap.contains("unused"), "{gap:?}");
            } else {
                assert!(e0 == s1 || program(false)[e0 as usize..s1 as usize].trim().is_empty());
            }
        }
    }
    let separate = compare_json(
        dir.path(),
        &[&args[..], &["--merge-gap", "0", "."]].concat(),
    );
    assert_eq!(separate["options"]["merge_gap"], 0);
    let (with, without) = (
        similarity(&merged, "a.c", "b.c"),
        similarity(&separate, "a.c", "b.c"),
    );
    assert!(with > 0.9 && without < with - 0.1, "{with} vs {without}");
    // Terminal and CSV output are unchanged in shape.
    let csv = bryo()
        .current_dir(dir.path())
        .args(
            [
                &["compare"],
                &args[..],
                &["--merge-gap", "8", "--format", "csv", "."],
            ]
            .concat(),
        )
        .output()
        .unwrap();
    assert_eq!(String::from_utf8(csv.stdout).unwrap().lines().count(), 2);
}

#[test]
fn a_negative_merge_ratio_is_an_error() {
    let dir = TempDir::new().unwrap();
    write(dir.path(), "a.c", "int main() { return 0; }\n");
    write(dir.path(), "b.c", "int main() { return 1; }\n");
    let out = bryo()
        .current_dir(dir.path())
        .args(["compare", "--merge-gap", "4", "--merge-ratio=-1", "."])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.trim().lines().count(), 1, "{err}");
}

/// Two directory submissions with the same files under other names, in
/// another order, with another layout — and a third with one file changed.
fn copied_directories(dir: &Path) {
    write(dir, "alice/main.py", &program(11));
    write(dir, "alice/util.py", &program(12));
    write(
        dir,
        "bob/a_helpers.py",
        &format!("# mine\n{}", program(12).replace("    ", "\t")),
    );
    write(dir, "bob/z_entry.py", &program(11));
    write(dir, "carol/main.py", &program(11));
    write(dir, "carol/util.py", &program(13));
}

#[test]
fn identical_submissions_in_another_file_order_are_flagged() {
    let dir = TempDir::new().unwrap();
    copied_directories(dir.path());
    let report = compare_json(dir.path(), &["-d", "."]);
    let n = names(&report);
    let (alice, bob) = (
        n.iter().position(|s| is(s, "alice")).unwrap(),
        n.iter().position(|s| is(s, "bob")).unwrap(),
    );
    let groups = report["identical_submissions"].as_array().unwrap();
    assert_eq!(groups.len(), 1, "{groups:?}");
    let mut expected = vec![alice, bob];
    expected.sort();
    let group: Vec<usize> = groups[0]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap() as usize)
        .collect();
    assert_eq!(group, expected);
    for p in report["pairs"].as_array().unwrap() {
        let (a, b) = (
            p["a"].as_u64().unwrap() as usize,
            p["b"].as_u64().unwrap() as usize,
        );
        let is_copy = (a.min(b), a.max(b)) == (expected[0], expected[1]);
        assert_eq!(p["identical"], is_copy, "{p}");
    }
    assert_eq!(report["pairs"][0]["identical"], true);
    // main.py is shared by all three, util.py only by alice and bob.
    let files = report["identical_files"].as_array().unwrap();
    assert_eq!(files.len(), 2, "{files:?}");
    let counts: Vec<usize> = files
        .iter()
        .map(|f| f["files"].as_array().unwrap().len())
        .collect();
    assert!(counts.contains(&3) && counts.contains(&2), "{counts:?}");

    // The table says so too.
    let out = bryo()
        .current_dir(dir.path())
        .args(["compare", "-d", "."])
        .output()
        .unwrap();
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(table.contains("identical submissions"), "{table}");
    assert!(table.contains("identical after normalization"), "{table}");
    assert!(table.contains("identical"), "{table}");
}

#[test]
fn identical_submissions_are_reported_even_below_the_noise_threshold() {
    // Too short for a single k-gram: the matcher finds nothing, the exact
    // comparison still does.
    let dir = TempDir::new().unwrap();
    write(dir.path(), "a.py", "x = 1\n");
    write(dir.path(), "b.py", "y = 2  # other name, other number\n");
    write(dir.path(), "c.py", "print('hello')\n");
    let report = compare_json(dir.path(), &["."]);
    let pairs = report["pairs"].as_array().unwrap();
    assert_eq!(pairs.len(), 1, "{pairs:?}");
    assert_eq!(pairs[0]["identical"], true);
    assert_eq!(pairs[0]["similarity"], 1.0);
    assert_eq!(pairs[0]["fragments"].as_array().unwrap().len(), 1);
    // The copies form a cluster.
    assert_eq!(report["clusters"].as_array().unwrap().len(), 1);
    assert_eq!(report["clusters"][0]["max_similarity"], 1.0);
    assert_eq!(
        report["clusters"][0]["members"].as_array().unwrap().len(),
        2
    );
}

#[test]
fn duplicate_files_are_fingerprinted_once() {
    let dir = TempDir::new().unwrap();
    copied_directories(dir.path());
    let report = compare_json(dir.path(), &["-d", "."]);
    // bob's two files and carol's main.py repeat earlier files.
    assert_eq!(report["stats"]["duplicate_files"], 3);
    // Without duplicates the key is absent.
    let dir = TempDir::new().unwrap();
    write(dir.path(), "a.py", &program(1));
    write(dir.path(), "b.py", &program(2));
    let report = compare_json(dir.path(), &["."]);
    assert!(report["stats"].get("duplicate_files").is_none());
    assert!(report.get("identical_files").is_none());
}

#[test]
fn fingerprint_prints_raw_and_normalized_fingerprints_and_groups() {
    let dir = TempDir::new().unwrap();
    write(dir.path(), "a.py", &program(1));
    write(
        dir.path(),
        "b.py",
        &format!("# copy\n{}", program(1).replace("    ", "\t")),
    );
    write(dir.path(), "c.py", &program(1));
    write(dir.path(), "d.py", &program(2));
    fs::write(dir.path().join("e.py"), b"\x00\x01binary").unwrap();
    let out = bryo()
        .current_dir(dir.path())
        .args([
            "fingerprint",
            "a.py",
            "b.py",
            "c.py",
            "d.py",
            "e.py",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let files = v["files"].as_array().unwrap();
    let field = |i: usize, k: &str| files[i][k].clone();
    assert_eq!(field(0, "raw"), field(2, "raw"));
    assert_ne!(field(0, "raw"), field(1, "raw"));
    assert_eq!(field(0, "normalized"), field(1, "normalized"));
    assert_ne!(field(0, "normalized"), field(3, "normalized"));
    assert_eq!(field(4, "normalized"), Value::Null);
    assert!(field(4, "skipped").as_str().unwrap().contains("binary"));
    // The raw fingerprint is the Rabin fingerprint of the bytes (leading 1,
    // default polynomial), as the engine computes it.
    let bytes = fs::read(dir.path().join("d.py")).unwrap();
    let rabin = bryo_engine::Rabin::new(bryo_engine::Polynomial::DEFAULT, 1);
    assert_eq!(
        field(3, "raw"),
        format!("{:016x}", rabin.hash_bytes(&bytes))
    );
    assert_eq!(v["identical_bytes"], serde_json::json!([["a.py", "c.py"]]));
    assert_eq!(
        v["identical_normalized"],
        serde_json::json!([["a.py", "b.py", "c.py"]])
    );

    // The normalized fingerprint follows the front-end flags: verbatim
    // keeps names, so a renamed copy no longer matches.
    write(
        dir.path(),
        "r.py",
        &program(1).replace("def ", "def renamed_"),
    );
    let run = |extra: &[&str]| -> Value {
        let out = bryo()
            .current_dir(dir.path())
            .args(["fingerprint", "a.py", "r.py", "--format", "json"])
            .args(extra)
            .output()
            .unwrap();
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let full = run(&[]);
    let verbatim = run(&["--verbatim"]);
    assert_eq!(
        full["files"][0]["normalized"],
        full["files"][1]["normalized"]
    );
    assert_ne!(
        verbatim["files"][0]["normalized"],
        verbatim["files"][1]["normalized"]
    );

    // Text output: one line per file, then the groups.
    let out = bryo()
        .current_dir(dir.path())
        .args(["fingerprint", "a.py", "b.py", "c.py"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), 1 + 3 + 2, "{text}");
    assert!(text.contains("identical bytes: a.py = c.py"), "{text}");
    assert!(
        text.contains("identical after normalization: a.py = b.py = c.py"),
        "{text}"
    );

    // A missing file is an error (exit 2).
    bryo()
        .current_dir(dir.path())
        .args(["fingerprint", "nope.py"])
        .assert()
        .code(2);

    // --raw: the same raw fingerprints, streamed, without a front-end (the
    // binary file has one too); front-end flags make no sense with it.
    let out = bryo()
        .current_dir(dir.path())
        .args(["fingerprint", "--raw", "--format", "json"])
        .args(["a.py", "b.py", "c.py", "d.py", "e.py"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let raw: Value = serde_json::from_slice(&out.stdout).unwrap();
    for i in 0..5 {
        assert_eq!(raw["files"][i]["raw"], field(i, "raw"), "file {i}");
        assert_eq!(raw["files"][i]["bytes"], field(i, "bytes"), "file {i}");
        assert_eq!(raw["files"][i]["normalized"], Value::Null);
    }
    assert_eq!(raw["identical_bytes"], v["identical_bytes"]);
    assert_eq!(raw["identical_normalized"], serde_json::json!([]));
    let out = bryo()
        .current_dir(dir.path())
        .args(["fingerprint", "--raw", "a.py", "c.py"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), 1 + 2 + 1, "{text}");
    assert!(text.contains("identical bytes: a.py = c.py"), "{text}");
    bryo()
        .current_dir(dir.path())
        .args(["fingerprint", "--raw", "-l", "python", "a.py"])
        .assert()
        .code(2);
    bryo()
        .current_dir(dir.path())
        .args(["fingerprint", "--raw", "nope.py"])
        .assert()
        .code(2);
}

#[test]
fn compare_reports_the_same_file_fingerprints_as_fingerprint() {
    let dir = TempDir::new().unwrap();
    write(dir.path(), "a.py", &program(1));
    write(dir.path(), "b.py", &program(2));
    let report = compare_json(dir.path(), &["a.py", "b.py"]);
    let out = bryo()
        .current_dir(dir.path())
        .args(["fingerprint", "a.py", "b.py", "--format", "json"])
        .output()
        .unwrap();
    let prints: Value = serde_json::from_slice(&out.stdout).unwrap();
    for (i, sub) in report["submissions"].as_array().unwrap().iter().enumerate() {
        let file = &sub["files"][0];
        let same = prints["files"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["path"] == file["path"])
            .unwrap_or_else(|| panic!("{i}: {file}"));
        assert_eq!(file["raw_fingerprint"], same["raw"]);
        assert_eq!(file["normalized_fingerprint"], same["normalized"]);
    }
}

#[test]
fn identical_submissions_take_their_place_in_the_ranking() {
    let dir = TempDir::new().unwrap();
    // A large near-copy that tops the matcher's ranking …
    write(dir.path(), "x.py", &(program(21) + &program(22)));
    write(dir.path(), "y.py", &(program(21) + &program(23)));
    // … and a small exact copy that ranks below it.
    write(dir.path(), "p.py", &program(24)[..400]);
    write(
        dir.path(),
        "q.py",
        &program(24)[..400].replace("    ", "\t"),
    );
    let pairs = |limit: &str| -> Vec<(String, String, bool)> {
        let report = compare_json(dir.path(), &["-n", limit, "."]);
        let n = names(&report);
        report["pairs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                let (a, b) = (
                    p["a"].as_u64().unwrap() as usize,
                    p["b"].as_u64().unwrap() as usize,
                );
                (
                    n[a].clone(),
                    n[b].clone(),
                    p["identical"].as_bool().unwrap(),
                )
            })
            .collect()
    };
    // -n 1: the long near-copy, not the short exact one.
    let got = pairs("1");
    assert_eq!(got.len(), 1, "{got:?}");
    assert!(
        !got[0].2 && is(&got[0].0, "x.py") && is(&got[0].1, "y.py"),
        "{got:?}"
    );
    // -n 0: both, the exact copy flagged and ranked by its size.
    let got = pairs("0");
    let identical: Vec<_> = got.iter().filter(|p| p.2).collect();
    assert_eq!(identical.len(), 1, "{got:?}");
    assert!(
        is(&identical[0].0, "p.py") && is(&identical[0].1, "q.py"),
        "{got:?}"
    );
    assert!(
        !got[0].2 && is(&got[0].0, "x.py") && is(&got[0].1, "y.py"),
        "{got:?}"
    );
}

#[test]
fn a_cluster_of_copies_has_the_similarity_the_matcher_found() {
    // a.py and b.py are identical; half of their text is also in c.py and
    // d.py, so with -m 2 that half is ignored and the pair's similarity is
    // below 1. The cluster reports that similarity, not 1.
    let dir = TempDir::new().unwrap();
    let common = program(40);
    let copied = format!("{common}\n{}", program(41));
    write(dir.path(), "a.py", &copied);
    write(dir.path(), "b.py", &copied);
    write(dir.path(), "c.py", &format!("{common}\n{}", program(50)));
    write(dir.path(), "d.py", &format!("{common}\n{}", program(51)));
    let report = compare_json(dir.path(), &["-m", "2", "."]);
    let sim = similarity(&report, "a.py", "b.py");
    assert!(sim > 0.2 && sim < 0.9, "{sim}");
    let pair = report["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["identical"] == true)
        .unwrap();
    let members = serde_json::json!([pair["a"], pair["b"]]);
    let cluster = report["clusters"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["members"] == members)
        .unwrap_or_else(|| panic!("no cluster of the copies: {}", report["clusters"]));
    assert_eq!(cluster["max_similarity"].as_f64().unwrap(), sim);
}

/// A Java class of about 50 statements whose token sequence depends on
/// `seed`; with `dead`, a statement with no effect follows every statement
/// (the insertion attack of automatic obfuscators, at 100 %).
fn java_program(seed: u32, dead: bool) -> String {
    let mut x = seed.wrapping_mul(2_654_435_761) | 1;
    let mut next = move |n: u32| {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        x % n
    };
    const OPS: [&str; 6] = ["+", "-", "*", "/", "%", "^"];
    let mut s = format!("import java.util.*;\npublic class P{seed} {{\n");
    let mut junk = 0;
    for m in 0..5 {
        s.push_str(&format!(
            "  static int m{m}(int[] v, int n) {{\n    int a = n;\n    int b = 1;\n"
        ));
        for _ in 0..9 {
            let (o1, o2) = (OPS[next(6) as usize], OPS[next(6) as usize]);
            let line = match next(6) {
                0 => format!("    a = a {o1} b {o2} 3;\n"),
                1 => format!("    for (int i = 0; i < n; i++) {{ b = b {o1} v[i]; }}\n"),
                2 => format!("    if (a > b) {{ System.out.println(a {o2} b); }}\n"),
                3 => format!(
                    "    while (a < {}) {{ a = a {o1} 2 + b; }}\n",
                    next(90) + 10
                ),
                4 => format!("    v[a % n] = b {o2} a;\n"),
                _ => format!("    b = Math.max(a {o1} 1, b {o2} 2);\n"),
            };
            s.push_str(&line);
            if dead {
                junk += 1;
                s.push_str(&match junk % 3 {
                    0 => format!("    int unused{junk} = {};\n", junk * 7),
                    1 => format!("    if (n < 0) {{ int t{junk} = 2; t{junk}++; }}\n"),
                    _ => format!("    int w{junk} = a * 2; w{junk} += b;\n"),
                });
            }
        }
        s.push_str("    return a + b;\n  }\n");
    }
    s.push_str("}\n");
    s
}

#[test]
fn normalize_sees_through_inserted_dead_statements() {
    let dir = TempDir::new().unwrap();
    for seed in 1..=8 {
        write(
            dir.path(),
            &format!("s{seed}/P.java"),
            &java_program(seed, false),
        );
    }
    write(dir.path(), "s9/P.java", &java_program(3, true));
    let plain = compare_json(dir.path(), &["-n", "0", "--no-normalize", "."]);
    let normalized = compare_json(dir.path(), &["-n", "0", "--normalize", "."]);
    let before = similarity(&plain, "s3/P.java", "s9/P.java");
    let after = similarity(&normalized, "s3/P.java", "s9/P.java");
    assert!(after > 0.99, "with --normalize: {after}");
    assert!(after > before + 0.2, "{before} -> {after}");
    // The copy ranks first, and no independent pair rises much.
    let top = &pairs(&normalized)[0];
    assert!(
        is(&top.0, "s3/P.java") && is(&top.1, "s9/P.java")
            || is(&top.0, "s9/P.java") && is(&top.1, "s3/P.java")
    );
    for (a, b, s) in pairs(&normalized) {
        if !(is(&a, "s9/P.java") || is(&b, "s9/P.java")) {
            assert!(s <= similarity(&plain, &a, &b) + 0.06, "{a} {b}: {s}");
        }
    }
    assert_eq!(normalized["options"]["scheme"]["token_normalization"], true);
    assert!(plain["options"]["scheme"]
        .get("token_normalization")
        .is_none());
    // Java is normalized by default; `--parser lexer` turns it off.
    let default = compare_json(dir.path(), &["-n", "0", "."]);
    assert_eq!(pairs(&default), pairs(&normalized));
    assert_eq!(default["options"]["scheme"]["token_normalization"], true);
    let lexer = compare_json(dir.path(), &["-n", "0", "--parser", "lexer", "."]);
    assert_eq!(pairs(&lexer), pairs(&plain));
    let copy = normalized["submissions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| is(s["name"].as_str().unwrap(), "s9/P.java"))
        .unwrap();
    assert_eq!(copy["files"][0]["frontend"], "tree-sitter");
    // Fragments are in the user's file: they run through the inserted
    // statements (their symbols are left out, their lines are not), so the
    // fragments of the copy cover nearly all of its lines.
    let lines = java_program(3, true).lines().count() as u64;
    let pair = normalized["pairs"][0].clone();
    let a_is_copy = is(
        &names(&normalized)[pair["a"].as_u64().unwrap() as usize],
        "s9/P.java",
    );
    let side = if a_is_copy { "a" } else { "b" };
    let mut covered = 0;
    for f in pair["fragments"].as_array().unwrap() {
        let (start, end) = (
            f[side]["lines"][0].as_u64().unwrap(),
            f[side]["lines"][1].as_u64().unwrap(),
        );
        assert!(1 <= start && start <= end && end <= lines, "{f}");
        covered += end - start + 1;
    }
    assert!(covered * 10 >= lines * 9, "{covered} of {lines} lines");
}

/// `java_program(seed, false)` with its methods in reverse order: the
/// reordering attack, which changes nothing the program does.
fn java_program_reordered(seed: u32) -> String {
    let src = java_program(seed, false);
    let start = src.find("  static int m").unwrap();
    let end = src.rfind("}\n").unwrap();
    let methods: Vec<String> = src[start..end]
        .split_inclusive("    return a + b;\n  }\n")
        .map(str::to_string)
        .collect();
    assert_eq!(methods.len(), 5);
    let mut out = src[..start].to_string();
    for m in methods.iter().rev() {
        out.push_str(m);
    }
    out.push_str(&src[end..]);
    out
}

#[test]
fn normalize_sees_through_reordered_members_and_statements() {
    let dir = TempDir::new().unwrap();
    for seed in 1..=6 {
        write(
            dir.path(),
            &format!("s{seed}/P.java"),
            &java_program(seed, false),
        );
    }
    let copy = java_program_reordered(3);
    write(dir.path(), "s9/P.java", &copy);
    let plain = compare_json(dir.path(), &["-n", "0", "--no-normalize", "."]);
    let normalized = compare_json(dir.path(), &["-n", "0", "--normalize", "."]);
    let before = similarity(&plain, "s3/P.java", "s9/P.java");
    let after = similarity(&normalized, "s3/P.java", "s9/P.java");
    assert!(
        after > 0.99,
        "with --normalize: {after} (without: {before})"
    );
    assert!(after > before, "{before} -> {after}");
    // Every part of every fragment is the same text on both sides (the copy
    // renames nothing), found where it is in each file.
    let original = java_program(3, false);
    let n = names(&normalized);
    let pair = normalized["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| {
            let (a, b) = (
                &n[p["a"].as_u64().unwrap() as usize],
                &n[p["b"].as_u64().unwrap() as usize],
            );
            is(a, "s3/P.java") && is(b, "s9/P.java") || is(a, "s9/P.java") && is(b, "s3/P.java")
        })
        .unwrap();
    let a_is_copy = is(&n[pair["a"].as_u64().unwrap() as usize], "s9/P.java");
    let (ta, tb) = if a_is_copy {
        (&copy, &original)
    } else {
        (&original, &copy)
    };
    let squeeze = |t: &str| t.split_whitespace().collect::<String>();
    let text = |t: &str, loc: &Value| {
        t[loc["bytes"][0].as_u64().unwrap() as usize..loc["bytes"][1].as_u64().unwrap() as usize]
            .to_string()
    };
    let mut moved = 0;
    let mut symbols = 0;
    for f in pair["fragments"].as_array().unwrap() {
        let parts = f["parts"]
            .as_array()
            .cloned()
            .unwrap_or_else(|| vec![f.clone()]);
        moved += usize::from(parts.len() > 1);
        for p in &parts {
            assert_eq!(
                squeeze(&text(ta, &p["a"])),
                squeeze(&text(tb, &p["b"])),
                "{p}"
            );
            symbols += p["symbols"].as_u64().unwrap();
        }
        assert_eq!(symbols_of(f), parts.iter().map(symbols_of).sum::<u64>());
    }
    assert!(moved > 0, "no fragment spans moved code");
    assert!(symbols > 0);
}

fn symbols_of(v: &Value) -> u64 {
    v["symbols"].as_u64().unwrap()
}

#[test]
fn normalize_needs_the_syntax_tree() {
    let dir = TempDir::new().unwrap();
    write(dir.path(), "a/P.java", &java_program(1, false));
    write(dir.path(), "b/P.java", &java_program(2, false));
    let out = bryo()
        .current_dir(dir.path())
        .args(["compare", "--normalize", "--parser", "lexer", "."])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("--normalize works on syntax trees"), "{err}");
}

#[test]
fn streamed_runs_write_the_in_memory_report() {
    let dir = TempDir::new().unwrap();
    for i in 0..16 {
        write(dir.path(), &format!("new/s{i:02}/main.py"), &program(i % 5));
    }
    write(dir.path(), "new/twin/main.py", &program(2));
    for i in 0..4 {
        write(dir.path(), &format!("old/o{i}/main.py"), &disguised(i));
    }
    // Files a streamed run reads differently from discovery: zip entries
    // (held in memory), an empty file, a binary file, one over the limit.
    zip_of(
        &dir.path().join("new/zipped.zip"),
        &[("z/a.py", &program(3)), ("z/b.py", &disguised(1))],
    );
    write(dir.path(), "new/empty/main.py", "");
    fs::create_dir_all(dir.path().join("new/binary")).unwrap();
    fs::write(
        dir.path().join("new/binary/main.py"),
        b"\x00\x01\x02print(1)\x00",
    )
    .unwrap();
    write(dir.path(), "new/large/main.py", &"x = 1\n".repeat(5000));
    let spill = TempDir::new().unwrap();
    let run = |memory: Option<&str>, extra: &[&str]| {
        let mut cmd = bryo();
        cmd.current_dir(dir.path())
            .args([
                "compare",
                "-l",
                "python",
                "--old",
                "old",
                "--fail-above",
                "0.95",
                "--max-file-size",
                "20000",
            ])
            .args(extra);
        if let Some(m) = memory {
            cmd.args(["--memory", m, "--spill-dir"]).arg(spill.path());
        }
        let out = cmd.arg("new").output().unwrap();
        (out.status.code(), out.stdout)
    };
    for format in [
        &["--format", "json"][..],
        &["--format", "json", "--pretty"],
        &["--format", "csv"],
        &["--format", "text"],
    ] {
        for cut in [
            &["-n", "0"][..],
            &["-n", "3", "-d"],
            &["-m", "2", "--min-similarity", "0.3"],
        ] {
            let args = [format, cut].concat();
            let (code, whole) = run(None, &args);
            assert_eq!(code, Some(1), "{args:?}: the twins reach 0.95");
            assert!(whole.len() > 100, "{args:?}");
            if format[1] == "json" {
                let text = String::from_utf8_lossy(&whole);
                assert!(
                    text.contains("z/b.py") && text.contains("larger than"),
                    "{text}"
                );
            }
            // 1K holds 64 postings: the runs spill to disk.
            for memory in ["1K", "1G"] {
                assert_eq!(run(Some(memory), &args), (code, whole.clone()), "{args:?}");
            }
        }
    }
    // The HTML report: the same pages, the reported pairs' files read
    // again (zip entries and files on disk alike).
    let pages = |memory: Option<&str>, out: &str| {
        let html = dir.path().join(out);
        let (code, _) = run(
            memory,
            &["--format", "html", "-n", "5", "-o", html.to_str().unwrap()],
        );
        assert_eq!(code, Some(1));
        support::tree_of(&html)
    };
    let whole = pages(None, "html-whole");
    assert!(whole.len() > 5, "{:?}", whole.keys());
    assert!(
        whole
            .values()
            .any(|page| String::from_utf8_lossy(page).contains("print")),
        "the pages show the files' text"
    );
    for memory in ["1K", "1G"] {
        assert_eq!(pages(Some(memory), &format!("html-{memory}")), whole);
    }
    // Spill files are removed at the end.
    assert_eq!(std::fs::read_dir(spill.path()).unwrap().count(), 0);
    // What a streamed run cannot do yet is refused, not ignored.
    for (extra, why) in [
        (&["--memory", "1G", "new"][..], "needs the language (-l)"),
        (
            &["--memory", "1G", "-l", "python", "-b", "old", "new"],
            "base code (-b)",
        ),
    ] {
        let out = bryo()
            .current_dir(dir.path())
            .arg("compare")
            .args(extra)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{extra:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(why), "{extra:?}: {err}");
    }
}

#[test]
fn timings_go_to_standard_error_and_leave_the_report_alone() {
    let tmp = TempDir::new().unwrap();
    let body = "def f(x):\n    total = 0\n    for i in range(x):\n        total += i * i\n    return total\n";
    write(tmp.path(), "a.py", &body.repeat(4));
    write(tmp.path(), "b.py", &body.repeat(4));
    write(tmp.path(), "c.py", "print('something else entirely')\n");
    let plain = json_bytes(Some(tmp.path()), &["compare", "-l", "python", "."]);
    let out = bryo()
        .current_dir(tmp.path())
        .args([
            "compare",
            "-l",
            "python",
            "--timings",
            "--format",
            "json",
            ".",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(out.stdout, plain, "--timings changed the report");
    let err = String::from_utf8(out.stderr).unwrap();
    let rows: Vec<Vec<&str>> = err
        .lines()
        .skip_while(|l| !l.starts_with("phase"))
        .skip(1)
        .take_while(|l| !l.starts_with("bryo:"))
        .map(|l| l.split_whitespace().collect())
        .collect();
    let phases: Vec<&str> = rows.iter().map(|r| r[0]).collect();
    assert_eq!(
        phases,
        [
            "discover",
            "read",
            "analyze",
            "fingerprint",
            "index",
            "pairs",
            "fragments",
            "report",
            "write",
            "total"
        ],
        "{err}"
    );
    let number = |s: &str| s.parse::<f64>().unwrap();
    // Every phase has a wall time, CPU time and page faults, and the phases
    // add up to the total wall time (printed to 0.1 ms).
    let wall: f64 = rows[..rows.len() - 1].iter().map(|r| number(r[1])).sum();
    let total = number(rows[rows.len() - 1][1]);
    assert!((wall - total).abs() < 0.1 * rows.len() as f64, "{err}");
    let mut peak = 0.0;
    for r in &rows {
        assert_eq!(r.len(), 7, "{err}");
        let (cpu, user, sys) = (number(r[2]), number(r[3]), number(r[4]));
        assert!((cpu - user - sys).abs() <= 0.11, "{err}");
        // The peak resident memory so far never falls, and the total's is
        // the last phase's.
        let p = number(r[6]);
        assert!(p >= peak && p > 0.0, "{err}");
        peak = p;
    }
    assert_eq!(rows[rows.len() - 1][6], rows[rows.len() - 2][6], "{err}");
    // A small run in memory may have transparent huge pages; a streamed one
    // may not (hugepages.rs).
    let huge = |err: &str| {
        err.lines()
            .last()
            .unwrap_or_default()
            .strip_prefix("bryo: huge pages: ")
            .map(|l| l.split_whitespace().next().unwrap_or_default().to_string())
    };
    let streamed = bryo()
        .current_dir(tmp.path())
        .args(["compare", "-l", "python", "--timings", "--memory", "64M"])
        .args(["--format", "json", "."])
        .output()
        .unwrap();
    assert!(streamed.status.success());
    let streamed_err = String::from_utf8(streamed.stderr).unwrap();
    if cfg!(target_os = "linux") {
        assert_eq!(huge(&err).as_deref(), Some("allowed"), "{err}");
        assert_eq!(
            huge(&streamed_err).as_deref(),
            Some("refused"),
            "{streamed_err}"
        );
    } else {
        assert_eq!(huge(&err).as_deref(), Some("refused"), "{err}");
    }
}
