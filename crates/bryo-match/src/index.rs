//! Fingerprinting the corpus and the index of shared hashes.
//!
//! Every selected fingerprint becomes an [`Entry`] `(hash, doc, pos)`, all
//! in one flat vector. Entries are scattered in parallel into up to 4,096
//! buckets by the top bits of the mixed hash, keeping document and position
//! order inside each bucket; each bucket is then grouped by hash in linear
//! time with a small open-addressing table (groups in order of first
//! occurrence, so the result is deterministic), and singletons — most
//! hashes — are dropped at once.
//!
//! Measured alternatives (2 M entries with skewed winnowed hashes, loaded
//! 2-core machine): one `sort_unstable` by `(hash, doc, pos)` 48–53 ms,
//! rayon's `par_sort_unstable` 53–87 ms, an LSD radix sort with four 16-bit
//! passes 60–73 ms, buckets each sorted with `sort_unstable` 52–60 ms. In
//! the whole index build on the benchmark corpus (1.44 M fingerprints),
//! grouping buckets with the table instead of sorting them took 165–183 ms
//! against 220–228 ms for sorted buckets (same load, runs interleaved).

use bryo_engine::{rehash, Config, Fingerprint, Fingerprinter, Hasher};
use rayon::prelude::*;

use crate::progress::check;
use crate::{CommonRule, Corpus, DocId, Error, MatchOptions, Progress, Role, Stage, SubmissionId};

/// One fingerprint occurrence. `doc` is an internal document index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Entry {
    pub hash: u64,
    pub doc: u32,
    pub pos: u32,
}

/// A non-base document, in internal order: sorted by submission, then by
/// corpus order, so a hash run sorted by `doc` is grouped by submission.
pub(crate) struct Doc<'c> {
    /// Index in the corpus.
    pub id: u32,
    /// Dense submission index.
    pub sub: u32,
    pub symbols: &'c [u64],
    /// Excluded symbols — base-covered or common-covered — as sorted,
    /// disjoint, non-adjacent half-open ranges: barriers for fragments,
    /// never matched.
    pub excluded: Vec<(u32, u32)>,
    /// Base-covered symbols.
    pub base_symbols: u32,
    /// Common-covered symbols that are not base-covered.
    pub common_symbols: u32,
}

/// A submission, dense index = rank of its id.
pub(crate) struct Sub {
    pub id: SubmissionId,
    pub old: bool,
    /// Internal documents `docs.0..docs.1`.
    pub docs: (u32, u32),
    /// Symbols not base-covered (common-covered ones included).
    pub symbols: u64,
    /// All symbols, base-covered or not.
    pub raw_symbols: u64,
    /// Documents with at least one symbol.
    pub nonempty_docs: u32,
}

/// The corpus in internal order.
pub(crate) struct Prepared<'c> {
    pub docs: Vec<Doc<'c>>,
    pub subs: Vec<Sub>,
    pub base_docs: Vec<&'c [u64]>,
    /// Hashes excluded by the caller ([`Corpus::exclude_hashes`]), sorted.
    pub excluded: Vec<u64>,
}

impl<'c> Prepared<'c> {
    pub fn new(corpus: &Corpus<'c>) -> Result<Prepared<'c>, Error> {
        if u32::try_from(corpus.len()).is_err() {
            return Err(Error::TooManyDocuments(corpus.len()));
        }
        let mut order: Vec<(SubmissionId, u32, bool)> = Vec::new();
        let mut base_docs = Vec::new();
        for (i, d) in corpus.documents().iter().enumerate() {
            if u32::try_from(d.symbols.len()).is_err() {
                return Err(Error::DocumentTooLong {
                    doc: DocId(i as u32),
                    symbols: d.symbols.len(),
                });
            }
            match d.role {
                Role::Base => base_docs.push(d.symbols),
                Role::Current | Role::Old => {
                    order.push((d.submission, i as u32, d.role == Role::Old))
                }
            }
        }
        order.sort_unstable_by_key(|&(s, i, _)| (s, i));
        let mut docs = Vec::with_capacity(order.len());
        let mut subs: Vec<Sub> = Vec::new();
        for (n, &(sid, i, old)) in order.iter().enumerate() {
            let n = n as u32;
            match subs.last_mut() {
                Some(s) if s.id == sid => {
                    if s.old != old {
                        return Err(Error::MixedRoles(sid));
                    }
                    s.docs.1 = n + 1;
                }
                _ => subs.push(Sub {
                    id: sid,
                    old,
                    docs: (n, n + 1),
                    symbols: 0,
                    raw_symbols: 0,
                    nonempty_docs: 0,
                }),
            }
            let symbols = corpus.documents()[i as usize].symbols;
            if let Some(s) = subs.last_mut() {
                s.raw_symbols += symbols.len() as u64;
                s.nonempty_docs += u32::from(!symbols.is_empty());
            }
            docs.push(Doc {
                id: i,
                sub: subs.len() as u32 - 1,
                symbols,
                excluded: Vec::new(),
                base_symbols: 0,
                common_symbols: 0,
            });
        }
        Ok(Prepared {
            docs,
            subs,
            base_docs,
            excluded: corpus.excluded_hashes().to_vec(),
        })
    }

    /// Marks base-covered symbols and totals the rest per submission.
    pub fn mark_base(&mut self, base: &BaseSet, config: Config, hasher: &Hasher) {
        if !base.is_empty() {
            let k = config.k() as u32;
            self.docs
                .par_iter_mut()
                .for_each_init(Vec::new, |hashes, doc| {
                    hasher.hash_symbols(doc.symbols, hashes);
                    let mut out: Vec<(u32, u32)> = Vec::new();
                    for (i, &h) in hashes.iter().enumerate() {
                        if base.contains(h) {
                            push_range(&mut out, i as u32, i as u32 + k);
                        }
                    }
                    doc.base_symbols = range_count(&out) as u32;
                    doc.excluded = out;
                });
        }
        for sub in &mut self.subs {
            sub.symbols = self.docs[sub.docs.0 as usize..sub.docs.1 as usize]
                .iter()
                .map(|d| d.symbols.len() as u64 - u64::from(d.base_symbols))
                .sum();
        }
    }

    /// Adds the common-covered symbols to the excluded ones. `common` holds
    /// `doc << 32 | pos` for every occurrence of an excluded hash, sorted.
    /// MOSS-common symbols stay in the totals per submission; `template`
    /// ones leave them, like base code.
    pub fn mark_common(&mut self, common: &[u64], k: usize, template: bool) {
        if !common.is_empty() {
            let k = k as u32;
            self.docs.par_iter_mut().enumerate().for_each(|(d, doc)| {
                let d = d as u64;
                let lo = common.partition_point(|&x| x >> 32 < d);
                let hi = lo + common[lo..].partition_point(|&x| x >> 32 == d);
                if lo == hi {
                    return;
                }
                let mut ranges: Vec<(u32, u32)> = Vec::new();
                for &x in &common[lo..hi] {
                    let pos = x as u32;
                    push_range(&mut ranges, pos, pos + k);
                }
                doc.excluded = union(&doc.excluded, &ranges);
                doc.common_symbols =
                    (range_count(&doc.excluded) - u64::from(doc.base_symbols)) as u32;
            });
            if template {
                for sub in &mut self.subs {
                    sub.symbols -= self.docs[sub.docs.0 as usize..sub.docs.1 as usize]
                        .iter()
                        .map(|d| u64::from(d.common_symbols))
                        .sum::<u64>();
                }
            }
        }
    }
}

/// Appends `s..e` to sorted ranges, merging it with the last one if they
/// overlap or touch. `s` must not be below the last range's start.
fn push_range(out: &mut Vec<(u32, u32)>, s: u32, e: u32) {
    match out.last_mut() {
        Some(last) if last.1 >= s => last.1 = last.1.max(e),
        _ => out.push((s, e)),
    }
}

/// The union of two lists of sorted, disjoint ranges, sorted, disjoint and
/// non-adjacent.
fn union(x: &[(u32, u32)], y: &[(u32, u32)]) -> Vec<(u32, u32)> {
    let mut out = Vec::with_capacity(x.len() + y.len());
    let (mut i, mut j) = (0, 0);
    while i < x.len() || j < y.len() {
        let r = if j == y.len() || (i < x.len() && x[i].0 <= y[j].0) {
            i += 1;
            x[i - 1]
        } else {
            j += 1;
            y[j - 1]
        };
        push_range(&mut out, r.0, r.1);
    }
    out
}

/// Number of symbols in a list of disjoint ranges.
pub(crate) fn range_count(ranges: &[(u32, u32)]) -> u64 {
    ranges.iter().map(|&(s, e)| u64::from(e - s)).sum()
}

/// The hashes of every k-gram of every base document, with a one-bit-per-
/// slot prefilter so that the common negative look-up is a single load.
pub(crate) struct BaseSet {
    hashes: Vec<u64>,
    filter: Vec<u64>,
    shift: u32,
}

impl BaseSet {
    pub fn new(base_docs: &[&[u64]], hasher: &Hasher) -> BaseSet {
        let mut hashes = Vec::new();
        let mut buf = Vec::new();
        for doc in base_docs {
            hasher.hash_symbols(doc, &mut buf);
            hashes.extend_from_slice(&buf);
        }
        hashes.sort_unstable();
        hashes.dedup();
        // About 16 filter bits per hash: ~6% false positives, then a binary search.
        let bits = (hashes.len() * 16).next_power_of_two().max(64);
        let mut filter = vec![0u64; bits / 64];
        let shift = 64 - bits.trailing_zeros();
        for &h in &hashes {
            let slot = (rehash(h) >> shift) as usize;
            filter[slot / 64] |= 1 << (slot % 64);
        }
        BaseSet {
            hashes,
            filter,
            shift,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.hashes.is_empty()
    }

    pub fn contains(&self, h: u64) -> bool {
        if self.hashes.is_empty() {
            return false;
        }
        let slot = (rehash(h) >> self.shift) as usize;
        self.filter[slot / 64] & (1 << (slot % 64)) != 0 && self.hashes.binary_search(&h).is_ok()
    }
}

/// Fingerprints every non-base document in parallel; returns the
/// fingerprints per document and, for every document, the first document
/// with the same symbols (itself if none).
///
/// Documents with the same symbols are winnowed once: they are grouped by
/// length and Rabin fingerprint (Broder; [`bryo_engine::Modulus`]), each
/// confirmed equal to its group's first document symbol by symbol, and get
/// a copy of that document's selection.
pub(crate) fn fingerprint_all(
    docs: &[Doc<'_>],
    corpus: &Corpus<'_>,
    options: &MatchOptions,
    progress: &dyn Progress,
) -> Result<(Vec<Vec<Fingerprint>>, Vec<usize>), Error> {
    let known: Vec<Option<u64>> = docs
        .iter()
        .map(|d| corpus.documents()[d.id as usize].content_fingerprint)
        .collect();
    let source = duplicate_sources(docs, &known);
    let proto = Fingerprinter::new(options.config, options.hash, options.selection)?;
    let unique: Vec<usize> = (0..docs.len()).filter(|&i| source[i] == i).collect();
    progress.start(Stage::Fingerprint, unique.len() as u64);
    // Selected into one growing vector per thread, then copied out at
    // their exact size: no growth slack, and no memory touched twice.
    let mut selected: Vec<Vec<Fingerprint>> = unique
        .par_iter()
        .map_init(
            || (proto.clone(), Vec::new()),
            |(f, scratch), &i| {
                check(progress)?;
                f.fingerprint_symbols_into(docs[i].symbols, scratch)?;
                progress.advance(1);
                Ok(scratch.clone())
            },
        )
        .collect::<Result<_, Error>>()?;
    let mut slot = vec![usize::MAX; docs.len()];
    for (n, &i) in unique.iter().enumerate() {
        slot[i] = n;
    }
    // A copy for each duplicate, then each selection moved to its own
    // document.
    let mut out: Vec<Vec<Fingerprint>> = (0..docs.len())
        .map(|i| match source[i] {
            s if s == i => Vec::new(),
            s => selected[slot[s]].clone(),
        })
        .collect();
    for (n, &i) in unique.iter().enumerate() {
        out[i] = std::mem::take(&mut selected[n]);
    }
    Ok((out, source))
}

/// For every document, the first document with exactly the same symbols
/// (itself if there is none). `known[d]` is document `d`'s Rabin
/// fingerprint if the caller gave it; the others are computed.
pub(crate) fn duplicate_sources(docs: &[Doc<'_>], known: &[Option<u64>]) -> Vec<usize> {
    let modulus = bryo_engine::Modulus::shared_64();
    let keys: Vec<(usize, u64)> = docs
        .par_iter()
        .zip(known)
        .map(|(d, k)| {
            // Degree 64: every residue fits in 64 bits.
            let fp = k.unwrap_or_else(|| modulus.hash_symbols(d.symbols) as u64);
            (d.symbols.len(), fp)
        })
        .collect();
    let mut order: Vec<usize> = (0..docs.len()).collect();
    order.sort_unstable_by_key(|&i| (keys[i], i));
    let mut source: Vec<usize> = (0..docs.len()).collect();
    let mut start = 0;
    while start < order.len() {
        let key = keys[order[start]];
        let end = start
            + order[start..]
                .iter()
                .take_while(|&&i| keys[i] == key)
                .count();
        // Within a run of equal keys, compare with the run's distinct
        // contents seen so far (more than one only on a fingerprint collision).
        let mut firsts: Vec<usize> = Vec::new();
        for &i in &order[start..end] {
            match firsts.iter().find(|&&f| docs[f].symbols == docs[i].symbols) {
                Some(&f) => source[i] = f,
                None => firsts.push(i),
            }
        }
        start = end;
    }
    source
}

/// A pair of submissions sharing one hash: `a < b` (dense indices), with
/// the kept occurrences of the hash on each side, as ranges of
/// `buckets[bucket].entries`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Record {
    pub a: u32,
    pub b: u32,
    pub bucket: u32,
    pub a_start: u32,
    pub a_len: u32,
    pub b_start: u32,
    pub b_len: u32,
}

impl Record {
    /// Shared fingerprints this hash contributes to the pair.
    pub fn contrib(&self) -> u32 {
        self.a_len.min(self.b_len)
    }

    /// The pair as one sortable number, `a << 32 | b`.
    pub fn pair(&self) -> u64 {
        pair_key(self.a, self.b)
    }
}

/// A pair of dense submission indices as one sortable number.
pub(crate) fn pair_key(a: u32, b: u32) -> u64 {
    u64::from(a) << 32 | u64::from(b)
}

/// What shared hashes give a pair of submissions `(a, b)`: the second
/// submission (dense index) and the pair's shared fingerprints (the sum of
/// its records' [`Record::contrib`]); the first is where the share is kept
/// ([`Shares::of`]). 8 bytes, formed one per pair record and summed to one
/// per pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Share {
    pub b: u32,
    pub contrib: u32,
}

/// The shares of every pair that a seeding record joins, by first
/// submission, each submission's sorted by second submission: so in pair
/// order. One share a pair, but where its sum passes `u32::MAX` (then
/// several, to be summed).
#[derive(Clone, Debug, Default)]
pub(crate) struct Shares {
    /// Every share, the first submission's part after part.
    pub items: Vec<Share>,
    /// `starts[a]..starts[a + 1]` is submission `a`'s part: one offset
    /// per submission and the end (empty when there are no submissions).
    pub starts: Vec<usize>,
}

impl Shares {
    /// The shares whose first submission is `a`.
    pub fn of(&self, a: usize) -> &[Share] {
        &self.items[self.starts[a]..self.starts[a + 1]]
    }

    /// The number of shares.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// The number of first submissions.
    pub fn submissions(&self) -> usize {
        self.starts.len().saturating_sub(1)
    }
}

/// The kept entries of one bucket, grouped by hash, each group by
/// submission, document and position, and the submissions of each group:
/// what the pair records are formed from ([`pair_records`]).
#[derive(Default)]
pub(crate) struct Bucket {
    pub entries: Vec<Entry>,
    /// The shared hashes that are matched, in order of first occurrence.
    groups: Vec<Group>,
    /// `(dense submission, first kept entry, kept occurrences)` of every
    /// group, group after group.
    subs: Vec<(u32, u32, u32)>,
}

impl Bucket {
    /// The entries a record's `start` and `len` refer to.
    pub fn range(&self, start: u32, len: u32) -> &[Entry] {
        &self.entries[start as usize..start as usize + len as usize]
    }
}

#[derive(Default, Clone, Copy)]
pub(crate) struct IndexCounts {
    pub dropped_base: u64,
    pub dropped_common: u64,
    pub dropped_cap: u64,
    pub indexed: u64,
    pub shared_hashes: u64,
}

impl IndexCounts {
    fn add(mut self, o: IndexCounts) -> IndexCounts {
        self.dropped_base += o.dropped_base;
        self.dropped_common += o.dropped_common;
        self.dropped_cap += o.dropped_cap;
        self.indexed += o.indexed;
        self.shared_hashes += o.shared_hashes;
        self
    }
}

/// The corpus index: buckets of shared hash groups and, for every group
/// that seeds pairs and every pair of submissions it may compare, what the
/// hash gives the pair ([`Share`]), sorted by pair. The pair records
/// themselves are formed again for the pairs that get fragments
/// ([`Index::records_of`]): they are twice the size of the shares, and
/// most pairs never need them.
pub(crate) struct Index {
    pub buckets: Vec<Bucket>,
    pub shares: Shares,
    /// The only hashes that seed pairs, sorted, if the caller restricted
    /// them (`Indexed::restrict_seeds`).
    pub seeds_only: Option<Vec<u64>>,
    pub counts: IndexCounts,
    /// Every occurrence of a hash excluded from matching — in more than
    /// `-m` submissions, or template code under the rarity rule — as
    /// `doc << 32 | pos`, sorted.
    pub common: Vec<u64>,
    /// Every kept occurrence of a matched hash, as `(pos, distinct
    /// submissions holding the hash)`, by document (see `rarity_starts`)
    /// and sorted within each; empty unless shared fingerprints are
    /// weighted by rarity. Eight bytes an occurrence: the discount reads a
    /// pair's documents' runs for every short fragment.
    pub rarity: Vec<(u32, u32)>,
    /// Where each document's occurrences start in `rarity`: those of
    /// internal document `d` are `rarity[rarity_starts[d]..rarity_starts[d
    /// + 1]]`, so the discount searches one document's few hundred
    /// occurrences, not the corpus's (empty when `rarity` is).
    pub rarity_starts: Vec<usize>,
    /// [`Rarity::weight`](crate::Rarity::weight) of every count of
    /// distinct submissions in `rarity`, at this corpus's template
    /// threshold: `rarity_weights[df]` (empty when `rarity` is).
    pub rarity_weights: Vec<f64>,
    /// Whether the excluded occurrences are template code (left out of the
    /// totals, like base code) rather than MOSS-common passages (kept in
    /// the totals).
    pub common_is_template: bool,
    /// The rule as applied to this corpus.
    pub rule: AppliedRule,
}

impl Index {
    /// The hash a pair record stands for (its first kept occurrence's).
    pub fn record_hash(&self, r: &Record) -> u64 {
        self.buckets[r.bucket as usize].entries[r.a_start as usize].hash
    }

    /// Whether a record's hash seeds pairs (see `seeds_only`).
    pub(crate) fn seeds(&self, r: &Record) -> bool {
        self.seeds_only
            .as_ref()
            .is_none_or(|h| h.binary_search(&self.record_hash(r)).is_ok())
    }

    /// The shares of every pair that a seeding record joins, sorted by
    /// pair.
    ///
    /// Formed twice from the buckets, as [`collect_exactly`] does: a first
    /// pass counts each chunk of buckets' shares by their first
    /// submission `a`, the second writes them straight into `a`'s part of
    /// one vector (so no sort over all of them, and no second vector, is
    /// needed), then each `a`'s part is summed by `b` on all threads
    /// ([`sum_by_b`]) and the sums moved together.
    pub fn collect_shares(&self, prep: &Prepared<'_>) -> Shares {
        let subs = prep.subs.len();
        let per_chunk = self
            .buckets
            .len()
            .div_ceil(4 * rayon::current_num_threads())
            .max(1);
        let chunks: Vec<&[Bucket]> = self.buckets.chunks(per_chunk).collect();
        let each = |c: usize, chunk: &[Bucket], emit: &mut dyn FnMut(u32, Share)| {
            for (j, bucket) in chunk.iter().enumerate() {
                let b = (c * per_chunk + j) as u32;
                pair_records(b, bucket, prep, self.rule, None, |r| {
                    if self.seeds(&r) {
                        let share = Share {
                            b: r.b,
                            contrib: r.contrib(),
                        };
                        emit(r.a, share);
                    }
                });
            }
        };
        // Counted from the groups' sizes where every record seeds.
        let counts: Vec<Vec<usize>> = chunks
            .par_iter()
            .enumerate()
            .map(|(c, chunk)| {
                let mut n = vec![0usize; subs];
                match self.seeds_only {
                    Some(_) => each(c, chunk, &mut |a, _| n[a as usize] += 1),
                    None => {
                        for (j, bucket) in chunk.iter().enumerate() {
                            let b = (c * per_chunk + j) as u32;
                            count_records(b, bucket, prep, self.rule, &mut n);
                        }
                    }
                }
                n
            })
            .collect();
        let empty = Share { b: 0, contrib: 0 };
        let total = counts.iter().flatten().sum();
        let mut shares = filled(empty, total);
        let by_a: Vec<usize> = (0..subs)
            .map(|a| counts.iter().map(|n| n[a]).sum())
            .collect();
        parts_by_key(&mut shares, &counts)
            .into_par_iter()
            .zip(chunks.par_iter())
            .enumerate()
            .for_each(|(c, (mut slots, chunk))| {
                let mut next = vec![0usize; subs];
                let mut put = |a: u32, s: Share| {
                    let a = a as usize;
                    slots[a][next[a]] = s;
                    next[a] += 1;
                };
                match self.seeds_only {
                    Some(_) => each(c, chunk, &mut put),
                    None => {
                        for bucket in chunk.iter() {
                            bucket_shares(bucket, prep, self.rule, &mut put);
                        }
                    }
                }
            });
        // Each `a`'s shares summed by `b` at the front of its part, in
        // order of `b` (a sum and a bit per second submission, one array
        // of each a thread).
        let mut kept = vec![0usize; subs];
        split_by_counts(&mut shares, &by_a)
            .into_par_iter()
            .zip(kept.par_iter_mut())
            .for_each_init(
                || ShareSums::new(subs),
                |room, (part, kept)| *kept = sum_by_b(part, room),
            );
        // The parts' sums moved together, part after part.
        let mut starts = Vec::with_capacity(subs + 1);
        let (mut from, mut to) = (0, 0);
        for (n, k) in by_a.into_iter().zip(kept) {
            starts.push(to);
            shares.copy_within(from..from + k, to);
            from += n;
            to += k;
        }
        starts.push(to);
        shares.truncate(to);
        shares.shrink_to_fit();
        let shares = Shares {
            items: shares,
            starts,
        };
        debug_assert!((0..subs).all(|a| shares.of(a).is_sorted_by_key(|s| s.b)));
        shares
    }

    /// The pair records that seed the pairs of `wanted` (sorted pair keys;
    /// `None`: every pair), sorted by pair: formed again from the buckets,
    /// as [`Index::collect_shares`] formed them.
    pub fn records_of(&self, prep: &Prepared<'_>, wanted: Option<&[u64]>) -> Vec<Record> {
        let filter = wanted.map(|w| PairFilter::new(w, prep.subs.len()));
        let empty = Record {
            a: 0,
            b: 0,
            bucket: 0,
            a_start: 0,
            a_len: 0,
            b_start: 0,
            b_len: 0,
        };
        let mut records = match &filter {
            // Every pair's: most of the records, in a vector of exactly
            // their number.
            None => collect_exactly(&self.buckets, empty, |b, bucket, emit| {
                pair_records(b, bucket, prep, self.rule, None, |r| {
                    if self.seeds(&r) {
                        emit(r);
                    }
                });
            }),
            // Some pairs' (the candidates of a cut): few records, collected
            // in one pass, the test made once per record.
            Some(f) => self
                .buckets
                .par_iter()
                .enumerate()
                .flat_map_iter(|(b, bucket)| {
                    let mut kept = Vec::new();
                    let among = Some(&f.members[..]);
                    pair_records(b as u32, bucket, prep, self.rule, among, |r| {
                        if f.has(&r) && self.seeds(&r) {
                            kept.push(r);
                        }
                    });
                    kept
                })
                .collect(),
        };
        records.par_sort_unstable_by_key(Record::pair);
        records
    }
}

/// A set of pairs of submissions, tested against records.
struct PairFilter {
    /// The wanted `b`s of every `a`: `bs[starts[a]..starts[a + 1]]`.
    starts: Vec<u32>,
    bs: Vec<u32>,
    /// A bitset of 16 bits per wanted pair, set at a hash of it: most
    /// records are of other pairs, and nearly all of them are turned away
    /// at once.
    bits: Vec<u64>,
    /// A bit per submission, set for those in a wanted pair: the pairs of
    /// a hash's other submissions need not be formed.
    members: Vec<u64>,
}

impl PairFilter {
    fn new(wanted: &[u64], subs: usize) -> PairFilter {
        debug_assert!(wanted.is_sorted());
        let mut starts = vec![0u32; subs + 1];
        for &k in wanted {
            starts[(k >> 32) as usize + 1] += 1;
        }
        for a in 0..subs {
            starts[a + 1] += starts[a];
        }
        let n = (wanted.len() * 16).next_power_of_two().max(64);
        let mut f = PairFilter {
            starts,
            bs: wanted.iter().map(|&k| k as u32).collect(),
            bits: vec![0; n / 64],
            members: vec![0; subs.div_ceil(64)],
        };
        for &k in wanted {
            let b = f.bit(k);
            f.bits[b / 64] |= 1 << (b % 64);
            for sub in [(k >> 32) as usize, k as u32 as usize] {
                f.members[sub / 64] |= 1 << (sub % 64);
            }
        }
        f
    }

    fn bit(&self, key: u64) -> usize {
        rehash(key) as usize & (self.bits.len() * 64 - 1)
    }

    fn has(&self, r: &Record) -> bool {
        let b = self.bit(r.pair());
        if self.bits[b / 64] & (1 << (b % 64)) == 0 {
            return false;
        }
        let (lo, hi) = (self.starts[r.a as usize], self.starts[r.a as usize + 1]);
        self.bs[lo as usize..hi as usize]
            .binary_search(&r.b)
            .is_ok()
    }
}

/// What `each` emits for every bucket, in bucket order, in a vector of
/// exactly their number: each bucket's items are counted first, then
/// written into their own part of it on all threads. Collecting them in
/// one pass would hold per-thread pieces and the joined vector at once,
/// about twice their size.
fn collect_exactly<T: Copy + Send + Sync>(
    buckets: &[Bucket],
    empty: T,
    each: impl Fn(u32, &Bucket, &mut dyn FnMut(T)) + Sync,
) -> Vec<T> {
    let counts: Vec<usize> = buckets
        .par_iter()
        .enumerate()
        .map(|(b, bucket)| {
            let mut n = 0;
            each(b as u32, bucket, &mut |_| n += 1);
            n
        })
        .collect();
    let mut items = filled(empty, counts.iter().sum());
    split_by_counts(&mut items, &counts)
        .into_par_iter()
        .zip(buckets.par_iter())
        .enumerate()
        .for_each(|(b, (part, bucket))| {
            let mut next = 0;
            each(b as u32, bucket, &mut |x| {
                part[next] = x;
                next += 1;
            });
            debug_assert_eq!(next, part.len());
        });
    items
}

/// A vector of `n` copies of `value`, written on all threads. The vectors
/// a scatter writes into are megabytes (the index's entries, the pairs'
/// shares): filled on one thread, as `vec![value; n]` does for a value that
/// is not a number, their first writes and page faults were serial.
pub(crate) fn filled<T: Clone + Send + Sync>(value: T, n: usize) -> Vec<T> {
    let mut items = Vec::with_capacity(n);
    items.par_extend(rayon::iter::repeat_n(value, n));
    items
}

/// `items` cut for a parallel scatter by key: `counts[c][k]` items of
/// chunk `c` have key `k`; the parts are key-major, chunk-minor (chunk `c`'s
/// items of key `k` follow those of the chunks before it, so a stable
/// scatter keeps their order), handed out per chunk, by key.
fn parts_by_key<'a, T>(items: &'a mut [T], counts: &[Vec<usize>]) -> Vec<Vec<&'a mut [T]>> {
    let keys = counts.first().map_or(0, Vec::len);
    let mut parts: Vec<Vec<&mut [T]>> = counts.iter().map(|_| Vec::with_capacity(keys)).collect();
    let mut rest = items;
    for k in 0..keys {
        for (c, n) in counts.iter().enumerate() {
            let (head, tail) = std::mem::take(&mut rest).split_at_mut(n[k]);
            parts[c].push(head);
            rest = tail;
        }
    }
    parts
}

/// `items` cut into consecutive parts of `counts[i]` items each.
pub(crate) fn split_by_counts<'a, T>(mut items: &'a mut [T], counts: &[usize]) -> Vec<&'a mut [T]> {
    let mut parts = Vec::with_capacity(counts.len());
    for &n in counts {
        let (head, tail) = std::mem::take(&mut items).split_at_mut(n);
        parts.push(head);
        items = tail;
    }
    parts
}

/// Per-thread room for [`sum_by_b`]: a sum and a bit per submission, all
/// zero between calls, and a list of the submissions met.
struct ShareSums {
    sums: Vec<u64>,
    met_bits: Vec<u64>,
    met: Vec<u32>,
}

impl ShareSums {
    fn new(subs: usize) -> ShareSums {
        ShareSums {
            sums: vec![0; subs],
            met_bits: vec![0; subs.div_ceil(64)],
            met: Vec::new(),
        }
    }
}

/// Sums `part`'s shares by second submission into its first items, in
/// order of `b`, and returns how many it wrote: one a `b`, or more of the
/// same `b` where a sum passes `u32::MAX` (as many shares as were summed
/// hold it, so there is room; a pair's shares are summed again as they are
/// read). `room` is left all zero, as it came.
///
/// The `b`s met come out in order from their bits, one word after another
/// over the span they cover, where that span is short next to the part
/// (as in a class: a few dozen words); otherwise, as in a corpus of very
/// many submissions, from a list of them, sorted.
fn sum_by_b(part: &mut [Share], room: &mut ShareSums) -> usize {
    let ShareSums {
        sums,
        met_bits,
        met,
    } = room;
    let (mut low, mut high) = (u32::MAX, 0);
    for s in part.iter() {
        sums[s.b as usize] += u64::from(s.contrib);
        met_bits[s.b as usize / 64] |= 1 << (s.b % 64);
        (low, high) = (low.min(s.b), high.max(s.b));
    }
    if part.is_empty() {
        return 0;
    }
    let words = low as usize / 64..high as usize / 64 + 1;
    met.clear();
    if words.len() <= 2 * part.len() {
        for w in words {
            let mut m = std::mem::take(&mut met_bits[w]);
            while m != 0 {
                met.push((w * 64) as u32 + m.trailing_zeros());
                m &= m - 1;
            }
        }
    } else {
        for s in part.iter() {
            let (w, bit) = (s.b as usize / 64, 1 << (s.b % 64));
            if met_bits[w] & bit != 0 {
                met_bits[w] &= !bit;
                met.push(s.b);
            }
        }
        met.sort_unstable();
    }
    let mut at = 0;
    for &b in met.iter() {
        let mut sum = std::mem::take(&mut sums[b as usize]);
        loop {
            let contrib = u32::try_from(sum).unwrap_or(u32::MAX);
            part[at] = Share { b, contrib };
            at += 1;
            sum -= u64::from(contrib);
            if sum == 0 {
                break;
            }
        }
    }
    at
}

/// The common-code rule with the thresholds it took on this corpus.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AppliedRule {
    /// Hashes in at most this many submissions seed pairs (`u64::MAX`: all).
    pub seed_limit: u64,
    /// Hashes in more than this many distinct submissions are excluded
    /// (`u64::MAX`: none).
    pub exclude_above: u64,
}

/// A matched hash of a bucket: the submissions that share it.
#[derive(Clone, Copy)]
struct Group {
    /// Its submissions: `subs[subs.0..subs.1]` of the bucket.
    subs: (u32, u32),
}

/// Scatters the fingerprints into buckets, groups each bucket by hash,
/// applies the base, common-code and cap rules and forms the pair records.
///
/// `canonical[d]` is false for a document with the same symbols as an
/// earlier one: such a copy does not make a passage more common.
pub(crate) fn build_index(
    fps: Vec<Vec<Fingerprint>>,
    prep: &Prepared<'_>,
    base: &BaseSet,
    canonical: &[bool],
    options: &MatchOptions,
) -> Index {
    let total: usize = fps.iter().map(Vec::len).sum();
    // About 512 entries per bucket, at most 4096 buckets.
    let bits = (usize::BITS - (total / 512).leading_zeros()).min(12);
    let nb = 1usize << bits;
    let bucket_of = move |h: u64| match bits {
        0 => 0,
        _ => (rehash(h) >> (64 - bits)) as usize,
    };
    // Parallel scatter: each chunk of documents counts its entries per
    // bucket, then writes them into its own disjoint part of every bucket,
    // so each bucket holds its entries in document and position order.
    let docs_per_chunk = fps.len().div_ceil(4 * rayon::current_num_threads()).max(1);
    let chunks: Vec<&[Vec<Fingerprint>]> = fps.chunks(docs_per_chunk).collect();
    let hist: Vec<Vec<usize>> = chunks
        .par_iter()
        .map(|chunk| {
            let mut h = vec![0usize; nb];
            for f in chunk.iter().flatten() {
                h[bucket_of(f.hash)] += 1;
            }
            h
        })
        .collect();
    let empty = Entry {
        hash: 0,
        doc: 0,
        pos: 0,
    };
    let mut scattered = filled(empty, total);
    let mut bucket_slices: Vec<&[Entry]> = Vec::with_capacity(nb);
    parts_by_key(&mut scattered, &hist)
        .into_par_iter()
        .zip(chunks.par_iter())
        .enumerate()
        .for_each(|(c, (mut slots, chunk))| {
            let mut cursor = vec![0usize; nb];
            for (j, list) in chunk.iter().enumerate() {
                let doc = (c * docs_per_chunk + j) as u32;
                for f in list {
                    let b = bucket_of(f.hash);
                    slots[b][cursor[b]] = Entry {
                        hash: f.hash,
                        doc,
                        pos: f.pos,
                    };
                    cursor[b] += 1;
                }
            }
        });
    // Hashes the caller excluded: every occurrence, shared here or not
    // (`group_bucket` skips them), as `doc << 32 | pos`.
    let mut caller_excluded = Vec::new();
    if !prep.excluded.is_empty() {
        for (doc, list) in fps.iter().enumerate() {
            for f in list {
                if prep.excluded.binary_search(&f.hash).is_ok() && !base.contains(f.hash) {
                    caller_excluded.push((doc as u64) << 32 | u64::from(f.pos));
                }
            }
        }
    }
    // The fingerprints are in the buckets now; free them before grouping.
    drop(chunks);
    drop(fps);
    let mut rest: &[Entry] = &scattered;
    for b in 0..nb {
        let len: usize = hist.iter().map(|h| h[b]).sum();
        let (head, tail) = rest.split_at(len);
        bucket_slices.push(head);
        rest = tail;
    }
    let exclude_above = exclude_threshold(prep, canonical, options);
    let weigh = discounts(options, exclude_above);
    let mut grouped: Vec<Grouped> = bucket_slices
        .into_par_iter()
        .map_init(Scratch::default, |scratch, slice| {
            group_bucket(
                slice,
                scratch,
                prep,
                base,
                canonical,
                Grouping {
                    exclude_above,
                    weigh,
                },
                options,
            )
        })
        .collect();
    // Every kept entry was copied into its group's bucket.
    drop(scattered);
    let rule = AppliedRule {
        seed_limit: seed_limit(&grouped, total as u64, options),
        exclude_above,
    };
    let mut common = Vec::with_capacity(grouped.iter().map(|g| g.common.len()).sum());
    let mut counts = IndexCounts::default();
    for g in &mut grouped {
        common.append(&mut g.common);
        counts = counts.add(g.counts);
    }
    counts.dropped_common += caller_excluded.len() as u64;
    common.extend(caller_excluded);
    common.par_sort_unstable();
    let (rarity, rarity_starts) = by_document(
        grouped
            .iter_mut()
            .map(|g| std::mem::take(&mut g.rarity))
            .collect(),
        prep.docs.len(),
    );
    let rarity_weights = match options.common {
        CommonRule::Rarity(r) if !rarity.is_empty() => {
            let top = rarity.iter().map(|&(_, df)| df).max().unwrap_or(0);
            (0..=top).map(|df| r.weight(df, exclude_above)).collect()
        }
        _ => Vec::new(),
    };
    let buckets = grouped
        .iter_mut()
        .map(|g| std::mem::take(&mut g.bucket))
        .collect();
    let mut index = Index {
        buckets,
        shares: Shares::default(),
        seeds_only: None,
        counts,
        common,
        rarity,
        rarity_starts,
        rarity_weights,
        common_is_template: matches!(options.common, CommonRule::Rarity(_)),
        rule,
    };
    index.shares = index.collect_shares(prep);
    index
}

/// The occurrences of `parts` (keyed `doc << 32 | pos`, documents below
/// `docs`) by document, as `(pos, df)` sorted within each document's run
/// (the order of the keys sorted as a whole), and where each document's
/// run starts, and their end: `docs + 1` offsets (none when there are no
/// occurrences). A counting scatter by document, by chunks of `parts` on
/// all threads, then each document's run (a few hundred occurrences) sorted
/// on its own, in parallel: a quarter of the time of one parallel sort of
/// them all (257,000 on the standard library), which was the serial part of
/// the index stage.
fn by_document(parts: Vec<Vec<(u64, u32)>>, docs: usize) -> (Vec<(u32, u32)>, Vec<usize>) {
    let total: usize = parts.iter().map(Vec::len).sum();
    if total == 0 {
        return (Vec::new(), Vec::new());
    }
    let doc = |key: u64| (key >> 32) as usize;
    // Counted and scattered by chunks of parts on all threads, each chunk
    // into its own slots of every document's run. A chunk costs a count and
    // a slot per document: fewer chunks when the documents are many for
    // their occurrences (one, at fewer than 16 a document).
    let chunks = (4 * rayon::current_num_threads()).min(total / (16 * docs.max(1)));
    let per_chunk = parts.len().div_ceil(chunks.max(1)).max(1);
    let chunks: Vec<&[Vec<(u64, u32)>]> = parts.chunks(per_chunk).collect();
    let counts: Vec<Vec<usize>> = chunks
        .par_iter()
        .map(|chunk| {
            let mut n = vec![0usize; docs];
            for &(key, _) in chunk.iter().flatten() {
                n[doc(key)] += 1;
            }
            n
        })
        .collect();
    let mut starts = Vec::with_capacity(docs + 1);
    let mut at = 0;
    starts.push(at);
    for d in 0..docs {
        at += counts.iter().map(|n| n[d]).sum::<usize>();
        starts.push(at);
    }
    let mut sorted = vec![(0u32, 0u32); total];
    parts_by_key(&mut sorted, &counts)
        .into_par_iter()
        .zip(chunks.par_iter())
        .for_each(|(mut slots, chunk)| {
            let mut next = vec![0usize; docs];
            for &(key, df) in chunk.iter().flatten() {
                let d = doc(key);
                // The document is the run's: the position is what is left.
                slots[d][next[d]] = (key as u32, df);
                next[d] += 1;
            }
        });
    drop(chunks);
    drop(parts);
    let mut runs = Vec::with_capacity(docs);
    let mut rest = sorted.as_mut_slice();
    for w in starts.windows(2) {
        let (run, tail) = rest.split_at_mut(w[1] - w[0]);
        runs.push(run);
        rest = tail;
    }
    runs.into_par_iter().for_each(|run| run.sort_unstable());
    (sorted, starts)
}

/// What grouping a bucket needs beyond the options.
#[derive(Clone, Copy)]
struct Grouping {
    /// Hashes in more distinct submissions than this are excluded.
    exclude_above: u64,
    /// Whether kept occurrences are listed with their hash's count of
    /// distinct submissions (the rarity discount).
    weigh: bool,
}

/// Whether the rarity discount applies: under the rarity rule, with a
/// template threshold above the count that weighs in full.
pub(crate) fn discounts(options: &MatchOptions, exclude_above: u64) -> bool {
    match options.common {
        CommonRule::Rarity(r) => r.discounts(exclude_above),
        CommonRule::MaxSubmissions(_) => false,
    }
}

/// Submissions above which a hash is excluded from matching (`u64::MAX`:
/// never).
///
/// Under MOSS's rule, `-m`. Under the rarity rule, a hash is template code
/// when more than `template_share` of the submissions, and more than
/// `template_min`, have it — counting a document identical to an earlier
/// one once, so that duplicated submissions do not make their passages
/// look common.
fn exclude_threshold(prep: &Prepared<'_>, canonical: &[bool], options: &MatchOptions) -> u64 {
    match options.common {
        CommonRule::MaxSubmissions(0) => u64::MAX,
        CommonRule::MaxSubmissions(m) => m as u64,
        CommonRule::Rarity(r) => {
            let distinct = prep
                .subs
                .iter()
                .filter(|s| {
                    (s.docs.0 as usize..s.docs.1 as usize)
                        .any(|d| canonical[d] && !prep.docs[d].symbols.is_empty())
                })
                .count();
            r.template_threshold(distinct as u64)
        }
    }
}

/// Submissions above which a shared hash pairs only a sample of its
/// submissions (`u64::MAX`: none).
///
/// Under MOSS's rule nothing above `-m` is left to limit. Under the rarity
/// rule, a hash in `n` submissions forms all `n(n − 1)/2` pair records up
/// to the limit `L`, and above it pairs each submission with `⌈L/2⌉` others
/// (see [`pair_records`]); `L` is the largest for which all records fit the
/// budget, so that the cost stays linear in the corpus.
fn seed_limit(grouped: &[Grouped], fingerprints: u64, options: &MatchOptions) -> u64 {
    let CommonRule::Rarity(r) = options.common else {
        return u64::MAX;
    };
    // Hashes per number of submissions sharing them.
    let mut hist: Vec<u64> = Vec::new();
    for g in grouped {
        for grp in &g.bucket.groups {
            let n = (grp.subs.1 - grp.subs.0) as usize;
            if hist.len() <= n {
                hist.resize(n + 1, 0);
            }
            hist[n] += 1;
        }
    }
    r.seed_limit(&hist, fingerprints)
}

/// The pair records of one bucket's groups.
///
/// A hash in at most `rule.seed_limit` submissions pairs all of them. One
/// in more (frequent, but not excluded) pairs each of its submissions with
/// the next `⌈limit/2⌉` in an order drawn from the hash: two submissions
/// that share many frequent hashes are paired by some of them (with
/// probability `1 − (1 − limit/n)^s` for `s` hashes in `n` submissions),
/// and once paired, fragments extend through every shared passage.
fn pair_records(
    b: u32,
    bucket: &Bucket,
    prep: &Prepared<'_>,
    rule: AppliedRule,
    among: Option<&[u64]>,
    mut emit: impl FnMut(Record),
) {
    let mut order: Vec<(u64, (u32, u32, u32))> = Vec::new();
    let mut members: Vec<(u32, u32, u32)> = Vec::new();
    for grp in &bucket.groups {
        let subs = &bucket.subs[grp.subs.0 as usize..grp.subs.1 as usize];
        if subs.len() as u64 <= rule.seed_limit {
            // Every pair of the group: when only pairs of `among` are
            // wanted, those of the group's submissions in it, in the same
            // order (a group's pairs do not depend on its other members).
            let subs = match among {
                Some(set) => {
                    members.clear();
                    members.extend(subs.iter().filter(|s| member(set, s.0)));
                    &members[..]
                }
                None => subs,
            };
            for (i, x) in subs.iter().enumerate() {
                subs[i + 1..]
                    .iter()
                    .filter_map(|y| record(b, prep, x, y))
                    .for_each(&mut emit);
            }
            continue;
        }
        frequent_records(b, bucket, subs, prep, rule, among, &mut order, &mut emit);
    }
}

/// The record of submissions `x` and `y` (`(submission, first kept entry,
/// kept occurrences)` in bucket `b`), the earlier one first; `None` when
/// both are old.
#[inline]
fn record(b: u32, prep: &Prepared<'_>, x: &(u32, u32, u32), y: &(u32, u32, u32)) -> Option<Record> {
    let (x, y) = if x.0 < y.0 { (x, y) } else { (y, x) };
    (!(prep.subs[x.0 as usize].old && prep.subs[y.0 as usize].old)).then_some(Record {
        a: x.0,
        b: y.0,
        bucket: b,
        a_start: x.1,
        a_len: x.2,
        b_start: y.1,
        b_len: y.2,
    })
}

/// The records [`pair_records`] forms from a group in more than
/// `rule.seed_limit` submissions: each paired with the next `⌈limit/2⌉` in
/// an order drawn from the hash. `order` is room for that order.
#[allow(clippy::too_many_arguments)]
fn frequent_records(
    b: u32,
    bucket: &Bucket,
    subs: &[(u32, u32, u32)],
    prep: &Prepared<'_>,
    rule: AppliedRule,
    among: Option<&[u64]>,
    order: &mut Vec<(u64, (u32, u32, u32))>,
    emit: &mut impl FnMut(Record),
) {
    // Pairs among `among` need two of its submissions here.
    if among.is_some_and(|set| subs.iter().filter(|s| member(set, s.0)).nth(1).is_none()) {
        return;
    }
    let hash = bucket.entries[subs[0].1 as usize].hash;
    order.clear();
    order.extend(
        subs.iter()
            .map(|&s| (rehash(hash ^ rehash(u64::from(s.0))), s)),
    );
    order.sort_unstable();
    let n = order.len();
    // At most (n − 1)/2 steps, so that no pair is formed twice.
    let reach = (rule.seed_limit.div_ceil(2) as usize).min((n - 1) / 2);
    let wanted = |x: &(u32, u32, u32)| among.is_none_or(|set| member(set, x.0));
    for i in 0..n {
        if !wanted(&order[i].1) {
            continue;
        }
        for d in 1..=reach {
            let y = &order[(i + d) % n].1;
            if !wanted(y) {
                continue;
            }
            if let Some(r) = record(b, prep, &order[i].1, y) {
                emit(r);
            }
        }
    }
}

/// The share of every record [`pair_records`] forms from `bucket` (every
/// pair wanted), with the record's first submission, without forming the
/// records of a group in at most `rule.seed_limit` submissions (whose
/// submissions are in increasing order: see [`count_records`]).
fn bucket_shares(
    bucket: &Bucket,
    prep: &Prepared<'_>,
    rule: AppliedRule,
    emit: &mut impl FnMut(u32, Share),
) {
    let mut order = Vec::new();
    for grp in &bucket.groups {
        let subs = &bucket.subs[grp.subs.0 as usize..grp.subs.1 as usize];
        if subs.len() as u64 <= rule.seed_limit {
            for (i, x) in subs.iter().enumerate() {
                let old = prep.subs[x.0 as usize].old;
                for y in &subs[i + 1..] {
                    if !(old && prep.subs[y.0 as usize].old) {
                        let contrib = x.2.min(y.2);
                        emit(x.0, Share { b: y.0, contrib });
                    }
                }
            }
            continue;
        }
        let mut share = |r: Record| {
            let contrib = r.contrib();
            emit(r.a, Share { b: r.b, contrib });
        };
        // A share does not keep its record's bucket: any index will do.
        frequent_records(0, bucket, subs, prep, rule, None, &mut order, &mut share);
    }
}

/// Adds to `counts[a]` the number of records [`pair_records`] forms from
/// `bucket` (every pair wanted) whose first submission is `a`, without
/// forming those of a group in at most `rule.seed_limit` submissions: a
/// group's submissions are in increasing order (documents are numbered
/// submission by submission), so the `i`-th of `m` is the first of its
/// pairs with the `m − 1 − i` after it, less those both old.
fn count_records(
    b: u32,
    bucket: &Bucket,
    prep: &Prepared<'_>,
    rule: AppliedRule,
    counts: &mut [usize],
) {
    let mut order = Vec::new();
    for grp in &bucket.groups {
        let subs = &bucket.subs[grp.subs.0 as usize..grp.subs.1 as usize];
        if subs.len() as u64 <= rule.seed_limit {
            debug_assert!(subs.windows(2).all(|w| w[0].0 < w[1].0));
            let mut current_after = 0;
            for (after, x) in subs.iter().rev().enumerate() {
                let old = prep.subs[x.0 as usize].old;
                counts[x.0 as usize] += if old { current_after } else { after };
                current_after += usize::from(!old);
            }
            continue;
        }
        let mut add = |r: Record| counts[r.a as usize] += 1;
        frequent_records(b, bucket, subs, prep, rule, None, &mut order, &mut add);
    }
}

/// Whether submission `sub`'s bit is set.
fn member(set: &[u64], sub: u32) -> bool {
    set[sub as usize / 64] & (1 << (sub % 64)) != 0
}

/// Reusable buffers for grouping one bucket.
#[derive(Default)]
struct Scratch {
    /// Open-addressing table: slot → group + 1 (0 = empty).
    table: Vec<u32>,
    /// Group of every entry of the bucket.
    group_of: Vec<u32>,
    /// Hash, size and write cursor of every group.
    groups: Vec<(u64, u32, u32)>,
    /// The entries of groups with at least two entries, grouped.
    grouped: Vec<Entry>,
    /// Start of every group of two or more in `grouped`.
    runs: Vec<(usize, usize)>,
}

/// What grouping one bucket yields.
struct Grouped {
    bucket: Bucket,
    counts: IndexCounts,
    /// Occurrences of excluded hashes, as `doc << 32 | pos`.
    common: Vec<u64>,
    /// Kept occurrences with their hash's distinct submissions.
    rarity: Vec<(u64, u32)>,
}

/// Groups one bucket by hash — in linear time with a small hash table, in
/// order of first occurrence — then applies the base, exclusion and cap
/// rules. Groups keep their entries in document and position order.
fn group_bucket(
    slice: &[Entry],
    scratch: &mut Scratch,
    prep: &Prepared<'_>,
    base: &BaseSet,
    canonical: &[bool],
    grouping: Grouping,
    options: &MatchOptions,
) -> Grouped {
    let Grouping {
        exclude_above,
        weigh,
    } = grouping;
    let size = (slice.len() * 2).next_power_of_two().max(16);
    let mask = size - 1;
    scratch.table.clear();
    scratch.table.resize(size, 0);
    scratch.group_of.clear();
    scratch.groups.clear();
    for e in slice {
        // The top bits chose the bucket; the low bits of the mixed hash
        // spread the table.
        let mut slot = rehash(e.hash) as usize & mask;
        let g = loop {
            match scratch.table[slot] {
                0 => {
                    scratch.groups.push((e.hash, 0, 0));
                    scratch.table[slot] = scratch.groups.len() as u32;
                    break scratch.groups.len() - 1;
                }
                g if scratch.groups[g as usize - 1].0 == e.hash => break g as usize - 1,
                _ => slot = (slot + 1) & mask,
            }
        };
        scratch.groups[g].1 += 1;
        scratch.group_of.push(g as u32);
    }
    // Lay out groups of two or more entries; singletons can never be shared.
    scratch.runs.clear();
    let mut next = 0u32;
    for g in &mut scratch.groups {
        if g.1 >= 2 {
            g.2 = next;
            scratch.runs.push((next as usize, (next + g.1) as usize));
            next += g.1;
        }
    }
    scratch.grouped.clear();
    scratch.grouped.resize(
        next as usize,
        Entry {
            hash: 0,
            doc: 0,
            pos: 0,
        },
    );
    for (e, &g) in slice.iter().zip(&scratch.group_of) {
        let g = &mut scratch.groups[g as usize];
        if g.1 >= 2 {
            scratch.grouped[g.2 as usize] = *e;
            g.2 += 1;
        }
    }
    let mut out = Grouped {
        bucket: Bucket::default(),
        counts: IndexCounts::default(),
        common: Vec::new(),
        rarity: Vec::new(),
    };
    let c = &mut out.counts;
    let cap = options.occurrence_cap;
    let moss = matches!(options.common, CommonRule::MaxSubmissions(_));
    let sub_of = |e: &Entry| prep.docs[e.doc as usize].sub;
    for &(lo, hi) in &scratch.runs {
        let run = &scratch.grouped[lo..hi];
        let h = run[0].hash;
        if base.contains(h) {
            c.dropped_base += run.len() as u64;
            continue;
        }
        if prep.excluded.binary_search(&h).is_ok() {
            // Counted with every other occurrence in `build_index`.
            continue;
        }
        // Distinct submissions, and distinct submissions not counting
        // documents identical to earlier ones.
        let (mut subs, mut distinct) = (0u64, 0u64);
        let (mut last, mut last_distinct) = (None, None);
        for e in run {
            let s = sub_of(e);
            if last != Some(s) {
                subs += 1;
                last = Some(s);
            }
            if canonical[e.doc as usize] && last_distinct != Some(s) {
                distinct += 1;
                last_distinct = Some(s);
            }
        }
        if subs < 2 {
            continue;
        }
        // MOSS's -m counts submissions as they are.
        if (if moss { subs } else { distinct }) > exclude_above {
            c.dropped_common += run.len() as u64;
            out.common.extend(
                run.iter()
                    .map(|e| u64::from(e.doc) << 32 | u64::from(e.pos)),
            );
            continue;
        }
        let start = out.bucket.entries.len();
        let subs_start = out.bucket.subs.len();
        let mut j = 0;
        while j < run.len() {
            let doc = run[j].doc;
            let n = run[j..].iter().take_while(|e| e.doc == doc).count();
            let keep = n.min(cap);
            out.bucket.entries.extend_from_slice(&run[j..j + keep]);
            c.dropped_cap += (n - keep) as u64;
            let s = sub_of(&run[j]);
            let at = (out.bucket.entries.len() - keep) as u32;
            let in_group = out.bucket.subs.len() > subs_start;
            match out.bucket.subs.last_mut() {
                Some(last) if in_group && last.0 == s => last.2 += keep as u32,
                _ => out.bucket.subs.push((s, at, keep as u32)),
            }
            j += n;
        }
        if weigh {
            out.rarity.extend(
                run.iter()
                    .map(|e| (u64::from(e.doc) << 32 | u64::from(e.pos), distinct as u32)),
            );
        }
        c.indexed += (out.bucket.entries.len() - start) as u64;
        c.shared_hashes += 1;
        out.bucket.groups.push(Group {
            subs: (subs_start as u32, out.bucket.subs.len() as u32),
        });
    }
    // The index keeps them to the end of the run.
    out.bucket.entries.shrink_to_fit();
    out.bucket.groups.shrink_to_fit();
    out.bucket.subs.shrink_to_fit();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Documents over a small alphabet (so that many k-grams are shared),
    /// each in submission `i % subs`: some submissions have several.
    fn corpus_docs() -> impl Strategy<Value = (Vec<Vec<u64>>, u32, bool)> {
        (
            prop::collection::vec(prop::collection::vec(0u64..4, 10..600), 2..14),
            1u32..9,
            any::<bool>(),
        )
    }

    /// Submissions by bit: bit `s % 64` of `old` set makes submission `s`
    /// old (all of its documents, as a corpus requires).
    fn role_of(sub: u32, old: u64) -> Role {
        match old >> (sub % 64) & 1 {
            1 => Role::Old,
            _ => Role::Current,
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// The shares, scattered by first submission as they are formed,
        /// are every seeding record's, sorted by pair (a naive serial
        /// collection, sorted, is the reference), with and without a seed
        /// restriction.
        #[test]
        fn shares_are_every_seeding_records_by_pair(
            (docs, subs, restrict) in corpus_docs(),
            old in prop_oneof![Just(0u64), any::<u64>()],
            small_limit in any::<bool>(),
        ) {
            let corpus: Corpus = docs
                .iter()
                .enumerate()
                .map(|(i, d)| {
                    let sub = i as u32 % subs.max(2);
                    crate::Document::new(SubmissionId(sub), d).with_role(role_of(sub, old))
                })
                .collect();
            let mut options = MatchOptions::new(Config::new(3, 2).unwrap());
            // No budget beyond the least seed limit: hashes in more than
            // two submissions pair them by the order drawn from the hash.
            if small_limit {
                options.common = CommonRule::Rarity(crate::Rarity {
                    records_per_fingerprint: 0,
                    min_records: 0,
                    min_seed_limit: 2,
                    ..crate::Rarity::default()
                });
            }
            let Ok(fingerprinted) = crate::fingerprint(&corpus, &options, &crate::Silent) else {
                return Ok(());
            };
            let mut indexed = fingerprinted.index(&crate::Silent).unwrap();
            if restrict {
                let every: Vec<u64> = {
                    let (index, _) = indexed.parts();
                    index.buckets.iter().flat_map(|b| b.entries.iter().map(|e| e.hash)).collect()
                };
                indexed.restrict_seeds(&every[..every.len() / 2]);
            }
            let (index, prep) = indexed.parts();
            let mut naive = Vec::new();
            for (b, bucket) in index.buckets.iter().enumerate() {
                pair_records(b as u32, bucket, prep, index.rule, None, |r| {
                    if index.seeds(&r) {
                        naive.push((r.pair(), r.contrib()));
                    }
                });
            }
            // Summed by pair.
            naive.sort_unstable();
            let mut sums: Vec<(u64, u32)> = Vec::new();
            for (pair, contrib) in naive {
                match sums.last_mut() {
                    Some(last) if last.0 == pair => last.1 += contrib,
                    _ => sums.push((pair, contrib)),
                }
            }
            let shares = &index.shares;
            prop_assert_eq!(shares.submissions(), prep.subs.len());
            let mut got: Vec<(u64, u32)> = Vec::new();
            for a in 0..shares.submissions() {
                // One share a pair (no sum here comes near `u32::MAX`).
                prop_assert!(shares.of(a).is_sorted_by_key(|s| s.b));
                prop_assert!(shares.of(a).windows(2).all(|w| w[0].b < w[1].b));
                got.extend(shares.of(a).iter().map(|s| (pair_key(a as u32, s.b), s.contrib)));
            }
            prop_assert_eq!(got.len(), shares.len());
            prop_assert_eq!(got, sums);
        }

        /// Summing a part's shares by second submission gives the sums of
        /// a naive map, in order of `b`, and splits a sum past `u32::MAX`
        /// into shares that sum to it.
        #[test]
        fn shares_summed_by_b_are_the_sums(
            subs in 1usize..5000,
            part in prop::collection::vec(
                (any::<u32>(), prop_oneof![0u32..5, Just(u32::MAX), Just(u32::MAX - 1)]),
                0..200,
            ),
        ) {
            // Second submissions below `subs`: with many of them and a short
            // part, the met ones are sorted; with few, read from their bits.
            let part: Vec<(u32, u32)> =
                part.into_iter().map(|(b, c)| (b % subs as u32, c)).collect();
            let mut items: Vec<Share> =
                part.iter().map(|&(b, contrib)| Share { b, contrib }).collect();
            let mut naive = std::collections::BTreeMap::<u32, u64>::new();
            for &(b, c) in &part {
                *naive.entry(b).or_default() += u64::from(c);
            }
            let mut room = ShareSums::new(subs);
            let n = sum_by_b(&mut items, &mut room);
            prop_assert!(room.sums.iter().all(|&s| s == 0));
            prop_assert!(room.met_bits.iter().all(|&w| w == 0));
            let written = &items[..n];
            prop_assert!(written.is_sorted_by_key(|s| s.b));
            let mut got = std::collections::BTreeMap::<u32, u64>::new();
            for s in written {
                *got.entry(s.b).or_default() += u64::from(s.contrib);
            }
            prop_assert_eq!(&got, &naive);
            // Split only where a sum does not fit.
            for (&b, &sum) in &naive {
                let pieces = written.iter().filter(|s| s.b == b).count() as u64;
                prop_assert_eq!(pieces, sum.div_ceil(u64::from(u32::MAX)).max(1));
            }
        }

        /// The records of some pairs are those of every pair, filtered:
        /// passing over the submissions in no wanted pair changes nothing
        /// for the others, in a hash's group under the seed limit (every
        /// pair) and over it (each submission with its next ones in an
        /// order drawn from the hash; the limit is made low here).
        #[test]
        fn records_of_some_pairs_are_every_pairs_records_filtered(
            (docs, subs, low_limit) in corpus_docs(),
            pick in any::<u64>(),
        ) {
            let corpus: Corpus = docs
                .iter()
                .enumerate()
                .map(|(i, d)| crate::Document::new(SubmissionId(i as u32 % subs.max(2)), d))
                .collect();
            let mut options = MatchOptions::new(Config::new(3, 2).unwrap());
            if low_limit {
                options.common = CommonRule::Rarity(crate::Rarity {
                    template_min: usize::MAX,
                    records_per_fingerprint: 0,
                    min_records: 1,
                    min_seed_limit: 2,
                    ..crate::Rarity::default()
                });
            }
            let Ok(fingerprinted) = crate::fingerprint(&corpus, &options, &crate::Silent) else {
                return Ok(());
            };
            let indexed = fingerprinted.index(&crate::Silent).unwrap();
            let (index, prep) = indexed.parts();
            let all = index.records_of(prep, None);
            let mut pairs: Vec<u64> = all.iter().map(Record::pair).collect();
            pairs.dedup();
            let wanted: Vec<u64> = pairs
                .iter()
                .enumerate()
                .filter(|&(i, _)| pick >> (i % 64) & 1 == 1)
                .map(|(_, &p)| p)
                .collect();
            let fields = |r: &Record| (r.pair(), r.bucket, r.a_start, r.a_len, r.b_start, r.b_len);
            let mut expected: Vec<_> = all
                .iter()
                .filter(|r| wanted.binary_search(&r.pair()).is_ok())
                .map(fields)
                .collect();
            let got = index.records_of(prep, Some(&wanted));
            prop_assert!(got.is_sorted_by_key(Record::pair));
            let mut got: Vec<_> = got.iter().map(fields).collect();
            expected.sort_unstable();
            got.sort_unstable();
            prop_assert_eq!(got, expected);
        }

        /// The same as one sort of all occurrences, each document's run
        /// bounded by its offsets.
        #[test]
        fn by_document_equals_one_sort(
            // Up to a few thousand occurrences: several chunks of parts.
            parts in prop::collection::vec(
                prop::collection::vec((0u64..6, 0u64..50, 0u32..4), 0..300),
                0..12,
            ),
            extra in 0usize..3,
        ) {
            let docs = 6 + extra;
            let parts: Vec<Vec<(u64, u32)>> = parts
                .iter()
                .map(|p| p.iter().map(|&(d, pos, df)| (d << 32 | pos, df)).collect())
                .collect();
            let mut sorted: Vec<(u64, u32)> = parts.iter().flatten().copied().collect();
            sorted.sort_unstable();
            let (got, starts) = by_document(parts, docs);
            let positions: Vec<(u32, u32)> =
                sorted.iter().map(|&(k, df)| (k as u32, df)).collect();
            prop_assert_eq!(&got, &positions);
            if sorted.is_empty() {
                prop_assert!(starts.is_empty());
            } else {
                prop_assert_eq!(starts.len(), docs + 1);
                for d in 0..docs {
                    let naive: Vec<(u32, u32)> = sorted
                        .iter()
                        .filter(|&&(k, _)| k >> 32 == d as u64)
                        .map(|&(k, df)| (k as u32, df))
                        .collect();
                    prop_assert_eq!(&got[starts[d]..starts[d + 1]], &naive[..]);
                }
                prop_assert_eq!(starts[docs], sorted.len());
            }
        }
    }
}
