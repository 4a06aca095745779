//! The HTML front-end: markup removed, entities decoded, spans into the HTML.

use bryo_frontend::{
    normalize_html, normalize_html_into, normalize_text, symbol, Normalized, SymbolClass, TextMode,
};
use proptest::prelude::*;

const MODES: [TextMode; 2] = [TextMode::Chars, TextMode::Words];

fn shown(html: &str, mode: TextMode) -> Vec<&str> {
    normalize_html(html, mode)
        .spans
        .iter()
        .map(|s| &html[s.range()])
        .collect()
}

fn check_spans(html: &str, n: &Normalized, mode: TextMode) -> Result<(), TestCaseError> {
    prop_assert_eq!(n.symbols.len(), n.spans.len());
    let mut prev_end = 0;
    for (i, (&sym, &span)) in n.symbols.iter().zip(&n.spans).enumerate() {
        prop_assert!(span.start < span.end, "empty span {}", i);
        prop_assert!(span.start >= prev_end, "span {} overlaps", i);
        prop_assert!(span.end as usize <= html.len());
        prev_end = span.end;
        let again = normalize_html(&html[span.range()], mode);
        prop_assert_eq!(&again.symbols, &vec![sym], "span {} re-normalizes", i);
    }
    Ok(())
}

#[test]
fn markup_scripts_styles_and_comments_are_removed() {
    let html = r#"<!DOCTYPE html>
<html><head><title>The Title</title>
<style>p { color: red } /* </p> */</style>
<script type="text/javascript">if (a < b && c > d) { document.write("<p>no</p>"); }</script>
</head><body class="a>b" data-x='1>2'>
<!-- a comment with <b>tags</b> -->
<p>First&nbsp;line<br/>second <em>word</em>s.</p>
<![CDATA[ hidden ]]><?php echo "hidden"; ?>
</body></html>"#;
    assert_eq!(
        shown(html, TextMode::Words),
        ["The", "Title", "First", "line", "second", "word", "s"]
    );
}

#[test]
fn entities_are_decoded_and_span_the_whole_reference() {
    let html = "Caf&eacute; &amp; cr&#232;me br&#xFB;l&eacute;e &copy &nosuch; &notit; &#65;&#x62;";
    let words = normalize_html(html, TextMode::Words);
    let plain = normalize_text("café & crème brûlée © nosuch; ¬it; Ab", TextMode::Words);
    assert_eq!(words.symbols, plain.symbols);
    assert_eq!(
        shown(html, TextMode::Words),
        [
            "Caf&eacute;",
            "cr&#232;me",
            "br&#xFB;l&eacute;e",
            "nosuch",
            "it",
            "&#65;&#x62;"
        ]
    );
    let chars = shown("x&eacute;&ffllig;", TextMode::Chars);
    assert_eq!(chars, ["x", "&eacute;", "&ffllig;"]);
    assert_eq!(
        normalize_html("&ffllig;", TextMode::Chars).symbols,
        [symbol(SymbolClass::TextChar, b"ffl")]
    );
}

#[test]
fn malformed_html_is_read_as_a_browser_would() {
    // `<` that starts no markup is text (punctuation).
    assert_eq!(shown("a < b <3 c<", TextMode::Words), ["a", "b", "3", "c"]);
    // An unclosed tag runs to the end of the file.
    assert_eq!(shown("text <p class=x", TextMode::Words), ["text"]);
    // An unclosed quoted attribute value runs to the end of the file.
    assert_eq!(shown("one <a href=\"x>two", TextMode::Words), ["one"]);
    // A quote not after `=` is no attribute value.
    assert_eq!(shown("<a b\"c>one", TextMode::Words), ["one"]);
    // Unclosed comments and scripts run to the end.
    assert_eq!(shown("one <!-- two", TextMode::Words), ["one"]);
    assert_eq!(shown("one <script> two", TextMode::Words), ["one"]);
    assert_eq!(
        shown("one </ two> three", TextMode::Words),
        ["one", "three"]
    );
    assert_eq!(shown("one </> two", TextMode::Words), ["one", "two"]);
    assert_eq!(shown("a&b &; &#; &#x;", TextMode::Words), ["a", "b", "x"]);
}

#[test]
fn ten_thousand_nested_tags() {
    let depth = 10_000;
    let html = format!(
        "{}deep text{}{}",
        "<div><span>".repeat(depth),
        "</span></div>".repeat(depth),
        "<!--".repeat(depth)
    );
    for mode in MODES {
        let n = normalize_html(&html, mode);
        assert_eq!(n.symbols, normalize_text("deep text", mode).symbols);
    }
}

/// The same prose in different markup yields the plain text's symbols.
fn wrap(word: &str, style: u8) -> String {
    match style % 8 {
        0 => word.to_string(),
        1 => format!("<b>{word}</b>"),
        2 => format!("<a href=\"/x?a=1&amp;b=2\" title='a > b'>{word}</a>"),
        3 => format!("{word}<!-- note -->"),
        4 => format!("<p>{word}</p>\n"),
        5 => format!("{word}<script>var s = '{word} x';</script>"),
        6 => format!("<span\nclass=\"c\">{word}</span>"),
        _ => format!("<br>{word}<style>.x{{}}</style>"),
    }
}

fn escape(word: &str) -> String {
    word.chars()
        .map(|c| match c {
            'é' => "&eacute;".to_string(),
            'ü' => "&#252;".to_string(),
            'A' => "&#x41;".to_string(),
            c => c.to_string(),
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn same_prose_in_markup_gives_the_plain_symbols(
        words in proptest::collection::vec("[a-zA-Zéü0-9]{1,8}", 1..20),
        styles in proptest::collection::vec(any::<u8>(), 20),
        escaped in any::<bool>(),
    ) {
        let plain = words.join(" ");
        let html: String = words
            .iter()
            .zip(&styles)
            .map(|(w, &s)| {
                let w = if escaped { escape(w) } else { w.clone() };
                format!("{} ", wrap(&w, s))
            })
            .collect();
        for mode in MODES {
            let n = normalize_html(&html, mode);
            prop_assert_eq!(&n.symbols, &normalize_text(&plain, mode).symbols);
            check_spans(&html, &n, mode)?;
        }
    }

    #[test]
    fn arbitrary_markup_never_panics_and_spans_are_sound(
        html in proptest::collection::vec(
            prop_oneof![
                3 => "[a-zA-Z ]{1,6}",
                1 => "[<>&;#/!\\-\"'=]{1,3}",
                1 => Just("<script>".to_string()),
                1 => Just("</script>".to_string()),
                1 => Just("<!--".to_string()),
                1 => Just("-->".to_string()),
                1 => Just("&amp".to_string()),
                1 => Just("&#x".to_string()),
                1 => "\\PC{1,3}",
            ],
            0..40,
        ).prop_map(|v| v.concat())
    ) {
        for mode in MODES {
            let n = normalize_html(&html, mode);
            check_spans(&html, &n, mode)?;
        }
    }

    #[test]
    fn arbitrary_strings(html in "\\PC{0,80}|.{0,80}") {
        for mode in MODES {
            check_spans(&html, &normalize_html(&html, mode), mode)?;
        }
    }

    #[test]
    fn text_without_markup_is_plain_text(text in "[a-zA-Z0-9 .,;:!?\n\u{e9}\u{3a3}]{0,80}") {
        for mode in MODES {
            prop_assert_eq!(normalize_html(&text, mode), normalize_text(&text, mode));
        }
    }

    #[test]
    fn the_buffer_reusing_form_agrees(a in "\\PC{0,60}", b in "\\PC{0,60}") {
        let mut buf = Normalized::default();
        normalize_html_into(&a, TextMode::Words, &mut buf);
        normalize_html_into(&b, TextMode::Words, &mut buf);
        prop_assert_eq!(&buf, &normalize_html(&b, TextMode::Words));
    }
}
