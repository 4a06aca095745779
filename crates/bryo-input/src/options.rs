use std::path::PathBuf;

/// Default [`InputOptions::max_file_size`]: 4 MiB.
pub const DEFAULT_MAX_FILE_SIZE: u64 = 4 << 20;
/// Default [`InputOptions::max_archive_size`]: 512 MiB.
pub const DEFAULT_MAX_ARCHIVE_SIZE: u64 = 512 << 20;
/// Default [`InputOptions::max_archive_entries`]: 100,000.
pub const DEFAULT_MAX_ARCHIVE_ENTRIES: usize = 100_000;

/// What to discover and how to group it. Build it with
/// `InputOptions { roots, ..InputOptions::default() }`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputOptions {
    /// Files, directories and `.zip` archives holding the new submissions.
    /// A `.zip` file found while walking a directory is read as an archive
    /// too; a `.zip` inside an archive is not (it is listed as skipped).
    pub roots: Vec<PathBuf>,
    /// More paths, e.g. read from a `--files-from` list with
    /// [`parse_file_list`]; treated exactly like `roots`, after them.
    pub files_from: Vec<PathBuf>,
    /// Glob patterns a file must match (any of them) to be taken; empty
    /// takes every file.
    ///
    /// A pattern without `/` matches the file name (`*.py`, `test_*`); a
    /// pattern with `/` matches the path below the root (`src/**/*.c`;
    /// `**/` at the front matches at any depth). For a file named directly,
    /// the path is the one given.
    pub include: Vec<String>,
    /// Glob patterns that leave a file out, matched like `include`; they win
    /// over `include`.
    pub exclude: Vec<String>,
    /// File name extensions to keep (without the dot, compared ignoring ASCII
    /// case), e.g. the extensions of the language given with `-l`; empty
    /// keeps every extension.
    ///
    /// Only files found by walking a directory or reading a zip archive are
    /// filtered: one without any extension (`Makefile`, a script with a
    /// shebang) is kept, one with another extension is left out and listed
    /// as [`crate::SkipReason::OtherExtension`]. Files named in `roots` or
    /// `files_from` are never filtered by extension: the user chose them.
    pub extensions: Vec<String>,
    /// MOSS `-d`: each entry directly under a root is one submission — a
    /// directory with every file below it, a `.zip` archive with every file
    /// in it (named after the archive, e.g. `subs/alice.zip`), a file on its
    /// own. A zip archive named as a root is a root like a directory: each
    /// entry at its top is a submission. A file named directly belongs to
    /// the submission of its parent directory. Without it every file,
    /// including each archive entry, is its own submission.
    pub directory_mode: bool,
    /// Base code: files, directories or archives. Their files are never
    /// submissions, even when they also sit under a root.
    pub base: Vec<PathBuf>,
    /// Roots of submissions from earlier terms, grouped like `roots` and
    /// marked old.
    pub old: Vec<PathBuf>,
    /// Files bigger than this many bytes are skipped.
    pub max_file_size: u64,
    /// Entries of one zip archive (each archive has its own budget) are
    /// read until their total passes this
    /// many bytes; the rest are skipped (a guard against zip bombs).
    pub max_archive_size: u64,
    /// A zip archive with more entries than this is refused: an error for an
    /// archive named directly, a skipped file for one found in a directory.
    pub max_archive_entries: usize,
    /// Files on disk under `roots`, `files_from` and `old` are listed but
    /// not read: their [`crate::InputFile::bytes`] stay empty, the size
    /// limit is checked on their metadata, and the caller reads them when
    /// it needs them ([`crate::InputFile::read`]), e.g. a run that streams
    /// a corpus larger than memory. Base code and zip archive entries are
    /// read as usual.
    pub defer_reading: bool,
}

impl Default for InputOptions {
    fn default() -> Self {
        InputOptions {
            roots: Vec::new(),
            files_from: Vec::new(),
            include: Vec::new(),
            exclude: Vec::new(),
            extensions: Vec::new(),
            directory_mode: false,
            base: Vec::new(),
            old: Vec::new(),
            max_file_size: DEFAULT_MAX_FILE_SIZE,
            max_archive_size: DEFAULT_MAX_ARCHIVE_SIZE,
            max_archive_entries: DEFAULT_MAX_ARCHIVE_ENTRIES,
            defer_reading: false,
        }
    }
}

/// Parses a file list (`--files-from`): one path per line; a trailing `\r`
/// is removed and empty lines are ignored. Other whitespace is kept, as file
/// names may contain it.
pub fn parse_file_list(text: &str) -> Vec<PathBuf> {
    text.lines()
        .map(|line| line.strip_suffix('\r').unwrap_or(line))
        .filter(|line| !line.is_empty())
        .map(PathBuf::from)
        .collect()
}
