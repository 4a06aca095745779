//! The crate's one error type.

use std::path::PathBuf;

/// Why an index operation failed. Every message names the index, segment or
/// document concerned.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum IndexError {
    /// `create` on a directory that already holds an index.
    #[error("{}: an index already exists here", .0.display())]
    Exists(PathBuf),
    /// `open` on a directory without an index.
    #[error("{}: not a bryo index (no catalog.sqlite; create one with `bryo index create`)", .0.display())]
    NotAnIndex(PathBuf),
    /// The index was made by another version of the format, or under
    /// options or scheme versions other than the ones asked for.
    #[error("{dir}: index made with {what} {stored}, but {wanted} is asked for (make a new index, or query with the index's options)", dir = .dir.display())]
    Mismatch {
        /// The index directory.
        dir: PathBuf,
        /// What differs, e.g. `hash scheme version`, `k`.
        what: &'static str,
        /// The value the index was made with.
        stored: String,
        /// The value asked for.
        wanted: String,
    },
    /// A segment file is missing, truncated or altered: its size or
    /// checksum is not the one recorded in the catalogue, or it does not
    /// parse.
    #[error("{}: corrupted segment: {reason} (restore the index from a backup, or remove and re-add the terms)", path.display())]
    CorruptSegment {
        /// The segment file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// A stored document's data does not decode.
    #[error("{path}: corrupted document data in the catalogue: {reason}")]
    CorruptDocument {
        /// The document's display path.
        path: String,
        /// What is wrong with it.
        reason: String,
    },
    /// Invalid settings (`k`, `w`, an unknown language or normalization).
    #[error("invalid index settings: {0}")]
    Settings(String),
    /// The catalogue database failed.
    #[error("{}: catalogue: {source}", dir.display())]
    Catalog {
        /// The index directory.
        dir: PathBuf,
        /// The SQLite error.
        source: rusqlite::Error,
    },
    /// Reading or writing a file failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// Too many documents for 32-bit document ids.
    #[error("the index is full: document ids are 32-bit")]
    Full,
    /// Prepared documents that cannot be committed together (a path given
    /// twice, a document without a path or submission name).
    #[error("invalid prepared documents: {0}")]
    Prepared(String),
    /// Nothing matched a removal.
    #[error("nothing to remove: {0}")]
    NothingToRemove(String),
    /// Discovery of the files to add failed.
    #[error(transparent)]
    Input(#[from] bryo_input::InputError),
}

/// Shorthand for this crate's results.
pub type Result<T> = std::result::Result<T, IndexError>;
