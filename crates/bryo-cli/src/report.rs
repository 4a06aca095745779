//! `bryo report`: render a saved JSON result as the HTML report.
//!
//! A result file may come from elsewhere, so the paths it names are not
//! trusted: a file whose entry carries `raw_fingerprint` is shown only if
//! the bytes on disk still have that Rabin fingerprint; a file without one
//! (a result from an older bryo) is read only by a relative path without
//! `..`. Any other file is left out of the report with a note on its page.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};

use anyhow::{Context, Result};
use bryo_compare::FileFingerprinter;
use bryo_html::{write_html, DiskLoader, SourceLoader};
use bryo_report::Report;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// A result written by `bryo compare --format json`.
    #[arg(value_name = "RESULT.json")]
    result: PathBuf,

    /// Directory to write the report into (created if needed).
    #[arg(short = 'o', long = "output", value_name = "DIR")]
    output: PathBuf,

    /// Directory the file paths of the result are relative to: where
    /// `bryo compare` ran.
    #[arg(long = "root", value_name = "DIR", default_value = ".")]
    root: PathBuf,
}

pub fn run(args: &Args) -> Result<()> {
    let text = std::fs::read_to_string(&args.result)
        .with_context(|| format!("cannot read {}", args.result.display()))?;
    let report = Report::from_json(&text)
        .with_context(|| format!("{} is not a bryo compare result", args.result.display()))?;
    let loader = CheckedLoader::new(&report, DiskLoader::new(&args.root));
    write_html(&report, &loader, &args.output)?;
    Ok(())
}

/// Reads the files a result names, only when they are what the result
/// says they are (see the module docs).
struct CheckedLoader {
    disk: DiskLoader,
    /// The recorded `raw_fingerprint` of each file path (the first entry
    /// naming it), lower-case hex; `None` when the entry has none.
    expected: HashMap<String, Option<String>>,
    fingerprinter: FileFingerprinter,
}

impl CheckedLoader {
    fn new(report: &Report, disk: DiskLoader) -> CheckedLoader {
        let mut expected = HashMap::new();
        for f in report.submissions.iter().flat_map(|s| &s.files) {
            expected
                .entry(f.path.clone())
                .or_insert_with(|| f.raw_fingerprint.as_ref().map(|h| h.to_ascii_lowercase()));
        }
        CheckedLoader {
            disk,
            expected,
            fingerprinter: FileFingerprinter::new(),
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

impl SourceLoader for CheckedLoader {
    fn load(&self, path: &str) -> Result<Vec<u8>, String> {
        match self.expected.get(path) {
            None => Err("the result lists no such file".into()),
            Some(Some(fingerprint)) => {
                let bytes = self.disk.load(path)?;
                let actual = format!("{:016x}", self.fingerprinter.raw(&bytes));
                if actual == *fingerprint {
                    Ok(bytes)
                } else {
                    Err(format!(
                        "the file changed since the run: its bytes have Rabin fingerprint {actual}, \
                         the result recorded {fingerprint}, so its text is not shown"
                    ))
                }
            }
            Some(None) if escapes_root(path) => Err(
                "the result records no fingerprint for this file and names it by an absolute path \
                 or one with `..`, so it is not read (a result from an older bryo: run `bryo compare` again)"
                    .into(),
            ),
            Some(None) => self.disk.load(path),
        }
    }
}
