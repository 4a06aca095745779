//! Dead-statement insertion, the attack of Mossad and PlagGen, in every
//! tree-sitter language: a copy with statements inserted that change
//! nothing must normalize to the symbols of its original, so that it ranks
//! above every independent solution (Cliff's δ = 1.0).
//!
//! The inserted statements are those of the accuracy benchmark's attack
//! (`bench/quality/attacks.py`, Java and C/C++) written in each language:
//! an unused variable, one computed and updated, an `if` that never runs
//! holding such a variable, a loop that never runs. They go after any
//! statement of a block in a function body, at the indentation of that
//! statement (Python reads it).

use proptest::prelude::*;

use crate::dead::{StatementTable, BLOCK, SCOPE};
use crate::flat::Flat;
use crate::languages::languages;
use crate::{Options, TsLanguage};

/// Dead statements of `language`: `{a}` a fresh name, `{n}` and `{m}`
/// numbers, `{i}` the indentation of the line (Python's blocks).
fn templates(language: &str) -> &'static [&'static str] {
    match language {
        "c" | "cpp" | "java" | "csharp" => &[
            "int {a} = {n};",
            "int {a} = {n} * {m};",
            "if ({n} < 0) { int {a} = {m}; {a}++; }",
            "{ int {a} = {n}; {a} = {a} * {m}; }",
            "for (int {a} = 0; {a} < 0; {a}++) { }",
            "int {a} = {n}; {a} += {m};",
        ],
        "javascript" | "typescript" => &[
            "let {a} = {n};",
            "const {a} = {n} * {m};",
            "if ({n} < 0) { let {a} = {m}; {a}++; }",
            "{ let {a} = {n}; {a} = {a} * {m}; }",
            "for (let {a} = 0; {a} < 0; {a}++) { }",
            "let {a} = {n}; {a} += {m};",
        ],
        "python" => &[
            "{a} = {n}",
            "{a} = {n} * {m}",
            "if {n} < 0:\n{i}    {a} = {m}\n{i}    {a} += 1",
            "{a} = {n}\n{i}{a} += {m}",
            "while {n} < 0:\n{i}    {a} = {m}",
        ],
        "go" => &[
            "var {a} = {n}",
            "{a} := {n} * {m}",
            "if {n} < 0 {\n{i}\t{a} := {m}\n{i}\t{a}++\n{i}}",
            "{a} := {n}\n{i}{a} += {m}",
            "for {a} := 0; {a} < 0; {a}++ {\n{i}}",
        ],
        "rust" => &[
            "let {a} = {n};",
            "let {a} = {n} * {m};",
            "if {n} < 0 { let mut {a} = {m}; {a} += 1; }",
            "let mut {a} = {n}; {a} += {m};",
            "while {n} < 0 { let {a} = {m}; }",
        ],
        _ => &[],
    }
}

/// Where a statement can go: after each statement of a block inside a
/// function, as `(byte offset, indentation of the statement's line)`; only
/// statements that start a line of their own.
fn spots(language: &'static TsLanguage, text: &str) -> Vec<(usize, String)> {
    let tree = language
        .parse_tree(text.as_bytes(), &Options::default())
        .unwrap();
    let grammar = language.grammar();
    let table = StatementTable::new(language, &grammar);
    let flat = Flat::of(&tree);
    let mut out = Vec::new();
    // (node, inside a function) to visit.
    let mut stack = vec![(flat.root_node(), false)];
    while let Some((node, in_scope)) = stack.pop() {
        let flags = table.flags(&node);
        let in_scope = in_scope || flags & SCOPE != 0;
        if in_scope && flags & BLOCK != 0 {
            for statement in node.named_children() {
                // Statements only: not a comment, a `case` clause, a
                // directive's name, or Rust's tail expression (a statement
                // after it would take its place as the value).
                let kind = statement.kind();
                let statement_like = kind.ends_with("statement")
                    || kind.ends_with("declaration")
                    || kind.ends_with("_definition")
                    || kind.ends_with("_item");
                if !statement_like {
                    continue;
                }
                let line = text[..statement.start_byte()]
                    .rfind('\n')
                    .map_or(0, |i| i + 1);
                let indent = &text[line..statement.start_byte()];
                // A statement on a line of its own, not a label's or an
                // `else`'s.
                if !indent.chars().all(|c| c == ' ' || c == '\t') {
                    continue;
                }
                let end = statement.end_byte();
                let rest_of_line = text[end..].split('\n').next().unwrap_or("");
                if rest_of_line.trim().is_empty() {
                    out.push((end, indent.to_string()));
                }
            }
        }
        stack.extend(node.children().map(|c| (c, in_scope)));
    }
    out.sort();
    out.dedup();
    out
}

/// `text` with the statements `chosen` (spot, template, name suffix)
/// inserted.
fn insert(
    language: &str,
    text: &str,
    spots: &[(usize, String)],
    chosen: &[(usize, usize, u32)],
) -> String {
    let templates = templates(language);
    let mut at: Vec<(usize, String)> = chosen
        .iter()
        .map(|&(spot, t, k)| {
            let (offset, indent) = &spots[spot % spots.len()];
            let code = templates[t % templates.len()]
                .replace("{a}", &format!("dz{k}x{spot}"))
                .replace("{n}", &(k % 50 + 1).to_string())
                .replace("{m}", &(k % 7 + 2).to_string())
                .replace("{i}", indent);
            (*offset, format!("\n{indent}{code}"))
        })
        .collect();
    at.sort_by_key(|a| std::cmp::Reverse(a.0));
    let mut out = text.to_string();
    for (offset, code) in at {
        out.insert_str(offset, &code);
    }
    out
}

fn normalize_options() -> Options {
    Options {
        drop_dead_code: true,
        canonical_forms: true,
        canonical_order: true,
        canonical_control: true,
        inline_calls: true,
        ..Options::default()
    }
}

fn symbols(language: &TsLanguage, text: &str) -> Vec<u64> {
    language
        .normalize(text.as_bytes(), &normalize_options())
        .unwrap()
        .normalized
        .symbols
}

/// A program of each language with loops, branches, early returns,
/// nested functions and a class or type where the language has them.
fn program(language: &str) -> &'static str {
    match language {
        "c" | "cpp" => {
            "int sum(int *a, int n) {\n    int s = 0;\n    for (int i = 0; i < n; i++) {\n        if (a[i] < 0) {\n            continue;\n        }\n        s += a[i];\n    }\n    return s;\n}\n\nint main(void) {\n    int a[3] = {1, 2, 3};\n    int t = sum(a, 3);\n    while (t > 10) {\n        t = t / 2;\n    }\n    printf(\"%d\\n\", t);\n    return 0;\n}\n"
        }
        "java" => {
            "class Main {\n    static int sum(int[] a) {\n        int s = 0;\n        for (int x : a) {\n            if (x < 0) {\n                continue;\n            }\n            s += x;\n        }\n        return s;\n    }\n\n    public static void main(String[] args) {\n        int[] a = {1, 2, 3};\n        int t = sum(a);\n        while (t > 10) {\n            t = t / 2;\n        }\n        System.out.println(t);\n    }\n}\n"
        }
        "csharp" => {
            "class Program {\n    static int Sum(int[] a) {\n        int s = 0;\n        foreach (var x in a) {\n            if (x < 0) {\n                continue;\n            }\n            s += x;\n        }\n        return s;\n    }\n\n    static void Main() {\n        int[] a = {1, 2, 3};\n        int t = Sum(a);\n        while (t > 10) {\n            t = t / 2;\n        }\n        System.Console.WriteLine(t);\n    }\n}\n"
        }
        "javascript" | "typescript" => {
            "function sum(a) {\n    let s = 0;\n    for (const x of a) {\n        if (x < 0) {\n            continue;\n        }\n        s += x;\n    }\n    return s;\n}\n\nfunction main() {\n    const a = [1, 2, 3];\n    let t = sum(a);\n    while (t > 10) {\n        t = t / 2;\n    }\n    console.log(t);\n}\n\nmain();\n"
        }
        "python" => {
            "def total(a):\n    s = 0\n    for x in a:\n        if x < 0:\n            continue\n        s += x\n    return s\n\n\ndef main():\n    a = [1, 2, 3]\n    t = total(a)\n    while t > 10:\n        t = t // 2\n    print(t)\n\n\nmain()\n"
        }
        "go" => {
            "package main\n\nimport \"fmt\"\n\nfunc sum(a []int) int {\n\ts := 0\n\tfor _, x := range a {\n\t\tif x < 0 {\n\t\t\tcontinue\n\t\t}\n\t\ts += x\n\t}\n\treturn s\n}\n\nfunc main() {\n\ta := []int{1, 2, 3}\n\tt := sum(a)\n\tfor t > 10 {\n\t\tt = t / 2\n\t}\n\tfmt.Println(t)\n}\n"
        }
        "rust" => {
            "fn sum(a: &[i32]) -> i32 {\n    let mut s = 0;\n    for &x in a {\n        if x < 0 {\n            continue;\n        }\n        s += x;\n    }\n    s\n}\n\nfn pick(v: i32) -> i32 {\n    let f = |x: i32| match x {\n        0 => {\n            let y = 1;\n            y\n        }\n        _ => x,\n    };\n    f(v)\n}\n\nfn main() {\n    let a = [1, 2, 3];\n    let mut t = sum(&a);\n    while t > 10 {\n        t = t / 2;\n    }\n    println!(\"{}\", pick(t));\n}\n"
        }
        _ => "",
    }
}

#[test]
fn every_language_has_a_program_and_dead_statements() {
    for language in languages() {
        let name = language.name();
        assert!(!program(name).is_empty(), "{name}");
        assert!(!templates(name).is_empty(), "{name}");
        assert!(spots(language, program(name)).len() >= 6, "{name}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Up to one dead statement after every statement of a function (100 %
    /// insertion) leaves the symbols of the program as they were.
    #[test]
    fn inserted_dead_statements_leave_no_symbol(
        li in 0usize..16,
        chosen in prop::collection::vec((0usize..64, 0usize..8, 0u32..1000), 1..24),
    ) {
        let language = &languages()[li % languages().len()];
        let name = language.name();
        let original = program(name);
        let spots = spots(language, original);
        let copy = insert(name, original, &spots, &chosen);
        prop_assert_eq!(symbols(language, &copy), symbols(language, original), "{}:\n{}", name, copy);
    }
}

/// Insertion at 100 % (a dead statement after every statement of every
/// function) into the files of a real corpus: `BRYO_INSERTION_CORPUS` (a
/// directory, its files of the language read to a depth of one) and
/// `BRYO_INSERTION_LANGUAGE`; at most `BRYO_INSERTION_LIMIT` files (400).
/// Prints how many files keep their symbols and fails if one does not,
/// naming the files (with `BRYO_INSERTION_DEBUG=DIR`, their copies are
/// written there).
#[test]
#[ignore = "measures a corpus: set BRYO_INSERTION_CORPUS and BRYO_INSERTION_LANGUAGE; run with --include-ignored"]
fn insertion_into_a_corpus() {
    let dir = std::env::var("BRYO_INSERTION_CORPUS").expect("BRYO_INSERTION_CORPUS");
    let name = std::env::var("BRYO_INSERTION_LANGUAGE").expect("BRYO_INSERTION_LANGUAGE");
    let language = TsLanguage::by_name(&name).expect("a tree-sitter language");
    let limit: usize = std::env::var("BRYO_INSERTION_LIMIT").map_or(400, |v| v.parse().unwrap());
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .collect();
    paths.sort();
    let (mut tried, mut kept, mut statements) = (0, 0, 0);
    let mut failed = Vec::new();
    for path in paths.iter().take(limit) {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        let options = normalize_options();
        // Files with syntax errors are left out: statements inserted where
        // the parser recovered mean nothing.
        let Ok(original) = language.normalize(text.as_bytes(), &options) else {
            continue;
        };
        let tree = language.parse_tree(text.as_bytes(), &options).unwrap();
        if tree.root_node().has_error() {
            continue;
        }
        let spots = spots(language, &text);
        if spots.is_empty() {
            continue;
        }
        let chosen: Vec<(usize, usize, u32)> =
            (0..spots.len()).map(|i| (i, i % 7, i as u32)).collect();
        let copy = insert(language.name(), &text, &spots, &chosen);
        tried += 1;
        statements += spots.len();
        match language.normalize(copy.as_bytes(), &options) {
            Ok(c) if c.normalized.symbols == original.normalized.symbols => kept += 1,
            Ok(_) => {
                if let Ok(out) = std::env::var("BRYO_INSERTION_DEBUG") {
                    let _ = std::fs::write(
                        format!("{out}/{}", path.file_name().unwrap().to_string_lossy()),
                        &copy,
                    );
                }
                failed.push(path.display().to_string())
            }
            Err(e) => failed.push(format!("{} ({e})", path.display())),
        }
    }
    eprintln!("{name}: {kept} of {tried} files keep their symbols after {statements} insertions");
    for f in failed.iter().take(20) {
        eprintln!("  changed: {f}");
    }
    assert!(tried > 0, "no file of {name} in {dir}");
    assert!(failed.is_empty(), "{} files changed", failed.len());
}
