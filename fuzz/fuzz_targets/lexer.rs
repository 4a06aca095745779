//! Every source-code lexer on arbitrary input: no panic, no hang, and the
//! output keeps its invariants (spans inside the text, strictly increasing,
//! never empty, on character boundaries; both modes tokenize alike).
#![no_main]

use bryo_frontend::{FrontendKind, Language, Normalization};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    let code: Vec<&'static Language> = Language::all()
        .iter()
        .filter(|l| l.frontend() == FrontendKind::Code)
        .collect();
    let Some(lexer) = code[pick as usize % code.len()].lexer() else {
        return;
    };
    let out = lexer.lex(&text, Normalization::Full);
    let n = &out.normalized;
    assert_eq!(n.symbols.len(), n.spans.len());
    let mut prev = 0;
    for span in &n.spans {
        assert!(span.start < span.end && span.start >= prev);
        assert!(span.end as usize <= text.len());
        assert!(text.is_char_boundary(span.start as usize));
        assert!(text.is_char_boundary(span.end as usize));
        prev = span.end;
    }
    let verbatim = lexer.lex(&text, Normalization::Verbatim);
    assert_eq!(verbatim.normalized.spans, n.spans);
    assert_eq!(verbatim.notes, out.notes);
});
