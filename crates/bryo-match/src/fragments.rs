//! From matched fingerprints of one pair of submissions to exact, maximal,
//! non-overlapping fragments (paper §5.2: "matches merged into longer ones";
//! exact matching inside a detected pair recovers the ends k-grams lose),
//! and from those to merged fragments across short gaps (Sağlam et al.,
//! "Obfuscation-resilient software plagiarism detection with JPlag", ICSE
//! 2024: subsequence match merging).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::index::{Entry, Index, Prepared, Record};
use crate::{DocId, Merging, Part, SymbolFragment};

/// Extension budget per document pair: this many extension steps per
/// symbol of the two documents. Ordinary matches use far less (each
/// diagonal is walked once); the budget only bites on adversarial,
/// highly repetitive input.
pub const EXTENSION_BUDGET_PER_SYMBOL: u64 = 16;

/// Fragments and counters of one pair of submissions.
pub(crate) struct PairFragments {
    pub fragments: Vec<SymbolFragment>,
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
    let mut out = PairFragments {
        fragments: Vec::new(),
        seeds: 0,
        steps: 0,
        exhausted: 0,
    };
    let mut cands: Vec<(u32, Cand)> = Vec::new();
    match packed_seeds(records, index, prep) {
        // Most pairs are of one document each: their seeds are sorted as
        // single numbers.
        Some((da, db, keys, packing)) => {
            out.seeds = keys.len() as u64;
            if !keys.is_empty() {
                // At most one candidate a seed: no growing on the way.
                cands.reserve_exact(keys.len());
                let seeds = keys.iter().map(|&key| packing.seed(key));
                extend_doc_pair(da, db, seeds, prep, k, &mut cands, &mut out);
            }
        }
        None => {
            let seeds = collect_seeds(records, index);
            out.seeds = seeds.len() as u64;
            cands.reserve_exact(seeds.len());
            let mut i = 0;
            while i < seeds.len() {
                let (da, db) = (seeds[i].da, seeds[i].db);
                let n = seeds[i..]
                    .iter()
                    .take_while(|s| s.da == da && s.db == db)
                    .count();
                let run = seeds[i..i + n].iter().map(|s| (s.diag, s.pa, s.pb));
                extend_doc_pair(da, db, run, prep, k, &mut cands, &mut out);
                i += n;
            }
        }
    }
    let min_len = u32::try_from(min_len.max(1)).unwrap_or(u32::MAX);
    let kept = select(cands, min_len, |d| prep.docs[d as usize].symbols.len());
    out.fragments.reserve_exact(kept.len());
    for &(len, (da, sa, db, sb)) in &kept {
        let (doc_a, doc_b) = (&prep.docs[da as usize], &prep.docs[db as usize]);
        // A fragment never holds an excluded symbol: extension stops before
        // them, a seed's ends are trimmed, and an excluded range (at least
        // k long) cannot sit strictly inside a k-gram.
        debug_assert_eq!(overlap(&doc_a.excluded, sa, sa + len), 0);
        debug_assert_eq!(overlap(&doc_b.excluded, sb, sb + len), 0);
        out.fragments.push(SymbolFragment::exact(
            DocId(doc_a.id),
            sa,
            DocId(doc_b.id),
            sb,
            len,
        ));
    }
    sort_longest_first(&mut out.fragments);
    out
}

/// Longest (most matched symbols) first, ties by position.
fn sort_longest_first(fragments: &mut [SymbolFragment]) {
    fragments.sort_unstable_by_key(|f| (Reverse(f.len), f.a_doc, f.a_start, f.b_doc, f.b_start));
}

/// A seed of one pair of documents as one number that sorts by diagonal,
/// then position: `(diag + len_a) << shift | pa`, where `pa < len_a ≤
/// 2^shift` and `0 < diag + len_a < len_a + len_b`.
#[derive(Clone, Copy)]
struct Packing {
    len_a: i64,
    shift: u32,
}

impl Packing {
    /// The packing for documents of `len_a` and `len_b` symbols, if every
    /// seed's number fits in 64 bits.
    fn new(len_a: usize, len_b: usize) -> Option<Packing> {
        let bits = |n: usize| usize::BITS - n.leading_zeros();
        let shift = bits(len_a);
        (shift + bits(len_a + len_b) <= 64).then_some(Packing {
            len_a: len_a as i64,
            shift,
        })
    }

    fn key(self, pa: u32, pb: u32) -> u64 {
        let diag = i64::from(pb) - i64::from(pa);
        ((diag + self.len_a) as u64) << self.shift | u64::from(pa)
    }

    /// `(diag, pa, pb)` of a key.
    fn seed(self, key: u64) -> (i64, u32, u32) {
        let pa = (key & ((1u64 << self.shift) - 1)) as u32;
        let diag = (key >> self.shift) as i64 - self.len_a;
        (diag, pa, (i64::from(pa) + diag) as u32)
    }
}

/// The seeds of a pair whose records all join the same two documents, as
/// sorted [`Packing`] numbers with the documents and their packing; `None`
/// when the records join several documents (or the numbers would not fit).
fn packed_seeds(
    records: &[Record],
    index: &Index,
    prep: &Prepared<'_>,
) -> Option<(u32, u32, Vec<u64>, Packing)> {
    let Some(first) = records.first() else {
        return Some((0, 0, Vec::new(), Packing::new(0, 0)?));
    };
    let (ga, gb) = sides(first, index);
    let (da, db) = (ga[0].doc, gb[0].doc);
    let packing = Packing::new(
        prep.docs[da as usize].symbols.len(),
        prep.docs[db as usize].symbols.len(),
    )?;
    let mut keys = Vec::with_capacity(seed_count(records));
    for r in records {
        let (ga, gb) = sides(r, index);
        if ga.iter().any(|e| e.doc != da) || gb.iter().any(|e| e.doc != db) {
            return None;
        }
        for ea in ga {
            keys.extend(gb.iter().map(|eb| packing.key(ea.pos, eb.pos)));
        }
    }
    keys.sort_unstable();
    Some((da, db, keys, packing))
}

/// The number of seeds of a pair's records: every pairing of a record's
/// occurrences on side `a` with those on side `b` (vectors of seeds are
/// sized with it at once).
fn seed_count(records: &[Record]) -> usize {
    records
        .iter()
        .map(|r| r.a_len as usize * r.b_len as usize)
        .sum()
}

/// The kept occurrences a record joins: its hash's entries on side `a` and
/// on side `b`.
fn sides<'i>(r: &Record, index: &'i Index) -> (&'i [Entry], &'i [Entry]) {
    let bucket = &index.buckets[r.bucket as usize];
    (
        bucket.range(r.a_start, r.a_len),
        bucket.range(r.b_start, r.b_len),
    )
}

/// Every pair of kept occurrences of a shared hash, one from each side,
/// sorted by document pair, diagonal and position.
fn collect_seeds(records: &[Record], index: &Index) -> Vec<Seed> {
    let mut seeds = Vec::with_capacity(seed_count(records));
    for r in records {
        let (ga, gb) = sides(r, index);
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

/// Whether two k-grams are equal, compared four symbols at a time with no
/// early exit (most compared k-grams are equal: this only catches the rare
/// hash collision).
#[inline]
fn same_kgram(a: &[u64], b: &[u64]) -> bool {
    debug_assert_eq!(a.len(), b.len());
    let (mut ca, mut cb) = (a.chunks_exact(4), b.chunks_exact(4));
    let mut diff = 0u64;
    for (x, y) in (&mut ca).zip(&mut cb) {
        diff |= (x[0] ^ y[0]) | (x[1] ^ y[1]) | (x[2] ^ y[2]) | (x[3] ^ y[3]);
    }
    for (x, y) in ca.remainder().iter().zip(cb.remainder()) {
        diff |= x ^ y;
    }
    diff == 0
}

/// Extends the seeds `(diag, pa, pb)` of documents `da` and `db`, sorted by
/// diagonal and position, to maximal exact matches, walking each diagonal
/// once: a seed inside the match found on its diagonal is skipped, which
/// merges runs consecutive in both documents.
fn extend_doc_pair(
    da: u32,
    db: u32,
    seeds: impl Iterator<Item = (i64, u32, u32)>,
    prep: &Prepared<'_>,
    k: usize,
    cands: &mut Vec<(u32, Cand)>,
    out: &mut PairFragments,
) {
    let (doc_a, doc_b) = (&prep.docs[da as usize], &prep.docs[db as usize]);
    let (a, b) = (doc_a.symbols, doc_b.symbols);
    let mut budget = EXTENSION_BUDGET_PER_SYMBOL * (a.len() as u64 + b.len() as u64);
    let mut ran_out = false;
    let mut diag = None;
    let mut floor = 0usize; // end (in a) of the match found on this diagonal
    for (s_diag, pa, pb) in seeds {
        if diag != Some(s_diag) {
            diag = Some(s_diag);
            floor = 0;
        }
        let (pa, pb) = (pa as usize, pb as usize);
        if pa < floor {
            continue;
        }
        // Verify the k-gram: equal hashes may, rarely, be a collision.
        if pa + k > a.len() || pb + k > b.len() || !same_kgram(&a[pa..pa + k], &b[pb..pb + k]) {
            continue;
        }
        let (left_a, right_a, touches_a) = seed_limits(&doc_a.excluded, pa, k, a.len());
        let (left_b, right_b, touches_b) = seed_limits(&doc_b.excluded, pb, k, b.len());
        // Each step of extension spends one of the budget; a match longer
        // than what is left stops there.
        let mut spend = |len: usize| {
            let step = len.min(budget as usize);
            ran_out |= step < len;
            budget -= step as u64;
            step
        };
        let max_left = (pa - left_a.max(floor)).min(pb - left_b);
        let left = spend(common_suffix(&a[pa - max_left..pa], &b[pb - max_left..pb]));
        let (ea, eb) = (pa + k, pb + k);
        let max_right = (right_a - ea).min(right_b - eb);
        let right = spend(common_prefix(
            &a[ea..ea + max_right],
            &b[eb..eb + max_right],
        ));
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

/// The number of equal symbols at the start of `a` and `b` (of one length),
/// compared four at a time: a match usually ends within the first four,
/// and one test of the four's mask replaces a branch per symbol.
#[inline]
fn common_prefix(a: &[u64], b: &[u64]) -> usize {
    debug_assert_eq!(a.len(), b.len());
    let mut n = 0;
    for (x, y) in a.chunks_exact(4).zip(b.chunks_exact(4)) {
        let differ = u32::from(x[0] != y[0])
            | u32::from(x[1] != y[1]) << 1
            | u32::from(x[2] != y[2]) << 2
            | u32::from(x[3] != y[3]) << 3;
        if differ != 0 {
            return n + differ.trailing_zeros() as usize;
        }
        n += 4;
    }
    n + a[n..]
        .iter()
        .zip(&b[n..])
        .take_while(|(x, y)| x == y)
        .count()
}

/// The number of equal symbols at the end of `a` and `b` (of one length),
/// four at a time from the end (see [`common_prefix`]).
#[inline]
fn common_suffix(a: &[u64], b: &[u64]) -> usize {
    debug_assert_eq!(a.len(), b.len());
    let mut n = 0;
    for (x, y) in a.rchunks_exact(4).zip(b.rchunks_exact(4)) {
        let differ = u32::from(x[3] != y[3])
            | u32::from(x[2] != y[2]) << 1
            | u32::from(x[1] != y[1]) << 2
            | u32::from(x[0] != y[0]) << 3;
        if differ != 0 {
            return n + differ.trailing_zeros() as usize;
        }
        n += 4;
    }
    let rest = a.len() - n;
    n + a[..rest]
        .iter()
        .rev()
        .zip(b[..rest].iter().rev())
        .take_while(|(x, y)| x == y)
        .count()
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

/// Greedy tiling, longest first (ties by position): a candidate that
/// overlaps kept fragments on either side is cut to its free pieces, which
/// go back in the queue. The result never overlaps itself on either side.
/// `doc_len` gives a document's number of symbols.
///
/// The candidates are sorted once; the pieces, always shorter than the
/// candidate they come from, wait in a heap beside them. What is kept is
/// marked in one bitset per document and side, so a candidate's free
/// pieces come from the bits under it, 64 symbols at a time.
fn select(
    mut cands: Vec<(u32, Cand)>,
    min_len: u32,
    doc_len: impl Fn(u32) -> usize,
) -> Vec<(u32, Cand)> {
    cands.retain(|&(len, _)| len >= min_len);
    if cands.len() <= 1 {
        // Most pairs of a large batch share a single short match.
        return cands;
    }
    // The queue's order: longest first, then the smallest position. Most
    // pairs are of one document each: then one number orders them, of 64
    // bits when it fits (sorted apart from the candidates), else of 128.
    let key = |&(len, c): &(u32, Cand)| (Reverse(len), c);
    let first = (cands[0].1 .0, cands[0].1 .2);
    if cands.iter().all(|c| (c.1 .0, c.1 .2) == first) {
        let longest = cands.iter().map(|c| c.0).max().unwrap_or(0);
        match QueueKey::new(longest, doc_len(first.0), doc_len(first.1)) {
            // Sorted as single numbers, then written back in their order.
            Some(q) => {
                let mut keys: Vec<u64> = cands.iter().map(|&(len, c)| q.key(len, c)).collect();
                keys.sort_unstable();
                for (c, &k) in cands.iter_mut().zip(&keys) {
                    *c = q.candidate(k, first);
                }
            }
            None => cands.sort_unstable_by_key(|&(len, (_, sa, _, sb))| {
                u128::from(!len) << 64 | u128::from(sa) << 32 | u128::from(sb)
            }),
        }
    } else {
        cands.sort_unstable_by_key(key);
    }
    let mut covered_a = Coverage::new(cands.iter().map(|c| c.1 .0), &doc_len);
    let mut covered_b = Coverage::new(cands.iter().map(|c| c.1 .2), &doc_len);
    let mut pieces: BinaryHeap<(u32, Reverse<Cand>)> = BinaryHeap::new();
    let mut kept = Vec::new();
    let mut next = cands.into_iter().peekable();
    loop {
        let from_pieces = match (next.peek(), pieces.peek()) {
            (None, None) => break,
            (Some(c), Some(&(len, Reverse(p)))) => key(&(len, p)) < key(c),
            (None, Some(_)) => true,
            (Some(_), None) => false,
        };
        let (len, (da, sa, db, sb)) = match from_pieces {
            true => pieces.pop().map(|(len, Reverse(c))| (len, c)),
            false => next.next(),
        }
        .expect("peeked");
        let (bits_a, bits_b) = (covered_a.bits(da), covered_b.bits(db));
        let mut free_from = 0;
        let mut blocked = false;
        let mut at = 0;
        while at < len {
            let n = (len - at).min(64);
            let mut m = bits_at(bits_a, sa + at, n) | bits_at(bits_b, sb + at, n);
            while m != 0 {
                blocked = true;
                let t = m.trailing_zeros();
                let ones = (!(m >> t)).trailing_zeros();
                let x = at + t;
                if x > free_from && x - free_from >= min_len {
                    let c = (da, sa + free_from, db, sb + free_from);
                    pieces.push((x - free_from, Reverse(c)));
                }
                free_from = x + ones;
                m = match t + ones {
                    64 => 0,
                    cleared => m & (!0u64 << cleared),
                };
            }
            at += n;
        }
        if !blocked {
            set_bits(covered_a.bits_mut(da), sa, len);
            set_bits(covered_b.bits_mut(db), sb, len);
            kept.push((len, (da, sa, db, sb)));
        } else if len > free_from && len - free_from >= min_len {
            let c = (da, sa + free_from, db, sb + free_from);
            pieces.push((len - free_from, Reverse(c)));
        }
    }
    kept
}

/// The queue's order for the candidates of one pair of documents as one
/// number: `(longest − len) << (a_bits + b_bits) | sa << b_bits | sb`, which
/// sorts longest first, then by position, when every length is at most
/// `longest` and positions are below `2^a_bits` and `2^b_bits`.
#[derive(Clone, Copy)]
struct QueueKey {
    longest: u32,
    a_bits: u32,
    b_bits: u32,
}

impl QueueKey {
    /// The packing for candidates of at most `longest` symbols in documents
    /// of `len_a` and `len_b` symbols, if it fits in 64 bits.
    fn new(longest: u32, len_a: usize, len_b: usize) -> Option<QueueKey> {
        let bits = |n: u64| u64::BITS - n.leading_zeros();
        let (l, a, b) = (
            bits(u64::from(longest)),
            bits(len_a as u64),
            bits(len_b as u64),
        );
        (l + a + b <= 64).then_some(QueueKey {
            longest,
            a_bits: a,
            b_bits: b,
        })
    }

    fn key(self, len: u32, (_, sa, _, sb): Cand) -> u64 {
        u64::from(self.longest - len) << (self.a_bits + self.b_bits)
            | u64::from(sa) << self.b_bits
            | u64::from(sb)
    }

    /// The candidate of `key`, in documents `(da, db)`.
    fn candidate(self, key: u64, (da, db): (u32, u32)) -> (u32, Cand) {
        let mask = |bits: u32| (1u64 << bits) - 1;
        let sb = (key & mask(self.b_bits)) as u32;
        let sa = (key >> self.b_bits & mask(self.a_bits)) as u32;
        let len = self.longest - (key >> (self.a_bits + self.b_bits)) as u32;
        (len, (da, sa, db, sb))
    }
}

/// Symbols covered by kept fragments on one side of a pair: a bitset per
/// document the candidates touch.
struct Coverage {
    /// The documents, sorted.
    docs: Vec<u32>,
    /// Their bitsets, in the same order.
    bits: Vec<Vec<u64>>,
}

impl Coverage {
    fn new(docs: impl Iterator<Item = u32>, doc_len: impl Fn(u32) -> usize) -> Coverage {
        let mut docs: Vec<u32> = docs.collect();
        docs.sort_unstable();
        docs.dedup();
        let bits = docs
            .iter()
            .map(|&d| vec![0; doc_len(d).div_ceil(64)])
            .collect();
        Coverage { docs, bits }
    }

    fn index(&self, doc: u32) -> usize {
        match self.docs.len() {
            1 => 0,
            _ => self
                .docs
                .binary_search(&doc)
                .expect("a candidate's document"),
        }
    }

    fn bits(&self, doc: u32) -> &[u64] {
        &self.bits[self.index(doc)]
    }

    fn bits_mut(&mut self, doc: u32) -> &mut [u64] {
        let i = self.index(doc);
        &mut self.bits[i]
    }
}

/// The `n` (1 to 64) bits of `bits` from bit `at`, in the low bits.
fn bits_at(bits: &[u64], at: u32, n: u32) -> u64 {
    let (w, o) = ((at / 64) as usize, at % 64);
    let mut v = bits[w] >> o;
    if o > 0 && o + n > 64 {
        v |= bits[w + 1] << (64 - o);
    }
    match n {
        64 => v,
        _ => v & ((1u64 << n) - 1),
    }
}

/// Sets bits `at..at + n`.
fn set_bits(bits: &mut [u64], at: u32, n: u32) {
    let (mut at, end) = (at, at + n);
    while at < end {
        let (w, o) = ((at / 64) as usize, at % 64);
        let take = (64 - o).min(end - at);
        let mask = match take {
            64 => !0,
            _ => ((1u64 << take) - 1) << o,
        };
        bits[w] |= mask;
        at += take;
    }
}

/// Merges neighbouring exact matches across short gaps by `merging` (see
/// [`Merging`]), then drops the fragments of fewer than `floor` matched
/// symbols; the rest come out longest first.
///
/// `exact` must hold exact matches (no parts) that do not overlap on either
/// side, as [`pair_fragments`] gives them. The result depends only on the
/// set of matches, not on their order; merged fragments never overlap (gaps
/// included) on either side.
pub(crate) fn merge(
    exact: Vec<SymbolFragment>,
    merging: Option<Merging>,
    floor: usize,
) -> Vec<SymbolFragment> {
    let floor = u32::try_from(floor).unwrap_or(u32::MAX);
    let mut out = match merging {
        None => exact,
        Some(m) => merge_neighbours(exact, m),
    };
    out.retain(|f| f.len >= floor);
    sort_longest_first(&mut out);
    out
}

/// Joins every run of neighbours whose gaps `merging` bridges.
fn merge_neighbours(exact: Vec<SymbolFragment>, merging: Merging) -> Vec<SymbolFragment> {
    let n = exact.len();
    if n <= 1 {
        return exact;
    }
    let mut by_a: Vec<usize> = (0..n).collect();
    by_a.sort_unstable_by_key(|&i| (exact[i].a_doc, exact[i].a_start));
    let mut by_b: Vec<usize> = (0..n).collect();
    by_b.sort_unstable_by_key(|&i| (exact[i].b_doc, exact[i].b_start));
    let mut rank_b = vec![0usize; n];
    for (r, &i) in by_b.iter().enumerate() {
        rank_b[i] = r;
    }
    // `links[t]`: the match `by_a[t]` merges with the next one in `a`'s order.
    let links: Vec<bool> = by_a
        .windows(2)
        .map(|w| {
            let (p, q) = (&exact[w[0]], &exact[w[1]]);
            let gaps = (
                q.a_start.checked_sub(p.a_start + p.len),
                q.b_start.checked_sub(p.b_start + p.len),
            );
            p.a_doc == q.a_doc
                && p.b_doc == q.b_doc
                && rank_b[w[1]] == rank_b[w[0]] + 1
                && match gaps {
                    (Some(ga), Some(gb)) => {
                        merging.bridges(ga as usize, gb as usize, p.len as usize, q.len as usize)
                    }
                    _ => false,
                }
        })
        .collect();
    let mut out = Vec::with_capacity(n);
    let mut t = 0;
    while t < n {
        let mut end = t + 1;
        while end < n && links[end - 1] {
            end += 1;
        }
        out.push(joined(by_a[t..end].iter().map(|&i| &exact[i])));
        t = end;
    }
    out
}

/// One fragment from a run of neighbouring exact matches, in order; parts
/// adjacent on both sides become one part.
fn joined<'f>(run: impl Iterator<Item = &'f SymbolFragment>) -> SymbolFragment {
    let mut parts: Vec<Part> = Vec::new();
    let mut first = None;
    for f in run {
        first.get_or_insert((f.a_doc, f.b_doc));
        match parts.last_mut() {
            Some(p) if p.a_end() == f.a_start && p.b_end() == f.b_start => p.len += f.len,
            _ => parts.push(Part {
                a_start: f.a_start,
                b_start: f.b_start,
                len: f.len,
            }),
        }
    }
    let (a_doc, b_doc) = first.expect("a run holds at least one match");
    let mut fragment = SymbolFragment::exact(
        a_doc,
        parts[0].a_start,
        b_doc,
        parts[0].b_start,
        parts.iter().map(|p| p.len).sum(),
    );
    if parts.len() > 1 {
        fragment.parts = parts;
    }
    fragment
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::{BTreeMap, BinaryHeap};

    /// Greedy tiling, longest first: a candidate that overlaps kept fragments
    /// on either side is cut to its free pieces, which go back in the queue.
    /// The result never overlaps itself on either side.
    fn select_reference(mut cands: Vec<(u32, Cand)>, min_len: u32) -> Vec<(u32, Cand)> {
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

    fn exact(a_doc: u32, a_start: u32, b_doc: u32, b_start: u32, len: u32) -> SymbolFragment {
        SymbolFragment::exact(DocId(a_doc), a_start, DocId(b_doc), b_start, len)
    }

    const CAP: Merging = Merging {
        max_gap: 6,
        gap_ratio: 0.5,
    };

    #[test]
    fn packing_fits_64_bits_or_declines() {
        // Documents below 2^31 symbols always pack; longer ones may not.
        let n = (1usize << 31) - 1;
        let p = Packing::new(n, n).unwrap();
        assert!(Packing::new(u32::MAX as usize, u32::MAX as usize).is_none());
        let last = n as u32 - 1;
        assert_eq!(p.seed(p.key(last, 0)), (-i64::from(last), last, 0));
        assert_eq!(p.seed(p.key(0, last)), (i64::from(last), 0, last));
        assert!(p.key(last, 0) < p.key(0, 0) && p.key(0, 0) < p.key(0, last));
    }

    #[test]
    fn queue_keys_decline_what_does_not_fit() {
        assert!(QueueKey::new(u32::MAX, 1 << 15, 1 << 15).is_some());
        assert!(QueueKey::new(u32::MAX, 1 << 16, 1 << 16).is_none());
        assert!(QueueKey::new(1000, (1 << 27) - 1, (1 << 27) - 1).is_some());
    }

    #[test]
    fn a_copy_with_inserted_statements_becomes_one_fragment() {
        // b = a with 4 inserted symbols after 20 and 5 after 40 of a.
        let parts = vec![
            exact(0, 0, 1, 0, 20),
            exact(0, 20, 1, 24, 20),
            exact(0, 40, 1, 49, 12),
        ];
        let merged = merge(parts, Some(CAP), 30);
        assert_eq!(merged.len(), 1);
        let f = &merged[0];
        assert_eq!((f.a_start, f.b_start, f.len), (0, 0, 52));
        assert_eq!((f.a_range(), f.b_range()), (0..52, 0..61));
        // Adjacent on a, apart on b: still three parts, the gaps visible.
        assert_eq!(f.parts.len(), 3);
        assert_eq!(
            f.parts[1],
            Part {
                a_start: 20,
                b_start: 24,
                len: 20
            }
        );
    }

    #[test]
    fn without_merging_short_pieces_fall_under_the_floor() {
        let parts = vec![exact(0, 0, 1, 0, 20), exact(0, 20, 1, 24, 20)];
        assert!(merge(parts.clone(), None, 30).is_empty());
        assert_eq!(merge(parts, None, 20).len(), 2);
    }

    #[test]
    fn gaps_are_judged_on_both_sides_and_against_the_shorter_neighbour() {
        // Gap 7 on b exceeds the cap of 6.
        let wide = vec![exact(0, 0, 1, 0, 20), exact(0, 22, 1, 27, 20)];
        assert_eq!(merge(wide, Some(CAP), 0).len(), 2);
        // Gap 5 ≤ 6, but more than half the 8-symbol neighbour.
        let short = vec![exact(0, 0, 1, 0, 20), exact(0, 25, 1, 25, 8)];
        assert_eq!(merge(short, Some(CAP), 0).len(), 2);
        // Gap 4 ≤ 8 / 2: merged.
        let ok = vec![exact(0, 0, 1, 0, 20), exact(0, 24, 1, 24, 8)];
        assert_eq!(merge(ok, Some(CAP), 0).len(), 1);
    }

    #[test]
    fn crossed_or_interleaved_matches_are_not_neighbours() {
        // Swapped order on b.
        let crossed = vec![exact(0, 0, 1, 30, 20), exact(0, 22, 1, 0, 20)];
        assert_eq!(merge(crossed, Some(CAP), 0).len(), 2);
        // A third match (to another document of b) sits in the gap on a.
        let between = vec![
            exact(0, 0, 1, 0, 20),
            exact(0, 21, 2, 0, 2),
            exact(0, 24, 1, 22, 20),
        ];
        assert_eq!(merge(between, Some(CAP), 0).len(), 3);
        // Other documents: never merged.
        let docs = vec![exact(0, 0, 1, 0, 20), exact(0, 22, 2, 22, 20)];
        assert_eq!(merge(docs, Some(CAP), 0).len(), 2);
    }

    #[test]
    fn parts_adjacent_on_both_sides_become_one() {
        let split = vec![exact(0, 0, 1, 0, 20), exact(0, 20, 1, 20, 20)];
        let merged = merge(split, Some(CAP), 0);
        assert_eq!(merged, vec![exact(0, 0, 1, 0, 40)]);
        assert!(!merged[0].is_merged());
    }

    /// Random exact matches, non-overlapping on each side: lengths and gaps
    /// random, the order on `b` that of `a` with some swaps, so that runs of
    /// neighbours, crossings and several documents all occur.
    fn matches() -> impl Strategy<Value = Vec<SymbolFragment>> {
        prop::collection::vec(
            (
                0u32..2,
                0u32..2,
                1u32..25,
                0u32..12,
                0u32..12,
                any::<bool>(),
            ),
            0..24,
        )
        .prop_map(|specs| {
            let n = specs.len();
            let mut a_pos = [0u32; 2];
            let mut placed: Vec<(u32, u32, u32, u32)> = Vec::with_capacity(n);
            for &(ad, _, len, ga, _, _) in &specs {
                a_pos[ad as usize] += ga;
                placed.push((ad, a_pos[ad as usize], len, 0));
                a_pos[ad as usize] += len;
            }
            let mut order: Vec<usize> = (0..n).collect();
            for i in 1..n {
                if specs[i].5 && specs[i - 1].5 {
                    order.swap(i - 1, i);
                }
            }
            let mut b_pos = [0u32; 2];
            for &i in &order {
                let (_, bd, len, _, gb, _) = specs[i];
                b_pos[bd as usize] += gb;
                placed[i].3 = b_pos[bd as usize];
                b_pos[bd as usize] += len;
            }
            placed
                .iter()
                .zip(&specs)
                .map(|(&(ad, sa, len, sb), s)| exact(ad, sa, 2 + s.1, sb, len))
                .collect()
        })
    }

    /// Deliberately naive: two matches are linked when they share both
    /// documents, come in the same order on both sides, no other match
    /// starts strictly between them on either side, and the gap is
    /// bridged; groups are the connected components.
    fn naive(exact: &[SymbolFragment], m: Merging) -> Vec<Vec<Part>> {
        let n = exact.len();
        let between = |d: DocId, lo: u32, hi: u32, side_a: bool| {
            exact.iter().any(|r| {
                let (rd, rs) = if side_a {
                    (r.a_doc, r.a_start)
                } else {
                    (r.b_doc, r.b_start)
                };
                rd == d && lo < rs && rs < hi
            })
        };
        let mut group: Vec<usize> = (0..n).collect();
        fn root(g: &mut [usize], mut x: usize) -> usize {
            while g[x] != x {
                x = g[x];
            }
            x
        }
        for (i, p) in exact.iter().enumerate() {
            for (j, q) in exact.iter().enumerate() {
                let linked = p.a_doc == q.a_doc
                    && p.b_doc == q.b_doc
                    && q.a_start >= p.a_start + p.len
                    && q.b_start >= p.b_start + p.len
                    && !between(p.a_doc, p.a_start, q.a_start, true)
                    && !between(p.b_doc, p.b_start, q.b_start, false)
                    && m.bridges(
                        (q.a_start - p.a_start - p.len) as usize,
                        (q.b_start - p.b_start - p.len) as usize,
                        p.len as usize,
                        q.len as usize,
                    );
                if linked {
                    let (ri, rj) = (root(&mut group, i), root(&mut group, j));
                    group[ri] = rj;
                }
            }
        }
        let mut groups: BTreeMap<usize, Vec<Part>> = BTreeMap::new();
        for (i, f) in exact.iter().enumerate() {
            let r = root(&mut group, i);
            groups.entry(r).or_default().push(Part {
                a_start: f.a_start,
                b_start: f.b_start,
                len: f.len,
            });
        }
        let mut out: Vec<Vec<Part>> = groups
            .into_values()
            .map(|mut g| {
                g.sort_unstable();
                g
            })
            .collect();
        out.sort_unstable();
        out
    }

    /// The matched symbols of a group, as sorted `(a, b)` positions: parts
    /// adjacent on both sides are coalesced, so groups are compared by
    /// what they match, not by how it is cut.
    fn symbols(parts: &[Part]) -> Vec<(u32, u32)> {
        let mut v: Vec<(u32, u32)> = parts
            .iter()
            .flat_map(|p| (0..p.len).map(move |i| (p.a_start + i, p.b_start + i)))
            .collect();
        v.sort_unstable();
        v
    }

    fn shuffle<T>(items: &mut [T], seed: u64) {
        let mut rng = bryo_engine::SplitMix64::new(seed);
        for i in (1..items.len()).rev() {
            items.swap(i, rng.below(i as u64 + 1) as usize);
        }
    }

    /// Documents' lengths and candidate matches inside them, dense enough
    /// that most overlap; some repeat.
    fn candidates() -> impl Strategy<Value = (Vec<usize>, Vec<(u32, Cand)>)> {
        (
            prop::collection::vec(1usize..300, 1..4),
            prop::collection::vec(any::<(u32, u32, u32, u32, u32)>(), 0..120),
            0u32..3,
        )
            .prop_map(|(lens, raw, repeat)| {
                let n = lens.len() as u32;
                let mut cands: Vec<(u32, Cand)> = raw
                    .into_iter()
                    .map(|(da, db, x, y, l)| {
                        let (da, db) = (da % n, db % n);
                        let (la, lb) = (lens[da as usize] as u32, lens[db as usize] as u32);
                        let len = 1 + l % la.min(lb).min(90);
                        (len, (da, x % (la - len + 1), db, y % (lb - len + 1)))
                    })
                    .collect();
                let again: Vec<_> = cands.iter().step_by(7).copied().collect();
                for _ in 0..repeat {
                    cands.extend(&again);
                }
                (lens, cands)
            })
    }

    proptest! {
        /// Four symbols at a time, the common ends are those of a symbol
        /// by symbol walk (few symbols, so that runs of equal ones are long).
        #[test]
        fn common_ends_match_a_walk(
            pairs in prop::collection::vec((0u64..3, 0u64..3), 0..40),
        ) {
            let (a, b): (Vec<u64>, Vec<u64>) = pairs.into_iter().unzip();
            let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
            let suffix = a.iter().rev().zip(b.iter().rev()).take_while(|(x, y)| x == y).count();
            prop_assert_eq!(common_prefix(&a, &b), prefix);
            prop_assert_eq!(common_suffix(&a, &b), suffix);
            prop_assert_eq!(common_prefix(&a, &a), a.len());
            prop_assert_eq!(common_suffix(&b, &b), b.len());
        }

        #[test]
        fn selection_matches_the_reference(
            (lens, cands) in candidates(),
            min_len in 1u32..20,
            seed in any::<u64>(),
        ) {
            let mut shuffled = cands.clone();
            shuffle(&mut shuffled, seed);
            let mut fast = select(shuffled, min_len, |d| lens[d as usize]);
            let mut naive = select_reference(cands, min_len);
            fast.sort_unstable();
            naive.sort_unstable();
            prop_assert_eq!(fast, naive);
        }

        #[test]
        fn merging_matches_the_naive_reference(
            input in matches(),
            max_gap in 0usize..14,
            ratio in prop::sample::select(vec![0.25, 0.5, 1.0, f64::INFINITY]),
            floor in 0usize..40,
            seed in any::<u64>(),
        ) {
            let m = Merging { max_gap, gap_ratio: ratio };
            let out = merge(input.clone(), Some(m), floor);

            // Order-independent: a shuffled input gives the same output.
            let mut shuffled = input.clone();
            shuffle(&mut shuffled, seed);
            prop_assert_eq!(&merge(shuffled, Some(m), floor), &out);

            // The same groups as the naive reference, floor applied.
            let mut want: Vec<Vec<(u32, u32)>> = naive(&input, m)
                .iter()
                .map(|g| symbols(g))
                .filter(|s| s.len() >= floor)
                .collect();
            want.sort_unstable();
            let mut got: Vec<Vec<(u32, u32)>> =
                out.iter().map(|f| symbols(&f.parts())).collect();
            got.sort_unstable();
            prop_assert_eq!(got, want);

            for f in &out {
                let parts = f.parts();
                // Length = matched symbols; starts = first part; ≥ 2 parts
                // when merged, each gap bridged and non-empty on a side.
                prop_assert_eq!(f.len, parts.iter().map(|p| p.len).sum::<u32>());
                prop_assert_eq!((f.a_start, f.b_start), (parts[0].a_start, parts[0].b_start));
                prop_assert!(f.parts.len() != 1);
                prop_assert!(f.len as usize >= floor);
                for w in parts.windows(2) {
                    let (ga, gb) = (w[1].a_start - w[0].a_end(), w[1].b_start - w[0].b_end());
                    prop_assert!(ga + gb > 0);
                    prop_assert!(ga as usize <= max_gap && gb as usize <= max_gap);
                }
                // Each part is one of the input matches or a union of
                // input matches adjacent on both sides.
                for p in parts.iter() {
                    let covered: u32 = input
                        .iter()
                        .filter(|x| x.a_doc == f.a_doc && x.b_doc == f.b_doc)
                        .filter(|x| x.a_start >= p.a_start && x.a_start + x.len <= p.a_end())
                        .filter(|x| x.b_start >= p.b_start && x.b_start + x.len <= p.b_end())
                        .filter(|x| x.a_start - p.a_start == x.b_start - p.b_start)
                        .map(|x| x.len)
                        .sum();
                    prop_assert_eq!(covered, p.len);
                }
            }
            // Ranges (gaps included) never overlap on either side.
            for (i, f) in out.iter().enumerate() {
                for g in &out[i + 1..] {
                    let apart = |x: std::ops::Range<usize>, y: std::ops::Range<usize>| {
                        x.end <= y.start || y.end <= x.start
                    };
                    prop_assert!(f.a_doc != g.a_doc || apart(f.a_range(), g.a_range()));
                    prop_assert!(f.b_doc != g.b_doc || apart(f.b_range(), g.b_range()));
                }
            }
            // Longest first.
            prop_assert!(out.windows(2).all(|w| w[0].len >= w[1].len));
        }

        /// One number per candidate decodes to the candidate and sorts as
        /// the queue's order (longest first, then by position).
        #[test]
        fn queue_keys_sort_as_the_queue(
            len_a in 1usize..100_000,
            len_b in 1usize..100_000,
            cands in prop::collection::vec(
                (1u32..5000, any::<prop::sample::Index>(), any::<prop::sample::Index>()),
                1..60,
            ),
        ) {
            let cands: Vec<(u32, Cand)> = cands
                .iter()
                .map(|(len, a, b)| (*len, (3, a.index(len_a) as u32, 5, b.index(len_b) as u32)))
                .collect();
            let longest = cands.iter().map(|c| c.0).max().unwrap();
            let q = QueueKey::new(longest, len_a, len_b).unwrap();
            let mut keys: Vec<u64> = cands.iter().map(|&(len, c)| q.key(len, c)).collect();
            keys.sort_unstable();
            let got: Vec<(u32, Cand)> = keys.iter().map(|&k| q.candidate(k, (3, 5))).collect();
            let mut want = cands.clone();
            want.sort_unstable_by_key(|&(len, c)| (Reverse(len), c));
            prop_assert_eq!(got, want);
        }

        #[test]
        fn packed_seeds_sort_by_diagonal_then_position(
            len_a in 1usize..5000,
            len_b in 1usize..5000,
            seeds in prop::collection::vec((any::<prop::sample::Index>(), any::<prop::sample::Index>()), 0..60),
        ) {
            let packing = Packing::new(len_a, len_b).unwrap();
            let seeds: Vec<(u32, u32)> = seeds
                .iter()
                .map(|(a, b)| (a.index(len_a) as u32, b.index(len_b) as u32))
                .collect();
            let mut keys: Vec<u64> = seeds.iter().map(|&(pa, pb)| packing.key(pa, pb)).collect();
            keys.sort_unstable();
            let got: Vec<(i64, u32, u32)> = keys.iter().map(|&k| packing.seed(k)).collect();
            let mut want: Vec<(i64, u32, u32)> = seeds
                .iter()
                .map(|&(pa, pb)| (i64::from(pb) - i64::from(pa), pa, pb))
                .collect();
            want.sort_unstable();
            prop_assert_eq!(got, want);
        }

        #[test]
        fn kgram_comparison_matches_slices(
            a in prop::collection::vec(0u64..3, 0..30),
            flip in any::<prop::sample::Index>(),
        ) {
            let mut b = a.clone();
            prop_assert!(same_kgram(&a, &b));
            if !b.is_empty() {
                let i = flip.index(b.len());
                b[i] ^= 1 << 40;
                prop_assert!(!same_kgram(&a, &b));
            }
        }

        #[test]
        fn without_merging_only_the_floor_applies(input in matches(), floor in 0usize..40) {
            let out = merge(input.clone(), None, floor);
            let mut want: Vec<SymbolFragment> =
                input.into_iter().filter(|f| f.len as usize >= floor).collect();
            want.sort_unstable();
            let mut got = out;
            got.sort_unstable();
            prop_assert_eq!(got, want);
        }
    }
}
