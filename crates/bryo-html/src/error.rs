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

/// Why a [`SourceLoader`](crate::SourceLoader) cannot give a file's bytes.
/// Its `Display` is the note shown in the file's place; the rest of the
/// report is still written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LoadError {
    /// The file could not be read ([`DiskLoader`](crate::DiskLoader));
    /// `source.kind()` is `NotFound` for a missing file.
    #[error("cannot read {}: {source}", path.display())]
    Io {
        /// The path read (the loader's root joined with the display path).
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The path runs through a zip archive, whose members only
    /// `bryo compare` itself can read ([`DiskLoader`](crate::DiskLoader)).
    #[error(
        "the file is inside a zip archive; render the report with `bryo compare --format html` to show it"
    )]
    InsideZip,
    /// The result does not list this path
    /// ([`CheckedLoader`](crate::CheckedLoader)).
    #[error("the result lists no such file")]
    NotListed,
    /// The file's bytes no longer have the Rabin fingerprint the result
    /// recorded ([`CheckedLoader`](crate::CheckedLoader)).
    #[error(
        "the file changed since the run: its bytes have Rabin fingerprint {actual}, \
         the result recorded {recorded}, so its text is not shown"
    )]
    Changed {
        /// The fingerprint of the bytes read, 16 lower-case hex digits.
        actual: String,
        /// The fingerprint the result recorded, lower-case.
        recorded: String,
    },
    /// The result records no fingerprint for the file (an older bryo) and
    /// names it by an absolute path or one with `..`, outside the root
    /// ([`CheckedLoader`](crate::CheckedLoader)).
    #[error(
        "the result records no fingerprint for this file and names it by an absolute path \
         or one with `..`, so it is not read (a result from an older bryo: run `bryo compare` again)"
    )]
    OutsideRoot,
    /// Another loader's reason, as it gave it (a closure's `Err(String)`).
    #[error("{0}")]
    Other(String),
}

impl From<String> for LoadError {
    fn from(reason: String) -> Self {
        LoadError::Other(reason)
    }
}

impl From<&str> for LoadError {
    fn from(reason: &str) -> Self {
        LoadError::Other(reason.to_string())
    }
}
