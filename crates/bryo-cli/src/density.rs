//! `bryo density`: the paper's density experiment (§5.1, Figure 3) on random
//! text or on a corpus of files, streamed file by file in parallel — or,
//! with `--one-stream`, as the paper did: all files hashed and selected as
//! one continuous stream, in listing order, on one thread. The experiment
//! is `bryo_stats::measure_density`; here are its flags and its text.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use bryo_report::{thousands as group, Columns};
use bryo_stats::{measure_density, DensityInput, DensityOptions, DensityReport, DensitySource};

use crate::args::{formats, Format, TEXT_JSON};
use crate::corpus::{print_skipped, BytesBar, CorpusArgs, EngineArgs};

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

pub fn run(args: &Args) -> Result<()> {
    let (config, function) = args.engine.engine()?;
    if args.p == Some(0) {
        bail!("-p must be at least 1");
    }
    let source = match args.random {
        Some(bytes) => DensitySource::Random {
            bytes,
            seed: args.seed,
        },
        None => DensitySource::Files {
            paths: args.paths.clone(),
            read: args.corpus.read_options(),
            one_stream: args.one_stream,
        },
    };
    let options = DensityOptions {
        config,
        function,
        p: args.p,
    };
    let pool = args.corpus.threads.pool()?;
    let run = pool.install(|| measure_density(&source, &options, &BytesBar::new()));
    let mut run = match args.one_stream {
        true => run.context("--one-stream")?,
        false => run?,
    };
    if args.timing {
        run.report.timing = Some(run.timing());
    }
    let mut stdout = std::io::stdout().lock();
    match args.format {
        Format::Json => {
            serde_json::to_writer_pretty(&mut stdout, &run.report)?;
            writeln!(stdout)?;
        }
        _ => print_text(&mut stdout, &run.report, run.seconds, run.threads)?,
    }
    Ok(())
}

fn print_text(out: &mut impl Write, r: &DensityReport, seconds: f64, threads: usize) -> Result<()> {
    match &r.input {
        DensityInput::Random { bytes, seed } => writeln!(
            out,
            "random text: {} bytes (a-z, seed {seed})",
            group(*bytes)
        )?,
        DensityInput::Files {
            skipped,
            other_extension,
        } => {
            let front = match r.text_mode {
                Some(mode) => format!("{} front-end ({mode})", r.front_end.name()),
                None => "raw bytes".to_string(),
            };
            let (docs, bytes) = (group(r.documents), group(r.total_bytes));
            writeln!(out, "files: {docs} documents, {bytes} bytes, {front}")?;
            if r.one_stream {
                writeln!(
                    out,
                    "one stream: the files' symbols hashed and selected as one sequence \
                     (k-grams, windows and gaps span files)"
                )?;
            }
            print_skipped(out, *other_extension, skipped)?;
            if r.text_mode.is_some() {
                writeln!(out, "text symbols: {}", group(r.symbols))?;
            }
        }
    }
    let poly = r.polynomial.as_deref().map(|p| format!(" (t^64 + {p})"));
    let (k, w, t, hash) = (r.k, r.w, r.t, r.hash);
    let poly = poly.unwrap_or_default();
    writeln!(
        out,
        "k = {k}, w = {w} (guarantee t = {t}), hash {hash}{poly}"
    )?;
    writeln!(out, "hashes computed: {}", group(r.hashes))?;
    writeln!(out)?;
    let mut table = Columns::new().left("", 18).right(" ", 13);
    table = table.right(" ", 10).right(" ", 10).right(" ", 12);
    table.row([
        "strategy",
        "fingerprints",
        "density",
        "expected",
        "longest gap",
    ]);
    for (name, s) in r.rows() {
        let density = format!("{:.6}", s.density);
        let expected = format!("{:.6}", s.expected_density);
        let gap = group(s.longest_gap);
        table.row([name, group(s.fingerprints), density, expected, gap]);
    }
    table.write(out)?;
    writeln!(out)?;
    let winnow = &r.winnow;
    if let (DensityInput::Files { .. }, Some(e), Some(d)) = (
        &r.input,
        winnow.expected_density_for_lengths,
        winnow.deviation_percent(),
    ) {
        let lengths = match r.one_stream {
            true => "one stream of this length",
            false => "these document lengths",
        };
        writeln!(
            out,
            "winnowing density expected for {lengths}: {e:.6} (measured {d:+.2}%)"
        )?;
    }
    if let Some(path) = &r.mod_p.longest_gap_path {
        writeln!(
            out,
            "longest gap of 0 mod {} in {path}",
            r.mod_p.p.unwrap_or(0)
        )?;
    }
    let mb = r.total_bytes as f64 / 1e6;
    let what = match r.input {
        DensityInput::Random { .. } => "hashing once, selecting four ways",
        DensityInput::Files { .. } if r.one_stream => {
            "reading, front-end, hashing once, selecting four ways, as one stream"
        }
        DensityInput::Files { .. } => "reading, front-end, hashing once, selecting four ways",
    };
    writeln!(
        out,
        "time: {seconds:.3} s on {threads} thread(s) ({:.1} MB/s; {what})",
        if seconds > 0.0 { mb / seconds } else { 0.0 }
    )?;
    Ok(())
}
