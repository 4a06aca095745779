//! `bryo index`: a persistent fingerprint index of earlier terms.

use std::path::PathBuf;

use anyhow::{Context, Result};
use bryo_compare::Normalize;
use bryo_index::{Index, IndexSettings};
use bryo_input::{discover, InputOptions};
use bryo_report::{thousands, Columns};

use crate::args::ThreadsArg;
use crate::frontend_args::FrontendArgs;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    command: IndexCommand,
}

#[derive(clap::Subcommand, Debug)]
enum IndexCommand {
    /// Create an empty index with the options that shape its fingerprints
    /// (language or detection per file, parser, normalization, text mode,
    /// k and w); every later `add` and `compare --against` uses them.
    Create(CreateArgs),
    /// Analyze and fingerprint submissions once and archive them under a
    /// tag (e.g. the term): their symbol streams, sources and fingerprints.
    Add(AddArgs),
    /// Print the index's options, tags, documents and segments.
    Info(InfoArgs),
    /// Remove the submissions of a tag, or one document.
    Remove(RemoveArgs),
    /// Merge all segments into one, dropping postings of removed documents.
    Compact(InfoArgs),
}

#[derive(clap::Args, Debug)]
struct CreateArgs {
    /// The index directory (created; must not hold an index yet).
    #[arg(value_name = "DIR")]
    dir: PathBuf,

    #[command(flatten)]
    frontend: FrontendArgs,

    /// Noise threshold: symbols per k-gram [default: as `bryo compare`].
    #[arg(short = 'k', value_name = "K")]
    k: Option<usize>,

    /// Winnowing window in k-grams [default: as `bryo compare`].
    #[arg(short = 'w', value_name = "W", conflicts_with = "t")]
    w: Option<usize>,

    /// Guarantee threshold instead of -w (w = t - k + 1).
    #[arg(short = 't', value_name = "T")]
    t: Option<usize>,
}

#[derive(clap::Args, Debug)]
struct AddArgs {
    /// The index directory.
    #[arg(value_name = "DIR")]
    dir: PathBuf,

    /// Files, directories and .zip archives holding the submissions.
    #[arg(value_name = "PATH", required = true)]
    paths: Vec<PathBuf>,

    /// Tag of what is added, e.g. the term (`2025-fall`); `remove --tag`
    /// and the reports of `compare --against` name it.
    #[arg(long = "tag", value_name = "TAG", default_value = "")]
    tag: String,

    /// Each directory directly under a PATH is one submission (MOSS -d).
    #[arg(short = 'd', long = "directory")]
    directory: bool,

    /// Only take files matching GLOB (repeatable).
    #[arg(long = "include", value_name = "GLOB")]
    include: Vec<String>,

    /// Leave out files matching GLOB (repeatable).
    #[arg(long = "exclude", value_name = "GLOB")]
    exclude: Vec<String>,

    /// Files larger than this many bytes are skipped (and listed).
    #[arg(long = "max-file-size", value_name = "BYTES", default_value_t = bryo_input::DEFAULT_MAX_FILE_SIZE)]
    max_file_size: u64,

    #[command(flatten)]
    threads: ThreadsArg,
}

#[derive(clap::Args, Debug)]
struct InfoArgs {
    /// The index directory.
    #[arg(value_name = "DIR")]
    dir: PathBuf,
}

#[derive(clap::Args, Debug)]
#[command(group(clap::ArgGroup::new("what").required(true).args(["tag", "document"])))]
struct RemoveArgs {
    /// The index directory.
    #[arg(value_name = "DIR")]
    dir: PathBuf,

    /// Remove every submission added with this tag.
    #[arg(long = "tag", value_name = "TAG")]
    tag: Option<String>,

    /// Remove every document with this path (as `add` listed it), and
    /// submissions left without documents.
    #[arg(long = "document", value_name = "PATH")]
    document: Option<String>,
}

/// Runs `bryo index …`.
pub fn run(args: &Args) -> Result<()> {
    match &args.command {
        IndexCommand::Create(a) => {
            let settings = IndexSettings::new(a.frontend.analyze_options()?, a.k, a.w, a.t)?;
            Index::create(&a.dir, settings)?;
            println!(
                "created index {} ({})",
                a.dir.display(),
                describe(&settings)
            );
        }
        IndexCommand::Add(a) => a.threads.pool()?.install(|| add(a))?,
        IndexCommand::Info(a) => info(&Index::open(&a.dir)?)?,
        IndexCommand::Remove(a) => {
            let mut index = Index::open(&a.dir)?;
            let removed = match (&a.tag, &a.document) {
                (Some(tag), _) => index.remove_tag(tag)?,
                (None, Some(path)) => index.remove_document(path)?,
                (None, None) => unreachable!("clap requires --tag or --document"),
            };
            println!(
                "removed {removed} document{} (their postings go at the next `bryo index compact`)",
                plural(removed)
            );
        }
        IndexCommand::Compact(a) => {
            let s = Index::open(&a.dir)?.compact()?;
            println!(
                "{} segment{} → {}; {} postings kept, {} of removed documents dropped",
                s.segments_before,
                plural(s.segments_before),
                s.segments_after,
                thousands(s.postings),
                thousands(s.postings_dropped)
            );
        }
    }
    Ok(())
}

fn add(a: &AddArgs) -> Result<()> {
    let mut index = Index::open(&a.dir)?;
    let language = index.settings().analyze.language;
    let options = InputOptions {
        roots: a.paths.clone(),
        include: a.include.clone(),
        exclude: a.exclude.clone(),
        extensions: language
            .map(|l| l.extensions().iter().map(|e| e.to_string()).collect())
            .unwrap_or_default(),
        directory_mode: a.directory,
        max_file_size: a.max_file_size,
        ..InputOptions::default()
    };
    let inputs = discover(&options)?;
    // The same bar as compare's, on standard error when it is a terminal.
    let bar = crate::compare::StageBar::new();
    let added = index.add_with_progress(inputs, &a.tag, &bar);
    bar.0.finish_and_clear();
    let s = added.with_context(|| format!("cannot add to {}", a.dir.display()))?;
    println!(
        "added {} submission{}, {} document{}, {} symbols, {} postings ({} bytes) to {}{}",
        s.submissions,
        plural(s.submissions),
        s.documents,
        plural(s.documents),
        thousands(s.symbols),
        thousands(s.postings),
        thousands(s.segment_bytes),
        a.dir.display(),
        if a.tag.is_empty() {
            String::new()
        } else {
            format!(" under tag {}", a.tag)
        }
    );
    for (path, reason) in &s.skipped {
        eprintln!("bryo: skipped {path}: {reason}");
    }
    Ok(())
}

fn info(index: &Index) -> Result<()> {
    let i = index.info()?;
    println!("index {}", index.dir().display());
    println!("options: {}", describe(&i.settings));
    println!(
        "schemes: index format {}, hash {}, symbol {}",
        bryo_index::INDEX_FORMAT_VERSION,
        bryo_engine::HASH_SCHEME_VERSION,
        bryo_frontend::SYMBOL_SCHEME_VERSION
    );
    println!(
        "{} submissions, {} documents, {} symbols, {} bytes of source",
        thousands(i.submissions),
        thousands(i.documents),
        thousands(i.symbols),
        thousands(i.source_bytes)
    );
    println!(
        "{} segments, {} postings, {} bytes; catalogue {} bytes",
        thousands(i.segments),
        thousands(i.postings),
        thousands(i.segment_bytes),
        thousands(i.catalog_bytes)
    );
    if !i.tags.is_empty() {
        let mut table = Columns::new()
            .left("", 0)
            .right("  ", 0)
            .right("  ", 0)
            .right("  ", 0);
        table.row(["tag", "submissions", "documents", "symbols"].map(String::from));
        for t in &i.tags {
            table.row([
                if t.tag.is_empty() {
                    "(none)".to_string()
                } else {
                    t.tag.clone()
                },
                thousands(t.submissions),
                thousands(t.documents),
                thousands(t.symbols),
            ]);
        }
        table.write(&mut std::io::stdout().lock())?;
    }
    Ok(())
}

/// The options of an index in one line.
pub fn describe(s: &IndexSettings) -> String {
    format!(
        "language {}, parser {}{}, normalization {}, text mode {}, k={} w={}",
        s.analyze.language.map_or("detected per file", |l| l.name()),
        s.analyze.parser.name(),
        match s.analyze.normalize {
            Normalize::Off => "",
            Normalize::On => " (statements with no effect dropped, members in canonical order)",
            Normalize::Auto => " (token normalization for Java, C and C++)",
        },
        s.analyze.normalization.name(),
        s.analyze.text_mode.name(),
        s.config.k(),
        s.config.w()
    )
}

fn plural(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}
