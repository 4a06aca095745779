//! From matched fingerprints of one pair of submissions to exact, maximal,
//! non-overlapping fragments (paper §5.2: "matches merged into longer ones";
//! exact matching inside a detected pair recovers the ends k-grams lose).

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

use crate::index::{Index, Prepared, Record};
use crate::{DocId, SymbolFragment};

/// Extension budget per document pair: this many extension steps per
/// symbol of the two documents. Ordinary matches use far less (each
/// diagonal is walked once); the budget only bites on adversarial,
/// highly repetitive input.
pub const EXTENSION_BUDGET_PER_SYMBOL: u64 = 16;

/// Fragments and counters of one pair of submissions.
pub(crate) struct PairFragments {
    pub fragments: Vec<SymbolFragment>,
    pub covered_a: u64,
    pub covered_b: u64,
    pub longest: u32,
    pub seeds: u64,
    pub steps: u64,
    pub exhausted: u64,
}

#[derive(Clone, Copy)]
struct Seed {
    da: u32,
    db: u32,
    diag: i64,
    pa: u32,
    pb: u32,
}

/// A candidate or kept match in internal document indices.
type Cand = (u32, u32, u32, u32); // (da, sa, db, sb)

/// Computes the fragments of one pair of submissions from its records.
pub(crate) fn pair_fragments(
    records: &[Record],
    index: &Index,
    prep: &Prepared<'_>,
    k: usize,
    min_len: usize,
) -> PairFragments {
    let seeds = collect_seeds(records, index);
    let mut out = PairFragments {
        fragments: Vec::new(),
        covered_a: 0,
        covered_b: 0,
        longest: 0,
        seeds: seeds.len() as u64,
        steps: 0,
        exhausted: 0,
    };
    let mut cands: Vec<(u32, Cand)> = Vec::new();
    let mut i = 0;
    while i < seeds.len() {
        let (da, db) = (seeds[i].da, seeds[i].db);
        let n = seeds[i..]
            .iter()
            .take_while(|s| s.da == da && s.db == db)
            .count();
        extend_doc_pair(&seeds[i..i + n], prep, k, &mut cands, &mut out);
        i += n;
    }
    let min_len = u32::try_from(min_len.max(1)).unwrap_or(u32::MAX);
    let kept = select(cands, min_len);
    for &(len, (da, sa, db, sb)) in &kept {
        let (doc_a, doc_b) = (&prep.docs[da as usize], &prep.docs[db as usize]);
        // A fragment never holds an excluded symbol: extension stops before
        // them, a seed's ends are trimmed, and an excluded range (at least
        // k long) cannot sit strictly inside a k-gram.
        debug_assert_eq!(overlap(&doc_a.excluded, sa, sa + len), 0);
        debug_assert_eq!(overlap(&doc_b.excluded, sb, sb + len), 0);
        out.covered_a += u64::from(len);
        out.covered_b += u64::from(len);
        out.longest = out.longest.max(len);
        out.fragments.push(SymbolFragment {
            a_doc: DocId(doc_a.id),
            a_start: sa,
            b_doc: DocId(doc_b.id),
            b_start: sb,
            len,
        });
    }
    out.fragments
        .sort_unstable_by_key(|f| (Reverse(f.len), f.a_doc, f.a_start, f.b_doc, f.b_start));
    out
}

/// Every pair of kept occurrences of a shared hash, one from each side,
/// sorted by document pair, diagonal and position.
fn collect_seeds(records: &[Record], index: &Index) -> Vec<Seed> {
    let mut seeds = Vec::new();
    for r in records {
        let bucket = &index.buckets[r.bucket as usize];
        let (ga, gb) = (
            bucket.range(r.a_start, r.a_len),
            bucket.range(r.b_start, r.b_len),
        );
        for ea in ga {
            for eb in gb {
                seeds.push(Seed {
                    da: ea.doc,
                    db: eb.doc,
                    diag: i64::from(eb.pos) - i64::from(ea.pos),
                    pa: ea.pos,
                    pb: eb.pos,
                });
            }
        }
    }
    seeds.sort_unstable_by_key(|s| (s.da, s.db, s.diag, s.pa));
    seeds
}

/// Extends the seeds of one document pair to maximal exact matches, walking
/// each diagonal once: a seed inside the match found on its diagonal is
/// skipped, which merges runs consecutive in both documents.
fn extend_doc_pair(
    seeds: &[Seed],
    prep: &Prepared<'_>,
    k: usize,
    cands: &mut Vec<(u32, Cand)>,
    out: &mut PairFragments,
) {
    let (da, db) = (seeds[0].da, seeds[0].db);
    let (doc_a, doc_b) = (&prep.docs[da as usize], &prep.docs[db as usize]);
    let (a, b) = (doc_a.symbols, doc_b.symbols);
    let mut budget = EXTENSION_BUDGET_PER_SYMBOL * (a.len() as u64 + b.len() as u64);
    let mut ran_out = false;
    let mut diag = None;
    let mut floor = 0usize; // end (in a) of the match found on this diagonal
    for s in seeds {
        if diag != Some(s.diag) {
            diag = Some(s.diag);
            floor = 0;
        }
        let (pa, pb) = (s.pa as usize, s.pb as usize);
        if pa < floor {
            continue;
        }
        // Verify the k-gram: equal hashes may, rarely, be a collision.
        if pa + k > a.len() || pb + k > b.len() || a[pa..pa + k] != b[pb..pb + k] {
            continue;
        }
        let (left_a, right_a, touches_a) = seed_limits(&doc_a.excluded, pa, k, a.len());
        let (left_b, right_b, touches_b) = seed_limits(&doc_b.excluded, pb, k, b.len());
        let max_left = (pa - left_a.max(floor)).min(pb - left_b);
        let mut left = 0;
        while left < max_left && a[pa - left - 1] == b[pb - left - 1] {
            if budget == 0 {
                ran_out = true;
                break;
            }
            budget -= 1;
            left += 1;
        }
        let (ea, eb) = (pa + k, pb + k);
        let max_right = (right_a - ea).min(right_b - eb);
        let mut right = 0;
        while right < max_right && a[ea + right] == b[eb + right] {
            if budget == 0 {
                ran_out = true;
                break;
            }
            budget -= 1;
            right += 1;
        }
        out.steps += (left + right) as u64;
        let (mut sa, mut sb, mut len) = (pa - left, pb - left, left + k + right);
        floor = sa + len;
        // A seed may straddle excluded (base- or common-covered) symbols:
        // trim them off the ends, where they would only inflate the fragment.
        // Extension never enters them, so only a seed touching them can.
        if touches_a || touches_b {
            let (xa, xb) = (&doc_a.excluded, &doc_b.excluded);
            while len > 0 && (is_excluded(xa, sa) || is_excluded(xb, sb)) {
                (sa, sb, len) = (sa + 1, sb + 1, len - 1);
            }
            while len > 0 && (is_excluded(xa, sa + len - 1) || is_excluded(xb, sb + len - 1)) {
                len -= 1;
            }
        }
        if len > 0 {
            // Positions and lengths fit in u32: documents are checked on entry.
            cands.push((len as u32, (da, sa as u32, db, sb as u32)));
        }
    }
    if ran_out {
        out.exhausted += 1;
    }
}

/// For the seed `p..p + k` in a document of `len` symbols: the leftmost
/// position an extension leftwards from `p` may reach and the end of the
/// stretch from `p + k` rightwards, both without entering an excluded
/// symbol, and whether the seed itself touches one. One binary search in
/// the common case of a seed clear of excluded symbols.
fn seed_limits(ranges: &[(u32, u32)], p: usize, k: usize, len: usize) -> (usize, usize, bool) {
    // The first range ending after `p`; all before it end at or before `p`.
    let i = ranges.partition_point(|&(_, end)| (end as usize) <= p);
    match ranges.get(i) {
        None => (ranges.last().map_or(0, |r| r.1 as usize), len, false),
        Some(&(s, _)) => {
            let s = s as usize;
            let left = match i {
                _ if s < p => p,
                0 => 0,
                _ => ranges[i - 1].1 as usize,
            };
            if s >= p + k {
                (left, s, false)
            } else {
                (left, right_limit(ranges, p + k, len), true)
            }
        }
    }
}

/// End of the stretch from `e` rightwards free of excluded symbols.
fn right_limit(ranges: &[(u32, u32)], e: usize, len: usize) -> usize {
    let i = ranges.partition_point(|&(_, end)| (end as usize) <= e);
    match ranges.get(i) {
        None => len,
        Some(&(s, _)) => (s as usize).max(e),
    }
}

/// Whether symbol `p` is inside one of the ranges.
fn is_excluded(ranges: &[(u32, u32)], p: usize) -> bool {
    let i = ranges.partition_point(|&(_, end)| (end as usize) <= p);
    ranges.get(i).is_some_and(|&(s, _)| s as usize <= p)
}

/// Number of symbols of `s..e` inside the ranges.
fn overlap(ranges: &[(u32, u32)], s: u32, e: u32) -> u64 {
    let i = ranges.partition_point(|&(_, end)| end <= s);
    ranges[i..]
        .iter()
        .take_while(|&&(bs, _)| bs < e)
        .map(|&(bs, be)| u64::from(be.min(e) - bs.max(s)))
        .sum()
}

/// Greedy tiling, longest first: a candidate that overlaps kept fragments
/// on either side is cut to its free pieces, which go back in the queue.
/// The result never overlaps itself on either side.
fn select(mut cands: Vec<(u32, Cand)>, min_len: u32) -> Vec<(u32, Cand)> {
    cands.retain(|&(len, _)| len >= min_len);
    if cands.len() <= 1 {
        // Most pairs of a large batch share a single short match.
        return cands;
    }
    let mut heap: BinaryHeap<(u32, Reverse<Cand>)> = cands
        .into_iter()
        .map(|(len, c)| (len, Reverse(c)))
        .collect();
    let mut kept_a: BTreeMap<(u32, u32), u32> = BTreeMap::new();
    let mut kept_b: BTreeMap<(u32, u32), u32> = BTreeMap::new();
    let mut kept = Vec::new();
    let mut blocked = Vec::new();
    while let Some((len, Reverse((da, sa, db, sb)))) = heap.pop() {
        blocked.clear();
        blocked_offsets(&kept_a, da, sa, len, &mut blocked);
        blocked_offsets(&kept_b, db, sb, len, &mut blocked);
        if blocked.is_empty() {
            kept_a.insert((da, sa), sa + len);
            kept_b.insert((db, sb), sb + len);
            kept.push((len, (da, sa, db, sb)));
            continue;
        }
        blocked.sort_unstable();
        let mut free_from = 0;
        for &(x, y) in blocked.iter().chain(std::iter::once(&(len, len))) {
            if x > free_from && x - free_from >= min_len {
                heap.push((
                    x - free_from,
                    Reverse((da, sa + free_from, db, sb + free_from)),
                ));
            }
            free_from = free_from.max(y);
        }
    }
    kept
}

/// Offsets (relative to `s`) of `s..s + len` in `doc` covered by kept
/// fragments.
fn blocked_offsets(
    kept: &BTreeMap<(u32, u32), u32>,
    doc: u32,
    s: u32,
    len: u32,
    out: &mut Vec<(u32, u32)>,
) {
    let e = s + len;
    for (&(d, start), &end) in kept.range(..(doc, e)).rev() {
        if d != doc || end <= s {
            break;
        }
        out.push((start.max(s) - s, end.min(e) - s));
    }
}

/// Keeps the fragments that belong to a chain of at least `min_chain`
/// symbols — fragments in the same two documents, in the same order on
/// both sides, each starting at most `gap` symbols after the previous one
/// ends on both sides — in their order; see
/// [`MatchOptions::chain_gap`](crate::MatchOptions::chain_gap).
pub(crate) fn chain(f: &mut PairFragments, gap: usize, min_chain: usize) {
    let frags = &f.fragments;
    let mut order: Vec<usize> = (0..frags.len()).collect();
    order.sort_by_key(|&i| {
        let x = &frags[i];
        (x.a_doc, x.b_doc, x.a_start, x.b_start)
    });
    let mut keep = vec![false; frags.len()];
    let mut run: Vec<usize> = Vec::new();
    let mut run_len = 0usize;
    let mut flush = |run: &mut Vec<usize>, run_len: &mut usize| {
        if *run_len >= min_chain {
            for &i in run.iter() {
                keep[i] = true;
            }
        }
        run.clear();
        *run_len = 0;
    };
    for &i in &order {
        let x = frags[i];
        let joins = run.last().is_some_and(|&j| {
            let p = frags[j];
            let (a_end, b_end) = (p.a_start + p.len, p.b_start + p.len);
            p.a_doc == x.a_doc
                && p.b_doc == x.b_doc
                && x.a_start >= a_end
                && x.b_start >= b_end
                && (x.a_start - a_end) as usize <= gap
                && (x.b_start - b_end) as usize <= gap
        });
        if !joins {
            flush(&mut run, &mut run_len);
        }
        run.push(i);
        run_len += x.len as usize;
    }
    flush(&mut run, &mut run_len);
    let mut i = 0;
    f.fragments.retain(|_| {
        i += 1;
        keep[i - 1]
    });
}
