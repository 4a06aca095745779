//! Frequency by rank over a corpus (the winnowing paper's Figure 4): every
//! k-gram hash and every winnowed fingerprint counted in bounded memory,
//! then one sample of each of the most frequent hashes. Both passes run on
//! the current rayon pool.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Mutex, PoisonError};

use bryo_engine::{Config, Fingerprint, Selection, Selector};
use bryo_input::ListedFile;
use rayon::prelude::*;

use crate::read::{HashReader, ReadOutcome};
use crate::{summarize, Error, HashCount, HashCounter, Summary, BYTES_PER_ENTRY};

/// The counts of a corpus.
#[derive(Debug)]
pub struct Counts {
    /// All k-gram hashes.
    pub all: Summary,
    /// The hashes winnowing selected.
    pub fingerprints: Summary,
    /// Documents read.
    pub documents: u64,
    /// Their bytes.
    pub bytes: u64,
    /// Their symbols.
    pub symbols: u64,
    /// Files skipped while reading: listing index and reason, in listing
    /// order.
    pub skipped: Vec<(usize, String)>,
    /// Sorted runs written to disk (0 when everything fitted in memory;
    /// depends on the memory budget and the number of threads).
    pub spilled_runs: usize,
}

/// What one worker thread counted.
struct Worker {
    reader: HashReader,
    selector: Selector,
    all: HashCounter,
    fingerprints: HashCounter,
    buf: Vec<Fingerprint>,
    documents: u64,
    bytes: u64,
    symbols: u64,
    skipped: Vec<(usize, String)>,
}

fn poisoned<T>(_: PoisonError<T>) -> Error {
    Error::WorkerPanicked
}

/// Counts every k-gram hash of `files` and every hash plain winnowing
/// (`config`'s window) selects, with one pair of [`HashCounter`]s per
/// thread of the current rayon pool sharing `memory_bytes` (an eighth for
/// the fingerprints, about 2/(w+1) of the hashes), spilling to `spill_dir`;
/// then merges them and keeps the `top` most frequent of each. `progress`
/// is called with each file's listed size once it is read. The result
/// depends only on the files, except `spilled_runs`.
///
/// # Errors
///
/// [`Error::MemoryTooSmall`] when the budget gives a thread no entry; read,
/// spill and engine errors.
pub fn count_hashes(
    files: &[ListedFile],
    reader: &HashReader,
    config: &Config,
    memory_bytes: usize,
    spill_dir: &Path,
    top: usize,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Counts, Error> {
    let threads = rayon::current_num_threads().max(1);
    let per_thread = memory_bytes / threads;
    let all_budget = (per_thread - per_thread / 8) / BYTES_PER_ENTRY;
    let fp_budget = (per_thread / 8) / BYTES_PER_ENTRY;
    if all_budget == 0 || fp_budget == 0 {
        return Err(Error::MemoryTooSmall { threads });
    }
    let selector = Selector::new(Selection::Winnow, config.w())?;
    // One worker per thread, each touched only by its own thread: the lock
    // is never contended, and memory is bounded by the threads.
    let workers = (0..threads)
        .map(|_| {
            Ok(Mutex::new(Worker {
                reader: reader.clone(),
                selector: selector.clone(),
                all: HashCounter::new(all_budget, spill_dir)?,
                fingerprints: HashCounter::new(fp_budget, spill_dir)?,
                buf: Vec::new(),
                documents: 0,
                bytes: 0,
                symbols: 0,
                skipped: Vec::new(),
            }))
        })
        .collect::<Result<Vec<_>, Error>>()?;
    files
        .par_iter()
        .enumerate()
        .try_for_each(|(i, file)| -> Result<(), Error> {
            let slot = rayon::current_thread_index().unwrap_or(0) % threads;
            let mut guard = workers[slot].lock().map_err(poisoned)?;
            let w = &mut *guard;
            let outcome = w.reader.hash_file(&file.path, &mut |h| {
                w.all.add_all(h)?;
                w.buf.clear();
                w.selector.push(h, &mut w.buf)?;
                w.buf.iter().try_for_each(|f| w.fingerprints.add(f.hash))
            })?;
            progress(file.len);
            match outcome {
                ReadOutcome::Read(info) => {
                    w.buf.clear();
                    w.selector.finish(&mut w.buf);
                    w.buf.iter().try_for_each(|f| w.fingerprints.add(f.hash))?;
                    w.documents += 1;
                    w.bytes += info.bytes;
                    w.symbols += info.symbols;
                }
                ReadOutcome::Skipped(reason) => {
                    w.selector.reset();
                    w.skipped.push((i, reason));
                }
            }
            Ok(())
        })?;
    let mut all = Vec::new();
    let mut fps = Vec::new();
    let (mut documents, mut bytes, mut symbols, mut spilled_runs) = (0, 0, 0, 0);
    let mut skipped = Vec::new();
    for w in workers {
        let w = w.into_inner().map_err(poisoned)?;
        documents += w.documents;
        bytes += w.bytes;
        symbols += w.symbols;
        skipped.extend(w.skipped);
        spilled_runs += w.all.spilled_runs() + w.fingerprints.spilled_runs();
        all.push(w.all);
        fps.push(w.fingerprints);
    }
    skipped.sort_by_key(|(i, _)| *i);
    Ok(Counts {
        all: summarize(all, top)?,
        fingerprints: summarize(fps, top)?,
        documents,
        bytes,
        symbols,
        skipped,
        spilled_runs,
    })
}

/// Where a hash was first seen (listing order) and in how many documents.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sample {
    /// Documents holding the hash.
    pub documents: u64,
    /// The first file (listing index) holding it, the symbol position there
    /// and the k-gram's text ([`HashReader::kgram_text`], at most 200
    /// characters); `None` if no file holds it.
    pub first: Option<(usize, u64, String)>,
}

/// Reads `files` again and takes one sample of each hash of `wanted`, in
/// parallel on the current rayon pool; the result, in the order of
/// `wanted`, does not depend on the number of threads.
///
/// # Errors
///
/// A read error in the middle of a file.
pub fn sample_hashes(
    files: &[ListedFile],
    reader: &HashReader,
    wanted: &[HashCount],
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Vec<Sample>, Error> {
    let index: HashMap<u64, usize> = wanted
        .iter()
        .enumerate()
        .map(|(i, c)| (c.hash, i))
        .collect();
    let n = wanted.len();
    let merged: Mutex<Vec<Sample>> = Mutex::new(vec![Sample::default(); n]);
    files.par_iter().enumerate().try_for_each_init(
        || (reader.clone(), vec![None::<u64>; n]),
        |(reader, first_pos), (doc, file)| -> Result<(), Error> {
            first_pos.iter_mut().for_each(|p| *p = None);
            let mut offset = 0u64;
            let outcome = reader.hash_file(&file.path, &mut |h| {
                for (j, hash) in h.iter().enumerate() {
                    if let Some(&t) = index.get(hash) {
                        first_pos[t].get_or_insert(offset + j as u64);
                    }
                }
                offset += h.len() as u64;
                Ok(())
            })?;
            progress(file.len);
            if let ReadOutcome::Skipped(_) = outcome {
                return Ok(());
            }
            // Texts are read before taking the lock, only where this file
            // may be the first one.
            let candidates: Vec<(usize, u64)> = {
                let m = merged.lock().map_err(poisoned)?;
                first_pos
                    .iter()
                    .enumerate()
                    .filter_map(|(t, p)| p.map(|p| (t, p)))
                    .filter(|&(t, _)| m[t].first.as_ref().is_none_or(|f| doc < f.0))
                    .collect()
            };
            let texts: Vec<(usize, u64, String)> = candidates
                .into_iter()
                .map(|(t, p)| (t, p, reader.kgram_text(p, 200).unwrap_or_default()))
                .collect();
            let mut m = merged.lock().map_err(poisoned)?;
            for (t, p) in first_pos.iter().enumerate() {
                if p.is_some() {
                    m[t].documents += 1;
                }
            }
            for (t, p, text) in texts {
                if m[t].first.as_ref().is_none_or(|f| doc < f.0) {
                    m[t].first = Some((doc, p, text));
                }
            }
            Ok(())
        },
    )?;
    merged.into_inner().map_err(poisoned)
}
