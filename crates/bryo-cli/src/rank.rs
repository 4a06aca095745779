//! `bryo rank`: how often k-grams recur across a corpus — the frequency of
//! every k-gram hash and of every winnowed fingerprint, against rank, as in
//! the winnowing paper's Figure 4 (§5.1).

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use bryo_engine::HASH_SCHEME_VERSION;
use bryo_stats::{count_hashes, sample_hashes, FrequencyTable, HashCount, Sample, Summary};
use serde::Serialize;

use crate::args::{formats, Format, TEXT_JSON};
use crate::corpus::{
    all_skipped, group, list, progress_bar, CorpusArgs, EngineArgs, InputFormat, Skipped,
};
use crate::plot::{draw_rank_plot, font_ready, Curve};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Files or directories (searched recursively).
    #[arg(value_name = "PATH", required = true)]
    paths: Vec<PathBuf>,

    #[command(flatten)]
    engine: EngineArgs,

    #[command(flatten)]
    corpus: CorpusArgs,

    /// Folder for the log-log plot of frequency by rank (rank.svg and
    /// rank.png); created if missing. Without it no plot is drawn.
    #[arg(short = 'o', long = "output", value_name = "DIR")]
    output: Option<PathBuf>,

    /// Most frequent k-grams listed with their text.
    #[arg(long, value_name = "N", default_value_t = 20)]
    top: usize,

    /// Memory for counting (bytes, or with a K, M or G suffix): distinct
    /// hashes beyond it are sorted and spilled to temporary files, then
    /// merged.
    #[arg(long, value_name = "SIZE", default_value = "1G", value_parser = parse_size)]
    memory: u64,

    /// Folder for the spill files [default: the system's temporary folder].
    #[arg(long, value_name = "DIR")]
    spill_dir: Option<PathBuf>,

    /// TrueType font for the labels of the plot [default: DejaVu Sans or
    /// Liberation Sans where the system keeps them]. Without a font the plot
    /// is drawn without text.
    #[arg(long, value_name = "FILE")]
    font: Option<PathBuf>,

    /// Output format.
    #[arg(long, default_value = "text", value_parser = formats(TEXT_JSON))]
    format: Format,
}

#[derive(Serialize, Debug)]
struct Report {
    schema: &'static str,
    k: usize,
    w: usize,
    t: usize,
    hash: &'static str,
    hash_scheme_version: u32,
    front_end: InputFormat,
    #[serde(skip_serializing_if = "Option::is_none")]
    text_mode: Option<&'static str>,
    documents: u64,
    total_bytes: u64,
    symbols: u64,
    skipped: Vec<Skipped>,
    other_extension: u64,
    /// Sorted runs written to disk while counting (0 when everything fitted
    /// in --memory).
    spilled_runs: usize,
    /// All k-gram hashes.
    hashes: Distribution,
    /// The hashes winnowing selected as fingerprints.
    fingerprints: Distribution,
    /// The most frequent k-grams (overlapping shifts of one common passage
    /// often fill this list).
    top: Vec<TopKgram>,
    /// The most frequent winnowed fingerprints: about one per window of a
    /// passage, so the list shows more distinct passages.
    top_fingerprints: Vec<TopKgram>,
    #[serde(skip_serializing_if = "Option::is_none")]
    plot: Option<PlotFiles>,
}

#[derive(Serialize, Debug)]
struct Distribution {
    occurrences: u64,
    distinct: u64,
    once: Share,
    twice: Share,
    three_times: Share,
    max_frequency: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    power_law: Option<Fit>,
    /// `[frequency, first_rank, last_rank]`, most frequent first.
    plateaus: Vec<[u64; 3]>,
}

#[derive(Serialize, Debug)]
struct Share {
    hashes: u64,
    share: f64,
}

#[derive(Serialize, Debug)]
struct Fit {
    slope: f64,
    intercept: f64,
    points: usize,
}

#[derive(Serialize, Debug, Clone)]
struct TopKgram {
    rank: usize,
    hash: String,
    count: u64,
    documents: u64,
    path: String,
    position: u64,
    text: String,
}

#[derive(Serialize, Debug)]
struct PlotFiles {
    svg: String,
    png: String,
    labels: bool,
}

impl Distribution {
    fn new(table: &FrequencyTable) -> Distribution {
        let share = |f| Share {
            hashes: table.hashes_with_frequency(f),
            share: table.share_with_frequency(f),
        };
        Distribution {
            occurrences: table.occurrences(),
            distinct: table.distinct(),
            once: share(1),
            twice: share(2),
            three_times: share(3),
            max_frequency: table.max_frequency(),
            power_law: table.power_law().map(|p| Fit {
                slope: p.slope,
                intercept: p.intercept,
                points: p.points,
            }),
            plateaus: table
                .plateaus()
                .iter()
                .map(|p| [p.frequency, p.first_rank, p.last_rank])
                .collect(),
        }
    }
}

pub fn run(args: &Args) -> Result<()> {
    let (config, function) = args.engine.engine()?;
    // Checked before the long part: a bad --font is reported at once.
    let labels = match &args.output {
        Some(_) => font_ready(args.font.as_deref())?,
        None => false,
    };
    let listing = list(&args.paths, args.corpus.language);
    let pool = args.corpus.threads.pool()?;
    let threads = pool.current_num_threads();
    let spill_dir = args.spill_dir.clone().unwrap_or_else(std::env::temp_dir);
    let memory = usize::try_from(args.memory).unwrap_or(usize::MAX);
    let started = Instant::now();
    let reader = args.corpus.reader(&config, function);
    let total: u64 = listing.files.iter().map(|f| f.len).sum();

    // Pass 1: count every hash and every fingerprint.
    let bar = progress_bar(total, "count");
    let counts = pool.install(|| {
        count_hashes(
            &listing.files,
            &reader,
            &config,
            memory,
            &spill_dir,
            args.top,
            &|n| bar.inc(n),
        )
    });
    bar.finish_and_clear();
    let counts = match counts {
        Err(bryo_stats::Error::MemoryTooSmall { threads }) => {
            bail!("--memory is too small for {threads} threads")
        }
        other => other.context("counting")?,
    };
    let (all, fps) = (&counts.all, &counts.fingerprints);

    // Pass 2: one sample (the first in listing order) of each top k-gram.
    let mut wanted: Vec<HashCount> = all.top.iter().chain(&fps.top).copied().collect();
    wanted.sort_unstable_by_key(|c| c.hash);
    wanted.dedup_by_key(|c| c.hash);
    let found = if wanted.is_empty() {
        Vec::new()
    } else {
        let bar = progress_bar(total, "samples");
        let found =
            pool.install(|| sample_hashes(&listing.files, &reader, &wanted, &|n| bar.inc(n)));
        bar.finish_and_clear();
        found?
    };
    let by_hash: HashMap<u64, &Sample> = wanted.iter().map(|c| c.hash).zip(&found).collect();
    let listed = |top: &[HashCount]| -> Vec<TopKgram> {
        top.iter()
            .enumerate()
            .filter_map(|(i, c)| {
                by_hash.get(&c.hash).map(|s| {
                    let (doc, position, text) = s.first.clone().unwrap_or_default();
                    TopKgram {
                        rank: i + 1,
                        hash: format!("{:#018x}", c.hash),
                        count: c.count,
                        documents: s.documents,
                        path: listing
                            .files
                            .get(doc)
                            .map(|f| f.display_path.clone())
                            .unwrap_or_default(),
                        position,
                        text,
                    }
                })
            })
            .collect()
    };
    let (top, top_fingerprints) = (listed(&all.top), listed(&fps.top));
    let seconds = started.elapsed().as_secs_f64();

    let plot = match &args.output {
        Some(dir) => Some(plot(dir, labels, all, fps)?),
        None => None,
    };
    let report = Report {
        schema: "bryo.rank/1",
        k: config.k(),
        w: config.w(),
        t: config.t(),
        hash: function.name(),
        hash_scheme_version: HASH_SCHEME_VERSION,
        front_end: args.corpus.language,
        text_mode: match args.corpus.language {
            InputFormat::Text | InputFormat::Html => Some(args.corpus.text_mode().name()),
            InputFormat::Raw => None,
        },
        documents: counts.documents,
        total_bytes: counts.bytes,
        symbols: counts.symbols,
        skipped: all_skipped(&listing, &counts.skipped),
        other_extension: listing.other_extension,
        spilled_runs: counts.spilled_runs,
        hashes: Distribution::new(&all.table),
        fingerprints: Distribution::new(&fps.table),
        top,
        top_fingerprints,
        plot,
    };
    let mut out = std::io::stdout().lock();
    match args.format {
        Format::Json => {
            serde_json::to_writer_pretty(&mut out, &report)?;
            writeln!(out)?;
        }
        _ => {
            print_text(&mut out, &report)?;
            writeln!(
                out,
                "time: {seconds:.1} s on {threads} thread(s) ({:.1} MB/s over two passes; {} runs spilled)",
                counts.bytes as f64 / 1e6 / seconds.max(1e-9),
                report.spilled_runs
            )?;
        }
    }
    Ok(())
}

/// "1500", "64K", "512M", "2G" → bytes.
fn parse_size(s: &str) -> std::result::Result<u64, String> {
    let t = s.trim();
    let (digits, unit) = match t.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => (&t[..i], c.to_ascii_uppercase()),
        _ => (t, 'B'),
    };
    let shift = match unit {
        'B' => 0,
        'K' => 10,
        'M' => 20,
        'G' => 30,
        _ => return Err(format!("unknown unit in {s:?} (use K, M or G)")),
    };
    let n: u64 = digits
        .trim()
        .parse()
        .map_err(|_| format!("not a size: {s:?}"))?;
    n.checked_mul(1 << shift)
        .ok_or_else(|| format!("too large: {s:?}"))
}

fn plot(dir: &Path, labels: bool, all: &Summary, fps: &Summary) -> Result<PlotFiles> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let svg = dir.join("rank.svg");
    let png = dir.join("rank.png");
    let curves = [
        Curve::new("all k-gram hashes", &all.table),
        Curve::new("winnowed fingerprints", &fps.table),
    ];
    draw_rank_plot(&svg, &png, labels, &curves)?;
    Ok(PlotFiles {
        svg: svg.display().to_string(),
        png: png.display().to_string(),
        labels,
    })
}

fn print_text(out: &mut impl Write, r: &Report) -> Result<()> {
    writeln!(
        out,
        "files: {} documents, {} bytes, {} symbols ({})",
        group(r.documents),
        group(r.total_bytes),
        group(r.symbols),
        match r.text_mode {
            Some(mode) => format!("{:?} front-end, {mode}", r.front_end).to_lowercase(),
            None => "raw bytes".to_string(),
        }
    )?;
    if r.other_extension > 0 {
        writeln!(
            out,
            "not read: {} files of other types",
            group(r.other_extension)
        )?;
    }
    for s in r.skipped.iter().take(20) {
        writeln!(out, "skipped {}: {}", s.path, s.reason)?;
    }
    if r.skipped.len() > 20 {
        writeln!(out, "… and {} more skipped", r.skipped.len() - 20)?;
    }
    writeln!(
        out,
        "k = {}, w = {} (guarantee t = {}), hash {}",
        r.k, r.w, r.t, r.hash
    )?;
    writeln!(out)?;
    writeln!(
        out,
        "{:<24} {:>15} {:>15}",
        "", "all hashes", "fingerprints"
    )?;
    let row = |out: &mut dyn Write, name: &str, a: String, b: String| {
        writeln!(out, "{name:<24} {a:>15} {b:>15}")
    };
    let (a, b) = (&r.hashes, &r.fingerprints);
    row(
        out,
        "occurrences",
        group(a.occurrences),
        group(b.occurrences),
    )?;
    row(out, "distinct", group(a.distinct), group(b.distinct))?;
    for (name, x, y) in [
        ("occurring once", &a.once, &b.once),
        ("occurring twice", &a.twice, &b.twice),
        ("occurring 3 times", &a.three_times, &b.three_times),
    ] {
        row(
            out,
            name,
            format!("{:.1}%", x.share * 100.0),
            format!("{:.1}%", y.share * 100.0),
        )?;
    }
    row(
        out,
        "highest frequency",
        group(a.max_frequency),
        group(b.max_frequency),
    )?;
    let slope = |d: &Distribution| {
        d.power_law
            .as_ref()
            .map_or("-".to_string(), |p| format!("{:.3}", p.slope))
    };
    row(out, "power-law slope", slope(a), slope(b))?;
    for (title, list) in [
        ("most frequent k-grams", &r.top),
        ("most frequent fingerprints", &r.top_fingerprints),
    ] {
        if list.is_empty() {
            continue;
        }
        writeln!(out)?;
        writeln!(out, "{title}:")?;
        writeln!(out, "rank      count  documents  text (first occurrence)")?;
        for t in list {
            writeln!(
                out,
                "{:>4} {:>10} {:>10}  {}",
                t.rank,
                group(t.count),
                group(t.documents),
                t.text
            )?;
        }
    }
    if let Some(p) = &r.plot {
        writeln!(out)?;
        writeln!(
            out,
            "plot: {} and {}{}",
            p.svg,
            p.png,
            if p.labels {
                ""
            } else {
                " (no font found: drawn without text)"
            }
        )?;
    }
    Ok(())
}
