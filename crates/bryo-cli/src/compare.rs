//! `bryo compare`: rank the pairs of submissions that share passages.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufWriter, IsTerminal, Read, Write};
use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use bryo_compare::{
    analyze_inputs_with_archive, Analysis, ArchivedSubmission, CompareError, CompareOptions,
    Progress, Stage,
};
use bryo_html::write_html;
use bryo_index::{Index, IndexSettings};
use bryo_input::{discover, parse_file_list, InputOptions};
use bryo_match::{Ranked, Retain};
use bryo_report::{
    write_csv, write_json_with, write_table, CsvPairs, JsonLayout, JsonPairEncoder, JsonPairs,
    PairWriter, Report, TableOptions,
};
use rayon::prelude::*;

use crate::args::{Format, ThreadsArg};
use crate::frontend_args::FrontendArgs;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Files, directories (searched recursively, honouring .gitignore) and
    /// .zip archives holding the submissions.
    #[arg(value_name = "PATH")]
    paths: Vec<PathBuf>,

    #[command(flatten)]
    frontend: FrontendArgs,

    /// Each directory directly under a PATH is one submission of many files
    /// (MOSS -d); files of one submission are never compared with each other.
    #[arg(short = 'd', long = "directory")]
    directory: bool,

    /// Base code handed out with the assignment (file, directory or zip;
    /// repeatable): passages it contains are not counted (MOSS -b).
    #[arg(short = 'b', long = "base", value_name = "PATH")]
    base: Vec<PathBuf>,

    /// Submissions from earlier terms (repeatable): compared with the new
    /// ones, never with each other.
    #[arg(long = "old", value_name = "PATH")]
    old: Vec<PathBuf>,

    /// A fingerprint index of earlier terms (`bryo index`): every archived
    /// submission is compared with the new ones like an --old one, from
    /// its stored symbols (no file is read or analyzed again). With a
    /// language, the index is read in part (its statistics, the postings
    /// of the new files' hashes, the archived submissions of the pairs
    /// chosen), so a query takes time with the new term, not the archive;
    /// with -b or --in-memory, every archived submission is loaded. The language, normalization and k/w must be the index's;
    /// without -l the index's language is taken. Archived submissions and
    /// files are shown as `path [TAG]`.
    #[arg(long = "against", value_name = "DIR")]
    against: Option<PathBuf>,

    /// Read more paths from FILE, one per line ("-" for standard input).
    #[arg(long = "files-from", value_name = "FILE")]
    files_from: Option<PathBuf>,

    /// Only take files matching GLOB (repeatable), e.g. '*.py'.
    #[arg(long = "include", value_name = "GLOB")]
    include: Vec<String>,

    /// Leave out files matching GLOB (repeatable); wins over --include.
    #[arg(long = "exclude", value_name = "GLOB")]
    exclude: Vec<String>,

    /// MOSS's rule: a passage found in more than N submissions is ignored
    /// as a common idiom (MOSS -m); 0 = no limit; `-m 2` keeps only passages
    /// in exactly two submissions. Without -m, only template code is
    /// ignored: passages in more than half of the submissions (identical
    /// files counted once, at least 10); passages a group of copiers
    /// shares stay matched.
    #[arg(short = 'm', long = "max-submissions", value_name = "N")]
    max_submissions: Option<u32>,

    /// Number of pairs reported (MOSS -n); 0 = every pair that shares a
    /// fingerprint. Pairs of identical submissions count like the others,
    /// ranked by their matched symbols.
    #[arg(short = 'n', long = "pairs", value_name = "N", default_value_t = 250)]
    pairs: u32,

    /// A comment recorded in the report (MOSS -c).
    #[arg(short = 'c', long = "comment", value_name = "TEXT")]
    comment: Option<String>,

    /// Noise threshold: symbols per k-gram; matches shorter than k are never
    /// found [default: 12 tokens for code, 20 characters or 6 words for prose].
    #[arg(short = 'k', value_name = "K")]
    k: Option<usize>,

    /// Winnowing window in k-grams [default: 12 for code, 40 characters or 12 words for prose].
    #[arg(short = 'w', value_name = "W", conflicts_with = "t")]
    w: Option<usize>,

    /// Guarantee threshold instead of -w: every match of at least T symbols
    /// is found (w = t - k + 1).
    #[arg(short = 't', value_name = "T")]
    t: Option<usize>,

    /// Pairs below this similarity are not reported (0..1, or a percentage
    /// such as 40%).
    #[arg(long = "min-similarity", value_name = "S", value_parser = parse_fraction, default_value = "0")]
    min_similarity: f64,

    /// Matched fragments shorter than N symbols are dropped; a merged
    /// fragment (--merge-gap) counts its matched symbols, not its gaps.
    /// Never below k [default: k for code; 80 characters or 16 words for
    /// prose, scaled down for short documents, where shorter matches are
    /// mostly common phrases].
    #[arg(long = "min-tokens", value_name = "N")]
    min_tokens: Option<usize>,

    /// Match merging: neighbouring matches at most N symbols apart on both
    /// sides (in the same order) merge into one fragment before the
    /// --min-tokens rule, so that a copy broken up by inserted statements
    /// or edited words is still seen; the report lists the parts and the
    /// gaps. 0 merges nothing [default: 16 characters or 2 words for prose;
    /// 0 for code].
    #[arg(long = "merge-gap", value_name = "N")]
    merge_gap: Option<usize>,

    /// With merging: a gap is also at most R times the shorter of the two
    /// matches it separates [default: 1 for code; no limit for prose].
    #[arg(long = "merge-ratio", value_name = "R")]
    merge_ratio: Option<f64>,

    /// Pairs at or above this similarity join their submissions in a
    /// cluster (0..1 or a percentage).
    #[arg(long = "cluster-threshold", value_name = "S", value_parser = parse_fraction, default_value = "0.5")]
    cluster_threshold: f64,

    /// How a pair's similarity is computed: `symmetric`, the share of both
    /// submissions inside matches, or `directional`, the larger of the two
    /// shares (a copy that grew by added code stays at the share of its
    /// source). Both shares are always reported.
    #[arg(long = "score", value_enum, default_value_t = ScoreArg::Symmetric)]
    score: ScoreArg,

    /// Count every match in full. By default (without -m, in classes large
    /// enough for a template), a match shorter than four k-grams counts in
    /// the similarity by how rare its code is: in at most 10 submissions in
    /// full, less the more of the class shares it, so that idioms every
    /// solution writes weigh less than the same length of copied code. The
    /// matched percentages are never discounted.
    #[arg(long = "no-discount")]
    no_discount: bool,

    /// Exit with code 1 when a reported pair reaches this similarity (0..1
    /// or a percentage): for CI pipelines.
    #[arg(long = "fail-above", value_name = "S", value_parser = parse_fraction)]
    fail_above: Option<f64>,

    /// Print where the time went to standard error once the report is
    /// written: each phase's wall time, CPU time (user + system, all
    /// threads) and page faults.
    #[arg(long = "timings")]
    timings: bool,

    /// Files larger than this many bytes are skipped (and listed).
    #[arg(long = "max-file-size", value_name = "BYTES", default_value_t = bryo_input::DEFAULT_MAX_FILE_SIZE)]
    max_file_size: u64,

    /// Output format: a terminal table, JSON, CSV, or an HTML report (a
    /// directory, given with -o).
    #[arg(long = "format", value_enum, default_value_t = Format::Text)]
    format: Format,

    /// Write the report to FILE instead of standard output (with
    /// --format html: the directory to write the report into).
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: Option<PathBuf>,

    /// With --format json: every member of every object and every element
    /// of every array on a line of its own, two spaces per level. Without
    /// it a report has a line per top-level key, per submission, per pair
    /// (with its fragments) and per cluster: the same JSON in about half
    /// the bytes.
    #[arg(long = "pretty")]
    pretty: bool,

    /// Colour in the terminal table.
    #[arg(long = "color", value_enum, default_value_t = ColorArg::Auto)]
    color: ColorArg,

    /// Stream the corpus within SIZE of memory (bytes, or with a K, M or G
    /// suffix) for its fingerprints and pair counts: beyond it they are
    /// sorted and spilled to temporary files, then merged, and only the
    /// files of the pairs compared are read again. The report is the same;
    /// its pairs are ranked on disk too and written as they are read back
    /// (JSON, CSV, text), so that -n 0 on a large class stays within the
    /// budget however many pairs it reports.
    /// Needs -l; not with -b. Without it, a
    /// run that could stream does so when its files total more than
    /// 256 MiB, within 512M.
    #[arg(long = "memory", value_name = "SIZE", value_parser = crate::rank::parse_size)]
    memory: Option<u64>,

    /// Hold the whole corpus in memory however large it is (faster than
    /// streaming when it fits: about four times the size of its files).
    #[arg(long = "in-memory", conflicts_with = "memory")]
    in_memory: bool,

    /// Folder for the spill files of a streamed run [default: the
    /// system's temporary folder].
    #[arg(long = "spill-dir", value_name = "DIR")]
    spill_dir: Option<PathBuf>,

    #[command(flatten)]
    threads: ThreadsArg,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum ColorArg {
    Auto,
    Always,
    Never,
}

/// `0.4`, `40%` → 0.4; anything outside 0..1 is an error.
fn parse_fraction(s: &str) -> Result<f64, String> {
    let (number, scale) = match s.strip_suffix('%') {
        Some(p) => (p, 100.0),
        None => (s, 1.0),
    };
    let v: f64 = number
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a number (use e.g. 0.4 or 40%)"))?;
    let v = v / scale;
    if !(0.0..=1.0).contains(&v) {
        return Err(format!("`{s}` is outside 0..1 (0%..100%)"));
    }
    Ok(v)
}

/// Runs the command; `Ok(true)` when `--fail-above` was reached.
pub fn run(args: &Args) -> Result<bool> {
    if args.timings {
        crate::timings::enable(std::time::Instant::now(), "discover");
    }
    let result = args.threads.pool()?.install(|| compare(args));
    crate::timings::print();
    result
}

fn compare(args: &Args) -> Result<bool> {
    let mut analyze = args.frontend.analyze_options()?;
    let index = match &args.against {
        Some(dir) => {
            let index = Index::open(dir)?;
            let stored = *index.settings();
            if analyze.language.is_none() {
                analyze.language = stored.analyze.language;
            }
            // The parser and token normalization not given are the
            // index's (an index made before normalization was the default
            // for its language keeps working).
            if !args.frontend.parser_given() {
                analyze.parser = stored.analyze.parser;
                analyze.normalize = stored.analyze.normalize;
            }
            // k and w not given are the index's.
            let (k, w) = match (args.k, args.w, args.t) {
                (None, None, None) => (Some(stored.config.k()), Some(stored.config.w())),
                (k, w, t) => (k, w.or(t.is_none().then(|| stored.config.w()))),
            };
            let asked = IndexSettings::new(analyze, k, w, args.t)?;
            stored.check(dir, &asked)?;
            Some(index)
        }
        None => None,
    };
    let language = analyze.language;
    let mut files_from = Vec::new();
    if let Some(list) = &args.files_from {
        let mut text = String::new();
        if list.as_os_str() == "-" {
            io::stdin()
                .read_to_string(&mut text)
                .context("cannot read the file list from standard input")?;
        } else {
            File::open(list)
                .and_then(|mut f| f.read_to_string(&mut text))
                .with_context(|| format!("cannot read the file list {}", list.display()))?;
        }
        files_from = parse_file_list(&text);
    }
    if args.paths.is_empty() && files_from.is_empty() {
        bail!("no submissions given: pass files, directories or zip archives (or --files-from)");
    }
    let input_options = InputOptions {
        roots: args.paths.clone(),
        files_from,
        include: args.include.clone(),
        exclude: args.exclude.clone(),
        extensions: language
            .map(|l| l.extensions().iter().map(|e| e.to_string()).collect())
            .unwrap_or_default(),
        directory_mode: args.directory,
        base: args.base.clone(),
        old: args.old.clone(),
        max_file_size: args.max_file_size,
        ..InputOptions::default()
    };
    if args.format == Format::Html && args.output.is_none() {
        bail!("--format html writes a directory: name it with -o DIR");
    }
    if args.pretty && args.format != Format::Json {
        bail!("--pretty lays out JSON: give it with --format json");
    }
    // A corpus can be streamed when the front-end is known before reading
    // and nothing needs every file's text at once.
    let blocked = if language.is_none() {
        Some("needs the language (-l)")
    } else if !args.base.is_empty() {
        Some("does not take base code (-b) yet")
    } else {
        None
    };
    if let (Some(_), Some(why)) = (args.memory, blocked) {
        bail!("--memory streams the corpus, which {why}");
    }
    let input_options = InputOptions {
        defer_reading: blocked.is_none() && !args.in_memory,
        ..input_options
    };
    let mut inputs = discover(&input_options)?;
    if let (true, Some(index)) = (input_options.defer_reading, &index) {
        let archive = index.archive()?;
        let options = compare_options(analyze, args, Some(*index.settings()));
        let memory = args.memory.unwrap_or(STREAM_MEMORY);
        let bar = StageBar::new();
        let result = run_streamed(inputs, Some(&archive), &options, args, memory, &bar);
        bar.0.finish_and_clear();
        return result;
    }
    if input_options.defer_reading {
        let total = listed_bytes(&inputs);
        if args.memory.is_some() || total > STREAM_INPUT_BYTES {
            let memory = args.memory.unwrap_or(STREAM_MEMORY);
            if args.memory.is_none() {
                eprintln!(
                    "bryo: note: {} MB of files: streamed within {} MB of memory (--memory)",
                    total >> 20,
                    memory >> 20
                );
            }
            let options = compare_options(analyze, args, None);
            let bar = StageBar::new();
            let result = run_streamed(inputs, None, &options, args, memory, &bar);
            bar.0.finish_and_clear();
            return result;
        }
        if total <= crate::hugepages::HUGE_PAGE_INPUT_BYTES {
            crate::hugepages::allow(true);
        }
        crate::timings::mark("read");
        read_listed(&mut inputs, args.max_file_size);
    }
    // The HTML report shows the submitted text: keep the bytes as read
    // (files inside zip archives have no path on disk).
    let mut sources: HashMap<String, Vec<u8>> = if args.format == Format::Html {
        inputs
            .submissions
            .iter()
            .flat_map(|s| &s.files)
            .map(|f| (f.display_path.clone(), f.bytes.clone()))
            .collect()
    } else {
        HashMap::new()
    };

    // Archived submissions, named `name [TAG]` so that the report tells
    // them apart from new ones (and from files of the same path); the tag
    // goes last because the terminal table shortens names from the left.
    let mut archive = Vec::new();
    if let Some(index) = &index {
        for a in index.archived()? {
            let mut submission = a.submission;
            let label = bryo_index::archive_label(&a.tag);
            submission.name = format!("{} {label}", submission.name);
            for ((file, _), source) in submission.files.iter_mut().zip(a.sources) {
                file.path = format!("{} {label}", file.path);
                if args.format == Format::Html {
                    sources.insert(file.path.clone(), source);
                }
            }
            archive.push(submission);
        }
    }
    let settings = index.as_ref().map(|i| *i.settings());
    let options = compare_options(analyze, args, settings);
    let bar = StageBar::new();
    let result = run_stages(inputs, archive, &options, args, &sources, &bar);
    bar.0.finish_and_clear();
    result
}

/// The compare job's options from the command line; with `settings`, the
/// index's (`--against`).
fn compare_options(
    analyze: bryo_compare::AnalyzeOptions,
    args: &Args,
    settings: Option<IndexSettings>,
) -> CompareOptions {
    CompareOptions {
        analyze,
        k: settings.map_or(args.k, |s| Some(s.config.k())),
        w: settings.map_or(args.w, |s| Some(s.config.w())),
        t: if settings.is_some() { None } else { args.t },
        max_submissions: args.max_submissions.map(|m| m as usize),
        max_pairs: args.pairs as usize,
        min_similarity: args.min_similarity,
        min_fragment_symbols: args.min_tokens,
        merge_gap: args.merge_gap,
        merge_ratio: args.merge_ratio,
        cluster_threshold: args.cluster_threshold,
        score: match args.score {
            ScoreArg::Symmetric => bryo_compare::PairScore::Symmetric,
            ScoreArg::Directional => bryo_compare::PairScore::Directional,
        },
        rarity_discount: !args.no_discount,
        comment: args.comment.clone(),
        directory_mode: args.directory,
        base_names: args.base.iter().map(|p| p.display().to_string()).collect(),
        old_names: args
            .old
            .iter()
            .chain(&args.against)
            .map(|p| p.display().to_string())
            .collect(),
        // The reports need the symbols, lines and the map back to the
        // bytes; the HTML report shows `sources`, the bytes as read.
        keep_text: false,
        max_file_size: args.max_file_size,
    }
}

/// Input above which a run that can stream does so ([`STREAM_MEMORY`]).
const STREAM_INPUT_BYTES: u64 = 256 << 20;

/// Memory of a streamed run without `--memory`.
const STREAM_MEMORY: u64 = 512 << 20;

/// Bytes of every discovered file: held ones, and the size on disk of
/// those whose reading was deferred.
fn listed_bytes(inputs: &bryo_input::Inputs) -> u64 {
    inputs
        .submissions
        .par_iter()
        .flat_map(|s| &s.files)
        .map(|f| match &f.source {
            bryo_input::Source::File(path) if f.bytes.is_empty() => match f.size_hint {
                Some(size) => size,
                None => std::fs::metadata(path).map_or(0, |m| m.len()),
            },
            _ => f.bytes.len() as u64,
        })
        .sum()
}

/// Reads every file whose reading was deferred, on all threads; one that
/// cannot be read now (or grew past the limit) is skipped with the reason,
/// as discovery would have skipped it.
fn read_listed(inputs: &mut bryo_input::Inputs, limit: u64) {
    let failed: Vec<bryo_input::SkippedInput> = inputs
        .submissions
        .par_iter_mut()
        .flat_map_iter(|s| {
            let mut failed = Vec::new();
            s.files.retain_mut(|f| match f.read(limit) {
                Ok(std::borrow::Cow::Owned(bytes)) => {
                    f.bytes = bytes;
                    // Held now: the bytes are the file.
                    f.size_hint = None;
                    true
                }
                Ok(std::borrow::Cow::Borrowed(_)) => true,
                Err(reason) => {
                    failed.push(bryo_input::SkippedInput {
                        path: f.display_path.clone(),
                        reason,
                    });
                    false
                }
            });
            failed
        })
        .collect();
    inputs.skipped.extend(failed);
    inputs.submissions.retain(|s| !s.files.is_empty());
}

/// The compare job streamed within `memory` bytes
/// ([`bryo_compare::compare_streamed`]), the report written.
fn run_streamed(
    inputs: bryo_input::Inputs,
    archive: Option<&bryo_index::IndexArchive>,
    options: &CompareOptions,
    args: &Args,
    memory: u64,
    progress: &StageBar,
) -> Result<bool> {
    let mut stream = bryo_compare::StreamOptions::new(
        usize::try_from(memory).unwrap_or(usize::MAX),
        args.spill_dir.clone().unwrap_or_else(std::env::temp_dir),
    );
    stream.max_file_size = args.max_file_size;
    // Only JSON and HTML show fragments. JSON, CSV and the table read the
    // ranked pairs back from disk, pair by pair (JSON with their
    // fragments), so that they never pile up in memory.
    stream.fragments = match args.format {
        Format::Json => bryo_compare::FragmentKeeping::Spilled,
        Format::Html => bryo_compare::FragmentKeeping::Kept,
        Format::Csv | Format::Text => bryo_compare::FragmentKeeping::Dropped,
    };
    // The HTML report shows the text of the reported pairs' files: where
    // to read each again (its bytes are not kept).
    let files: HashMap<String, bryo_input::InputFile> = if args.format == Format::Html {
        inputs
            .submissions
            .iter()
            .flat_map(|s| &s.files)
            .map(|f| (f.display_path.clone(), f.clone()))
            .collect()
    } else {
        HashMap::new()
    };
    let streamed = match archive {
        Some(archive) => {
            bryo_compare::compare_against(inputs, archive, options, &stream, progress)?
        }
        None => bryo_compare::compare_streamed(inputs, options, &stream, progress)?,
    };
    progress.0.finish_and_clear();
    let report = streamed.report;
    warn_about_common_passages(&report);
    if let Some(pairs) = streamed.pairs {
        write_spilled(&report, &pairs, args)?;
        return Ok(args
            .fail_above
            .zip(pairs.max_similarity())
            .is_some_and(|(limit, best)| best >= limit));
    }
    let failed = args
        .fail_above
        .is_some_and(|limit| report.pairs.iter().any(|p| p.similarity >= limit));
    let sources = if args.format == Format::Html {
        shown_sources(&report, &files, archive, args.max_file_size)?
    } else {
        HashMap::new()
    };
    write_report(&report, args, &sources)?;
    Ok(failed)
}

/// Writes the report of a streamed run whose pairs were left on disk:
/// `head` (no pairs), then the pairs, [`STREAM_BATCH`] at a time in rank
/// order, each batch (with its fragments for JSON) encoded on all cores.
/// The bytes are those [`write_report`] writes for the whole report.
fn write_spilled(head: &Report, pairs: &bryo_compare::SpilledPairs, args: &Args) -> Result<()> {
    let mut out = open_output(args)?;
    match args.format {
        Format::Text => {
            // Read twice: the column widths, then the rows.
            let mut each = |row: &mut bryo_report::PairRow<'_>| {
                let mut reader = pairs.reader().map_err(io::Error::other)?;
                loop {
                    let batch = reader.next_batch(STREAM_BATCH).map_err(io::Error::other)?;
                    if batch.is_empty() {
                        return Ok(());
                    }
                    batch.iter().try_for_each(&mut *row)?;
                }
            };
            bryo_report::write_table_with(
                head,
                pairs.len(),
                &mut each,
                &mut out,
                &table_options(args),
            )?;
            out.flush().context("cannot write the report")?;
        }
        Format::Json => {
            let mut writer = JsonPairs::begin_with(head, json_layout(args), out)?;
            write_read_back(pairs, &mut writer)?;
            writer.finish()?;
        }
        _ => {
            let mut writer = CsvPairs::begin(head, out)?;
            write_read_back(pairs, &mut writer)?;
            writer.finish()?;
        }
    }
    Ok(())
}

/// Every pair of `pairs` through `writer`, in rank order.
fn write_read_back(
    pairs: &bryo_compare::SpilledPairs,
    writer: &mut (impl PairWriter + Sync),
) -> Result<()> {
    let mut reader = pairs.reader()?;
    let mut rank = 0;
    loop {
        let batch = reader.next_batch(STREAM_BATCH)?;
        if batch.is_empty() {
            return Ok(());
        }
        let encoded: Vec<Vec<u8>> = batch
            .par_iter()
            .enumerate()
            .map(|(i, pair)| writer.encode(rank + i + 1, pair))
            .collect::<Result<_, _>>()?;
        for e in &encoded {
            writer.write_encoded(e)?;
        }
        rank += batch.len();
    }
}

/// The bytes of every file of the submissions in `report`'s pairs: read
/// again from `files` (by display path), or, for an archived submission
/// (the last of the report's submissions), from the index. A file that
/// cannot be read again is left out (its page says so).
fn shown_sources(
    report: &bryo_report::Report,
    files: &HashMap<String, bryo_input::InputFile>,
    archive: Option<&bryo_index::IndexArchive>,
    max_file_size: u64,
) -> Result<HashMap<String, Vec<u8>>> {
    let archived = archive.map_or(0, bryo_index::IndexArchive::submission_count);
    let first_archived = report.submissions.len().saturating_sub(archived);
    let shown: std::collections::BTreeSet<usize> =
        report.pairs.iter().flat_map(|p| [p.a, p.b]).collect();
    let mut sources = HashMap::new();
    for i in shown {
        match archive {
            Some(archive) if i >= first_archived => {
                sources.extend(archive.sources(i - first_archived)?);
            }
            _ => {
                for entry in &report.submissions[i].files {
                    if let Some(bytes) = files
                        .get(&entry.path)
                        .and_then(|f| f.read(max_file_size).ok())
                    {
                        sources.insert(entry.path.clone(), bytes.into_owned());
                    }
                }
            }
        }
    }
    Ok(sources)
}

/// Candidates and identical pairs above which JSON and CSV reports are
/// written pair by pair, and the table drawn from pairs without their
/// fragments (see [`run_stages`]); `BRYO_STREAM_CANDIDATES` overrides it.
const STREAM_CANDIDATES: usize = 20_000;

/// Reported pairs computed, converted and encoded together when streaming.
const STREAM_BATCH: usize = 1024;

/// The compare job's stages, with archived submissions among the old ones,
/// and the report written; `Ok(true)` when `--fail-above` was reached.
///
/// A JSON or CSV report of many candidates (`-n 0` on a large class) is
/// written pair by pair: each candidate's fragments are dropped once it is
/// scored, and those of the reported pairs are computed again, batch by
/// batch, on all cores, and written at once, so that memory does not grow
/// with the pairs' fragments. The table, which shows none, keeps each
/// reported pair without them. The output is the same byte for byte.
fn run_stages(
    inputs: bryo_input::Inputs,
    archive: Vec<ArchivedSubmission>,
    options: &CompareOptions,
    args: &Args,
    sources: &HashMap<String, Vec<u8>>,
    progress: &StageBar,
) -> Result<bool> {
    let analysis = analyze_inputs_with_archive(inputs, archive, options, progress)?;
    let stream_above = std::env::var("BRYO_STREAM_CANDIDATES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(STREAM_CANDIDATES);
    let comparison = {
        let corpus = analysis.corpus();
        let indexed = bryo_match::fingerprint(&corpus, analysis.match_options(), progress)
            .and_then(|f| f.index(progress))
            .map_err(CompareError::from)?;
        let candidates = indexed.pairs(progress).map_err(CompareError::from)?;
        // Identical pairs are reported whether they share a fingerprint
        // or not: a class of copies of a file too short for a k-gram has
        // millions of them and no candidate.
        let to_report = candidates.pairs.len() + indexed.identical_pairs();
        let streamed = matches!(args.format, Format::Json | Format::Csv | Format::Text)
            && to_report > stream_above;
        if streamed {
            let ranked = indexed
                .rank(candidates, Retain::Scores, progress)
                .map_err(CompareError::from)?;
            return write_streamed(&analysis, &ranked, options, args, progress);
        }
        indexed
            .fragments(candidates, progress)
            .map_err(CompareError::from)?
    };
    let outcome = analysis.report(comparison, options, progress);
    // The bar is gone before the report is written.
    progress.0.finish_and_clear();
    warn_about_common_passages(&outcome.report);
    crate::timings::mark("write");
    write_report(&outcome.report, args, sources)?;
    let failed = args
        .fail_above
        .is_some_and(|limit| outcome.report.pairs.iter().any(|p| p.similarity >= limit));
    // The process ends once the report is written: the system takes the
    // memory back at once, faster than freeing the report piece by piece.
    std::mem::forget(outcome);
    Ok(failed)
}

/// Writes a JSON or CSV report pair by pair (see [`run_stages`]).
fn write_streamed(
    analysis: &Analysis,
    ranked: &Ranked<'_>,
    options: &CompareOptions,
    args: &Args,
    progress: &StageBar,
) -> Result<bool> {
    // Written to a file, the pairs advance the bar; to standard output,
    // the bar would be drawn among them.
    let progress: &dyn Progress = if args.output.is_some() {
        progress
    } else {
        progress.0.finish_and_clear();
        &bryo_compare::Silent
    };
    progress.start(Stage::Report, ranked.len() as u64);
    // Each pair's report is made as it is written: one phase for both.
    crate::timings::mark("write");
    let mut head = analysis.report_head(ranked.summary(), options);
    warn_about_common_passages(&head);
    let mut out = open_output(args)?;
    match args.format {
        Format::Text => {
            // The table shows no fragments: each pair's are computed for
            // its lines and percentages, then dropped.
            for start in (0..ranked.len()).step_by(STREAM_BATCH) {
                let batch = ranked.pairs(start..start + STREAM_BATCH);
                head.pairs.par_extend(batch.par_iter().map(|m| {
                    let mut pair = analysis.report_pair(m);
                    pair.fragments = Vec::new();
                    pair
                }));
                progress.advance(batch.len() as u64);
            }
            write_table(&head, &mut out, &table_options(args))?;
            out.flush().context("cannot write the report")?;
        }
        Format::Json => {
            let mut writer = JsonPairs::begin_with(&head, json_layout(args), out)?;
            stream_pairs(analysis, ranked, &mut writer, progress)?;
            writer.finish()?;
        }
        _ => {
            let mut writer = CsvPairs::begin(&head, out)?;
            stream_pairs(analysis, ranked, &mut writer, progress)?;
            writer.finish()?;
        }
    }
    Ok(args
        .fail_above
        .zip(ranked.max_similarity())
        .is_some_and(|(limit, best)| best >= limit))
}

/// Every reported pair through `writer`, [`STREAM_BATCH`] at a time: the
/// batch's fragments computed again, mapped to lines and encoded on all
/// cores, then written in rank order.
fn stream_pairs(
    analysis: &Analysis,
    ranked: &Ranked<'_>,
    writer: &mut (impl PairWriter + Sync),
    progress: &dyn Progress,
) -> Result<()> {
    for start in (0..ranked.len()).step_by(STREAM_BATCH) {
        let encoded: Vec<Vec<u8>> = ranked
            .pairs(start..start + STREAM_BATCH)
            .par_iter()
            .enumerate()
            .map(|(i, m)| writer.encode(start + i + 1, &analysis.report_pair(m)))
            .collect::<Result<_, _>>()?;
        for e in &encoded {
            writer.write_encoded(e)?;
        }
        progress.advance(encoded.len() as u64);
    }
    Ok(())
}

/// A progress bar on standard error, drawn only when it is a terminal.
pub(crate) struct StageBar(pub(crate) indicatif::ProgressBar);

impl StageBar {
    pub(crate) fn new() -> StageBar {
        let bar = if io::stderr().is_terminal() {
            indicatif::ProgressBar::new(0)
        } else {
            indicatif::ProgressBar::hidden()
        };
        if let Ok(style) =
            indicatif::ProgressStyle::with_template("{msg:>11} [{bar:30}] {pos}/{len} ({elapsed})")
        {
            bar.set_style(style.progress_chars("=> "));
        }
        StageBar(bar)
    }
}

impl Progress for StageBar {
    fn start(&self, stage: Stage, work: u64) {
        crate::timings::mark(stage.name());
        self.0.set_message(stage.name());
        self.0.set_position(0);
        self.0.set_length(work);
    }
    fn advance(&self, done: u64) {
        self.0.inc(done);
    }
}

/// `-m` hides a passage shared by many submissions; when that hides a large
/// part of everything, the batch is probably many copies of one source (or
/// a big common template), and the user should know why pairs are missing.
fn warn_about_common_passages(report: &Report) {
    let stats = &report.stats;
    let Some(m) = report.options.max_submissions else {
        if let Some(t) = stats.template_above.filter(|_| stats.common_hashes > 0) {
            eprintln!(
                "bryo: note: {:.0}% of all fingerprints are in more than {t} submissions and were \
                 ignored as template code; pass the template with -b to say so, or -m 0 to \
                 match it too",
                100.0 * stats.common_hashes as f64 / stats.fingerprints.max(1) as f64
            );
        }
        return;
    };
    if m > 0 && stats.fingerprints > 0 && stats.common_hashes * 5 > stats.fingerprints {
        eprintln!(
            "bryo: note: {:.0}% of all fingerprints are in more than {m} submissions and were \
             ignored as common code (-m {m}); if many submissions share a source on purpose, \
             pass it with -b, raise -m (-m 0: no limit), or leave -m out to ignore only template code",
            100.0 * stats.common_hashes as f64 / stats.fingerprints as f64
        );
    }
}

/// The JSON layout `--pretty` asks for.
fn json_layout(args: &Args) -> JsonLayout {
    if args.pretty {
        JsonLayout::Pretty
    } else {
        JsonLayout::Lines
    }
}

/// The bytes [`write_json_with`] writes, with the pairs — most of a
/// report — encoded on all cores, a batch at a time, as a streamed run
/// writes them.
fn write_json_pairs_in_parallel(
    report: &Report,
    layout: JsonLayout,
    out: impl Write + Send + Sync,
) -> Result<()> {
    if report.pairs.len() < 2 {
        return Ok(write_json_with(report, layout, out)?);
    }
    let Report {
        schema,
        bryo_version,
        options,
        submissions,
        pairs,
        clusters,
        identical_submissions,
        identical_files,
        skipped,
        stats,
    } = report;
    let head = Report {
        schema: *schema,
        bryo_version: bryo_version.clone(),
        options: options.clone(),
        submissions: submissions.clone(),
        pairs: Vec::new(),
        clusters: clusters.clone(),
        identical_submissions: identical_submissions.clone(),
        identical_files: identical_files.clone(),
        skipped: skipped.clone(),
        stats: stats.clone(),
    };
    // Small batches: the pairs themselves are in memory already.
    const BATCH: usize = 64;
    let batches: Vec<&[bryo_report::Pair]> = pairs.chunks(BATCH).collect();
    let encoder = JsonPairEncoder::with_layout(&head, layout);
    let encode = |b: usize| -> Result<Vec<Vec<u8>>, bryo_report::ReportError> {
        batches[b]
            .par_iter()
            .enumerate()
            .map(|(i, p)| encoder.encode(b * BATCH + i + 1, p))
            .collect()
    };
    // Each batch is written while the next one is encoded, and the head
    // while the first is. Checks what `write_json_with` checks: the head, then
    // every pair.
    let (writer, first) = rayon::join(|| JsonPairs::begin_with(&head, layout, out), || encode(0));
    let mut writer = writer?;
    let mut encoded = first?;
    for b in 1..batches.len() {
        let (written, next) = rayon::join(
            || encoded.iter().try_for_each(|e| writer.write_encoded(e)),
            || encode(b),
        );
        written?;
        encoded = next?;
    }
    for e in &encoded {
        writer.write_encoded(e)?;
    }
    writer.finish()?;
    Ok(())
}

/// Where a report goes: the file of `-o` (created, or emptied) or standard
/// output, buffered; shareable with the threads that encode pairs (which
/// never write to it).
fn open_output(args: &Args) -> Result<Box<dyn Write + Send + Sync>> {
    Ok(match &args.output {
        Some(path) => Box::new(BufWriter::new(
            File::create(path).with_context(|| format!("cannot create {}", path.display()))?,
        )),
        None => Box::new(BufWriter::new(io::stdout())),
    })
}

fn write_report(report: &Report, args: &Args, sources: &HashMap<String, Vec<u8>>) -> Result<()> {
    if let (Format::Html, Some(dir)) = (args.format, &args.output) {
        let loader = |path: &str| -> Result<Vec<u8>, String> {
            sources
                .get(path)
                .cloned()
                .ok_or_else(|| format!("{path} was not among the files read"))
        };
        write_html(report, &loader, dir)?;
        return Ok(());
    }
    let mut out = open_output(args)?;
    match args.format {
        Format::Json => write_json_pairs_in_parallel(report, json_layout(args), &mut out)?,
        Format::Csv => write_csv(report, &mut out)?,
        Format::Text | Format::Html => write_table(report, &mut out, &table_options(args))?,
    }
    out.flush().context("cannot write the report")?;
    Ok(())
}

/// How the terminal table is drawn: in colour on a terminal (unless
/// `NO_COLOR` is set) or as `--color` says.
fn table_options(args: &Args) -> TableOptions {
    let to_terminal = args.output.is_none() && io::stdout().is_terminal();
    let color = match args.color {
        ColorArg::Always => true,
        ColorArg::Never => false,
        ColorArg::Auto => to_terminal && std::env::var_os("NO_COLOR").is_none(),
    };
    TableOptions {
        color,
        ..TableOptions::default()
    }
}

#[cfg(test)]
mod tests {
    use super::parse_fraction;

    #[test]
    fn fractions_and_percentages() {
        assert_eq!(parse_fraction("0.4"), Ok(0.4));
        assert_eq!(parse_fraction("40%"), Ok(0.4));
        assert!(parse_fraction("140%").is_err());
        assert!(parse_fraction("-1").is_err());
        assert!(parse_fraction("x").is_err());
    }
}

/// `--score`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum ScoreArg {
    Symmetric,
    Directional,
}
