//! Behaviour of the tree-sitter front-ends: normalization per language on
//! fixture triples, the stream invariants, and the fallback cases. Needs
//! the default features (all nine grammars).
#![cfg(all(
    feature = "c",
    feature = "cpp",
    feature = "java",
    feature = "python",
    feature = "javascript",
    feature = "typescript",
    feature = "csharp",
    feature = "go",
    feature = "rust"
))]

use bryo_frontend::{symbol, Normalized, SymbolClass};
use bryo_treesitter::{languages, normalize, Fallback, Normalization, Options, TsLanguage};
use proptest::prelude::*;
use std::time::Duration;

/// `(language, extension)` of every fixture triple in `tests/fixtures/`:
/// `original`, `disguised` (every identifier renamed, literal values
/// changed, re-indented, lines reflowed, comments added and removed) and
/// `different` (another program for a similar task).
const FIXTURES: &[(&str, &str)] = &[
    ("c", "c"),
    ("cpp", "cpp"),
    ("java", "java"),
    ("python", "py"),
    ("javascript", "js"),
    ("typescript", "ts"),
    ("csharp", "cs"),
    ("go", "go"),
    ("rust", "rs"),
];

fn fixture(lang: &str, ext: &str, which: &str) -> Vec<u8> {
    let path = format!(
        "{}/tests/fixtures/{lang}.{which}.{ext}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn run(lang: &str, text: &[u8]) -> Normalized {
    normalize(lang, text, &Options::default())
        .unwrap_or_else(|reason| panic!("{lang}: unexpected fallback: {reason}"))
}

fn verbatim() -> Options {
    let mut o = Options::default();
    o.normalization = Normalization::Verbatim;
    o
}

/// The stream invariants: spans strictly increasing, disjoint, non-empty
/// and inside the text; and each symbol is the symbol of its span's text
/// (verbatim) or of its class (normalized).
fn check_invariants(text: &[u8], n: &Normalized, verbatim: bool) {
    assert_eq!(n.symbols.len(), n.spans.len());
    let mut last_end = 0;
    for (i, (&sym, span)) in n.symbols.iter().zip(&n.spans).enumerate() {
        assert!(span.start < span.end, "empty span {i}: {span:?}");
        assert!(
            span.start >= last_end,
            "span {i} {span:?} overlaps or goes back"
        );
        assert!(
            span.end as usize <= text.len(),
            "span {i} {span:?} past the text"
        );
        last_end = span.end;
        let under = &text[span.range()];
        let verbatim_classes = [
            SymbolClass::Keyword,
            SymbolClass::Operator,
            SymbolClass::Identifier,
            SymbolClass::String,
            SymbolClass::Char,
            SymbolClass::Number,
            SymbolClass::OtherLiteral,
        ];
        let ok = if verbatim {
            verbatim_classes.iter().any(|&c| symbol(c, under) == sym)
        } else {
            [SymbolClass::Keyword, SymbolClass::Operator]
                .iter()
                .any(|&c| symbol(c, under) == sym)
                || verbatim_classes[2..].iter().any(|&c| symbol(c, b"") == sym)
        };
        assert!(
            ok,
            "symbol {i} is not derived from its text {:?}",
            String::from_utf8_lossy(under)
        );
    }
}

fn texts(text: &[u8], n: &Normalized) -> Vec<String> {
    n.spans
        .iter()
        .map(|s| String::from_utf8_lossy(&text[s.range()]).into_owned())
        .collect()
}

#[test]
fn all_nine_languages_are_built() {
    let names: Vec<&str> = languages().iter().map(|l| l.name()).collect();
    assert_eq!(
        names,
        [
            "c",
            "cpp",
            "java",
            "python",
            "javascript",
            "typescript",
            "csharp",
            "go",
            "rust"
        ]
    );
}

#[test]
fn names_and_aliases_resolve() {
    assert_eq!(TsLanguage::by_name("cc").map(|l| l.name()), Some("cpp"));
    assert_eq!(TsLanguage::by_name("C#").map(|l| l.name()), Some("csharp"));
    assert_eq!(
        TsLanguage::by_name("Python").map(|l| l.name()),
        Some("python")
    );
    assert!(TsLanguage::by_name("cobol").is_none());
    assert_eq!(
        normalize("cobol", b"x", &Options::default()),
        Err(Fallback::UnknownLanguage("cobol".into()))
    );
}

#[test]
fn disguised_copies_give_identical_streams() {
    for &(lang, ext) in FIXTURES {
        let original = fixture(lang, ext, "original");
        let disguised = fixture(lang, ext, "disguised");
        let a = run(lang, &original);
        let b = run(lang, &disguised);
        assert!(a.len() > 40, "{lang}: only {} symbols", a.len());
        assert_eq!(
            a.symbols,
            b.symbols,
            "{lang}: streams differ\n{:?}\n{:?}",
            texts(&original, &a),
            texts(&disguised, &b)
        );
    }
}

#[test]
fn different_programs_give_different_streams() {
    for &(lang, ext) in FIXTURES {
        let a = run(lang, &fixture(lang, ext, "original"));
        let c = run(lang, &fixture(lang, ext, "different"));
        assert_ne!(a.symbols, c.symbols, "{lang}");
    }
}

#[test]
fn verbatim_mode_tells_disguised_copies_apart() {
    for &(lang, ext) in FIXTURES {
        let a = normalize(lang, &fixture(lang, ext, "original"), &verbatim()).unwrap();
        let b = normalize(lang, &fixture(lang, ext, "disguised"), &verbatim()).unwrap();
        assert_ne!(a.symbols, b.symbols, "{lang}");
    }
}

#[test]
fn fixtures_keep_the_stream_invariants() {
    for &(lang, ext) in FIXTURES {
        for which in ["original", "disguised", "different"] {
            let text = fixture(lang, ext, which);
            check_invariants(&text, &run(lang, &text), false);
            let v = normalize(lang, &text, &verbatim()).unwrap();
            check_invariants(&text, &v, true);
        }
    }
}

#[test]
fn fixtures_parse_without_errors() {
    for &(lang, ext) in FIXTURES {
        for which in ["original", "disguised", "different"] {
            let language = TsLanguage::by_name(lang).unwrap();
            let parsed = language
                .normalize(&fixture(lang, ext, which), &Options::default())
                .unwrap();
            assert_eq!(parsed.stats.error_nodes, 0, "{lang} {which}");
            assert_eq!(parsed.stats.missing_nodes, 0, "{lang} {which}");
        }
    }
}

#[test]
fn classes_of_python_tokens() {
    let text = b"x = foo(1, 'a b') + 2.5  # note\n";
    let n = run("python", text);
    let ident = symbol(SymbolClass::Identifier, b"");
    let string = symbol(SymbolClass::String, b"");
    let number = symbol(SymbolClass::Number, b"");
    let op = |t: &[u8]| symbol(SymbolClass::Operator, t);
    assert_eq!(
        n.symbols,
        [
            ident,
            op(b"="),
            ident,
            op(b"("),
            number,
            op(b","),
            string,
            op(b")"),
            op(b"+"),
            number
        ]
    );
    // The string is one symbol spanning the whole literal, quotes included.
    assert_eq!(&text[n.spans[6].range()], b"'a b'");
}

#[test]
fn keywords_are_kept_and_comments_dropped() {
    let text = b"int main(void) { /* c */ return sizeof(int); } // end\n";
    let n = run("c", text);
    let got = texts(text, &n);
    assert_eq!(
        got,
        ["int", "main", "(", "void", ")", "{", "return", "sizeof", "(", "int", ")", ";", "}"]
    );
    assert_eq!(n.symbols[0], symbol(SymbolClass::Keyword, b"int"));
    assert_eq!(n.symbols[1], symbol(SymbolClass::Identifier, b""));
    assert_eq!(n.symbols[5], symbol(SymbolClass::Operator, b"{"));
}

#[test]
fn char_and_number_literals_have_their_own_classes() {
    let n = run("java", b"class A { char c = 'q'; int i = 0x1F; }");
    assert!(n.symbols.contains(&symbol(SymbolClass::Char, b"")));
    assert!(n.symbols.contains(&symbol(SymbolClass::Number, b"")));
    let v = normalize("java", b"class A { int i = 0x1F; }", &verbatim()).unwrap();
    assert!(v.symbols.contains(&symbol(SymbolClass::Number, b"0x1F")));
    assert!(v.symbols.contains(&symbol(SymbolClass::Identifier, b"A")));
}

#[test]
fn ten_thousand_nested_parentheses_do_not_overflow_the_stack() {
    let depth = 10_000;
    for lang in ["python", "c", "javascript", "rust"] {
        let mut text = Vec::new();
        text.extend_from_slice(match lang {
            "python" => b"x = ",
            "c" => b"int x = ",
            "javascript" => b"let x = ",
            _ => b"const X: i32 = ",
        });
        text.extend(std::iter::repeat_n(b'(', depth));
        text.push(b'1');
        text.extend(std::iter::repeat_n(b')', depth));
        text.extend_from_slice(if lang == "python" { b"\n" } else { b";\n" });
        let mut options = Options::default();
        options.timeout = None;
        let n = normalize(lang, &text, &options).unwrap_or_else(|r| panic!("{lang}: {r}"));
        assert!(n.len() > 2 * depth, "{lang}: {}", n.len());
        check_invariants(&text, &n, false);
    }
}

#[test]
fn ten_thousand_nested_comments_are_dropped() {
    let depth = 10_000;
    let mut text = b"fn main() { ".to_vec();
    for _ in 0..depth {
        text.extend_from_slice(b"/* ");
    }
    for _ in 0..depth {
        text.extend_from_slice(b"*/ ");
    }
    text.extend_from_slice(b"}\n");
    let mut options = Options::default();
    options.timeout = None;
    let n = normalize("rust", &text, &options).unwrap();
    assert_eq!(texts(&text, &n), ["fn", "main", "(", ")", "{", "}"]);
}

#[test]
fn deep_unbalanced_nesting_is_handled() {
    // Unclosed brackets: an error-laden tree or a fallback, never a crash.
    let text: Vec<u8> = std::iter::repeat_n(b'[', 20_000).collect();
    for language in languages() {
        match language.normalize(&text, &Options::default()) {
            Ok(parsed) => check_invariants(&text, &parsed.normalized, false),
            Err(reason) => assert!(!reason.to_string().is_empty()),
        }
    }
}

#[test]
fn oversized_input_falls_back_with_the_sizes() {
    let mut options = Options::default();
    options.max_bytes = 100;
    let text = vec![b' '; 101];
    for language in languages() {
        let reason = language.normalize(&text, &options).unwrap_err();
        assert_eq!(
            reason,
            Fallback::TooLarge {
                bytes: 101,
                limit: 100
            }
        );
        assert_eq!(reason.code(), "too-large");
        assert!(reason.to_string().contains("101 bytes"));
    }
    // At the limit it still parses.
    assert!(normalize("python", &text[..100], &options).is_ok());
}

#[test]
fn garbage_falls_back_with_the_error_share() {
    let garbage = b"}}} ))) @@@ ]]] !!! ;;; ``` ~~~ %%% ??? :: \x01\x02\n".repeat(8);
    for language in languages() {
        let reason = language
            .normalize(&garbage, &Options::default())
            .expect_err(language.name());
        match reason {
            Fallback::TooManyErrors {
                error_bytes,
                total_bytes,
                ..
            } => {
                assert_eq!(total_bytes, garbage.len());
                assert!(error_bytes * 10 > total_bytes, "{}", language.name());
            }
            other => panic!("{}: {other:?}", language.name()),
        }
    }
}

#[test]
fn one_syntax_error_in_a_large_file_is_tolerated_and_counted() {
    let mut text = fixture("java", "java", "original");
    let pos = text.windows(6).position(|w| w == b"sum +=").unwrap();
    text.insert(pos, b'@');
    let language = TsLanguage::by_name("java").unwrap();
    let parsed = language.normalize(&text, &Options::default()).unwrap();
    assert!(parsed.stats.error_nodes + parsed.stats.missing_nodes > 0);
    // With no tolerance the same file falls back.
    let mut strict = Options::default();
    strict.max_error_share = 0.0;
    assert_eq!(
        language.normalize(&text, &strict).unwrap_err().code(),
        "too-many-errors"
    );
}

/// Valid Python that tree-sitter-python misparses (an attribute access
/// split over a dedented line): the error nodes it produces wrap valid
/// statements, which must not count as lost bytes.
#[test]
fn errors_wrapping_valid_code_count_only_their_stray_tokens() {
    let body = fixture("python", "py", "original");
    let mut text = body.clone();
    text.extend_from_slice(
        b"\n\nclass Positions:\n    def test_split_attribute(self):\n        def f():\n            \
          (bar.\n        baz)\n            (bar.\n        baz(\n        ))\n        \
          for line, column in f.__code__.co_positions():\n            \
          self.assertIsNotNone(line)\n            self.assertIsNotNone(column)\n\n\n",
    );
    text.extend_from_slice(&body);
    let python = TsLanguage::by_name("python").unwrap();
    let parsed = python.normalize(&text, &Options::default()).unwrap();
    assert!(parsed.stats.error_nodes > 0);
    assert!(
        parsed.stats.error_bytes * 20 < text.len(),
        "{:?}",
        parsed.stats
    );
    // Both copies of the valid code are still there, symbol for symbol.
    let alone = run("python", &body);
    let n = &parsed.normalized.symbols;
    assert_eq!(&n[..alone.len()], &alone.symbols[..]);
    assert_eq!(&n[n.len() - alone.len()..], &alone.symbols[..]);
}

#[test]
fn a_timeout_falls_back_and_the_parser_recovers() {
    // A large valid file with a zero timeout: cancelled at the first check.
    let unit = fixture("c", "c", "different");
    let text: Vec<u8> = unit
        .iter()
        .copied()
        .cycle()
        .take(unit.len() * 200)
        .collect();
    let mut options = Options::default();
    options.timeout = Some(std::time::Duration::ZERO);
    let c = TsLanguage::by_name("c").unwrap();
    assert_eq!(c.normalize(&text, &options).unwrap_err().code(), "timeout");
    // The cached parser was reset: the next file parses from its own start.
    let small = fixture("c", "c", "original");
    assert_eq!(
        c.normalize(&small, &Options::default()).unwrap().normalized,
        run("c", &small)
    );
}

#[test]
fn error_recovery_that_runs_long_times_out() {
    // 300 random characters on which tree-sitter-java's error recovery
    // runs for more than 10 s (found by the property tests): the limit
    // holds inside error recovery too.
    let text = "|<-<_!\t;=<]-<&&w{|>3\"i5__[_=,*3_jx_]<vf4_=4_\")[6_}_\tp_\"v\"t.}&)bw[\t!obv.\t2\n*\t&p=&d==&gi&=[( t\t\nie&._\n\t*_\n\n*)=&*&<\n_8{8e*\n8)d3&44 j[{=[<e1[xl\t8d]x,<[[.c\".<&>[9w_]i_{ *0]&o\t[[&;4{][&*3b\" i\n\"[\t_&>fo7*;&o!*h\"z.,][]3]]\"k<&rvj[*2cby_u=mv\"<;&]&4w6,\n[<;*-]>|\t|z[][\"!_p\"-]_]].= &<g !60]>!&|9) dy<&g\n>+[\n .";
    let mut options = Options::default();
    options.max_error_share = 1.0;
    options.timeout = Some(std::time::Duration::from_millis(300));
    let java = TsLanguage::by_name("java").unwrap();
    assert_eq!(
        java.normalize(text.as_bytes(), &options)
            .unwrap_err()
            .code(),
        "timeout"
    );
    // At the default limit, such a small file gets a tenth of it (and a
    // little for its bytes), not all ten seconds.
    let mut options = Options::default();
    options.max_error_share = 1.0;
    let limit = bryo_treesitter::parse_limit(Duration::from_secs(10), text.len());
    assert!(limit > Duration::from_secs(1) && limit < Duration::from_millis(1010));
    assert_eq!(
        java.normalize(text.as_bytes(), &options).unwrap_err(),
        Fallback::TimedOut(limit)
    );
}

#[test]
fn the_parse_limit_grows_with_the_file() {
    use bryo_treesitter::parse_limit;
    let ten = Duration::from_secs(10);
    assert_eq!(parse_limit(ten, 0), Duration::from_secs(1));
    assert_eq!(parse_limit(ten, 1 << 19), Duration::from_secs(6));
    assert_eq!(parse_limit(ten, 1 << 20), ten);
    assert_eq!(parse_limit(ten, 1 << 30), ten);
    assert_eq!(parse_limit(Duration::ZERO, 5000), Duration::ZERO);
}

#[test]
fn default_limits_are_the_documented_ones() {
    let o = Options::default();
    assert_eq!(o.normalization, Normalization::Full);
    assert_eq!(o.max_bytes, 1 << 20);
    assert_eq!(o.max_error_share, 0.1);
    assert_eq!(o.timeout, Some(std::time::Duration::from_secs(10)));
}

#[test]
fn invalid_options_are_reported() {
    let mut options = Options::default();
    options.max_error_share = 1.5;
    assert_eq!(
        normalize("c", b"int x;", &options).unwrap_err().code(),
        "invalid-options"
    );
}

#[test]
fn empty_text_gives_an_empty_stream() {
    for language in languages() {
        let parsed = language.normalize(b"", &Options::default()).unwrap();
        assert!(parsed.normalized.is_empty());
    }
}

#[test]
fn parsers_are_reused_across_files_and_threads() {
    let text = fixture("rust", "rs", "original");
    let first = run("rust", &text);
    for _ in 0..3 {
        assert_eq!(run("rust", &text), first);
    }
    let other = std::thread::spawn(move || run("rust", &text));
    assert_eq!(other.join().unwrap(), first);
}

#[test]
fn normalize_into_reuses_and_clears_the_buffer() {
    let python = TsLanguage::by_name("python").unwrap();
    let mut out = Normalized::default();
    python
        .normalize_into(b"a = 1\n", &Options::default(), &mut out)
        .unwrap();
    assert_eq!(out.len(), 3);
    let mut tiny = Options::default();
    tiny.max_bytes = 1;
    assert!(python.normalize_into(b"a = 1\n", &tiny, &mut out).is_err());
    assert!(out.is_empty());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn arbitrary_strings_never_panic(s in "\\PC{0,300}", li in 0usize..9) {
        let language = &languages()[li % languages().len()];
        match language.normalize(s.as_bytes(), &Options::default()) {
            Ok(parsed) => check_invariants(s.as_bytes(), &parsed.normalized, false),
            Err(reason) => prop_assert!(!reason.to_string().is_empty()),
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..300), li in 0usize..9) {
        let language = &languages()[li % languages().len()];
        match language.normalize(&bytes, &verbatim()) {
            Ok(parsed) => check_invariants(&bytes, &parsed.normalized, true),
            Err(reason) => prop_assert!(!reason.to_string().is_empty()),
        }
    }

    #[test]
    fn code_like_strings_keep_the_invariants(
        s in "[a-z_ (){};=+*\"'0-9.\n\t/#-]{0,400}", li in 0usize..9,
    ) {
        let language = &languages()[li % languages().len()];
        let mut options = Options::default();
        options.max_error_share = 1.0;
        // Error recovery takes seconds on a few random texts; production
        // falls back to the lexer then, and such a case is rejected here
        // rather than failed and shrunk one slow parse at a time.
        options.timeout = Some(std::time::Duration::from_secs(2));
        let parsed = language.normalize(s.as_bytes(), &options);
        prop_assume!(!matches!(parsed, Err(bryo_treesitter::Fallback::TimedOut(_))));
        let parsed = parsed.map_err(|r| TestCaseError::fail(r.to_string()))?;
        check_invariants(s.as_bytes(), &parsed.normalized, false);
    }
}

/// Classic Mac line ends (a lone `\r`) end lines and line comments as `\n`
/// does: the stream equals the one of the same file with `\n` line ends, so a
/// comment never swallows the rest of the file.
#[test]
fn lone_carriage_returns_end_lines() {
    for (lang, ext) in [("python", "py"), ("c", "c"), ("java", "java"), ("go", "go")] {
        let lf = fixture(lang, ext, "original");
        let cr: Vec<u8> = lf
            .iter()
            .map(|&b| if b == b'\n' { b'\r' } else { b })
            .collect();
        let with_lf = run(lang, &lf);
        let with_cr = run(lang, &cr);
        assert!(!with_lf.is_empty(), "{lang}");
        assert_eq!(with_lf.symbols, with_cr.symbols, "{lang}");
        assert_eq!(with_lf.spans, with_cr.spans, "{lang}");
    }
}

#[test]
fn five_thousand_nested_loops_and_branches_keep_every_symbol() {
    // Every rewrite copies the symbols under its node: nesting beyond the
    // bound keeps its form, so this finishes in well under a second.
    let depth = 5_000;
    let mut text = b"void f(int n) { ".to_vec();
    for i in 0..depth {
        if i % 2 == 0 {
            text.extend_from_slice(b"for (int i = 0; i < n; i++) { ");
        } else {
            text.extend_from_slice(b"if (n != 1) { g(); } else { ");
        }
    }
    text.extend_from_slice(b"h(n);");
    text.extend(std::iter::repeat_n(b'}', depth + 1));
    let mut options = Options::default();
    options.timeout = None;
    options.max_error_share = 1.0;
    let plain = normalize("c", &text, &options).unwrap();
    options.canonical_control = true;
    options.canonical_order = true;
    options.canonical_statement_order = true;
    let n = normalize("c", &text, &options).unwrap();
    // Dead code and equivalent forms too: each `i++` is `i += 1`, one
    // symbol more; nothing is dead (every loop and branch calls).
    options.canonical_forms = true;
    options.drop_dead_code = true;
    let all = normalize("c", &text, &options).unwrap();
    assert_eq!(all.len(), n.len() + depth / 2);
    // The plain stream's spans, some moved, less the braces of the loops'
    // bodies (those within the depth bound): nothing else lost.
    let mut a = plain.spans.clone();
    let mut b = n.spans.clone();
    a.sort();
    b.sort();
    assert!(b.iter().all(|s| a.binary_search(s).is_ok()));
    let dropped: Vec<_> = a.iter().filter(|s| b.binary_search(s).is_err()).collect();
    assert!(!dropped.is_empty() && dropped.len() % 2 == 0);
    assert!(dropped
        .iter()
        .all(|s| matches!(&text[s.range()], b"{" | b"}")));
    assert!(!n.in_text_order());
}

/// Runs `f` on a thread with a stack of `bytes` bytes and returns what it
/// returned; a stack overflow ends the whole test binary, never just the
/// thread.
fn on_small_stack<T: Send + 'static>(bytes: usize, f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(bytes)
        .spawn(f)
        .expect("a thread")
        .join()
        .expect("no panic")
}

#[test]
fn deep_parse_stacks_do_not_overflow_a_small_thread_stack() {
    // tree-sitter frees the versions of its parse stack this input makes
    // with a recursion as deep as their chain; on a thread of 128 KiB (a
    // worker thread has 2 MiB, which 800 KB of it overflowed) the parse
    // must run on a stack made for it and end in a result or a fallback.
    for (lang, unit) in [
        ("c", "a = / b / c /[/ "),
        ("java", "a = / b / c /[/ "),
        ("go", "{ [ "),
    ] {
        let text = unit.as_bytes().repeat(32_000 / unit.len());
        let outcome = on_small_stack(128 << 10, move || {
            let mut options = Options::default();
            options.timeout = None;
            normalize(lang, &text, &options).map(|n| n.len())
        });
        match outcome {
            Ok(n) => assert!(n > 0, "{lang}: no symbols"),
            Err(Fallback::TooManyErrors { .. }) => {}
            Err(other) => panic!("{lang}: unexpected fallback {other:?}"),
        }
    }
}
