//! Runs one tree-sitter front-end over every file of a directory with the
//! given extension and counts outcomes: how many files parsed, how many had
//! syntax errors under the limit, and how many fell back and why. Used to
//! choose the default limits on real code.
//!
//! `cargo run --release -p bryo-treesitter --example survey -- LANGUAGE EXT DIR`

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

use bryo_treesitter::{Normalized, Options, TsLanguage};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(name), Some(ext), Some(dir)) = (args.first(), args.get(1), args.get(2)) else {
        eprintln!("usage: survey LANGUAGE EXT DIR");
        std::process::exit(2);
    };
    let Some(language) = TsLanguage::by_name(name) else {
        eprintln!("no tree-sitter grammar for `{name}`");
        std::process::exit(2);
    };
    let mut files = Vec::new();
    let mut dirs = vec![PathBuf::from(dir)];
    while let Some(d) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            match entry.file_type() {
                Ok(t) if t.is_dir() => dirs.push(path),
                Ok(t) if t.is_file() && path.extension().is_some_and(|e| e == ext.as_str()) => {
                    files.push(path)
                }
                _ => {}
            }
        }
    }
    files.sort();

    let options = Options::default();
    let mut out = Normalized::default();
    let (mut ok, mut with_errors, mut bytes, mut symbols) = (0usize, 0usize, 0usize, 0usize);
    let mut fallbacks: BTreeMap<&'static str, usize> = BTreeMap::new();
    let start = Instant::now();
    for path in &files {
        let Ok(text) = std::fs::read(path) else {
            continue;
        };
        bytes += text.len();
        match language.normalize_into(&text, &options, &mut out) {
            Ok(stats) => {
                ok += 1;
                symbols += out.len();
                if stats.error_nodes + stats.missing_nodes > 0 {
                    with_errors += 1;
                }
            }
            Err(reason) => {
                *fallbacks.entry(reason.code()).or_default() += 1;
                println!("{}: {reason}", path.display());
            }
        }
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{} files, {:.1} MB, {secs:.2} s ({:.1} MB/s): {ok} parsed ({with_errors} with \
         tolerated errors), {symbols} symbols; fallbacks: {fallbacks:?}",
        files.len(),
        bytes as f64 / 1e6,
        bytes as f64 / 1e6 / secs
    );
}
