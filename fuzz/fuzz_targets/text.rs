//! The text front-end on arbitrary input: no panics, and spans that are
//! non-empty, increasing, inside the input and re-normalize to their symbol.
#![no_main]

use bryo_frontend::{decode, normalize_text, TextMode};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(d) = decode(data) else { return };
    let text = d.text();
    for mode in [TextMode::Chars, TextMode::Words] {
        let n = normalize_text(text, mode);
        assert_eq!(n.symbols.len(), n.spans.len());
        let mut prev = 0;
        for (&sym, &span) in n.symbols.iter().zip(&n.spans) {
            assert!(span.start < span.end && span.start >= prev);
            assert!(span.end as usize <= text.len());
            prev = span.end;
            assert_eq!(normalize_text(&text[span.range()], mode).symbols, [sym]);
        }
    }
});
