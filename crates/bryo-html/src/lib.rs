//! # bryo-html: the HTML report of a comparison
//!
//! Renders a [`bryo_report::Report`] and the submitted files' text as a
//! static directory that opens from disk in any browser — no server, no
//! network, nothing fetched from elsewhere:
//!
//! - `index.html`: the run summary (submissions, files, languages, options,
//!   skipped files and fallbacks), a histogram of similarity, the pairs
//!   table (sortable by every column, filtered by name and similarity
//!   range) and the clusters as a list and as graphs;
//! - `pair-N.html` for the pair of rank `N`: both submissions side by side
//!   with line numbers and light syntax highlighting (bryo's own lexers),
//!   every fragment in its own colour on both sides, a MOSS-like fragment
//!   table, base code greyed; clicking a fragment brings its partner into
//!   view, keys `n`/`p` (or `j`/`k`) step through the fragments;
//! - `files/sI-J.js`: the highlighted text of file `J` of submission `I`,
//!   written once however many pairs show it (a pair page names the
//!   fragments' ranges in it, and `bryo.js` lays them over the text);
//! - `bryo.css` and `bryo.js`, shared by all pages.
//!
//! All HTML is generated here, every piece of submitted text and every name
//! escaped; the pages carry a Content-Security-Policy that allows scripts
//! and styles only from the files beside them, so nothing a submission
//! holds can run, and no page has an inline script or event handler. A
//! pair page loads only its two submissions' text. The output is
//! deterministic: the same report and files give the same bytes.
//!
//! Source texts come from a [`SourceLoader`] (any
//! `Fn(&str) -> Result<Vec<u8>, String>` or returning a [`LoadError`], or
//! [`DiskLoader`]); they are
//! decoded as `bryo compare` decoded them, so the byte ranges of the report
//! (offsets in the file as stored) land on the same characters. A file the
//! loader cannot give is shown as a note in its page.
//!
//! ```
//! use bryo_html::{render_html, escape_html};
//! use bryo_report::{FileEntry, FileStatus, Fragment, Frontend, Location, Options, Pair, Report, Submission};
//!
//! let options = Options {
//!     language: None, k: 3, w: 2, max_submissions: Some(10), max_pairs: 250, min_similarity: 0.0,
//!     min_fragment_symbols: 3, merge_gap: 0, merge_ratio: None, cluster_threshold: 0.5, directory_mode: false,
//!     base: vec![], old: vec![], comment: None,
//!     score: Default::default(), scheme: None,
//! };
//! let mut report = Report::new("0.1.0", options);
//! for name in ["a.py", "b.py"] {
//!     report.submissions.push(Submission {
//!         name: name.into(),
//!         old: false,
//!         files: vec![FileEntry {
//!             path: name.into(), language: "python".into(), frontend: Frontend::Lexer,
//!             symbols: 4, lines: 1, status: FileStatus::Ok, encoding: "UTF-8".into(),
//!             notes: vec![], base_code: vec![], raw_fingerprint: None,
//!             normalized_fingerprint: None,
//!         }],
//!     });
//! }
//! let side = |file: &str| Location { file: file.into(), lines: [1, 1], bytes: [0, 9] };
//! report.pairs.push(Pair {
//!     a: 0, b: 1, similarity: 1.0, a_percent: 100.0, b_percent: 100.0,
//!     a_lines_matched: 1, b_lines_matched: 1, lines_matched: 1, longest_fragment: 4,
//!     shared_fingerprints: 2, identical: true,
//!     fragments: vec![Fragment { a: side("a.py"), b: side("b.py"), symbols: 4, parts: vec![] }],
//! });
//!
//! let loader = |path: &str| -> Result<Vec<u8>, String> {
//!     match path {
//!         "a.py" | "b.py" => Ok(b"x = f(1)\n".to_vec()),
//!         _ => Err("no such file".into()),
//!     }
//! };
//! let files = render_html(&report, &loader);
//! let names: Vec<&str> = files.iter().map(|f| f.name.as_str()).collect();
//! assert_eq!(
//!     names,
//!     ["index.html", "bryo.css", "bryo.js", "pair-1.html", "files/s0-0.js", "files/s1-0.js"]
//! );
//! // The pair page names the fragment's range in each file's text…
//! let pair = std::str::from_utf8(&files[3].contents).unwrap();
//! assert!(pair.contains("<pre class=\"code\" data-src=\"s0-0\" data-marks=\"0,9,0\""));
//! // …and loads the files' highlighted text, written once per file.
//! let text = std::str::from_utf8(&files[4].contents).unwrap();
//! assert!(text.contains("\"x = f(<u>1</u>)\\n\""));
//! assert_eq!(escape_html("<b>"), "&lt;b&gt;");
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod checked;
mod error;
mod escape;
mod overview;
mod page;
mod pair;
mod source;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use bryo_report::Report;
use rayon::prelude::*;

pub use checked::CheckedLoader;
pub use error::{HtmlError, LoadError};
pub use escape::escape_html;
pub use source::{DiskLoader, SourceLoader};

/// The style sheet shared by every page, written as `bryo.css`.
pub const CSS: &str = include_str!("../assets/bryo.css");
/// The script shared by every page, written as `bryo.js`.
pub const JS: &str = include_str!("../assets/bryo.js");

/// One file of the report directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HtmlFile {
    /// Its name inside the directory, e.g. `index.html`, `pair-12.html`.
    pub name: String,
    /// Its bytes.
    pub contents: Vec<u8>,
}

/// The file name of the page of the pair at `rank` (1-based):
/// `pair-{rank}.html`.
pub fn pair_page_name(rank: usize) -> String {
    format!("pair-{rank}.html")
}

/// A submitted file as the pair pages need it.
pub(crate) struct LoadedFile {
    /// The decoded text, or why it is not available.
    source: Result<source::Source, String>,
    /// The script holding its highlighted text, e.g. `files/s3-0.js`.
    script: String,
}

/// Files shown by some pair page, by (submission, file) index.
pub(crate) type Sources = BTreeMap<(usize, usize), LoadedFile>;

/// Renders the whole report in memory: `index.html`, `bryo.css`, `bryo.js`,
/// one page per pair in rank order (`pair-N.html`), then one script per
/// shown submitted file (`files/sI-J.js`, file `J` of submission `I`),
/// which every page showing that file loads — each text is written once
/// however many pairs show it. Work runs in parallel; the result does not
/// depend on the number of threads.
pub fn render_html(report: &Report, loader: &dyn SourceLoader) -> Vec<HtmlFile> {
    let mut wanted = BTreeSet::new();
    for pair in &report.pairs {
        for side in [pair::Side::A, pair::Side::B] {
            let index = match side {
                pair::Side::A => pair.a,
                pair::Side::B => pair.b,
            };
            for j in pair::shown_files(report, pair, side) {
                wanted.insert((index, j));
            }
        }
    }
    let wanted: Vec<(usize, usize)> = wanted.into_iter().collect();
    let loaded: Vec<((usize, usize), LoadedFile, Option<String>)> = wanted
        .par_iter()
        .map(|&(i, j)| {
            let script = format!("files/s{i}-{j}.js");
            let entry = &report.submissions[i].files[j];
            let source = loader
                .load(&entry.path)
                .map_err(|e| e.to_string())
                .and_then(|bytes| source::Source::decode(&bytes));
            let contents = source.as_ref().ok().map(|s| {
                let tokens = source::highlight(&entry.language, s.text());
                let html = source::render_code(s.text(), &tokens);
                source_script(pair::script_id(&script), &html)
            });
            ((i, j), LoadedFile { source, script }, contents)
        })
        .collect();
    let mut sources = Sources::new();
    let mut scripts = Vec::new();
    for (key, file, contents) in loaded {
        if let Some(contents) = contents {
            scripts.push(HtmlFile {
                name: file.script.clone(),
                contents: contents.into_bytes(),
            });
        }
        sources.insert(key, file);
    }

    let mut files = vec![
        HtmlFile {
            name: "index.html".into(),
            contents: overview::render_overview(report).into_bytes(),
        },
        HtmlFile {
            name: "bryo.css".into(),
            contents: CSS.as_bytes().to_vec(),
        },
        HtmlFile {
            name: "bryo.js".into(),
            contents: JS.as_bytes().to_vec(),
        },
    ];
    let pages: Vec<HtmlFile> = (1..=report.pairs.len())
        .into_par_iter()
        .map(|rank| HtmlFile {
            name: pair_page_name(rank),
            contents: pair::render_pair(report, rank, &sources).into_bytes(),
        })
        .collect();
    files.extend(pages);
    files.extend(scripts);
    files
}

/// The script registering a file's highlighted HTML under `id`. The HTML
/// is a JSON string literal: quotes, backslashes, line ends and `</script>`
/// cannot end it.
fn source_script(id: &str, html: &str) -> String {
    let literal = serde_json::to_string(html).unwrap_or_else(|_| "\"\"".to_string());
    let mut out = String::with_capacity(literal.len() + 80);
    out.push_str("// Generated by bryo: the highlighted text of one submitted file.\n");
    out.push_str("(window.bryoSources = window.bryoSources || {})[\"");
    out.push_str(id);
    out.push_str("\"] =\n");
    out.push_str(&literal);
    out.push_str(";\n");
    out
}

/// Renders the report into directory `dir` (created if needed). The files
/// an earlier report wrote there — `index.html`, `bryo.css`, `bryo.js`,
/// `pair-N.html` and `files/sI-J.js`, by those names only — are removed
/// first, so a smaller report leaves no stale page behind; anything else
/// in the directory is left alone.
pub fn write_html(report: &Report, loader: &dyn SourceLoader, dir: &Path) -> Result<(), HtmlError> {
    std::fs::create_dir_all(dir).map_err(|source| HtmlError::CreateDir {
        path: dir.to_path_buf(),
        source,
    })?;
    remove_earlier_report(dir)?;
    let files = render_html(report, loader);
    if files.iter().any(|f| f.name.starts_with("files/")) {
        let sub = dir.join("files");
        std::fs::create_dir_all(&sub)
            .map_err(|source| HtmlError::CreateDir { path: sub, source })?;
    }
    for file in files {
        let path = dir.join(&file.name);
        std::fs::write(&path, &file.contents)
            .map_err(|source| HtmlError::Write { path, source })?;
    }
    Ok(())
}

/// Whether `name` is `prefix` + digits + `middle` + digits + `suffix`
/// (`middle` empty: one run of digits).
fn numbered(name: &str, prefix: &str, middle: &str, suffix: &str) -> bool {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let Some(rest) = name
        .strip_prefix(prefix)
        .and_then(|r| r.strip_suffix(suffix))
    else {
        return false;
    };
    if middle.is_empty() {
        digits(rest)
    } else {
        rest.split_once(middle)
            .is_some_and(|(x, y)| digits(x) && digits(y))
    }
}

/// Removes the files bryo writes into a report directory, and nothing else:
/// `index.html`, `bryo.css`, `bryo.js`, `pair-N.html`, and `files/sI-J.js`
/// (the `files` directory itself stays). Only regular files are removed.
fn remove_earlier_report(dir: &Path) -> Result<(), HtmlError> {
    let remove_in = |dir: &Path, ours: &dyn Fn(&str) -> bool| -> Result<(), HtmlError> {
        let entries = match std::fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(source) => {
                return Err(HtmlError::Remove {
                    path: dir.to_path_buf(),
                    source,
                })
            }
        };
        for entry in entries {
            let entry = entry.map_err(|source| HtmlError::Remove {
                path: dir.to_path_buf(),
                source,
            })?;
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            if !ours(name) || !entry.file_type().is_ok_and(|t| t.is_file()) {
                continue;
            }
            let path = entry.path();
            match std::fs::remove_file(&path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(source) => return Err(HtmlError::Remove { path, source }),
            }
        }
        Ok(())
    };
    remove_in(dir, &|name| {
        matches!(name, "index.html" | "bryo.css" | "bryo.js")
            || numbered(name, "pair-", "", ".html")
    })?;
    let files = dir.join("files");
    if files.is_dir() {
        remove_in(&files, &|name| numbered(name, "s", "-", ".js"))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::numbered;

    #[test]
    fn only_bryo_names_are_numbered() {
        assert!(numbered("pair-12.html", "pair-", "", ".html"));
        assert!(!numbered("pair-.html", "pair-", "", ".html"));
        assert!(!numbered("pair-1a.html", "pair-", "", ".html"));
        assert!(!numbered("pair-1.html.bak", "pair-", "", ".html"));
        assert!(numbered("s3-0.js", "s", "-", ".js"));
        assert!(!numbered("s3.js", "s", "-", ".js"));
        assert!(!numbered("s3-x.js", "s", "-", ".js"));
        assert!(!numbered("notes.js", "s", "-", ".js"));
    }
}
