//! # bryo-index: a persistent fingerprint index
//!
//! The winnowing paper (Schleimer, Wilkerson & Aiken, SIGMOD 2003, §3.2)
//! splits copy detection in two: a database of fingerprints built once,
//! and queries against it. This crate is the database: earlier terms (or
//! corpus shards) are analyzed and fingerprinted once by `bryo index add`
//! and compared with new submissions by `bryo compare --against` without
//! reading or analyzing their files again.
//!
//! An index is a directory:
//!
//! ```text
//! DIR/catalog.sqlite      the catalogue (SQLite): the options that shape
//!                         fingerprints and the hash and symbol scheme
//!                         versions (`meta`), submissions with their tag,
//!                         documents, segments with size and checksum
//! DIR/segments/*.parquet  immutable segments: postings (hash, doc, pos)
//!                         sorted by hash, row groups with min/max
//!                         statistics (Parquet, readable by other tools)
//! ```
//!
//! **What is stored of an archived document**: its normalized symbol
//! stream with the span of every symbol (zstd-compressed), and its source
//! bytes as read (zstd-compressed), with the Rabin fingerprints that check
//! both. Fragments are computed from the symbols; lines, byte ranges and
//! the HTML report's text come from the source, decoded again (decoding
//! is deterministic; front-ends are not run again).
//!
//! **Crash safety.** `add`, `commit` and `compact` write a new segment
//! file first (flushed to disk), then switch the catalogue in one SQLite
//! transaction; `remove` is one transaction. A command interrupted at any
//! point leaves the index as it was before it; segment files no catalogue
//! row names are deleted by the next writer. Every segment is checked
//! against the size and checksum the catalogue recorded before it is
//! parsed, and every document's stream and source against their
//! fingerprints, so damage is an error ([`IndexError::CorruptSegment`],
//! [`IndexError::CorruptDocument`]), never a wrong answer.
//!
//! **Adding in two steps.** [`Index::add`] is a [`Preparer`] and
//! [`Index::commit`], which can run apart (e.g. on the workers and the
//! driver of a cluster job). The preparer analyzes, fingerprints and
//! compresses a file under the index's settings — a pure function of the
//! settings and the bytes — into a [`PreparedDocument`] stamped with the
//! settings' [`IndexSettings::key`]. `commit` takes prepared documents in
//! any order, refuses those of other settings, and stores them as one new
//! segment and their catalogue rows in one transaction: documents with the
//! same submission name form one submission, submissions are stored in name
//! order and their files in path order. The same files under the same names
//! therefore make the same catalogue and postings, whichever way they came.
//!
//! **Removal.** Removing a tag or a document deletes its catalogue rows;
//! its postings stay in the segments, ignored by every query, until
//! [`Index::compact`] merges all segments into one without them. Document
//! ids are never reused.
//!
//! ```
//! use bryo_compare::AnalyzeOptions;
//! use bryo_frontend::Language;
//! use bryo_index::{Index, IndexSettings};
//! use bryo_input::{discover, InputOptions};
//!
//! let dir = tempfile::tempdir()?;
//! let term = dir.path().join("fall");
//! std::fs::create_dir(&term)?;
//! std::fs::write(term.join("a.py"), "def f(x):\n    return [i * x for i in range(10) if i % 2]\n")?;
//! let analyze = AnalyzeOptions { language: Language::by_name("python"), ..AnalyzeOptions::default() };
//! let mut index = Index::create(&dir.path().join("index"), IndexSettings::new(analyze, None, None, None)?)?;
//! let inputs = discover(&InputOptions { roots: vec![term], ..InputOptions::default() })?;
//! let added = index.add(inputs, "fall")?;
//! assert_eq!((added.submissions, added.documents), (1, 1));
//! let archived = index.archived()?;
//! assert_eq!(archived[0].tag, "fall");
//! assert!(archived[0].submission.files[0].0.normalized.len() > 10);
//!
//! // The same in two steps: prepare (anywhere), then commit.
//! let mut preparer = index.preparer()?;
//! let doc = preparer.prepare("b.py", "b.py", b"def g(y):\n    return [y] * 3\n");
//! assert!(doc.content.is_ok());
//! let committed = index.commit([Ok(doc)], "spring")?;
//! assert_eq!((committed.submissions, committed.documents), (1, 1));
//! assert_eq!(index.documents()?[1].source, b"def g(y):\n    return [y] * 3\n");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod archive;
mod error;
mod index;
mod prepare;
mod segment;
mod settings;
mod shared;
mod stream;

pub use archive::{archive_label, IndexArchive};
pub use error::{IndexError, Result};
pub use index::{
    AddSummary, Archived, ArchivedDocument, CompactSummary, Index, IndexInfo, Related, TagInfo,
    CATALOG_FILE, SEGMENTS_DIR,
};
pub use prepare::{DocumentData, PreparedDocument, Preparer};
pub use segment::{Posting, ROW_GROUP_ROWS};
pub use settings::{IndexSettings, INDEX_FORMAT_VERSION};
