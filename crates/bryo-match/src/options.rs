//! What to match and how much to report.

use bryo_engine::{Config, HashFunction, Selection};

use crate::Error;

/// Default for [`MatchOptions::max_submissions`]: MOSS `-m`.
pub const DEFAULT_MAX_SUBMISSIONS: usize = 10;

/// Default for [`MatchOptions::max_pairs`]: MOSS `-n`.
pub const DEFAULT_MAX_PAIRS: usize = 250;

/// Default for [`MatchOptions::occurrence_cap`].
pub const DEFAULT_OCCURRENCE_CAP: usize = 16;

/// Default for [`MatchOptions::cluster_threshold`].
pub const DEFAULT_CLUSTER_THRESHOLD: f64 = 0.5;

/// Options of [`compare`](crate::compare), with MOSS meanings where MOSS has
/// the option.
///
/// ```
/// use bryo_engine::Config;
/// use bryo_match::MatchOptions;
/// let mut options = MatchOptions::new(Config::from_thresholds(12, 20)?);
/// options.max_submissions = 2; // MOSS -m 2: passages in exactly two submissions
/// options.max_pairs = 250; // MOSS -n
/// assert!(options.validate().is_ok());
/// # Ok::<(), bryo_match::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MatchOptions {
    /// Noise threshold `k` and window `w` of winnowing.
    pub config: Config,
    /// The rolling hash of k-grams.
    pub hash: HashFunction,
    /// How fingerprints are selected. Default: robust winnowing, as MOSS.
    /// Any selection works; only winnowing and robust winnowing guarantee
    /// that every shared run of `t = w + k − 1` symbols is found.
    pub selection: Selection,
    /// MOSS `-m`: "any passage appearing in more than N programs is treated
    /// as if it appeared in a base file".
    ///
    /// A fingerprint hash (not already a base hash) selected in more than
    /// this many distinct submissions, current and old, is *common*: it is
    /// dropped from the index, and in every document, the symbols of the
    /// k-gram `pos..pos + k` of each selected fingerprint with a common hash
    /// (every occurrence, before the occurrence cap) are *common-covered*.
    /// Common-covered symbols are never matched, exactly like base-covered
    /// ones: fragments never extend into them and seeds straddling them are
    /// trimmed, so they never count in `covered_*` of a
    /// [`PairMatch`](crate::PairMatch). Unlike base code, which the user
    /// declared sanctioned, they stay in the totals (`symbols_*`, hence the
    /// denominators of `*_percent` and `similarity`): which passages are
    /// common depends on the rest of the batch, and dropping them from the
    /// totals too would inflate the weight of chance matches in what
    /// remains. They are reported per document in
    /// [`DocumentSummary::common_symbols`](crate::DocumentSummary::common_symbols).
    ///
    /// The rule works on fingerprints, as MOSS does: symbols of a common
    /// passage that no selected fingerprint of a common hash covers stay
    /// matchable. With winnowing these are a few symbols where the passage
    /// meets other text (fewer than `w` at each end, as a rule) and, if
    /// `w > k`, gaps of at most `w − k` symbols between fingerprints.
    ///
    /// `0` means no limit — then a hash common to all `n` submissions alone
    /// yields `n²/2` pair records. Default 10.
    pub max_submissions: usize,
    /// MOSS `-n`: how many pairs to report (after ranking by shared
    /// fingerprints, fragments are computed for this many). `0` reports every
    /// pair of submissions that shares at least one fingerprint. Default
    /// 250.
    pub max_pairs: usize,
    /// Fragments shorter than this many symbols are dropped. Fragments are
    /// never shorter than `k` (a fragment grows from a matched k-gram), so
    /// values up to `k` change nothing.
    pub min_fragment_symbols: usize,
    /// At most this many occurrences of one hash are kept per document (the
    /// ones with the smallest positions). Bounds the work on a line repeated
    /// many times: a hash shared by two documents yields at most `cap²`
    /// position pairs. Default 16; must be at least 1.
    pub occurrence_cap: usize,
    /// Submissions linked by a reported pair with `similarity` at least this
    /// (in `0..=1`) are put in one cluster. Default 0.5.
    pub cluster_threshold: f64,
}

impl MatchOptions {
    /// Options with the given thresholds and the defaults for the rest.
    pub fn new(config: Config) -> MatchOptions {
        MatchOptions {
            config,
            hash: HashFunction::KarpRabin,
            selection: Selection::RobustWinnow,
            max_submissions: DEFAULT_MAX_SUBMISSIONS,
            max_pairs: DEFAULT_MAX_PAIRS,
            min_fragment_symbols: 0,
            occurrence_cap: DEFAULT_OCCURRENCE_CAP,
            cluster_threshold: DEFAULT_CLUSTER_THRESHOLD,
        }
    }

    /// Checks every option; [`compare`](crate::compare) calls it first.
    pub fn validate(&self) -> Result<(), Error> {
        self.selection.validate()?;
        if self.occurrence_cap == 0 {
            return Err(Error::ZeroCap);
        }
        if !(0.0..=1.0).contains(&self.cluster_threshold) {
            return Err(Error::InvalidThreshold(self.cluster_threshold));
        }
        Ok(())
    }
}
