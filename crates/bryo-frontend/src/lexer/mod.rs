//! Table-driven source-code lexers: one engine (`engine.rs`) and
//! per-language data (`langs.rs`), described by the types in `spec.rs`.
//!
//! Normalization follows MOSS: comments and whitespace are dropped; every
//! identifier becomes the same symbol (MOSS: "replace all parameters with a
//! single constant"); string, character and number literals become the
//! symbol of their kind; keywords and operators keep their text (keywords
//! lower-cased in case-insensitive languages): [`Normalization::Full`].
//! [`Normalization::Verbatim`] keeps identifiers' and literals' text
//! instead; [`Normalization::KeepStrings`] keeps only the text of string
//! and character literals.
//!
//! [`Normalization::Full`]: crate::Normalization::Full
//! [`Normalization::Verbatim`]: crate::Normalization::Verbatim
//! [`Normalization::KeepStrings`]: crate::Normalization::KeepStrings
//!
//! What the engine understands, as data per language: identifier bytes
//! (Lisp's `-?!*`, sigils `$ @ %`), keywords, operators by longest match or
//! as runs of symbol characters (Haskell, ML, Scala, Swift, Prolog),
//! numbers (hex/octal/binary, fractions, exponents, `_`, suffixes, Ada's
//! `16#FF#`, Verilog's `8'hFF`), quoted literals with backslash or doubled
//! delimiters, multi-line and triple-quoted forms, prefixes (`b"…"`,
//! `f'…'`, `L"…"`), Rust and C++ raw strings, C# verbatim strings,
//! interpolation with nesting (`${…}`, `#{…}`, `\(…)`, `{…}`, `$(…)`),
//! character literals versus Rust lifetimes and ML type variables, line and
//! block comments, nested block comments, first-column comments (Fortran,
//! SPICE), Perl POD and Ruby `=begin`, BASIC `REM`, MATLAB's transpose.
//!
//! Not understood (lexed as ordinary tokens, deterministically): regular
//! expression literals (JavaScript, Perl, Ruby), here-documents (Bash,
//! Perl, Ruby, PHP), Perl's `q{}`/`qw()` and Ruby's `%w[]` quoting,
//! Python 3.12 f-strings that reuse their own quote inside `{…}`,
//! Fortran fixed-form column rules beyond first-column comments.

mod engine;
pub(crate) mod langs;
mod spec;

pub use engine::{LexNote, LexNoteKind, Lexed, Lexer};
pub(crate) use spec::LexSpec;
