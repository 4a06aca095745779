//! The front-end flags shared by `bryo compare` and `bryo tokens`.

use anyhow::{Context, Result};
use bryo_compare::{AnalyzeOptions, Normalization, Parser};
use bryo_frontend::Language;
use clap::builder::TypedValueParser;

use crate::args::TextModeArg;

#[derive(clap::Args, Debug)]
pub struct FrontendArgs {
    /// Language of every file (MOSS names accepted: c, cc, java, python,
    /// ascii, …; see `bryo languages`). Default: detected per file from its
    /// extension or shebang.
    #[arg(short = 'l', long = "language", value_name = "LANG")]
    pub language: Option<String>,

    /// Front-end for source code: the fast lexers, or tree-sitter grammars
    /// (c, cc, java, python, javascript, typescript, csharp, go, rust) with
    /// the lexer as a recorded fallback. Default: lexer (tree-sitter with
    /// --normalize).
    #[arg(long = "parser", value_enum)]
    parser: Option<ParserArg>,

    /// Token-sequence normalization against inserted code (tree-sitter
    /// languages): statements with no effect on what a program outputs or
    /// returns are left out before fingerprinting: unused variables and
    /// assignments, code after a return, no-op statements, functions that
    /// do nothing and the calls to them. Reports still show the user's
    /// files. Implies --parser tree-sitter.
    #[arg(long = "normalize")]
    normalize: bool,

    /// What of identifiers and literals survives normalization: `full` (as
    /// MOSS: every identifier one symbol, every literal its kind),
    /// `keep-strings` (as full, but string literals keep their text), or
    /// `verbatim` (nothing renamed goes unseen).
    #[arg(
        long = "normalization",
        value_parser = normalization_parser(),
        default_value_t = Normalization::KeepStrings
    )]
    normalization: Normalization,

    /// Short for --normalization verbatim.
    #[arg(long = "verbatim", conflicts_with = "normalization")]
    verbatim: bool,

    /// Symbols of prose and HTML: characters (as the winnowing paper) or
    /// words.
    #[arg(long = "text-mode", value_enum, default_value_t = TextModeArg::Chars)]
    text_mode: TextModeArg,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum ParserArg {
    Lexer,
    TreeSitter,
}

/// `--normalization` takes the names of [`Normalization`], listed as the
/// possible values in `--help` and in errors.
fn normalization_parser() -> impl TypedValueParser<Value = Normalization> {
    clap::builder::PossibleValuesParser::new(Normalization::ALL.map(Normalization::name))
        .try_map(|name| name.parse::<Normalization>())
}

impl FrontendArgs {
    /// The language given with `-l`, if any; an unknown name is an error.
    pub fn language(&self) -> Result<Option<&'static Language>> {
        match &self.language {
            Some(name) => Language::by_name(name)
                .with_context(|| {
                    format!("unknown language `{name}` (see `bryo languages` for the list)")
                })
                .map(Some),
            None => Ok(None),
        }
    }

    /// The options of `bryo_compare::analyze`.
    pub fn analyze_options(&self) -> Result<AnalyzeOptions> {
        let parser = match (self.parser, self.normalize) {
            (Some(ParserArg::Lexer), true) => anyhow::bail!(
                "--normalize works on syntax trees: use it with --parser tree-sitter (its default) \
                 or without --parser"
            ),
            (Some(ParserArg::Lexer), false) | (None, false) => Parser::Lexer,
            (Some(ParserArg::TreeSitter), _) | (None, true) => Parser::TreeSitter,
        };
        Ok(AnalyzeOptions {
            language: self.language()?,
            parser,
            normalization: if self.verbatim {
                Normalization::Verbatim
            } else {
                self.normalization
            },
            text_mode: self.text_mode.into(),
            normalize: self.normalize,
        })
    }
}
