//! Every tree-sitter front-end on arbitrary input: no panic, no hang, and
//! either a fallback with a reason or a stream that keeps its invariants
//! (spans non-empty, inside the text, strictly increasing).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let languages = bryo_treesitter::languages();
    let language = &languages[pick as usize % languages.len()];
    let mut options = bryo_treesitter::Options::default();
    options.timeout = None;
    match language.normalize(rest, &options) {
        Err(reason) => assert!(!reason.to_string().is_empty()),
        Ok(parsed) => {
            let n = &parsed.normalized;
            assert_eq!(n.symbols.len(), n.spans.len());
            let mut prev = 0;
            for span in &n.spans {
                assert!(span.start < span.end && span.start >= prev);
                assert!(span.end as usize <= rest.len());
                prev = span.end;
            }
        }
    }
});
