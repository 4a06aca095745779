//! The pipeline: fingerprints → index → ranked pairs → fragments → scores
//! and clusters.

use bryo_engine::Hasher;
use rayon::prelude::*;

use crate::fragments::pair_fragments;
use crate::index::{build_index, fingerprint_all, BaseSet, Prepared};
use crate::{Cluster, Comparison, Corpus, DocumentSummary, Error, MatchOptions, PairMatch, Stats};

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
/// 2. The fingerprints are grouped by hash with a bucketed sort.
/// 3. A hash occurring among **all** k-grams of the base documents is
///    dropped; in every document, each symbol covered by a k-gram whose hash
///    occurs among all k-grams of the base is *base-covered* and counts
///    neither as matched nor in the totals.
/// 4. A hash in more than `max_submissions` submissions is dropped, and the
///    k-gram of each of its occurrences becomes *common-covered*: like a
///    base-covered symbol, it is never matched (MOSS: such a passage is
///    "treated as if it appeared in a base file"), but it stays in the
///    totals. Of one hash, at most `occurrence_cap` occurrences per document
///    are kept (the first ones).
/// 5. Pairs of submissions are formed only from shared hashes (never
///    within a submission, never old with old) and ranked by shared
///    fingerprints; the first `max_pairs` (or all) get fragments: every pair
///    of kept occurrences of a shared hash is a seed; its k-gram is checked
///    symbol by symbol (a hash collision yields nothing), then extended left
///    and right to the maximal exact match, never into base- or
///    common-covered symbols (such symbols inside the seed are trimmed off
///    the ends), each diagonal of a document pair walked once, within a
///    budget of 16 extension steps per symbol of the two documents. The
///    matches are then tiled longest first: a match overlapping a kept
///    fragment on either side is cut to its free pieces, which compete
///    again by length.
///    Fragments shorter than `min_fragment_symbols` are dropped.
/// 6. Pairs are scored and ranked by covered symbols; clusters are the
///    connected components of pairs with `similarity >= cluster_threshold`.
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
    let (fps, duplicate_documents) = fingerprint_all(&prep.docs, options)?;
    let mut index = build_index(&fps, &prep, &base, options);
    prep.mark_common(&std::mem::take(&mut index.common), options.config.k());
    // The index holds what is still needed; free the rest before scoring.
    let fp_counts: Vec<usize> = fps.iter().map(Vec::len).collect();
    drop(fps);

    let mut candidates = Vec::new();
    let recs = &index.records;
    let mut i = 0;
    while i < recs.len() {
        let (a, b) = (recs[i].a, recs[i].b);
        let n = recs[i..]
            .iter()
            .take_while(|r| r.a == a && r.b == b)
            .count();
        let shared = recs[i..i + n].iter().map(|r| u64::from(r.contrib())).sum();
        candidates.push(Candidate {
            a,
            b,
            shared,
            records: (i, i + n),
        });
        i += n;
    }
    let candidate_pairs = candidates.len() as u64;
    candidates.sort_unstable_by(|x, y| y.shared.cmp(&x.shared).then((x.a, x.b).cmp(&(y.a, y.b))));
    if options.max_pairs != 0 {
        candidates.truncate(options.max_pairs);
    }

    let k = options.config.k();
    let scored: Vec<_> = candidates
        .par_iter()
        .map(|c| {
            let f = pair_fragments(
                &recs[c.records.0..c.records.1],
                &index,
                &prep,
                k,
                options.min_fragment_symbols,
            );
            let identical = identical(&prep, c.a, c.b);
            (c, f, identical)
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
        duplicate_documents,
        ..Stats::default()
    };
    let mut pairs = Vec::with_capacity(scored.len());
    let mut links = Vec::new();
    for (c, f, identical) in scored {
        stats.seeds += f.seeds;
        stats.extension_steps += f.steps;
        stats.budget_exhausted += f.exhausted;
        let (sa, sb) = (&prep.subs[c.a as usize], &prep.subs[c.b as usize]);
        let percent = |covered: u64, total: u64| match total {
            0 => 0.0,
            _ => 100.0 * covered as f64 / total as f64,
        };
        let both = sa.symbols + sb.symbols;
        let similarity = match both {
            0 => 0.0,
            _ => (f.covered_a + f.covered_b) as f64 / both as f64,
        };
        if similarity >= options.cluster_threshold {
            links.push((c.a, c.b));
        }
        pairs.push(PairMatch {
            a: sa.id,
            b: sb.id,
            shared_fingerprints: c.shared,
            symbols_a: sa.symbols,
            symbols_b: sb.symbols,
            covered_a: f.covered_a,
            covered_b: f.covered_b,
            a_percent: percent(f.covered_a, sa.symbols),
            b_percent: percent(f.covered_b, sb.symbols),
            similarity,
            longest_fragment: f.longest,
            identical,
            fragments: f.fragments,
        });
    }
    pairs.sort_by(|x, y| {
        (y.covered_a + y.covered_b)
            .cmp(&(x.covered_a + x.covered_b))
            .then(y.shared_fingerprints.cmp(&x.shared_fingerprints))
            .then((x.a, x.b).cmp(&(y.a, y.b)))
    });

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
        clusters: clusters(&prep, &links),
        documents,
        base_ranges,
        stats,
    })
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

/// Connected components of the linked submissions, by union-find.
fn clusters(prep: &Prepared<'_>, links: &[(u32, u32)]) -> Vec<Cluster> {
    let mut parent: Vec<u32> = (0..prep.subs.len() as u32).collect();
    fn find(parent: &mut [u32], mut x: u32) -> u32 {
        while parent[x as usize] != x {
            let p = parent[x as usize];
            parent[x as usize] = parent[p as usize];
            x = p;
        }
        x
    }
    for &(a, b) in links {
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
    let mut out: Vec<Cluster> = members
        .into_iter()
        .filter(|m| m.len() >= 2)
        .map(|m| Cluster {
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
