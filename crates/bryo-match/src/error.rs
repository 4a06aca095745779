use crate::{DocId, SubmissionId};

/// Everything that can go wrong when matching a corpus.
///
/// [`match_corpus`](crate::match_corpus) and its stages never panic on user-supplied values: invalid
/// options, corpora too large for 32-bit ids and cancellation are
/// reported here.
#[derive(Debug, thiserror::Error, Clone, PartialEq)]
#[non_exhaustive]
pub enum Error {
    /// The fingerprinting configuration was rejected by the engine, or a
    /// document has more k-grams than a 32-bit position can address.
    #[error(transparent)]
    Engine(#[from] bryo_engine::Error),
    /// A submission has both current and old documents; a submission is
    /// either from this term or from an earlier one.
    #[error("submission {0} has both current and old documents")]
    MixedRoles(SubmissionId),
    /// The cap on occurrences of one hash per document was zero.
    #[error("the cap on occurrences of one hash per document must be at least 1")]
    ZeroCap,
    /// The cluster threshold is not a number in `0..=1`.
    #[error("a threshold or share must be between 0 and 1, got {0}")]
    InvalidThreshold(f64),
    /// A document has more symbols than a 32-bit position can address.
    #[error("document {doc} has {symbols} symbols; at most 4294967295 are supported")]
    DocumentTooLong {
        /// The document.
        doc: DocId,
        /// Its number of symbols.
        symbols: usize,
    },
    /// The corpus has more documents than a 32-bit id can address.
    #[error("the corpus has {0} documents; at most 4294967295 are supported")]
    TooManyDocuments(usize),
    /// The caller's [`Progress`](crate::Progress) asked the run to stop.
    #[error("the comparison was cancelled")]
    Cancelled,
}
