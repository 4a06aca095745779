//! The HTML report (`--format html`, `bryo report`): golden files for two
//! small corpora, escaping of hostile names and text, byte ranges landing
//! on the right characters whatever the encoding, missing sources.
//!
//! The golden files live in `tests/golden/html/<corpus>/`; after an
//! intended change of the output, regenerate them with
//! `BRYO_BLESS=1 cargo test -p bryo-cli --test html` and review the diff.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

mod support;
use support::bryo;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every file under `dir`, by path relative to it.
fn read_tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path
                    .strip_prefix(dir)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                out.insert(rel, std::fs::read(&path).unwrap());
            }
        }
    }
    out
}

/// Compares the report in `got` with `tests/golden/html/<name>` (all but
/// the CSS and JS assets), or rewrites the latter when `BRYO_BLESS=1`.
fn check_golden(name: &str, got: &Path) {
    let expected_dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden/html")
        .join(name);
    let mut got = read_tree(got);
    // The stylesheet and script are the crate's assets, byte for byte; they
    // are checked here rather than kept as golden copies.
    for (asset, text) in [("bryo.css", bryo_html::CSS), ("bryo.js", bryo_html::JS)] {
        let written = got.remove(asset);
        assert!(
            written.as_deref() == Some(text.as_bytes()),
            "{name}/{asset} is not the crate's asset"
        );
    }
    if std::env::var_os("BRYO_BLESS").is_some_and(|v| v == "1") {
        let _ = std::fs::remove_dir_all(&expected_dir);
        for (rel, bytes) in &got {
            let path = expected_dir.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, bytes).unwrap();
        }
        return;
    }
    let expected = read_tree(&expected_dir);
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        expected.keys().collect::<Vec<_>>(),
        "files of the {name} report differ from {} (BRYO_BLESS=1 regenerates)",
        expected_dir.display()
    );
    for (rel, bytes) in &got {
        assert!(
            expected[rel] == *bytes,
            "{name}/{rel} differs from the golden file (BRYO_BLESS=1 regenerates it; review the diff)"
        );
    }
}

/// The hostile corpus: a file named like markup, and text closing the
/// script element; two submissions of two files each (`-d`).
fn write_xss_corpus(root: &Path) {
    let evil_name = "<img src=x onerror=alert(1)>.py";
    let body = "def greet(name):\n    # </script><script>alert(1)</script>\n    banner = \"</script><script>alert(1)</script>\"\n    for i in range(10):\n        if i % 2 == 0:\n            print(banner, name, i * 2 + 1)\n        else:\n            print(name.upper(), i - 1)\n    return len(name) + 42\n";
    let util = "def helper(values):\n    total = 0\n    for v in values:\n        total += v * v\n    return total\n";
    for who in ["mallory", "trent"] {
        let dir = root.join("subs").join(who);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(evil_name), body).unwrap();
        std::fs::write(dir.join("util.py"), util).unwrap();
    }
}

#[test]
fn golden_wordfreq_report() {
    let out = tempfile::tempdir().unwrap();
    bryo()
        .current_dir(repo_root())
        .args([
            "compare",
            "-l",
            "python",
            "-d",
            "-b",
            "examples/wordfreq/starter",
        ])
        .arg("examples/wordfreq/submissions")
        .args(["--format", "html", "-o"])
        .arg(out.path())
        .assert()
        .success();
    check_golden("wordfreq", out.path());
}

#[test]
fn golden_hostile_names_and_text_are_escaped() {
    let corpus = tempfile::tempdir().unwrap();
    write_xss_corpus(corpus.path());
    let out = corpus.path().join("report");
    bryo()
        .current_dir(corpus.path())
        .args([
            "compare", "-l", "python", "-d", "subs", "--format", "html", "-o", "report",
        ])
        .assert()
        .success();
    let tree = read_tree(&out);
    assert!(tree.keys().any(|k| k.starts_with("files/")));
    for (rel, bytes) in &tree {
        let text = String::from_utf8(bytes.clone()).unwrap();
        assert!(!text.contains("<img"), "{rel} holds an unescaped <img");
        assert!(
            !text.contains("<script>alert"),
            "{rel} holds an unescaped <script>"
        );
        assert!(
            !text.contains("onerror=alert(1)>"),
            "{rel} holds a raw file name"
        );
        if rel.ends_with(".html") {
            // Scripts only from files beside the page, none inline.
            assert!(text.contains("script-src 'self'"));
            for (i, _) in text.match_indices("<script") {
                assert!(
                    text[i..].starts_with("<script src=\""),
                    "{rel}: inline script"
                );
            }
            // No attribute named on… (an event handler) in any tag: text
            // has no raw `<`, so every `<…>` is a real tag; quoted values
            // (which may hold an escaped file name) are left out.
            for tag in text
                .split('<')
                .skip(1)
                .filter_map(|t| t.split_once('>'))
                .map(|t| t.0)
            {
                let unquoted: String = tag.split('"').step_by(2).collect();
                assert!(
                    !unquoted
                        .split_whitespace()
                        .skip(1)
                        .any(|a| a.starts_with("on")),
                    "{rel}: event handler in <{tag}>"
                );
            }
        }
    }
    let index = String::from_utf8(tree["index.html"].clone()).unwrap();
    assert!(index.contains("subs/mallory"));
    let pair = String::from_utf8(tree["pair-1.html"].clone()).unwrap();
    assert!(pair.contains("subs/mallory/&lt;img src=x onerror=alert(1)&gt;.py"));
    check_golden("hostile", &out);
}

#[test]
fn saved_result_renders_the_same_and_missing_files_are_noted() {
    let corpus = tempfile::tempdir().unwrap();
    write_xss_corpus(corpus.path());
    let dir = corpus.path();
    bryo()
        .current_dir(dir)
        .args([
            "compare",
            "-l",
            "python",
            "-d",
            "subs",
            "--format",
            "json",
            "-o",
            "result.json",
        ])
        .assert()
        .success();
    bryo()
        .current_dir(dir)
        .args([
            "compare", "-l", "python", "-d", "subs", "--format", "html", "-o", "direct",
        ])
        .assert()
        .success();
    bryo()
        .current_dir(dir)
        .args(["report", "result.json", "-o", "saved"])
        .assert()
        .success();
    assert_eq!(
        read_tree(&dir.join("direct")),
        read_tree(&dir.join("saved"))
    );

    // From another directory, with --root.
    let elsewhere = tempfile::tempdir().unwrap();
    bryo()
        .current_dir(elsewhere.path())
        .arg("report")
        .arg(dir.join("result.json"))
        .args(["-o", "out", "--root"])
        .arg(dir)
        .assert()
        .success();
    assert_eq!(
        read_tree(&dir.join("direct")),
        read_tree(&elsewhere.path().join("out"))
    );

    // A submitted file gone: the page says so, the rest is written.
    std::fs::remove_file(dir.join("subs/trent/util.py")).unwrap();
    bryo()
        .current_dir(dir)
        .args(["report", "result.json", "-o", "partial"])
        .assert()
        .success();
    let pages: String = read_tree(&dir.join("partial"))
        .iter()
        .filter(|(k, _)| k.starts_with("pair-"))
        .map(|(_, v)| String::from_utf8(v.clone()).unwrap())
        .collect();
    assert!(
        pages.contains("Source not available: cannot read"),
        "{pages}"
    );
}

#[test]
fn html_needs_an_output_directory() {
    let corpus = tempfile::tempdir().unwrap();
    write_xss_corpus(corpus.path());
    let out = bryo()
        .current_dir(corpus.path())
        .args(["compare", "-l", "python", "-d", "subs", "--format", "html"])
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(stderr.contains("-o DIR"), "{stderr}");
    let out = bryo()
        .current_dir(corpus.path())
        .args(["report", "nothing.json", "-o", "x"])
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(stderr.contains("cannot read nothing.json"), "{stderr}");
}

/// Undoes the escaping of the highlighted HTML and drops its tags: the
/// text as the browser shows it.
fn shown_text(html: &str) -> String {
    let mut out = String::new();
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    out.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// The highlighted HTML registered by a `files/*.js` script.
fn script_html(script: &[u8]) -> String {
    let text = std::str::from_utf8(script).unwrap();
    let start = text.find("=\n").unwrap() + 2;
    let literal = text[start..].trim_end().trim_end_matches(';');
    serde_json::from_str(literal).unwrap()
}

/// `start,end,f start,end,f` → triples.
fn ranges(attr: &str) -> Vec<(usize, usize, usize)> {
    attr.split(' ')
        .filter(|s| !s.is_empty())
        .map(|t| {
            let v: Vec<usize> = t.split(',').map(|x| x.parse().unwrap()).collect();
            (v[0], v[1], v[2])
        })
        .collect()
}

fn attr<'a>(html: &'a str, name: &str, nth: usize) -> &'a str {
    let key = format!("{name}=\"");
    let i = html.match_indices(&key).nth(nth).unwrap().0 + key.len();
    &html[i..i + html[i..].find('"').unwrap()]
}

#[test]
fn byte_ranges_land_on_the_same_text_in_every_encoding() {
    // The same program three times: UTF-8 with a byte-order mark and CRLF
    // lines, UTF-16LE, and Windows-1252; non-ASCII text before the copy
    // shifts byte offsets differently in each.
    let program = "# Überschrift: grüße, 😀 ünïcödé\ndef score(values, weight):\n    total = 0\n    for v in values:\n        if v > 10:\n            total += v * weight\n        else:\n            total -= v\n    return total / len(values)\n";
    let latin = program.replace('😀', "e");
    let corpus = tempfile::tempdir().unwrap();
    let dir = corpus.path();
    let mut bom = b"\xEF\xBB\xBF".to_vec();
    bom.extend(program.replace('\n', "\r\n").as_bytes());
    std::fs::write(dir.join("a.py"), bom).unwrap();
    let mut utf16 = vec![0xFF, 0xFE];
    for unit in program.encode_utf16() {
        utf16.extend(unit.to_le_bytes());
    }
    std::fs::write(dir.join("b.py"), utf16).unwrap();
    let cp1252: Vec<u8> = latin
        .chars()
        .map(|c| u8::try_from(u32::from(c)).unwrap())
        .collect();
    std::fs::write(dir.join("c.py"), cp1252).unwrap();
    bryo()
        .current_dir(dir)
        .args([
            "compare", "-l", "python", "a.py", "b.py", "c.py", "--format", "html", "-o", "out",
        ])
        .assert()
        .success();
    let tree = read_tree(&dir.join("out"));
    let expected = "def score(values, weight):\n    total = 0\n    for v in values:\n        if v > 10:\n            total += v * weight\n        else:\n            total -= v\n    return total / len(values)";
    let mut checked = 0;
    for (name, page) in tree.iter().filter(|(k, _)| k.starts_with("pair-")) {
        let page = std::str::from_utf8(page).unwrap();
        for side in 0..2 {
            let src = attr(page, "data-src", side);
            let text = shown_text(&script_html(&tree[&format!("files/{src}.js")]));
            let units: Vec<u16> = text.encode_utf16().collect();
            for (s, e, _) in ranges(attr(page, "data-marks", side)) {
                let got = String::from_utf16(&units[s..e]).unwrap();
                assert_eq!(got, expected, "{name}, side {side}");
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 6, "three pairs, one fragment on each side");
}

/// The pair pages of a report directory, concatenated, and whether any of
/// its files holds `needle`.
fn pages_and_leak(dir: &Path, needle: &str) -> (String, bool) {
    let tree = read_tree(dir);
    let pages = tree
        .iter()
        .filter(|(k, _)| k.starts_with("pair-"))
        .map(|(_, v)| String::from_utf8(v.clone()).unwrap())
        .collect();
    let leak = tree
        .values()
        .any(|v| String::from_utf8_lossy(v).contains(needle));
    (pages, leak)
}

/// Writes `result.json` for the hostile corpus in `dir` and returns it
/// parsed.
fn saved_result(dir: &Path) -> serde_json::Value {
    bryo()
        .current_dir(dir)
        .args([
            "compare",
            "-l",
            "python",
            "-d",
            "subs",
            "--format",
            "json",
            "-o",
            "result.json",
        ])
        .assert()
        .success();
    serde_json::from_str(&std::fs::read_to_string(dir.join("result.json")).unwrap()).unwrap()
}

/// Renames the file `from` to `to` everywhere in the result (its entry and
/// the fragments naming it); with `strip`, drops every `raw_fingerprint`.
fn craft(result: &serde_json::Value, from: &str, to: &str, strip: bool) -> String {
    fn walk(v: &mut serde_json::Value, from: &str, to: &str, strip: bool) {
        match v {
            serde_json::Value::Object(map) => {
                if strip {
                    map.remove("raw_fingerprint");
                }
                for (_, x) in map.iter_mut() {
                    walk(x, from, to, strip);
                }
            }
            serde_json::Value::Array(xs) => xs.iter_mut().for_each(|x| walk(x, from, to, strip)),
            serde_json::Value::String(s) if s == from => *s = to.to_string(),
            _ => {}
        }
    }
    let mut v = result.clone();
    walk(&mut v, from, to, strip);
    serde_json::to_string(&v).unwrap()
}

#[test]
fn saved_result_shows_only_files_with_the_recorded_fingerprint() {
    let corpus = tempfile::tempdir().unwrap();
    write_xss_corpus(corpus.path());
    let dir = corpus.path();
    let result = saved_result(dir);
    assert!(result["submissions"][1]["files"][1]["raw_fingerprint"].is_string());

    // A file edited after the run: a note, and not its new text.
    std::fs::write(
        dir.join("subs/trent/util.py"),
        "def helper(values):\n    return 'EDITED AFTER THE RUN'\n",
    )
    .unwrap();
    bryo()
        .current_dir(dir)
        .args(["report", "result.json", "-o", "edited"])
        .assert()
        .success();
    let (pages, leak) = pages_and_leak(&dir.join("edited"), "EDITED AFTER THE RUN");
    assert!(pages.contains("the file changed since the run"), "{pages}");
    assert!(!leak, "the edited text reached the report");
    // The unchanged files are still shown.
    assert!(dir.join("edited/files/s0-1.js").is_file());
    assert!(!dir.join("edited/files/s1-1.js").exists());

    // A crafted result pointing a fingerprinted entry at another file.
    let secret = tempfile::tempdir().unwrap();
    let secret_file = secret.path().join("secret.txt");
    std::fs::write(&secret_file, "TOP SECRET = 1\n").unwrap();
    let crafted = craft(
        &result,
        "subs/trent/util.py",
        secret_file.to_str().unwrap(),
        false,
    );
    std::fs::write(dir.join("crafted.json"), crafted).unwrap();
    bryo()
        .current_dir(dir)
        .args(["report", "crafted.json", "-o", "crafted"])
        .assert()
        .success();
    let (pages, leak) = pages_and_leak(&dir.join("crafted"), "TOP SECRET");
    assert!(pages.contains("the file changed since the run"), "{pages}");
    assert!(!leak, "a file outside the result reached the report");
}

#[test]
fn saved_result_without_fingerprints_reads_no_path_outside_the_root() {
    let corpus = tempfile::tempdir().unwrap();
    write_xss_corpus(corpus.path());
    let dir = corpus.path().join("run");
    std::fs::create_dir(&dir).unwrap();
    std::fs::rename(corpus.path().join("subs"), dir.join("subs")).unwrap();
    let result = saved_result(&dir);
    std::fs::write(corpus.path().join("secret.txt"), "TOP SECRET = 1\n").unwrap();
    let absolute = corpus.path().join("secret.txt");
    for (name, target) in [
        ("absolute", absolute.to_str().unwrap()),
        ("parent", "../secret.txt"),
        ("nested", "subs/../../secret.txt"),
    ] {
        let crafted = craft(&result, "subs/trent/util.py", target, true);
        let json = format!("{name}.json");
        std::fs::write(dir.join(&json), crafted).unwrap();
        bryo()
            .current_dir(&dir)
            .args(["report", &json, "-o", name])
            .assert()
            .success();
        let (pages, leak) = pages_and_leak(&dir.join(name), "TOP SECRET");
        assert!(
            pages.contains("names it by an absolute path or one with `..`"),
            "{name}: {pages}"
        );
        assert!(!leak, "{name}: a file outside the root reached the report");
    }
    // Relative paths inside the root are still read without fingerprints.
    let plain = craft(&result, "", "", true);
    std::fs::write(dir.join("plain.json"), plain).unwrap();
    bryo()
        .current_dir(&dir)
        .args(["report", "plain.json", "-o", "plain"])
        .assert()
        .success();
    assert!(dir.join("plain/files/s1-1.js").is_file());
}
