//! What to match and how much to report.

use bryo_engine::{Config, HashFunction, Selection};

use crate::Error;

/// MOSS's own default for `-m`, for callers that ask for MOSS's rule.
pub const MOSS_MAX_SUBMISSIONS: usize = 10;

/// How passages shared by many submissions are treated.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CommonRule {
    /// MOSS `-m N`: "any passage appearing in more than N programs is
    /// treated as if it appeared in a base file".
    ///
    /// A fingerprint hash (not already a base hash) selected in more than
    /// `N` distinct submissions, current and old, is *common*: it is
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
    /// yields `n²/2` pair records.
    MaxSubmissions(usize),
    /// The default: keep the evidence that a group of copiers shares, drop
    /// only template code, and bound the cost. See [`Rarity`].
    Rarity(Rarity),
}

/// The rarity rule for passages shared by many submissions, the default
/// [`CommonRule`].
///
/// MOSS's hard cut (`-m 10`) erases exactly what a group of more than ten
/// copiers shares, and same-task idioms with it. This rule keeps both
/// matchable and treats only *template* code as sanctioned:
///
/// * **Template**: a hash selected in more than `template_share` of the
///   submissions, and in more than `template_min` of them, counting a
///   document identical to an earlier one once (duplicated submissions do
///   not make their passages common). Its k-grams are excluded like base
///   code: never matched and left out of the totals, as if the class had
///   been given that code with `-b`.
/// * **Seeding budget**: pairs of submissions are formed from shared
///   hashes in order of rarity — all hashes in 2 submissions, then 3, … —
///   while the pair records formed stay within `records_per_fingerprint`
///   per fingerprint of the corpus (at least `min_records`). Hashes above
///   the limit this gives (never below `min_seed_limit`) bring no pair
///   together, but stay matchable: in a pair that rarer hashes found,
///   fragments extend through them. The cost of the index stays linear in
///   the corpus however widespread a passage is.
/// * **Rarity discount**: a matched fragment shorter than
///   `full_weight_kgrams` k-grams counts in the pair's similarity by the
///   mean rarity weight of the fingerprints inside it. A fingerprint held
///   by at most `min_seed_limit` distinct submissions weighs 1; above, its
///   weight falls with the logarithm of the count, to 0 at the template
///   threshold. Short matches of code that much of the class writes (a
///   loop header, an input idiom, a `main` scaffold) weigh less than the
///   same length of rare code; a long shared passage counts in full
///   however many copied it, and so does everything in classes too small
///   for the template threshold to exceed `min_seed_limit`. Coverage
///   (`covered_*`, `*_percent`) is not discounted: only `similarity`, the
///   ranking score.
///
/// The limits the rule took are reported in
/// [`MatchStats::seed_limit`](crate::MatchStats::seed_limit) and
/// [`MatchStats::exclude_above`](crate::MatchStats::exclude_above).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rarity {
    /// Share of the submissions above which a hash is template code.
    pub template_share: f64,
    /// A hash is template code only in more than this many submissions.
    pub template_min: usize,
    /// Pair records allowed per fingerprint of the corpus.
    pub records_per_fingerprint: usize,
    /// Pair records always allowed.
    pub min_records: usize,
    /// Hashes in up to this many submissions always seed pairs, and weigh
    /// in full in the rarity discount.
    pub min_seed_limit: usize,
    /// Fragments of at least this many k-grams count in full; shorter ones
    /// are discounted by rarity. 0 turns the discount off.
    pub full_weight_kgrams: u32,
}

impl Default for Rarity {
    fn default() -> Rarity {
        Rarity {
            template_share: 0.5,
            template_min: 10,
            records_per_fingerprint: 2,
            min_records: 1 << 18,
            min_seed_limit: 10,
            full_weight_kgrams: 4,
        }
    }
}

impl Rarity {
    /// The template threshold on a corpus of `distinct` submissions that
    /// have a document with symbols not identical to an earlier one: a
    /// hash in more distinct submissions than this is template code
    /// (`max(⌊template_share · distinct⌋, template_min)`).
    pub fn template_threshold(&self, distinct: u64) -> u64 {
        let share = (self.template_share * distinct as f64).floor() as u64;
        share.max(self.template_min as u64)
    }

    /// The seed limit `L` of the seeding budget: `hist[n]` is the number
    /// of shared hashes (kept, not template code) held by `n`
    /// submissions, `fingerprints` the fingerprints of the corpus. A hash
    /// in `n ≤ L` submissions forms all `n(n − 1)/2` pair records, one in
    /// more pairs each submission with `⌈L/2⌉` others; `L` is the largest
    /// for which all records fit `records_per_fingerprint · fingerprints`
    /// (at least `min_records`), never below `min_seed_limit`, and
    /// `u64::MAX` when every hash fits in full.
    pub fn seed_limit(&self, hist: &[u64], fingerprints: u64) -> u64 {
        let budget = (self.records_per_fingerprint as u64)
            .saturating_mul(fingerprints)
            .max(self.min_records as u64);
        // records(L) = Σ_{n ≤ L} C(n, 2)·hist[n] + ⌈L/2⌉ · Σ_{n > L} n·hist[n],
        // which grows with L.
        let mut above: u64 = hist
            .iter()
            .enumerate()
            .map(|(n, &c)| (n as u64).saturating_mul(c))
            .fold(0, u64::saturating_add);
        let mut full = 0u64;
        let mut best = self.min_seed_limit.max(2) as u64;
        for (n, &count) in hist.iter().enumerate() {
            let n = n as u64;
            full = full.saturating_add((n * n.saturating_sub(1) / 2).saturating_mul(count));
            above = above.saturating_sub(n.saturating_mul(count));
            if above == 0 && full <= budget {
                return u64::MAX;
            }
            let records = full.saturating_add(n.div_ceil(2).saturating_mul(above));
            if records > budget {
                break;
            }
            best = best.max(n);
        }
        best
    }

    /// Whether the rarity discount applies on a corpus whose template
    /// threshold is `template_above` ([`MatchStats::exclude_above`]): when
    /// it is on (`full_weight_kgrams > 0`) and the threshold is above the
    /// count that weighs in full (`min_seed_limit`).
    ///
    /// [`MatchStats::exclude_above`]: crate::MatchStats::exclude_above
    pub fn discounts(&self, template_above: u64) -> bool {
        self.full_weight_kgrams > 0 && template_above > self.min_seed_limit.max(2) as u64
    }

    /// The weight of a matched fingerprint whose hash `df` distinct
    /// submissions hold (identical ones counted once) under the rarity
    /// discount, on a corpus whose template threshold is `template_above`:
    /// 1 up to `min_seed_limit`, then `ln(T / df) / ln(T / min_seed_limit)`,
    /// 0 at the template threshold `T`; 1 when there is none
    /// (`u64::MAX`).
    pub fn weight(&self, df: u32, template_above: u64) -> f64 {
        let floor = self.min_seed_limit.max(2) as f64;
        let top = template_above as f64;
        let df = f64::from(df);
        if template_above == u64::MAX || df <= floor || top <= floor {
            1.0
        } else {
            ((top / df).ln() / (top / floor).ln()).clamp(0.0, 1.0)
        }
    }

    /// The factor of a pair's similarity under the rarity discount, as the
    /// matcher applies it to a scored pair: the share of its matched
    /// symbols that counts, where each fragment shorter than
    /// `full_weight_kgrams · k` symbols counts by the mean
    /// [`weight`](Rarity::weight) of the fingerprints inside it (both
    /// sides, every part) and longer ones in full. 1 when the discount does
    /// not apply ([`discounts`](Rarity::discounts)).
    ///
    /// `occurrences` lists, sorted, every selected occurrence in the pair's
    /// documents of a hash that is matched on the corpus — shared by two
    /// submissions or more, neither base code nor template code — as
    /// `(doc << 32 | pos, df)`, `doc` being the [`DocId`] the fragments
    /// name and `df` the hash's distinct submissions. A caller that
    /// compares a pair of a larger corpus alone (a distributed job) passes
    /// the counts and the template threshold of the whole corpus, and gets
    /// the whole run's similarity.
    ///
    /// [`DocId`]: crate::DocId
    pub fn evidence(
        &self,
        fragments: &[crate::SymbolFragment],
        occurrences: &[(u64, u32)],
        k: usize,
        template_above: u64,
    ) -> f64 {
        let of_doc = |d: crate::DocId| {
            let key = u64::from(d.0);
            let from = occurrences.partition_point(|&(o, _)| o >> 32 < key);
            let to = occurrences.partition_point(|&(o, _)| o >> 32 <= key);
            &occurrences[from..to]
        };
        let weight = |df| self.weight(df, template_above);
        self.evidence_by(fragments, of_doc, weight, k, template_above)
    }

    /// [`Rarity::evidence`] with a document's occurrences, sorted by
    /// position, given by `of_doc`: the matcher holds them by document as
    /// `(pos, df)` and finds each document's run at once. `weight` is
    /// [`Rarity::weight`] at `template_above` (the matcher looks it up in a
    /// table made once).
    pub(crate) fn evidence_by<'o, O: Occurrence + 'o>(
        &self,
        fragments: &[crate::SymbolFragment],
        of_doc: impl Fn(crate::DocId) -> &'o [O],
        weight: impl Fn(u32) -> f64,
        k: usize,
        template_above: u64,
    ) -> f64 {
        if !self.discounts(template_above) {
            return 1.0;
        }
        let long = u64::from(self.full_weight_kgrams) * k as u64;
        let mean = |doc: crate::DocId, start: u32, len: u32| -> (f64, u64) {
            if (len as usize) < k {
                return (0.0, 0);
            }
            let occurrences = of_doc(doc);
            let hi = start + len - k as u32;
            let from = occurrences.partition_point(|o| o.pos() < start);
            let (mut sum, mut n) = (0.0, 0u64);
            for o in &occurrences[from..] {
                if o.pos() > hi {
                    break;
                }
                sum += weight(o.df());
                n += 1;
            }
            (sum, n)
        };
        let (mut total, mut counted) = (0.0, 0.0);
        for f in fragments {
            let len = f64::from(f.len);
            total += len;
            if u64::from(f.len) >= long {
                counted += len;
                continue;
            }
            let (mut sum, mut n) = (0.0, 0u64);
            let whole = [crate::Part {
                a_start: f.a_start,
                b_start: f.b_start,
                len: f.len,
            }];
            let parts = if f.parts.is_empty() {
                &whole[..]
            } else {
                &f.parts[..]
            };
            for &crate::Part {
                a_start: a,
                b_start: b,
                len: l,
            } in parts
            {
                let (s1, n1) = mean(f.a_doc, a, l);
                let (s2, n2) = mean(f.b_doc, b, l);
                sum += s1 + s2;
                n += n1 + n2;
            }
            counted += len * if n == 0 { 1.0 } else { sum / n as f64 };
        }
        if total == 0.0 {
            1.0
        } else {
            counted / total
        }
    }
}

/// An occurrence of a matched hash in one document, as the rarity
/// discount reads it: its position and its hash's distinct submissions.
pub(crate) trait Occurrence {
    /// The position (in the document's symbols).
    fn pos(&self) -> u32;
    /// Distinct submissions holding the hash.
    fn df(&self) -> u32;
}

/// `(doc << 32 | pos, df)`, as [`Rarity::evidence`] takes them (within
/// one document's run the low half orders them).
impl Occurrence for (u64, u32) {
    fn pos(&self) -> u32 {
        self.0 as u32
    }
    fn df(&self) -> u32 {
        self.1
    }
}

/// `(pos, df)`, as the index holds them by document.
impl Occurrence for (u32, u32) {
    fn pos(&self) -> u32 {
        self.0
    }
    fn df(&self) -> u32 {
        self.1
    }
}

/// Default for [`MatchOptions::max_pairs`]: MOSS `-n`.
pub const DEFAULT_MAX_PAIRS: usize = 250;

/// Default for [`MatchOptions::occurrence_cap`].
pub const DEFAULT_OCCURRENCE_CAP: usize = 16;

/// Default for [`MatchOptions::cluster_threshold`].
pub const DEFAULT_CLUSTER_THRESHOLD: f64 = 0.5;

/// Options of [`match_corpus`](crate::match_corpus), with MOSS meanings where MOSS has
/// the option.
///
/// ```
/// use bryo_engine::Config;
/// use bryo_match::{CommonRule, MatchOptions};
/// let mut options = MatchOptions::new(Config::from_thresholds(12, 20)?);
/// options.common = CommonRule::MaxSubmissions(2); // MOSS -m 2: passages in exactly two submissions
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
    /// How passages shared by many submissions are treated: the rarity
    /// rule by default, or MOSS's `-m`.
    pub common: CommonRule,
    /// MOSS `-n`: how many pairs to report (after ranking by shared
    /// fingerprints, fragments are computed for this many). `0` reports every
    /// pair of submissions that shares at least one fingerprint. Default
    /// 250.
    pub max_pairs: usize,
    /// Fragments shorter than this many symbols are dropped; a merged
    /// fragment (see [`merge`](MatchOptions::merge)) counts its matched
    /// symbols, not its gaps. A match grows from a matched k-gram, so
    /// values up to `k` drop only the pieces that longer matches leave.
    pub min_fragment_symbols: usize,
    /// At most this many occurrences of one hash are kept per document (the
    /// ones with the smallest positions). Bounds the work on a line repeated
    /// many times: a hash shared by two documents yields at most `cap²`
    /// position pairs. Default 16; must be at least 1.
    pub occurrence_cap: usize,
    /// Submissions linked by a scored pair with `similarity` at least this
    /// (in `0..=1`) are put in one cluster. Default 0.5.
    pub cluster_threshold: f64,
    /// Match merging: neighbouring exact matches separated by short gaps
    /// on both sides become one fragment before the shortest-fragment rule.
    /// `None` (the default) merges nothing. See [`Merging`].
    pub merge: Option<Merging>,
    /// Scales the shortest fragment kept with the length of the pair's
    /// shorter submission, `n` symbols: a fragment (merged or not) must
    /// reach `⌈floor_scale · √n⌉` symbols, at least `k` and at most
    /// `min_fragment_symbols`. 0 (the default) keeps the fixed
    /// `min_fragment_symbols`.
    ///
    /// A long document shares many short common phrases with any other; a
    /// 200-word answer shares few, and a heavily revised copy of it keeps
    /// only short runs. The square root keeps the floor where long
    /// documents need it and lowers it for short ones.
    pub floor_scale: f64,
    /// Pairs scoring below this similarity are not reported, except pairs
    /// the corpus declares identical ([`Corpus::declare_identical`](crate::Corpus::declare_identical)).
    /// Default 0.
    pub min_similarity: f64,
    /// The ranking score of a pair, [`PairMatch::similarity`](crate::PairMatch::similarity).
    pub score: PairScore,
}

/// Match merging (the "subsequence match merging" of Sağlam et al., ICSE
/// 2024): a copy broken up by inserted or edited statements (or words)
/// matches in runs separated by the inserted text; merging lets the runs
/// count as one passage while isolated short matches stay below the
/// shortest fragment.
///
/// Two exact matches of a pair are *neighbours* when they lie in the same
/// two documents and no other exact match of the pair starts between them
/// on either side (they are consecutive in the order of both documents).
/// Neighbours merge when the gap between them is short on both sides:
/// at most `max_gap` symbols, and at most `gap_ratio` times the shorter of
/// the two. Merging is transitive along a run of neighbours. A merged
/// fragment keeps its parts (see
/// [`SymbolFragment::parts`](crate::SymbolFragment::parts)); its length —
/// what the shortest-fragment rule and the scores see — is the sum of the
/// parts, never the gaps. Parts are exact matches of at least `k` symbols.
///
/// ```
/// use bryo_match::Merging;
/// let m = Merging { max_gap: 16, gap_ratio: 1.0 };
/// assert!(m.bridges(12, 12, 20, 15));
/// assert!(!m.bridges(12, 0, 10, 30)); // wider than the shorter part
/// assert!(!m.bridges(17, 0, 40, 40)); // wider than the cap
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Merging {
    /// Largest gap, in symbols, on each side.
    pub max_gap: usize,
    /// Largest gap on each side as a share of the shorter of the two
    /// neighbouring parts; `f64::INFINITY` for the cap alone.
    pub gap_ratio: f64,
}

impl Merging {
    /// Whether a gap of `gap_a` and `gap_b` symbols between neighbouring
    /// parts of `len_p` and `len_q` symbols is bridged.
    pub fn bridges(&self, gap_a: usize, gap_b: usize, len_p: usize, len_q: usize) -> bool {
        let widest = gap_a.max(gap_b);
        widest <= self.max_gap && widest as f64 <= self.gap_ratio * len_p.min(len_q) as f64
    }

    /// Checks the ratio (not negative, not NaN).
    pub fn validate(&self) -> Result<(), Error> {
        if self.gap_ratio >= 0.0 {
            Ok(())
        } else {
            Err(Error::InvalidThreshold(self.gap_ratio))
        }
    }
}

/// How a pair's coverage becomes its similarity.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PairScore {
    /// `(covered_a + covered_b) / (symbols_a + symbols_b)`: the share of
    /// both submissions inside matches (Dolos, MOSS's percentages combined).
    #[default]
    Symmetric,
    /// `max(covered_a / symbols_a, covered_b / symbols_b)`: the share of the
    /// smaller side inside matches, which a copy that grew does not dilute
    /// (JPlag's maximum similarity).
    Directional,
}

impl PairScore {
    /// The similarity of a pair with `covered` matched symbols on each side
    /// of `a` and `b` symbols, in `0..=1`.
    pub fn similarity(self, covered: u64, a: u64, b: u64) -> f64 {
        let share = |total: u64| match total {
            0 => 0.0,
            _ => (covered as f64 / total as f64).min(1.0),
        };
        match self {
            PairScore::Symmetric => match a + b {
                0 => 0.0,
                both => (2 * covered) as f64 / both as f64,
            }
            .min(1.0),
            PairScore::Directional => share(a).max(share(b)),
        }
    }
}

impl MatchOptions {
    /// Options with the given thresholds and the defaults for the rest.
    pub fn new(config: Config) -> MatchOptions {
        MatchOptions {
            config,
            hash: HashFunction::KarpRabin,
            selection: Selection::RobustWinnow,
            common: CommonRule::Rarity(Rarity::default()),
            max_pairs: DEFAULT_MAX_PAIRS,
            min_fragment_symbols: 0,
            occurrence_cap: DEFAULT_OCCURRENCE_CAP,
            cluster_threshold: DEFAULT_CLUSTER_THRESHOLD,
            merge: None,
            floor_scale: 0.0,
            min_similarity: 0.0,
            score: PairScore::Symmetric,
        }
    }

    /// Checks every option; [`match_corpus`](crate::match_corpus) calls it first.
    pub fn validate(&self) -> Result<(), Error> {
        self.selection.validate()?;
        if self.occurrence_cap == 0 {
            return Err(Error::ZeroCap);
        }
        if !(0.0..=1.0).contains(&self.cluster_threshold) {
            return Err(Error::InvalidThreshold(self.cluster_threshold));
        }
        if !(self.floor_scale >= 0.0 && self.floor_scale.is_finite()) {
            return Err(Error::InvalidThreshold(self.floor_scale));
        }
        if let Some(m) = self.merge {
            m.validate()?;
        }
        if !(0.0..=1.0).contains(&self.min_similarity) {
            return Err(Error::InvalidThreshold(self.min_similarity));
        }
        if let CommonRule::Rarity(r) = self.common {
            if !(r.template_share > 0.0 && r.template_share <= 1.0) {
                return Err(Error::InvalidThreshold(r.template_share));
            }
        }
        Ok(())
    }
}
