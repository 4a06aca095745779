//! # bryo-compare: the `bryo compare` job as a library
//!
//! Glue between the layers, so the command line and a future server run the
//! same pipeline: discovered inputs ([`bryo_input`]) go through decoding,
//! language detection and their front-end ([`bryo_frontend`], optionally
//! [`bryo_treesitter`](https://docs.rs/bryo-treesitter)) in parallel, the
//! symbol streams through the all-to-all matcher ([`bryo_match`]), and the
//! matched symbol ranges are mapped back to files, lines and bytes in the
//! report model ([`bryo_report`]).
//!
//! ```
//! use bryo_compare::{analyze, AnalyzeOptions};
//!
//! let file = analyze("hello.py", b"print('hi')\n", &AnalyzeOptions::default()).unwrap();
//! assert_eq!(file.language.name(), "python");
//! assert!(file.normalized.len() >= 4); // print ( 'hi' )
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod analyze;
mod archive;
mod identical;
mod pair;
mod run;
mod stream;

pub use analyze::{
    analyze, analyze_keeping, has_tree_sitter, normalize_into, spellings, AnalyzeError,
    AnalyzeOptions, Analyzed, FrontendRun, Normalize, Parser, TOKEN_NORMALIZATION_VERSION,
};
pub use archive::{Archive, ArchivedEntry, ArchivedKey, SharedHashes};
pub use bryo_frontend::Normalization;
pub use identical::{FileFingerprint, FileFingerprinter};
pub use pair::{compare_alone, Alone, PairCounts, RarityCounts};
pub use run::{
    analyze_inputs, analyze_inputs_with_archive, compare, compare_with_progress, default_merging,
    default_min_fragment, default_thresholds, Analysis, ArchivedSubmission, CompareOptions,
    Outcome, CODE_K, CODE_MERGE_GAP, CODE_MERGE_RATIO, CODE_W, TEXT_CHARS_K, TEXT_CHARS_MERGE_GAP,
    TEXT_CHARS_MIN_FRAGMENT, TEXT_CHARS_W, TEXT_WORDS_K, TEXT_WORDS_MERGE_GAP,
    TEXT_WORDS_MIN_FRAGMENT, TEXT_WORDS_W,
};
pub use stream::{
    compare_against, compare_streamed, FragmentKeeping, PairReader, SpilledPairs, StreamOptions,
    Streamed,
};

/// Why a comparison could not run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CompareError {
    /// Fewer than two submissions had a file that could be compared (or
    /// none of them was new).
    #[error(
        "need at least two submissions to compare, including a new one; found {found} with comparable files{}",
        skipped_note(*skipped, example.as_deref())
    )]
    TooFewSubmissions {
        /// Submissions with at least one comparable file.
        found: usize,
        /// Files that were skipped.
        skipped: usize,
        /// The first skipped file and why, if any.
        example: Option<String>,
    },
    /// Invalid `k`, `w` or `t`.
    #[error("invalid thresholds: {0}")]
    Thresholds(bryo_engine::Error),
    /// The matcher rejected its options.
    #[error(transparent)]
    Match(#[from] bryo_match::Error),
    /// A streamed run ([`compare_streamed`]) cannot take these options.
    #[error("{0}")]
    Streaming(&'static str),
    /// A streamed run could not write or read its sorted runs.
    #[error("cannot spill sorted runs to {}: {source}", dir.display())]
    Spill {
        /// The directory they go to.
        dir: std::path::PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The archive of a run against an index could not be read.
    #[error("{0}")]
    Archive(String),
    /// A file of a streamed run could not be read again (it changed or
    /// went away during the run).
    #[error("{path}: could not be read again during the run: {reason}")]
    Changed {
        /// The file.
        path: String,
        /// Why.
        reason: String,
    },
}

fn skipped_note(skipped: usize, example: Option<&str>) -> String {
    match (skipped, example) {
        (0, _) | (_, None) => String::new(),
        (1, Some(e)) => format!(" (1 file skipped: {e})"),
        (n, Some(e)) => format!(" ({n} files skipped, e.g. {e})"),
    }
}
pub use bryo_match::{Cancel, PairScore, Progress, Rarity, Silent, Stage};
