//! Wall and CPU time of every stage of `bryo compare`, so that the next
//! slowdown shows where it came from: discover, analyze, fingerprint, index,
//! pairs, fragments, report, JSON. Each stage is timed through the
//! pipeline's `Progress` hook (the time from its start to the next stage's
//! start); CPU time is the whole process's (all threads, from
//! `/proc/self/task/*/schedstat`, Linux only), so CPU ÷ wall shows how
//! parallel a stage runs. Best run of `REPS` (default 5) by total wall time.
//!
//! Next to each stage, a bound measured on this machine in the same run:
//! - discover: the corpus's bytes copied once in memory (what reading from
//!   the page cache cannot beat);
//! - analyze: the same bytes lexed on all cores at the measured one-core
//!   lexer speed of the language;
//! - fingerprint: the symbols winnowed on all cores at the measured
//!   one-core speed of the engine.
//!
//! The JSON is written into memory, its pairs encoded on all cores as
//! `bryo compare` encodes them (its time is the serializer's, not the
//! disk's).
//!
//! Memory: the heap in use when each stage starts and its peak while the
//! stage runs, counted by a global allocator that wraps the system's (one
//! atomic add per allocation; the times include it).
//!
//! ```text
//! cargo run --release -p bryo-compare --example stage_times -- python /path/to/dir
//! REPS=10 cargo run --release -p bryo-compare --example stage_times -- python DIR
//! MAX_SUBMISSIONS=0 PAIRS=0 REPS=1 cargo run … -- java DIR   # as -m 0 -n 0
//! STREAM=1 PAIRS=0 REPS=1 cargo run … -- java DIR   # pairs written as they come
//! NORMALIZE=off cargo run … -- java DIR   # token normalization off|on|auto (default)
//! ```

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rayon::prelude::*;

use bryo_compare::{analyze_inputs, AnalyzeOptions, CompareOptions, Normalize, Progress, Stage};
use bryo_engine::{Config, Fingerprinter, HashFunction, Selection};
use bryo_frontend::{Language, Normalization};
use bryo_input::{discover, InputOptions};

/// Heap bytes in use.
static LIVE: AtomicUsize = AtomicUsize::new(0);
/// The most heap bytes in use since the last stage started.
static PEAK: AtomicUsize = AtomicUsize::new(0);

/// The system allocator, counting the bytes in use.
struct Counting;

impl Counting {
    fn grew(by: usize) {
        let now = LIVE.fetch_add(by, Ordering::Relaxed) + by;
        PEAK.fetch_max(now, Ordering::Relaxed);
    }
}

// SAFETY: every call is forwarded to `System` with the caller's arguments;
// the counters do not touch the memory.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller upholds `alloc`'s contract.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            Counting::grew(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller upholds `alloc_zeroed`'s contract.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            Counting::grew(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller upholds `dealloc`'s contract.
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller upholds `realloc`'s contract.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            if new_size >= layout.size() {
                Counting::grew(new_size - layout.size());
            } else {
                LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
            }
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// CPU time of every thread of this process, or zero off Linux.
fn process_cpu() -> Duration {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return Duration::ZERO;
    };
    let ns: u64 = tasks
        .flatten()
        .filter_map(|t| std::fs::read_to_string(t.path().join("schedstat")).ok())
        .filter_map(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .sum();
    Duration::from_nanos(ns)
}

/// The start of one stage.
struct Mark {
    name: &'static str,
    wall: Instant,
    cpu: Duration,
    /// Heap in use at the start.
    live: usize,
    /// The heap's peak during the previous stage.
    peak_before: usize,
}

/// One stage's costs.
struct StageCost {
    name: &'static str,
    wall: Duration,
    cpu: Duration,
    /// Heap in use at its start, and its peak while it ran.
    live: usize,
    peak: usize,
}

#[derive(Default)]
struct Marks(Mutex<Vec<Mark>>);

impl Marks {
    fn mark(&self, name: &'static str) {
        let mut marks = self.0.lock().expect("not poisoned");
        let live = LIVE.load(Ordering::Relaxed);
        let peak_before = PEAK.swap(live, Ordering::Relaxed);
        marks.push(Mark {
            name,
            wall: Instant::now(),
            cpu: process_cpu(),
            live,
            peak_before,
        });
    }
}

impl Progress for Marks {
    fn start(&self, stage: Stage, _work: u64) {
        self.mark(stage.name());
    }
}

/// Exited threads take their CPU time with them; rayon's pool lives for the
/// whole process, so its threads are counted.
fn run(language: &'static Language, root: &str) -> Vec<StageCost> {
    let marks = Marks::default();
    marks.mark("discover");
    let inputs = discover(&InputOptions {
        roots: vec![root.into()],
        ..InputOptions::default()
    })
    .expect("the directory can be read");
    let options = CompareOptions {
        analyze: AnalyzeOptions {
            language: Some(language),
            // As `bryo compare`: token normalization where `auto` puts it.
            normalize: match std::env::var("NORMALIZE").as_deref() {
                Ok("on") => Normalize::On,
                Ok("off") => Normalize::Off,
                _ => Normalize::Auto,
            },
            ..AnalyzeOptions::default()
        },
        max_submissions: env_number("MAX_SUBMISSIONS"),
        max_pairs: env_number("PAIRS").unwrap_or(CompareOptions::default().max_pairs),
        ..CompareOptions::default()
    };
    let analysis = analyze_inputs(inputs, &options, &marks).expect("two submissions at least");
    let corpus = analysis.corpus();
    let indexed = bryo_match::fingerprint(&corpus, analysis.match_options(), &marks)
        .and_then(|f| f.index(&marks))
        .expect("valid options");
    let candidates = indexed.pairs(&marks).expect("not cancelled");
    if std::env::var_os("STREAM").is_some() {
        // As `bryo compare` writes a large JSON report: scores kept, each
        // batch of reported pairs computed again, mapped and encoded.
        use bryo_report::PairWriter;
        let ranked = indexed
            .rank(candidates, bryo_match::Retain::Scores, &marks)
            .expect("not cancelled");
        marks.mark("report+json");
        let head = analysis.report_head(ranked.summary(), &options);
        let mut json = bryo_report::JsonPairs::begin(&head, std::io::sink()).expect("a sink");
        for start in (0..ranked.len()).step_by(1024) {
            let encoded: Vec<Vec<u8>> = ranked
                .pairs(start..start + 1024)
                .par_iter()
                .enumerate()
                .map(|(i, m)| json.encode(start + i + 1, &analysis.report_pair(m)))
                .collect::<Result<_, _>>()
                .expect("valid pairs");
            for e in &encoded {
                json.write_encoded(e).expect("a sink");
            }
        }
        json.finish().expect("a sink");
    } else {
        let comparison = indexed
            .fragments(candidates, &marks)
            .expect("not cancelled");
        drop(corpus);
        let outcome = analysis.report(comparison, &options, &marks);
        marks.mark("json");
        // As `bryo compare` writes it: the pairs encoded on all cores.
        use bryo_report::PairWriter;
        let mut head = outcome.report;
        let pairs = std::mem::take(&mut head.pairs);
        let mut json = bryo_report::JsonPairs::begin(&head, Vec::new()).expect("valid");
        for (b, batch) in pairs.chunks(64).enumerate() {
            let encoded: Vec<Vec<u8>> = batch
                .par_iter()
                .enumerate()
                .map(|(i, p)| json.encode(b * 64 + i + 1, p))
                .collect::<Result<_, _>>()
                .expect("valid pairs");
            for e in &encoded {
                json.write_encoded(e).expect("in memory");
            }
        }
        let bytes = json.finish().expect("in memory");
        std::hint::black_box(bytes);
    }
    marks.mark("end");
    let marks = marks.0.into_inner().expect("not poisoned");
    marks
        .windows(2)
        .map(|w| StageCost {
            name: w[0].name,
            wall: w[1].wall - w[0].wall,
            cpu: w[1].cpu.saturating_sub(w[0].cpu),
            live: w[0].live,
            peak: w[1].peak_before,
        })
        .collect()
}

/// A number from the environment, e.g. `PAIRS=0`.
fn env_number(name: &str) -> Option<usize> {
    std::env::var(name).ok().and_then(|v| v.parse().ok())
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(name), Some(root)) = (args.next(), args.next()) else {
        eprintln!("usage: stage_times LANGUAGE DIR");
        std::process::exit(2);
    };
    let language = Language::by_name(&name).expect("a language bryo knows");
    let reps: usize = std::env::var("REPS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(5)
        .max(1);
    // Warm the page cache and the thread pool.
    run(language, &root);
    let best = (0..reps)
        .map(|_| run(language, &root))
        .min_by_key(|r| r.iter().map(|s| s.wall).sum::<Duration>())
        .expect("at least one run");

    // The bounds, measured now.
    let inputs = discover(&InputOptions {
        roots: vec![root.clone().into()],
        ..InputOptions::default()
    })
    .expect("the directory can be read");
    let files: Vec<&[u8]> = inputs
        .submissions
        .iter()
        .flat_map(|s| &s.files)
        .map(|f| f.bytes.as_slice())
        .collect();
    let bytes: usize = files.iter().map(|f| f.len()).sum();
    let cores = std::thread::available_parallelism().map_or(1, usize::from) as f64;
    let copy = {
        let t = Instant::now();
        let mut all = Vec::with_capacity(bytes);
        for f in &files {
            all.extend_from_slice(f);
        }
        std::hint::black_box(&all);
        t.elapsed()
    };
    let lexer = language.lexer().expect("a language with a lexer");
    let (lex, symbols) = {
        let t = Instant::now();
        let mut symbols = Vec::new();
        for f in &files {
            let text = String::from_utf8_lossy(f);
            symbols.extend(
                lexer
                    .lex(&text, Normalization::KeepStrings)
                    .normalized
                    .symbols,
            );
        }
        (t.elapsed(), symbols)
    };
    let winnow = {
        let config = Config::new(bryo_compare::CODE_K, bryo_compare::CODE_W).expect("valid");
        let mut f = Fingerprinter::new(config, HashFunction::KarpRabin, Selection::RobustWinnow)
            .expect("valid");
        let t = Instant::now();
        std::hint::black_box(f.fingerprint_symbols(&symbols).expect("short enough"));
        t.elapsed()
    };
    let bound = |stage: &str| match stage {
        "discover" => Some(copy),
        "analyze" => Some(lex.div_f64(cores)),
        "fingerprint" => Some(winnow.div_f64(cores)),
        _ => None,
    };
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "{} files, {:.1} MB, {} symbols, {} cores; best of {reps} runs",
        files.len(),
        bytes as f64 / 1e6,
        symbols.len(),
        cores
    );
    let mb = |b: usize| b as f64 / 1e6;
    println!(
        "{:<12} {:>9} {:>9} {:>7} {:>9} {:>9} {:>9}",
        "stage", "wall ms", "CPU ms", "CPU/wall", "bound ms", "heap MB", "peak MB"
    );
    let (mut wall, mut cpu, mut peak) = (Duration::ZERO, Duration::ZERO, 0);
    for s in &best {
        wall += s.wall;
        cpu += s.cpu;
        peak = peak.max(s.peak);
        println!(
            "{:<12} {:>9.1} {:>9.1} {:>7.2} {:>9} {:>9.1} {:>9.1}",
            s.name,
            ms(s.wall),
            ms(s.cpu),
            s.cpu.as_secs_f64() / s.wall.as_secs_f64().max(1e-9),
            bound(s.name).map_or("—".to_string(), |b| format!("{:.1}", ms(b))),
            mb(s.live),
            mb(s.peak),
        );
    }
    println!(
        "{:<12} {:>9.1} {:>9.1} {:>7} {:>9} {:>9} {:>9.1}",
        "total",
        ms(wall),
        ms(cpu),
        "",
        "",
        "",
        mb(peak)
    );
}
