//! Fingerprinting the corpus and the sort-based index of shared hashes.
//!
//! Every selected fingerprint becomes an [`Entry`]. Entries are scattered
//! into buckets by the top bits of a mixed hash and each bucket is sorted by
//! `(hash, doc, pos)` in parallel; a bucket is then one sorted run per hash,
//! which is all grouping needs. (Measured on 2 M entries with skewed
//! winnowed hashes: a plain `sort_unstable` took 48–53 ms, rayon's
//! `par_sort_unstable` 53–87 ms, an LSD radix sort with four 16-bit passes
//! 60–73 ms, and this bucketed sort 52–60 ms on a loaded 2-core machine;
//! the bucketed sort is the only one that also splits the grouping work
//! across threads, so it is used.)

use bryo_engine::{rehash, Config, Fingerprint, Fingerprinter, Hasher};
use rayon::prelude::*;

use crate::{Corpus, DocId, Error, MatchOptions, Role, SubmissionId};

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
    /// Base-covered symbols as sorted, disjoint, non-adjacent half-open
    /// ranges.
    pub base: Vec<(u32, u32)>,
}

/// A submission, dense index = rank of its id.
pub(crate) struct Sub {
    pub id: SubmissionId,
    pub old: bool,
    /// Internal documents `docs.0..docs.1`.
    pub docs: (u32, u32),
    /// Symbols not base-covered.
    pub symbols: u64,
}

/// The corpus in internal order.
pub(crate) struct Prepared<'c> {
    pub docs: Vec<Doc<'c>>,
    pub subs: Vec<Sub>,
    pub base_docs: Vec<&'c [u64]>,
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
                }),
            }
            docs.push(Doc {
                id: i,
                sub: subs.len() as u32 - 1,
                symbols: corpus.documents()[i as usize].symbols,
                base: Vec::new(),
            });
        }
        Ok(Prepared {
            docs,
            subs,
            base_docs,
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
                            let (s, e) = (i as u32, i as u32 + k);
                            match out.last_mut() {
                                Some(last) if last.1 >= s => last.1 = e,
                                _ => out.push((s, e)),
                            }
                        }
                    }
                    doc.base = out;
                });
        }
        for sub in &mut self.subs {
            sub.symbols = self.docs[sub.docs.0 as usize..sub.docs.1 as usize]
                .iter()
                .map(|d| d.symbols.len() as u64 - base_count(&d.base))
                .sum();
        }
    }
}

/// Number of symbols in a list of disjoint ranges.
pub(crate) fn base_count(ranges: &[(u32, u32)]) -> u64 {
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

/// Fingerprints every non-base document in parallel.
pub(crate) fn fingerprint_all(
    docs: &[Doc<'_>],
    options: &MatchOptions,
) -> Result<Vec<Vec<Fingerprint>>, Error> {
    let proto = Fingerprinter::new(options.config, options.hash, options.selection)?;
    docs.par_iter()
        .map_init(
            || proto.clone(),
            |f, d| f.fingerprints_symbols(d.symbols).map_err(Error::from),
        )
        .collect()
}

/// A pair of submissions sharing one hash group: `a < b` (dense indices).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Record {
    pub a: u32,
    pub b: u32,
    pub bucket: u32,
    pub group: u32,
    pub contrib: u32,
}

/// The filtered entries of one bucket, grouped by hash.
#[derive(Default)]
pub(crate) struct Bucket {
    pub entries: Vec<Entry>,
    /// Group `g` is `entries[starts[g]..starts[g + 1]]`.
    pub starts: Vec<usize>,
}

impl Bucket {
    pub fn group(&self, g: u32) -> &[Entry] {
        let g = g as usize;
        &self.entries[self.starts[g]..self.starts[g + 1]]
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

/// The corpus index: buckets of shared hash groups and, for every group,
/// one record per pair of submissions that may be compared.
pub(crate) struct Index {
    pub buckets: Vec<Bucket>,
    pub records: Vec<Record>,
    pub counts: IndexCounts,
}

/// Sorts the fingerprints into buckets, applies the base, `max_submissions`
/// and cap rules and forms the pair records.
pub(crate) fn build_index(
    fps: &[Vec<Fingerprint>],
    prep: &Prepared<'_>,
    base: &BaseSet,
    options: &MatchOptions,
) -> Index {
    let total: usize = fps.iter().map(Vec::len).sum();
    // About 512 entries per bucket, at most 4096 buckets.
    let bits = (usize::BITS - (total / 512).leading_zeros()).min(12);
    let nb = 1usize << bits;
    let bucket_of = |h: u64| {
        if bits == 0 {
            0
        } else {
            (rehash(h) >> (64 - bits)) as usize
        }
    };
    let mut counts = vec![0usize; nb + 1];
    for f in fps.iter().flatten() {
        counts[bucket_of(f.hash) + 1] += 1;
    }
    for i in 0..nb {
        counts[i + 1] += counts[i];
    }
    let starts = counts.clone();
    let mut sorted = vec![
        Entry {
            hash: 0,
            doc: 0,
            pos: 0
        };
        total
    ];
    for (doc, list) in fps.iter().enumerate() {
        for f in list {
            let b = bucket_of(f.hash);
            sorted[counts[b]] = Entry {
                hash: f.hash,
                doc: doc as u32,
                pos: f.pos,
            };
            counts[b] += 1;
        }
    }
    let mut slices: Vec<&mut [Entry]> = Vec::with_capacity(nb);
    let mut rest: &mut [Entry] = &mut sorted;
    for i in 0..nb {
        let (head, tail) = rest.split_at_mut(starts[i + 1] - starts[i]);
        slices.push(head);
        rest = tail;
    }
    let out: Vec<(Bucket, Vec<Record>, IndexCounts)> = slices
        .into_par_iter()
        .enumerate()
        .map(|(b, slice)| {
            slice.sort_unstable_by_key(|e| (e.hash, e.doc, e.pos));
            group_bucket(b as u32, slice, prep, base, options)
        })
        .collect();
    let mut buckets = Vec::with_capacity(nb);
    let mut records = Vec::new();
    let mut total_counts = IndexCounts::default();
    for (bucket, recs, c) in out {
        buckets.push(bucket);
        records.extend_from_slice(&recs);
        total_counts = total_counts.add(c);
    }
    records.par_sort_unstable();
    Index {
        buckets,
        records,
        counts: total_counts,
    }
}

/// Filters one sorted bucket and forms its pair records.
fn group_bucket(
    bucket: u32,
    slice: &[Entry],
    prep: &Prepared<'_>,
    base: &BaseSet,
    options: &MatchOptions,
) -> (Bucket, Vec<Record>, IndexCounts) {
    let mut out = Bucket::default();
    let mut records = Vec::new();
    let mut c = IndexCounts::default();
    let cap = options.occurrence_cap;
    let max_subs = options.max_submissions;
    // (dense submission, kept occurrences) for the current group.
    let mut subs: Vec<(u32, u32)> = Vec::new();
    let sub_of = |e: &Entry| prep.docs[e.doc as usize].sub;
    let mut i = 0;
    while i < slice.len() {
        let h = slice[i].hash;
        let end = i + slice[i..].iter().take_while(|e| e.hash == h).count();
        let run = &slice[i..end];
        i = end;
        if base.contains(h) {
            c.dropped_base += run.len() as u64;
            continue;
        }
        let mut distinct = 0usize;
        let mut last = None;
        for e in run {
            let s = sub_of(e);
            if last != Some(s) {
                distinct += 1;
                last = Some(s);
            }
        }
        if distinct < 2 {
            continue;
        }
        if max_subs != 0 && distinct > max_subs {
            c.dropped_common += run.len() as u64;
            continue;
        }
        let start = out.entries.len();
        subs.clear();
        let mut j = 0;
        while j < run.len() {
            let doc = run[j].doc;
            let n = run[j..].iter().take_while(|e| e.doc == doc).count();
            let keep = n.min(cap);
            out.entries.extend_from_slice(&run[j..j + keep]);
            c.dropped_cap += (n - keep) as u64;
            let s = sub_of(&run[j]);
            match subs.last_mut() {
                Some(last) if last.0 == s => last.1 += keep as u32,
                _ => subs.push((s, keep as u32)),
            }
            j += n;
        }
        c.indexed += (out.entries.len() - start) as u64;
        c.shared_hashes += 1;
        let group = out.starts.len() as u32;
        out.starts.push(start);
        for (x, &(sa, na)) in subs.iter().enumerate() {
            for &(sb, nb) in &subs[x + 1..] {
                if prep.subs[sa as usize].old && prep.subs[sb as usize].old {
                    continue;
                }
                records.push(Record {
                    a: sa,
                    b: sb,
                    bucket,
                    group,
                    contrib: na.min(nb),
                });
            }
        }
    }
    out.starts.push(out.entries.len());
    (out, records, c)
}
