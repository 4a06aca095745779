//! # bryo-match: all-to-all matching of fingerprinted documents
//!
//! Given a corpus of documents — each a sequence of front-end symbols,
//! belonging to a submission — [`match_corpus`] finds the pairs of submissions
//! that share passages and exactly where, following the MOSS pipeline of
//! Schleimer, Wilkerson & Aiken, "Winnowing: Local Algorithms for Document
//! Fingerprinting" (SIGMOD 2003), §5.2:
//!
//! * fingerprints of all documents (winnowing, from `bryo-engine`) are
//!   grouped by hash in an index (scattered into buckets, grouped in linear
//!   time, no sorting) — pairs of documents are formed only from shared
//!   fingerprints, never by looping over all pairs;
//! * base (starter) code is removed; by default template code (a hash in
//!   more than half of the submissions) is removed like it, every other
//!   passage stays matched, and pairs are formed rarest hash first within a
//!   budget linear in the corpus ([`Rarity`]); or, as MOSS `-m` ("any
//!   passage appearing in more than N programs is treated as if it appeared
//!   in a base file"), hashes in more than `N` submissions are ignored
//!   ([`CommonRule`]); the occurrences of one hash in one document are
//!   capped so that the work per pair stays bounded;
//! * pairs are ranked by shared fingerprints; for the best of them, the
//!   matched positions are turned into [`SymbolFragment`]s: exact, maximal,
//!   non-overlapping matches of symbols (the paper notes k-grams lose "some
//!   of the match … at the beginning and the end"; extension recovers it),
//!   optionally merged across short gaps into one fragment with its parts
//!   ([`Merging`]), so that a copy broken up by inserted text is still seen;
//! * each pair is scored (share of each side covered, similarity, longest
//!   fragment; base code counts neither as matched nor in the totals,
//!   common passages only in the totals), and pairs above a threshold form
//!   [`SubmissionCluster`]s.
//!
//! The crate knows nothing about files or formats: positions are symbol
//! indices, which a front-end's spans map back to bytes and lines.
//!
//! ## Stages
//!
//! [`match_corpus`] runs the whole matcher. A caller that shows progress,
//! cancels a run, or runs the stages in different places calls them one by
//! one, each consuming the previous one's result and watched by a
//! [`Progress`] (which may cancel: [`Error::Cancelled`]):
//!
//! 1. [`fingerprint`] → [`Fingerprinted`]: options checked, base code
//!    marked, every document winnowed;
//! 2. [`Fingerprinted::index`] → [`Indexed`]: shared hashes grouped, the
//!    common-code rule applied, pair records formed;
//! 3. [`Indexed::pairs`] → [`Candidates`]: pairs sharing fingerprints,
//!    ranked and cut to [`scored_candidates`] (before it,
//!    [`Indexed::restrict_seeds`] may keep only the records of given
//!    hashes: a pair of a larger corpus compared alone is then seeded as in
//!    the larger run, [`Indexed::record_hashes`]);
//! 4. [`Indexed::fragments`] → [`Comparison`]: exact fragments, scores,
//!    ranking and clusters.
//!
//! ## Example
//!
//! ```
//! use bryo_engine::Config;
//! use bryo_match::{match_corpus, Corpus, Document, MatchOptions, Role, SubmissionId};
//!
//! let starter: Vec<u64> = (0..20).collect();
//! let copied: Vec<u64> = (500..530).collect();
//! // Both students keep the starter code; one copied a passage from the other.
//! let alice: Vec<u64> = starter.iter().chain(&copied).copied().chain(900..940).collect();
//! let bob: Vec<u64> = (700..720).chain(starter.iter().copied()).chain(copied.iter().copied()).collect();
//!
//! let mut corpus = Corpus::new();
//! corpus.push(Document::new(SubmissionId(1), &alice));
//! corpus.push(Document::new(SubmissionId(2), &bob));
//! corpus.push(Document::new(SubmissionId(0), &starter).with_role(Role::Base));
//!
//! let result = match_corpus(&corpus, &MatchOptions::new(Config::new(5, 4)?))?;
//! let pair = &result.pairs[0];
//! // The starter code is neither matched nor counted: alice has 70 symbols
//! // of her own, 30 of them shared.
//! assert_eq!((pair.symbols_a, pair.covered_a), (70, 30));
//! assert_eq!(pair.fragments.len(), 1);
//! assert_eq!(pair.fragments[0].a_start, 20);
//! # Ok::<(), bryo_match::Error>(())
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod corpus;
mod error;
mod fragments;
mod index;
mod options;
mod progress;
mod result;
mod stages;

pub use corpus::{Corpus, DocId, Document, Role, SubmissionId};
pub use error::Error;
pub use fragments::EXTENSION_BUDGET_PER_SYMBOL;
pub use options::{
    CommonRule, MatchOptions, Merging, PairScore, Rarity, DEFAULT_CLUSTER_THRESHOLD,
    DEFAULT_MAX_PAIRS, DEFAULT_OCCURRENCE_CAP, MOSS_MAX_SUBMISSIONS,
};
pub use progress::{Cancel, Progress, Silent, Stage};
pub use result::{
    Comparison, DocumentSummary, MatchStats, PairMatch, Part, SubmissionCluster, SymbolFragment,
};
pub use stages::{
    fingerprint, link_clusters, match_corpus, scored_candidates, Candidate, Candidates,
    Fingerprinted, Indexed, Ranked, Retain,
};
