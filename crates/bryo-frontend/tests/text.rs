//! The prose front-end, checked against a deliberately naive reference.

use bryo_frontend::{
    normalize_text, normalize_text_into, symbol, Normalized, Span, SymbolClass, TextMode,
};
use caseless::Caseless;
use proptest::prelude::*;

/// The naive reference: walk the characters, fold with `caseless`, build
/// words as strings.
fn reference(text: &str, mode: TextMode) -> Normalized {
    let fold = |s: &str| -> String { s.chars().default_case_fold().collect() };
    let mut out = Normalized::default();
    let mut word: Option<(usize, usize)> = None;
    let flush = |word: &mut Option<(usize, usize)>, out: &mut Normalized| {
        if let Some((s, e)) = word.take() {
            let f = fold(&text[s..e]);
            out.push(
                symbol(SymbolClass::TextWord, f.as_bytes()),
                Span::new(s as u32, e as u32),
            );
        }
    };
    for (i, c) in text.char_indices() {
        let end = i + c.len_utf8();
        if !c.is_alphanumeric() {
            flush(&mut word, &mut out);
            continue;
        }
        match mode {
            TextMode::Chars => out.push(
                symbol(SymbolClass::TextChar, fold(&text[i..end]).as_bytes()),
                Span::new(i as u32, end as u32),
            ),
            _ => {
                let start = word.map_or(i, |(s, _)| s);
                word = Some((start, end));
            }
        }
    }
    flush(&mut word, &mut out);
    out
}

fn check_spans(text: &str, n: &Normalized, mode: TextMode) -> Result<(), TestCaseError> {
    prop_assert_eq!(n.symbols.len(), n.spans.len());
    let mut prev_end = 0;
    for (i, (&sym, &span)) in n.symbols.iter().zip(&n.spans).enumerate() {
        prop_assert!(span.start < span.end, "empty span {}", i);
        prop_assert!(span.start >= prev_end, "span {} overlaps", i);
        prop_assert!(span.end as usize <= text.len());
        prev_end = span.end;
        let again = normalize_text(&text[span.range()], mode);
        prop_assert_eq!(&again.symbols, &vec![sym], "span {} re-normalizes", i);
    }
    Ok(())
}

fn prose() -> impl Strategy<Value = String> {
    // Mostly words, with the punctuation, whitespace and non-ASCII letters
    // that real prose has.
    proptest::collection::vec(
        prop_oneof![
            4 => "[a-zA-Z]{1,9}",
            1 => "[ \t\r\n]{1,3}",
            1 => "[.,;:!?'\"()\\-]{1,2}",
            1 => "[0-9]{1,4}",
            1 => "[àéîöüßÆØÅΣσςЖжﬁİı一二三]{1,3}",
            1 => "\\PC{1,3}",
        ],
        0..40,
    )
    .prop_map(|v| v.concat())
}

const MODES: [TextMode; 2] = [TextMode::Chars, TextMode::Words];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn matches_the_naive_reference(text in prose()) {
        for mode in MODES {
            prop_assert_eq!(normalize_text(&text, mode), reference(&text, mode));
        }
    }

    #[test]
    fn arbitrary_strings(text in "\\PC{0,60}|.{0,60}") {
        for mode in MODES {
            let n = normalize_text(&text, mode);
            prop_assert_eq!(&n, &reference(&text, mode));
            check_spans(&text, &n, mode)?;
        }
    }

    #[test]
    fn spans_are_sound(text in prose()) {
        for mode in MODES {
            check_spans(&text, &normalize_text(&text, mode), mode)?;
        }
    }

    /// Re-casing, re-flowing and re-punctuating leave the stream identical.
    #[test]
    fn case_whitespace_and_punctuation_do_not_matter(
        words in proptest::collection::vec("[a-zA-Zé]{1,8}", 1..30),
        seps in proptest::collection::vec(
            prop_oneof![Just(" "), Just("\n"), Just("\r\n"), Just(", "), Just(" -- "), Just("\t\""), Just("… ")],
            30,
        ),
        upper in proptest::collection::vec(any::<bool>(), 30),
    ) {
        let plain = words.join(" ").to_lowercase();
        let mut edited = String::new();
        for (i, w) in words.iter().enumerate() {
            if upper[i] {
                edited.push_str(&w.to_uppercase());
            } else {
                edited.push_str(w);
            }
            edited.push_str(seps[i]);
        }
        for mode in MODES {
            prop_assert_eq!(normalize_text(&plain, mode).symbols, normalize_text(&edited, mode).symbols);
        }
    }

    #[test]
    fn the_buffer_reusing_form_agrees(a in prose(), b in prose()) {
        let mut buf = Normalized::default();
        for mode in MODES {
            normalize_text_into(&a, mode, &mut buf);
            normalize_text_into(&b, mode, &mut buf);
            prop_assert_eq!(&buf, &normalize_text(&b, mode));
        }
    }
}

#[test]
fn fixtures() {
    let text = "Don't STOP—it's 42°C\r\nin Straße!";
    let words = normalize_text(text, TextMode::Words);
    let shown: Vec<&str> = words.spans.iter().map(|s| &text[s.range()]).collect();
    assert_eq!(
        shown,
        ["Don", "t", "STOP", "it", "s", "42", "C", "in", "Straße"]
    );
    assert_eq!(words.symbols[2], symbol(SymbolClass::TextWord, b"stop"));
    assert_eq!(words.symbols[8], symbol(SymbolClass::TextWord, b"strasse"));

    let chars = normalize_text("A-ß b", TextMode::Chars);
    assert_eq!(
        chars.symbols,
        [
            symbol(SymbolClass::TextChar, b"a"),
            symbol(SymbolClass::TextChar, b"ss"),
            symbol(SymbolClass::TextChar, b"b"),
        ]
    );
    assert_eq!(
        chars.spans,
        [Span::new(0, 1), Span::new(2, 4), Span::new(5, 6)]
    );

    // Greek final sigma folds like capital and medial sigma.
    assert_eq!(
        normalize_text("ΟΔΟΣ", TextMode::Words).symbols,
        normalize_text("οδος", TextMode::Words).symbols
    );
    // Nothing to keep: no symbols.
    assert!(normalize_text(" \r\n.,;!? —", TextMode::Chars).is_empty());
    assert_eq!(TextMode::default(), TextMode::Chars);
}

#[test]
fn a_long_text_without_separators_is_one_word() {
    let text = "ab".repeat(100_000);
    let n = normalize_text(&text, TextMode::Words);
    assert_eq!(n.spans, [Span::new(0, 200_000)]);
    assert_eq!(normalize_text(&text, TextMode::Chars).len(), 200_000);
}
