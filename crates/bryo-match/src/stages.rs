//! The matcher's stages: fingerprint → index → pairs → fragments (scores
//! and clusters included), each callable on its own.

use bryo_engine::{Fingerprint, Hasher};
use rayon::prelude::*;

use crate::fragments::{merge, pair_fragments};
use crate::index::{
    build_index, fingerprint_all, pair_key, split_by_counts, BaseSet, Index, Prepared, Record,
    Share, Shares,
};
use crate::progress::check;
use crate::{
    CommonRule, Comparison, Corpus, DocId, DocumentSummary, Error, MatchOptions, MatchStats,
    PairMatch, PairScore, Progress, Silent, Stage, SubmissionCluster, SubmissionId,
};

/// A pair of submissions sharing indexed fingerprints: a candidate for
/// fragments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// The submission with the smaller id.
    pub a: SubmissionId,
    /// The submission with the larger id.
    pub b: SubmissionId,
    /// Fingerprints the two share (of each shared hash, the smaller number
    /// of kept occurrences on either side).
    pub shared_fingerprints: u64,
    /// Dense indices of `a` and `b`.
    dense: (u32, u32),
    /// Its pair records once ranked, `records[records.0..records.1]` of
    /// the [`Ranked`] (formed again for the candidates only).
    records: (usize, usize),
}

/// The candidate pairs that get fragments, from [`Indexed::pairs`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidates {
    /// The candidates, by `(a, b)`.
    pub pairs: Vec<Candidate>,
    /// Pairs of submissions sharing at least one indexed fingerprint,
    /// before the cut to [`scored_candidates`].
    pub total: u64,
}

/// The corpus after [`fingerprint`]: every document winnowed, base code
/// marked. Next: [`Fingerprinted::index`].
pub struct Fingerprinted<'c> {
    run: Run<'c>,
    base: BaseSet,
    fps: Vec<Vec<Fingerprint>>,
}

/// The corpus after [`Fingerprinted::index`]: shared hashes grouped, the
/// common-code rule applied, pair records formed. Next:
/// [`Indexed::pairs`], then [`Indexed::fragments`].
pub struct Indexed<'c> {
    run: Run<'c>,
    index: Index,
    fp_counts: Vec<usize>,
}

/// What every stage carries to the next: the options, the corpus in
/// internal order, and what the first stage found about it.
struct Run<'c> {
    options: MatchOptions,
    prep: Prepared<'c>,
    /// Base-covered symbol ranges per document (see
    /// [`Comparison::base_ranges`]).
    base_ranges: Vec<Vec<std::ops::Range<u32>>>,
    /// The caller's identical pairs, dense.
    declared: Vec<(u32, u32)>,
    /// Whether each internal document is the first with its symbols.
    canonical: Vec<bool>,
    /// Documents in the corpus, base ones included.
    documents: usize,
}

/// Compares every submission with every other (old ones only with current
/// ones), MOSS style: [`fingerprint`], [`Fingerprinted::index`],
/// [`Indexed::pairs`] and [`Indexed::fragments`] in a row, watched by
/// nobody. A caller that shows progress, cancels, or runs the stages in
/// different places calls them one by one.
///
/// 1. Every current and old document is fingerprinted in parallel;
///    documents with the same symbols (same Rabin fingerprint, confirmed
///    symbol by symbol) are winnowed once and share the selection.
/// 2. The fingerprints are scattered into buckets and grouped by hash.
/// 3. A hash occurring among **all** k-grams of the base documents is
///    dropped; in every document, each symbol covered by a k-gram whose hash
///    occurs among all k-grams of the base is *base-covered* and counts
///    neither as matched nor in the totals.
/// 4. By [`MatchOptions::common`]: under MOSS's `-m N`, a hash in more than
///    `N` submissions is dropped, and the k-gram of each of its occurrences
///    becomes *common-covered*: never matched, but in the totals. Under the
///    rarity rule (the default), a hash in more than the template threshold
///    is dropped the same way and its symbols also leave the totals, like
///    base code. Of one hash, at most `occurrence_cap` occurrences per
///    document are kept (the first ones).
/// 5. Pairs of submissions are formed only from shared hashes (never
///    within a submission, never old with old; under the rarity rule, hashes
///    above the budget's limit pair a sample) and ranked by shared
///    fingerprints; the best [`scored_candidates`] (or all) get fragments:
///    every pair of kept occurrences of a shared hash is a seed; its k-gram
///    is checked symbol by symbol (a hash collision yields nothing), then
///    extended left and right to the maximal exact match, never into
///    excluded symbols (such symbols inside the seed are trimmed off the
///    ends), each diagonal of a document pair walked once, within a budget
///    of 16 extension steps per symbol of the two documents. The matches are
///    then tiled longest first: a match overlapping a kept fragment on either
///    side is cut to its free pieces, which compete again by length.
///    With [`MatchOptions::merge`], neighbouring matches (of at least `k`
///    symbols) separated by short gaps on both sides are merged into one
///    fragment ([`Merging`](crate::Merging)). Fragments with fewer matched
///    symbols than `min_fragment_symbols` (or the scaled floor,
///    [`MatchOptions::floor_scale`]) are dropped.
/// 6. Pairs are scored ([`PairScore`]); pairs declared identical are added
///    whole if no shared hash found them; pairs below `min_similarity`
///    (except identical ones) are dropped and the rest ranked by covered
///    symbols and cut to `max_pairs`; clusters are the connected components
///    of every scored pair with `similarity >= cluster_threshold` and of the
///    identical pairs.
///
/// The output depends only on the input and options, not on the number of
/// threads.
///
/// ```
/// use bryo_engine::Config;
/// use bryo_match::{match_corpus, Corpus, Document, MatchOptions, SubmissionId};
///
/// let passage: Vec<u64> = (100..140).collect();
/// let mut alice: Vec<u64> = (0..30).collect();
/// alice.extend(&passage);
/// let mut bob: Vec<u64> = (50..70).collect();
/// bob.extend(&passage);
/// let carol: Vec<u64> = (200..260).collect();
///
/// let corpus: Corpus = [(0, &alice), (1, &bob), (2, &carol)]
///     .into_iter()
///     .map(|(s, symbols)| Document::new(SubmissionId(s), symbols))
///     .collect();
/// let result = match_corpus(&corpus, &MatchOptions::new(Config::new(5, 4)?))?;
///
/// assert_eq!(result.pairs.len(), 1); // carol shares nothing
/// let pair = &result.pairs[0];
/// assert_eq!((pair.a, pair.b), (SubmissionId(0), SubmissionId(1)));
/// assert_eq!(pair.fragments[0].len, 40); // the whole passage, exactly
/// assert_eq!(pair.covered_b, 40);
/// # Ok::<(), bryo_match::Error>(())
/// ```
pub fn match_corpus(corpus: &Corpus<'_>, options: &MatchOptions) -> Result<Comparison, Error> {
    let indexed = fingerprint(corpus, options, &Silent)?.index(&Silent)?;
    let candidates = indexed.pairs(&Silent)?;
    indexed.fragments(candidates, &Silent)
}

/// The first stage: checks the options and the corpus, marks base code and
/// winnows every current and old document in parallel (documents with the
/// same symbols once). Reports one unit of work per distinct document.
///
/// ```
/// use bryo_engine::Config;
/// use bryo_match::{fingerprint, Cancel, Corpus, Document, Error, MatchOptions, SubmissionId};
///
/// let (a, b): (Vec<u64>, Vec<u64>) = ((0..50).collect(), (0..50).collect());
/// let corpus: Corpus = [Document::new(SubmissionId(0), &a), Document::new(SubmissionId(1), &b)]
///     .into_iter()
///     .collect();
/// let options = MatchOptions::new(Config::new(5, 4)?);
/// let cancel = Cancel::new();
/// let indexed = fingerprint(&corpus, &options, &cancel)?.index(&cancel)?;
/// cancel.cancel(); // e.g. from another thread, while the next stage runs
/// assert_eq!(indexed.pairs(&cancel), Err(Error::Cancelled));
/// # Ok::<(), bryo_match::Error>(())
/// ```
pub fn fingerprint<'c>(
    corpus: &Corpus<'c>,
    options: &MatchOptions,
    progress: &dyn Progress,
) -> Result<Fingerprinted<'c>, Error> {
    options.validate()?;
    check(progress)?;
    let mut prep = Prepared::new(corpus)?;
    let hasher = Hasher::new(options.hash, &options.config);
    let base = BaseSet::new(&prep.base_docs, &hasher);
    prep.mark_base(&base, options.config, &hasher);
    // Before common passages join them, the excluded ranges are exactly the
    // base-covered ones.
    let mut base_ranges: Vec<Vec<std::ops::Range<u32>>> = vec![Vec::new(); corpus.len()];
    for doc in &prep.docs {
        base_ranges[doc.id as usize] = doc.excluded.iter().map(|&(s, e)| s..e).collect();
    }
    let (fps, source) = fingerprint_all(&prep.docs, corpus, options, progress)?;
    let canonical: Vec<bool> = source.iter().enumerate().map(|(i, &s)| s == i).collect();
    let declared = declared_identical(corpus, &prep);
    Ok(Fingerprinted {
        run: Run {
            options: *options,
            prep,
            base_ranges,
            declared,
            canonical,
            documents: corpus.len(),
        },
        base,
        fps,
    })
}

impl std::fmt::Debug for Fingerprinted<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fingerprinted")
            .field("documents", &self.run.documents)
            .field("submissions", &self.run.prep.subs.len())
            .field(
                "fingerprints",
                &self.fps.iter().map(Vec::len).sum::<usize>(),
            )
            .finish_non_exhaustive()
    }
}

impl std::fmt::Debug for Indexed<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Indexed")
            .field("documents", &self.run.documents)
            .field("submissions", &self.run.prep.subs.len())
            .field("pairs", &self.index.shares.len())
            .finish_non_exhaustive()
    }
}

impl<'c> Fingerprinted<'c> {
    /// The fingerprints selected in a current or old document, in position
    /// order; `None` for a base document or an id out of range.
    pub fn fingerprints(&self, doc: DocId) -> Option<&[Fingerprint]> {
        let i = self.run.prep.docs.iter().position(|d| d.id == doc.0)?;
        Some(&self.fps[i])
    }

    /// Documents with the same symbols as an earlier one, whose selection
    /// was copied rather than computed again.
    pub fn duplicate_documents(&self) -> u64 {
        self.run.canonical.iter().filter(|&&c| !c).count() as u64
    }

    /// The second stage: groups the fingerprints by hash, drops base and
    /// common (or template) hashes, caps occurrences and forms the pair
    /// records. The fingerprints themselves are freed.
    pub fn index(self, progress: &dyn Progress) -> Result<Indexed<'c>, Error> {
        check(progress)?;
        progress.start(Stage::Index, 0);
        let Fingerprinted { mut run, base, fps } = self;
        let fp_counts = fps.iter().map(Vec::len).collect();
        let mut index = build_index(fps, &run.prep, &base, &run.canonical, &run.options);
        run.prep.mark_common(
            &std::mem::take(&mut index.common),
            run.options.config.k(),
            index.common_is_template,
        );
        Ok(Indexed {
            run,
            index,
            fp_counts,
        })
    }
}

impl<'c> Indexed<'c> {
    /// Pairs the caller declared identical ([`Corpus::identical_pairs`],
    /// not both old): every one is reported, whether or not it is among
    /// [`Indexed::pairs`] (files too short for a k-gram share no
    /// fingerprint), so the pairs to report number at least this many.
    pub fn identical_pairs(&self) -> usize {
        self.run.declared.len()
    }

    /// The index and the corpus it was built from, for tests of the
    /// index's parts.
    #[cfg(test)]
    pub(crate) fn parts(&self) -> (&Index, &Prepared<'c>) {
        (&self.index, &self.run.prep)
    }

    /// The third stage: the pairs of submissions that share indexed
    /// fingerprints, ranked by shared fingerprints and cut to
    /// [`scored_candidates`] (MOSS ranks pairs by shared fingerprints;
    /// fragments are computed for a margin of the best, and the report
    /// ranks those by matched symbols). `-n 0` and a minimum similarity
    /// keep every candidate.
    pub fn pairs(&self, progress: &dyn Progress) -> Result<Candidates, Error> {
        check(progress)?;
        progress.start(Stage::Pairs, 0);
        let shares = &self.index.shares;
        let prep = &self.run.prep;
        // Summed on all threads, in pieces cut between first submissions,
        // of about as many shares each.
        let pieces = 4 * rayon::current_num_threads();
        let subs = shares.submissions();
        let mut cuts: Vec<usize> = (0..=pieces)
            .map(|i| {
                let at = shares.len() * i / pieces;
                shares.starts[..subs].partition_point(|&s| s < at)
            })
            .collect();
        cuts[0] = 0;
        cuts[pieces] = subs;
        cuts.dedup();
        // The pairs of first submissions `from..to`, each with its shares,
        // in pair order.
        let runs = |from: usize, to: usize| {
            (from..to).flat_map(move |a| {
                shares
                    .of(a)
                    .chunk_by(|x, y| x.b == y.b)
                    .map(move |run| (a as u32, run))
            })
        };
        let candidate = |(a, run): (u32, &[Share])| {
            let b = run[0].b;
            Candidate {
                a: prep.subs[a as usize].id,
                b: prep.subs[b as usize].id,
                shared_fingerprints: run.iter().map(|s| u64::from(s.contrib)).sum(),
                dense: (a, b),
                records: (0, 0),
            }
        };
        // The best `scored` by shared fingerprints (ties by pair, a total
        // order).
        let best_first = |x: &Candidate, y: &Candidate| {
            y.shared_fingerprints
                .cmp(&x.shared_fingerprints)
                .then(x.dense.cmp(&y.dense))
        };
        if let Some(scored) = scored_candidates(&self.run.options) {
            // Each piece keeps its best `scored` as it goes (selected in
            // linear time whenever it holds twice that), so no vector of
            // every pair is made; the best of all are among the pieces'.
            // The best pair a selection left out bars every pair after it
            // in the order: `scored` better ones are already kept, so such
            // a pair is not kept and not even held.
            let kept: Vec<(u64, Vec<Candidate>)> = cuts
                .par_windows(2)
                .map(|w| {
                    let mut best = Vec::with_capacity(2 * scored + 1);
                    let mut bar: Option<Candidate> = None;
                    let mut count = 0u64;
                    for run in runs(w[0], w[1]) {
                        count += 1;
                        let c = candidate(run);
                        if bar.as_ref().is_some_and(|bar| best_first(&c, bar).is_gt()) {
                            continue;
                        }
                        best.push(c);
                        if best.len() > 2 * scored {
                            best.select_nth_unstable_by(scored, best_first);
                            bar = Some(best[scored].clone());
                            best.truncate(scored);
                        }
                    }
                    (count, best)
                })
                .collect();
            let total = kept.iter().map(|(n, _)| n).sum();
            let mut pairs: Vec<Candidate> = kept.into_iter().flat_map(|(_, b)| b).collect();
            if scored < pairs.len() {
                pairs.select_nth_unstable_by(scored, best_first);
                pairs.truncate(scored);
                pairs.shrink_to_fit();
            }
            pairs.sort_unstable_by_key(|c| c.dense);
            return Ok(Candidates { pairs, total });
        }
        // Every pair: counted first, then written in place (one vector of
        // candidates, not pieces and their join).
        let counts: Vec<usize> = cuts
            .par_windows(2)
            .map(|w| runs(w[0], w[1]).count())
            .collect();
        let empty = Candidate {
            a: SubmissionId(0),
            b: SubmissionId(0),
            shared_fingerprints: 0,
            dense: (0, 0),
            records: (0, 0),
        };
        let mut pairs = crate::index::filled(empty, counts.iter().sum());
        split_by_counts(&mut pairs, &counts)
            .into_par_iter()
            .zip(cuts.par_windows(2))
            .for_each(|(part, w)| {
                for (slot, run) in part.iter_mut().zip(runs(w[0], w[1])) {
                    *slot = candidate(run);
                }
            });
        let total = pairs.len() as u64;
        Ok(Candidates { pairs, total })
    }

    /// The distinct hashes of a candidate's pair records, sorted: the
    /// shared hashes that seed its fragments (under the rarity rule, a hash
    /// above the seed limit is among them only if its sample paired the
    /// two). Empty for a candidate that is not from [`Indexed::pairs`] of
    /// this index.
    ///
    /// A caller that compares the pair again on its own, with the same
    /// options — a corpus of the two submissions and the base documents,
    /// with this corpus's excluded hashes ([`Corpus::exclude_hashes`]) —
    /// and restricts the seeds to these ([`Indexed::restrict_seeds`]) gets
    /// this run's fragments, totals and shared fingerprints (the rarity
    /// discount needs this corpus's counts: [`Rarity::evidence`]).
    ///
    /// [`Rarity::evidence`]: crate::Rarity::evidence
    pub fn record_hashes(&self, candidate: &Candidate) -> Vec<u64> {
        let (a, b) = candidate.dense;
        if a >= b || b as usize >= self.run.prep.subs.len() {
            return Vec::new();
        }
        let records = self
            .index
            .records_of(&self.run.prep, Some(&[pair_key(a, b)]));
        let mut hashes: Vec<u64> = records.iter().map(|r| self.index.record_hash(r)).collect();
        hashes.sort_unstable();
        hashes.dedup();
        hashes
    }

    /// Keeps only the pair records whose hash is in `hashes` (any order;
    /// sorted, it is used as it is, otherwise a sorted copy is made): the
    /// pairs and fragments that follow are seeded by those hashes alone.
    /// A pair none of them brings together is no candidate; a candidate's
    /// [`shared_fingerprints`](Candidate::shared_fingerprints) counts the
    /// kept records only. Other shared hashes stay matchable: fragments
    /// extend through them as through any symbols, and nothing else — base
    /// and common code, totals, the rarity discount, [`MatchStats`]'
    /// index counts — changes.
    ///
    /// Call it before [`Indexed::pairs`]: candidates taken earlier were
    /// formed without it. Without it nothing is restricted.
    ///
    /// ```
    /// use bryo_engine::Config;
    /// use bryo_match::{fingerprint, Corpus, Document, MatchOptions, Silent, SubmissionId};
    ///
    /// let (a, b): (Vec<u64>, Vec<u64>) = ((0..40).collect(), (0..40).collect());
    /// let corpus: Corpus = [Document::new(SubmissionId(0), &a), Document::new(SubmissionId(1), &b)]
    ///     .into_iter()
    ///     .collect();
    /// let options = MatchOptions::new(Config::new(5, 4)?);
    /// let mut indexed = fingerprint(&corpus, &options, &Silent)?.index(&Silent)?;
    /// let all = indexed.record_hashes(&indexed.pairs(&Silent)?.pairs[0]);
    /// // Seeded by one hash, the pair is still matched whole by extension.
    /// indexed.restrict_seeds(&all[..1]);
    /// let candidates = indexed.pairs(&Silent)?;
    /// assert_eq!(candidates.pairs[0].shared_fingerprints, 1);
    /// let result = indexed.fragments(candidates, &Silent)?;
    /// assert_eq!(result.pairs[0].fragments[0].len, 40);
    /// # Ok::<(), bryo_match::Error>(())
    /// ```
    pub fn restrict_seeds(&mut self, hashes: &[u64]) {
        let mut hashes = hashes.to_vec();
        if !hashes.is_sorted() {
            hashes.sort_unstable();
        }
        // A second restriction keeps what both allow.
        if let Some(before) = &self.index.seeds_only {
            hashes.retain(|h| before.binary_search(h).is_ok());
        }
        self.index.seeds_only = Some(hashes);
        self.index.shares = self.index.collect_shares(&self.run.prep);
    }

    /// The last stage: exact fragments of every candidate (one unit of work
    /// each), scores, the identical pairs declared by the caller, the
    /// ranking and cut to `max_pairs`, and clusters.
    ///
    /// `candidates` must come from [`Indexed::pairs`] of this index; pairs
    /// naming other submissions are ignored.
    pub fn fragments(
        self,
        candidates: Candidates,
        progress: &dyn Progress,
    ) -> Result<Comparison, Error> {
        Ok(self
            .rank(candidates, Retain::Fragments, progress)?
            .into_comparison())
    }

    /// The last stage, for a caller that writes the reported pairs as they
    /// come: everything [`Indexed::fragments`] does, but with
    /// [`Retain::Scores`] the fragments of each candidate are dropped once
    /// it is scored, and [`Ranked::pairs`] computes them again, batch by
    /// batch, for the reported pairs. The memory then grows by a few dozen
    /// bytes per candidate, not by its fragments; the fragments of the
    /// reported pairs cost a second computation.
    ///
    /// ```
    /// use bryo_engine::Config;
    /// use bryo_match::{fingerprint, Corpus, Document, MatchOptions, Retain, Silent, SubmissionId};
    ///
    /// let passage: Vec<u64> = (100..140).collect();
    /// let docs: Vec<Vec<u64>> = (0..4u64)
    ///     .map(|i| (i * 1000..i * 1000 + 20).chain(passage.iter().copied()).collect())
    ///     .collect();
    /// let corpus: Corpus = docs
    ///     .iter()
    ///     .enumerate()
    ///     .map(|(i, d)| Document::new(SubmissionId(i as u32), d))
    ///     .collect();
    /// let options = MatchOptions::new(Config::new(5, 4)?);
    /// let indexed = fingerprint(&corpus, &options, &Silent)?.index(&Silent)?;
    /// let candidates = indexed.pairs(&Silent)?;
    /// let ranked = indexed.rank(candidates, Retain::Scores, &Silent)?;
    /// assert_eq!(ranked.len(), 6);
    /// // Two batches, each computed again in parallel.
    /// let mut pairs = ranked.pairs(0..3);
    /// pairs.extend(ranked.pairs(3..6));
    /// assert_eq!(pairs, bryo_match::match_corpus(&corpus, &options)?.pairs);
    /// # Ok::<(), bryo_match::Error>(())
    /// ```
    pub fn rank(
        self,
        candidates: Candidates,
        retain: Retain,
        progress: &dyn Progress,
    ) -> Result<Ranked<'c>, Error> {
        check(progress)?;
        progress.start(Stage::Fragments, candidates.pairs.len() as u64);
        let Indexed {
            run,
            mut index,
            fp_counts,
        } = self;
        let Candidates {
            pairs: candidates,
            total,
        } = candidates;
        // The shares have served; the candidates' records are formed again.
        index.shares = Shares::default();
        let mut internal = vec![u32::MAX; run.documents];
        for (i, d) in run.prep.docs.iter().enumerate() {
            internal[d.id as usize] = i as u32;
        }
        let mut ranked = Ranked {
            run,
            index,
            internal,
            candidates: Vec::new(),
            records: Vec::new(),
            order: Vec::new(),
            kept: Vec::new(),
            best: None,
            summary: Comparison {
                pairs: Vec::new(),
                clusters: Vec::new(),
                documents: Vec::new(),
                base_ranges: Vec::new(),
                stats: MatchStats::default(),
            },
        };
        let mut candidates: Vec<Candidate> =
            candidates.into_iter().filter(|c| ranked.valid(c)).collect();
        let mut wanted: Vec<u64> = candidates
            .iter()
            .map(|c| pair_key(c.dense.0, c.dense.1))
            .collect();
        wanted.sort_unstable();
        wanted.dedup();
        // With every pair a candidate (`-n 0`), no record needs the test.
        let every = wanted.len() as u64 == total;
        ranked.records = ranked
            .index
            .records_of(&ranked.run.prep, (!every).then_some(&wanted[..]));
        drop(wanted);
        // Each candidate's records, in one pass over both in pair order;
        // a candidate without any is not this index's.
        if !candidates.is_sorted_by_key(|c| c.dense) {
            candidates.sort_unstable_by_key(|c| c.dense);
        }
        let (records, mut at) = (&ranked.records, 0);
        candidates.retain_mut(|c| {
            let key = pair_key(c.dense.0, c.dense.1);
            // Nearly every record is some candidate's: step, do not search.
            while records.get(at).is_some_and(|r| r.pair() < key) {
                at += 1;
            }
            let start = at;
            while records.get(at).is_some_and(|r| r.pair() == key) {
                at += 1;
            }
            c.records = (start, at);
            start < at
        });

        // Every candidate scored; with `Retain::Scores`, its fragments
        // dropped at once.
        let keep = retain == Retain::Fragments;
        let work = [(); 3].map(|_| std::sync::atomic::AtomicU64::new(0));
        let cancelled = std::sync::atomic::AtomicBool::new(false);
        // Written in place (an indexed collect): no intermediate copies of
        // a score per candidate.
        let score = |(i, c): (usize, &Candidate)| {
            let source = Source::Candidate(i as u32);
            if cancelled.load(std::sync::atomic::Ordering::Relaxed) || check(progress).is_err() {
                cancelled.store(true, std::sync::atomic::Ordering::Relaxed);
                return (Scored::cancelled(source), None);
            }
            let (m, counts) = ranked.compute(c);
            for (total, n) in work
                .iter()
                .zip([counts.seeds, counts.steps, counts.exhausted])
            {
                total.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
            }
            progress.advance(1);
            (Scored::of(&m, source, c.dense), keep.then(|| Box::new(m)))
        };
        let (mut scored, mut kept): (Vec<Scored>, Vec<Option<Box<PairMatch>>>) =
            (Vec::new(), Vec::new());
        let each = candidates.par_iter().enumerate();
        if keep {
            each.map(score).unzip_into_vecs(&mut scored, &mut kept);
        } else {
            each.map(|x| score(x).0).collect_into_vec(&mut scored);
        }
        if cancelled.into_inner() {
            return Err(Error::Cancelled);
        }
        let [seeds, steps, exhausted] = work.map(std::sync::atomic::AtomicU64::into_inner);
        let mut matches: Vec<Box<PairMatch>> = kept.into_iter().flatten().collect();

        let Run {
            options,
            prep,
            declared,
            canonical,
            documents,
            base_ranges,
        } = &mut ranked.run;
        let k = options.config.k();
        let stats = MatchStats {
            documents: prep.docs.len() as u64,
            submissions: prep.subs.len() as u64,
            base_documents: prep.base_docs.len() as u64,
            fingerprints: fp_counts.iter().map(|&n| n as u64).sum(),
            dropped_base: ranked.index.counts.dropped_base,
            dropped_common: ranked.index.counts.dropped_common,
            dropped_cap: ranked.index.counts.dropped_cap,
            indexed: ranked.index.counts.indexed,
            shared_hashes: ranked.index.counts.shared_hashes,
            candidate_pairs: total,
            duplicate_documents: canonical.iter().filter(|&&c| !c).count() as u64,
            seed_limit: ranked.index.rule.seed_limit,
            exclude_above: ranked.index.rule.exclude_above,
            seeds,
            extension_steps: steps,
            budget_exhausted: exhausted,
            discount_below: match options.common {
                CommonRule::Rarity(r) if !ranked.index.rarity.is_empty() => {
                    u64::from(r.full_weight_kgrams) * k as u64
                }
                _ => 0,
            },
        };

        // Pairs the caller knows to be identical are reported whatever their
        // score: as matched, or, if no shared fingerprint brought them
        // together, each document matched whole with its equal.
        let found: std::collections::HashSet<(u32, u32)> =
            candidates.iter().map(|c| c.dense).collect();
        for &(a, b) in declared.iter() {
            if !found.contains(&(a, b)) {
                let m = whole_pair(prep, a, b);
                scored.push(Scored::of(&m, Source::Whole(a, b), (a, b)));
                if keep {
                    matches.push(Box::new(m));
                }
            }
        }
        drop(found);
        for s in &mut scored {
            s.declared = declared.binary_search(&s.dense).is_ok();
            s.identical |= s.declared;
        }
        let mut by_rank: Vec<u32> = (0..scored.len() as u32).collect();
        by_rank.sort_by(|&x, &y| {
            let (x, y) = (&scored[x as usize], &scored[y as usize]);
            y.covered
                .cmp(&x.covered)
                .then(y.shared.cmp(&x.shared))
                .then(x.ids.cmp(&y.ids))
        });

        // Clusters from every scored pair, before the report's cut.
        let all = || by_rank.iter().map(|&i| &scored[i as usize]);
        let links = all()
            .filter(|s| s.similarity >= options.cluster_threshold)
            .map(|s| s.dense)
            .chain(declared.iter().copied());
        let scores = all().map(|s| (s.dense.0, s.dense.1, s.similarity));
        let clusters = clusters(prep, links, scores);

        let mut reported: Vec<u32> = by_rank
            .into_iter()
            .filter(|&i| {
                let s = &scored[i as usize];
                s.declared || s.similarity >= options.min_similarity
            })
            .collect();
        if options.max_pairs != 0 {
            reported.truncate(options.max_pairs);
        }
        ranked.best = reported
            .iter()
            .map(|&i| scored[i as usize].similarity)
            .reduce(f64::max);
        if keep {
            let mut matches: Vec<Option<Box<PairMatch>>> = matches.into_iter().map(Some).collect();
            ranked.kept = reported
                .iter()
                .map(|&i| {
                    let mut m = *matches[i as usize].take().expect("each pair reported once");
                    m.identical = scored[i as usize].identical;
                    m
                })
                .collect();
        }
        ranked.order = reported
            .iter()
            .map(|&i| scored[i as usize].source)
            .collect();
        drop(scored);
        ranked.candidates = candidates;

        let mut summaries = vec![DocumentSummary::default(); *documents];
        for (doc, &n) in prep.docs.iter().zip(&fp_counts) {
            summaries[doc.id as usize] = DocumentSummary {
                fingerprints: u32::try_from(n).unwrap_or(u32::MAX),
                base_symbols: doc.base_symbols,
                common_symbols: doc.common_symbols,
            };
        }
        ranked.summary = Comparison {
            pairs: Vec::new(),
            clusters,
            documents: summaries,
            base_ranges: std::mem::take(base_ranges),
            stats,
        };
        Ok(ranked)
    }
}

/// What [`Indexed::rank`] keeps of each scored candidate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Retain {
    /// Its fragments: [`Ranked::pairs`] and [`Ranked::into_comparison`]
    /// hand them out as computed. Memory grows with the fragments of every
    /// reported pair.
    Fragments,
    /// Its scores only: the fragments of a reported pair are computed
    /// again when [`Ranked::pairs`] asks for it. For `-n 0` on large
    /// classes, whose fragments would not fit in memory together.
    Scores,
}

/// The reported pairs of [`Indexed::rank`], ranked and cut, with their
/// clusters and totals; their fragments are handed out batch by batch
/// ([`Ranked::pairs`]) or all at once ([`Ranked::into_comparison`]).
pub struct Ranked<'c> {
    run: Run<'c>,
    index: Index,
    /// Internal position of every document, by [`DocId`].
    internal: Vec<u32>,
    /// The scored candidates, by pair.
    candidates: Vec<Candidate>,
    /// The pair records of the candidates, sorted by pair.
    records: Vec<Record>,
    /// The reported pairs, best first.
    order: Vec<Source>,
    /// Their matches, in the same order, under [`Retain::Fragments`].
    kept: Vec<PairMatch>,
    /// The highest similarity of a reported pair.
    best: Option<f64>,
    /// Everything but the pairs.
    summary: Comparison,
}

impl std::fmt::Debug for Ranked<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ranked")
            .field("pairs", &self.order.len())
            .field("retained", &!self.kept.is_empty())
            .finish_non_exhaustive()
    }
}

/// Where a scored or reported pair comes from: a candidate by its
/// position, or a pair declared identical that shares no indexed
/// fingerprint, matched whole (dense indices).
#[derive(Clone, Copy)]
enum Source {
    Candidate(u32),
    Whole(u32, u32),
}

/// What the ranking, the cut and the clusters need of a scored pair.
struct Scored {
    source: Source,
    ids: (SubmissionId, SubmissionId),
    dense: (u32, u32),
    covered: u64,
    shared: u64,
    similarity: f64,
    identical: bool,
    /// Declared identical by the caller.
    declared: bool,
}

impl Scored {
    /// A placeholder for a candidate not scored because the run was
    /// cancelled (the whole result is then dropped).
    fn cancelled(source: Source) -> Scored {
        Scored {
            source,
            ids: (SubmissionId(0), SubmissionId(0)),
            dense: (0, 0),
            covered: 0,
            shared: 0,
            similarity: 0.0,
            identical: false,
            declared: false,
        }
    }

    fn of(m: &PairMatch, source: Source, dense: (u32, u32)) -> Scored {
        Scored {
            source,
            ids: (m.a, m.b),
            dense,
            covered: m.covered_a + m.covered_b,
            shared: m.shared_fingerprints,
            similarity: m.similarity,
            identical: m.identical,
            declared: false,
        }
    }
}

impl<'c> Ranked<'c> {
    /// Whether a candidate is one of this index's.
    fn valid(&self, c: &Candidate) -> bool {
        let subs = &self.run.prep.subs;
        let (a, b) = c.dense;
        a < b
            && (b as usize) < subs.len()
            && (subs[a as usize].id, subs[b as usize].id) == (c.a, c.b)
    }

    /// A valid candidate's fragments and scores (the caller's identical
    /// pairs not yet marked).
    fn compute(&self, c: &Candidate) -> (PairMatch, PairCounts) {
        let Run { options, prep, .. } = &self.run;
        let index = &self.index;
        let k = options.config.k();
        let (a, b) = c.dense;
        // With merging, every exact match of at least k symbols is a part;
        // the shortest-fragment rule judges merged lengths.
        let part_floor = match options.merge {
            Some(_) => k,
            None => options.min_fragment_symbols,
        };
        let mut f = pair_fragments(
            &self.records[c.records.0..c.records.1],
            index,
            prep,
            k,
            part_floor,
        );
        let floor = fragment_floor(prep, a, b, options);
        f.fragments = merge(std::mem::take(&mut f.fragments), options.merge, floor);
        let counts = PairCounts {
            seeds: f.seeds,
            steps: f.steps,
            exhausted: f.exhausted,
        };
        let mut m = score(
            prep,
            a,
            b,
            c.shared_fingerprints,
            f.fragments,
            options.score,
        );
        if let (CommonRule::Rarity(r), false) = (options.common, index.rarity.is_empty()) {
            let of_doc = |d: DocId| {
                let i = self.internal[d.0 as usize] as usize;
                let (from, to) = (index.rarity_starts[i], index.rarity_starts[i + 1]);
                &index.rarity[from..to]
            };
            let weight = |df: u32| index.rarity_weights[df as usize];
            let template_above = index.rule.exclude_above;
            m.similarity *= r.evidence_by(&m.fragments, of_doc, weight, k, template_above);
        }
        (m, counts)
    }

    /// The number of reported pairs.
    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// Whether no pair is reported.
    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    /// The highest similarity of a reported pair.
    pub fn max_similarity(&self) -> Option<f64> {
        self.best
    }

    /// Clusters, per-document facts, base ranges and counters: the
    /// [`Comparison`] without its pairs.
    pub fn summary(&self) -> &Comparison {
        &self.summary
    }

    /// The reported pairs in `range` of ranks (0 = best), with their
    /// fragments, exactly as [`Indexed::fragments`] reports them: taken
    /// from memory under [`Retain::Fragments`], computed again in parallel
    /// under [`Retain::Scores`]. A range beyond [`Ranked::len`] is cut.
    pub fn pairs(&self, range: std::ops::Range<usize>) -> Vec<PairMatch> {
        let end = range.end.min(self.order.len());
        let range = range.start.min(end)..end;
        if !self.kept.is_empty() {
            return self.kept[range].to_vec();
        }
        let declared = &self.run.declared;
        self.order[range]
            .par_iter()
            .map(|source| match *source {
                Source::Candidate(i) => {
                    let c = &self.candidates[i as usize];
                    let (mut m, _) = self.compute(c);
                    m.identical |= declared.binary_search(&c.dense).is_ok();
                    m
                }
                Source::Whole(a, b) => whole_pair(&self.run.prep, a, b),
            })
            .collect()
    }

    /// The whole [`Comparison`], every reported pair with its fragments.
    pub fn into_comparison(self) -> Comparison {
        let pairs = if self.kept.is_empty() {
            self.pairs(0..self.order.len())
        } else {
            self.kept
        };
        Comparison {
            pairs,
            ..self.summary
        }
    }
}

/// How many candidates, best by shared fingerprints, get fragments and
/// scores: `None` for all of them.
///
/// With `max_pairs = n > 0` and no minimum similarity, the best
/// `max(4n, n + 200)`: the report holds the `n` pairs with the most matched
/// symbols among them — the bound `-n` guarantees. Pairs of a copy share
/// many fingerprints, so in practice the top `n` of all candidates come
/// out (the tests check the bound against scoring every candidate).
pub fn scored_candidates(options: &MatchOptions) -> Option<usize> {
    match options.max_pairs {
        0 => None,
        _ if options.min_similarity > 0.0 => None,
        n => Some(n.saturating_mul(4).max(n.saturating_add(200))),
    }
}

/// The shortest fragment kept in a pair (merged fragments by their matched
/// symbols); see [`MatchOptions::floor_scale`].
fn fragment_floor(prep: &Prepared<'_>, a: u32, b: u32, options: &MatchOptions) -> usize {
    let fixed = options.min_fragment_symbols;
    if options.floor_scale == 0.0 {
        return fixed;
    }
    let n = prep.subs[a as usize]
        .symbols
        .min(prep.subs[b as usize].symbols);
    let scaled = (options.floor_scale * (n as f64).sqrt()).ceil() as usize;
    scaled
        .max(options.config.k())
        .min(fixed.max(options.config.k()))
}

/// Counters of one pair's fragment search.
struct PairCounts {
    seeds: u64,
    steps: u64,
    exhausted: u64,
}

/// The caller's identical pairs as sorted `(a, b)` dense indices, `a < b`,
/// not both old, both with documents.
fn declared_identical(corpus: &Corpus<'_>, prep: &Prepared<'_>) -> Vec<(u32, u32)> {
    let find = |id: SubmissionId| {
        let i = prep.subs.partition_point(|s| s.id < id);
        (prep.subs.get(i).is_some_and(|s| s.id == id)).then_some(i as u32)
    };
    let mut out: Vec<(u32, u32)> = corpus
        .identical_pairs()
        .iter()
        .filter_map(|&(x, y)| Some((find(x)?, find(y)?)))
        .filter(|&(a, b)| a != b && !(prep.subs[a as usize].old && prep.subs[b as usize].old))
        .map(|(a, b)| (a.min(b), a.max(b)))
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// A pair's scores from its fragments.
fn score(
    prep: &Prepared<'_>,
    a: u32,
    b: u32,
    shared: u64,
    fragments: Vec<crate::SymbolFragment>,
    rule: PairScore,
) -> PairMatch {
    let (sa, sb) = (&prep.subs[a as usize], &prep.subs[b as usize]);
    // Fragments never overlap on either side and never hold excluded
    // symbols, so coverage is the sum of their lengths.
    let covered: u64 = fragments.iter().map(|f| u64::from(f.len)).sum();
    let percent = |covered: u64, total: u64| match total {
        0 => 0.0,
        _ => 100.0 * covered as f64 / total as f64,
    };
    let (a_percent, b_percent) = (percent(covered, sa.symbols), percent(covered, sb.symbols));
    PairMatch {
        a: sa.id,
        b: sb.id,
        shared_fingerprints: shared,
        symbols_a: sa.symbols,
        symbols_b: sb.symbols,
        covered_a: covered,
        covered_b: covered,
        a_percent,
        b_percent,
        similarity: rule.similarity(covered, sa.symbols, sb.symbols),
        longest_fragment: fragments.iter().map(|f| f.len).max().unwrap_or(0),
        identical: identical(prep, a, b),
        fragments,
    }
}

/// A pair of identical submissions that shares no indexed fingerprint:
/// each document of `a` with symbols of its own (not all base code)
/// matched whole with an equal document of `b`.
fn whole_pair(prep: &Prepared<'_>, a: u32, b: u32) -> PairMatch {
    let docs = |s: u32| {
        let (lo, hi) = prep.subs[s as usize].docs;
        let mut v: Vec<&crate::index::Doc<'_>> = prep.docs[lo as usize..hi as usize]
            .iter()
            .filter(|d| d.symbols.len() > d.base_symbols as usize)
            .collect();
        v.sort_by(|x, y| {
            (x.symbols.len(), x.symbols, x.id).cmp(&(y.symbols.len(), y.symbols, y.id))
        });
        v
    };
    let (da, db) = (docs(a), docs(b));
    let mut fragments = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < da.len() && j < db.len() {
        let (x, y) = (da[i], db[j]);
        match (x.symbols.len(), x.symbols).cmp(&(y.symbols.len(), y.symbols)) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                fragments.push(crate::SymbolFragment::exact(
                    crate::DocId(x.id),
                    0,
                    crate::DocId(y.id),
                    0,
                    x.symbols.len() as u32,
                ));
                (i, j) = (i + 1, j + 1);
            }
        }
    }
    fragments.sort_by_key(|f| (std::cmp::Reverse(f.len), f.a_doc, f.b_doc));
    let (sa, sb) = (&prep.subs[a as usize], &prep.subs[b as usize]);
    let covered = fragments.iter().map(|f| u64::from(f.len)).sum();
    PairMatch {
        a: sa.id,
        b: sb.id,
        shared_fingerprints: 0,
        symbols_a: sa.symbols,
        symbols_b: sb.symbols,
        covered_a: covered,
        covered_b: covered,
        a_percent: 100.0,
        b_percent: 100.0,
        similarity: 1.0,
        longest_fragment: fragments.first().map_or(0, |f| f.len),
        identical: true,
        fragments,
    }
}

/// Whether two submissions have the same multiset of non-empty documents.
fn identical(prep: &Prepared<'_>, a: u32, b: u32) -> bool {
    let (sa, sb) = (&prep.subs[a as usize], &prep.subs[b as usize]);
    if sa.raw_symbols == 0
        || sa.raw_symbols != sb.raw_symbols
        || sa.nonempty_docs != sb.nonempty_docs
    {
        return false;
    }
    let docs = |s: u32| {
        let (lo, hi) = prep.subs[s as usize].docs;
        let mut v: Vec<&[u64]> = prep.docs[lo as usize..hi as usize]
            .iter()
            .map(|d| d.symbols)
            .filter(|s| !s.is_empty())
            .collect();
        v.sort_unstable_by_key(|s| s.len());
        v
    };
    let (da, db) = (docs(a), docs(b));
    if da.is_empty() || da.len() != db.len() || da.iter().zip(&db).any(|(x, y)| x.len() != y.len())
    {
        return false;
    }
    let (mut da, mut db) = (da, db);
    da.sort_unstable();
    db.sort_unstable();
    da == db
}

/// Connected components of the linked submissions, by union-find, each
/// with the highest similarity of a pair inside it.
fn clusters(
    prep: &Prepared<'_>,
    links: impl Iterator<Item = (u32, u32)>,
    scores: impl Iterator<Item = (u32, u32, f64)>,
) -> Vec<SubmissionCluster> {
    link_clusters(prep.subs.len(), links, scores, |s| prep.subs[s as usize].id)
}

/// The clusters of a run over `submissions` submissions numbered densely
/// `0..submissions`: the connected components (of at least two) of the
/// `links`, each with the highest similarity of the `scores` inside it,
/// largest first, then by first member; `id` names a dense number in the
/// result. A caller that scores pairs itself (a streamed or distributed
/// run) gets the clusters [`Indexed::rank`] would give: links are the
/// scored pairs at or above [`MatchOptions::cluster_threshold`] and the
/// identical ones, scores every scored pair.
pub fn link_clusters(
    submissions: usize,
    links: impl Iterator<Item = (u32, u32)>,
    scores: impl Iterator<Item = (u32, u32, f64)>,
    id: impl Fn(u32) -> SubmissionId,
) -> Vec<SubmissionCluster> {
    let mut parent: Vec<u32> = (0..submissions as u32).collect();
    fn find(parent: &mut [u32], mut x: u32) -> u32 {
        while parent[x as usize] != x {
            let p = parent[x as usize];
            parent[x as usize] = parent[p as usize];
            x = p;
        }
        x
    }
    for (a, b) in links {
        let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
        if ra != rb {
            // The smaller index becomes the root: the result is order-free anyway.
            let (lo, hi) = (ra.min(rb), ra.max(rb));
            parent[hi as usize] = lo;
        }
    }
    let mut members: Vec<Vec<u32>> = vec![Vec::new(); submissions];
    for s in 0..submissions as u32 {
        let r = find(&mut parent, s);
        members[r as usize].push(s);
    }
    let mut best = vec![0.0f64; submissions];
    for (a, b, similarity) in scores {
        let r = find(&mut parent, a);
        if r == find(&mut parent, b) {
            best[r as usize] = best[r as usize].max(similarity);
        }
    }
    let mut out: Vec<SubmissionCluster> = members
        .into_iter()
        .zip(best)
        .filter(|(m, _)| m.len() >= 2)
        .map(|(m, max_similarity)| SubmissionCluster {
            max_similarity,
            submissions: m.into_iter().map(&id).collect(),
        })
        .collect();
    out.sort_by(|x, y| {
        y.submissions
            .len()
            .cmp(&x.submissions.len())
            .then(x.submissions[0].cmp(&y.submissions[0]))
    });
    out
}
