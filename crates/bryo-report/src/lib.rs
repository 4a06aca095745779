//! # bryo-report: the result of `bryo compare` and its renderers
//!
//! One data model, [`Report`], describes a comparison run: the options, every
//! submission and its files, the ranked pairs with their matched fragments
//! (file, line range and byte range on both sides), clusters of connected
//! submissions, skipped files and totals. It is serialized as JSON under the
//! versioned schema [`SCHEMA_ID`] (`bryo.compare/1`, documented field by field
//! in `SCHEMA.md`), and rendered as
//!
//! - a MOSS-like terminal table ([`write_table`]),
//! - JSON with a stable key order, one line per submission and per pair
//!   ([`write_json`]) or pretty-printed ([`write_json_with`],
//!   [`JsonLayout`]), read back with [`Report::from_json`],
//! - CSV with one row per pair ([`write_csv`]).
//!
//! The model holds no timestamps: the same run gives byte-identical output.
//! Every renderer writes to any [`std::io::Write`]. The helpers every
//! terminal output of bryo shares live here too: [`Columns`] (aligned
//! plain-text tables), [`thousands`], [`plural`], [`percent_down`].
//!
//! ```
//! use bryo_report::{
//!     write_csv, write_json, write_table, FileEntry, FileStatus, Frontend, Options, Pair,
//!     Report, Submission, TableOptions,
//! };
//!
//! let options = Options {
//!     language: Some("python".into()),
//!     k: 25,
//!     w: 40,
//!     max_submissions: Some(10),
//!     max_pairs: 250,
//!     min_similarity: 0.0,
//!     min_fragment_symbols: 0,
//!     merge_gap: 0,
//!     merge_ratio: None,
//!     cluster_threshold: 0.5,
//!     directory_mode: false,
//!     base: vec![],
//!     old: vec![],
//!     comment: None,
//!     score: Default::default(),
//!     scheme: None,
//! };
//! let mut report = Report::new("0.1.0", options);
//! for name in ["alice.py", "bob.py"] {
//!     report.submissions.push(Submission {
//!         name: name.into(),
//!         old: false,
//!         files: vec![FileEntry {
//!             path: name.into(),
//!             language: "python".into(),
//!             frontend: Frontend::Lexer,
//!             symbols: 400,
//!             lines: 60,
//!             status: FileStatus::Ok,
//!             encoding: "utf-8".into(),
//!             notes: Vec::new(),
//!             base_code: Vec::new(),
//!             raw_fingerprint: None,
//!             normalized_fingerprint: None,
//!         }],
//!     });
//! }
//! report.pairs.push(Pair {
//!     a: 0,
//!     b: 1,
//!     similarity: 0.5,
//!     a_percent: 50.0,
//!     b_percent: 50.0,
//!     a_lines_matched: 30,
//!     b_lines_matched: 28,
//!     lines_matched: 30,
//!     longest_fragment: 200,
//!     shared_fingerprints: 12,
//!     identical: false,
//!     fragments: vec![],
//! });
//! report.stats.candidate_pairs = 1;
//!
//! let mut table = Vec::new();
//! write_table(&report, &mut table, &TableOptions::default())?;
//! let table = String::from_utf8(table).unwrap();
//! assert!(table.contains("alice.py (50%)  bob.py (50%)"));
//!
//! let mut json = Vec::new();
//! write_json(&report, &mut json)?;
//! let back = Report::from_json(std::str::from_utf8(&json).unwrap())?;
//! assert_eq!(back, report);
//!
//! let mut csv = Vec::new();
//! write_csv(&report, &mut csv)?;
//! assert!(String::from_utf8(csv).unwrap().starts_with("rank,a,b,"));
//! # Ok::<(), bryo_report::ReportError>(())
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod columns;
mod delimited;
mod error;
mod json;
mod model;
mod numbers;
mod pretty;
mod stream;
mod table;

pub use columns::Columns;
pub use delimited::{write_csv, CSV_HEADER};
pub use error::ReportError;
pub use json::{write_json, write_json_with, JsonLayout};
pub use model::{
    Cluster, FileEntry, FileRef, FileStatus, Fragment, FragmentPart, Frontend, IdenticalFiles,
    Location, Options, Pair, Region, Report, Schema, Scheme, SchemeMismatch, Score, Skipped, Stats,
    Submission, SCHEMA_ID,
};
pub use numbers::{percent_down, plural, thousands};
pub use stream::{CsvPairs, JsonPairEncoder, JsonPairs, PairWriter};
pub use table::{write_table, write_table_with, EachPair, PairRow, TableOptions};
