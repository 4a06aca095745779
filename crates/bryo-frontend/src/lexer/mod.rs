//! Table-driven source-code lexers: one engine (`engine`), per-language
//! data (`langs`), described by the types in `spec`.

mod engine;
pub(crate) mod langs;
mod spec;

pub use engine::{LexMode, LexNote, LexNoteKind, Lexed, Lexer};
pub(crate) use spec::LexSpec;
