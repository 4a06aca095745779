//! Lexer throughput on real source trees found on the machine: the Python
//! standard library, C headers under `/usr/include`, and Java files of the
//! IR-Plag data set when present. Reports bytes per second per core.
//!
//! `line-index/python-stdlib` times the line index of the same files (the
//! AVX2 path where the processor has it; `BRYO_NO_SIMD=1` times memchr's).

use std::path::{Path, PathBuf};
use std::process::Command;

use bryo_frontend::{Language, Lexed, LineIndex, Normalization};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

fn collect(dir: &Path, ext: &str, out: &mut Vec<String>, limit: usize) {
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        for p in paths {
            if out.iter().map(String::len).sum::<usize>() >= limit {
                return;
            }
            if p.is_symlink() || p.ends_with("site-packages") {
                continue;
            }
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == ext) {
                if let Ok(text) = std::fs::read_to_string(&p) {
                    out.push(text);
                }
            }
        }
    }
}

/// CPU time (user + system) of the calling thread in clock ticks, from
/// `/proc/thread-self/stat`; `None` where that file does not exist.
fn thread_cpu_ticks() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
    // Fields after the parenthesised command name; utime and stime are the
    // 14th and 15th fields of the whole line.
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_ascii_whitespace().collect();
    Some(f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?)
}

/// On a machine shared with other work, wall-clock throughput understates
/// the lexer: this also prints bytes per second of this thread's CPU time
/// (clock ticks are coarse, so it runs for at least two CPU seconds).
fn report_cpu_throughput(name: &str, bytes: usize, mut run: impl FnMut()) {
    let Some(t0) = thread_cpu_ticks() else {
        return;
    };
    let mut rounds = 0u64;
    let mut ticks = 0;
    while ticks < 200 {
        run();
        rounds += 1;
        ticks = thread_cpu_ticks().unwrap_or(t0) - t0;
    }
    let secs = ticks as f64 / 100.0;
    eprintln!(
        "lexer/{name}: {:.1} MB in {rounds} rounds, {:.0} MB/s per CPU-second",
        bytes as f64 / 1e6,
        (bytes as f64 * rounds as f64) / secs / 1e6
    );
}

fn python_stdlib() -> PathBuf {
    let out = Command::new("python3")
        .args(["-c", "import os;print(os.path.dirname(os.__file__))"])
        .output()
        .expect("benches/lexer.rs needs python3 on PATH to find the standard library");
    PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
}

fn bench_corpus(c: &mut Criterion, name: &str, lang: &str, files: &[String]) {
    if files.is_empty() {
        eprintln!("lexer bench: no {name} files found, skipped");
        return;
    }
    let lexer = Language::by_name(lang)
        .and_then(|l| l.lexer())
        .expect("language");
    let bytes: usize = files.iter().map(String::len).sum();
    let mut g = c.benchmark_group("lexer");
    g.throughput(Throughput::Bytes(bytes as u64));
    g.sample_size(10);
    let mut out = Lexed::default();
    report_cpu_throughput(name, bytes, || {
        for f in files {
            lexer.lex_into(f, Normalization::Full, &mut out);
        }
    });
    g.bench_function(name, |b| {
        b.iter(|| {
            let mut n = 0;
            for f in files {
                lexer.lex_into(f, Normalization::Full, &mut out);
                n += out.normalized.len();
            }
            n
        })
    });
    g.finish();
}

fn line_index(c: &mut Criterion, name: &str, files: &[String]) {
    let bytes: usize = files.iter().map(String::len).sum();
    let mut g = c.benchmark_group("line-index");
    g.throughput(Throughput::Bytes(bytes as u64));
    g.sample_size(10);
    g.bench_function(name, |b| {
        b.iter(|| {
            files
                .iter()
                .map(|f| LineIndex::new(f.as_bytes()).line_count() as usize)
                .sum::<usize>()
        })
    });
    g.finish();
}

fn lexers(c: &mut Criterion) {
    let mut py = Vec::new();
    let stdlib = python_stdlib();
    collect(&stdlib, "py", &mut py, usize::MAX);
    assert!(
        !py.is_empty(),
        "no .py files under {} (the Python standard library)",
        stdlib.display()
    );
    bench_corpus(c, "python-stdlib", "python", &py);
    line_index(c, "python-stdlib", &py);

    let mut h = Vec::new();
    collect(Path::new("/usr/include"), "h", &mut h, 32 << 20);
    bench_corpus(c, "c-usr-include", "c", &h);

    let mut java = Vec::new();
    collect(
        Path::new("../../../shared/datasets/irplag"),
        "java",
        &mut java,
        32 << 20,
    );
    if java.is_empty() {
        collect(
            Path::new("/work/shared/datasets/irplag"),
            "java",
            &mut java,
            32 << 20,
        );
    }
    bench_corpus(c, "java-irplag", "java", &java);
}

criterion_group!(benches, lexers);
criterion_main!(benches);
