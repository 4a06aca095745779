//! Exact copies, found before any winnowing with Rabin fingerprints
//! (Broder 1993): of files, and of whole submissions as subsets of files.

use std::collections::BTreeMap;
use std::io::{self, Read};

use bryo_engine::{ElementPolynomials, Fp, Modulus, SubsetProduct};
use bryo_report::{FileRef, IdenticalFiles};
use rayon::prelude::*;

use crate::Analyzed;

/// Seed of the per-file polynomials of submission fingerprints. Fixed, so
/// that the fingerprints are the same on every run.
const SUBSET_SEED: u64 = 0x6964_656e_7469_6361; // "identica"

/// The Rabin fingerprints of one file: of its raw bytes and of its
/// normalized symbol stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FileFingerprint {
    /// `f(1 ‖ bytes)` modulo [`bryo_engine::Polynomial::DEFAULT`]: equal for
    /// byte-identical files.
    pub raw: u64,
    /// `f(1 ‖ symbols)`, each symbol as eight big-endian bytes: equal for
    /// files identical after normalization (same tokens or words, whatever
    /// the layout, comments and identifier names).
    pub normalized: u64,
}

/// Computes [`FileFingerprint`]s with the default polynomial, whose
/// tables every fingerprinter shares ([`Modulus::shared_64`]): cheap to
/// make and to copy.
///
/// ```
/// use bryo_compare::{analyze, AnalyzeOptions, FileFingerprinter};
///
/// let fingerprinter = FileFingerprinter::new();
/// let options = AnalyzeOptions::default();
/// let a = b"x = 1  # one\nprint(x)\n";
/// let b = b"y=1\nprint( y )\n";
/// let fa = fingerprinter.fingerprint(a, &analyze("a.py", a, &options).unwrap());
/// let fb = fingerprinter.fingerprint(b, &analyze("b.py", b, &options).unwrap());
/// assert_ne!(fa.raw, fb.raw);
/// assert_eq!(fa.normalized, fb.normalized);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct FileFingerprinter {
    modulus: &'static Modulus,
}

impl Default for FileFingerprinter {
    fn default() -> Self {
        FileFingerprinter::new()
    }
}

impl FileFingerprinter {
    /// A fingerprinter for the default degree-64 polynomial (its tables
    /// built once per process, [`Modulus::shared_64`]).
    pub fn new() -> FileFingerprinter {
        FileFingerprinter {
            modulus: Modulus::shared_64(),
        }
    }

    /// The fingerprints of a file's bytes and of the symbols its front-end
    /// produced from them.
    pub fn fingerprint(&self, bytes: &[u8], analyzed: &Analyzed) -> FileFingerprint {
        FileFingerprint {
            raw: self.raw(bytes),
            normalized: self.normalized(&analyzed.normalized.symbols),
        }
    }

    /// The fingerprint of raw bytes.
    pub fn raw(&self, bytes: &[u8]) -> u64 {
        // Degree 64: every residue fits in 64 bits.
        self.modulus.hash_bytes(bytes) as u64
    }

    /// The fingerprint of everything `reader` yields, read in blocks of
    /// 256 KiB: equal to [`raw`](Self::raw) of the same bytes (Broder's
    /// equation 9 continues a fingerprint block by block), without holding
    /// the file in memory.
    ///
    /// # Errors
    ///
    /// The reader's error; also when more than 2⁶¹ bytes are read.
    pub fn raw_reader(&self, mut reader: impl Read) -> io::Result<u64> {
        let mut buffer = vec![0u8; 256 << 10];
        let mut fp = Fp::EMPTY;
        loop {
            let n = match reader.read(&mut buffer) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            fp = self
                .modulus
                .extend_bytes(fp, &buffer[..n])
                .map_err(io::Error::other)?;
        }
        Ok(self.modulus.prefixed(fp) as u64)
    }

    /// The fingerprint of a normalized symbol stream.
    pub fn normalized(&self, symbols: &[u64]) -> u64 {
        self.modulus.hash_symbols(symbols) as u64
    }
}

/// What [`detect`] found.
#[derive(Debug, Default)]
pub(crate) struct Identical {
    /// Groups of identical submissions (indices, ascending; groups by first
    /// member).
    pub groups: Vec<Vec<usize>>,
    /// File contents shared by several submissions.
    pub files: Vec<IdenticalFiles>,
}

/// A file that takes part in exact-copy detection.
struct Counted<'a> {
    file: usize,
    fingerprint: u64,
    symbols: &'a [u64],
}

/// Finds identical submissions and files. A file counts when it has
/// symbols and its symbols are not exactly those of a base file; two
/// submissions are identical when their counted files are the same
/// multiset of symbol streams. Candidates are grouped by fingerprint (a
/// subset fingerprint of the file fingerprints for submissions, eq. 11) and
/// confirmed symbol by symbol, so a fingerprint collision never reports a
/// false copy. `old[i]` tells whether submission `i` is old: groups and
/// files shared only by old submissions are not reported. `fingerprints`
/// and `base_fingerprints` are the files' [`FileFingerprint`]s, in the same
/// order as the files.
pub(crate) fn detect(
    submissions: &[&[Analyzed]],
    fingerprints: &[&[FileFingerprint]],
    old: &[bool],
    base: &[Analyzed],
    base_fingerprints: &[FileFingerprint],
) -> Identical {
    let m = Modulus::shared_64();
    let base_files: Vec<(u64, &[u64])> = base
        .iter()
        .zip(base_fingerprints)
        .map(|(b, fp)| (fp.normalized, &b.normalized.symbols[..]))
        .collect();
    let mut counted: Vec<Vec<Counted<'_>>> = submissions
        .par_iter()
        .zip(fingerprints)
        .map(|(files, fps)| {
            files
                .iter()
                .zip(fps.iter())
                .enumerate()
                .filter(|(_, (f, _))| !f.normalized.symbols.is_empty())
                .map(|(i, (f, fp))| Counted {
                    file: i,
                    fingerprint: fp.normalized,
                    symbols: &f.normalized.symbols[..],
                })
                .filter(|c| {
                    !base_files
                        .iter()
                        .any(|&(h, s)| h == c.fingerprint && s == c.symbols)
                })
                .collect()
        })
        .collect();
    for files in &mut counted {
        files.sort_by(|x, y| {
            (x.fingerprint, x.symbols)
                .cmp(&(y.fingerprint, y.symbols))
                .then(x.file.cmp(&y.file))
        });
    }

    // Submissions: a subset fingerprint over their files' fingerprints.
    let polys = ElementPolynomials::new(SUBSET_SEED);
    let keys: Vec<SubsetProduct> = counted
        .par_iter()
        .map(|files| {
            // Only multiplied: the polynomials without their inverses.
            SubsetProduct::of_polynomials(
                m,
                files
                    .iter()
                    .map(|c| polys.polynomial(m, u128::from(c.fingerprint))),
            )
        })
        .collect();
    let mut by_key: BTreeMap<(u128, u64), Vec<usize>> = BTreeMap::new();
    for (i, key) in keys.iter().enumerate() {
        if !key.is_empty() {
            by_key.entry((key.value(), key.len())).or_default().push(i);
        }
    }
    let mut groups = Vec::new();
    for members in by_key.into_values() {
        for class in confirm(&members, |&a, &b| same_files(&counted[a], &counted[b])) {
            if class.len() >= 2 && class.iter().any(|&s| !old[s]) {
                groups.push(class);
            }
        }
    }
    groups.sort();

    // Files: the same normalized content in more than one submission.
    let mut by_file: BTreeMap<(u64, usize), Vec<(usize, usize)>> = BTreeMap::new();
    for (s, files) in counted.iter().enumerate() {
        for (n, c) in files.iter().enumerate() {
            by_file
                .entry((c.fingerprint, c.symbols.len()))
                .or_default()
                .push((s, n));
        }
    }
    let mut shared = Vec::new();
    for ((fingerprint, len), members) in by_file {
        let symbols = |&(s, n): &(usize, usize)| counted[s][n].symbols;
        for class in confirm(&members, |a, b| symbols(a) == symbols(b)) {
            shared.extend(shared_file(&class, old, fingerprint, len as u64, |s, n| {
                &submissions[s][counted[s][n].file].path
            }));
        }
    }
    sort_shared(&mut shared);

    Identical {
        groups,
        files: shared,
    }
}

/// A compared file of a run that keeps no symbols (a streamed corpus):
/// its normalized Rabin fingerprint, its number of symbols and its index
/// among its submission's files.
pub(crate) struct FileKey {
    pub(crate) fingerprint: u64,
    pub(crate) symbols: u64,
    pub(crate) file: usize,
}

/// [`detect`] for a run that keeps no symbols and has no base code: files
/// are equal when their normalized Rabin fingerprints and lengths are
/// (a false copy needs a collision of the degree-64 fingerprint), and
/// the result is otherwise the same. `submissions[i]` lists the files of
/// submission `i` that have symbols; `path(i, file)` names one.
pub(crate) fn detect_by_keys<'a>(
    submissions: &[Vec<FileKey>],
    old: &[bool],
    path: impl Fn(usize, usize) -> &'a str,
) -> Identical {
    let sorted: Vec<Vec<(u64, u64, usize)>> = submissions
        .iter()
        .map(|files| {
            let mut keys: Vec<(u64, u64, usize)> = files
                .iter()
                .enumerate()
                .map(|(n, f)| (f.fingerprint, f.symbols, n))
                .collect();
            keys.sort_unstable();
            keys
        })
        .collect();
    let mut by_files: BTreeMap<Vec<(u64, u64)>, Vec<usize>> = BTreeMap::new();
    for (i, keys) in sorted.iter().enumerate() {
        if !keys.is_empty() {
            by_files
                .entry(keys.iter().map(|&(f, n, _)| (f, n)).collect())
                .or_default()
                .push(i);
        }
    }
    let mut groups: Vec<Vec<usize>> = by_files
        .into_values()
        .filter(|g| g.len() >= 2 && g.iter().any(|&s| !old[s]))
        .collect();
    groups.sort();
    let mut by_file: BTreeMap<(u64, u64), Vec<(usize, usize)>> = BTreeMap::new();
    for (s, keys) in sorted.iter().enumerate() {
        for &(f, n, file) in keys {
            by_file.entry((f, n)).or_default().push((s, file));
        }
    }
    let mut shared = Vec::new();
    for ((fingerprint, len), class) in by_file {
        shared.extend(shared_file(&class, old, fingerprint, len, |s, n| {
            path(s, submissions[s][n].file)
        }));
    }
    sort_shared(&mut shared);
    Identical {
        groups,
        files: shared,
    }
}

/// The report entry of one content held by the files `class` (`(submission,
/// file)`, submissions ascending), unless they are all in one submission
/// or all old.
fn shared_file<'a>(
    class: &[(usize, usize)],
    old: &[bool],
    fingerprint: u64,
    symbols: u64,
    path: impl Fn(usize, usize) -> &'a str,
) -> Option<IdenticalFiles> {
    let mut subs: Vec<usize> = class.iter().map(|&(s, _)| s).collect();
    subs.dedup();
    if subs.len() < 2 || subs.iter().all(|&s| old[s]) {
        return None;
    }
    let mut files: Vec<FileRef> = class
        .iter()
        .map(|&(s, n)| FileRef {
            submission: s,
            path: path(s, n).to_string(),
        })
        .collect();
    files.sort_by(|x, y| (x.submission, &x.path).cmp(&(y.submission, &y.path)));
    Some(IdenticalFiles {
        fingerprint: format!("{fingerprint:016x}"),
        symbols,
        files,
    })
}

/// Shared files by size, largest first, then by their first file.
fn sort_shared(shared: &mut [IdenticalFiles]) {
    shared.sort_by(|x, y| {
        y.symbols.cmp(&x.symbols).then_with(|| {
            (x.files[0].submission, &x.files[0].path)
                .cmp(&(y.files[0].submission, &y.files[0].path))
        })
    });
}

/// Whether two canonically ordered file lists hold the same symbols.
fn same_files(a: &[Counted<'_>], b: &[Counted<'_>]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.symbols == y.symbols)
}

/// Splits items with equal fingerprints into classes of truly equal items
/// (more than one class only on a fingerprint collision), keeping order.
fn confirm<T: Copy>(items: &[T], equal: impl Fn(&T, &T) -> bool) -> Vec<Vec<T>> {
    let mut classes: Vec<Vec<T>> = Vec::new();
    for item in items {
        match classes.iter_mut().find(|c| equal(&c[0], item)) {
            Some(c) => c.push(*item),
            None => classes.push(vec![*item]),
        }
    }
    classes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{analyze, AnalyzeOptions};

    /// Yields its bytes in pieces of the given sizes, as a pipe or a
    /// network file system may.
    struct Pieces<'a> {
        bytes: &'a [u8],
        sizes: std::iter::Cycle<std::vec::IntoIter<usize>>,
    }

    impl Read for Pieces<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self
                .sizes
                .next()
                .unwrap()
                .min(buf.len())
                .min(self.bytes.len());
            buf[..n].copy_from_slice(&self.bytes[..n]);
            self.bytes = &self.bytes[n..];
            Ok(n)
        }
    }

    proptest::proptest! {
        #[test]
        fn streamed_raw_fingerprint_equals_the_whole(
            seed in proptest::prelude::any::<u64>(),
            len in 0usize..700_000,
            sizes in proptest::collection::vec(1usize..300_000, 1..6),
        ) {
            let mut x = seed;
            let bytes: Vec<u8> = (0..len)
                .map(|_| {
                    x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    (x >> 56) as u8
                })
                .collect();
            let f = FileFingerprinter::new();
            let sizes = sizes.into_iter().cycle();
            let streamed = f.raw_reader(Pieces { bytes: &bytes, sizes }).unwrap();
            proptest::prop_assert_eq!(streamed, f.raw(&bytes));
        }
    }

    #[test]
    fn streamed_raw_fingerprint_passes_read_errors_on() {
        struct Failing;
        impl Read for Failing {
            fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
                Err(io::Error::other("disk gone"))
            }
        }
        let err = FileFingerprinter::new().raw_reader(Failing).unwrap_err();
        assert_eq!(err.to_string(), "disk gone");
    }

    fn file(path: &str, text: &str) -> Analyzed {
        analyze(path, text.as_bytes(), &AnalyzeOptions::default()).unwrap()
    }

    fn fps(files: &[Analyzed]) -> Vec<FileFingerprint> {
        let f = FileFingerprinter::new();
        files
            .iter()
            .map(|a| f.fingerprint(a.text().as_bytes(), a))
            .collect()
    }

    fn run(subs: &[&[Analyzed]], old: &[bool], base: &[Analyzed]) -> Identical {
        let prints: Vec<Vec<FileFingerprint>> = subs.iter().map(|s| fps(s)).collect();
        let refs: Vec<&[FileFingerprint]> = prints.iter().map(Vec::as_slice).collect();
        detect(subs, &refs, old, base, &fps(base))
    }

    #[test]
    fn submissions_with_the_same_files_in_any_order_are_identical() {
        let a = vec![file("a/x.py", "x = 1\n"), file("a/y.py", "print(2)\n")];
        // Other order, other names, other layout and comments, an empty file.
        let b = vec![
            file("b/q.py", "print( 2 )  # two\n"),
            file("b/empty.py", ""),
            file("b/p.py", "z=1\n"),
        ];
        // Only one of the files, twice.
        let c = vec![file("c/x.py", "x = 1\n"), file("c/x2.py", "x = 1\n")];
        let subs: Vec<&[Analyzed]> = vec![&a, &b, &c];
        let found = run(&subs, &[false, false, false], &[]);
        assert_eq!(found.groups, vec![vec![0, 1]]);
        // x = 1 is in all three submissions, print(2) in two.
        assert_eq!(found.files.len(), 2);
        let xs: Vec<(usize, &str)> = found
            .files
            .iter()
            .find(|f| f.files.len() == 4)
            .unwrap()
            .files
            .iter()
            .map(|r| (r.submission, r.path.as_str()))
            .collect();
        assert_eq!(
            xs,
            [(0, "a/x.py"), (1, "b/p.py"), (2, "c/x.py"), (2, "c/x2.py")]
        );
    }

    #[test]
    fn base_files_and_old_only_groups_are_left_out() {
        let starter = vec![file("starter.py", "def main():\n    pass\n")];
        let a = vec![file("a/main.py", "def main():\n    pass\n")];
        let b = vec![file("b/main.py", "def main(): pass\n")];
        let c = vec![file("c/main.py", "print(1)\n")];
        let d = vec![file("d/main.py", "print(1)\n")];
        let subs: Vec<&[Analyzed]> = vec![&a, &b, &c, &d];
        let found = run(&subs, &[false, false, true, true], &starter);
        assert!(found.groups.is_empty(), "{:?}", found.groups);
        assert!(found.files.is_empty());
        let found = run(&subs, &[false, false, false, true], &starter);
        assert_eq!(found.groups, vec![vec![2, 3]]);
    }

    #[test]
    fn raw_and_normalized_fingerprints() {
        let f = FileFingerprinter::new();
        let rabin = bryo_engine::Rabin::new(bryo_engine::Polynomial::DEFAULT, 1);
        assert_eq!(f.raw(b"hello"), rabin.hash_bytes(b"hello"));
        assert_eq!(f.normalized(&[1, 2, 3]), rabin.hash_symbols(&[1, 2, 3]));
        assert_ne!(f.raw(b""), f.raw(b"\0"));
    }
}
