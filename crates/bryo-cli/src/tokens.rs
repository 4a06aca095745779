//! `bryo tokens` and `bryo languages`: what the front-ends see.

use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

use anyhow::{Context, Result};
use bryo_compare::{analyze, has_tree_sitter, spellings};
use bryo_frontend::{FrontendKind, Language};
use bryo_report::Columns;
use serde::Serialize;

use crate::args::{formats, Format, TEXT_JSON};
use crate::frontend_args::FrontendArgs;

#[derive(clap::Args, Debug)]
pub struct TokensArgs {
    /// The file to normalize.
    #[arg(value_name = "FILE")]
    file: PathBuf,

    #[command(flatten)]
    frontend: FrontendArgs,

    /// Output format.
    #[arg(long = "format", default_value = "text", value_parser = formats(TEXT_JSON))]
    format: Format,
}

#[derive(clap::Args, Debug)]
pub struct LanguagesArgs {
    /// Output format.
    #[arg(long = "format", default_value = "text", value_parser = formats(TEXT_JSON))]
    format: Format,
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
    /// The text at the symbol's span.
    text: &'a str,
    /// What token normalization wrote there instead (`+=` and `1` at the
    /// two bytes of `x++`), if it differs from `text`.
    #[serde(skip_serializing_if = "Option::is_none")]
    normalized: Option<&'a str>,
}

/// `bryo tokens FILE`.
pub fn tokens(args: &TokensArgs) -> Result<()> {
    let bytes = std::fs::read(&args.file)
        .with_context(|| format!("cannot read {}", args.file.display()))?;
    let options = args.frontend.analyze_options()?;
    let path = args.file.display().to_string();
    let file =
        analyze(&path, &bytes, &options).map_err(|reason| anyhow::anyhow!("{path}: {reason}"))?;
    let text = file.text();
    let spelled = spellings(&file, &options);
    let tokens: Vec<Token> = file
        .normalized
        .symbols
        .iter()
        .zip(file.normalized.spans.iter())
        .map(|(&symbol, span)| {
            let (line, col) = file.lines.line_col(span.start);
            let normalized = spelled
                .binary_search_by_key(&(span.start, span.end), |(s, _)| (s.start, s.end))
                .ok()
                .map(|i| spelled[i].1.as_str());
            Token {
                symbol,
                line,
                col,
                text: &text[span.range()],
                normalized,
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
        _ => {
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
                match t.normalized {
                    Some(n) => writeln!(
                        w,
                        "{pos:>9}  {:016x}  {}  (written {})",
                        t.symbol,
                        n.escape_debug(),
                        t.text.escape_debug()
                    )?,
                    None => writeln!(w, "{pos:>9}  {:016x}  {}", t.symbol, t.text.escape_debug())?,
                }
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
        _ => {
            let columns = Columns::new().left("", 0).left("  ", 0);
            let mut table = columns.left("  ", 0).left("  ", 0);
            table.row(["language", "aliases", "extensions", "front-ends"]);
            for l in &list {
                let exts: Vec<String> = l.extensions.iter().map(|e| format!(".{e}")).collect();
                let (aliases, frontends) = (l.aliases.join(", "), l.frontends.join(", "));
                table.row([l.name.to_string(), aliases, exts.join(" "), frontends]);
            }
            table.write(&mut w)?;
        }
    }
    w.flush()?;
    Ok(())
}
