use std::fmt;
use std::path::PathBuf;

/// Everything discovered: submissions to compare, base code, and the files
/// that were left out with the reason.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Inputs {
    /// New submissions in the order their roots were given, then old ones.
    pub submissions: Vec<Submission>,
    /// Base-code files: sanctioned code whose matches are not counted.
    pub base: Vec<InputFile>,
    /// Files (and submission directories) left out, with the reason.
    pub skipped: Vec<SkippedInput>,
}

/// One submission: a single file, or with directory mode all files below one
/// directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Submission {
    /// Display name: the file or directory path as given, e.g. `subs/alice`
    /// or `subs.zip/alice`.
    pub name: String,
    /// Whether it comes from an `old` root (an earlier term).
    pub old: bool,
    /// Its files, sorted by display path; never empty.
    pub files: Vec<InputFile>,
}

/// One file's contents and where they came from.
#[derive(Clone, PartialEq, Eq)]
pub struct InputFile {
    /// Display path, `/`-separated: the root as given joined with the path
    /// below it, e.g. `subs/alice/main.py` or `subs.zip/alice/main.py`.
    pub display_path: String,
    /// The file's bytes, undecoded.
    pub bytes: Vec<u8>,
    /// Where the bytes were read from.
    pub source: Source,
    /// For a file on disk whose reading was deferred, its size when it was
    /// discovered: what a run totals before reading, and the room the
    /// read reserves (the read itself still stops one byte past its limit
    /// and takes the file as it is then). `None` otherwise.
    pub size_hint: Option<u64>,
}

impl InputFile {
    /// The file's bytes: those held, or for a file on disk discovered with
    /// [`crate::InputOptions::defer_reading`] (held bytes empty), read now,
    /// at most `limit` of them. A file that is now bigger than `limit`, or
    /// cannot be read, gives the reason to skip it.
    pub fn read(&self, limit: u64) -> Result<std::borrow::Cow<'_, [u8]>, SkipReason> {
        use std::io::Read;
        let path = match &self.source {
            Source::File(path) if self.bytes.is_empty() => path,
            _ => return Ok(std::borrow::Cow::Borrowed(&self.bytes)),
        };
        let unreadable = |e: std::io::Error| SkipReason::Unreadable {
            message: e.to_string(),
        };
        let file = std::fs::File::open(path).map_err(unreadable)?;
        // Sized from discovery's look at the file, or from its metadata: no
        // growth slack.
        let size = match self.size_hint {
            Some(size) => size,
            None => file.metadata().map_err(unreadable)?.len(),
        };
        let mut bytes = Vec::with_capacity(size.min(limit) as usize);
        file.take(limit.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(unreadable)?;
        if bytes.len() as u64 > limit {
            return Err(SkipReason::TooLarge {
                size: bytes.len() as u64,
                limit,
            });
        }
        Ok(std::borrow::Cow::Owned(bytes))
    }
}

impl fmt::Debug for InputFile {
    // The bytes are summarised: a debug print of a batch must stay readable.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InputFile")
            .field("display_path", &self.display_path)
            .field("bytes", &format_args!("[{} bytes]", self.bytes.len()))
            .field("source", &self.source)
            .field("size_hint", &self.size_hint)
            .finish()
    }
}

/// Where a file's bytes were read from.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Source {
    /// A file on disk.
    File(PathBuf),
    /// An entry of a zip archive on disk.
    ArchiveEntry {
        /// The archive.
        archive: PathBuf,
        /// The entry's name inside it, `/`-separated.
        entry: String,
    },
    /// Bytes handed over in memory by the caller (e.g. a row of a record
    /// batch in a cluster job); the display path is the caller's name.
    Memory,
}

/// A file or submission directory that discovery left out, before any
/// decoding. (`bryo_report::Skipped` is the report's entry, which also
/// records the files a front-end could not take.)
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkippedInput {
    /// Its display path.
    pub path: String,
    /// Why.
    pub reason: SkipReason,
}

/// Why something was left out. `Display` gives a short lowercase phrase for
/// reports, e.g. `larger than the 4 MiB limit (5.2 MiB)`.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SkipReason {
    /// Bigger than [`crate::InputOptions::max_file_size`].
    TooLarge {
        /// Its size in bytes (for an archive entry, as far as it was read).
        size: u64,
        /// The limit in bytes.
        limit: u64,
    },
    /// Reading it failed.
    Unreadable {
        /// The error message.
        message: String,
    },
    /// A symbolic link; links are not followed.
    Symlink,
    /// Not a regular file (a socket, a device, …).
    NotAFile,
    /// An archive entry whose name is absolute or climbs out with `..`.
    UnsafeArchivePath,
    /// The archive's contents passed
    /// [`crate::InputOptions::max_archive_size`]; this entry was not read.
    ArchiveLimit {
        /// The limit in bytes.
        limit: u64,
    },
    /// The same file was already taken, by the submission or base file named.
    Duplicate {
        /// Display path under which it was first taken.
        first: String,
    },
    /// A file named explicitly (a root or a `files_from` line) that the
    /// include or exclude globs reject. The extension list never rejects a
    /// file named explicitly.
    Filtered,
    /// A file found in a directory or archive whose extension is not in
    /// [`crate::InputOptions::extensions`] (e.g. a `.md` file next to the
    /// `.py` files when comparing Python).
    OtherExtension {
        /// The extension as written in the file name, without the dot.
        extension: String,
    },
    /// A `.zip` file inside a zip archive: archives are read one level deep.
    NestedArchive,
    /// A `.zip` file found in a directory that cannot be read as a zip
    /// archive, or that has more than
    /// [`crate::InputOptions::max_archive_entries`] entries. (The same
    /// problem with an archive named directly is an
    /// [`crate::InputError::Archive`].)
    BadArchive {
        /// What is wrong with it.
        message: String,
    },
    /// With directory mode, a directory under a root with no file left to
    /// compare after filtering.
    NoFiles,
}

impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SkipReason::TooLarge { size, limit } => write!(
                f,
                "larger than the {} limit ({})",
                human_size(*limit),
                human_size(*size)
            ),
            SkipReason::Unreadable { message } => write!(f, "cannot read: {message}"),
            SkipReason::Symlink => f.write_str("symbolic link (links are not followed)"),
            SkipReason::NotAFile => f.write_str("not a regular file"),
            SkipReason::UnsafeArchivePath => {
                f.write_str("archive entry with an absolute or ../ path")
            }
            SkipReason::ArchiveLimit { limit } => write!(
                f,
                "archive contents exceed the {} limit; entry not read",
                human_size(*limit)
            ),
            SkipReason::Duplicate { first } => write!(f, "same file as {first}"),
            SkipReason::Filtered => f.write_str("excluded by the file filters"),
            SkipReason::NoFiles => f.write_str("no files to compare in this submission"),
            SkipReason::OtherExtension { extension } => {
                write!(
                    f,
                    "extension .{extension} is not one of the language's (-l)"
                )
            }
            SkipReason::NestedArchive => f.write_str("zip inside a zip archive is not read"),
            SkipReason::BadArchive { message } => {
                write!(f, "not a readable zip archive: {message}")
            }
        }
    }
}

/// `512 B`, `3.5 KiB`, `4 MiB`, `1.2 GiB`.
fn human_size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    let text = format!("{value:.1}");
    let text = text.strip_suffix(".0").unwrap_or(&text);
    format!("{text} {}", UNITS[unit])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_naturally() {
        assert_eq!(human_size(512), "512 B");
        assert_eq!(human_size(4 << 20), "4 MiB");
        assert_eq!(human_size(3584), "3.5 KiB");
        assert_eq!(
            SkipReason::TooLarge {
                size: 5 << 20,
                limit: 4 << 20
            }
            .to_string(),
            "larger than the 4 MiB limit (5 MiB)"
        );
        let other = SkipReason::OtherExtension {
            extension: "md".into(),
        };
        assert_eq!(
            other.to_string(),
            "extension .md is not one of the language's (-l)"
        );
    }
}
