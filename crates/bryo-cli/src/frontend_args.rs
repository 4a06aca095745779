//! The front-end flags shared by `bryo compare` and `bryo tokens`.

use anyhow::{Context, Result};
use bryo_compare::{AnalyzeOptions, Normalization, Normalize, Parser};
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
    /// the lexer as a recorded fallback. Default: lexer, and tree-sitter for
    /// the files --normalize applies to.
    #[arg(long = "parser", value_enum)]
    parser: Option<ParserArg>,

    /// Token-sequence normalization against disguise (tree-sitter
    /// languages): statements with no effect on what a program outputs or
    /// returns are left out (unused variables and assignments, code after
    /// a return, no-op statements, functions that do nothing and the calls
    /// to them), independent members and functions put in one order, and
    /// equivalent forms written one way (for/while, i++/i += 1, mirrored
    /// comparisons, negated if/else, switch/if chains, redundant parentheses, modifiers). Reports still show the user's files.
    /// By default Java, C and C++ are normalized, where labelled data
    /// shows that it ranks copies better (unless --parser lexer is given);
    /// --normalize normalizes every tree-sitter language.
    #[arg(long = "normalize", conflicts_with = "no_normalize")]
    normalize: bool,

    /// No token-sequence normalization for any language: every statement
    /// as written (the lexer unless --parser tree-sitter is given).
    #[arg(long = "no-normalize")]
    no_normalize: bool,

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

    /// Whether the parser or token normalization was chosen on the command
    /// line (otherwise `compare --against` takes the index's).
    pub fn parser_given(&self) -> bool {
        self.parser.is_some() || self.normalize || self.no_normalize
    }

    /// The options of `bryo_compare::analyze`.
    pub fn analyze_options(&self) -> Result<AnalyzeOptions> {
        let asked = match (self.normalize, self.no_normalize) {
            (true, _) => Normalize::On,
            (_, true) => Normalize::Off,
            _ => Normalize::Auto,
        };
        let (parser, normalize) = match (self.parser, asked) {
            (Some(ParserArg::Lexer), Normalize::On) => anyhow::bail!(
                "--normalize works on syntax trees: use it with --parser tree-sitter (its default) \
                 or without --parser"
            ),
            // The lexer asked for: nothing is normalized.
            (Some(ParserArg::Lexer), _) => (Parser::Lexer, Normalize::Off),
            (Some(ParserArg::TreeSitter), n) => (Parser::TreeSitter, n),
            (None, Normalize::On) => (Parser::TreeSitter, Normalize::On),
            (None, n) => (Parser::Lexer, n),
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
            normalize,
        })
    }
}
