//! The loader for a result that may come from elsewhere.

use std::collections::HashMap;
use std::path::{Component, Path};

use bryo_engine::Modulus;
use bryo_report::Report;

use crate::error::LoadError;
use crate::source::{DiskLoader, SourceLoader};

/// Reads the files a saved result names, only when they are what the result
/// says they are. The invariant: a report rendered from a saved result
/// never embeds a file the result does not vouch for.
///
/// A result may come from elsewhere, so the paths it names are not trusted:
/// a file whose entry carries `raw_fingerprint` is handed over only if the
/// bytes on disk still have that Rabin fingerprint (the default degree-64
/// polynomial, as `bryo compare` records it); a file without one (a result
/// from an older bryo) is read only by a relative path without `..`; a path
/// the result does not list is never read. A refused file is a note in its
/// page.
#[derive(Clone, Debug)]
pub struct CheckedLoader<L = DiskLoader> {
    inner: L,
    /// The recorded `raw_fingerprint` of each file path (the first entry
    /// naming it), lower-case hex; `None` when the entry has none.
    expected: HashMap<String, Option<String>>,
    modulus: Modulus,
}

impl<L: SourceLoader> CheckedLoader<L> {
    /// A loader of the files `report` lists, read through `inner` (usually
    /// a [`DiskLoader`] at the directory the result was made in).
    pub fn new(report: &Report, inner: L) -> CheckedLoader<L> {
        let mut expected = HashMap::new();
        for f in report.submissions.iter().flat_map(|s| &s.files) {
            expected
                .entry(f.path.clone())
                .or_insert_with(|| f.raw_fingerprint.as_ref().map(|h| h.to_ascii_lowercase()));
        }
        CheckedLoader {
            inner,
            expected,
            modulus: Modulus::default_64(),
        }
    }
}

/// Whether a path leaves the root: absolute, or with a `..` component.
fn escapes_root(path: &str) -> bool {
    Path::new(path).components().any(|c| {
        matches!(
            c,
            Component::ParentDir | Component::RootDir | Component::Prefix(_)
        )
    })
}

impl<L: SourceLoader> SourceLoader for CheckedLoader<L> {
    fn load(&self, path: &str) -> Result<Vec<u8>, LoadError> {
        match self.expected.get(path) {
            None => Err(LoadError::NotListed),
            Some(Some(fingerprint)) => {
                let bytes = self.inner.load(path)?;
                // Degree 64: every residue fits in 64 bits.
                let actual = format!("{:016x}", self.modulus.hash_bytes(&bytes) as u64);
                if actual == *fingerprint {
                    Ok(bytes)
                } else {
                    Err(LoadError::Changed {
                        actual,
                        recorded: fingerprint.clone(),
                    })
                }
            }
            Some(None) if escapes_root(path) => Err(LoadError::OutsideRoot),
            Some(None) => self.inner.load(path),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bryo_report::{FileEntry, FileStatus, Frontend, Options, Submission};

    fn file(path: &str, fingerprint: Option<&str>) -> FileEntry {
        FileEntry {
            path: path.into(),
            language: "python".into(),
            frontend: Frontend::Lexer,
            symbols: 4,
            lines: 1,
            status: FileStatus::Ok,
            encoding: "UTF-8".into(),
            notes: vec![],
            base_code: vec![],
            raw_fingerprint: fingerprint.map(str::to_string),
            normalized_fingerprint: None,
        }
    }

    fn report(files: Vec<FileEntry>) -> Report {
        let options = Options {
            language: None,
            k: 3,
            w: 2,
            max_submissions: Some(10),
            max_pairs: 250,
            min_similarity: 0.0,
            min_fragment_symbols: 3,
            merge_gap: 0,
            merge_ratio: None,
            cluster_threshold: 0.5,
            directory_mode: false,
            base: vec![],
            old: vec![],
            comment: None,
            score: Default::default(),
            scheme: None,
        };
        let mut r = Report::new("0.1.0", options);
        r.submissions.push(Submission {
            name: "s".into(),
            old: false,
            files,
        });
        r
    }

    /// A loader that serves every path with the same bytes.
    fn serving(bytes: &'static [u8]) -> impl SourceLoader {
        move |_: &str| -> Result<Vec<u8>, String> { Ok(bytes.to_vec()) }
    }

    #[test]
    fn only_files_the_result_vouches_for_are_read() {
        let good = format!(
            "{:016X}",
            Modulus::default_64().hash_bytes(b"print(1)\n") as u64
        );
        let r = report(vec![
            file("a.py", Some(&good)),
            file("old.py", None),
            file("../up.py", None),
            file("/abs.py", None),
        ]);
        let loader = CheckedLoader::new(&r, serving(b"print(1)\n"));
        assert_eq!(loader.load("a.py").unwrap(), b"print(1)\n");
        assert!(loader.load("old.py").is_ok());
        assert!(loader
            .load("../up.py")
            .unwrap_err()
            .to_string()
            .contains("`..`"));
        assert!(loader
            .load("/abs.py")
            .unwrap_err()
            .to_string()
            .contains("absolute"));
        assert!(loader
            .load("b.py")
            .unwrap_err()
            .to_string()
            .contains("no such file"));
        let changed = CheckedLoader::new(&r, serving(b"print(2)\n"));
        assert!(changed
            .load("a.py")
            .unwrap_err()
            .to_string()
            .contains("changed since the run"));
    }

    #[test]
    fn refusals_are_typed_and_keep_their_messages() {
        let good = Modulus::default_64().hash_bytes(b"print(1)\n") as u64;
        let r = report(vec![
            file("a.py", Some(&format!("{good:016X}"))),
            file("../up.py", None),
        ]);
        let changed = CheckedLoader::new(&r, serving(b"print(2)\n"));
        let actual = format!(
            "{:016x}",
            Modulus::default_64().hash_bytes(b"print(2)\n") as u64
        );
        let err = changed.load("a.py").unwrap_err();
        match &err {
            LoadError::Changed {
                actual: a,
                recorded,
            } => {
                assert_eq!(a, &actual);
                assert_eq!(recorded, &format!("{good:016x}"));
            }
            other => panic!("expected Changed, got {other:?}"),
        }
        assert_eq!(
            err.to_string(),
            format!(
                "the file changed since the run: its bytes have Rabin fingerprint {actual}, \
                 the result recorded {good:016x}, so its text is not shown"
            )
        );
        let err = changed.load("../up.py").unwrap_err();
        assert!(matches!(err, LoadError::OutsideRoot), "{err:?}");
        assert_eq!(
            err.to_string(),
            "the result records no fingerprint for this file and names it by an absolute path \
             or one with `..`, so it is not read (a result from an older bryo: run `bryo compare` again)"
        );
        let err = changed.load("b.py").unwrap_err();
        assert!(matches!(err, LoadError::NotListed), "{err:?}");
        assert_eq!(err.to_string(), "the result lists no such file");
    }

    #[test]
    fn the_disk_loader_reports_missing_files_and_zip_members() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("subs.zip"), b"PK").unwrap();
        let disk = DiskLoader::new(dir.path());
        let err = disk.load("missing.py").unwrap_err();
        match &err {
            LoadError::Io { path, source } => {
                assert_eq!(path, &dir.path().join("missing.py"));
                assert_eq!(source.kind(), std::io::ErrorKind::NotFound);
                assert_eq!(
                    err.to_string(),
                    format!("cannot read {}: {source}", path.display())
                );
            }
            other => panic!("expected Io, got {other:?}"),
        }
        let err = disk.load("subs.zip/a/x.py").unwrap_err();
        assert!(matches!(err, LoadError::InsideZip), "{err:?}");
        assert_eq!(
            err.to_string(),
            "the file is inside a zip archive; render the report with `bryo compare --format html` to show it"
        );
    }

    #[test]
    fn a_closure_reason_is_passed_through() {
        let loader = |_: &str| -> Result<Vec<u8>, String> { Err("gone".into()) };
        let err = loader.load("a.py").unwrap_err();
        assert!(
            matches!(&err, LoadError::Other(r) if r == "gone"),
            "{err:?}"
        );
        assert_eq!(err.to_string(), "gone");
    }
}
