//! # bryo-frontend: from file bytes to normalized symbol streams
//!
//! Each document format has a front-end that removes what should not
//! distinguish documents and produces the standard stream the engine
//! fingerprints (Schleimer, Wilkerson & Aiken, SIGMOD 2003, §2.1 and §5.2):
//! a [`Normalized`] sequence of `u64` symbols, each with the [`Span`] of text
//! it came from, so every fingerprint maps back to exact lines and columns.
#![deny(missing_docs)]
#![deny(unsafe_code)]

mod decode;
mod html;
mod lines;
mod normalization;
mod normalized;
mod packed;
mod simd;
mod symbol;
mod text;

pub use decode::{decode, DecodeError, Decoded, TextEncoding};
pub use html::{html_to_text, normalize_html, normalize_html_into};
pub use lines::LineIndex;
pub use normalization::{Normalization, UnknownNormalization};
pub use normalized::{Normalized, Span};
pub use packed::{PackedSpans, PackedStream};
pub use symbol::{symbol, SymbolClass, SYMBOL_SCHEME_VERSION};

mod lang;
mod lexer;

pub use lang::{FrontendKind, Language};
pub use lexer::{LexNote, LexNoteKind, Lexed, Lexer};
pub use text::{normalize_text, normalize_text_into, TextMode};
