use std::path::PathBuf;

/// Why the report could not be written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HtmlError {
    /// The output directory could not be created.
    #[error("cannot create the report directory {}: {source}", path.display())]
    CreateDir {
        /// The directory.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A file of the report could not be written.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A file of an earlier report in the output directory could not be
    /// listed or removed.
    #[error("cannot remove the earlier report's {}: {source}", path.display())]
    Remove {
        /// The file or directory.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
}
