//! The whole pipeline: symbols → k-gram hashes → selected fingerprints.

use crate::hash::{kgram_count, Symbol};
use crate::{rehash, Config, Error, HashFunction, Hasher, Selection, Selector};

/// A selected k-gram hash and where its k-gram starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Fingerprint {
    /// The k-gram's hash (re-hashed if the fingerprinter asked for it).
    pub hash: u64,
    /// Index of the first symbol of the k-gram in the document.
    pub pos: u32,
}

/// How many k-gram hashes are computed and selected per step. 16 Ki hashes
/// (128 KiB) stay in the L2 cache between hashing and selection.
const CHUNK: usize = 16 * 1024;

/// Fingerprints documents: a [`Hasher`] and a [`Selector`] with reusable
/// buffers. Not thread-safe by design; make one per thread (construction is
/// cheap).
///
/// ```
/// use bryo_engine::{Config, Fingerprinter, HashFunction, Selection};
/// let config = Config::from_thresholds(5, 8).unwrap();
/// let mut f = Fingerprinter::new(config, HashFunction::KarpRabin, Selection::Winnow).unwrap();
/// let a = f.fingerprints_bytes(b"adorunrunrunadorunrun").unwrap();
/// let b = f.fingerprints_bytes(b"xxrunrunrunadoxx").unwrap();
/// // "runrunrunado" (12 symbols >= t = 8) is shared, so a fingerprint is too.
/// assert!(a.iter().any(|x| b.iter().any(|y| x.hash == y.hash)));
/// ```
#[derive(Clone, Debug)]
pub struct Fingerprinter {
    config: Config,
    hasher: Hasher,
    selector: Selector,
    rehash: bool,
    hashes: Vec<u64>,
}

impl Fingerprinter {
    /// A fingerprinter with the given thresholds, hash and selection.
    pub fn new(
        config: Config,
        function: HashFunction,
        selection: Selection,
    ) -> Result<Fingerprinter, Error> {
        Ok(Fingerprinter {
            config,
            hasher: Hasher::new(function, &config),
            selector: Selector::new(selection, config.w())?,
            rehash: false,
            hashes: Vec::new(),
        })
    }

    /// Re-hash every selected value with [`rehash`] (a bijection), so that
    /// fingerprint values are uniformly distributed rather than skewed
    /// towards the small values winnowing prefers. Selection itself is
    /// unchanged.
    pub fn with_rehash(mut self, on: bool) -> Fingerprinter {
        self.rehash = on;
        self
    }

    /// The thresholds.
    pub fn config(&self) -> Config {
        self.config
    }

    /// The k-gram hasher.
    pub fn hasher(&self) -> &Hasher {
        &self.hasher
    }

    /// The selection.
    pub fn selection(&self) -> Selection {
        self.selector.selection()
    }

    /// Replaces the contents of `out` with the fingerprints of `bytes`, each
    /// byte one symbol. Reuses `out`'s allocation.
    pub fn fingerprint_bytes(
        &mut self,
        bytes: &[u8],
        out: &mut Vec<Fingerprint>,
    ) -> Result<(), Error> {
        self.run(bytes, out)
    }

    /// Replaces the contents of `out` with the fingerprints of `symbols`.
    pub fn fingerprint_symbols(
        &mut self,
        symbols: &[u64],
        out: &mut Vec<Fingerprint>,
    ) -> Result<(), Error> {
        self.run(symbols, out)
    }

    /// The fingerprints of `bytes` in a new vector.
    pub fn fingerprints_bytes(&mut self, bytes: &[u8]) -> Result<Vec<Fingerprint>, Error> {
        let mut out = Vec::new();
        self.run(bytes, &mut out)?;
        Ok(out)
    }

    /// The fingerprints of `symbols` in a new vector.
    pub fn fingerprints_symbols(&mut self, symbols: &[u64]) -> Result<Vec<Fingerprint>, Error> {
        let mut out = Vec::new();
        self.run(symbols, &mut out)?;
        Ok(out)
    }

    /// A lazy iterator over the fingerprints of `bytes`, computed a chunk at
    /// a time in bounded memory.
    pub fn iter_bytes<'a>(&'a mut self, bytes: &'a [u8]) -> Result<Fingerprints<'a, u8>, Error> {
        Fingerprints::new(self, bytes)
    }

    /// A lazy iterator over the fingerprints of `symbols`.
    pub fn iter_symbols<'a>(
        &'a mut self,
        symbols: &'a [u64],
    ) -> Result<Fingerprints<'a, u64>, Error> {
        Fingerprints::new(self, symbols)
    }

    fn run<S: Symbol>(&mut self, input: &[S], out: &mut Vec<Fingerprint>) -> Result<(), Error> {
        out.clear();
        let total = self.check_len(input.len())?;
        self.selector.reset();
        let mut first = 0;
        while first < total {
            self.step(input, first, total, out)?;
            first += CHUNK.min(total - first);
        }
        self.end(out);
        Ok(())
    }

    fn check_len(&self, len: usize) -> Result<usize, Error> {
        let total = kgram_count(len, self.config.k());
        if total as u64 > u64::from(u32::MAX) + 1 {
            return Err(Error::InputTooLong {
                kgrams: total as u64,
            });
        }
        Ok(total)
    }

    /// Hashes and selects the chunk of k-grams starting at `first`.
    fn step<S: Symbol>(
        &mut self,
        input: &[S],
        first: usize,
        total: usize,
        out: &mut Vec<Fingerprint>,
    ) -> Result<(), Error> {
        let n = CHUNK.min(total - first);
        self.hashes.resize(n, 0);
        S::hash_range(&self.hasher, input, first, &mut self.hashes[..n]);
        let before = out.len();
        self.selector.push(&self.hashes[..n], out)?;
        self.rehash_from(out, before);
        Ok(())
    }

    fn end(&mut self, out: &mut Vec<Fingerprint>) {
        let before = out.len();
        self.selector.finish(out);
        self.rehash_from(out, before);
    }

    fn rehash_from(&self, out: &mut [Fingerprint], from: usize) {
        if self.rehash {
            for f in &mut out[from..] {
                f.hash = rehash(f.hash);
            }
        }
    }
}

/// Lazy iterator over the fingerprints of one document, from
/// [`Fingerprinter::iter_bytes`] or [`Fingerprinter::iter_symbols`].
#[derive(Debug)]
pub struct Fingerprints<'a, S: Symbol> {
    owner: &'a mut Fingerprinter,
    input: &'a [S],
    next: usize,
    total: usize,
    queue: Vec<Fingerprint>,
    read: usize,
    done: bool,
}

impl<'a, S: Symbol> Fingerprints<'a, S> {
    fn new(owner: &'a mut Fingerprinter, input: &'a [S]) -> Result<Self, Error> {
        let total = owner.check_len(input.len())?;
        owner.selector.reset();
        Ok(Fingerprints {
            owner,
            input,
            next: 0,
            total,
            queue: Vec::new(),
            read: 0,
            done: false,
        })
    }
}

impl<S: Symbol> Iterator for Fingerprints<'_, S> {
    type Item = Fingerprint;

    fn next(&mut self) -> Option<Fingerprint> {
        loop {
            if let Some(&f) = self.queue.get(self.read) {
                self.read += 1;
                return Some(f);
            }
            if self.done {
                return None;
            }
            self.queue.clear();
            self.read = 0;
            if self.next < self.total {
                let first = self.next;
                self.next += CHUNK.min(self.total - first);
                // The length was checked up front, so positions fit.
                if self
                    .owner
                    .step(self.input, first, self.total, &mut self.queue)
                    .is_err()
                {
                    self.done = true;
                }
            } else {
                self.owner.end(&mut self.queue);
                self.done = true;
            }
        }
    }
}
