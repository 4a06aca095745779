//! `bryo rank`: how often k-grams recur across a corpus — the frequency of
//! every k-gram hash and of every winnowed fingerprint, against rank, as in
//! the winnowing paper's Figure 4 (§5.1). Counting, sampling and the plot
//! are `bryo_stats`'s; here are the flags and the text.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{bail, Result};
use bryo_report::{thousands as group, Columns};
use bryo_stats::{draw_rank_plot, font_ready, rank_corpus, Distribution, RankOptions, RankReport};

use crate::args::{formats, Format, TEXT_JSON};
use crate::corpus::{print_skipped, BytesBar, CorpusArgs, EngineArgs};

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

pub fn run(args: &Args) -> Result<()> {
    let (config, function) = args.engine.engine()?;
    // Checked before the long part: a bad --font is reported at once.
    let labels = match &args.output {
        Some(_) => font_ready(args.font.as_deref())?,
        None => false,
    };
    let pool = args.corpus.threads.pool()?;
    let threads = pool.current_num_threads();
    let options = RankOptions {
        config,
        function,
        read: args.corpus.read_options(),
        memory_bytes: usize::try_from(args.memory).unwrap_or(usize::MAX),
        spill_dir: args.spill_dir.clone().unwrap_or_else(std::env::temp_dir),
        top: args.top,
    };
    let started = Instant::now();
    let mut report = match pool.install(|| rank_corpus(&args.paths, &options, &BytesBar::new())) {
        Err(bryo_stats::Error::MemoryTooSmall { threads }) => {
            bail!("--memory is too small for {threads} threads")
        }
        other => other?,
    };
    let seconds = started.elapsed().as_secs_f64();
    if let Some(dir) = &args.output {
        report.plot = Some(draw_rank_plot(&report, dir, labels)?);
    }
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
                report.total_bytes as f64 / 1e6 / seconds.max(1e-9),
                report.spilled_runs
            )?;
        }
    }
    Ok(())
}

/// "1500", "64K", "512M", "2G" → bytes.
pub(crate) fn parse_size(s: &str) -> std::result::Result<u64, String> {
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

fn print_text(out: &mut impl Write, r: &RankReport) -> Result<()> {
    let front = match r.text_mode {
        Some(mode) => format!("{} front-end, {mode}", r.front_end.name()),
        None => "raw bytes".to_string(),
    };
    let (docs, bytes, symbols) = (group(r.documents), group(r.total_bytes), group(r.symbols));
    writeln!(
        out,
        "files: {docs} documents, {bytes} bytes, {symbols} symbols ({front})"
    )?;
    print_skipped(out, r.other_extension, &r.skipped)?;
    let (k, w, t, hash) = (r.k, r.w, r.t, r.hash);
    writeln!(out, "k = {k}, w = {w} (guarantee t = {t}), hash {hash}")?;
    writeln!(out)?;
    let (a, b) = (&r.hashes, &r.fingerprints);
    let row = |name: &str, f: &dyn Fn(&Distribution) -> String| [name.to_string(), f(a), f(b)];
    let share =
        |f: fn(&Distribution) -> f64| move |d: &Distribution| format!("{:.1}%", f(d) * 100.0);
    let slope = |d: &Distribution| {
        d.power_law
            .map_or("-".to_string(), |p| format!("{:.3}", p.slope))
    };
    let mut table = Columns::new().left("", 24).right(" ", 15).right(" ", 15);
    table.row(["", "all hashes", "fingerprints"]);
    table.row(row("occurrences", &|d| group(d.occurrences)));
    table.row(row("distinct", &|d| group(d.distinct)));
    table.row(row("occurring once", &share(|d| d.once.share)));
    table.row(row("occurring twice", &share(|d| d.twice.share)));
    table.row(row("occurring 3 times", &share(|d| d.three_times.share)));
    table.row(row("highest frequency", &|d| group(d.max_frequency)));
    table.row(row("power-law slope", &slope));
    table.write(out)?;
    for (title, list) in [
        ("most frequent k-grams", &r.top),
        ("most frequent fingerprints", &r.top_fingerprints),
    ] {
        if list.is_empty() {
            continue;
        }
        writeln!(out, "\n{title}:")?;
        let columns = Columns::new().right("", 4).right(" ", 10);
        let mut table = columns.right(" ", 10).left("  ", 0);
        table.row(["rank", "count", "documents", "text (first occurrence)"]);
        for t in list {
            let (count, docs) = (group(t.count), group(t.documents));
            table.row([t.rank.to_string(), count, docs, t.text.clone()]);
        }
        table.write(out)?;
    }
    if let Some(p) = &r.plot {
        let note = match p.labels {
            true => "",
            false => " (no font found: drawn without text)",
        };
        writeln!(out, "\nplot: {} and {}{note}", p.svg, p.png)?;
    }
    Ok(())
}
