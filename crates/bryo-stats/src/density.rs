//! Fingerprint density (the winnowing paper's §5.1, Figure 3): several
//! selection strategies applied to the same hashes, document by document in
//! parallel or, as the paper did, to all files as one stream.

use bryo_engine::{Config, Fingerprint, GapMeter, Hasher, Selection, Selector};
use bryo_input::ListedFile;
use rayon::prelude::*;

use crate::read::{HashReader, ReadOutcome, CHUNK};
use crate::Error;

/// Totals of one strategy: fingerprints, and the longest gap with the
/// index of the first document (in listing order) where it occurs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StrategyTotals {
    /// Fingerprints selected.
    pub fingerprints: u64,
    /// The longest run of symbols of one document with no fingerprint
    /// (over the whole stream in one-stream mode).
    pub longest_gap: u64,
    /// The first document (listing index) with that gap; `usize::MAX` when
    /// it is not one file's (one-stream mode).
    pub gap_doc: usize,
}

/// Totals over documents. Combining is associative and commutative, so the
/// result does not depend on how the documents were split between threads.
#[derive(Clone, Debug, Default)]
pub struct Totals {
    /// Documents read.
    pub documents: u64,
    /// Their bytes.
    pub bytes: u64,
    /// Their symbols.
    pub symbols: u64,
    /// k-gram hashes.
    pub hashes: u64,
    /// Documents with at least one hash.
    pub with_hashes: u64,
    /// Hashes after each document's first window: the sum of max(n − w, 0).
    pub past_first_window: u64,
    /// One entry per strategy, in the order given to [`DensityMeter::new`].
    pub strategies: Vec<StrategyTotals>,
    /// Files skipped while reading: listing index and reason, in listing
    /// order.
    pub skipped: Vec<(usize, String)>,
}

impl Totals {
    fn combine(mut self, other: Totals) -> Totals {
        self.documents += other.documents;
        self.bytes += other.bytes;
        self.symbols += other.symbols;
        self.hashes += other.hashes;
        self.with_hashes += other.with_hashes;
        self.past_first_window += other.past_first_window;
        if self.strategies.is_empty() {
            self.strategies = other.strategies;
        } else {
            for (a, b) in self.strategies.iter_mut().zip(other.strategies) {
                a.fingerprints += b.fingerprints;
                if (b.longest_gap, std::cmp::Reverse(b.gap_doc))
                    > (a.longest_gap, std::cmp::Reverse(a.gap_doc))
                {
                    a.longest_gap = b.longest_gap;
                    a.gap_doc = b.gap_doc;
                }
            }
        }
        self.skipped.extend(other.skipped);
        self
    }

    /// The expected density of winnowing on random text split into
    /// documents of the measured lengths: each document's first window
    /// always gives one fingerprint, then each further hash 2/(w+1).
    /// `None` without hashes.
    pub fn expected_winnow_density(&self, w: usize) -> Option<f64> {
        (self.hashes > 0).then(|| {
            (self.with_hashes as f64 + 2.0 / (w as f64 + 1.0) * self.past_first_window as f64)
                / self.hashes as f64
        })
    }
}

/// One selection strategy applied to the current document.
#[derive(Clone, Debug)]
struct Tally {
    selector: Selector,
    gaps: GapMeter,
    fingerprints: u64,
    buf: Vec<Fingerprint>,
}

impl Tally {
    fn new(selection: Selection, config: &Config) -> Result<Tally, Error> {
        Ok(Tally {
            selector: Selector::new(selection, config.w())?,
            gaps: GapMeter::new(config.k()),
            fingerprints: 0,
            buf: Vec::new(),
        })
    }

    fn push(&mut self, hashes: &[u64]) -> Result<(), Error> {
        self.buf.clear();
        self.selector.push(hashes, &mut self.buf)?;
        self.count();
        Ok(())
    }

    /// Ends a document of `symbols` symbols: its fingerprints and longest
    /// gap; the tally is ready for the next document.
    fn finish(&mut self, symbols: u64) -> (u64, u64) {
        self.buf.clear();
        self.selector.finish(&mut self.buf);
        self.count();
        let fps = std::mem::take(&mut self.fingerprints);
        (fps, self.gaps.finish(symbols))
    }

    fn reset(&mut self) {
        self.selector.reset();
        self.gaps.finish(0);
        self.fingerprints = 0;
    }

    fn count(&mut self) {
        self.fingerprints += self.buf.len() as u64;
        for f in &self.buf {
            self.gaps.observe(u64::from(f.pos));
        }
    }
}

/// Measures fingerprint density: every hash goes to one selector and gap
/// meter per strategy. Clone one per worker thread.
#[derive(Clone, Debug)]
pub struct DensityMeter {
    tallies: Vec<Tally>,
    w: u64,
}

impl DensityMeter {
    /// A meter for `selections` with `config`'s window.
    ///
    /// # Errors
    ///
    /// A selection the engine rejects.
    pub fn new(config: &Config, selections: &[Selection]) -> Result<DensityMeter, Error> {
        Ok(DensityMeter {
            tallies: selections
                .iter()
                .map(|&s| Tally::new(s, config))
                .collect::<Result<_, _>>()?,
            w: config.w() as u64,
        })
    }

    fn document(&mut self, doc: usize, symbols: u64, bytes: u64, hashes: u64) -> Totals {
        let strategies = self
            .tallies
            .iter_mut()
            .map(|t| {
                let (fingerprints, longest_gap) = t.finish(symbols);
                StrategyTotals {
                    fingerprints,
                    longest_gap,
                    gap_doc: doc,
                }
            })
            .collect();
        Totals {
            documents: 1,
            bytes,
            symbols,
            hashes,
            with_hashes: u64::from(hashes > 0),
            past_first_window: hashes.saturating_sub(self.w),
            strategies,
            skipped: Vec::new(),
        }
    }

    fn push(&mut self, hashes: &[u64]) -> Result<(), Error> {
        self.tallies.iter_mut().try_for_each(|t| t.push(hashes))
    }

    /// Measures one in-memory document of bytes.
    ///
    /// # Errors
    ///
    /// A document longer than the engine's positions allow.
    pub fn bytes(&mut self, hasher: &Hasher, bytes: &[u8]) -> Result<Totals, Error> {
        let total = hasher.kgram_count(bytes.len());
        let mut buf = Vec::new();
        let mut first = 0;
        while first < total {
            let n = CHUNK.min(total - first);
            buf.resize(n, 0);
            hasher.hash_bytes_range(bytes, first, &mut buf)?;
            self.push(&buf)?;
            first += n;
        }
        let len = bytes.len() as u64;
        Ok(self.document(0, len, len, total as u64))
    }

    /// Measures every file as its own document, in parallel on the current
    /// rayon pool; `progress` is called with each file's listed size once
    /// it is read. The totals do not depend on the number of threads.
    ///
    /// # Errors
    ///
    /// A read error in the middle of a file, or an engine error.
    pub fn files(
        &self,
        files: &[ListedFile],
        reader: &HashReader,
        progress: &(dyn Fn(u64) + Sync),
    ) -> Result<Totals, Error> {
        let mut totals = files
            .par_iter()
            .enumerate()
            .map_init(
                || (self.clone(), reader.clone()),
                |(m, r), (i, file)| -> Result<Totals, Error> {
                    let outcome = r.hash_file(&file.path, &mut |h| m.push(h))?;
                    progress(file.len);
                    Ok(match outcome {
                        ReadOutcome::Read(info) => {
                            m.document(i, info.symbols, info.bytes, info.hashes)
                        }
                        ReadOutcome::Skipped(reason) => {
                            m.tallies.iter_mut().for_each(Tally::reset);
                            Totals {
                                skipped: vec![(i, reason)],
                                ..Totals::default()
                            }
                        }
                    })
                },
            )
            .try_reduce(Totals::default, |a, b| Ok(a.combine(b)))?;
        totals.skipped.sort_by_key(|(i, _)| *i);
        if totals.strategies.is_empty() {
            totals.strategies = vec![StrategyTotals::default(); self.tallies.len()];
        }
        Ok(totals)
    }

    /// Reads `files` in order as one stream, on this thread: `reader` must
    /// be a [`HashReader::one_stream`] reader carrying the last k − 1
    /// symbols between files; the selectors and gap meters are finished
    /// once, at the end of the stream, so the result equals the
    /// computation on the concatenated symbols. No gap names a file
    /// (`gap_doc` is `usize::MAX`).
    ///
    /// # Errors
    ///
    /// As [`DensityMeter::files`].
    pub fn one_stream(
        &mut self,
        files: &[ListedFile],
        mut reader: HashReader,
        progress: &dyn Fn(u64),
    ) -> Result<Totals, Error> {
        let mut read = Totals::default();
        for (i, file) in files.iter().enumerate() {
            let outcome = reader.hash_file(&file.path, &mut |h| self.push(h))?;
            progress(file.len);
            match outcome {
                ReadOutcome::Read(info) => {
                    read.documents += 1;
                    read.bytes += info.bytes;
                    read.symbols += info.symbols;
                    read.hashes += info.hashes;
                }
                ReadOutcome::Skipped(reason) => read.skipped.push((i, reason)),
            }
        }
        // The whole stream is one document for the selectors, the gap meters
        // and the expected density; `usize::MAX` names no file for the gaps.
        let mut totals = self.document(usize::MAX, read.symbols, read.bytes, read.hashes);
        totals.documents = read.documents;
        totals.skipped = read.skipped;
        Ok(totals)
    }
}
