//! Throughput of decoding and of the prose and HTML front-ends, on real
//! files found on the machine:
//!
//! * prose: the English text of the section-1 manual pages
//!   (`zcat /usr/share/man/man1/*.gz`, roff requests and font escapes
//!   stripped), up to 8 MiB;
//! * HTML: `*.html` under `/usr/share/doc` and the Rust documentation
//!   shipped with the toolchain (`$(rustc --print sysroot)/share/doc/rust/html/book`),
//!   up to 8 MiB, normalized file by file.
//!
//! When neither is present, pages generated from a fixed seed stand in.
//!
//! Time is the benchmark thread's **CPU time**, not wall time: the work is
//! single-threaded, so on an idle machine the two agree, and on a loaded
//! one (shared build machines, CI) CPU time still gives the per-core
//! throughput instead of counting the time other processes held the core.
//!
//! `cargo bench -p bryo-frontend --bench text -- --warm-up-time 1 --measurement-time 3`

use std::path::{Path, PathBuf};
use std::process::Command;

use bryo_frontend::{decode, normalize_html_into, normalize_text_into, Normalized, TextMode};
use std::time::Duration;

use cpu_time::ThreadTime;
use criterion::measurement::{Measurement, ValueFormatter, WallTime};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

/// The calling thread's CPU time, in nanoseconds like [`WallTime`].
struct CpuTime;

static WALL: WallTime = WallTime;

impl Measurement for CpuTime {
    type Intermediate = ThreadTime;
    type Value = Duration;

    fn start(&self) -> ThreadTime {
        ThreadTime::now()
    }
    fn end(&self, i: ThreadTime) -> Duration {
        i.elapsed()
    }
    fn add(&self, v1: &Duration, v2: &Duration) -> Duration {
        *v1 + *v2
    }
    fn zero(&self) -> Duration {
        Duration::ZERO
    }
    fn to_f64(&self, value: &Duration) -> f64 {
        value.as_nanos() as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        WALL.formatter()
    }
}

const LIMIT: usize = 8 << 20;

/// Manual-page prose with roff markup stripped.
fn man_prose() -> Option<String> {
    let out = Command::new("sh")
        .arg("-c")
        .arg("zcat /usr/share/man/man1/*.gz 2>/dev/null | head -c 40000000")
        .output()
        .ok()?;
    let raw = String::from_utf8_lossy(&out.stdout);
    let mut text = String::new();
    for line in raw.lines() {
        if line.starts_with('.') || line.starts_with('\'') {
            continue;
        }
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            if c == '\\' {
                // Drop `\fB`, `\-`, `\(em` and the like.
                match chars.next() {
                    Some('f') => {
                        chars.next();
                    }
                    Some('(') => {
                        chars.next();
                        chars.next();
                    }
                    Some('-') => text.push('-'),
                    _ => {}
                }
            } else {
                text.push(c);
            }
        }
        text.push('\n');
        if text.len() >= LIMIT {
            break;
        }
    }
    (text.len() > 1 << 20).then_some(text)
}

fn html_files() -> Vec<String> {
    let mut roots = vec![PathBuf::from("/usr/share/doc")];
    if let Ok(out) = Command::new("rustc").args(["--print", "sysroot"]).output() {
        let sysroot = String::from_utf8_lossy(&out.stdout).trim().to_string();
        roots.push(Path::new(&sysroot).join("share/doc/rust/html/book"));
    }
    let mut files = Vec::new();
    let mut total = 0;
    for root in roots {
        let mut stack = vec![root];
        while let Some(dir) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
            entries.sort();
            for p in entries {
                if p.is_dir() {
                    stack.push(p);
                } else if p.extension().is_some_and(|e| e == "html") && total < LIMIT {
                    if let Ok(s) = std::fs::read_to_string(&p) {
                        total += s.len();
                        files.push(s);
                    }
                }
            }
        }
    }
    files
}

/// Pseudo-English from a fixed seed, for machines without the files above.
fn generated_prose(len: usize) -> String {
    const WORDS: &[&str] = &[
        "the",
        "of",
        "and",
        "a",
        "to",
        "in",
        "is",
        "you",
        "that",
        "it",
        "file",
        "option",
        "program",
        "output",
        "when",
        "default",
        "Print",
        "value",
        "with",
        "are",
        "this",
        "directory",
        "system",
        "command",
        "each",
        "line",
        "number",
        "used",
        "by",
        "name",
    ];
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut s = String::with_capacity(len + 16);
    while s.len() < len {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        s.push_str(WORDS[(x % WORDS.len() as u64) as usize]);
        s.push_str(match x >> 60 {
            0 => ". ",
            1 => ",\n",
            _ => " ",
        });
    }
    s
}

fn benches(c: &mut Criterion<CpuTime>) {
    let prose = man_prose().unwrap_or_else(|| generated_prose(LIMIT));
    let mut html = html_files();
    if html.is_empty() {
        html = generated_prose(LIMIT)
            .split(". ")
            .collect::<Vec<_>>()
            .chunks(200)
            .map(|c| {
                format!(
                    "<html><body><p>{}</p></body></html>",
                    c.join(".</p>\n<p class=\"x\">")
                )
            })
            .collect();
    }
    let html_bytes: usize = html.iter().map(String::len).sum();
    let ascii = prose.bytes().filter(u8::is_ascii).count() as f64 / prose.len() as f64;
    eprintln!(
        "prose: {} bytes ({:.2}% ASCII); html: {} files, {} bytes",
        prose.len(),
        100.0 * ascii,
        html.len(),
        html_bytes
    );

    let mut out = Normalized::default();
    let mut g = c.benchmark_group("text");
    g.throughput(Throughput::Bytes(prose.len() as u64));
    for mode in [TextMode::Chars, TextMode::Words] {
        g.bench_function(mode.name(), |b| {
            b.iter(|| {
                normalize_text_into(&prose, mode, &mut out);
                out.len()
            })
        });
    }
    g.finish();

    let mut g = c.benchmark_group("html");
    g.throughput(Throughput::Bytes(html_bytes as u64));
    for mode in [TextMode::Chars, TextMode::Words] {
        g.bench_function(mode.name(), |b| {
            b.iter(|| {
                let mut n = 0;
                for page in &html {
                    normalize_html_into(page, mode, &mut out);
                    n += out.len();
                }
                n
            })
        });
    }
    g.finish();

    let mut utf16 = vec![0xFF, 0xFE];
    utf16.extend(prose.encode_utf16().flat_map(u16::to_le_bytes));
    let mut g = c.benchmark_group("decode");
    g.throughput(Throughput::Bytes(prose.len() as u64));
    g.bench_function("utf-8", |b| {
        b.iter(|| decode(prose.as_bytes()).map(|d| d.text().len()))
    });
    g.throughput(Throughput::Bytes(utf16.len() as u64));
    g.bench_function("utf-16le", |b| {
        b.iter(|| decode(&utf16).map(|d| d.text().len()))
    });
    g.finish();
}

criterion_group! {
    name = bench;
    config = Criterion::default().with_measurement(CpuTime);
    targets = benches
}
criterion_main!(bench);
