//! Tests of the source-code lexers: per-language fixtures (disguised copies
//! lex identically, different programs do not), targeted cases for each
//! lexical feature, deep nesting, unterminated constructs, and properties
//! over arbitrary text for every language.

use std::path::{Path, PathBuf};

use bryo_frontend::{
    symbol, FrontendKind, Language, LexNoteKind, Lexed, Lexer, Normalization, SymbolClass,
};
use proptest::prelude::*;

fn lexer(name: &str) -> &'static Lexer {
    Language::by_name(name)
        .and_then(|l| l.lexer())
        .unwrap_or_else(|| panic!("no lexer for {name}"))
}

fn code_languages() -> impl Iterator<Item = &'static Language> {
    Language::all()
        .iter()
        .filter(|l| l.frontend() == FrontendKind::Code)
}

/// Each token as `class:text`, the class recovered from the normalized
/// symbol: `id`, `str`, `chr`, `num`, `re` (regular expression), `kw` or
/// `op`.
fn tokens(lang: &str, text: &str) -> Vec<String> {
    let lx = lexer(lang);
    let out = lx.lex(text, Normalization::Full);
    out.normalized
        .symbols
        .iter()
        .zip(&out.normalized.spans)
        .map(|(&sym, span)| {
            let t = &text[span.range()];
            format!("{}:{t}", class_of(lx, sym, t))
        })
        .collect()
}

fn class_of(lx: &Lexer, sym: u64, t: &str) -> &'static str {
    let lower = if lx.case_insensitive() {
        t.to_ascii_lowercase()
    } else {
        t.to_string()
    };
    if sym == symbol(SymbolClass::Identifier, b"") {
        "id"
    } else if sym == symbol(SymbolClass::String, b"") {
        "str"
    } else if sym == symbol(SymbolClass::Char, b"") {
        "chr"
    } else if sym == symbol(SymbolClass::Number, b"") {
        "num"
    } else if sym == symbol(SymbolClass::OtherLiteral, b"") {
        "re"
    } else if sym == symbol(SymbolClass::Keyword, lower.as_bytes()) {
        "kw"
    } else if sym == symbol(SymbolClass::Operator, t.as_bytes()) {
        "op"
    } else {
        "?"
    }
}

fn toks(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

// ---------------------------------------------------------------- fixtures

fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/lexer")
}

/// The file `stem.*` in the language's fixture directory.
fn fixture(lang: &str, stem: &str) -> (PathBuf, String) {
    let dir = fixture_dir().join(lang);
    let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for e in entries {
        let p = e.unwrap().path();
        if p.file_stem().and_then(|s| s.to_str()) == Some(stem) {
            let text = std::fs::read_to_string(&p).unwrap();
            return (p, text);
        }
    }
    panic!("no fixture {stem}.* for {lang}");
}

#[test]
fn every_code_language_has_fixtures_that_survive_disguise() {
    let string_sym = symbol(SymbolClass::String, b"");
    for lang in code_languages() {
        let name = lang.name();
        let lx = lang.lexer().unwrap();
        let (pa, a) = fixture(name, "a");
        let (_, b) = fixture(name, "b");
        let (_, c) = fixture(name, "c");
        let la = lx.lex(&a, Normalization::Full);
        let lb = lx.lex(&b, Normalization::Full);
        let lc = lx.lex(&c, Normalization::Full);
        assert!(la.notes.is_empty(), "{name}: notes {:?}", la.notes);
        assert!(lb.notes.is_empty(), "{name}: notes {:?}", lb.notes);
        assert!(lc.notes.is_empty(), "{name}: notes {:?}", lc.notes);
        if la.normalized.symbols != lb.normalized.symbols {
            let ta = tokens(name, &a);
            let tb = tokens(name, &b);
            let at = ta.iter().zip(&tb).position(|(x, y)| x != y);
            panic!(
                "{name}: disguised copy lexes differently at token {at:?}:\n{:?}\n{:?}",
                at.map(|i| &ta[i..(i + 6).min(ta.len())]),
                at.map(|i| &tb[i..(i + 6).min(tb.len())])
            );
        }
        assert_ne!(
            la.normalized.symbols, lc.normalized.symbols,
            "{name}: different programs lex the same"
        );
        // The verbatim mode sees the renaming.
        assert_ne!(
            lx.lex(&a, Normalization::Verbatim).normalized.symbols,
            lx.lex(&b, Normalization::Verbatim).normalized.symbols,
            "{name}: verbatim mode ignores renaming"
        );
        // The fixture exercises strings and comments: a string symbol, and
        // non-blank text outside every span (comments were dropped).
        assert!(
            la.normalized.symbols.contains(&string_sym),
            "{name}: fixture a has no string"
        );
        let mut covered = vec![false; a.len()];
        for s in &la.normalized.spans {
            covered[s.range()].iter_mut().for_each(|c| *c = true);
        }
        let dropped = a
            .bytes()
            .zip(&covered)
            .filter(|(b, c)| !**c && !b.is_ascii_whitespace())
            .count();
        assert!(dropped >= 3, "{name}: fixture a has no comment");
        // Detection from the fixture's own extension.
        let first_line = a.lines().next().unwrap_or("").as_bytes();
        assert_eq!(
            Language::detect(&pa, first_line).map(Language::name),
            Some(name),
            "{name}: detection of {}",
            pa.display()
        );
    }
}

/// A digest of a symbol stream, for the golden file.
fn digest(symbols: &[u64]) -> u64 {
    symbols.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &s| {
        (h ^ s).wrapping_mul(0x0000_0100_0000_01b3).rotate_left(17)
    })
}

/// Pins the exact symbol streams of every fixture in both modes, so a
/// change to any lexer (which changes stored fingerprints) is deliberate:
/// it must come with a bump of `SYMBOL_SCHEME_VERSION`. After such a
/// change, regenerate with `BRYO_BLESS=1 cargo test -p bryo-frontend
/// --test lexer golden`.
#[test]
fn golden_symbol_streams() {
    let path = fixture_dir().join("golden.tsv");
    let mut lines = vec![format!(
        "# scheme {}: language, file, mode, symbols, digest",
        bryo_frontend::SYMBOL_SCHEME_VERSION
    )];
    for lang in code_languages() {
        let lx = lang.lexer().unwrap();
        for stem in ["a", "b", "c"] {
            let (p, text) = fixture(lang.name(), stem);
            let file = p.file_name().unwrap().to_string_lossy().into_owned();
            for (mode, m) in [
                (Normalization::Full, "normalized"),
                (Normalization::Verbatim, "verbatim"),
            ] {
                let out = lx.lex(&text, mode);
                lines.push(format!(
                    "{}\t{file}\t{m}\t{}\t{:016x}",
                    lang.name(),
                    out.normalized.len(),
                    digest(&out.normalized.symbols)
                ));
            }
        }
    }
    let now = lines.join("\n") + "\n";
    if std::env::var_os("BRYO_BLESS").is_some_and(|v| v == "1") {
        std::fs::write(&path, &now).unwrap();
        return;
    }
    let pinned = std::fs::read_to_string(&path).expect("golden.tsv (BRYO_BLESS=1 writes it)");
    for (a, b) in pinned.lines().zip(now.lines()) {
        assert_eq!(a, b, "symbol stream changed (see the doc of this test)");
    }
    assert_eq!(pinned.lines().count(), now.lines().count());
}

// ---------------------------------------------------------------- table

#[test]
fn every_moss_name_is_accepted() {
    let moss = [
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
    ];
    for m in moss {
        assert!(Language::by_name(m).is_some(), "{m}");
        assert!(Language::by_name(&m.to_uppercase()).is_some(), "{m}");
    }
    for extra in [
        "typescript",
        "go",
        "rust",
        "kotlin",
        "php",
        "ruby",
        "scala",
        "swift",
        "bash",
        "sql",
        "r",
    ] {
        assert_eq!(
            Language::by_name(extra).unwrap().frontend(),
            FrontendKind::Code
        );
    }
    assert_eq!(Language::by_name("ascii").unwrap().name(), "text");
    assert_eq!(
        Language::by_name("TXT").unwrap().frontend(),
        FrontendKind::Text
    );
    assert_eq!(
        Language::by_name("xhtml").unwrap().frontend(),
        FrontendKind::Html
    );
    assert_eq!(Language::by_name("C++").unwrap().name(), "cc");
    assert!(Language::by_name("cobol").is_none());
    assert_eq!(Language::by_name("js"), Language::by_name("JavaScript"));
    assert_eq!(Language::by_name("cpp").unwrap().to_string(), "cc");
    assert!(Language::by_name("html").unwrap().lexer().is_none());
}

#[test]
fn names_and_extensions_are_unique() {
    let mut names = std::collections::HashSet::new();
    let mut exts = std::collections::HashSet::new();
    for l in Language::all() {
        for n in std::iter::once(&l.name()).chain(l.aliases()) {
            assert!(names.insert(n.to_ascii_lowercase()), "name {n} twice");
        }
        for e in l.extensions() {
            assert!(exts.insert(*e), "extension {e} twice");
        }
    }
}

#[test]
fn detection_by_extension_then_shebang() {
    let d =
        |p: &str, first: &str| Language::detect(Path::new(p), first.as_bytes()).map(Language::name);
    assert_eq!(d("x/Main.JAVA", ""), Some("java"));
    assert_eq!(d("a.h", ""), Some("c"));
    assert_eq!(d("a.hpp", ""), Some("cc"));
    assert_eq!(d("a.py", "#!/bin/sh"), Some("python"));
    assert_eq!(d("script", "#!/usr/bin/env python3\n"), Some("python"));
    assert_eq!(d("script", "#!/usr/bin/python3.11 -u"), Some("python"));
    assert_eq!(d("script", "#!/bin/bash -e"), Some("bash"));
    assert_eq!(d("script", "#! /bin/sh"), Some("bash"));
    assert_eq!(
        d("script", "#!/usr/bin/env -S node --harmony"),
        Some("javascript")
    );
    assert_eq!(d("script", "#!/usr/bin/env FOO=1 ruby"), Some("ruby"));
    assert_eq!(d("script", "#!/usr/bin/perl -w"), Some("perl"));
    assert_eq!(d("script", "#!/usr/bin/env Rscript"), Some("r"));
    assert_eq!(d("script", "#!/usr/bin/unknown"), None);
    assert_eq!(d("script", "print(1)"), None);
    assert_eq!(d("notes.txt", ""), Some("text"));
    assert_eq!(d("page.htm", ""), Some("html"));
}

// ---------------------------------------------------------------- features

#[test]
fn c_family_basics() {
    assert_eq!(
        tokens(
            "c",
            "int x = a->b + 0x1Fu; // c\n/* d */ s = \"q\\\"\" 'y' '\\'';"
        ),
        toks(&[
            "kw:int",
            "id:x",
            "op:=",
            "id:a",
            "op:->",
            "id:b",
            "op:+",
            "num:0x1Fu",
            "op:;",
            "id:s",
            "op:=",
            "str:\"q\\\"\"",
            "chr:'y'",
            "chr:'\\''",
            "op:;",
        ])
    );
    assert_eq!(
        tokens("c", "x = 1.5e-3f + .5 + 1e10 + 07 + 1.;"),
        toks(&[
            "id:x",
            "op:=",
            "num:1.5e-3f",
            "op:+",
            "num:.5",
            "op:+",
            "num:1e10",
            "op:+",
            "num:07",
            "op:+",
            "num:1.",
            "op:;",
        ])
    );
    assert_eq!(
        tokens("cc", "auto s = R\"d(a)\" \" )d\"; L\"w\" u8\"x\" a<<=b;"),
        toks(&[
            "kw:auto",
            "id:s",
            "op:=",
            "str:R\"d(a)\" \" )d\"",
            "op:;",
            "str:L\"w\"",
            "str:u8\"x\"",
            "id:a",
            "op:<<=",
            "id:b",
            "op:;",
        ])
    );
    assert_eq!(
        tokens("java", "x >>>= 1_000L; s = \"\"\"\n  text \"\" \"\"\";"),
        toks(&[
            "id:x",
            "op:>>>=",
            "num:1_000L",
            "op:;",
            "id:s",
            "op:=",
            "str:\"\"\"\n  text \"\" \"\"\"",
            "op:;",
        ])
    );
}

#[test]
fn rust_raw_strings_chars_and_lifetimes() {
    assert_eq!(
        tokens(
            "rust",
            "fn f<'a>(x: &'a str) { let c = 'c'; let r = r##\"a \"# b\"##; 'outer: loop {} b'x' br\"y\" r#type }"
        ),
        toks(&[
            "kw:fn", "id:f", "op:<", "id:'a", "op:>", "op:(", "id:x", "op::", "op:&", "id:'a",
            "id:str", "op:)", "op:{", "kw:let", "id:c", "op:=", "chr:'c'", "op:;", "kw:let",
            "id:r", "op:=", "str:r##\"a \"# b\"##", "op:;", "id:'outer", "op::", "kw:loop", "op:{",
            "op:}", "chr:b'x'", "str:br\"y\"", "id:r#type", "op:}",
        ])
    );
    assert_eq!(
        tokens("rust", "'\\n' '\\u{1F600}' 'é' 1..=2 1.0f64"),
        toks(&[
            "chr:'\\n'",
            "chr:'\\u{1F600}'",
            "chr:'é'",
            "num:1",
            "op:..=",
            "num:2",
            "num:1.0f64"
        ])
    );
}

#[test]
fn nested_comments_where_the_language_nests() {
    assert_eq!(
        tokens("rust", "a /* x /* y */ z */ b"),
        toks(&["id:a", "id:b"])
    );
    assert_eq!(
        tokens("c", "a /* x /* y */ z */ b"),
        toks(&["id:a", "id:z", "op:*", "op:/", "id:b"])
    );
    assert_eq!(
        tokens("haskell", "a {- x {- y -} z -} b"),
        toks(&["id:a", "id:b"])
    );
    assert_eq!(
        tokens("ml", "a (* x (* y *) z *) b"),
        toks(&["id:a", "id:b"])
    );
    assert_eq!(
        tokens("modula2", "a (* x (* y *) z *) b"),
        toks(&["id:a", "id:b"])
    );
    assert_eq!(
        tokens("pascal", "a { x } (* y *) // z\n b"),
        toks(&["id:a", "id:b"])
    );
    assert_eq!(
        tokens("lisp", "a #| x #| y |# z |# b ; c"),
        toks(&["id:a", "id:b"])
    );
    assert_eq!(
        tokens("matlab", "a\n%{\nx\n%}\nb % c"),
        toks(&["id:a", "id:b"])
    );
}

#[test]
fn python_strings() {
    assert_eq!(
        tokens(
            "python",
            "x = r'\\'' + b\"\\\"\" + f'{y}' + '''a\n'b'\n''' + \"\"\"\"\"\" # c\nrb = 0j"
        ),
        toks(&[
            "id:x",
            "op:=",
            "str:r'\\''",
            "op:+",
            "str:b\"\\\"\"",
            "op:+",
            "str:f'{y}'",
            "op:+",
            "str:'''a\n'b'\n'''",
            "op:+",
            "str:\"\"\"\"\"\"",
            "id:rb",
            "op:=",
            "num:0j",
        ])
    );
    // Line continuations are layout.
    assert_eq!(
        tokens("python", "x = 1 + \\\n  2"),
        tokens("python", "x = 1 + 2")
    );
    assert_eq!(
        tokens("c", "#define F(x) \\\r\n (x)"),
        tokens("c", "#define F(x) (x)")
    );
    assert_eq!(
        tokens("python", "a **= b // c -> d := e"),
        toks(&["id:a", "op:**=", "id:b", "op://", "id:c", "op:->", "id:d", "op::=", "id:e"])
    );
}

#[test]
fn interpolation_nests() {
    assert_eq!(
        tokens("javascript", "`a${ `b${c}` + {d: 1}.d }e` + 'f'"),
        toks(&[
            "str:`a${", "str:`b${", "id:c", "str:}`", "op:+", "op:{", "id:d", "op::", "num:1",
            "op:}", "op:.", "id:d", "str:}e`", "op:+", "str:'f'",
        ])
    );
    assert_eq!(
        tokens("kotlin", "\"x${a + \"}\"}y\" + \"\"\"r ${b}\"\"\""),
        toks(&[
            "str:\"x${",
            "id:a",
            "op:+",
            "str:\"}\"",
            "str:}y\"",
            "op:+",
            "str:\"\"\"r ${",
            "id:b",
            "str:}\"\"\"",
        ])
    );
    assert_eq!(
        tokens("swift", "\"a\\(f(x))b\""),
        toks(&["str:\"a\\(", "id:f", "op:(", "id:x", "op:)", "str:)b\""])
    );
    assert_eq!(
        tokens("ruby", "\"a#{ {k: 1}[:k] }b\" # c"),
        toks(&[
            "str:\"a#{",
            "op:{",
            "id:k",
            "op::",
            "num:1",
            "op:}",
            "op:[",
            "op::",
            "id:k",
            "op:]",
            "str:}b\"",
        ])
    );
    assert_eq!(
        tokens("bash", "echo \"$(basename \"$f\")\" # c"),
        toks(&[
            "kw:echo",
            "str:\"$(",
            "id:basename",
            "str:\"$f\"",
            "str:)\""
        ])
    );
    assert_eq!(
        tokens("csharp", "$\"{{x}} {y}\" + @\"a\"\"b\""),
        toks(&[
            "str:$\"{{x}} {",
            "id:y",
            "str:}\"",
            "op:+",
            "str:@\"a\"\"b\""
        ])
    );
}

#[test]
fn case_insensitive_keywords() {
    assert_eq!(
        tokens("pascal", "BEGIN Begin begin"),
        toks(&["kw:BEGIN", "kw:Begin", "kw:begin"])
    );
    let lx = lexer("sql");
    let a = lx.lex("SELECT x FROM t", Normalization::Full);
    let b = lx.lex("select y from u", Normalization::Full);
    assert_eq!(a.normalized.symbols, b.normalized.symbols);
    // Verbatim: identifiers fold case too.
    let a = lx.lex("SELECT Name", Normalization::Verbatim);
    let b = lx.lex("select nAME", Normalization::Verbatim);
    assert_eq!(a.normalized.symbols, b.normalized.symbols);
    // Case-sensitive languages keep case.
    assert_eq!(tokens("c", "While while"), toks(&["id:While", "kw:while"]));
    assert_eq!(
        tokens("vb", "x = 1 REM note\nrem more\ny ' c"),
        toks(&["id:x", "op:=", "num:1", "id:y"])
    );
}

#[test]
fn language_specific_forms() {
    assert_eq!(
        tokens(
            "fortran",
            "C comment\n      x = 1.0d0 ! c\n* star\ncall f(x)"
        ),
        toks(&[
            "id:x",
            "op:=",
            "num:1.0d0",
            "kw:call",
            "id:f",
            "op:(",
            "id:x",
            "op:)"
        ])
    );
    assert_eq!(
        tokens(
            "ada",
            "X : Integer := 16#FF# + Y'First + Character'('a'); -- c"
        ),
        toks(&[
            "id:X",
            "op::",
            "kw:Integer",
            "op::=",
            "num:16#FF#",
            "op:+",
            "id:Y",
            "op:'",
            "id:First",
            "op:+",
            "id:Character",
            "op:'",
            "op:(",
            "chr:'a'",
            "op:)",
            "op:;",
        ])
    );
    assert_eq!(
        tokens("verilog", "q <= 8'hFF + 'b1 + $time; // c"),
        toks(&[
            "id:q",
            "op:<=",
            "num:8'hFF",
            "op:+",
            "num:'b1",
            "op:+",
            "id:$time",
            "op:;"
        ])
    );
    assert_eq!(
        tokens("matlab", "y = x' + [a' 'str''s'] % c"),
        toks(&[
            "id:y",
            "op:=",
            "id:x",
            "op:'",
            "op:+",
            "op:[",
            "id:a",
            "op:'",
            "str:'str''s'",
            "op:]",
        ])
    );
    assert_eq!(
        tokens(
            "perl",
            "my @a = (%h, $x, $!); # c\n=head1 Doc\n\n=cut\nprint $_;"
        ),
        toks(&[
            "kw:my", "id:@a", "op:=", "op:(", "id:%h", "op:,", "id:$x", "op:,", "id:$!", "op:)",
            "op:;", "kw:print", "id:$_", "op:;",
        ])
    );
    assert_eq!(
        tokens("ruby", "x = 1\n=begin\nnot code\n=end\n@y = $z"),
        toks(&["id:x", "op:=", "num:1", "id:@y", "op:=", "id:$z"])
    );
    assert_eq!(
        tokens("bash", "echo $# ${#x} a#b # c"),
        toks(&["kw:echo", "id:$#", "op:$", "op:{", "op:#", "id:x", "op:}", "id:a", "op:#", "id:b"])
    );
    assert_eq!(
        tokens("haskell", "x' = y >>= \\z -> z -- c\n'a'"),
        toks(&["id:x'", "op:=", "id:y", "op:>>=", "op:\\", "id:z", "op:->", "id:z", "chr:'a'"])
    );
    assert_eq!(
        tokens("ml", "let f (x : 'a) = 'b' in x"),
        toks(&[
            "kw:let", "id:f", "op:(", "id:x", "op::", "id:'a", "op:)", "op:=", "chr:'b'", "kw:in",
            "id:x",
        ])
    );
    assert_eq!(
        tokens("lisp", "(defun my-fn? (x) (1+ x)) ; c"),
        toks(&[
            "op:(",
            "kw:defun",
            "id:my-fn?",
            "op:(",
            "id:x",
            "op:)",
            "op:(",
            "num:1",
            "id:+",
            "id:x",
            "op:)",
            "op:)"
        ])
    );
    assert_eq!(
        tokens("r", "x.y <- .5 + `odd name` # c"),
        toks(&["id:x.y", "op:<-", "num:.5", "op:+", "id:`odd name`"])
    );
    assert_eq!(
        tokens("sql", "SELECT \"Col\" FROM t WHERE s = 'it''s' -- c"),
        toks(&[
            "kw:SELECT",
            "id:\"Col\"",
            "kw:FROM",
            "id:t",
            "kw:WHERE",
            "id:s",
            "op:=",
            "str:'it''s'"
        ])
    );
    assert_eq!(
        tokens("a8086", "mov ax, 0FFh ; c"),
        toks(&["kw:mov", "id:ax", "op:,", "num:0FFh"])
    );
    assert_eq!(
        tokens("spice", "* title\nR1 a b 1k ; c\n.tran 1u"),
        toks(&["id:R1", "id:a", "id:b", "num:1k", "kw:.tran", "num:1u"])
    );
    assert_eq!(
        tokens("go", "x := `a\nb` + 'c' // d"),
        toks(&["id:x", "op::=", "str:`a\nb`", "op:+", "chr:'c'"])
    );
    assert_eq!(
        tokens("php", "$a = \"x{$b}y\" . 'z'; # c"),
        toks(&[
            "id:$a",
            "op:=",
            "str:\"x{$",
            "id:b",
            "str:}y\"",
            "op:.",
            "str:'z'",
            "op:;"
        ])
    );
    assert_eq!(
        tokens("prolog", "a :- X =.. [f|Y], 'q w' \\== \"s\". % c"),
        toks(&[
            "id:a",
            "op::-",
            "id:X",
            "op:=..",
            "op:[",
            "id:f",
            "op:|",
            "id:Y",
            "op:]",
            "op:,",
            "str:'q w'",
            "op:\\==",
            "str:\"s\"",
            "op:.",
        ])
    );
}

#[test]
fn regex_literals_where_an_operand_is_expected() {
    assert_eq!(
        tokens(
            "javascript",
            "x = a / b / c; y = s.match(/['\\/]+[/]/g) || /x/;"
        ),
        toks(&[
            "id:x",
            "op:=",
            "id:a",
            "op:/",
            "id:b",
            "op:/",
            "id:c",
            "op:;",
            "id:y",
            "op:=",
            "id:s",
            "op:.",
            "id:match",
            "op:(",
            "re:/['\\/]+[/]/g",
            "op:)",
            "op:||",
            "re:/x/",
            "op:;",
        ])
    );
    // A `/` that does not close on its line is division.
    assert_eq!(
        tokens("javascript", "f(/ 2\n)"),
        toks(&["id:f", "op:(", "op:/", "num:2", "op:)"])
    );
    assert_eq!(
        tokens("perl", "$s =~ /'/; # c"),
        toks(&["id:$s", "op:=~", "re:/'/", "op:;"])
    );
}

#[test]
fn digit_separators_and_end_markers() {
    assert_eq!(
        tokens("cc", "x = 0x8000'0000ull + 1'000 + 'a';"),
        toks(&[
            "id:x",
            "op:=",
            "num:0x8000'0000ull",
            "op:+",
            "num:1'000",
            "op:+",
            "chr:'a'",
            "op:;"
        ])
    );
    assert_eq!(
        tokens("perl", "print 1;\n__END__\n\"not code"),
        toks(&["kw:print", "num:1", "op:;"])
    );
    assert_eq!(
        tokens("ruby", "x\n__END__ y\nz"),
        toks(&["id:x", "id:__END__", "id:y", "id:z"])
    );
}

#[test]
fn here_documents() {
    assert_eq!(
        tokens(
            "bash",
            "cat <<EOF > f; echo a\nit's $(not) code\nEOF\necho <<< x << y"
        ),
        toks(&[
            "id:cat",
            "str:<<EOF",
            "op:>",
            "id:f",
            "op:;",
            "kw:echo",
            "id:a",
            "kw:echo",
            "op:<<<",
            "id:x",
            "op:<<",
            "id:y",
        ])
    );
    assert_eq!(
        tokens("bash", "a <<-'X' <<\"Y\"\n\tx\n\tX\ny\nY\nb"),
        toks(&["id:a", "str:<<-'X'", "str:<<\"Y\"", "id:b"])
    );
    assert_eq!(
        tokens("ruby", "s = <<~EOS.strip\n  don't\n  EOS\nx"),
        toks(&["id:s", "op:=", "str:<<~EOS", "op:.", "id:strip", "id:x"])
    );
    assert_eq!(
        tokens("php", "$s = <<<EOT\nit's\nEOT;\n$t"),
        toks(&["id:$s", "op:=", "str:<<<EOT", "op:;", "id:$t"])
    );
    let out = lexer("perl").lex("print <<END;\nno end", Normalization::Full);
    assert_eq!(out.notes.len(), 1);
    assert_eq!(out.notes[0].kind, LexNoteKind::UnterminatedString);
    assert_eq!(out.normalized.len(), 3);
}

// ---------------------------------------------------------------- robustness

#[test]
fn unterminated_constructs_are_noted() {
    let lx = lexer("c");
    let out = lx.lex("a = \"abc\nb /* never", Normalization::Full);
    let kinds: Vec<_> = out.notes.iter().map(|n| (n.offset, n.kind)).collect();
    assert_eq!(
        kinds,
        vec![
            (4, LexNoteKind::UnterminatedString),
            (11, LexNoteKind::UnterminatedComment)
        ]
    );
    // The single-line string ends at its line end; `b` is still lexed.
    assert_eq!(
        tokens("c", "a = \"abc\nb /* never"),
        toks(&["id:a", "op:=", "str:\"abc", "id:b"])
    );

    let out = lexer("python").lex("x = '''never closed\n\n", Normalization::Full);
    assert_eq!(out.notes[0].kind, LexNoteKind::UnterminatedString);
    assert_eq!(out.normalized.spans.last().unwrap().end, 21);

    let out = lexer("javascript").lex("`a${ b", Normalization::Full);
    assert_eq!(out.notes[0].kind, LexNoteKind::UnterminatedInterpolation);

    let out = lexer("rust").lex("r##\"x\"# /* /* */", Normalization::Full);
    assert_eq!(out.notes.len(), 1);
    assert_eq!(out.notes[0].kind, LexNoteKind::UnterminatedString);

    let out = lexer("perl").lex("=pod\nno end", Normalization::Full);
    assert_eq!(out.notes[0].kind, LexNoteKind::UnterminatedComment);
    assert!(out.normalized.is_empty());
}

/// Runs `f` on a thread with a small stack: the lexer must not recurse.
fn on_small_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(128 * 1024)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn deep_nesting_does_not_overflow() {
    const N: usize = 10_000;
    on_small_stack(|| {
        let parens = format!("{}x{}", "(".repeat(N), ")".repeat(N));
        let out = lexer("c").lex(&parens, Normalization::Full);
        assert_eq!(out.normalized.len(), 2 * N + 1);

        let comments = format!("a{}{}b", "/*".repeat(N), "*/".repeat(N));
        assert_eq!(tokens("rust", &comments), toks(&["id:a", "id:b"]));
        let comments = format!("a{}{}b", "(*".repeat(N), "*)".repeat(N));
        assert_eq!(tokens("ml", &comments), toks(&["id:a", "id:b"]));

        let templates = format!("{}x{}", "`${".repeat(N), "}`".repeat(N));
        let out = lexer("javascript").lex(&templates, Normalization::Full);
        assert!(out.notes.is_empty(), "{:?}", &out.notes[..1]);
        assert_eq!(out.normalized.len(), 2 * N + 1);

        let interp = format!("{}x{}", "\"${".repeat(N), "}\"".repeat(N));
        let out = lexer("kotlin").lex(&interp, Normalization::Full);
        assert!(out.notes.is_empty());
        assert_eq!(out.normalized.len(), 2 * N + 1);
    });
}

/// Inputs that could make a careless lexer quadratic; each must lex in
/// one pass (a regression here shows up as a test that takes minutes).
#[test]
fn pathological_lines_stay_linear() {
    let n = 200_000;
    let slashes = "/[".repeat(n);
    let out = lexer("javascript").lex(&slashes, Normalization::Full);
    assert_eq!(out.normalized.len(), 2 * n);
    let heredocs = "<<A ".repeat(n);
    let out = lexer("bash").lex(&format!("{heredocs}\nx"), Normalization::Full);
    assert_eq!(out.normalized.len(), n);
    assert_eq!(out.notes.len(), 1);
    let raw = format!("r###\"{}", "\"##".repeat(n));
    let out = lexer("rust").lex(&raw, Normalization::Full);
    assert_eq!(out.normalized.len(), 1);
    let cpp = format!("R\"abcdefghijklmnop({}", ")abcdefghijklmno\"".repeat(n));
    let out = lexer("cc").lex(&cpp, Normalization::Full);
    assert_eq!(out.normalized.len(), 1);
}

#[test]
fn lex_into_reuses_and_replaces() {
    let lx = lexer("python");
    let mut out = Lexed::default();
    lx.lex_into("a = 1 'x", Normalization::Full, &mut out);
    assert_eq!(out.notes.len(), 1);
    lx.lex_into("b", Normalization::Full, &mut out);
    assert_eq!(out, lx.lex("b", Normalization::Full));
}

// ---------------------------------------------------------------- properties

/// Text made mostly of bytes that matter to lexers, plus any character.
fn code_text() -> impl Strategy<Value = String> {
    let interesting: Vec<char> = "abcxyzRrbBfLuCe_019 .\n\t\r\"'`#/*(){}[]$@%!?-+=<>,;:\\|&^~é"
        .chars()
        .collect();
    prop::collection::vec(
        prop_oneof![8 => prop::sample::select(interesting), 1 => any::<char>()],
        0..120,
    )
    .prop_map(|v| v.into_iter().collect())
}

/// Spans whose text, lexed alone, is not expected to give back the same
/// single symbol, because the token's meaning depends on what precedes it:
/// MATLAB's transpose `'` (a string opener at the start of a text), a Bash
/// `#` inside a word (a comment at the start of a text), and SPICE and
/// Fortran operators starting with `*` (a first-column comment at the
/// start of a text).
fn context_dependent(lang: &str, text: &str) -> bool {
    matches!((lang, text), ("matlab", "'") | ("bash", "#"))
        || (matches!(lang, "spice" | "fortran") && text.starts_with('*'))
}

fn check_lexing(text: &str) -> Result<(), TestCaseError> {
    let relexable = [SymbolClass::Identifier, SymbolClass::Number].map(|c| symbol(c, b""));
    for lang in code_languages() {
        let name = lang.name();
        let lx = lang.lexer().unwrap();
        let out = lx.lex(text, Normalization::Full);
        let n = &out.normalized;
        let verbatim = lx.lex(text, Normalization::Verbatim);
        prop_assert_eq!(&verbatim.normalized.spans, &n.spans);
        prop_assert_eq!(&verbatim.notes, &out.notes);
        prop_assert_eq!(n.symbols.len(), n.spans.len());
        let mut prev_end = 0;
        for (k, (&sym, &span)) in n.symbols.iter().zip(&n.spans).enumerate() {
            prop_assert!(span.start < span.end, "{}: empty span {:?}", name, span);
            prop_assert!(span.start >= prev_end, "{}: overlap at {:?}", name, span);
            prop_assert!(span.end as usize <= text.len());
            prop_assert!(text.is_char_boundary(span.start as usize));
            prop_assert!(text.is_char_boundary(span.end as usize));
            prev_end = span.end;

            // Identifiers, numbers, keywords and operators re-lex alone to
            // the same single symbol, in both modes (string, character and
            // regular-expression literals are not checked: a piece of an
            // interpolated literal such as `}…${` means nothing alone).
            let t = &text[span.range()];
            let is_kw_or_op = {
                let lower = t.to_ascii_lowercase();
                sym == symbol(SymbolClass::Keyword, lower.as_bytes())
                    || sym == symbol(SymbolClass::Keyword, t.as_bytes())
                    || sym == symbol(SymbolClass::Operator, t.as_bytes())
            };
            if (relexable.contains(&sym) || is_kw_or_op) && !context_dependent(name, t) {
                let again = lx.lex(t, Normalization::Full);
                prop_assert_eq!(
                    &again.normalized.symbols,
                    &vec![sym],
                    "{}: {:?} re-lexed as {:?}",
                    name,
                    t,
                    tokens(name, t)
                );
                let again = lx.lex(t, Normalization::Verbatim);
                prop_assert_eq!(
                    &again.normalized.symbols,
                    &vec![verbatim.normalized.symbols[k]]
                );
            }
        }
        for note in &out.notes {
            prop_assert!(note.offset as usize <= text.len());
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    #[test]
    fn spans_are_ordered_and_tokens_relex(text in code_text()) {
        check_lexing(&text)?;
    }

    #[test]
    fn arbitrary_strings_never_panic(text in any::<String>()) {
        check_lexing(&text)?;
    }
}
