//! Counting occurrences of 64-bit hashes in bounded memory.
//!
//! A [`HashCounter`] keeps a hash map of at most `budget` distinct hashes.
//! When it is full, the map is sorted by hash and written to an anonymous
//! temporary file (a *run*) and emptied. [`merge_counts`] then merges every
//! run of every counter, summing the counts of equal hashes: the classic
//! external sort, so the memory used is the budget plus one buffered record
//! per run, whatever the number of distinct hashes.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::fs::File;
use std::hash::{BuildHasher, Hasher};
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use crate::Error;

/// Bytes of one spilled record: the hash and its count, little-endian.
const RECORD: usize = 16;

/// Approximate bytes of memory one counted hash takes in the map (key,
/// value, control byte, and the load factor of the table).
pub const BYTES_PER_ENTRY: usize = 40;

/// A hash with the number of times it occurred.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct HashCount {
    /// The 64-bit hash.
    pub hash: u64,
    /// How many times it occurred.
    pub count: u64,
}

/// Hashes are already well mixed, but Karp–Rabin values are weakest in their
/// low bits, which a hash table uses for buckets: mix them once more.
#[derive(Clone, Copy, Default)]
struct Mix;

#[derive(Default)]
struct MixHasher(u64);

impl Hasher for MixHasher {
    fn finish(&self) -> u64 {
        bryo_engine::rehash(self.0)
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

impl BuildHasher for Mix {
    type Hasher = MixHasher;

    fn build_hasher(&self) -> MixHasher {
        MixHasher::default()
    }
}

/// Counts occurrences of hashes with at most `budget` distinct hashes in
/// memory, spilling sorted runs to temporary files beyond that.
///
/// ```
/// use bryo_stats::{merge_counts, HashCount, HashCounter};
///
/// let dir = std::env::temp_dir();
/// let mut counter = HashCounter::new(2, &dir)?; // spills past 2 distinct hashes
/// counter.add_all(&[7, 3, 7, 9, 3, 7])?;
/// assert!(counter.spilled_runs() > 0);
/// let counts: Vec<HashCount> = merge_counts(vec![counter])?.collect::<Result<_, _>>()?;
/// let pairs: Vec<(u64, u64)> = counts.iter().map(|c| (c.hash, c.count)).collect();
/// assert_eq!(pairs, [(3, 2), (7, 3), (9, 1)]);
/// # Ok::<(), bryo_stats::Error>(())
/// ```
pub struct HashCounter {
    map: HashMap<u64, u64, Mix>,
    budget: usize,
    dir: PathBuf,
    runs: Vec<File>,
    occurrences: u64,
}

impl std::fmt::Debug for HashCounter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HashCounter")
            .field("in_memory", &self.map.len())
            .field("budget", &self.budget)
            .field("spilled_runs", &self.runs.len())
            .field("occurrences", &self.occurrences)
            .finish()
    }
}

impl HashCounter {
    /// A counter holding at most `budget` distinct hashes in memory; runs
    /// are spilled as anonymous files (deleted when dropped) in `spill_dir`.
    pub fn new(budget: usize, spill_dir: &Path) -> Result<HashCounter, Error> {
        if budget == 0 {
            return Err(Error::ZeroBudget);
        }
        Ok(HashCounter {
            // Allocated lazily and grown by the map itself: a small corpus
            // never pays for the whole budget.
            map: HashMap::with_hasher(Mix),
            budget,
            dir: spill_dir.to_path_buf(),
            runs: Vec::new(),
            occurrences: 0,
        })
    }

    /// A counter whose map stays within about `bytes` of memory.
    pub fn with_memory(bytes: usize, spill_dir: &Path) -> Result<HashCounter, Error> {
        HashCounter::new(bytes / BYTES_PER_ENTRY, spill_dir)
    }

    /// Counts one occurrence of `hash`.
    pub fn add(&mut self, hash: u64) -> Result<(), Error> {
        self.occurrences += 1;
        if let Some(c) = self.map.get_mut(&hash) {
            *c += 1;
            return Ok(());
        }
        if self.map.len() >= self.budget {
            self.spill()?;
        }
        self.map.insert(hash, 1);
        Ok(())
    }

    /// Counts one occurrence of each hash of `hashes`.
    pub fn add_all(&mut self, hashes: &[u64]) -> Result<(), Error> {
        hashes.iter().try_for_each(|&h| self.add(h))
    }

    /// Occurrences counted so far.
    pub fn occurrences(&self) -> u64 {
        self.occurrences
    }

    /// Runs written to disk so far.
    pub fn spilled_runs(&self) -> usize {
        self.runs.len()
    }

    fn io_error(&self, source: std::io::Error) -> Error {
        Error::Spill {
            dir: self.dir.display().to_string(),
            source,
        }
    }

    fn spill(&mut self) -> Result<(), Error> {
        let sorted = self.drain_sorted();
        let file = tempfile::tempfile_in(&self.dir).map_err(|e| self.io_error(e))?;
        let mut out = BufWriter::with_capacity(1 << 16, file);
        let written = sorted.iter().try_for_each(|c| {
            out.write_all(&c.hash.to_le_bytes())?;
            out.write_all(&c.count.to_le_bytes())
        });
        written.map_err(|e| self.io_error(e))?;
        let mut file = out
            .into_inner()
            .map_err(|e| self.io_error(e.into_error()))?;
        file.seek(SeekFrom::Start(0))
            .map_err(|e| self.io_error(e))?;
        self.runs.push(file);
        Ok(())
    }

    fn drain_sorted(&mut self) -> Vec<HashCount> {
        let mut v: Vec<HashCount> = self
            .map
            .drain()
            .map(|(hash, count)| HashCount { hash, count })
            .collect();
        v.sort_unstable_by_key(|c| c.hash);
        v
    }
}

/// One sorted run being merged.
enum Source {
    Memory(std::vec::IntoIter<HashCount>),
    Disk(BufReader<File>),
}

impl Source {
    fn next(&mut self, dir: &str) -> Result<Option<HashCount>, Error> {
        match self {
            Source::Memory(it) => Ok(it.next()),
            Source::Disk(r) => {
                let mut buf = [0u8; RECORD];
                let mut filled = 0;
                while filled < RECORD {
                    match r.read(&mut buf[filled..]) {
                        Ok(0) if filled == 0 => return Ok(None),
                        Ok(0) => return Err(Error::TruncatedSpill(dir.to_string())),
                        Ok(n) => filled += n,
                        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                        Err(source) => {
                            return Err(Error::Spill {
                                dir: dir.to_string(),
                                source,
                            })
                        }
                    }
                }
                let (h, c) = buf.split_at(8);
                let word = |b: &[u8]| {
                    let mut w = [0u8; 8];
                    w.copy_from_slice(b);
                    u64::from_le_bytes(w)
                };
                Ok(Some(HashCount {
                    hash: word(h),
                    count: word(c),
                }))
            }
        }
    }
}

/// Every distinct hash counted by a set of [`HashCounter`]s with its total
/// count, in increasing order of hash: a k-way merge of all their runs.
///
/// Made by [`merge_counts`]. Yields an error if a spill file cannot be read.
pub struct MergedCounts {
    sources: Vec<Source>,
    heap: BinaryHeap<Reverse<(u64, usize, u64)>>,
    dir: String,
    failed: bool,
}

impl std::fmt::Debug for MergedCounts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MergedCounts")
            .field("sources", &self.sources.len())
            .finish()
    }
}

/// Merges the counts of `counters` (from several threads, say): every
/// distinct hash once, with the sum of its counts, in increasing hash order.
/// The result does not depend on how the hashes were split between counters
/// or when they spilled.
pub fn merge_counts(counters: Vec<HashCounter>) -> Result<MergedCounts, Error> {
    let mut sources = Vec::new();
    let mut dir = String::new();
    for mut c in counters {
        dir = c.dir.display().to_string();
        let memory = c.drain_sorted();
        c.map = HashMap::with_hasher(Mix);
        for run in c.runs.drain(..) {
            sources.push(Source::Disk(BufReader::with_capacity(1 << 16, run)));
        }
        sources.push(Source::Memory(memory.into_iter()));
    }
    let mut heap = BinaryHeap::with_capacity(sources.len());
    for (i, s) in sources.iter_mut().enumerate() {
        if let Some(c) = s.next(&dir)? {
            heap.push(Reverse((c.hash, i, c.count)));
        }
    }
    Ok(MergedCounts {
        sources,
        heap,
        dir,
        failed: false,
    })
}

impl MergedCounts {
    fn pop(&mut self) -> Result<Option<(u64, u64)>, Error> {
        let Some(Reverse((hash, i, count))) = self.heap.pop() else {
            return Ok(None);
        };
        if let Some(next) = self.sources[i].next(&self.dir)? {
            self.heap.push(Reverse((next.hash, i, next.count)));
        }
        Ok(Some((hash, count)))
    }
}

impl MergedCounts {
    fn step(&mut self) -> Result<Option<HashCount>, Error> {
        let Some((hash, mut count)) = self.pop()? else {
            return Ok(None);
        };
        while let Some(Reverse((h, _, _))) = self.heap.peek() {
            if *h != hash {
                break;
            }
            if let Some((_, c)) = self.pop()? {
                count += c;
            }
        }
        Ok(Some(HashCount { hash, count }))
    }
}

impl Iterator for MergedCounts {
    type Item = Result<HashCount, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        match self.step() {
            Ok(x) => x.map(Ok),
            Err(e) => {
                self.failed = true;
                Some(Err(e))
            }
        }
    }
}
