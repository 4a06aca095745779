//! Escaping of text embedded in HTML.

use std::fmt::Write as _;

/// Appends `text` to `out` with the five HTML-significant characters
/// (`&`, `<`, `>`, `"`, `'`) replaced by character references, so the result
/// is safe both as element content and inside a quoted attribute value.
pub(crate) fn escape_into(out: &mut String, text: &str) {
    let mut last = 0;
    for (i, b) in text.bytes().enumerate() {
        let entity = match b {
            b'&' => "&amp;",
            b'<' => "&lt;",
            b'>' => "&gt;",
            b'"' => "&quot;",
            b'\'' => "&#39;",
            _ => continue,
        };
        out.push_str(&text[last..i]);
        out.push_str(entity);
        last = i + 1;
    }
    out.push_str(&text[last..]);
}

/// Appends `text` to `out` escaped for element content only: `&`, `<` and
/// `>` replaced (quotes need no escaping outside attributes, and source code
/// is full of them). Never use it inside an attribute value.
pub(crate) fn escape_text_into(out: &mut String, text: &str) {
    let mut last = 0;
    for (i, b) in text.bytes().enumerate() {
        let entity = match b {
            b'&' => "&amp;",
            b'<' => "&lt;",
            b'>' => "&gt;",
            _ => continue,
        };
        out.push_str(&text[last..i]);
        out.push_str(entity);
        last = i + 1;
    }
    out.push_str(&text[last..]);
}

/// `text` escaped for HTML element content and quoted attribute values: the
/// five HTML-significant characters (`&`, `<`, `>`, `"`, `'`) replaced by
/// character references.
pub fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    escape_into(&mut out, text);
    out
}

/// A percentage with one decimal, e.g. `89.3%`, from a value in 0..100:
/// rounded down like the terminal table, so only a full match reads
/// `100.0%` (a hair above the value absorbs binary rounding).
pub(crate) fn percent(value: f64) -> String {
    bryo_report::percent_down(value, 100.0, 1)
}

/// A fraction (0..1) as a percentage with one decimal.
pub(crate) fn fraction(value: f64) -> String {
    percent(value * 100.0)
}

/// Appends `format_args` output; writing to a `String` cannot fail.
pub(crate) fn push_fmt(out: &mut String, args: std::fmt::Arguments<'_>) {
    let _ = out.write_fmt(args);
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn percentages_round_down_like_the_table() {
        assert_eq!(fraction(0.893_939), "89.3%");
        assert_eq!(fraction(0.999_9), "99.9%");
        assert_eq!(fraction(1.0), "100.0%");
        assert_eq!(fraction(0.29), "29.0%");
        assert_eq!(fraction(0.0), "0.0%");
        assert_eq!(percent(f64::NAN), "?%");
    }

    #[test]
    fn markup_is_neutralised() {
        assert_eq!(
            escape_html("</script><script>alert(1)</script>"),
            "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;"
        );
        assert_eq!(
            escape_html("<img src=x onerror=alert(1)>.py"),
            "&lt;img src=x onerror=alert(1)&gt;.py"
        );
        assert_eq!(
            escape_html(r#"a="b" & 'c'"#),
            "a=&quot;b&quot; &amp; &#39;c&#39;"
        );
        assert_eq!(escape_html("plain ünïcode"), "plain ünïcode");
        assert_eq!(escape_html(""), "");
    }

    /// The naive definition: one character at a time.
    fn naive(text: &str) -> String {
        text.chars()
            .map(|c| match c {
                '&' => "&amp;".to_string(),
                '<' => "&lt;".to_string(),
                '>' => "&gt;".to_string(),
                '"' => "&quot;".to_string(),
                '\'' => "&#39;".to_string(),
                c => c.to_string(),
            })
            .collect()
    }

    /// Undoes the escaping, to check nothing else changed.
    fn unescape(text: &str) -> String {
        text.replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&quot;", "\"")
            .replace("&#39;", "'")
            .replace("&amp;", "&")
    }

    proptest! {
        #[test]
        fn content_escaping_leaves_no_markup(text in ".{0,80}") {
            let mut escaped = String::new();
            escape_text_into(&mut escaped, &text);
            prop_assert!(!escaped.contains(['<', '>']));
            prop_assert_eq!(unescape(&escaped), text);
        }

        #[test]
        fn matches_naive_and_leaves_no_markup(text in ".{0,80}") {
            let escaped = escape_html(&text);
            prop_assert_eq!(&escaped, &naive(&text));
            prop_assert!(!escaped.contains(['<', '>', '"', '\'']));
            prop_assert_eq!(unescape(&escaped), text);
        }
    }
}
