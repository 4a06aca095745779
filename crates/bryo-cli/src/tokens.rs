//! `bryo tokens` and `bryo languages`: what the front-ends see.

use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

use anyhow::{Context, Result};
use bryo_compare::{analyze, has_tree_sitter, AnalyzeOptions, Normalization, Parser};
use bryo_frontend::{FrontendKind, Language, TextMode};
use serde::Serialize;

#[derive(clap::Args, Debug)]
pub struct TokensArgs {
    /// The file to normalize.
    #[arg(value_name = "FILE")]
    file: PathBuf,

    /// Language (default: detected from the extension or shebang).
    #[arg(short = 'l', long = "language", value_name = "LANG")]
    language: Option<String>,

    /// Front-end for source code.
    #[arg(long = "parser", value_enum, default_value_t = ParserArg::Lexer)]
    parser: ParserArg,

    /// What of identifiers and literals survives normalization: full,
    /// keep-strings or verbatim (see `bryo compare --help`).
    #[arg(long = "normalization", value_enum, default_value_t = NormalizationArg::KeepStrings)]
    normalization: NormalizationArg,

    /// Short for --normalization verbatim.
    #[arg(long = "verbatim", conflicts_with = "normalization")]
    verbatim: bool,

    /// Symbols of prose and HTML: characters or words.
    #[arg(long = "text-mode", value_enum, default_value_t = TextModeArg::Chars)]
    text_mode: TextModeArg,

    /// Output format.
    #[arg(long = "format", value_enum, default_value_t = Format::Text)]
    format: Format,
}

#[derive(clap::Args, Debug)]
pub struct LanguagesArgs {
    /// Output format.
    #[arg(long = "format", value_enum, default_value_t = Format::Text)]
    format: Format,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    Text,
    Json,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum ParserArg {
    Lexer,
    TreeSitter,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum NormalizationArg {
    Full,
    KeepStrings,
    Verbatim,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum TextModeArg {
    Chars,
    Words,
}

#[derive(Serialize)]
struct TokensOut<'a> {
    path: String,
    language: &'a str,
    frontend: &'a str,
    fallback: Option<&'a str>,
    notes: &'a [String],
    tokens: Vec<Token<'a>>,
}

#[derive(Serialize)]
struct Token<'a> {
    symbol: u64,
    line: u32,
    col: u32,
    text: &'a str,
}

/// `bryo tokens FILE`.
pub fn tokens(args: &TokensArgs) -> Result<()> {
    let language = match &args.language {
        Some(name) => Some(Language::by_name(name).with_context(|| {
            format!("unknown language `{name}` (see `bryo languages` for the list)")
        })?),
        None => None,
    };
    let bytes = std::fs::read(&args.file)
        .with_context(|| format!("cannot read {}", args.file.display()))?;
    let options = AnalyzeOptions {
        language,
        parser: match args.parser {
            ParserArg::Lexer => Parser::Lexer,
            ParserArg::TreeSitter => Parser::TreeSitter,
        },
        normalization: normalization(args.verbatim, args.normalization),
        text_mode: match args.text_mode {
            TextModeArg::Chars => TextMode::Chars,
            TextModeArg::Words => TextMode::Words,
        },
    };
    let path = args.file.display().to_string();
    let file =
        analyze(&path, &bytes, &options).map_err(|reason| anyhow::anyhow!("{path}: {reason}"))?;
    let text = file.text();
    let tokens: Vec<Token> = file
        .normalized
        .symbols
        .iter()
        .zip(&file.normalized.spans)
        .map(|(&symbol, span)| {
            let (line, col) = file.lines.line_col(span.start);
            Token {
                symbol,
                line,
                col,
                text: &text[span.range()],
            }
        })
        .collect();
    let out = TokensOut {
        path: path.clone(),
        language: file.language.name(),
        frontend: file.frontend.as_str(),
        fallback: file.fallback.as_deref(),
        notes: &file.notes,
        tokens,
    };
    let mut w = BufWriter::new(io::stdout().lock());
    match args.format {
        Format::Json => {
            serde_json::to_writer_pretty(&mut w, &out)?;
            writeln!(w)?;
        }
        Format::Text => {
            writeln!(
                w,
                "{}: {} via {}, {} symbols",
                out.path,
                out.language,
                out.frontend,
                out.tokens.len()
            )?;
            if let Some(reason) = out.fallback {
                writeln!(w, "fallback: {reason}")?;
            }
            for note in out.notes {
                writeln!(w, "note: {note}")?;
            }
            for t in &out.tokens {
                let pos = format!("{}:{}", t.line, t.col);
                writeln!(w, "{pos:>9}  {:016x}  {}", t.symbol, t.text.escape_debug())?;
            }
        }
    }
    w.flush()?;
    Ok(())
}

#[derive(Serialize)]
struct LanguageOut {
    name: &'static str,
    aliases: &'static [&'static str],
    extensions: &'static [&'static str],
    frontends: Vec<&'static str>,
}

/// `bryo languages`.
pub fn languages(args: &LanguagesArgs) -> Result<()> {
    let list: Vec<LanguageOut> = Language::all()
        .iter()
        .map(|l| {
            let frontends = match l.frontend() {
                FrontendKind::Text => vec!["text"],
                FrontendKind::Html => vec!["html"],
                _ if has_tree_sitter(l) => vec!["lexer", "tree-sitter"],
                _ => vec!["lexer"],
            };
            LanguageOut {
                name: l.name(),
                aliases: l.aliases(),
                extensions: l.extensions(),
                frontends,
            }
        })
        .collect();
    let mut w = BufWriter::new(io::stdout().lock());
    match args.format {
        Format::Json => {
            serde_json::to_writer_pretty(&mut w, &list)?;
            writeln!(w)?;
        }
        Format::Text => {
            let rows: Vec<[String; 4]> = list
                .iter()
                .map(|l| {
                    let exts: Vec<String> = l.extensions.iter().map(|e| format!(".{e}")).collect();
                    [
                        l.name.to_string(),
                        l.aliases.join(", "),
                        exts.join(" "),
                        l.frontends.join(", "),
                    ]
                })
                .collect();
            let header = ["language", "aliases", "extensions", "front-ends"].map(String::from);
            let width = |i: usize| {
                rows.iter()
                    .chain([&header])
                    .map(|r| r[i].chars().count())
                    .max()
                    .unwrap_or(0)
            };
            let (w0, w1, w2) = (width(0), width(1), width(2));
            for r in std::iter::once(&header).chain(&rows) {
                writeln!(w, "{:<w0$}  {:<w1$}  {:<w2$}  {}", r[0], r[1], r[2], r[3])?;
            }
        }
    }
    w.flush()?;
    Ok(())
}

fn normalization(verbatim: bool, arg: NormalizationArg) -> Normalization {
    match (verbatim, arg) {
        (true, _) | (_, NormalizationArg::Verbatim) => Normalization::Verbatim,
        (_, NormalizationArg::Full) => Normalization::Full,
        (_, NormalizationArg::KeepStrings) => Normalization::KeepStrings,
    }
}
