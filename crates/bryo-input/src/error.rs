use std::io;
use std::path::PathBuf;

/// A problem with a path the user named: discovery stops and reports it.
///
/// Problems with files found *inside* a named directory or archive never stop
/// discovery; they end up in [`crate::Inputs::skipped`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum InputError {
    /// A root, base path, old root or listed file does not exist.
    #[error("{}: no such file or directory", .path.display())]
    NotFound {
        /// The path as given.
        path: PathBuf,
    },
    /// A named path exists but cannot be read.
    #[error("{}: cannot read: {source}", .path.display())]
    Unreadable {
        /// The path as given.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
    /// A named zip archive cannot be opened as one.
    #[error("{}: not a readable zip archive: {message}", .path.display())]
    Archive {
        /// The path as given.
        path: PathBuf,
        /// What the zip reader reported.
        message: String,
    },
    /// An include or exclude pattern is not a valid glob.
    #[error("invalid glob {pattern:?}: {message}")]
    Glob {
        /// The pattern as given.
        pattern: String,
        /// What is wrong with it.
        message: String,
    },
}
