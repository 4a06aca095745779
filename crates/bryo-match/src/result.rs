//! The result of a comparison.

use std::ops::Range;

use crate::{DocId, SubmissionId};

/// A matched passage of two documents: one exact match, or several merged
/// across short gaps (see [`Merging`](crate::Merging)).
///
/// An exact match (`parts` empty): the `len` symbols starting at `a_start`
/// in `a_doc` equal the `len` symbols starting at `b_start` in `b_doc`. A
/// merged fragment: its [`parts`](SymbolFragment::parts) are exact matches
/// in the same order on both sides, the first starting at `a_start` and
/// `b_start`; `len` is the sum of their lengths (the matched symbols, never
/// the gaps between them). Positions and lengths are in symbols; a
/// front-end's spans map them to bytes and lines.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SymbolFragment {
    /// Document on the `a` side of the pair (belongs to [`PairMatch::a`]).
    pub a_doc: DocId,
    /// First matched symbol in `a_doc`.
    pub a_start: u32,
    /// Document on the `b` side of the pair (belongs to [`PairMatch::b`]).
    pub b_doc: DocId,
    /// First matched symbol in `b_doc`.
    pub b_start: u32,
    /// Matched symbols: the length of the match, or of all parts together.
    pub len: u32,
    /// The exact matches of a merged fragment, in order, at least two,
    /// separated by a gap on at least one side; empty for one exact match.
    pub parts: Vec<Part>,
}

/// One exact match inside a [`SymbolFragment`]: `len` symbols from
/// `a_start` in the fragment's `a_doc` equal `len` symbols from `b_start`
/// in its `b_doc`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Part {
    /// First symbol in `a_doc`.
    pub a_start: u32,
    /// First symbol in `b_doc`.
    pub b_start: u32,
    /// Length in symbols.
    pub len: u32,
}

impl Part {
    /// End (exclusive) in `a_doc`.
    pub fn a_end(&self) -> u32 {
        self.a_start + self.len
    }

    /// End (exclusive) in `b_doc`.
    pub fn b_end(&self) -> u32 {
        self.b_start + self.len
    }
}

impl SymbolFragment {
    /// An exact match of `len` symbols.
    pub fn exact(a_doc: DocId, a_start: u32, b_doc: DocId, b_start: u32, len: u32) -> Self {
        SymbolFragment {
            a_doc,
            a_start,
            b_doc,
            b_start,
            len,
            parts: Vec::new(),
        }
    }

    /// Whether the fragment is made of several exact matches.
    pub fn is_merged(&self) -> bool {
        !self.parts.is_empty()
    }

    /// Its exact matches in order: the parts of a merged fragment, or the
    /// fragment itself.
    pub fn parts(&self) -> std::borrow::Cow<'_, [Part]> {
        if self.parts.is_empty() {
            std::borrow::Cow::Owned(vec![Part {
                a_start: self.a_start,
                b_start: self.b_start,
                len: self.len,
            }])
        } else {
            std::borrow::Cow::Borrowed(&self.parts)
        }
    }

    /// The symbols of `a_doc` from the first matched one to the last,
    /// gaps included.
    pub fn a_range(&self) -> Range<usize> {
        let end = self
            .parts
            .last()
            .map_or(self.a_start + self.len, Part::a_end);
        self.a_start as usize..end as usize
    }

    /// The symbols of `b_doc` from the first matched one to the last,
    /// gaps included.
    pub fn b_range(&self) -> Range<usize> {
        let end = self
            .parts
            .last()
            .map_or(self.b_start + self.len, Part::b_end);
        self.b_start as usize..end as usize
    }
}

/// What two submissions share.
///
/// Base-covered symbols (see [`DocumentSummary::base_symbols`]) are left out
/// of numerators and denominators. Common-covered symbols (see
/// [`DocumentSummary::common_symbols`]) are never matched, so never in a
/// numerator; under MOSS's `-m` they stay in the denominators, template
/// code (the rarity rule) leaves them. Fragments never extend into
/// either.
#[derive(Clone, Debug, PartialEq)]
pub struct PairMatch {
    /// The submission with the smaller id.
    pub a: SubmissionId,
    /// The submission with the larger id.
    pub b: SubmissionId,
    /// Shared fingerprints: over every hash the two submissions share (after
    /// the base, `max_submissions` and occurrence-cap rules), the smaller of
    /// its two occurrence counts, each summed over the submission's
    /// documents. Pairs are selected by this count (MOSS ranks by the number
    /// of matching fingerprints).
    pub shared_fingerprints: u64,
    /// Matched passages, longest (most matched symbols) first, ties by
    /// position. Their ranges ([`SymbolFragment::a_range`], gaps of merged
    /// fragments included) never overlap on either side.
    pub fragments: Vec<SymbolFragment>,
    /// Symbols of `a`'s documents that are not base-covered (nor template).
    pub symbols_a: u64,
    /// Symbols of `b`'s documents that are not base-covered (nor template).
    pub symbols_b: u64,
    /// Symbols of `a` inside a fragment (never base- or common-covered).
    pub covered_a: u64,
    /// Symbols of `b` inside a fragment (never base- or common-covered).
    pub covered_b: u64,
    /// `100 · covered_a / symbols_a` (MOSS's `name (NN%)`); 0 if empty.
    pub a_percent: f64,
    /// `100 · covered_b / symbols_b`; 0 if empty.
    pub b_percent: f64,
    /// The ranking score, in `0..=1`, by [`MatchOptions::score`](crate::MatchOptions::score):
    /// `(covered_a + covered_b) / (symbols_a + symbols_b)` (symmetric, the
    /// default) or the larger of `covered_a / symbols_a` and
    /// `covered_b / symbols_b` (directional).
    pub similarity: f64,
    /// Length of the longest fragment in symbols (0 if none).
    pub longest_fragment: u32,
    /// The two submissions have the same documents: the same multiset of
    /// non-empty symbol sequences (base code included), at least one symbol.
    pub identical: bool,
}

/// A connected group of submissions: linked by reported pairs whose
/// similarity reaches the cluster threshold.
#[derive(Clone, Debug, PartialEq)]
pub struct SubmissionCluster {
    /// Members, in increasing id order; at least two.
    pub submissions: Vec<SubmissionId>,
    /// The highest similarity of a scored pair inside the cluster.
    pub max_similarity: f64,
}

/// Per-document facts, indexed by [`DocId`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DocumentSummary {
    /// Fingerprints selected in the document (before any filtering).
    /// 0 for base documents.
    pub fingerprints: u32,
    /// Base-covered symbols: covered by a k-gram whose hash occurs among all
    /// k-grams of the base documents. 0 for base documents.
    pub base_symbols: u32,
    /// Common-covered symbols that are not also base-covered: covered by
    /// the k-gram of a fingerprint whose hash was excluded by the
    /// [`common`](crate::MatchOptions::common) rule (a passage in too many
    /// submissions, or template code). 0 for base documents. They are never
    /// matched; under MOSS's `-m` they count in the pair totals, template
    /// code does not.
    pub common_symbols: u32,
}

/// Counters describing the work done; handy for reports and tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MatchStats {
    /// Non-base documents.
    pub documents: u64,
    /// Distinct submissions among non-base documents.
    pub submissions: u64,
    /// Base documents.
    pub base_documents: u64,
    /// Fingerprints selected in all non-base documents.
    pub fingerprints: u64,
    /// Fingerprint occurrences dropped because the hash occurs in the base.
    pub dropped_base: u64,
    /// Occurrences dropped because the hash is in more than
    /// `max_submissions` submissions.
    pub dropped_common: u64,
    /// Occurrences beyond the per-document cap.
    pub dropped_cap: u64,
    /// Occurrences kept in the index: hashes found in at least two
    /// submissions after the rules above.
    pub indexed: u64,
    /// Distinct hashes kept in the index.
    pub shared_hashes: u64,
    /// Pairs of submissions sharing at least one fingerprint.
    pub candidate_pairs: u64,
    /// Matched position pairs examined while building fragments.
    pub seeds: u64,
    /// Symbol comparisons spent extending seeds to maximal matches.
    pub extension_steps: u64,
    /// Document pairs whose extension budget ran out (fragments there may
    /// be shorter than maximal).
    pub budget_exhausted: u64,
    /// Non-base documents with the same symbols as an earlier one, whose
    /// fingerprints were copied instead of computed again.
    pub duplicate_documents: u64,
    /// Hashes shared by more submissions than this brought no pair
    /// together (the seeding budget of [`Rarity`](crate::Rarity), or `-m`);
    /// `u64::MAX` when every shared hash did.
    pub seed_limit: u64,
    /// Hashes in more submissions than this were excluded from matching
    /// (template code under [`Rarity`](crate::Rarity), common passages under
    /// `-m`); `u64::MAX` when none was.
    pub exclude_above: u64,
    /// Fragments shorter than this many symbols were discounted by the
    /// rarity of their fingerprints ([`Rarity`](crate::Rarity)); 0 when no
    /// fragment was.
    pub discount_below: u64,
}

/// The result of [`match_corpus`](crate::match_corpus).
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    /// Reported pairs, ranked like MOSS by size of match: most covered
    /// symbols (`covered_a + covered_b`) first, then most shared
    /// fingerprints, then by `(a, b)`.
    pub pairs: Vec<PairMatch>,
    /// Clusters, largest first, then by smallest member.
    pub clusters: Vec<SubmissionCluster>,
    /// Per-document facts, indexed by [`DocId`].
    pub documents: Vec<DocumentSummary>,
    /// Base-covered symbols of every document, indexed by [`DocId`]: sorted,
    /// disjoint, non-adjacent half-open symbol ranges (their lengths sum to
    /// [`DocumentSummary::base_symbols`]); empty for base documents and when
    /// there is no base code. Renderers grey these passages out.
    pub base_ranges: Vec<Vec<Range<u32>>>,
    /// Counters.
    pub stats: MatchStats,
}
