//! What a streamed run needs of an archive of earlier submissions (a
//! fingerprint index) to compare new submissions with it, in time that
//! grows with the new submissions rather than the archive:
//! [`crate::compare_against`].

use bryo_report::Submission;

use crate::{Analyzed, CompareError, FileFingerprint};

/// Hashes that at least two archived submissions hold, counted together
/// by how many submissions hold them and how many of those hold them in a
/// document that is the first with its symbols in the archive's order
/// (*distinct* submissions): all the common-code rule needs to know of a
/// hash that no new submission holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SharedHashes {
    /// Archived submissions holding each hash (at least 2).
    pub submissions: u64,
    /// Of them, those holding it in a first-of-its-symbols document.
    pub distinct: u64,
    /// Hashes with these two counts.
    pub hashes: u64,
    /// Their occurrences (selected fingerprints), in every document.
    pub occurrences: u64,
}

/// What an archived document contributes to a comparison without being
/// read: its exact-copy key and its number of fingerprints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArchivedKey {
    /// Normalized symbols.
    pub symbols: u64,
    /// Rabin fingerprint of its normalized symbols.
    pub normalized: u64,
    /// Selected fingerprints (postings).
    pub fingerprints: u64,
}

/// An archived submission as a report lists it.
#[derive(Clone, Debug)]
pub struct ArchivedEntry {
    /// Its report entry (`old`, named as the report shows it), one file
    /// entry per document.
    pub entry: Submission,
    /// Per file of `entry`, in the same order.
    pub documents: Vec<ArchivedKey>,
}

/// An archive of submissions of earlier terms, analyzed and fingerprinted
/// before with the run's front-end, `k` and `w` (robust winnowing of
/// Karp–Rabin hashes), that a streamed run reads only in part.
///
/// Archived documents are numbered from 0 in the archive's order:
/// submission by submission as [`Archive::submissions`] lists them, file
/// by file.
pub trait Archive: Sync {
    /// Every archived submission, in the archive's order.
    fn submissions(&self) -> Result<Vec<ArchivedEntry>, CompareError>;
    /// The archive's shared hashes, counted over the archive alone.
    fn shared_hashes(&self) -> Result<Vec<SharedHashes>, CompareError>;
    /// `(hash, document)` for every occurrence of one of `hashes` (sorted,
    /// distinct) in an archived document, sorted.
    fn lookup(&self, hashes: &[u64]) -> Result<Vec<(u64, u32)>, CompareError>;
    /// The files of archived submission `submission` (a position in
    /// [`Archive::submissions`]), analyzed, in the order of its entry, with
    /// the paths of its file entries.
    fn load(&self, submission: usize) -> Result<Vec<(Analyzed, FileFingerprint)>, CompareError>;
}
