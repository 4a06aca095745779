//! Rabin fingerprints of whole files, of their raw bytes and of their
//! normalized symbols, and the groups of files that share one (`bryo
//! fingerprint`): which files of a set are copies before any winnowing.
//! A fingerprint recorded once tells whether a file was already seen, so
//! this is a library call a server can make too.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, Read};
use std::path::PathBuf;

use bryo_compare::{analyze, AnalyzeOptions, FileFingerprinter};
use bryo_engine::Polynomial;
use rayon::prelude::*;
use serde::Serialize;

use crate::Error;

/// The fingerprints of a set of files and the groups of identical ones.
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
pub struct FileFingerprints {
    /// The modulus, `t^64 + low bits`.
    pub polynomial: String,
    /// One entry per file, in the order given.
    pub files: Vec<FilePrint>,
    /// Groups of files with the same raw fingerprint (two or more files),
    /// in order of first appearance.
    pub identical_bytes: Vec<Vec<String>>,
    /// Groups of files with the same normalized fingerprint.
    pub identical_normalized: Vec<Vec<String>>,
}

/// The fingerprints of one file.
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
pub struct FilePrint {
    /// The path as given.
    pub path: String,
    /// Its size.
    pub bytes: u64,
    /// The fingerprint of its bytes, 16 hex digits.
    pub raw: String,
    /// The language of its front-end.
    pub language: Option<&'static str>,
    /// The front-end that normalized it.
    pub frontend: Option<&'static str>,
    /// Its symbols.
    pub symbols: Option<u64>,
    /// The fingerprint of its symbols, 16 hex digits.
    pub normalized: Option<String>,
    /// Why the file has no normalized fingerprint (e.g. binary).
    pub skipped: Option<String>,
}

fn hex(x: u64) -> String {
    format!("{x:016x}")
}

/// Fingerprints `files` in parallel on the current rayon pool: the bytes
/// with bryo's default degree-64 polynomial (Broder 1993), the symbols the
/// front-end chosen by `options` leaves (so the normalized fingerprint
/// ignores layout, comments, names … as `options` says).
///
/// # Errors
///
/// [`Error::ReadFile`] when a file cannot be read (a file the front-end
/// refuses only has no normalized fingerprint).
pub fn fingerprint_files(
    files: &[PathBuf],
    options: &AnalyzeOptions,
) -> Result<FileFingerprints, Error> {
    let fingerprinter = FileFingerprinter::new();
    let files: Vec<FilePrint> = files
        .par_iter()
        .map(|file| {
            let path = file.display().to_string();
            let bytes = std::fs::read(file).map_err(|source| Error::ReadFile {
                path: path.clone(),
                source,
            })?;
            let mut print = FilePrint {
                bytes: bytes.len() as u64,
                raw: hex(fingerprinter.raw(&bytes)),
                language: None,
                frontend: None,
                symbols: None,
                normalized: None,
                skipped: None,
                path,
            };
            match analyze(&print.path, &bytes, options) {
                Ok(analyzed) => {
                    print.language = Some(analyzed.language.name());
                    print.frontend = Some(analyzed.frontend.as_str());
                    print.symbols = Some(analyzed.normalized.len() as u64);
                    let symbols = &analyzed.normalized.symbols;
                    print.normalized = Some(hex(fingerprinter.normalized(symbols)));
                }
                Err(reason) => print.skipped = Some(reason.to_string()),
            }
            Ok(print)
        })
        .collect::<Result<_, Error>>()?;
    let identical_bytes = groups(files.iter().map(|f| (Some(f.raw.as_str()), &f.path)));
    let identical_normalized = groups(files.iter().map(|f| (f.normalized.as_deref(), &f.path)));
    Ok(FileFingerprints {
        polynomial: format!("t^64 + {:#018x}", Polynomial::DEFAULT.low_bits()),
        files,
        identical_bytes,
        identical_normalized,
    })
}

/// The raw fingerprints alone (`bryo fingerprint --raw`): each file is
/// streamed through the fingerprint in blocks, never held whole in memory
/// and never given to a front-end, so this runs at the speed of reading
/// (a file of any size, as `cksum` does). Files in parallel on the current
/// rayon pool; the normalized fields stay empty.
///
/// # Errors
///
/// [`Error::ReadFile`] when a file cannot be opened or read.
pub fn raw_fingerprint_files(files: &[PathBuf]) -> Result<FileFingerprints, Error> {
    let fingerprinter = FileFingerprinter::new();
    let files: Vec<FilePrint> = files
        .par_iter()
        .map(|file| {
            let path = file.display().to_string();
            let read_error = |source| Error::ReadFile {
                path: path.clone(),
                source,
            };
            let mut reader = CountingReader {
                inner: File::open(file).map_err(read_error)?,
                bytes: 0,
            };
            let raw = fingerprinter.raw_reader(&mut reader).map_err(read_error)?;
            Ok(FilePrint {
                bytes: reader.bytes,
                raw: hex(raw),
                language: None,
                frontend: None,
                symbols: None,
                normalized: None,
                skipped: None,
                path,
            })
        })
        .collect::<Result<_, Error>>()?;
    let identical_bytes = groups(files.iter().map(|f| (Some(f.raw.as_str()), &f.path)));
    Ok(FileFingerprints {
        polynomial: format!("t^64 + {:#018x}", Polynomial::DEFAULT.low_bits()),
        files,
        identical_bytes,
        identical_normalized: Vec::new(),
    })
}

/// Counts the bytes read through it.
struct CountingReader<R> {
    inner: R,
    bytes: u64,
}

impl<R: Read> Read for CountingReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.bytes += n as u64;
        Ok(n)
    }
}

/// Paths grouped by a key (paths without one left out), groups of two or
/// more, in order of first appearance.
fn groups<'a>(keys: impl Iterator<Item = (Option<&'a str>, &'a String)>) -> Vec<Vec<String>> {
    let mut by_key: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    let mut order: Vec<&str> = Vec::new();
    for (key, path) in keys {
        let Some(key) = key else { continue };
        let entry = by_key.entry(key).or_default();
        if entry.is_empty() {
            order.push(key);
        }
        entry.push(path.clone());
    }
    order
        .into_iter()
        .filter_map(|k| by_key.remove(k))
        .filter(|g| g.len() >= 2)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_keep_the_order_of_first_appearance() {
        let paths: Vec<String> = ["a", "b", "c", "d", "e", "f"].map(String::from).into();
        let keys = [Some("y"), Some("x"), None, Some("y"), Some("z"), Some("x")];
        let g = groups(keys.into_iter().zip(&paths));
        assert_eq!(g, [vec!["a", "d"], vec!["b", "f"]]);
    }

    #[test]
    fn copies_share_fingerprints_and_unreadable_files_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, text: &[u8]| {
            let path = dir.path().join(name);
            std::fs::write(&path, text).unwrap();
            path
        };
        let a = write("a.py", b"def f(x):\n    return x + 1\n");
        let b = write("b.py", b"# a copy\ndef g(y):\n\treturn y + 1\n");
        let c = write("c.py", b"def f(x):\n    return x + 1\n");
        let d = write("d.py", b"\x00\x01binary");
        let options = AnalyzeOptions::default();
        let out = fingerprint_files(&[a.clone(), b, c, d], &options).unwrap();
        let names = |g: &[String]| -> Vec<String> {
            g.iter()
                .map(|p| p.rsplit('/').next().unwrap().to_string())
                .collect()
        };
        assert_eq!(out.identical_bytes.len(), 1);
        assert_eq!(names(&out.identical_bytes[0]), ["a.py", "c.py"]);
        assert_eq!(out.identical_normalized.len(), 1);
        assert_eq!(
            names(&out.identical_normalized[0]),
            ["a.py", "b.py", "c.py"]
        );
        let a_print = &out.files[0];
        assert_eq!(a_print.bytes, 27);
        assert_eq!(a_print.language, Some("python"));
        assert_eq!(
            a_print.raw,
            hex(FileFingerprinter::new().raw(&std::fs::read(&a).unwrap()))
        );
        let binary = &out.files[3];
        assert_eq!((binary.normalized.as_ref(), binary.symbols), (None, None));
        assert!(binary.skipped.as_deref().unwrap().contains("binary"));
        assert!(out.polynomial.starts_with("t^64 + 0x"));

        let err = fingerprint_files(&[dir.path().join("missing.py")], &options).unwrap_err();
        assert!(matches!(err, Error::ReadFile { .. }), "{err}");

        // The streamed raw fingerprints are the same, without front-end.
        let paths: Vec<PathBuf> = ["a.py", "b.py", "c.py", "d.py"]
            .iter()
            .map(|n| dir.path().join(n))
            .collect();
        let raw = raw_fingerprint_files(&paths).unwrap();
        let whole = fingerprint_files(&paths, &options).unwrap();
        for (r, w) in raw.files.iter().zip(&whole.files) {
            assert_eq!((&r.path, r.bytes, &r.raw), (&w.path, w.bytes, &w.raw));
            assert_eq!((r.language, r.symbols, &r.normalized), (None, None, &None));
        }
        assert_eq!(raw.identical_bytes, whole.identical_bytes);
        assert!(raw.identical_normalized.is_empty());
        let err = raw_fingerprint_files(&[dir.path().join("missing.py")]).unwrap_err();
        assert!(matches!(err, Error::ReadFile { .. }), "{err}");
    }
}
