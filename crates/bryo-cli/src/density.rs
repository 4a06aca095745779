//! `bryo density`: the paper's density experiment (§5.1, Figure 3) on random
//! text or on a corpus of files, streamed file by file in parallel — or,
//! with `--one-stream`, as the paper did: all files hashed and selected as
//! one continuous sequence, in listing order, on one thread.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use bryo_engine::{HashFunction, Hasher, Selection, SplitMix64, HASH_SCHEME_VERSION};
use bryo_stats::DensityMeter;
use serde::Serialize;

use crate::args::{formats, Format, TEXT_JSON};
use crate::corpus::{
    all_skipped, group, list, progress_bar, CorpusArgs, EngineArgs, InputFormat, Skipped,
};

/// Letters of the random text: text after case folding and dropping
/// whitespace and punctuation, as the paper's front-end would leave it.
const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz";

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Files or directories (searched recursively) to fingerprint.
    #[arg(
        value_name = "PATH",
        required_unless_present = "random",
        conflicts_with = "random"
    )]
    paths: Vec<PathBuf>,

    /// Fingerprint BYTES of random lowercase text instead of files.
    #[arg(long, value_name = "BYTES")]
    random: Option<u64>,

    /// Seed of the random text (the same seed always gives the same text).
    #[arg(long, default_value_t = 1, requires = "random")]
    seed: u64,

    #[command(flatten)]
    engine: EngineArgs,

    #[command(flatten)]
    corpus: CorpusArgs,

    /// Modulus of 0 mod p [default: (w + 1) / 2 rounded, the density of
    /// winnowing].
    #[arg(short = 'p')]
    p: Option<u64>,

    /// Output format.
    #[arg(long, default_value = "text", value_parser = formats(TEXT_JSON))]
    format: Format,

    /// Add the wall-clock time and throughput to the JSON output (which is
    /// otherwise the same on every run).
    #[arg(long)]
    timing: bool,

    /// Hash and select the symbols of all files, in listing order, as one
    /// continuous stream (k-grams and windows span file boundaries), as
    /// the winnowing paper did; runs on one thread. At most 2^32 hashes.
    #[arg(long, conflicts_with = "random")]
    one_stream: bool,
}

/// The result, as `--format json` prints it.
#[derive(Serialize, Debug)]
struct Report {
    schema: &'static str,
    input: Input,
    k: usize,
    w: usize,
    t: usize,
    hash: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    polynomial: Option<String>,
    hash_scheme_version: u32,
    front_end: InputFormat,
    #[serde(skip_serializing_if = "Option::is_none")]
    text_mode: Option<&'static str>,
    /// The files were hashed as one stream, so every figure (hashes,
    /// fingerprints, longest gaps) is over their concatenated symbols.
    one_stream: bool,
    documents: u64,
    total_bytes: u64,
    symbols: u64,
    hashes: u64,
    winnow: Strategy,
    robust_winnow: Strategy,
    mod_p: Strategy,
    safe_mod_p: Strategy,
    #[serde(skip_serializing_if = "Option::is_none")]
    timing: Option<Timing>,
}

#[derive(Serialize, Debug)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Input {
    Random {
        bytes: u64,
        seed: u64,
    },
    Files {
        skipped: Vec<Skipped>,
        other_extension: u64,
    },
}

#[derive(Serialize, Debug)]
struct Strategy {
    #[serde(skip_serializing_if = "Option::is_none")]
    p: Option<u64>,
    fingerprints: u64,
    density: f64,
    expected_density: f64,
    /// Winnowing: the expected density of random text split into documents
    /// of the same lengths (each document's first window always gives one
    /// fingerprint, then each further hash 2/(w+1)); with `--one-stream`,
    /// of one document of the stream's length.
    #[serde(skip_serializing_if = "Option::is_none")]
    expected_density_for_lengths: Option<f64>,
    longest_gap: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    longest_gap_path: Option<String>,
}

#[derive(Serialize, Debug)]
struct Timing {
    seconds: f64,
    threads: usize,
    bytes_per_second: f64,
    symbols_per_second: f64,
}

pub fn run(args: &Args) -> Result<()> {
    let (config, function) = args.engine.engine()?;
    if args.p == Some(0) {
        bail!("-p must be at least 1");
    }
    // The paper's p = 50 for w = 100: (w + 1) / 2 rounded down, so that
    // 1/p is about winnowing's 2/(w + 1).
    let p = args.p.unwrap_or((config.w() as u64).div_ceil(2)).max(1);
    let selections = [
        Selection::Winnow,
        Selection::RobustWinnow,
        Selection::ModP { p },
        Selection::SafeModP { p },
    ];
    let mut meter = DensityMeter::new(&config, &selections)?;
    let started = Instant::now();
    let mut threads = 1;
    let (totals, input, paths) = if let Some(bytes) = args.random {
        let len = usize::try_from(bytes)?;
        let mut text = Vec::new();
        if text.try_reserve_exact(len).is_err() {
            bail!("cannot allocate {bytes} bytes of random text");
        }
        text.resize(len, 0);
        SplitMix64::new(args.seed).fill_from(ALPHABET, &mut text);
        let totals = meter.bytes(&Hasher::new(function, &config), &text)?;
        let input = Input::Random {
            bytes,
            seed: args.seed,
        };
        (totals, input, Vec::new())
    } else {
        let listing = list(&args.paths, args.corpus.language);
        let bar = progress_bar(listing.files.iter().map(|f| f.len).sum(), "density");
        let reader = args.corpus.reader(&config, function);
        let totals = if args.one_stream {
            meter
                .one_stream(&listing.files, reader.one_stream(), &|n| bar.inc(n))
                .context("--one-stream")
        } else {
            let pool = args.corpus.threads.pool()?;
            threads = pool.current_num_threads();
            pool.install(|| meter.files(&listing.files, &reader, &|n| bar.inc(n)))
                .map_err(anyhow::Error::from)
        };
        bar.finish_and_clear();
        let totals = totals?;
        let input = Input::Files {
            skipped: all_skipped(&listing, &totals.skipped),
            other_extension: listing.other_extension,
        };
        // With --one-stream the longest gaps may span files: no path.
        let paths = match args.one_stream {
            true => Vec::new(),
            false => listing.files.into_iter().map(|f| f.display_path).collect(),
        };
        (totals, input, paths)
    };
    let seconds = started.elapsed().as_secs_f64();

    let w = config.w();
    let expected_for_lengths = totals.expected_winnow_density(w);
    let strategy = |i: usize| {
        let s = totals.strategies[i];
        Strategy {
            p: match selections[i] {
                Selection::ModP { p } | Selection::SafeModP { p } => Some(p),
                _ => None,
            },
            fingerprints: s.fingerprints,
            density: ratio(s.fingerprints, totals.hashes),
            expected_density: selections[i].expected_density(w).unwrap_or(0.0),
            expected_density_for_lengths: match selections[i] {
                Selection::Winnow | Selection::RobustWinnow => expected_for_lengths,
                _ => None,
            },
            longest_gap: s.longest_gap,
            longest_gap_path: if s.longest_gap > 0 {
                paths.get(s.gap_doc).cloned()
            } else {
                None
            },
        }
    };
    let per_second = |n: u64| {
        if seconds > 0.0 {
            n as f64 / seconds
        } else {
            0.0
        }
    };
    let report = Report {
        schema: "bryo.density/1",
        input,
        k: config.k(),
        w,
        t: config.t(),
        hash: function.name(),
        polynomial: match function {
            HashFunction::Rabin(p) => Some(format!("{:#018x}", p.low_bits())),
            HashFunction::KarpRabin => None,
        },
        hash_scheme_version: HASH_SCHEME_VERSION,
        front_end: if args.random.is_some() {
            InputFormat::Raw
        } else {
            args.corpus.language
        },
        text_mode: match (args.random, args.corpus.language) {
            (None, InputFormat::Text | InputFormat::Html) => Some(args.corpus.text_mode().name()),
            _ => None,
        },
        one_stream: args.one_stream,
        documents: totals.documents,
        total_bytes: totals.bytes,
        symbols: totals.symbols,
        hashes: totals.hashes,
        winnow: strategy(0),
        robust_winnow: strategy(1),
        mod_p: strategy(2),
        safe_mod_p: strategy(3),
        timing: args.timing.then(|| Timing {
            seconds,
            threads,
            bytes_per_second: per_second(totals.bytes),
            symbols_per_second: per_second(totals.symbols),
        }),
    };
    let mut stdout = std::io::stdout().lock();
    match args.format {
        Format::Json => {
            serde_json::to_writer_pretty(&mut stdout, &report)?;
            writeln!(stdout)?;
        }
        _ => print_text(&mut stdout, &report, seconds, threads)?,
    }
    Ok(())
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

fn print_text(out: &mut impl Write, r: &Report, seconds: f64, threads: usize) -> Result<()> {
    match &r.input {
        Input::Random { bytes, seed } => writeln!(
            out,
            "random text: {} bytes (a-z, seed {seed})",
            group(*bytes)
        )?,
        Input::Files {
            skipped,
            other_extension,
        } => {
            let front = match r.text_mode {
                Some(mode) => format!("{:?} front-end ({mode})", r.front_end).to_lowercase(),
                None => "raw bytes".to_string(),
            };
            writeln!(
                out,
                "files: {} documents, {} bytes, {front}",
                group(r.documents),
                group(r.total_bytes),
            )?;
            if r.one_stream {
                writeln!(
                    out,
                    "one stream: the files' symbols hashed and selected as one sequence \
                     (k-grams, windows and gaps span files)"
                )?;
            }
            if *other_extension > 0 {
                writeln!(
                    out,
                    "not read: {} files of other types",
                    group(*other_extension)
                )?;
            }
            for s in skipped.iter().take(20) {
                writeln!(out, "skipped {}: {}", s.path, s.reason)?;
            }
            if skipped.len() > 20 {
                writeln!(
                    out,
                    "… and {} more skipped (see --format json)",
                    skipped.len() - 20
                )?;
            }
            if r.text_mode.is_some() {
                writeln!(out, "text symbols: {}", group(r.symbols))?;
            }
        }
    }
    let poly = r
        .polynomial
        .as_deref()
        .map(|p| format!(" (t^64 + {p})"))
        .unwrap_or_default();
    writeln!(
        out,
        "k = {}, w = {} (guarantee t = {}), hash {}{poly}",
        r.k, r.w, r.t, r.hash
    )?;
    writeln!(out, "hashes computed: {}", group(r.hashes))?;
    writeln!(out)?;
    writeln!(
        out,
        "{:<18} {:>13} {:>10} {:>10} {:>12}",
        "strategy", "fingerprints", "density", "expected", "longest gap"
    )?;
    let p = r.mod_p.p.unwrap_or(0);
    for (name, s) in [
        ("winnowing".to_string(), &r.winnow),
        ("robust winnowing".to_string(), &r.robust_winnow),
        (format!("0 mod {p}"), &r.mod_p),
        (format!("safe 0 mod {p}"), &r.safe_mod_p),
    ] {
        writeln!(
            out,
            "{:<18} {:>13} {:>10.6} {:>10.6} {:>12}",
            name,
            group(s.fingerprints),
            s.density,
            s.expected_density,
            group(s.longest_gap)
        )?;
    }
    writeln!(out)?;
    if let (Input::Files { .. }, Some(e)) = (&r.input, r.winnow.expected_density_for_lengths) {
        let lengths = if r.one_stream {
            "one stream of this length"
        } else {
            "these document lengths"
        };
        writeln!(
            out,
            "winnowing density expected for {lengths}: {e:.6} (measured {:+.2}%)",
            (r.winnow.density / e - 1.0) * 100.0
        )?;
    }
    if let Some(path) = &r.mod_p.longest_gap_path {
        writeln!(out, "longest gap of 0 mod {p} in {path}")?;
    }
    let mb = r.total_bytes as f64 / 1e6;
    let what = match r.input {
        Input::Random { .. } => "hashing once, selecting four ways",
        Input::Files { .. } if r.one_stream => {
            "reading, front-end, hashing once, selecting four ways, as one stream"
        }
        Input::Files { .. } => "reading, front-end, hashing once, selecting four ways",
    };
    writeln!(
        out,
        "time: {seconds:.3} s on {threads} thread(s) ({:.1} MB/s; {what})",
        if seconds > 0.0 { mb / seconds } else { 0.0 }
    )?;
    Ok(())
}
