//! The flags of `bryo density` and `bryo rank` (reading a corpus is
//! `bryo_stats`'s job) and their shared printing helpers.

use std::io::{self, IsTerminal};
use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use bryo_engine::{Config, HashFunction, Polynomial};
use bryo_input::{list_files, Listing};
use bryo_stats::{HashReader, ReadOptions};
use serde::Serialize;

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
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum InputFormat {
    /// Every byte of the file is one symbol (no front-end).
    Raw,
    /// The prose front-end: case folded, whitespace and punctuation dropped.
    #[value(alias = "prose", alias = "ascii")]
    Text,
    /// The HTML front-end: markup dropped, entities decoded, then as text.
    Html,
}

impl From<InputFormat> for bryo_stats::InputFormat {
    fn from(format: InputFormat) -> Self {
        match format {
            InputFormat::Raw => bryo_stats::InputFormat::Raw,
            InputFormat::Text => bryo_stats::InputFormat::Text,
            InputFormat::Html => bryo_stats::InputFormat::Html,
        }
    }
}

/// How the corpus is read, shared by `density` and `rank`.
#[derive(clap::Args, Debug)]
pub struct CorpusArgs {
    /// Front-end: `raw` (every byte one symbol), `text` (prose: case folded,
    /// whitespace and punctuation dropped) or `html` (markup dropped, then
    /// as text; in directories only *.html, *.htm, *.xhtml and *.shtml files
    /// are read, and files without an extension).
    #[arg(short = 'l', long = "language", value_enum, default_value_t = InputFormat::Raw)]
    pub language: InputFormat,

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
    pub fn text_mode(&self) -> bryo_frontend::TextMode {
        self.text_mode.into()
    }

    /// A reader of this front-end hashing with `function` and `config.k()`.
    pub fn reader(&self, config: &Config, function: HashFunction) -> HashReader {
        let options = ReadOptions {
            format: self.language.into(),
            text_mode: self.text_mode(),
            max_file_size: self.max_file_size,
        };
        HashReader::new(options, config, function)
    }
}

/// A file that was not read, with the reason, as the JSON output lists it.
#[derive(Serialize, Debug, Clone)]
pub struct Skipped {
    pub path: String,
    pub reason: String,
}

/// The files under `paths` for the chosen front-end (`bryo_input::list_files`).
pub fn list(paths: &[PathBuf], format: InputFormat) -> Listing {
    list_files(paths, &bryo_stats::InputFormat::from(format).extensions())
}

/// The files skipped while listing, then those skipped while reading.
pub fn all_skipped(listing: &Listing, read: &[(usize, String)]) -> Vec<Skipped> {
    let listed = listing.skipped.iter().map(|s| Skipped {
        path: s.path.clone(),
        reason: s.reason.to_string(),
    });
    let read = read.iter().map(|(i, reason)| Skipped {
        path: listing.files[*i].display_path.clone(),
        reason: reason.clone(),
    });
    listed.chain(read).collect()
}

/// A progress bar in bytes on standard error, drawn only when it is a
/// terminal.
pub fn progress_bar(total_bytes: u64, what: &str) -> indicatif::ProgressBar {
    let bar = if io::stderr().is_terminal() {
        indicatif::ProgressBar::new(total_bytes)
    } else {
        indicatif::ProgressBar::hidden()
    };
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "{msg:>8} [{bar:30}] {bytes}/{total_bytes} ({bytes_per_sec}, {eta})",
    ) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_message(what.to_string());
    bar
}

/// 1234567 → "1,234,567".
pub fn group(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() * 4 / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
