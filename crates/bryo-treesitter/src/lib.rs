//! # bryo-treesitter: symbol streams from syntax trees
//!
//! The tree-sitter front-ends of bryo. Like the lexers of `bryo-frontend`,
//! each turns the text of one file into a [`Normalized`] stream — one `u64`
//! symbol per token with the byte [`Span`](bryo_frontend::Span) it came
//! from — but reads the tokens off a full syntax tree, for the languages
//! whose grammar this build includes (one cargo feature each, all on by
//! default): `c`, `cpp`, `java`, `python`, `javascript`, `typescript`,
//! `csharp`, `go`, `rust`.
//!
//! ## Normalization
//!
//! The walk visits the tree's leaves in text order, with a `TreeCursor`
//! loop (no recursion: deeply nested code costs heap, not stack):
//!
//! - identifiers (`identifier`, `field_identifier`, `type_identifier`, …,
//!   listed per language) become `symbol(Identifier, b"")`, all the same;
//! - string, character and number literals become one symbol of their
//!   class for the whole literal node (the walk does not descend into a
//!   string, so interpolations and escapes are part of it);
//! - free-form leaves (C macro bodies, JSX text) become one `OtherLiteral`;
//! - comments, line continuations and shebang lines are dropped;
//! - every other leaf is a keyword if spelled like a word (`while`, `int`,
//!   `self`), otherwise an operator (`+=`, `{`, `#include`), verbatim.
//!
//! That is [`Normalization::Full`], the default of [`Options`]. With
//! [`Options::normalization`] set to [`Normalization::Verbatim`],
//! identifiers and literals hash their text instead; with
//! [`Normalization::KeepStrings`], string and character literals do. Symbols depend only on node-kind *names* and token text, never
//! on a grammar's internal kind ids.
//!
//! ## Fallback, never silent
//!
//! A front-end run ends in a [`Fallback`] instead of a stream when the text
//! is over [`Options::max_bytes`] (default 1 MiB), when stray tokens the
//! parser could not fit into any construct cover more than
//! [`Options::max_error_share`] of it (default 10%; see
//! [`TreeStats::error_bytes`]), or when parsing outlives its share of
//! [`Options::timeout`] ([`parse_limit`]; by default 1 s plus 10 s per
//! MiB). The caller then uses the lexer and
//! records the reason. Parsers are created once per thread and language,
//! not per file.
//!
//! ## Example
//!
//! ```
//! use bryo_treesitter::{normalize, Options, TsLanguage};
//!
//! # #[cfg(feature = "python")] {
//! let a = b"def area(r):\n    return 3.14 * r * r  # circle\n";
//! let b = b"def f(x):\n  return 3 * x * x\n";
//! let options = Options::default();
//! let sa = normalize("python", a, &options).unwrap();
//! let sb = normalize("py", b, &options).unwrap();
//! // Renamed identifiers, other literals, other layout, no comment: same stream.
//! assert_eq!(sa.symbols, sb.symbols);
//! // `def`, `area`, `(`, `r`, `)`, `:`, `return`, `3.14`, `*`, `r`, `*`, `r`
//! assert_eq!(sa.len(), 12);
//! assert_eq!(&a[sa.spans[1].range()], b"area");
//!
//! // Too big for the options: the caller falls back to the lexer.
//! let mut small = Options::default();
//! small.max_bytes = 10;
//! let python = TsLanguage::by_name("python").unwrap();
//! let reason = python.normalize(a, &small).unwrap_err();
//! assert_eq!(reason.code(), "too-large");
//! # }
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod chain;
mod dead;
mod error;
mod flat;
mod forms;
mod frontend;
mod inline;
#[cfg(test)]
mod insertion;
mod languages;
mod order;
mod shape;
mod walk;

pub use bryo_frontend::{Normalization, Normalized};
pub use error::Fallback;
pub use frontend::{normalize, parse_limit, parse_stack, Options, Parsed};
pub use languages::{languages, TsLanguage};
pub use tree_sitter;
pub use walk::TreeStats;

/// The passes' maps and sets, keyed by names and node indices of one file:
/// foldhash instead of the standard library's SipHash, which was 2 % of a
/// normalized Java run. Seeded per process, so crafted names cannot
/// choose their collisions in advance.
pub(crate) type HashMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;
/// See [`HashMap`].
pub(crate) type HashSet<T> = std::collections::HashSet<T, foldhash::fast::RandomState>;

/// What the property tests share.
#[cfg(test)]
pub(crate) mod test_support {
    use std::time::Duration;

    use crate::{Fallback, Normalized, Options, TsLanguage};

    /// The `Options::timeout` a property test gives tree-sitter for one
    /// random text (of which a 300-character text gets about a tenth,
    /// `parse_limit`). Its error recovery takes seconds on a few such texts
    /// (one took over 10 s in Java), where production falls back to the
    /// lexer; a case that fails on that fallback would be shrunk one slow
    /// parse at a time.
    pub(crate) const PARSE_LIMIT: Duration = Duration::from_secs(2);

    /// `language`'s stream of a random `text` under `options`, or `None`
    /// when the parse passes [`PARSE_LIMIT`] (the caller rejects the case
    /// with `prop_assume!`). Any other fallback panics.
    pub(crate) fn normalize_random(
        language: &TsLanguage,
        text: &[u8],
        options: &Options,
    ) -> Option<Normalized> {
        let options = Options {
            timeout: Some(PARSE_LIMIT),
            ..options.clone()
        };
        match language.normalize(text, &options) {
            Ok(parsed) => Some(parsed.normalized),
            Err(Fallback::TimedOut(_)) => None,
            Err(other) => panic!("{}: {other}", language.name()),
        }
    }

    /// The symbols of `src` in `lang` under `options`.
    pub(crate) fn symbols(lang: &str, src: &str, options: &Options) -> Vec<u64> {
        TsLanguage::by_name(lang)
            .unwrap()
            .normalize(src.as_bytes(), options)
            .unwrap()
            .normalized
            .symbols
    }

    /// Every form of `forms`, put in `frame` at `$`, gives the symbols of
    /// the first under `options`.
    pub(crate) fn one_form(lang: &str, frame: &str, forms: &[&str], options: &Options) {
        let first = symbols(lang, &frame.replace('$', forms[0]), options);
        for form in &forms[1..] {
            assert_eq!(
                symbols(lang, &frame.replace('$', form), options),
                first,
                "{lang}: {form}"
            );
        }
    }
}
