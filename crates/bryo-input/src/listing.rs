use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use crate::discover::{display_root, file_key, join, relative, walk_error, walker, Key};
use crate::filter::{Extension, Filter};
use crate::{SkipReason, SkippedInput};

/// The files under some paths, named but not read: for jobs that stream
/// files too large or too many to hold in memory (`bryo density`, `bryo
/// rank`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Listing {
    /// The files, roots in the order given, each directory's files sorted.
    pub files: Vec<ListedFile>,
    /// Files left out, with the reason (extensions aside: see
    /// [`Listing::other_extension`]).
    pub skipped: Vec<SkippedInput>,
    /// Files found in a directory with an extension not in the list: only
    /// counted, as a web crawl holds many of them.
    pub other_extension: u64,
}

/// A file to read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListedFile {
    /// Display path, `/`-separated, as in [`crate::InputFile::display_path`].
    pub display_path: String,
    /// Where to read it.
    pub path: PathBuf,
    /// Its size when listed.
    pub len: u64,
}

/// Lists the files under `roots` without reading them, walking directories
/// exactly as [`crate::discover`] does (ignore rules, hidden files and
/// links left out, sorted) and taking each file once (a repeat is listed as
/// [`SkipReason::Duplicate`]). A file named in `roots` is always taken; a
/// file found in a directory is taken when it has one of `extensions`
/// (compared ignoring ASCII case; an empty list takes every file) or none
/// at all. Zip archives are files like any other here: they are not opened.
///
/// A root that does not exist or cannot be read is listed as skipped: a
/// measurement over many paths goes on without it.
pub fn list_files(roots: &[PathBuf], extensions: &[String]) -> Listing {
    let filter = Filter::for_extensions(extensions);
    let mut out = Listing::default();
    let mut claimed: HashMap<Key, String> = HashMap::new();
    let mut take =
        |out: &mut Listing, display: String, path: &Path, meta: &fs::Metadata| match claimed
            .get(&file_key(path, meta))
        {
            Some(first) => out.skipped.push(SkippedInput {
                path: display,
                reason: SkipReason::Duplicate {
                    first: first.clone(),
                },
            }),
            None => {
                claimed.insert(file_key(path, meta), display.clone());
                out.files.push(ListedFile {
                    display_path: display,
                    path: path.to_path_buf(),
                    len: meta.len(),
                });
            }
        };
    for root in roots {
        let display = display_root(root);
        let meta = match fs::metadata(root) {
            Ok(meta) => meta,
            Err(err) => {
                out.skipped.push(SkippedInput {
                    path: display,
                    reason: SkipReason::Unreadable {
                        message: err.to_string(),
                    },
                });
                continue;
            }
        };
        if meta.is_file() {
            take(&mut out, display, root, &meta);
            continue;
        }
        if !meta.is_dir() {
            out.skipped.push(SkippedInput {
                path: display,
                reason: SkipReason::NotAFile,
            });
            continue;
        }
        for item in walker(root) {
            let entry = match item {
                Ok(entry) => entry,
                Err(err) => {
                    out.skipped.push(walk_error(root, &display, &err));
                    continue;
                }
            };
            let file_type = entry.file_type();
            if entry.depth() == 0 || file_type.is_some_and(|t| t.is_dir()) {
                continue;
            }
            let Ok(rel) = entry.path().strip_prefix(root) else {
                continue;
            };
            let rel = relative(rel);
            if let Extension::Other(_) = filter.extension(&rel) {
                out.other_extension += 1;
                continue;
            }
            let shown = join(&display, &rel);
            let reason = if file_type.is_some_and(|t| t.is_symlink()) {
                SkipReason::Symlink
            } else if !file_type.is_some_and(|t| t.is_file()) {
                SkipReason::NotAFile
            } else {
                match entry.metadata() {
                    Ok(meta) => {
                        take(&mut out, shown, entry.path(), &meta);
                        continue;
                    }
                    Err(err) => SkipReason::Unreadable {
                        message: err.to_string(),
                    },
                }
            };
            out.skipped.push(SkippedInput {
                path: shown,
                reason,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_without_reading_and_counts_other_extensions() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir_all(root.join("site/sub")).unwrap();
        fs::write(root.join("site/b.html"), "<p>b</p>").unwrap();
        fs::write(root.join("site/a.HTM"), "<p>a</p>").unwrap();
        fs::write(root.join("site/style.css"), "p{}").unwrap();
        fs::write(root.join("site/sub/page"), "<p>c</p>").unwrap();
        fs::write(root.join("site/.hidden.html"), "x").unwrap();
        fs::write(root.join("named.txt"), "abc").unwrap();
        let roots = vec![root.join("site"), root.join("named.txt"), root.join("site")];
        let html = ["html".to_string(), "htm".to_string()];
        let l = list_files(&roots, &html);
        let names: Vec<_> = l
            .files
            .iter()
            .map(|f| f.display_path.rsplit('/').next().unwrap().to_string())
            .collect();
        assert_eq!(names, ["a.HTM", "b.html", "page", "named.txt"]);
        assert_eq!(l.files[0].len, 8);
        assert_eq!(l.other_extension, 2, "style.css, twice");
        // The second walk of `site` takes nothing again.
        assert_eq!(l.skipped.len(), 3);
        assert!(l
            .skipped
            .iter()
            .all(|s| matches!(s.reason, SkipReason::Duplicate { .. })));
        let missing = list_files(&[root.join("missing")], &[]);
        assert!(matches!(
            missing.skipped[0].reason,
            SkipReason::Unreadable { .. }
        ));
    }
}
