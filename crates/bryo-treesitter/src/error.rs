use std::time::Duration;

/// Why a file got no tree-sitter symbol stream. The caller is expected to
/// use the lexer front-end instead and to record this reason with the file
/// (its `Display` text is written for users; [`Fallback::code`] is a short
/// stable tag for machine-readable reports).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Fallback {
    /// This build has no grammar for the language (unknown name, or its
    /// cargo feature is off).
    #[error("no tree-sitter grammar for language `{0}` in this build")]
    UnknownLanguage(String),
    /// The text is longer than [`Options::max_bytes`](crate::Options::max_bytes).
    #[error("file is {bytes} bytes, over the tree-sitter limit of {limit} bytes")]
    TooLarge {
        /// Length of the text.
        bytes: usize,
        /// The limit in force.
        limit: usize,
    },
    /// Syntax errors cover more of the text than
    /// [`Options::max_error_share`](crate::Options::max_error_share) allows.
    #[error(
        "syntax errors cover {error_bytes} of {total_bytes} bytes \
         ({error_nodes} error and {missing_nodes} missing nodes), \
         over the limit of {max_share}"
    )]
    TooManyErrors {
        /// Bytes of stray tokens (see [`TreeStats::error_bytes`](crate::TreeStats::error_bytes))
        /// plus one per missing node.
        error_bytes: usize,
        /// Length of the text.
        total_bytes: usize,
        /// Number of `ERROR` nodes, nested ones included.
        error_nodes: u32,
        /// Number of nodes the parser inserted to recover (`MISSING`).
        missing_nodes: u32,
        /// The share in force.
        max_share: f64,
    },
    /// The parse ran longer than [`Options::timeout`](crate::Options::timeout).
    #[error("parse did not finish within {} ms", .0.as_millis())]
    TimedOut(Duration),
    /// The grammar could not be loaded into the parser (its ABI version is
    /// not one this tree-sitter library supports).
    #[error("tree-sitter cannot load the grammar: {0}")]
    Grammar(String),
    /// The parser returned no tree for another reason.
    #[error("tree-sitter returned no syntax tree")]
    NoTree,
    /// The options are out of range.
    #[error("invalid tree-sitter options: {0}")]
    InvalidOptions(&'static str),
}

impl Fallback {
    /// A short stable tag for the reason: `unknown-language`, `too-large`,
    /// `too-many-errors`, `timeout`, `grammar`, `no-tree` or
    /// `invalid-options`.
    pub fn code(&self) -> &'static str {
        match self {
            Fallback::UnknownLanguage(_) => "unknown-language",
            Fallback::TooLarge { .. } => "too-large",
            Fallback::TooManyErrors { .. } => "too-many-errors",
            Fallback::TimedOut(_) => "timeout",
            Fallback::Grammar(_) => "grammar",
            Fallback::NoTree => "no-tree",
            Fallback::InvalidOptions(_) => "invalid-options",
        }
    }
}
