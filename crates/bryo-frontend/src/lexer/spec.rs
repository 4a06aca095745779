//! The data that describes one language's lexical syntax. The engine in
//! `engine.rs` is the only code; every language is a `LexSpec` value.

use crate::SymbolClass;

/// How a quoted literal is opened, closed and escaped.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Quote {
    /// The opening delimiter, e.g. `"`, `'''`, `@"`, `` ` ``.
    pub open: &'static str,
    /// The closing delimiter.
    pub close: &'static str,
    /// A backslash escapes the next byte.
    pub escape: bool,
    /// A doubled closing delimiter stands for itself (`'it''s'`).
    pub doubled: bool,
    /// The literal may span lines; otherwise an unclosed literal ends at the
    /// end of its line.
    pub multiline: bool,
    /// Opens an interpolated expression inside the literal (`${`, `#{`,
    /// `\(`, `{`, `$(`); its last byte is the bracket counted to find the end.
    pub interp: Option<&'static str>,
    /// What the literal becomes (String, Char, or Identifier for quoted
    /// identifiers such as SQL's `"name"`).
    pub class: SymbolClass,
}

impl Quote {
    pub(crate) const fn new(open: &'static str, close: &'static str) -> Quote {
        Quote {
            open,
            close,
            escape: true,
            doubled: false,
            multiline: false,
            interp: None,
            class: SymbolClass::String,
        }
    }
    pub(crate) const fn raw(mut self) -> Quote {
        self.escape = false;
        self
    }
    pub(crate) const fn doubled(mut self) -> Quote {
        self.escape = false;
        self.doubled = true;
        self
    }
    pub(crate) const fn multiline(mut self) -> Quote {
        self.multiline = true;
        self
    }
    pub(crate) const fn interp(mut self, open: &'static str) -> Quote {
        self.interp = Some(open);
        self
    }
    pub(crate) const fn class(mut self, class: SymbolClass) -> Quote {
        self.class = class;
        self
    }
}

/// What an identifier-like prefix glued to a following literal means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PrefixKind {
    /// The prefix is part of the literal that follows (`b"…"`, `f'…'`,
    /// `L"…"`); the literal is lexed by the language's ordinary quote rules.
    Plain,
    /// Rust raw string: `r#…#"…"#…#`.
    RustRaw,
    /// C++ raw string: `R"delim(…)delim"`.
    CppRaw,
}

/// What a `'` that is not one of the language's quotes means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tick {
    /// Always an operator.
    Op,
    /// `'x'` or `'\n'` is a character literal; otherwise an operator (Ada
    /// attributes, Haskell promoted constructors).
    CharOrOp,
    /// `'x'` or `'\n'` is a character literal; `'name` is an identifier
    /// (Rust lifetimes and labels, ML type variables).
    CharOrTickIdent,
    /// Verilog based number `'hFF`, `8'b1010`; otherwise an operator.
    VerilogBase,
    /// MATLAB: transpose right after a value, otherwise a string `'…'`
    /// with doubled quotes.
    MatlabTranspose,
}

/// One language's lexical syntax.
#[derive(Debug)]
pub(crate) struct LexSpec {
    /// Keywords and identifiers compare without regard to ASCII case; the
    /// keyword symbol is the lower-case form.
    pub case_insensitive: bool,
    /// Bytes besides ASCII letters, `_` and non-ASCII that start an identifier.
    pub ident_start: &'static [u8],
    /// Bytes besides letters, digits, `_` and non-ASCII that continue one.
    pub ident_cont: &'static [u8],
    /// Sigils (`$`, `@`, `%`): start an identifier only when followed by an
    /// identifier byte (or one of `sigil_specials`, as in `$?`, `$#`).
    pub sigils: &'static [u8],
    /// Bytes forming a two-byte special variable after the sigil `$`
    /// (`$?`, `$#`, `$!`).
    pub sigil_specials: &'static [u8],
    /// Keywords (lower case for case-insensitive languages): tables of
    /// whitespace-separated words, e.g. a base language's table and this
    /// language's extras (`&[JS_KW, TS_KW]`). See [`LexSpec::keywords`].
    pub keywords: &'static [&'static str],
    /// Operators and punctuation, matched longest first.
    pub operators: &'static [&'static str],
    /// When not empty, a maximal run of these bytes is one operator
    /// (languages with user-defined operators: Haskell, ML, Scala, …).
    pub op_run: &'static [u8],
    /// Line comment openers.
    pub line_comments: &'static [&'static str],
    /// Line comment openers valid only in the first column (Fortran `C`,
    /// SPICE `*`).
    pub line_start_comments: &'static [&'static str],
    /// Block comments `(open, close)`.
    pub block_comments: &'static [(&'static str, &'static str)],
    /// Block comments nest.
    pub nested_comments: bool,
    /// Block comments that open and close only in the first column: Perl POD
    /// (`=word` … `=cut`), Ruby `=begin` … `=end`. The open string is
    /// followed by a letter; the comment runs to the end of the closing line.
    pub line_start_block: Option<(&'static str, &'static str)>,
    /// A line comment opener counts only at the start of a word (Bash `#`).
    pub comment_needs_word_start: bool,
    /// Keywords that start a line comment (BASIC `REM`).
    pub comment_words: &'static [&'static str],
    /// Quoted literals, any order (the engine tries longer openers first).
    pub quotes: &'static [Quote],
    /// Identifier prefixes glued to a following literal.
    pub prefixes: &'static [(&'static str, PrefixKind)],
    /// What a `'` that no quote claims means.
    pub tick: Tick,
    /// Ada based literals `16#FF#`.
    pub based_hash: bool,
    /// First-column lines after which the rest of the file is data, not
    /// code (Perl and Ruby `__END__`).
    pub end_markers: &'static [&'static str],
    /// Here-document opener (`<<` or PHP's `<<<`), followed by an optional
    /// `-` or `~`, an optionally quoted word, and a body on the following
    /// lines up to a line holding the word.
    pub heredoc: Option<&'static str>,
    /// `'` separates digits inside numbers (C23, C++14: `1'000'000`).
    pub digit_tick: bool,
    /// `/…/` is a regular-expression literal where an operand is expected
    /// (JavaScript, Perl, Ruby): not right after an identifier, literal or
    /// closing bracket.
    pub regex: bool,
}

impl LexSpec {
    /// Every keyword of the language, table after table; the lexer builds its
    /// look-up table from these once, so lookups never split strings.
    pub(crate) fn keywords(&self) -> impl Iterator<Item = &'static str> {
        self.keywords
            .iter()
            .flat_map(|t| t.split_ascii_whitespace())
    }
}

/// Defaults for the fields most languages leave alone; each language
/// overrides what it needs with struct update syntax.
pub(crate) const BASE: LexSpec = LexSpec {
    case_insensitive: false,
    ident_start: b"",
    ident_cont: b"",
    sigils: b"",
    sigil_specials: b"",
    keywords: &[],
    operators: &[],
    op_run: b"",
    line_comments: &[],
    line_start_comments: &[],
    block_comments: &[],
    nested_comments: false,
    line_start_block: None,
    comment_needs_word_start: false,
    comment_words: &[],
    quotes: &[],
    prefixes: &[],
    tick: Tick::Op,
    based_hash: false,
    end_markers: &[],
    heredoc: None,
    digit_tick: false,
    regex: false,
};
