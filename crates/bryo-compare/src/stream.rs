//! `bryo compare` on a corpus larger than memory.
//!
//! The in-memory run ([`crate::compare`]) holds every file's symbols and
//! every fingerprint at once. A streamed run holds neither:
//!
//! 1. **fingerprint** — files are read, analyzed and winnowed batch by
//!    batch on all cores; each file leaves its report entry and its
//!    postings `(hash, document, occurrences)`, which fill a buffer that is
//!    sorted and spilled to disk whenever it reaches its share of the
//!    memory budget;
//! 2. **index** — the sorted runs are merged, hash by hash, and the
//!    common-code rule is applied with the whole corpus's counts (MOSS's
//!    `-m`, or the rarity rule: template threshold, seeding budget); the
//!    pair records each shared hash forms are summed per pair of
//!    submissions, spilling sorted runs in turn;
//! 3. **pairs** — the summed counts are merged and the best candidates
//!    chosen as the in-memory run chooses them; pairs of identical
//!    submissions join them;
//! 4. **fragments** — one more merge gives each chosen pair the hashes the
//!    whole corpus excluded, its seeds and the rarity counts of its
//!    hashes; each pair is then read again and compared alone with them
//!    ([`crate::compare_alone`]), on all cores;
//!    When no count cuts the candidates (`-n 0`, or a similarity floor),
//!    every candidate is compared: the pairs are read again from the
//!    summed runs in key order, each with its seeds from runs of `(pair,
//!    hash)` merged beside them, a batch at a time;
//! 5. **report** — each scored pair leaves a fixed-size record (its scores
//!    and where its fragments are) and its fragments on disk as it is
//!    scored; the records are sorted in runs within the budget, clusters
//!    formed from them and totals added as in the in-memory run, and the
//!    pairs are read back in rank order ([`SpilledPairs`]).
//!
//! The report is the in-memory run's. What grows with the corpus in
//! memory is one report entry per file and a few bytes of bookkeeping per
//! file; postings, pair counts, seeds and the ranked pairs stay within the
//! budget, however many pairs share a fingerprint. The reported pairs are
//! held in the report only when their fragments are kept there
//! ([`FragmentKeeping::Kept`]); otherwise they are read from disk with or
//! without their fragments.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet};
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use bryo_engine::{Fingerprinter, HashFunction, Selection};
use bryo_input::{InputFile, Inputs};
use bryo_match::{CommonRule, MatchStats, Progress, Stage, SubmissionId};
use bryo_report::{FileEntry, Pair, Report, Skipped, Submission};
use rayon::prelude::*;

use crate::archive::{Archive, SharedHashes};
use crate::identical::{detect_by_keys, FileKey};
use crate::pair::{compare_analyzed, Alone, RarityCounts};
use crate::run::{file_entry, matcher_setup, Head};
use crate::{
    analyze_keeping, Analyzed, CompareError, CompareOptions, FileFingerprint, FileFingerprinter,
};

/// Occurrences of one hash kept per document, as the in-memory run keeps
/// them ([`bryo_match::DEFAULT_OCCURRENCE_CAP`]).
const OCCURRENCE_CAP: u32 = bryo_match::DEFAULT_OCCURRENCE_CAP as u32;

/// Bytes of one spilled entry: two little-endian `u64`.
const ENTRY_BYTES: usize = 16;

/// How a streamed run may use memory and disk.
#[derive(Clone, Debug)]
pub struct StreamOptions {
    /// Bytes of memory for postings and pair counts; beyond them, sorted
    /// runs are written to disk. Report entries (one per file) and the
    /// chosen pairs' fragments come on top.
    pub memory: usize,
    /// Where the sorted runs are written (in a temporary directory that is
    /// removed at the end).
    pub spill_dir: PathBuf,
    /// Files bigger than this many bytes when they are read are skipped,
    /// as discovery skips them.
    pub max_file_size: u64,
    /// Files read and analyzed together (at least 1).
    pub batch_files: usize,
    /// What becomes of the reported pairs' fragments.
    pub fragments: FragmentKeeping,
}

/// What a streamed run does with the fragments of the pairs it reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FragmentKeeping {
    /// In the report ([`Pair::fragments`]), as the in-memory run has them.
    #[default]
    Kept,
    /// Written to a temporary file under the spill directory as each pair
    /// is scored, and read back in rank order with the pairs
    /// ([`Streamed::pairs`]); the report holds no pairs. Memory then does
    /// not grow with the pairs of a million candidates.
    Spilled,
    /// Left out, for reports that show none (CSV, the terminal table): the
    /// pairs are read back without them ([`Streamed::pairs`]); the report
    /// holds no pairs.
    Dropped,
}

/// The reported pairs of a streamed run, in rank order on disk
/// ([`FragmentKeeping::Spilled`] or [`FragmentKeeping::Dropped`]): the
/// report's pairs are left empty and read from here, a batch at a time, so
/// that memory does not grow with the pairs (`-n 0` on a class is a
/// million of them). The files are removed when this is dropped.
///
/// Each scored pair left a fixed-size record (its scores and where its
/// fragments are); the records were sorted in runs of a bounded size, and
/// a reader merges the runs in rank order.
#[derive(Debug)]
pub struct SpilledPairs {
    dir: tempfile::TempDir,
    runs: Vec<PathBuf>,
    /// The last run, sorted, kept in memory (within the budget).
    memory: Vec<Record>,
    /// With [`FragmentKeeping::Spilled`], the fragments' file.
    fragments: Option<PathBuf>,
    /// Reported pairs: the retained records, at most `-n` of them.
    len: usize,
    max_similarity: Option<f64>,
}

/// Words of one pair record, in this order: the sort key (`!covered`,
/// `!shared`, `a << 32 | b`: most covered symbols first, then most shared
/// fingerprints, then by submissions), the similarity and percentages (as
/// `f64` bits), lines matched of `a`, of `b` and of the table, the longest
/// fragment, flags (bit 0 retained, bit 1 identical), and the fragments'
/// offset and length in the fragments' file.
const RECORD_WORDS: usize = 13;
type Record = [u64; RECORD_WORDS];
const RECORD_BYTES: usize = RECORD_WORDS * 8;
const RETAINED: u64 = 1;
const IDENTICAL: u64 = 2;

/// Scored pairs compared together on all cores, then recorded.
const SCORE_BATCH: usize = 4096;

impl SpilledPairs {
    /// Pairs reported.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no pair is reported.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The highest similarity among the reported pairs.
    pub fn max_similarity(&self) -> Option<f64> {
        self.max_similarity
    }

    /// The reported pairs in rank order, from the first; several readers
    /// may read at once.
    pub fn reader(&self) -> Result<PairReader<'_>, CompareError> {
        let fail = |e| spill_error(self.dir.path(), e);
        let mut sources = Vec::with_capacity(self.runs.len() + 1);
        for path in &self.runs {
            let file = File::open(path).map_err(fail)?;
            sources.push(RecordSource::File(BufReader::with_capacity(1 << 16, file)));
        }
        sources.push(RecordSource::Memory(self.memory.iter()));
        let mut heads = Vec::with_capacity(sources.len());
        let mut heap = BinaryHeap::new();
        for (i, source) in sources.iter_mut().enumerate() {
            let head = source.next().map_err(fail)?;
            if let Some(r) = &head {
                heap.push(Reverse((sort_key(r), i)));
            }
            heads.push(head);
        }
        let fragments = match &self.fragments {
            Some(path) => Some(File::open(path).map_err(fail)?),
            None => None,
        };
        Ok(PairReader {
            of: self,
            sources,
            heads,
            heap,
            fragments,
            left: self.len,
        })
    }

    /// `f` on every record (retained or not), in no particular order.
    fn each_record(&self, mut f: impl FnMut(&Record)) -> Result<(), CompareError> {
        let fail = |e| spill_error(self.dir.path(), e);
        for path in &self.runs {
            let file = File::open(path).map_err(fail)?;
            let mut source = RecordSource::File(BufReader::with_capacity(1 << 16, file));
            while let Some(r) = source.next().map_err(fail)? {
                f(&r);
            }
        }
        self.memory.iter().for_each(f);
        Ok(())
    }
}

/// Reads [`SpilledPairs`] in rank order ([`SpilledPairs::reader`]).
#[derive(Debug)]
pub struct PairReader<'a> {
    of: &'a SpilledPairs,
    sources: Vec<RecordSource<'a>>,
    heads: Vec<Option<Record>>,
    heap: BinaryHeap<Reverse<([u64; 3], usize)>>,
    fragments: Option<File>,
    /// Reported pairs not read yet.
    left: usize,
}

impl PairReader<'_> {
    /// The next `n` reported pairs (fewer at the end, none after it), with
    /// their fragments if they were spilled.
    pub fn next_batch(&mut self, n: usize) -> Result<Vec<Pair>, CompareError> {
        let fail = |e| spill_error(self.of.dir.path(), e);
        let mut records = Vec::with_capacity(n.min(self.left));
        while records.len() < n && self.left > 0 {
            let Some(Reverse((_, i))) = self.heap.pop() else {
                break;
            };
            let record = self.heads[i]
                .take()
                .expect("a source in the heap has a head");
            self.heads[i] = self.sources[i].next().map_err(fail)?;
            if let Some(r) = &self.heads[i] {
                self.heap.push(Reverse((sort_key(r), i)));
            }
            if record[10] & RETAINED != 0 {
                records.push(record);
                self.left -= 1;
            }
        }
        let raw: Vec<Vec<u8>> = match &mut self.fragments {
            Some(file) => records
                .iter()
                .map(|r| {
                    let mut bytes = vec![0; r[12] as usize];
                    file.seek(SeekFrom::Start(r[11]))?;
                    file.read_exact(&mut bytes)?;
                    Ok(bytes)
                })
                .collect::<io::Result<_>>()
                .map_err(fail)?,
            None => Vec::new(),
        };
        let dir = self.of.dir.path();
        records
            .par_iter()
            .enumerate()
            .map(|(i, r)| {
                let mut pair = pair_of(r);
                if let Some(bytes) = raw.get(i) {
                    pair.fragments = serde_json::from_slice(bytes).map_err(|e| {
                        spill_error(dir, io::Error::new(io::ErrorKind::InvalidData, e))
                    })?;
                }
                Ok(pair)
            })
            .collect()
    }
}

/// One sorted run of records.
#[derive(Debug)]
enum RecordSource<'a> {
    File(BufReader<File>),
    Memory(std::slice::Iter<'a, Record>),
}

impl RecordSource<'_> {
    fn next(&mut self) -> io::Result<Option<Record>> {
        match self {
            RecordSource::Memory(it) => Ok(it.next().copied()),
            RecordSource::File(r) => {
                let mut b = [0u8; RECORD_BYTES];
                match r.read_exact(&mut b) {
                    Ok(()) => {
                        let mut record = [0u64; RECORD_WORDS];
                        for (w, chunk) in record.iter_mut().zip(b.chunks_exact(8)) {
                            *w = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
                        }
                        Ok(Some(record))
                    }
                    Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(None),
                    Err(e) => Err(e),
                }
            }
        }
    }
}

fn sort_key(r: &Record) -> [u64; 3] {
    [r[0], r[1], r[2]]
}

/// The record of a scored pair (global submission numbers), its fragments
/// at `spilled` (offset, length).
fn record_of(s: &Scored, retained: bool, spilled: (u64, u64)) -> Record {
    let p = &s.pair;
    [
        !s.covered,
        !p.shared_fingerprints,
        pair_key(p.a as u32, p.b as u32),
        p.similarity.to_bits(),
        p.a_percent.to_bits(),
        p.b_percent.to_bits(),
        p.a_lines_matched,
        p.b_lines_matched,
        p.lines_matched,
        p.longest_fragment,
        (u64::from(retained) * RETAINED) | (u64::from(s.declared) * IDENTICAL),
        spilled.0,
        spilled.1,
    ]
}

/// The pair of a record, without its fragments.
fn pair_of(r: &Record) -> Pair {
    Pair {
        a: (r[2] >> 32) as usize,
        b: r[2] as u32 as usize,
        similarity: f64::from_bits(r[3]),
        a_percent: f64::from_bits(r[4]),
        b_percent: f64::from_bits(r[5]),
        a_lines_matched: r[6],
        b_lines_matched: r[7],
        lines_matched: r[8],
        longest_fragment: r[9],
        shared_fingerprints: !r[1],
        identical: r[10] & IDENTICAL != 0,
        fragments: Vec::new(),
    }
}

/// Where scored pairs go as they are scored: their records, sorted and
/// spilled in runs of at most `cap`, and their fragments.
struct PairSink {
    dir: tempfile::TempDir,
    runs: Vec<PathBuf>,
    buffer: Vec<Record>,
    cap: usize,
    /// Where the fragments are written, as each pair is scored.
    fragments: Option<Mutex<(BufWriter<File>, u64, PathBuf)>>,
    retained: usize,
    max_similarity: Option<f64>,
}

impl PairSink {
    fn new(spill_dir: &Path, fragments: bool, cap: usize) -> Result<PairSink, CompareError> {
        let dir = tempfile::TempDir::with_prefix_in("bryo-pairs-", spill_dir)
            .map_err(|e| spill_error(spill_dir, e))?;
        let fragments = if fragments {
            let path = dir.path().join("fragments");
            let file = File::create(&path).map_err(|e| spill_error(dir.path(), e))?;
            Some(Mutex::new((
                BufWriter::with_capacity(1 << 20, file),
                0,
                path,
            )))
        } else {
            None
        };
        Ok(PairSink {
            dir,
            runs: Vec::new(),
            buffer: Vec::new(),
            cap: cap.max(1),
            fragments,
            retained: 0,
            max_similarity: None,
        })
    }

    /// Writes the fragments of `pair` (if they are kept), leaving it
    /// without them; returns where they are (offset, length).
    fn take_fragments(&self, pair: &mut Pair) -> Result<(u64, u64), CompareError> {
        let fragments = std::mem::take(&mut pair.fragments);
        let Some(out) = &self.fragments else {
            return Ok((0, 0));
        };
        let fail = |e| spill_error(self.dir.path(), e);
        let bytes = serde_json::to_vec(&fragments).map_err(|e| fail(io::Error::other(e)))?;
        drop(fragments);
        let mut out = out.lock().unwrap_or_else(|e| e.into_inner());
        let (writer, at, _) = &mut *out;
        writer.write_all(&bytes).map_err(fail)?;
        let spilled = (*at, bytes.len() as u64);
        *at += bytes.len() as u64;
        Ok(spilled)
    }

    fn push(&mut self, s: &Scored, retained: bool) -> Result<(), CompareError> {
        if retained {
            self.retained += 1;
            let m = self.max_similarity.get_or_insert(s.pair.similarity);
            *m = m.max(s.pair.similarity);
        }
        push_bounded(
            &mut self.buffer,
            record_of(s, retained, s.spilled),
            self.cap,
        );
        if self.buffer.len() >= self.cap {
            self.spill()?;
        }
        Ok(())
    }

    fn spill(&mut self) -> Result<(), CompareError> {
        self.buffer.par_sort_unstable_by_key(sort_key);
        let path = self
            .dir
            .path()
            .join(format!("ranked-{}.run", self.runs.len()));
        let write = || -> io::Result<()> {
            let mut out = BufWriter::with_capacity(1 << 20, File::create(&path)?);
            for r in &self.buffer {
                for w in r {
                    out.write_all(&w.to_le_bytes())?;
                }
            }
            out.into_inner().map_err(|e| e.into_error())?;
            Ok(())
        };
        write().map_err(|e| spill_error(self.dir.path(), e))?;
        self.runs.push(path);
        self.buffer.clear();
        Ok(())
    }

    /// The reported pairs: the retained ones, the first `max_pairs` of
    /// them (0: all).
    fn finish(mut self, max_pairs: usize) -> Result<SpilledPairs, CompareError> {
        self.buffer.par_sort_unstable_by_key(sort_key);
        self.buffer.shrink_to_fit();
        let fragments = match self
            .fragments
            .map(|m| m.into_inner().unwrap_or_else(|e| e.into_inner()))
        {
            Some((out, _, path)) => {
                out.into_inner()
                    .map_err(|e| spill_error(self.dir.path(), e.into_error()))?;
                Some(path)
            }
            None => None,
        };
        let mut spilled = SpilledPairs {
            dir: self.dir,
            runs: self.runs,
            memory: self.buffer,
            fragments,
            len: self.retained,
            max_similarity: self.max_similarity,
        };
        if max_pairs != 0 && max_pairs < self.retained {
            // Cut: the best of the first `max_pairs`.
            spilled.len = max_pairs;
            let mut reader = spilled.reader()?;
            reader.fragments = None;
            let mut best: Option<f64> = None;
            while reader.left > 0 {
                for p in reader.next_batch(SCORE_BATCH)? {
                    best = Some(best.map_or(p.similarity, |b| b.max(p.similarity)));
                }
            }
            spilled.max_similarity = best;
        }
        Ok(spilled)
    }
}

/// Sorted runs of `(u64, u64)` merged in key order, one entry at a time.
struct Merge<'a> {
    readers: Vec<RunReader<'a>>,
    heap: BinaryHeap<Reverse<((u64, u64), usize)>>,
    dir: &'a Path,
}

impl<'a> Merge<'a> {
    /// Every run of `runs`, from its first key of at least `from`.
    fn new(runs: &'a Runs, from: u64) -> Result<Merge<'a>, CompareError> {
        let fail = |e| spill_error(&runs.dir, e);
        let mut readers: Vec<RunReader<'_>> = Vec::with_capacity(runs.files.len() + 1);
        for path in &runs.files {
            let file = File::open(path).map_err(fail)?;
            readers.push(RunReader::File(seek_to(file, from).map_err(fail)?));
        }
        for run in &runs.memory {
            let at = run.partition_point(|e| e.0 < from);
            readers.push(RunReader::Memory(run[at..].iter()));
        }
        let mut heap = BinaryHeap::new();
        for (i, r) in readers.iter_mut().enumerate() {
            if let Some(e) = r.next().map_err(fail)? {
                heap.push(Reverse((e, i)));
            }
        }
        Ok(Merge {
            readers,
            heap,
            dir: &runs.dir,
        })
    }

    fn next(&mut self) -> Result<Option<(u64, u64)>, CompareError> {
        let Some(Reverse((e, i))) = self.heap.pop() else {
            return Ok(None);
        };
        if let Some(next) = self.readers[i]
            .next()
            .map_err(|err| spill_error(self.dir, err))?
        {
            self.heap.push(Reverse((next, i)));
        }
        Ok(Some(e))
    }
}

impl StreamOptions {
    /// A budget of `memory` bytes, runs spilled under `spill_dir`.
    pub fn new(memory: usize, spill_dir: PathBuf) -> StreamOptions {
        StreamOptions {
            memory,
            spill_dir,
            max_file_size: bryo_input::DEFAULT_MAX_FILE_SIZE,
            batch_files: 512,
            fragments: FragmentKeeping::Kept,
        }
    }
}

/// The result of [`compare_streamed`]: the report, and what was spilled.
#[derive(Debug)]
pub struct Streamed {
    /// The report, equal to the in-memory run's.
    pub report: Report,
    /// Sorted runs written to disk (postings and pair counts).
    pub spilled_runs: usize,
    /// Bytes written to them.
    pub spilled_bytes: u64,
    /// With [`FragmentKeeping::Spilled`] or [`FragmentKeeping::Dropped`],
    /// the report's pairs, in rank order on disk; `report.pairs` is then
    /// empty.
    pub pairs: Option<SpilledPairs>,
}

/// Compares the submissions of `inputs` as [`crate::compare`] does,
/// streaming the corpus within `stream.memory` bytes (see the module
/// documentation). Files discovered with
/// [`bryo_input::InputOptions::defer_reading`] are read when needed, twice
/// for the files of chosen pairs; they must not change during the run.
///
/// The front-end must be known before reading (`options.analyze.language`
/// given): `k` and `w` follow from it. Base code is not supported yet.
pub fn compare_streamed(
    inputs: Inputs,
    options: &CompareOptions,
    stream: &StreamOptions,
    progress: &dyn Progress,
) -> Result<Streamed, CompareError> {
    run(inputs, None, options, stream, progress)
}

/// Compares the submissions of `inputs` with each other and with every
/// submission of `archive`, as [`crate::compare`] compares them with the
/// archived submissions given as old ones ([`crate::analyze_inputs_with_archive`]),
/// streaming as [`compare_streamed`] does, in time and memory that grow
/// with the new submissions, not the archive.
///
/// Of the archive, the run reads its catalogue (one report entry and
/// exact-copy key per archived file), its shared-hash table, the postings
/// of the hashes the new files hold, and, for the archived submissions of
/// the chosen pairs, their files and the postings of their hashes. The
/// archive-wide counts of the common-code rule are the table's, corrected
/// for the hashes the new files hold (and those of archived files that
/// stop being the first with their symbols because a new file has the
/// same).
///
/// The archive's postings of those hashes are held in memory, outside
/// `stream.memory`. The front-end must be the archive's, with a language
/// given (`options.analyze.language`).
pub fn compare_against(
    inputs: Inputs,
    archive: &dyn Archive,
    options: &CompareOptions,
    stream: &StreamOptions,
    progress: &dyn Progress,
) -> Result<Streamed, CompareError> {
    run(inputs, Some(archive), options, stream, progress)
}

fn run(
    inputs: Inputs,
    archive: Option<&dyn Archive>,
    options: &CompareOptions,
    stream: &StreamOptions,
    progress: &dyn Progress,
) -> Result<Streamed, CompareError> {
    let Some(language) = options.analyze.language else {
        return Err(CompareError::Streaming(
            "a streamed run needs the language (-l): k and w follow from the front-end, which \
             must be known before the corpus is read",
        ));
    };
    if !inputs.base.is_empty() {
        return Err(CompareError::Streaming(
            "a streamed run does not take base code (-b) yet",
        ));
    }
    let (config, min_fragment, match_options) = matcher_setup(options, language.frontend())?;
    if archive.is_some()
        && (match_options.hash != HashFunction::KarpRabin
            || match_options.selection != Selection::RobustWinnow)
    {
        return Err(CompareError::Streaming(
            "an archive is fingerprinted with robust winnowing of Karp-Rabin hashes",
        ));
    }
    let spill = tempfile::TempDir::with_prefix_in("bryo-stream-", &stream.spill_dir)
        .map_err(|e| spill_error(&stream.spill_dir, e))?;
    // Postings take up to half the budget (the last run stays in memory),
    // pair records the other half; at the end, the analyses of the chosen
    // pairs' submissions take half of it.
    let cap = (stream.memory / 2 / ENTRY_BYTES).max(64);

    // 1. Fingerprint.
    let (mut corpus, mut seen) = fingerprint(
        &inputs,
        options,
        stream,
        &match_options,
        spill.path(),
        cap,
        progress,
    )?;
    // Only the compared files are kept, to be read again; the rest of the
    // inputs goes.
    let mut submissions = inputs.submissions;
    for kept in &mut corpus.subs {
        let mut files: Vec<Option<InputFile>> = std::mem::take(&mut submissions[kept.input].files)
            .into_iter()
            .map(Some)
            .collect();
        kept.sources = kept
            .files
            .iter()
            .map(|&f| {
                let mut file = files[f].take().expect("each compared file is kept once");
                file.display_path = String::new();
                file
            })
            .collect();
        kept.files = Vec::new();
    }
    drop(submissions);
    // The archive joins the corpus after the discovered submissions: its
    // catalogue, and the postings of the hashes the new files hold.
    let mut archived = Archived::default();
    if let Some(archive) = archive {
        archived = attach(&mut corpus, archive, &mut seen)?;
    }
    drop(seen);
    let current = corpus.subs.iter().filter(|s| !s.old).count();
    if corpus.subs.len() < 2 || current == 0 {
        return Err(CompareError::TooFewSubmissions {
            found: corpus.subs.len(),
            skipped: corpus.skipped.len(),
            example: corpus
                .skipped
                .first()
                .map(|s| format!("{}: {}", s.path, s.reason)),
        });
    }

    // 2. Index: the common-code rule with the whole corpus's counts.
    progress.start(Stage::Index, 0);
    let rule = Rule::new(&corpus, &match_options);
    // Hashes are spread evenly: the key space is split in equal ranges.
    let hashes = 1u128 << 64;
    let parts = corpus.postings.par_groups(
        hashes,
        |_| (IndexCounts::default(), Vec::new(), Vec::new()),
        |(counts, hist, subs): &mut (IndexCounts, Vec<u64>, Vec<SubShare>), _, entries| {
            let g = corpus.group(entries, subs);
            match rule.classify(&g) {
                Class::Single => {}
                Class::Common => counts.dropped_common += g.occurrences,
                Class::Kept => {
                    counts.shared_hashes += 1;
                    if hist.len() <= subs.len() {
                        hist.resize(subs.len() + 1, 0);
                    }
                    hist[subs.len()] += 1;
                }
            }
            Ok(())
        },
    )?;
    let mut counts = IndexCounts::default();
    let mut hist: Vec<u64> = Vec::new();
    // Hashes that only the archive holds, from its table.
    for t in &archived.table {
        let g = Group {
            subs: t.submissions,
            distinct: t.distinct,
            occurrences: t.occurrences,
        };
        match rule.classify(&g) {
            Class::Single => {}
            Class::Common => counts.dropped_common += t.occurrences,
            Class::Kept => {
                counts.shared_hashes += t.hashes;
                if hist.len() <= t.submissions as usize {
                    hist.resize(t.submissions as usize + 1, 0);
                }
                hist[t.submissions as usize] += t.hashes;
            }
        }
    }
    for (c, h, _) in parts {
        counts.dropped_common += c.dropped_common;
        counts.shared_hashes += c.shared_hashes;
        if hist.len() < h.len() {
            hist.resize(h.len(), 0);
        }
        for (total, n) in hist.iter_mut().zip(h) {
            *total += n;
        }
    }
    let seed_limit = match match_options.common {
        CommonRule::Rarity(r) => r.seed_limit(&hist, corpus.fingerprints),
        CommonRule::MaxSubmissions(_) => u64::MAX,
    };
    // Records `(a << 32 | b, shared)` per key range: summed in place when
    // a buffer is full, spilled when summing leaves it more than half full.
    let part_cap = (cap / parallel_parts()).max(64);
    let parts = corpus.postings.par_groups(
        hashes,
        |p| {
            (
                Runs::new(spill.path(), &format!("pairs-{p}")),
                Vec::new(),
                Vec::new(),
            )
        },
        |(runs, buffer, subs): &mut (Runs, Vec<(u64, u64)>, Vec<SubShare>), hash, entries| {
            let g = corpus.group(entries, subs);
            if rule.classify(&g) != Class::Kept {
                return Ok(());
            }
            let mut failed = None;
            records(hash, subs, seed_limit, |a, b, c| {
                push_bounded(buffer, (pair_key(a, b), u64::from(c)), part_cap);
                if buffer.len() >= part_cap {
                    sum_equal_keys(buffer);
                    if buffer.len() >= part_cap / 2 {
                        if let Err(e) = runs.spill(buffer) {
                            failed.get_or_insert(e);
                            buffer.clear();
                        }
                    }
                }
            });
            failed.map_or(Ok(()), Err)
        },
    )?;
    let mut pair_runs = Runs::new(spill.path(), "pairs");
    for (mut runs, buffer, _) in parts {
        runs.finish(buffer);
        pair_runs.absorb(runs);
    }

    // 3. Pairs: the best candidates, as the in-memory run chooses them;
    // when no count cuts them (`-n 0`, or a similarity floor), every
    // candidate, read again from the pair runs in key order as it is
    // compared, never held.
    progress.start(Stage::Pairs, 0);
    let n = options.max_pairs;
    let best = (n > 0 && options.min_similarity == 0.0).then(|| (4 * n).max(n + 200));
    let all = best.is_none();
    let identical = detect_by_keys(&corpus.keys, &corpus.old(), |s, f| {
        &corpus.subs[s].entry.files[f].path
    });
    let mut declared: Vec<u64> = Vec::new();
    for g in &identical.groups {
        for (i, &a) in g.iter().enumerate() {
            for &b in &g[i + 1..] {
                if !(corpus.subs[a].old && corpus.subs[b].old) {
                    declared.push(pair_key(a as u32, b as u32));
                }
            }
        }
    }
    declared.sort_unstable();
    // With every candidate: the pairs of each submission, and which
    // declared pairs are candidates.
    let pairs_of: Vec<AtomicUsize> = if all {
        (0..corpus.subs.len())
            .map(|_| AtomicUsize::new(0))
            .collect()
    } else {
        Vec::new()
    };
    let candidate_declared: Vec<AtomicBool> =
        declared.iter().map(|_| AtomicBool::new(false)).collect();
    let keep = |heap: &mut BinaryHeap<(Reverse<u64>, u64)>, shared: u64, key: u64| {
        let item = (Reverse(shared), key);
        match best {
            // Worst on top: fewest shared fingerprints, then the largest ids.
            Some(b) if heap.len() >= b => {
                if heap.peek().is_some_and(|worst| item < *worst) {
                    heap.pop();
                    heap.push(item);
                }
            }
            _ => heap.push(item),
        }
    };
    let parts = pair_runs.par_sums(
        (corpus.subs.len() as u128) << 32,
        || (0u64, BinaryHeap::new()),
        |(seen, heap), key, shared| {
            *seen += 1;
            if all {
                for s in [(key >> 32) as usize, key as u32 as usize] {
                    pairs_of[s].fetch_add(1, Ordering::Relaxed);
                }
                if let Ok(i) = declared.binary_search(&key) {
                    candidate_declared[i].store(true, Ordering::Relaxed);
                }
            } else {
                keep(heap, shared, key);
            }
        },
    )?;
    let mut candidate_pairs = 0u64;
    let mut heap = BinaryHeap::new();
    for (seen, part) in parts {
        candidate_pairs += seen;
        for (Reverse(shared), key) in part {
            keep(&mut heap, shared, key);
        }
    }
    let chosen: HashMap<u64, u64> = heap.into_iter().map(|(Reverse(s), k)| (k, s)).collect();
    let whole: Vec<u64> = declared
        .iter()
        .zip(&candidate_declared)
        .filter(|(k, candidate)| {
            if all {
                !candidate.load(Ordering::Relaxed)
            } else {
                !chosen.contains_key(k)
            }
        })
        .map(|(&k, _)| k)
        .collect();
    // The chosen pairs (with every candidate, they come later from the
    // runs), and the pairs of each submission still to compare.
    let mut jobs: Vec<(u64, u64, bool)> = chosen.iter().map(|(&k, &s)| (k, s, false)).collect();
    jobs.extend(whole.iter().map(|&k| (k, 0, true)));
    order_by_group(&mut jobs);
    let mut uses: HashMap<u32, usize> = HashMap::new();
    for (s, count) in pairs_of.iter().enumerate() {
        let count = count.load(Ordering::Relaxed);
        if count > 0 {
            uses.insert(s as u32, count);
        }
    }
    for &(key, _, _) in &jobs {
        for s in [(key >> 32) as u32, key as u32] {
            *uses.entry(s).or_default() += 1;
        }
    }
    drop(pairs_of);

    // 4. Fragments: what each chosen pair needs of the whole corpus.
    let weigh = rule.discounts() && counts.shared_hashes > 0;
    let needed: HashSet<u32> = uses.keys().copied().collect();
    let mut excluded: HashMap<u32, Vec<u64>> = HashMap::new();
    let mut weights: HashMap<u32, Vec<(u64, u32)>> = HashMap::new();
    // Seeds of the chosen pairs, or, with every candidate, runs of
    // `(pair, hash)` read in key order with the pairs.
    let mut seeds: HashMap<u64, Vec<u64>> = HashMap::new();
    let mut seed_runs = Runs::new(spill.path(), "seeds");
    // The archived submissions of the chosen pairs: the postings of their
    // other hashes join the corpus's.
    // Their analyses are kept for the fragment stage, within its budget.
    let mut preloaded: Vec<Preloaded> = Vec::new();
    if let Some(archive) = archive {
        let mut subs: Vec<(u32, usize)> = needed
            .iter()
            .filter_map(|&s| corpus.subs[s as usize].archived.map(|i| (s, i)))
            .collect();
        subs.sort_unstable();
        let (hashes, loaded) =
            archived_hashes(archive, &subs, &match_options, options, stream.memory / 2)?;
        preloaded = loaded;
        let other: Vec<u64> = hashes
            .into_iter()
            .filter(|h| archived.looked_up.binary_search(h).is_err())
            .collect();
        let found = archive.lookup(&other)?;
        corpus
            .postings
            .memory
            .push(archived_postings(&found, archived.first_doc));
    }
    // Seed entries share the budget with the pair runs they are read
    // beside and with the analysis cache: a quarter of a part's buffer.
    let seed_cap = (part_cap / 4).max(16);
    if !needed.is_empty() {
        let parts = corpus.postings.par_groups(
            hashes,
            |p| Needs {
                excluded: HashMap::new(),
                weights: HashMap::new(),
                seeds: HashMap::new(),
                seed_buffer: Vec::new(),
                seed_runs: Runs::new(spill.path(), &format!("seeds-{p}")),
                subs: Vec::new(),
            },
            |part: &mut Needs, hash, entries| {
                if !entries
                    .iter()
                    .any(|&(doc, _)| needed.contains(&corpus.doc_sub[doc as usize]))
                {
                    return Ok(());
                }
                let g = corpus.group(entries, &mut part.subs);
                match rule.classify(&g) {
                    Class::Single => {}
                    Class::Common => {
                        for s in part.subs.iter().filter(|s| needed.contains(&s.sub)) {
                            part.excluded.entry(s.sub).or_default().push(hash);
                        }
                    }
                    Class::Kept => {
                        if weigh {
                            for s in part.subs.iter().filter(|s| needed.contains(&s.sub)) {
                                part.weights
                                    .entry(s.sub)
                                    .or_default()
                                    .push((hash, g.distinct as u32));
                            }
                        }
                        if seed_limit != u64::MAX {
                            let Needs {
                                seeds,
                                seed_buffer,
                                seed_runs,
                                subs,
                                ..
                            } = part;
                            let mut failed = None;
                            records(hash, subs, seed_limit, |a, b, _| {
                                let key = pair_key(a, b);
                                if all {
                                    push_bounded(seed_buffer, (key, hash), seed_cap);
                                    if seed_buffer.len() >= seed_cap {
                                        if let Err(e) = seed_runs.spill(seed_buffer) {
                                            failed.get_or_insert(e);
                                            seed_buffer.clear();
                                        }
                                    }
                                } else if chosen.contains_key(&key) {
                                    seeds.entry(key).or_default().push(hash);
                                }
                            });
                            if let Some(e) = failed {
                                return Err(e);
                            }
                        }
                    }
                }
                Ok(())
            },
        )?;
        for part in parts {
            for (k, v) in part.excluded {
                excluded.entry(k).or_default().extend(v);
            }
            for (k, v) in part.weights {
                weights.entry(k).or_default().extend(v);
            }
            for (k, v) in part.seeds {
                seeds.entry(k).or_default().extend(v);
            }
            let mut runs = part.seed_runs;
            runs.finish(part.seed_buffer);
            seed_runs.absorb(runs);
        }
    }
    let mut local = options.clone();
    local.max_pairs = 0;
    local.min_similarity = 0.0;
    let to_compare = if all {
        candidate_pairs + whole.len() as u64
    } else {
        jobs.len() as u64
    };
    progress.start(Stage::Fragments, to_compare);
    // The postings are no longer needed: their memory goes to the analyses
    // of the chosen pairs' submissions, each analyzed once while pairs
    // still need it.
    let spilled_runs = corpus.postings.files.len() + pair_runs.files.len() + seed_runs.files.len();
    let spilled_bytes = corpus.postings.bytes + pair_runs.bytes + seed_runs.bytes;
    corpus.postings.memory = Vec::new();
    // The pair counts too, unless every candidate is read from them.
    let pair_runs = all.then_some(pair_runs);
    let cache = AnalysisCache::new(uses, stream.memory / 2);
    for (s, files, size) in preloaded {
        cache.put(s, files, size);
    }
    // Scored pairs leave their records (and fragments) on disk as they
    // come: the fragments at once, the records a batch at a time.
    let mut sink = PairSink::new(
        &stream.spill_dir,
        stream.fragments != FragmentKeeping::Dropped,
        (stream.memory / 8 / RECORD_BYTES).max(64),
    )?;
    let score = |sink: &PairSink, key: u64, whole: bool, pair_seeds: Option<Vec<u64>>| {
        if progress.cancelled() {
            return Err(CompareError::Match(bryo_match::Error::Cancelled));
        }
        let (a, b) = ((key >> 32) as u32, key as u32);
        let mut excluded_here: Vec<u64> = [a, b]
            .iter()
            .flat_map(|s| excluded.get(s).into_iter().flatten().copied())
            .collect();
        excluded_here.sort_unstable();
        excluded_here.dedup();
        let rarity = weigh.then(|| RarityCounts {
            submissions: [a, b]
                .iter()
                .flat_map(|s| weights.get(s).into_iter().flatten().copied())
                .collect(),
            template_above: rule.exclude_above,
        });
        let sides = [
            cache.get(a, &corpus, archive, options, stream)?,
            cache.get(b, &corpus, archive, options, stream)?,
        ];
        let submissions = [a, b]
            .iter()
            .zip(&sides)
            .map(|(&s, files)| {
                let kept = &corpus.subs[s as usize];
                (kept.entry.name.clone(), kept.old, files.as_ref().clone())
            })
            .collect();
        cache.done(a);
        cache.done(b);
        drop(sides);
        let (report, counts) = compare_analyzed(
            submissions,
            &local,
            &Alone {
                excluded: &excluded_here,
                whole,
                rarity: rarity.as_ref(),
                seeds: pair_seeds.as_deref(),
            },
        )?;
        progress.advance(1);
        let declared = declared.binary_search(&key).is_ok();
        let Some((mut pair, counts)) = report.pairs.into_iter().zip(counts).next() else {
            return Ok(None);
        };
        pair.a = a as usize;
        pair.b = b as usize;
        pair.identical = declared;
        let spilled = sink.take_fragments(&mut pair)?;
        Ok(Some(Scored {
            covered: counts.covered.0 + counts.covered.1,
            declared,
            pair,
            spilled,
        }))
    };
    let record = |sink: &mut PairSink, scored: Vec<Option<Scored>>| {
        for s in scored.iter().flatten() {
            sink.push(s, s.declared || s.pair.similarity >= options.min_similarity)?;
        }
        Ok::<(), CompareError>(())
    };
    if let Some(pair_runs) = &pair_runs {
        let mut candidates = Merge::new(pair_runs, 0)?;
        let mut seed_entries = Merge::new(&seed_runs, 0)?;
        let mut next_seed = seed_entries.next()?;
        let mut last = None;
        let mut batch: Vec<(u64, Option<Vec<u64>>)> = Vec::with_capacity(SCORE_BATCH);
        loop {
            let next = candidates.next()?;
            if let Some((key, _)) = next {
                if last == Some(key) {
                    continue;
                }
                last = Some(key);
                // Keys ascend in both runs: this pair's seeds come next.
                let pair_seeds = if seed_limit == u64::MAX {
                    None
                } else {
                    let mut v = Vec::new();
                    while let Some((k, hash)) = next_seed {
                        if k > key {
                            break;
                        }
                        if k == key {
                            v.push(hash);
                        }
                        next_seed = seed_entries.next()?;
                    }
                    Some(v)
                };
                batch.push((key, pair_seeds));
            }
            if batch.len() == SCORE_BATCH || (next.is_none() && !batch.is_empty()) {
                let scored = std::mem::take(&mut batch)
                    .into_par_iter()
                    .map(|(key, pair_seeds)| score(&sink, key, false, pair_seeds))
                    .collect::<Result<_, _>>()?;
                record(&mut sink, scored)?;
            }
            if next.is_none() {
                break;
            }
        }
        for chunk in whole.chunks(SCORE_BATCH) {
            let scored = chunk
                .par_iter()
                .map(|&key| score(&sink, key, true, None))
                .collect::<Result<_, _>>()?;
            record(&mut sink, scored)?;
        }
    } else {
        for chunk in jobs.chunks(SCORE_BATCH) {
            let scored = chunk
                .par_iter()
                .map(|&(key, _, whole)| {
                    let pair_seeds = (seed_limit != u64::MAX && !whole)
                        .then(|| seeds.get(&key).cloned().unwrap_or_default());
                    score(&sink, key, whole, pair_seeds)
                })
                .collect::<Result<_, _>>()?;
            record(&mut sink, scored)?;
        }
    }
    drop(pair_runs);
    drop(seed_runs);

    // 5. Report: ranked, clustered and cut as the in-memory run does.
    progress.start(Stage::Report, 0);
    let ranked = sink.finish(n)?;
    // Clusters: links first, then the scores, from every scored pair.
    let mut links: Vec<(u32, u32)> = declared
        .iter()
        .map(|&k| ((k >> 32) as u32, k as u32))
        .collect();
    let clusters = {
        let mut parent: Vec<u32> = (0..corpus.subs.len() as u32).collect();
        // The links are joined here as they are read, and given to
        // `link_clusters` as a spanning forest (one link per joined
        // submission), so that they are never all held.
        fn root(parent: &mut [u32], mut x: u32) -> u32 {
            while parent[x as usize] != x {
                parent[x as usize] = parent[parent[x as usize] as usize];
                x = parent[x as usize];
            }
            x
        }
        let mut join = |a: u32, b: u32| {
            let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
            if ra != rb {
                parent[ra.max(rb) as usize] = ra.min(rb);
            }
        };
        for &(a, b) in &links {
            join(a, b);
        }
        ranked.each_record(|r| {
            if f64::from_bits(r[3]) >= options.cluster_threshold {
                join((r[2] >> 32) as u32, r[2] as u32);
            }
        })?;
        links.clear();
        for s in 0..parent.len() as u32 {
            let r = root(&mut parent, s);
            if r != s {
                links.push((r, s));
            }
        }
        // The best score inside each cluster, given as one score per root.
        let mut best_per_root: HashMap<u32, f64> = HashMap::new();
        ranked.each_record(|r| {
            let (a, b) = ((r[2] >> 32) as u32, r[2] as u32);
            let ra = root(&mut parent, a);
            if ra == root(&mut parent, b) {
                let best = best_per_root.entry(ra).or_insert(f64::NEG_INFINITY);
                if f64::from_bits(r[3]) > *best {
                    *best = f64::from_bits(r[3]);
                }
            }
        })?;
        bryo_match::link_clusters(
            corpus.subs.len(),
            links.iter().copied(),
            best_per_root.into_iter().map(|(r, best)| (r, r, best)),
            SubmissionId,
        )
    };
    let (pairs, spilled) = if stream.fragments == FragmentKeeping::Kept {
        let mut pairs = Vec::with_capacity(ranked.len());
        let mut reader = ranked.reader()?;
        while pairs.len() < ranked.len() {
            pairs.extend(reader.next_batch(SCORE_BATCH)?);
        }
        (pairs, None)
    } else {
        (Vec::new(), Some(ranked))
    };
    let k = config.k();
    let stats = MatchStats {
        documents: corpus.doc_sub.len() as u64,
        submissions: corpus.subs.len() as u64,
        fingerprints: corpus.fingerprints,
        dropped_common: counts.dropped_common,
        shared_hashes: counts.shared_hashes,
        candidate_pairs,
        duplicate_documents: corpus.duplicates,
        seed_limit,
        exclude_above: rule.exclude_above,
        discount_below: match match_options.common {
            CommonRule::Rarity(r) if weigh => u64::from(r.full_weight_kgrams) * k as u64,
            _ => 0,
        },
        ..MatchStats::default()
    };
    let Corpus { subs, skipped, .. } = corpus;
    let mut report = Head {
        options,
        config,
        min_fragment,
        match_options: &match_options,
        submissions: subs.into_iter().map(|s| s.entry).collect(),
        base_files: 0,
        clusters: &clusters,
        stats: &stats,
        identical: &identical,
        skipped,
    }
    .report();
    report.pairs = pairs;
    Ok(Streamed {
        report,
        spilled_runs,
        spilled_bytes,
        pairs: spilled,
    })
}

/// A scored pair, in global submission numbers.
struct Scored {
    covered: u64,
    declared: bool,
    /// Without its fragments: they are on disk at `spilled` (offset,
    /// length), or were dropped.
    pair: Pair,
    spilled: (u64, u64),
}

/// Pushes `item`, growing `v` at most to `cap` entries (doubling, as
/// `Vec::push` does, but never past `cap`, which a full buffer would
/// otherwise overshoot by up to twice).
fn push_bounded<T>(v: &mut Vec<T>, item: T, cap: usize) {
    if v.len() == v.capacity() && v.len() < cap {
        v.reserve_exact(v.capacity().max(1024).min(cap - v.len()));
    }
    v.push(item);
}

/// Sorts `(key, value)` entries and sums the values of equal keys, in
/// place.
fn sum_equal_keys(v: &mut Vec<(u64, u64)>) {
    v.par_sort_unstable_by_key(|e| e.0);
    let mut out = 0;
    for i in 0..v.len() {
        if out > 0 && v[out - 1].0 == v[i].0 {
            v[out - 1].1 += v[i].1;
        } else {
            v[out] = v[i];
            out += 1;
        }
    }
    v.truncate(out);
}

fn pair_key(a: u32, b: u32) -> u64 {
    u64::from(a) << 32 | u64::from(b)
}

fn spill_error(dir: &Path, e: io::Error) -> CompareError {
    CompareError::Spill {
        dir: dir.to_path_buf(),
        source: e,
    }
}

/// Orders pair jobs `(a << 32 | b, …)` group by group — the pairs of one
/// connected set of submissions together, groups by their first pair, pairs
/// by key inside — so that a submission's pairs come close together and its
/// analysis is dropped soon after it is made (a page and its copies form
/// one group; in key order their pairs would spread over the whole run).
fn order_by_group(jobs: &mut [(u64, u64, bool)]) {
    let mut index: HashMap<u32, usize> = HashMap::new();
    for &(key, _, _) in jobs.iter() {
        for s in [(key >> 32) as u32, key as u32] {
            let n = index.len();
            index.entry(s).or_insert(n);
        }
    }
    let mut parent: Vec<usize> = (0..index.len()).collect();
    fn root(parent: &mut [usize], mut x: usize) -> usize {
        while parent[x] != x {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        x
    }
    for &(key, _, _) in jobs.iter() {
        let (a, b) = (index[&((key >> 32) as u32)], index[&(key as u32)]);
        let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
        parent[ra.max(rb)] = ra.min(rb);
    }
    jobs.sort_unstable();
    let mut first: HashMap<usize, u64> = HashMap::new();
    for &(key, _, _) in jobs.iter() {
        let r = root(&mut parent, index[&((key >> 32) as u32)]);
        first.entry(r).or_insert(key);
    }
    jobs.sort_by_cached_key(|&(key, _, _)| {
        let r = root(&mut parent, index[&((key >> 32) as u32)]);
        (first[&r], key)
    });
}

/// Key ranges merged in parallel: four per thread, so that uneven ranges
/// even out.
fn parallel_parts() -> usize {
    rayon::current_num_threads() * 4
}

/// What the chosen pairs need of the whole corpus, gathered in one key
/// range.
struct Needs {
    excluded: HashMap<u32, Vec<u64>>,
    weights: HashMap<u32, Vec<(u64, u32)>>,
    seeds: HashMap<u64, Vec<u64>>,
    /// With every candidate compared, `(pair, hash)` seed entries instead.
    seed_buffer: Vec<(u64, u64)>,
    seed_runs: Runs,
    subs: Vec<SubShare>,
}

/// Totals of the index stage.
#[derive(Default)]
struct IndexCounts {
    dropped_common: u64,
    shared_hashes: u64,
}

/// A kept submission: its report entry and where its files are.
struct KeptSub {
    entry: Submission,
    old: bool,
    /// Index of the submission in the inputs, and of each compared file.
    input: usize,
    files: Vec<usize>,
    /// After the fingerprint stage, its compared files, moved out of the
    /// inputs (without their display paths: the report entries have them).
    sources: Vec<InputFile>,
    /// For an archived submission, its position in the archive.
    archived: Option<usize>,
}

/// What the fingerprint stage keeps of the corpus.
struct Corpus {
    subs: Vec<KeptSub>,
    /// Submission of each compared document.
    doc_sub: Vec<u32>,
    /// Whether each document is the first with its symbols.
    canonical: Vec<bool>,
    /// Files with symbols, per submission, for exact copies.
    keys: Vec<Vec<FileKey>>,
    skipped: Vec<Skipped>,
    fingerprints: u64,
    duplicates: u64,
    /// Submissions with a first-of-its-content document with symbols.
    distinct_subs: u64,
    postings: Runs,
}

/// One submission's share of a hash.
struct SubShare {
    sub: u32,
    /// Occurrences, at most [`OCCURRENCE_CAP`] per document.
    occurrences: u32,
    old: bool,
}

/// What the common-code rule needs of a hash.
struct Group {
    subs: u64,
    distinct: u64,
    /// Every occurrence, uncapped.
    occurrences: u64,
}

impl Corpus {
    fn old(&self) -> Vec<bool> {
        self.subs.iter().map(|s| s.old).collect()
    }

    /// A hash's documents `(doc, occurrences)`, ascending, per submission
    /// into `subs`.
    fn group(&self, entries: &[(u32, u32)], subs: &mut Vec<SubShare>) -> Group {
        subs.clear();
        let (mut distinct, mut occurrences) = (0u64, 0u64);
        let mut last_distinct = None;
        for &(doc, n) in entries {
            let sub = self.doc_sub[doc as usize];
            occurrences += u64::from(n);
            match subs.last_mut() {
                Some(last) if last.sub == sub => last.occurrences += n.min(OCCURRENCE_CAP),
                _ => subs.push(SubShare {
                    sub,
                    occurrences: n.min(OCCURRENCE_CAP),
                    old: self.subs[sub as usize].old,
                }),
            }
            if self.canonical[doc as usize] && last_distinct != Some(sub) {
                distinct += 1;
                last_distinct = Some(sub);
            }
        }
        Group {
            subs: subs.len() as u64,
            distinct,
            occurrences,
        }
    }
}

/// A submission's compared files, analyzed again.
type AnalyzedFiles = Vec<(Analyzed, FileFingerprint)>;

/// The analyses of the chosen pairs' submissions, each made once and kept
/// while a pair still needs it, within a memory budget (beyond it, a
/// submission is analyzed again for each pair).
struct AnalysisCache {
    state: Mutex<CacheState>,
    budget: usize,
}

struct CacheState {
    /// Pairs still to compare, per submission.
    uses: HashMap<u32, usize>,
    held: HashMap<u32, (Arc<AnalyzedFiles>, usize)>,
    bytes: usize,
}

impl AnalysisCache {
    fn new(uses: HashMap<u32, usize>, budget: usize) -> AnalysisCache {
        AnalysisCache {
            state: Mutex::new(CacheState {
                uses,
                held: HashMap::new(),
                bytes: 0,
            }),
            budget,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, CacheState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Kept submission `s`, its compared files read and analyzed again (or
    /// as analyzed for an earlier pair).
    fn get(
        &self,
        s: u32,
        corpus: &Corpus,
        archive: Option<&dyn Archive>,
        options: &CompareOptions,
        stream: &StreamOptions,
    ) -> Result<Arc<AnalyzedFiles>, CompareError> {
        if let Some((files, _)) = self.lock().held.get(&s) {
            return Ok(Arc::clone(files));
        }
        let kept = &corpus.subs[s as usize];
        let fingerprinter = FileFingerprinter::new();
        let loaded = match (kept.archived, archive) {
            (Some(i), Some(archive)) => {
                let mut files = archive.load(i)?;
                if !options.keep_text {
                    for (a, _) in &mut files {
                        a.decoded.release_text();
                    }
                }
                Some(files)
            }
            _ => None,
        };
        let files: AnalyzedFiles = if let Some(files) = loaded {
            files
        } else {
            kept.sources
                .iter()
                .zip(&kept.entry.files)
                .map(|(file, entry)| {
                    let changed = |reason: String| CompareError::Changed {
                        path: entry.path.clone(),
                        reason,
                    };
                    let bytes = file
                        .read(stream.max_file_size)
                        .map_err(|r| changed(r.to_string()))?;
                    let a =
                        analyze_keeping(&entry.path, &bytes, &options.analyze, options.keep_text)
                            .map_err(|r| changed(r.to_string()))?;
                    let fingerprint = FileFingerprint {
                        raw: fingerprinter.raw(&bytes),
                        normalized: fingerprinter.normalized(&a.normalized.symbols),
                    };
                    Ok((a, fingerprint))
                })
                .collect::<Result<_, CompareError>>()?
        };
        let size = analyses_size(&files);
        let files = Arc::new(files);
        let mut state = self.lock();
        if let Some((held, _)) = state.held.get(&s) {
            return Ok(Arc::clone(held));
        }
        if state.bytes + size <= self.budget {
            state.bytes += size;
            state.held.insert(s, (Arc::clone(&files), size));
        }
        Ok(files)
    }

    /// Holds `files` (of `size` bytes) as kept submission `s`'s analysis.
    fn put(&self, s: u32, files: Arc<AnalyzedFiles>, size: usize) {
        let mut state = self.lock();
        if state.bytes + size <= self.budget && !state.held.contains_key(&s) {
            state.bytes += size;
            state.held.insert(s, (files, size));
        }
    }

    /// One pair of `s` compared: its analysis is dropped after the last.
    fn done(&self, s: u32) {
        let mut state = self.lock();
        let left = state.uses.get_mut(&s).map(|n| {
            *n = n.saturating_sub(1);
            *n
        });
        if left == Some(0) {
            if let Some((_, size)) = state.held.remove(&s) {
                state.bytes -= size;
            }
        }
    }
}

/// How the common-code rule classes a hash.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    /// In one submission: not shared.
    Single,
    /// Excluded (MOSS's common passages, or template code).
    Common,
    /// Shared and matched.
    Kept,
}

/// The common-code rule with the whole corpus's threshold.
struct Rule {
    moss: bool,
    exclude_above: u64,
    common: CommonRule,
}

impl Rule {
    fn new(corpus: &Corpus, options: &bryo_match::MatchOptions) -> Rule {
        let (moss, exclude_above) = match options.common {
            CommonRule::MaxSubmissions(0) => (true, u64::MAX),
            CommonRule::MaxSubmissions(m) => (true, m as u64),
            CommonRule::Rarity(r) => (false, r.template_threshold(corpus.distinct_subs)),
        };
        Rule {
            moss,
            exclude_above,
            common: options.common,
        }
    }

    fn classify(&self, g: &Group) -> Class {
        if g.subs < 2 {
            Class::Single
        } else if (if self.moss { g.subs } else { g.distinct }) > self.exclude_above {
            Class::Common
        } else {
            Class::Kept
        }
    }

    /// Whether the rarity discount applies.
    fn discounts(&self) -> bool {
        match self.common {
            CommonRule::Rarity(r) => r.discounts(self.exclude_above),
            CommonRule::MaxSubmissions(_) => false,
        }
    }
}

/// The pair records of a kept hash held by `subs` (ascending), as the
/// in-memory index forms them: every pair, not both old, when at most
/// `seed_limit` submissions hold it; otherwise each submission with the
/// next `⌈limit/2⌉` in an order drawn from the hash. `emit(a, b, c)`
/// with `a < b` and `c` the smaller occurrence count.
fn records(hash: u64, subs: &[SubShare], seed_limit: u64, mut emit: impl FnMut(u32, u32, u32)) {
    let mut record = |x: &SubShare, y: &SubShare| {
        if !(x.old && y.old) {
            let (a, b) = if x.sub < y.sub { (x, y) } else { (y, x) };
            emit(a.sub, b.sub, x.occurrences.min(y.occurrences));
        }
    };
    if subs.len() as u64 <= seed_limit {
        for (i, x) in subs.iter().enumerate() {
            for y in &subs[i + 1..] {
                record(x, y);
            }
        }
        return;
    }
    let rehash = bryo_engine::rehash;
    let mut order: Vec<(u64, u32, usize)> = subs
        .iter()
        .enumerate()
        .map(|(i, s)| (rehash(hash ^ rehash(u64::from(s.sub))), s.sub, i))
        .collect();
    order.sort_unstable();
    let n = order.len();
    // At most (n − 1)/2 steps, so that no pair is formed twice.
    let reach = (seed_limit.div_ceil(2) as usize).min((n - 1) / 2);
    for i in 0..n {
        for d in 1..=reach {
            record(&subs[order[i].2], &subs[order[(i + d) % n].2]);
        }
    }
}

/// A file's outcome in the fingerprint stage.
enum Fingerprinted {
    Compared {
        entry: Box<FileEntry>,
        fingerprint: FileFingerprint,
        symbols: u64,
        /// `(hash, occurrences)`, by hash.
        hashes: Vec<(u64, u32)>,
        fingerprints: u64,
    },
    Skipped(String),
}

/// Stage 1: every file read, analyzed and winnowed, batch by batch; the
/// postings spilled in sorted runs.
fn fingerprint(
    inputs: &Inputs,
    options: &CompareOptions,
    stream: &StreamOptions,
    match_options: &bryo_match::MatchOptions,
    spill: &Path,
    cap: usize,
    progress: &dyn Progress,
) -> Result<(Corpus, HashSet<(u64, u64)>), CompareError> {
    let files: Vec<(usize, usize)> = inputs
        .submissions
        .iter()
        .enumerate()
        .flat_map(|(i, s)| (0..s.files.len()).map(move |j| (i, j)))
        .collect();
    progress.start(Stage::Analyze, files.len() as u64);
    let proto = Fingerprinter::new(
        match_options.config,
        match_options.hash,
        match_options.selection,
    )
    .map_err(|e| CompareError::Match(e.into()))?;
    let fingerprinter = FileFingerprinter::new();
    let mut corpus = Corpus {
        subs: Vec::new(),
        doc_sub: Vec::new(),
        canonical: Vec::new(),
        keys: Vec::new(),
        skipped: inputs
            .skipped
            .iter()
            .map(|s| Skipped {
                path: s.path.clone(),
                reason: s.reason.to_string(),
            })
            .collect(),
        fingerprints: 0,
        duplicates: 0,
        distinct_subs: 0,
        postings: Runs::new(spill, "postings"),
    };
    let mut seen: HashSet<(u64, u64)> = HashSet::new();
    let mut kept_of: Vec<Option<u32>> = vec![None; inputs.submissions.len()];
    let mut distinct = vec![false; 0];
    let mut buffer: Vec<(u64, u64)> = Vec::new();
    // Batches of at most `batch_files` files and an eighth of the budget
    // in bytes (at least one file).
    let size = |&(i, j): &(usize, usize)| -> usize {
        let file = &inputs.submissions[i].files[j];
        match &file.source {
            bryo_input::Source::File(path) if file.bytes.is_empty() => {
                std::fs::metadata(path).map_or(0, |m| m.len() as usize)
            }
            _ => file.bytes.len(),
        }
    };
    let mut batches: Vec<&[(usize, usize)]> = Vec::new();
    let (mut start, mut bytes) = (0, 0);
    for (n, f) in files.iter().enumerate() {
        let b = size(f);
        if n > start && (n - start >= stream.batch_files.max(1) || bytes + b > stream.memory / 8) {
            batches.push(&files[start..n]);
            (start, bytes) = (n, 0);
        }
        bytes += b;
    }
    if start < files.len() {
        batches.push(&files[start..]);
    }
    for batch in batches {
        let done: Vec<Fingerprinted> = batch
            .par_iter()
            .map_init(
                || proto.clone(),
                |fp, &(i, j)| {
                    let file = &inputs.submissions[i].files[j];
                    let out = match file.read(stream.max_file_size) {
                        Err(reason) => Fingerprinted::Skipped(reason.to_string()),
                        Ok(bytes) => match analyze_keeping(
                            &file.display_path,
                            &bytes,
                            &options.analyze,
                            false,
                        ) {
                            Err(reason) => Fingerprinted::Skipped(reason.to_string()),
                            Ok(a) => {
                                let fingerprint = FileFingerprint {
                                    raw: fingerprinter.raw(&bytes),
                                    normalized: fingerprinter.normalized(&a.normalized.symbols),
                                };
                                let prints = fp
                                    .fingerprint_symbols(&a.normalized.symbols)
                                    .map_err(|e| CompareError::Match(e.into()))?;
                                let mut hashes: Vec<u64> = prints.iter().map(|p| p.hash).collect();
                                hashes.sort_unstable();
                                let mut counted: Vec<(u64, u32)> = Vec::new();
                                for h in hashes {
                                    match counted.last_mut() {
                                        Some((last, n)) if *last == h => *n += 1,
                                        _ => counted.push((h, 1)),
                                    }
                                }
                                Fingerprinted::Compared {
                                    entry: Box::new(file_entry(&a, &fingerprint)),
                                    fingerprint,
                                    symbols: a.normalized.len() as u64,
                                    hashes: counted,
                                    fingerprints: prints.len() as u64,
                                }
                            }
                        },
                    };
                    progress.advance(1);
                    Ok(out)
                },
            )
            .collect::<Result<_, CompareError>>()?;
        if progress.cancelled() {
            return Err(CompareError::Match(bryo_match::Error::Cancelled));
        }
        for (&(i, j), out) in batch.iter().zip(done) {
            let input = &inputs.submissions[i];
            match out {
                Fingerprinted::Skipped(reason) => corpus.skipped.push(Skipped {
                    path: input.files[j].display_path.clone(),
                    reason,
                }),
                Fingerprinted::Compared {
                    entry,
                    fingerprint,
                    symbols,
                    hashes,
                    fingerprints,
                } => {
                    let s = *kept_of[i].get_or_insert_with(|| {
                        corpus.subs.push(KeptSub {
                            entry: Submission {
                                name: input.name.clone(),
                                old: input.old,
                                files: Vec::new(),
                            },
                            old: input.old,
                            input: i,
                            files: Vec::new(),
                            sources: Vec::new(),
                            archived: None,
                        });
                        corpus.keys.push(Vec::new());
                        distinct.push(false);
                        (corpus.subs.len() - 1) as u32
                    });
                    let doc = corpus.doc_sub.len() as u64;
                    let first = seen.insert((symbols, fingerprint.normalized));
                    corpus.doc_sub.push(s);
                    corpus.canonical.push(first);
                    corpus.duplicates += u64::from(!first);
                    corpus.fingerprints += fingerprints;
                    if first && symbols > 0 {
                        distinct[s as usize] = true;
                    }
                    if symbols > 0 {
                        corpus.keys[s as usize].push(FileKey {
                            fingerprint: fingerprint.normalized,
                            symbols,
                            file: corpus.subs[s as usize].entry.files.len(),
                        });
                    }
                    let kept = &mut corpus.subs[s as usize];
                    kept.entry.files.push(*entry);
                    kept.files.push(j);
                    for (hash, n) in hashes {
                        push_bounded(&mut buffer, (hash, doc << 32 | u64::from(n)), cap);
                    }
                    if buffer.len() >= cap {
                        corpus.postings.spill(&mut buffer)?;
                    }
                }
            }
        }
    }
    corpus.postings.finish(buffer);
    corpus.distinct_subs = distinct.iter().filter(|&&d| d).count() as u64;
    corpus
        .skipped
        .sort_by(|a, b| a.path.cmp(&b.path).then_with(|| a.reason.cmp(&b.reason)));
    Ok((corpus, seen))
}

/// What joining an archive to the corpus leaves for the later stages.
#[derive(Default)]
struct Archived {
    /// The archive's table of shared hashes, less the hashes looked up
    /// (whose groups the merged postings give whole).
    table: Vec<SharedHashes>,
    /// The hashes whose archived postings joined the corpus, sorted.
    looked_up: Vec<u64>,
    /// The corpus number of the first archived document.
    first_doc: u64,
}

/// Joins `archive` to the corpus after the discovered submissions: every
/// archived submission's report entry and exact-copy keys (continuing the
/// first-with-its-symbols order of `seen`), and the archived postings of
/// the hashes the new files hold, whose groups the archive's table does
/// not give.
fn attach(
    corpus: &mut Corpus,
    archive: &dyn Archive,
    seen: &mut HashSet<(u64, u64)>,
) -> Result<Archived, CompareError> {
    let first_doc = corpus.doc_sub.len() as u64;
    let mut seen_alone: HashSet<(u64, u64)> = HashSet::new();
    // Whether each archived document is the first with its symbols in the
    // archive alone (as the table counts it).
    let mut first_alone: Vec<bool> = Vec::new();
    for (i, a) in archive.submissions()?.into_iter().enumerate() {
        let s = corpus.subs.len() as u32;
        let mut distinct = false;
        let mut keys = Vec::new();
        for (f, key) in a.documents.iter().enumerate() {
            let first = seen.insert((key.symbols, key.normalized));
            let alone = seen_alone.insert((key.symbols, key.normalized));
            first_alone.push(alone);
            corpus.doc_sub.push(s);
            corpus.canonical.push(first);
            corpus.duplicates += u64::from(!first);
            corpus.fingerprints += key.fingerprints;
            if key.symbols > 0 {
                distinct |= first;
                keys.push(FileKey {
                    fingerprint: key.normalized,
                    symbols: key.symbols,
                    file: f,
                });
            }
        }
        corpus.distinct_subs += u64::from(distinct);
        corpus.keys.push(keys);
        corpus.subs.push(KeptSub {
            entry: a.entry,
            old: true,
            input: usize::MAX,
            files: Vec::new(),
            sources: Vec::new(),
            archived: Some(i),
        });
    }
    // The hashes of the new files: every key of the postings so far. An
    // archived document that is no longer the first with its symbols
    // because a new file has the same symbols has the same hashes, so
    // these are all the hashes whose groups the table does not give.
    let parts = corpus.postings.par_groups(
        1u128 << 64,
        |_| Vec::new(),
        |hashes: &mut Vec<u64>, hash, _| {
            hashes.push(hash);
            Ok(())
        },
    )?;
    let looked_up: Vec<u64> = parts.into_iter().flatten().collect();
    let found = archive.lookup(&looked_up)?;
    // The table less the groups of these hashes in the archive alone.
    let mut table: HashMap<(u64, u64), (u64, u64)> = archive
        .shared_hashes()?
        .into_iter()
        .map(|t| ((t.submissions, t.distinct), (t.hashes, t.occurrences)))
        .collect();
    let mut holders: Vec<(u32, bool)> = Vec::new();
    for group in found.chunk_by(|x, y| x.0 == y.0) {
        holders.clear();
        holders.extend(group.iter().map(|&(_, d)| {
            (
                corpus.doc_sub[(first_doc + u64::from(d)) as usize],
                first_alone[d as usize],
            )
        }));
        holders.sort_unstable();
        let (mut subs, mut distinct) = (0u64, 0u64);
        for (n, &(sub, first)) in holders.iter().enumerate() {
            subs += u64::from(n == 0 || holders[n - 1].0 != sub);
            // A first document sorts last in its submission.
            let last = holders.get(n + 1).is_none_or(|next| next.0 != sub);
            distinct += u64::from(last && first);
        }
        if subs >= 2 {
            let Some(entry) = table.get_mut(&(subs, distinct)) else {
                return Err(CompareError::Archive(format!(
                    "the archive's table of shared hashes lacks a hash held by {subs} \
                     submissions ({distinct} distinct): it does not match its postings"
                )));
            };
            if entry.0 == 0 || entry.1 < group.len() as u64 {
                return Err(CompareError::Archive(
                    "the archive's table of shared hashes does not match its postings".to_string(),
                ));
            }
            entry.0 -= 1;
            entry.1 -= group.len() as u64;
        }
    }
    let mut rest: Vec<SharedHashes> = table
        .into_iter()
        .filter(|(_, (hashes, _))| *hashes > 0)
        .map(
            |((submissions, distinct), (hashes, occurrences))| SharedHashes {
                submissions,
                distinct,
                hashes,
                occurrences,
            },
        )
        .collect();
    rest.sort_unstable();
    corpus
        .postings
        .memory
        .push(archived_postings(&found, first_doc));
    Ok(Archived {
        table: rest,
        looked_up,
        first_doc,
    })
}

/// The distinct selected hashes of archived submissions `(corpus number,
/// archive position)`, from their analyzed files; and the analyses of as
/// many of them as fit in `budget` bytes (as [`AnalysisCache`] counts
/// them), with their sizes.
fn archived_hashes(
    archive: &dyn Archive,
    subs: &[(u32, usize)],
    match_options: &bryo_match::MatchOptions,
    options: &CompareOptions,
    budget: usize,
) -> Result<(Vec<u64>, Vec<Preloaded>), CompareError> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let left = AtomicUsize::new(budget);
    let proto = Fingerprinter::new(
        match_options.config,
        match_options.hash,
        match_options.selection,
    )
    .map_err(|e| CompareError::Match(e.into()))?;
    type Loaded = (Vec<u64>, Option<Preloaded>);
    let per_sub: Vec<Loaded> = subs
        .par_iter()
        .map_init(
            || proto.clone(),
            |fp, &(s, i)| {
                let mut hashes = Vec::new();
                let mut files = archive.load(i)?;
                for (a, _) in &mut files {
                    let prints = fp
                        .fingerprint_symbols(&a.normalized.symbols)
                        .map_err(|e| CompareError::Match(e.into()))?;
                    hashes.extend(prints.iter().map(|p| p.hash));
                    if !options.keep_text {
                        a.decoded.release_text();
                    }
                }
                let size = analyses_size(&files);
                let kept = left
                    .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| {
                        n.checked_sub(size)
                    })
                    .is_ok();
                Ok((hashes, kept.then(|| (s, Arc::new(files), size))))
            },
        )
        .collect::<Result<_, CompareError>>()?;
    let mut hashes: Vec<u64> = Vec::new();
    let mut loaded = Vec::new();
    for (h, files) in per_sub {
        hashes.extend(h);
        loaded.extend(files);
    }
    hashes.sort_unstable();
    hashes.dedup();
    Ok((hashes, loaded))
}

/// A kept submission's analysis, loaded ahead, and its size.
type Preloaded = (u32, Arc<AnalyzedFiles>, usize);

/// The memory of analyzed files as [`AnalysisCache`] counts it: symbols,
/// packed spans, the text where it is kept and the map back to the bytes.
fn analyses_size(files: &AnalyzedFiles) -> usize {
    files
        .iter()
        .map(|(a, _)| {
            8 * a.normalized.len()
                + a.normalized.spans.heap_bytes()
                + a.text().len()
                + a.lines.line_count() as usize * 4
        })
        .sum()
}

/// Archived occurrences `(hash, document)` (sorted) as postings of the
/// corpus: `(hash, doc << 32 | occurrences)`, documents numbered from
/// `first_doc`.
fn archived_postings(found: &[(u64, u32)], first_doc: u64) -> Vec<(u64, u64)> {
    found
        .chunk_by(|x, y| x == y)
        .map(|same| {
            let (hash, d) = same[0];
            (hash, (first_doc + u64::from(d)) << 32 | same.len() as u64)
        })
        .collect()
}

/// Sorted runs of `(u64, u64)` entries: spilled files, and runs kept in
/// memory.
struct Runs {
    dir: PathBuf,
    name: String,
    files: Vec<PathBuf>,
    bytes: u64,
    memory: Vec<Vec<(u64, u64)>>,
}

/// The first key of part `p` of `parts` equal parts of `[0, end)`.
fn part_start(p: usize, parts: usize, end: u128) -> u64 {
    (end * p as u128 / parts as u128) as u64
}

impl Runs {
    fn new(dir: &Path, name: &str) -> Runs {
        Runs {
            dir: dir.to_path_buf(),
            name: name.to_string(),
            files: Vec::new(),
            bytes: 0,
            memory: Vec::new(),
        }
    }

    /// Sorts `run`, writes it to a new file and empties it.
    fn spill(&mut self, run: &mut Vec<(u64, u64)>) -> Result<(), CompareError> {
        run.par_sort_unstable();
        let path = self
            .dir
            .join(format!("{}-{}.run", self.name, self.files.len()));
        let write = || -> io::Result<()> {
            let mut out = BufWriter::with_capacity(1 << 20, File::create(&path)?);
            for &(x, y) in run.iter() {
                out.write_all(&x.to_le_bytes())?;
                out.write_all(&y.to_le_bytes())?;
            }
            out.into_inner().map_err(|e| e.into_error())?.sync_all()
        };
        write().map_err(|e| spill_error(&self.dir, e))?;
        self.bytes += (run.len() * ENTRY_BYTES) as u64;
        self.files.push(path);
        run.clear();
        Ok(())
    }

    /// The last run, kept in memory.
    fn finish(&mut self, mut run: Vec<(u64, u64)>) {
        run.par_sort_unstable();
        self.memory.push(run);
    }

    /// Takes in the runs of `other`.
    fn absorb(&mut self, other: Runs) {
        self.files.extend(other.files);
        self.bytes += other.bytes;
        self.memory.extend(other.memory);
    }

    /// Every entry with a key in `from..to` (`to` = `None`: to the end) of
    /// every run, in order.
    fn merge_range(
        &self,
        from: u64,
        to: Option<u64>,
        mut f: impl FnMut(u64, u64) -> Result<(), CompareError>,
    ) -> Result<(), CompareError> {
        let mut merge = Merge::new(self, from)?;
        while let Some((x, y)) = merge.next()? {
            if to.is_some_and(|to| x >= to) {
                break;
            }
            f(x, y)?;
        }
        Ok(())
    }

    /// `f(state, key, [(doc, occurrences)])` on every key's entries (the
    /// postings of a hash, documents ascending), in `parts` key ranges of
    /// `[0, end)` merged in parallel, each with its own state.
    fn par_groups<S: Send>(
        &self,
        end: u128,
        init: impl Fn(usize) -> S + Sync,
        f: impl Fn(&mut S, u64, &[(u32, u32)]) -> Result<(), CompareError> + Sync,
    ) -> Result<Vec<S>, CompareError> {
        let parts = parallel_parts();
        (0..parts)
            .into_par_iter()
            .map(|p| {
                let mut state = init(p);
                let (from, to) = (
                    part_start(p, parts, end),
                    (p + 1 < parts).then(|| part_start(p + 1, parts, end)),
                );
                let mut current: Option<u64> = None;
                let mut entries: Vec<(u32, u32)> = Vec::new();
                self.merge_range(from, to, |key, value| {
                    if current != Some(key) {
                        if let Some(k) = current {
                            f(&mut state, k, &entries)?;
                        }
                        entries.clear();
                        current = Some(key);
                    }
                    entries.push(((value >> 32) as u32, value as u32));
                    Ok(())
                })?;
                if let Some(k) = current {
                    f(&mut state, k, &entries)?;
                }
                Ok(state)
            })
            .collect()
    }

    /// `f(state, key, sum)` for every key with the values of its entries
    /// summed, in key ranges of `[0, end)` merged in parallel.
    fn par_sums<S: Send>(
        &self,
        end: u128,
        init: impl Fn() -> S + Sync,
        f: impl Fn(&mut S, u64, u64) + Sync,
    ) -> Result<Vec<S>, CompareError> {
        let parts = parallel_parts();
        (0..parts)
            .into_par_iter()
            .map(|p| {
                let mut state = init();
                let (from, to) = (
                    part_start(p, parts, end),
                    (p + 1 < parts).then(|| part_start(p + 1, parts, end)),
                );
                let mut current: Option<(u64, u64)> = None;
                self.merge_range(from, to, |key, value| {
                    match &mut current {
                        Some((k, sum)) if *k == key => *sum += value,
                        _ => {
                            if let Some((k, sum)) = current {
                                f(&mut state, k, sum);
                            }
                            current = Some((key, value));
                        }
                    }
                    Ok(())
                })?;
                if let Some((k, sum)) = current {
                    f(&mut state, k, sum);
                }
                Ok(state)
            })
            .collect()
    }
}

/// A run file read from its first entry with a key of at least `from`
/// (found by binary search: entries have a fixed size).
fn seek_to(mut file: File, from: u64) -> io::Result<BufReader<File>> {
    use std::io::{Seek, SeekFrom};
    let n = file.metadata()?.len() / ENTRY_BYTES as u64;
    let (mut lo, mut hi) = (0u64, n);
    let mut key = [0u8; 8];
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        file.seek(SeekFrom::Start(mid * ENTRY_BYTES as u64))?;
        file.read_exact(&mut key)?;
        if u64::from_le_bytes(key) < from {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    file.seek(SeekFrom::Start(lo * ENTRY_BYTES as u64))?;
    Ok(BufReader::with_capacity(1 << 17, file))
}

/// One run being merged.
enum RunReader<'a> {
    File(BufReader<File>),
    Memory(std::slice::Iter<'a, (u64, u64)>),
}

impl RunReader<'_> {
    fn next(&mut self) -> io::Result<Option<(u64, u64)>> {
        match self {
            RunReader::Memory(it) => Ok(it.next().copied()),
            RunReader::File(r) => {
                let mut b = [0u8; ENTRY_BYTES];
                match r.read_exact(&mut b) {
                    Ok(()) => Ok(Some((
                        u64::from_le_bytes(b[..8].try_into().expect("8 bytes")),
                        u64::from_le_bytes(b[8..].try_into().expect("8 bytes")),
                    ))),
                    Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(None),
                    Err(e) => Err(e),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Keys near the ends of the parallel key ranges, and others.
    fn key(end: u128) -> impl Strategy<Value = u64> {
        let parts = parallel_parts();
        prop_oneof![
            (0..parts, -2i64..3).prop_map(move |(p, d)| {
                (part_start(p, parts, end) as i128 + i128::from(d)).clamp(0, end as i128 - 1) as u64
            }),
            (0..end.min(u128::from(u64::MAX)) as u64),
        ]
    }

    /// A key space, keys in it, and runs of `(key index, value)`.
    type Case = (u128, Vec<u64>, Vec<Vec<(usize, u64)>>);

    fn case() -> impl Strategy<Value = Case> {
        prop_oneof![Just(64u32), 8u32..40].prop_flat_map(|bits| {
            let end = 1u128 << bits;
            (
                Just(end),
                proptest::collection::vec(key(end), 1..200),
                proptest::collection::vec(
                    proptest::collection::vec((0usize..200, 0u64..50), 0..60),
                    1..5,
                ),
            )
        })
    }

    proptest! {
        /// Runs spilled to files and kept in memory, merged in parallel key
        /// ranges, give every entry once, as one sorted list does.
        #[test]
        fn parallel_merges_equal_one_sorted_list((end, keys, runs) in case()) {
            let dir = tempfile::tempdir().unwrap();
            let mut all = Runs::new(dir.path(), "t");
            let mut expected: Vec<(u64, u64)> = Vec::new();
            for (i, run) in runs.iter().enumerate() {
                let mut run: Vec<(u64, u64)> = run.iter().map(|&(k, v)| (keys[k % keys.len()], v)).collect();
                expected.extend(&run);
                if i % 2 == 0 {
                    all.spill(&mut run).unwrap();
                } else {
                    all.finish(run);
                }
            }
            expected.sort_unstable();
            let mut sums: Vec<(u64, u64)> = Vec::new();
            for &(k, v) in &expected {
                match sums.last_mut() {
                    Some(last) if last.0 == k => last.1 += v,
                    _ => sums.push((k, v)),
                }
            }
            let got: Vec<(u64, u64)> = all
                .par_sums(end, Vec::new, |out: &mut Vec<(u64, u64)>, k, v| out.push((k, v)))
                .unwrap()
                .into_iter()
                .flatten()
                .collect();
            prop_assert_eq!(got, sums);
            let groups: Vec<(u64, Vec<(u32, u32)>)> = all
                .par_groups(end, |_| Vec::new(), |out: &mut Vec<(u64, Vec<(u32, u32)>)>, k, e| {
                    out.push((k, e.to_vec()));
                    Ok(())
                })
                .unwrap()
                .into_iter()
                .flatten()
                .collect();
            let mut naive: Vec<(u64, Vec<(u32, u32)>)> = Vec::new();
            for &(k, v) in &expected {
                let e = ((v >> 32) as u32, v as u32);
                match naive.last_mut() {
                    Some(last) if last.0 == k => last.1.push(e),
                    _ => naive.push((k, vec![e])),
                }
            }
            prop_assert_eq!(groups, naive);
        }
    }
}
