//! `bryo fingerprint`: Rabin fingerprints of files, raw and normalized, and
//! which files share them.

use std::collections::BTreeMap;
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

use anyhow::{Context, Result};
use bryo_compare::{analyze, FileFingerprinter};
use bryo_engine::Polynomial;
use rayon::prelude::*;
use serde::Serialize;

use crate::args::{formats, Format, TEXT_JSON};
use crate::frontend_args::FrontendArgs;

#[derive(clap::Args, Debug)]
pub struct FingerprintArgs {
    /// The files to fingerprint.
    #[arg(value_name = "FILE", required = true)]
    files: Vec<PathBuf>,

    #[command(flatten)]
    frontend: FrontendArgs,

    /// Output format.
    #[arg(long = "format", default_value = "text", value_parser = formats(TEXT_JSON))]
    format: Format,
}

#[derive(Serialize)]
struct Out {
    /// The modulus, `t^64 + low bits`.
    polynomial: String,
    files: Vec<FileOut>,
    /// Groups of files with the same raw fingerprint (two or more files).
    identical_bytes: Vec<Vec<String>>,
    /// Groups of files with the same normalized fingerprint.
    identical_normalized: Vec<Vec<String>>,
}

#[derive(Serialize)]
struct FileOut {
    path: String,
    bytes: u64,
    raw: String,
    language: Option<&'static str>,
    frontend: Option<&'static str>,
    symbols: Option<u64>,
    normalized: Option<String>,
    /// Why the file has no normalized fingerprint (e.g. binary).
    skipped: Option<String>,
}

fn hex(x: u64) -> String {
    format!("{x:016x}")
}

/// Paths grouped by a key, groups of two or more, in order of first
/// appearance.
fn groups<'a>(keys: impl Iterator<Item = (Option<&'a str>, &'a str)>) -> Vec<Vec<String>> {
    let mut by_key: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    let mut order: Vec<&str> = Vec::new();
    for (key, path) in keys {
        let Some(key) = key else { continue };
        let entry = by_key.entry(key).or_default();
        if entry.is_empty() {
            order.push(key);
        }
        entry.push(path.to_string());
    }
    order
        .into_iter()
        .filter_map(|k| by_key.remove(k))
        .filter(|g| g.len() >= 2)
        .collect()
}

/// `bryo fingerprint FILE…`.
pub fn run(args: &FingerprintArgs) -> Result<()> {
    let options = args.frontend.analyze_options()?;
    let fingerprinter = FileFingerprinter::new();
    let files: Vec<FileOut> = args
        .files
        .par_iter()
        .map(|file| -> Result<FileOut> {
            let bytes =
                std::fs::read(file).with_context(|| format!("cannot read {}", file.display()))?;
            let path = file.display().to_string();
            let raw = hex(fingerprinter.raw(&bytes));
            Ok(match analyze(&path, &bytes, &options) {
                Ok(analyzed) => FileOut {
                    bytes: bytes.len() as u64,
                    raw,
                    language: Some(analyzed.language.name()),
                    frontend: Some(analyzed.frontend.as_str()),
                    symbols: Some(analyzed.normalized.len() as u64),
                    normalized: Some(hex(fingerprinter.normalized(&analyzed.normalized.symbols))),
                    skipped: None,
                    path,
                },
                Err(reason) => FileOut {
                    bytes: bytes.len() as u64,
                    raw,
                    language: None,
                    frontend: None,
                    symbols: None,
                    normalized: None,
                    skipped: Some(reason.to_string()),
                    path,
                },
            })
        })
        .collect::<Result<_>>()?;
    let identical_bytes = groups(
        files
            .iter()
            .map(|f| (Some(f.raw.as_str()), f.path.as_str())),
    );
    let identical_normalized = groups(
        files
            .iter()
            .map(|f| (f.normalized.as_deref(), f.path.as_str())),
    );
    let out = Out {
        polynomial: format!("t^64 + {:#018x}", Polynomial::DEFAULT.low_bits()),
        files,
        identical_bytes,
        identical_normalized,
    };

    let mut w = BufWriter::new(io::stdout().lock());
    match args.format {
        Format::Json => {
            serde_json::to_writer_pretty(&mut w, &out)?;
            writeln!(w)?;
        }
        _ => {
            writeln!(
                w,
                "{:<16}  {:<16}  {:>8}  file",
                "raw", "normalized", "symbols"
            )?;
            for f in &out.files {
                let path = f.path.escape_debug();
                match (&f.normalized, f.symbols) {
                    (Some(n), Some(s)) => writeln!(w, "{}  {}  {:>8}  {}", f.raw, n, s, path)?,
                    _ => writeln!(
                        w,
                        "{}  {:<16}  {:>8}  {} ({})",
                        f.raw,
                        "-",
                        "-",
                        path,
                        f.skipped.as_deref().unwrap_or("not normalized")
                    )?,
                }
            }
            for (title, groups) in [
                ("identical bytes", &out.identical_bytes),
                ("identical after normalization", &out.identical_normalized),
            ] {
                for g in groups {
                    let names: Vec<String> =
                        g.iter().map(|p| p.escape_debug().to_string()).collect();
                    writeln!(w, "{title}: {}", names.join(" = "))?;
                }
            }
        }
    }
    w.flush()?;
    Ok(())
}
