//! The flags of `bryo density` and `bryo rank` (the experiments are
//! `bryo_stats`'s) and what their outputs share: the progress bar and the
//! lines on the engine and on skipped files.

use std::io::{self, IsTerminal, Write};

use anyhow::{bail, Context, Result};
use bryo_engine::{Config, HashFunction, Polynomial};
use bryo_report::thousands;
use bryo_stats::{ReadOptions, ReadProgress, Skipped};

use crate::args::{TextModeArg, ThreadsArg};

/// The engine options shared by `density` and `rank`.
#[derive(clap::Args, Debug)]
pub struct EngineArgs {
    /// Noise threshold: the k-gram length, in symbols.
    #[arg(short = 'k', default_value_t = 50)]
    pub k: usize,

    /// Winnowing window, in hashes (the paper: 100).
    #[arg(short = 'w', conflicts_with = "t")]
    pub w: Option<usize>,

    /// Guarantee threshold t >= k, instead of -w (w = t - k + 1).
    #[arg(short = 't')]
    pub t: Option<usize>,

    /// Rolling hash: karp-rabin or rabin (GF(2), default polynomial).
    #[arg(long = "hash", default_value = "karp-rabin", value_name = "NAME")]
    pub hash: HashFunction,

    /// With --hash rabin: use a random irreducible polynomial drawn from this
    /// seed instead of the default one.
    #[arg(long, value_name = "SEED")]
    pub poly_seed: Option<u64>,
}

impl EngineArgs {
    /// The validated configuration and hash function.
    pub fn engine(&self) -> Result<(Config, HashFunction)> {
        let config = match (self.w, self.t) {
            (_, Some(t)) => Config::from_thresholds(self.k, t),
            (w, None) => Config::new(self.k, w.unwrap_or(100)),
        }
        .context("invalid thresholds")?;
        let function = match (self.hash, self.poly_seed) {
            (HashFunction::Rabin(_), Some(seed)) => HashFunction::Rabin(Polynomial::random(seed)),
            (HashFunction::KarpRabin, Some(_)) => bail!("--poly-seed needs --hash rabin"),
            (f, None) => f,
        };
        Ok((config, function))
    }
}

/// Which front-end turns a file into symbols.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputFormatArg {
    /// Every byte of the file is one symbol (no front-end).
    Raw,
    /// The prose front-end: case folded, whitespace and punctuation dropped.
    #[value(alias = "prose", alias = "ascii")]
    Text,
    /// The HTML front-end: markup dropped, entities decoded, then as text.
    Html,
}

/// How the corpus is read, shared by `density` and `rank`.
#[derive(clap::Args, Debug)]
pub struct CorpusArgs {
    /// Front-end: `raw` (every byte one symbol), `text` (prose: case folded,
    /// whitespace and punctuation dropped) or `html` (markup dropped, then
    /// as text; in directories only *.html, *.htm, *.xhtml and *.shtml files
    /// are read, and files without an extension).
    #[arg(short = 'l', long = "language", value_enum, default_value_t = InputFormatArg::Raw)]
    pub language: InputFormatArg,

    /// Symbols of text and HTML: characters (as the winnowing paper) or words.
    #[arg(long = "text-mode", value_enum, default_value_t = TextModeArg::Chars)]
    pub text_mode: TextModeArg,

    /// With -l text or html, larger files are skipped (raw files are
    /// streamed whatever their size).
    #[arg(long, value_name = "BYTES", default_value_t = 64 << 20)]
    pub max_file_size: u64,

    #[command(flatten)]
    pub threads: ThreadsArg,
}

impl CorpusArgs {
    /// How `bryo_stats` reads the files.
    pub fn read_options(&self) -> ReadOptions {
        ReadOptions {
            format: match self.language {
                InputFormatArg::Raw => bryo_stats::InputFormat::Raw,
                InputFormatArg::Text => bryo_stats::InputFormat::Text,
                InputFormatArg::Html => bryo_stats::InputFormat::Html,
            },
            text_mode: self.text_mode.into(),
            max_file_size: self.max_file_size,
        }
    }
}

/// A progress bar in bytes on standard error, drawn only when it is a
/// terminal; one pass after the other.
pub struct BytesBar(indicatif::ProgressBar);

impl BytesBar {
    pub fn new() -> BytesBar {
        let bar = match io::stderr().is_terminal() {
            true => indicatif::ProgressBar::new(0),
            false => indicatif::ProgressBar::hidden(),
        };
        if let Ok(style) = indicatif::ProgressStyle::with_template(
            "{msg:>8} [{bar:30}] {bytes}/{total_bytes} ({bytes_per_sec}, {eta})",
        ) {
            bar.set_style(style.progress_chars("=> "));
        }
        BytesBar(bar)
    }
}

impl ReadProgress for BytesBar {
    fn start(&self, what: &str, total_bytes: u64) {
        self.0.reset();
        self.0.set_length(total_bytes);
        self.0.set_message(what.to_string());
    }
    fn advance(&self, bytes: u64) {
        self.0.inc(bytes);
    }
    fn finish(&self) {
        self.0.finish_and_clear();
    }
}

/// The files not read: a count of other types, then the first 20 skipped.
pub fn print_skipped(out: &mut impl Write, other: u64, skipped: &[Skipped]) -> Result<()> {
    if other > 0 {
        writeln!(out, "not read: {} files of other types", thousands(other))?;
    }
    for s in skipped.iter().take(20) {
        writeln!(out, "skipped {}: {}", s.path, s.reason)?;
    }
    if skipped.len() > 20 {
        let more = skipped.len() - 20;
        writeln!(out, "… and {more} more skipped (see --format json)")?;
    }
    Ok(())
}
