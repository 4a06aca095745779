//! The files of a corpus, the files left out of it, and the progress of a
//! pass over it: what every experiment ([`measure_density`],
//! [`rank_corpus`]) shares, so that front-ends list and report alike.
//!
//! [`measure_density`]: crate::measure_density
//! [`rank_corpus`]: crate::rank_corpus

use std::path::PathBuf;

use bryo_input::{list_files, Listing};

use crate::InputFormat;

/// A file that was not read, with the reason, as the reports list it: the
/// same type as `bryo compare`'s report.
pub use bryo_report::Skipped;

/// The files under `paths` that `format` reads ([`bryo_input::list_files`]
/// with [`InputFormat::extensions`]): the HTML front-end takes only HTML
/// files from directories, raw and text take every file.
pub fn list_corpus(paths: &[PathBuf], format: InputFormat) -> Listing {
    list_files(paths, &format.extensions())
}

/// The files skipped while listing, then those skipped while reading
/// (`read`: listing index and reason, as the experiments return them).
pub fn skipped_files(listing: &Listing, read: &[(usize, String)]) -> Vec<Skipped> {
    let listed = listing.skipped.iter().map(|s| Skipped {
        path: s.path.clone(),
        reason: s.reason.to_string(),
    });
    let read = read.iter().map(|(i, reason)| Skipped {
        path: listing.files[*i].display_path.clone(),
        reason: reason.clone(),
    });
    listed.chain(read).collect()
}

/// Progress of the passes of an experiment over a corpus, in bytes of the
/// listed files: a long run can then show a bar (the CLI) or report to a
/// client (a server) without the library knowing which. Methods are called
/// from the worker threads; each does nothing by default.
pub trait ReadProgress: Sync {
    /// A pass over `total_bytes` begins; `what` names it (`"density"`,
    /// `"count"`, `"samples"`).
    fn start(&self, what: &str, total_bytes: u64) {
        let _ = (what, total_bytes);
    }

    /// A file of `bytes` (its listed size) was read.
    fn advance(&self, bytes: u64) {
        let _ = bytes;
    }

    /// The pass ended.
    fn finish(&self) {}
}

/// No progress shown.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoProgress;

impl ReadProgress for NoProgress {}

/// Runs `pass` over `files` between [`ReadProgress::start`] and
/// [`ReadProgress::finish`], handing it the callback of
/// [`ReadProgress::advance`].
pub(crate) fn pass<T>(
    progress: &dyn ReadProgress,
    what: &str,
    listing: &Listing,
    pass: impl FnOnce(&(dyn Fn(u64) + Sync)) -> T,
) -> T {
    progress.start(what, listing.files.iter().map(|f| f.len).sum());
    let out = pass(&|n| progress.advance(n));
    progress.finish();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_lists_html_files_and_skips_are_listing_then_reading() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["a.html", "b.txt", "c.htm"] {
            std::fs::write(dir.path().join(name), "x").unwrap();
        }
        let paths = [dir.path().to_path_buf()];
        let html = list_corpus(&paths, InputFormat::Html);
        let names: Vec<&str> = html
            .files
            .iter()
            .map(|f| f.display_path.rsplit('/').next().unwrap())
            .collect();
        assert_eq!(names, ["a.html", "c.htm"]);
        assert_eq!(html.other_extension, 1);
        assert_eq!(list_corpus(&paths, InputFormat::Raw).files.len(), 3);

        let mut listing = list_corpus(&[dir.path().join("missing")], InputFormat::Raw);
        assert_eq!(listing.skipped.len(), 1);
        listing.files = html.files;
        let skipped = skipped_files(&listing, &[(1, "binary".to_string())]);
        assert_eq!(skipped.len(), 2);
        assert!(skipped[0].path.ends_with("missing"));
        assert!(skipped[1].path.ends_with("c.htm"));
        assert_eq!(skipped[1].reason, "binary");
    }

    #[test]
    fn a_pass_starts_advances_and_finishes() {
        use std::sync::Mutex;
        #[derive(Default)]
        struct Log(Mutex<Vec<String>>);
        impl ReadProgress for Log {
            fn start(&self, what: &str, total: u64) {
                self.0.lock().unwrap().push(format!("start {what} {total}"));
            }
            fn advance(&self, bytes: u64) {
                self.0.lock().unwrap().push(format!("advance {bytes}"));
            }
            fn finish(&self) {
                self.0.lock().unwrap().push("finish".into());
            }
        }
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a"), "abc").unwrap();
        std::fs::write(dir.path().join("b"), "de").unwrap();
        let listing = list_corpus(&[dir.path().to_path_buf()], InputFormat::Raw);
        let log = Log::default();
        let n = pass(&log, "count", &listing, |advance| {
            listing.files.iter().for_each(|f| advance(f.len));
            7
        });
        assert_eq!(n, 7);
        assert_eq!(
            *log.0.lock().unwrap(),
            ["start count 5", "advance 3", "advance 2", "finish"]
        );
        NoProgress.start("x", 1); // the defaults do nothing
    }
}
