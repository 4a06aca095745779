//! # bryo-input: what to compare
//!
//! Turns what the user named — files, directories, zip archives, a file list
//! — into [`Submission`]s of [`InputFile`]s held in memory, plus base code
//! and a list of [`SkippedInput`] files with the reason each was left out.
//!
//! - Without directory mode every file is a submission, including each
//!   entry of a zip archive. With it (MOSS `-d`) every entry directly under
//!   a root is one: a directory with every file below it, a zip archive with
//!   every file in it, or a file on its own. A zip archive named as a root
//!   is a root, like a directory: each entry at its top is a submission. A
//!   file named directly joins the submission of its parent directory, so
//!   `-d subs/*/*.py` groups like MOSS does.
//! - Directories are walked with the `ignore` crate: `.gitignore` and
//!   `.ignore` rules hold, hidden files are left out, order is sorted.
//! - Zip archives, named or found in a directory (one per student, as course
//!   sites hand them out), are read into memory with limits per file, per
//!   archive and on the number of entries; entry names that leave the
//!   archive are refused, and a zip inside a zip is not read.
//! - Include and exclude globs filter every file. The extension list (the
//!   language's extensions) filters only files found in a directory or
//!   archive: a file with another extension is listed as skipped, a file
//!   without one (a script) is kept, and a file the user named is never
//!   dropped for its extension.
//! - Base paths give base code; old roots give submissions marked old.
//!
//! Only a named path that is missing or unreadable, an archive that cannot
//! be opened, or a bad glob is an [`InputError`]; every other problem is a
//! [`SkippedInput`] entry, never a silent omission and never a panic.
//!
//! ```
//! use bryo_input::{discover, InputOptions};
//!
//! let dir = std::env::temp_dir().join(format!("bryo-input-doc-{}", std::process::id()));
//! std::fs::create_dir_all(dir.join("alice"))?;
//! std::fs::create_dir_all(dir.join("bob"))?;
//! std::fs::write(dir.join("alice/main.py"), "print('hi')\n")?;
//! std::fs::write(dir.join("alice/util.py"), "x = 1\n")?;
//! std::fs::write(dir.join("bob/main.py"), "print('hello')\n")?;
//! std::fs::write(dir.join("bob/notes.txt"), "todo\n")?;
//!
//! let inputs = discover(&InputOptions {
//!     roots: vec![dir.clone()],
//!     directory_mode: true,
//!     include: vec!["*.py".into()],
//!     ..InputOptions::default()
//! })?;
//! let names: Vec<_> = inputs.submissions.iter().map(|s| s.files.len()).collect();
//! assert_eq!(names, [2, 1]);
//! assert!(inputs.submissions[0].name.ends_with("/alice"));
//! assert!(inputs.submissions[1].files[0].display_path.ends_with("/bob/main.py"));
//! std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod discover;
mod error;
mod filter;
mod listing;
mod model;
mod options;

pub use discover::discover;
pub use error::InputError;
pub use listing::{list_files, ListedFile, Listing};
pub use model::{InputFile, Inputs, SkipReason, SkippedInput, Source, Submission};
pub use options::{
    parse_file_list, InputOptions, DEFAULT_MAX_ARCHIVE_ENTRIES, DEFAULT_MAX_ARCHIVE_SIZE,
    DEFAULT_MAX_FILE_SIZE,
};
