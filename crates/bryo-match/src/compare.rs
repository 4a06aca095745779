//! The pipeline: fingerprints → index → ranked pairs → fragments → scores
//! and clusters.

use bryo_engine::Hasher;
use rayon::prelude::*;

use crate::fragments::{chain, pair_fragments};
use crate::index::{build_index, fingerprint_all, BaseSet, Prepared};
use crate::{
    Cluster, Comparison, Corpus, DocumentSummary, Error, MatchOptions, PairMatch, PairScore, Stats,
    SubmissionId,
};

/// A pair of dense submissions sharing fingerprints, with its records.
struct Candidate {
    a: u32,
    b: u32,
    shared: u64,
    records: (usize, usize),
}

/// Compares every submission with every other (old ones only with current
/// ones), MOSS style.
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
///    Fragments shorter than `min_fragment_symbols` are dropped — or, with a
///    `chain_gap`, chains of fragments shorter than the chain floor.
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
/// use bryo_match::{compare, Corpus, Document, MatchOptions, SubmissionId};
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
/// let result = compare(&corpus, &MatchOptions::new(Config::new(5, 4)?))?;
///
/// assert_eq!(result.pairs.len(), 1); // carol shares nothing
/// let pair = &result.pairs[0];
/// assert_eq!((pair.a, pair.b), (SubmissionId(0), SubmissionId(1)));
/// assert_eq!(pair.fragments[0].len, 40); // the whole passage, exactly
/// assert_eq!(pair.covered_b, 40);
/// # Ok::<(), bryo_match::Error>(())
/// ```
pub fn compare(corpus: &Corpus<'_>, options: &MatchOptions) -> Result<Comparison, Error> {
    options.validate()?;
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
    let (fps, source) = fingerprint_all(&prep.docs, options)?;
    let canonical: Vec<bool> = source.iter().enumerate().map(|(i, &s)| s == i).collect();
    let mut index = build_index(&fps, &prep, &base, &canonical, options);
    let k = options.config.k();
    prep.mark_common(
        &std::mem::take(&mut index.common),
        k,
        index.common_is_template,
    );
    // The index holds what is still needed; free the rest before scoring.
    let fp_counts: Vec<usize> = fps.iter().map(Vec::len).collect();
    drop(fps);

    let mut candidates = candidates(&index.records);
    let candidate_pairs = candidates.len() as u64;
    // MOSS ranks pairs by shared fingerprints; fragments are computed for a
    // margin of the best candidates by that count, and the report ranks
    // those by matched symbols. `-n 0` and a minimum similarity score every
    // candidate.
    if let Some(scored) = scored_candidates(options) {
        candidates
            .sort_unstable_by(|x, y| y.shared.cmp(&x.shared).then((x.a, x.b).cmp(&(y.a, y.b))));
        candidates.truncate(scored);
        candidates.sort_unstable_by_key(|c| (c.a, c.b));
    }
    let recs = &index.records;
    let scored: Vec<(PairMatch, PairCounts)> = candidates
        .par_iter()
        .map(|c| {
            let mut f = pair_fragments(
                &recs[c.records.0..c.records.1],
                &index,
                &prep,
                k,
                if options.chain_gap > 0 {
                    k
                } else {
                    options.min_fragment_symbols
                },
            );
            if options.chain_gap > 0 {
                let floor = chain_floor(&prep, c.a, c.b, options);
                chain(&mut f, options.chain_gap, floor);
            }
            let counts = PairCounts {
                seeds: f.seeds,
                steps: f.steps,
                exhausted: f.exhausted,
            };
            let m = score(&prep, c.a, c.b, c.shared, f.fragments, options.score);
            (m, counts)
        })
        .collect();

    let mut stats = Stats {
        documents: prep.docs.len() as u64,
        submissions: prep.subs.len() as u64,
        base_documents: prep.base_docs.len() as u64,
        fingerprints: fp_counts.iter().map(|&n| n as u64).sum(),
        dropped_base: index.counts.dropped_base,
        dropped_common: index.counts.dropped_common,
        dropped_cap: index.counts.dropped_cap,
        indexed: index.counts.indexed,
        shared_hashes: index.counts.shared_hashes,
        candidate_pairs,
        duplicate_documents: canonical.iter().filter(|&&c| !c).count() as u64,
        seed_limit: index.rule.seed_limit,
        exclude_above: index.rule.exclude_above,
        ..Stats::default()
    };
    let mut all: Vec<PairMatch> = Vec::with_capacity(scored.len());
    for (m, counts) in scored {
        stats.seeds += counts.seeds;
        stats.extension_steps += counts.steps;
        stats.budget_exhausted += counts.exhausted;
        all.push(m);
    }

    // Pairs the caller knows to be identical are reported whatever their
    // score: as matched, or, if no shared fingerprint brought them
    // together, each document matched whole with its equal.
    let declared = declared_identical(corpus, &prep);
    let found: std::collections::HashSet<(u32, u32)> =
        candidates.iter().map(|c| (c.a, c.b)).collect();
    for &(a, b) in &declared {
        if !found.contains(&(a, b)) {
            all.push(whole_pair(&prep, a, b));
        }
    }
    for m in &mut all {
        m.identical = m.identical
            || declared
                .binary_search(&(dense(&prep, m.a), dense(&prep, m.b)))
                .is_ok();
    }
    all.sort_by(|x, y| {
        (y.covered_a + y.covered_b)
            .cmp(&(x.covered_a + x.covered_b))
            .then(y.shared_fingerprints.cmp(&x.shared_fingerprints))
            .then((x.a, x.b).cmp(&(y.a, y.b)))
    });

    // Clusters from every scored pair, before the report's cut.
    let mut links: Vec<(u32, u32, f64)> = all
        .iter()
        .filter(|m| m.similarity >= options.cluster_threshold)
        .map(|m| (dense(&prep, m.a), dense(&prep, m.b), m.similarity))
        .collect();
    for &(a, b) in &declared {
        links.push((a, b, 0.0));
    }
    let scores: Vec<(u32, u32, f64)> = all
        .iter()
        .map(|m| (dense(&prep, m.a), dense(&prep, m.b), m.similarity))
        .collect();
    let clusters = clusters(&prep, &links, &scores);

    let mut pairs: Vec<PairMatch> = all
        .into_iter()
        .filter(|m| {
            m.identical
                && declared
                    .binary_search(&(dense(&prep, m.a), dense(&prep, m.b)))
                    .is_ok()
                || m.similarity >= options.min_similarity
        })
        .collect();
    if options.max_pairs != 0 {
        pairs.truncate(options.max_pairs);
    }

    let mut documents = vec![DocumentSummary::default(); corpus.len()];
    for (doc, &n) in prep.docs.iter().zip(&fp_counts) {
        documents[doc.id as usize] = DocumentSummary {
            fingerprints: u32::try_from(n).unwrap_or(u32::MAX),
            base_symbols: doc.base_symbols,
            common_symbols: doc.common_symbols,
        };
    }
    Ok(Comparison {
        pairs,
        clusters,
        documents,
        base_ranges,
        stats,
    })
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

/// The shortest chain kept in a pair; see
/// [`MatchOptions::chain_floor_scale`].
fn chain_floor(prep: &Prepared<'_>, a: u32, b: u32, options: &MatchOptions) -> usize {
    let fixed = options.min_fragment_symbols;
    if options.chain_floor_scale == 0.0 {
        return fixed;
    }
    let n = prep.subs[a as usize]
        .symbols
        .min(prep.subs[b as usize].symbols);
    let scaled = (options.chain_floor_scale * (n as f64).sqrt()).ceil() as usize;
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

/// The pairs of submissions that share an indexed hash, from the sorted
/// records.
fn candidates(recs: &[crate::index::Record]) -> Vec<Candidate> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < recs.len() {
        let (a, b) = (recs[i].a, recs[i].b);
        let n = recs[i..]
            .iter()
            .take_while(|r| r.a == a && r.b == b)
            .count();
        let shared = recs[i..i + n].iter().map(|r| u64::from(r.contrib())).sum();
        out.push(Candidate {
            a,
            b,
            shared,
            records: (i, i + n),
        });
        i += n;
    }
    out
}

/// Dense index of a submission id.
fn dense(prep: &Prepared<'_>, id: SubmissionId) -> u32 {
    prep.subs.partition_point(|s| s.id < id) as u32
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
    fragments: Vec<crate::Fragment>,
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
                fragments.push(crate::Fragment {
                    a_doc: crate::DocId(x.id),
                    a_start: 0,
                    b_doc: crate::DocId(y.id),
                    b_start: 0,
                    len: x.symbols.len() as u32,
                });
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
    links: &[(u32, u32, f64)],
    scores: &[(u32, u32, f64)],
) -> Vec<Cluster> {
    let mut parent: Vec<u32> = (0..prep.subs.len() as u32).collect();
    fn find(parent: &mut [u32], mut x: u32) -> u32 {
        while parent[x as usize] != x {
            let p = parent[x as usize];
            parent[x as usize] = parent[p as usize];
            x = p;
        }
        x
    }
    for &(a, b, _) in links {
        let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
        if ra != rb {
            // The smaller index becomes the root: the result is order-free anyway.
            let (lo, hi) = (ra.min(rb), ra.max(rb));
            parent[hi as usize] = lo;
        }
    }
    let mut members: Vec<Vec<u32>> = vec![Vec::new(); prep.subs.len()];
    for s in 0..prep.subs.len() as u32 {
        let r = find(&mut parent, s);
        members[r as usize].push(s);
    }
    let mut best = vec![0.0f64; prep.subs.len()];
    for &(a, b, similarity) in scores {
        let r = find(&mut parent, a);
        if r == find(&mut parent, b) {
            best[r as usize] = best[r as usize].max(similarity);
        }
    }
    let mut out: Vec<Cluster> = members
        .into_iter()
        .zip(best)
        .filter(|(m, _)| m.len() >= 2)
        .map(|(m, max_similarity)| Cluster {
            max_similarity,
            submissions: m.into_iter().map(|s| prep.subs[s as usize].id).collect(),
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
