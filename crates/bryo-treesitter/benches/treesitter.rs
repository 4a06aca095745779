//! Bare tree-sitter parse vs. the whole front-end (parse + symbol walk) on
//! real source files found on the machine:
//!
//! - `python`: the Python standard library (`python3 -c 'import os;
//!   print(os.path.dirname(os.__file__))'`, or `BRYO_BENCH_PYTHON_DIR`);
//! - `java`: `../shared/datasets/irplag` (or `BRYO_BENCH_JAVA_DIR`);
//! - `c`: the headers under `/usr/include` (or `BRYO_BENCH_C_DIR`).
//!
//! Files are taken in sorted path order up to `BRYO_BENCH_MB` megabytes per
//! corpus (default 8; files over the front-end's 1 MiB limit are left out).
//! A corpus that is not on the machine is skipped with a note.
//!
//! `cargo bench -p bryo-treesitter --bench treesitter -- --warm-up-time 1 --measurement-time 5`

use std::path::{Path, PathBuf};

use bryo_treesitter::tree_sitter::Parser;
use bryo_treesitter::{Normalized, Options, TsLanguage};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

fn budget_bytes() -> usize {
    std::env::var("BRYO_BENCH_MB")
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
        .map_or(8_000_000, |mb| (mb * 1e6) as usize)
}

/// All files under `root` whose name ends in one of `exts`, sorted, without
/// recursion (an explicit stack of directories), `site-packages` left out.
fn find_files(root: &Path, exts: &[&str]) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                // Third-party packages are not the standard library.
                if path.file_name().is_none_or(|n| n != "site-packages") {
                    dirs.push(path);
                }
            } else if kind.is_file()
                && path
                    .extension()
                    .and_then(|e| e.to_str())
                    .is_some_and(|e| exts.contains(&e))
            {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

fn load(root: &Path, exts: &[&str]) -> Vec<Vec<u8>> {
    let limit = Options::default().max_bytes;
    let budget = budget_bytes();
    let mut total = 0;
    let mut texts = Vec::new();
    for path in find_files(root, exts) {
        if total >= budget {
            break;
        }
        let Ok(text) = std::fs::read(&path) else {
            continue;
        };
        if text.len() > limit || text.contains(&0) {
            continue;
        }
        total += text.len();
        texts.push(text);
    }
    texts
}

fn python_dir() -> Option<PathBuf> {
    if let Ok(dir) = std::env::var("BRYO_BENCH_PYTHON_DIR") {
        return Some(dir.into());
    }
    let out = std::process::Command::new("python3")
        .args(["-c", "import os;print(os.path.dirname(os.__file__))"])
        .output()
        .ok()?;
    let dir = String::from_utf8(out.stdout).ok()?;
    Some(PathBuf::from(dir.trim()))
}

fn corpora() -> Vec<(&'static str, Vec<Vec<u8>>)> {
    let java_dir = std::env::var("BRYO_BENCH_JAVA_DIR").map_or_else(
        |_| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/datasets/irplag"),
        PathBuf::from,
    );
    let c_dir =
        std::env::var("BRYO_BENCH_C_DIR").map_or_else(|_| "/usr/include".into(), PathBuf::from);
    let mut out = Vec::new();
    if let Some(dir) = python_dir() {
        out.push(("python", load(&dir, &["py"])));
    }
    out.push(("java", load(&java_dir, &["java"])));
    out.push(("c", load(&c_dir, &["h", "c"])));
    out.retain(|(name, texts)| {
        if texts.is_empty() {
            eprintln!("no {name} files found: skipping that corpus");
        }
        !texts.is_empty()
    });
    out
}

fn bench(c: &mut Criterion) {
    for (name, texts) in corpora() {
        let Some(language) = TsLanguage::by_name(name) else {
            continue;
        };
        let bytes: usize = texts.iter().map(Vec::len).sum();
        eprintln!("{name}: {} files, {bytes} bytes", texts.len());

        let mut g = c.benchmark_group(format!("treesitter-{name}"));
        g.sample_size(10)
            .throughput(Throughput::Bytes(bytes as u64));

        let mut parser = Parser::new();
        parser
            .set_language(&language.grammar())
            .expect("grammar loads");
        g.bench_function(BenchmarkId::from_parameter("parse"), |b| {
            b.iter(|| {
                let mut nodes = 0;
                for text in &texts {
                    if let Some(tree) = parser.parse(text, None) {
                        nodes += tree.root_node().child_count();
                    }
                }
                nodes
            })
        });

        let options = Options::default();
        let mut out = Normalized::default();
        g.bench_function(BenchmarkId::from_parameter("parse+symbols"), |b| {
            b.iter(|| {
                let mut symbols = 0;
                for text in &texts {
                    if language.normalize_into(text, &options, &mut out).is_ok() {
                        symbols += out.len();
                    }
                }
                symbols
            })
        });
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
