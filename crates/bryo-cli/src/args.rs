//! Flags shared by several commands: output format, text mode, threads.

use anyhow::{Context, Result};
use bryo_frontend::TextMode;
use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::ValueEnum;

/// Output format of every command (each accepts the ones it can write).
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// For the terminal.
    Text,
    /// JSON, for programs.
    Json,
    /// CSV, one row per pair.
    Csv,
    /// The HTML report, a directory.
    Html,
}

/// A `--format` parser accepting only `allowed`.
pub fn formats(allowed: &'static [Format]) -> impl TypedValueParser<Value = Format> {
    PossibleValuesParser::new(allowed.iter().filter_map(|f| f.to_possible_value()))
        .map(|name| Format::from_str(&name, false).expect("one of the possible values"))
}

/// Text and JSON.
pub const TEXT_JSON: &[Format] = &[Format::Text, Format::Json];

/// Symbols of prose and HTML.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextModeArg {
    /// Case-folded characters (as the winnowing paper).
    Chars,
    /// Words.
    Words,
}

impl From<TextModeArg> for TextMode {
    fn from(mode: TextModeArg) -> TextMode {
        match mode {
            TextModeArg::Chars => TextMode::Chars,
            TextModeArg::Words => TextMode::Words,
        }
    }
}

/// `-j`, the same in every command.
#[derive(clap::Args, Debug)]
pub struct ThreadsArg {
    /// Worker threads, at least 1 [default: one per core]. Results do not
    /// depend on it.
    #[arg(short = 'j', long = "threads", value_name = "N", value_parser = parse_threads)]
    pub threads: Option<usize>,
}

fn parse_threads(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(0) => Err("-j must be at least 1".to_string()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("`{s}` is not a number of threads")),
    }
}

impl ThreadsArg {
    /// A thread pool of `-j` threads (one per core without it), each with
    /// the stack a tree-sitter parse of the largest file it parses may need
    /// (`bryo_treesitter::parse_stack`; address space, not memory, until a
    /// parse uses it), so that no parse has to make a stack of its own.
    /// Where the system refuses stacks that large (strict overcommit), the
    /// threads get the default stack and each deep parse makes its own.
    pub fn pool(&self) -> Result<rayon::ThreadPool> {
        let parse = bryo_treesitter::parse_stack(bryo_treesitter::Options::default().max_bytes);
        let threads = self.threads.unwrap_or(0);
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .stack_size(parse + (1 << 20))
            .build()
            .or_else(|_| rayon::ThreadPoolBuilder::new().num_threads(threads).build())
            .context("cannot start the worker threads")
    }
}
