//! One file through decoding, language detection and its front-end.

use std::path::Path;

use bryo_frontend::{
    decode, normalize_html_into, normalize_text_into, DecodeError, Decoded, FrontendKind, Language,
    LexNote, LexNoteKind, Lexed, LineIndex, Normalization, Normalized, PackedStream, Span,
    TextMode,
};
use bryo_report::Frontend;

/// Which front-end turns source code into symbols.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Parser {
    /// The fast table-driven lexers (every language).
    #[default]
    Lexer,
    /// Tree-sitter grammars where bryo has one; the lexer elsewhere, and as
    /// the recorded fallback when a file is too large or does not parse.
    TreeSitter,
}

impl Parser {
    /// The name used on the command line: `lexer` or `tree-sitter`.
    pub fn name(self) -> &'static str {
        match self {
            Parser::Lexer => "lexer",
            Parser::TreeSitter => "tree-sitter",
        }
    }
}

/// When token-sequence normalization (`--normalize`) runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Normalize {
    /// Never: every statement is kept as written.
    #[default]
    Off,
    /// For every language with a tree-sitter front-end.
    On,
    /// For the languages where the labelled benchmarks show that it ranks
    /// copies better ([`Normalize::AUTO_LANGUAGES`]: Java, C and C++); off
    /// elsewhere. The command line's default.
    Auto,
}

impl Normalize {
    /// The languages [`Normalize::Auto`] normalizes: those with labelled
    /// data (IR-Plag, Cheers, POJ-104 and the attack sets built from them)
    /// on which normalization raised the ranking of copies as a whole.
    pub const AUTO_LANGUAGES: [&'static str; 3] = ["java", "c", "cc"];

    /// Whether files in `language` are normalized.
    pub fn applies_to(self, language: &Language) -> bool {
        match self {
            Normalize::Off => false,
            Normalize::On => true,
            Normalize::Auto => {
                has_tree_sitter(language) && Normalize::AUTO_LANGUAGES.contains(&language.name())
            }
        }
    }
}

/// Why a file cannot be compared. Its `Display` is the reason reported to
/// the user (the report's `skipped[].reason`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AnalyzeError {
    /// The bytes are not text bryo can use: a binary file (a NUL byte) or
    /// one too large for 32-bit spans. The message is the decoder's.
    #[error(transparent)]
    Decode(#[from] DecodeError),
    /// No language was given and none was recognised from the file name or
    /// shebang.
    #[error("language not recognised from the file name or shebang (pass -l)")]
    UnknownLanguage,
    /// The language is source code but has no lexer.
    #[error("no lexer for language {language}")]
    NoLexer {
        /// The language's name.
        language: &'static str,
    },
}

/// How files are turned into symbols.
#[derive(Clone, Copy, Debug)]
pub struct AnalyzeOptions {
    /// Language of every file; `None` detects it per file from the file
    /// name and shebang.
    pub language: Option<&'static Language>,
    /// Front-end for source code.
    pub parser: Parser,
    /// What of identifiers and literals survives normalization.
    pub normalization: Normalization,
    /// Characters or words for prose and HTML.
    pub text_mode: TextMode,
    /// Token-sequence normalization on syntax trees (the command line's
    /// `--normalize`): statements with no effect on what the program
    /// outputs or returns are left out, independent members put in one
    /// order and equivalent forms written one way (see
    /// `bryo_treesitter::Options`). A file it applies to is parsed with
    /// tree-sitter whatever [`AnalyzeOptions::parser`] says; files that
    /// fall back to the lexer are taken as they are.
    pub normalize: Normalize,
}

impl Default for AnalyzeOptions {
    fn default() -> Self {
        AnalyzeOptions {
            language: None,
            parser: Parser::Lexer,
            normalization: Normalization::default(),
            text_mode: TextMode::default(),
            normalize: Normalize::Off,
        }
    }
}

impl AnalyzeOptions {
    /// These options for a file in `language`: whether it is normalized
    /// decided ([`Normalize::On`] or [`Normalize::Off`]), and tree-sitter
    /// as its parser when it is.
    pub fn for_language(&self, language: &Language) -> AnalyzeOptions {
        let on = self.normalize.applies_to(language);
        AnalyzeOptions {
            parser: if on { Parser::TreeSitter } else { self.parser },
            normalize: if on { Normalize::On } else { Normalize::Off },
            ..*self
        }
    }
}

/// What `--normalize` does to the symbols, as a number that stored
/// indexes record: 1 left out dead statements and wrote equivalent forms
/// one way; 2 also puts members and top-level definitions in canonical
/// order; 3 also inlines functions called once, leaves out Java's and C#'s
/// modifiers and redundant parentheses; 4 also writes `switch`
/// statements and `if` chains that compare one value with constants as one
/// form (C, C++, Java, C#, JavaScript, TypeScript); 5 also leaves out the
/// braces of loop bodies; 6 also those of JavaScript's and TypeScript's
/// `for … of` and `for … in` loops, writes Go's `switch` statements and
/// `if` chains, Python's `match` statements and `if`/`elif` chains and
/// Rust's `match` expressions and `if` chains as one form too, counts a
/// negative literal or a path (`Color::Red`) as a constant of a chain, and a second value of a case or a disjunction as `|| 3`
/// (not `|| == 3`). An index made under another
/// version refuses queries.
pub const TOKEN_NORMALIZATION_VERSION: u32 = 6;

/// A file after its front-end: the decoded text, the symbols with their
/// spans, and everything needed to map them to lines and original bytes.
#[derive(Clone, Debug)]
pub struct Analyzed {
    /// Display path.
    pub path: String,
    /// The decoded text and its map back to the file's bytes.
    pub decoded: Decoded<'static>,
    /// The language used.
    pub language: &'static Language,
    /// The front-end that produced the symbols.
    pub frontend: Frontend,
    /// Why a simpler front-end than the one asked for was used, if it was.
    pub fallback: Option<String>,
    /// Recoveries worth telling the user (unterminated strings, the
    /// Windows-1252 fallback, …).
    pub notes: Vec<String>,
    /// The symbols and their spans in the decoded text (packed: the spans
    /// of a whole corpus are held for the run).
    pub normalized: PackedStream,
    /// Lines of the decoded text.
    pub lines: LineIndex,
    /// For symbols out of text order (`--normalize`'s canonical order),
    /// each symbol's place in text order ([`Normalized::text_ranks`]);
    /// `None` when they are in text order.
    pub text_ranks: Option<Vec<u32>>,
}

impl Analyzed {
    /// The decoded text; empty if the analysis was asked not to keep it
    /// (`CompareOptions::keep_text`).
    pub fn text(&self) -> &str {
        self.decoded.text()
    }

    /// The half-open byte range in the decoded text of symbols
    /// `start..start + len` (`len` ≥ 1, inside the stream): the smallest
    /// range holding all of them.
    pub fn symbol_span(&self, start: usize, len: usize) -> Span {
        let spans = &self.normalized.spans;
        let span = |i: usize| spans.get(i).unwrap_or_default();
        if self.text_ranks.is_none() {
            return Span::new(span(start).start, span(start + len - 1).end);
        }
        // Read once, in order, from the mark before `start`.
        let (first, last) = spans
            .range(start..start + len)
            .fold((u32::MAX, 0), |(lo, hi), s| {
                (lo.min(s.start), hi.max(s.end))
            });
        match first {
            u32::MAX => Span::default(),
            _ => Span::new(first, last),
        }
    }

    /// The symbols `start..start + len` as runs that each cover a stretch
    /// of the text with no other symbol in it (in any order), as `(offset,
    /// len)` from `start`: one run unless the front-end moved symbols
    /// across other code (see [`Analyzed::text_ranks`]).
    pub fn text_runs(&self, start: usize, len: usize) -> Vec<(usize, usize)> {
        compact_runs(len, self.ranks(start, len), None)
    }

    /// The text ranks of symbols `start..start + len`; `None` when the
    /// stream is in text order.
    pub(crate) fn ranks(&self, start: usize, len: usize) -> Option<&[u32]> {
        self.text_ranks.as_deref().map(|r| &r[start..start + len])
    }
}

/// `0..len` cut before every `i + 1` where `joined(i)` is false, as
/// `(offset, len)` runs (the runs in order, [`compact_runs`]' bound).
#[cfg(test)]
pub(crate) fn cut_runs(len: usize, joined: impl Fn(usize) -> bool) -> Vec<(usize, usize)> {
    let mut runs = Vec::with_capacity(1);
    let mut from = 0;
    for i in 0..len.saturating_sub(1) {
        if !joined(i) {
            runs.push((from, i + 1 - from));
            from = i + 1;
        }
    }
    if len > 0 {
        runs.push((from, len - from));
    }
    runs
}

/// The longest run [`compact_runs`] keeps out of order: a few statements'
/// worth, enough for sorted operands and a short loop's moved update, too
/// few to hide which of two moved methods matched which.
pub(crate) const UNORDERED_RUN: usize = 32;

/// `0..len` cut into runs, as `(offset, len)`; `a[i]` and `b[i]` are the
/// text ranks of the symbols (`None`: in text order). A run is in order on
/// both sides, or, up to [`UNORDERED_RUN`] symbols, covers on both sides a
/// stretch of the text with nothing else of the stream in it, in whatever
/// order; each is the longest such prefix of what is left. So symbols
/// moved a little (operands sorted, a short loop's update moved to the end
/// of its body) stay in one run whose envelope in each file is exactly its
/// symbols' text, while code moved across other code is cut, and every run
/// of more than [`UNORDERED_RUN`] symbols shows matching text in the same
/// order on both sides.
pub(crate) fn compact_runs(
    len: usize,
    a: Option<&[u32]>,
    b: Option<&[u32]>,
) -> Vec<(usize, usize)> {
    let follows = |r: Option<&[u32]>, j: usize| r.is_none_or(|r| r[j - 1].wrapping_add(1) == r[j]);
    let mut runs = Vec::with_capacity(1);
    let mut from = 0;
    while from < len {
        let (mut a_lo, mut a_hi, mut b_lo, mut b_hi) = (u32::MAX, 0, u32::MAX, 0);
        let mut ordered = true;
        let mut best = from;
        for j in from..len {
            let n = j + 1 - from;
            ordered = ordered && (j == from || follows(a, j) && follows(b, j));
            if !ordered && n > UNORDERED_RUN {
                break;
            }
            if let Some(a) = a {
                a_lo = a_lo.min(a[j]);
                a_hi = a_hi.max(a[j]);
            }
            if let Some(b) = b {
                b_lo = b_lo.min(b[j]);
                b_hi = b_hi.max(b[j]);
            }
            let compact =
                |lo: u32, hi: u32, r: Option<&[u32]>| r.is_none() || (hi - lo) as usize + 1 == n;
            if ordered || compact(a_lo, a_hi, a) && compact(b_lo, b_hi, b) {
                best = j;
            }
        }
        runs.push((from, best + 1 - from));
        from = best + 1;
    }
    runs
}

/// Runs one file through decoding, detection and its front-end. `Err` is
/// the reason the file cannot be compared (binary, too large, unknown
/// language); it is reported, never dropped silently.
pub fn analyze(
    path: &str,
    bytes: &[u8],
    options: &AnalyzeOptions,
) -> Result<Analyzed, AnalyzeError> {
    analyze_keeping(path, bytes, options, true)
}

/// [`analyze`], keeping the decoded text in [`Analyzed::decoded`] only if
/// `keep_text`: without it, the text is never copied out of `bytes`, and
/// [`Analyzed::text`] is empty as after [`Decoded::release_text`].
pub fn analyze_keeping(
    path: &str,
    bytes: &[u8],
    options: &AnalyzeOptions,
    keep_text: bool,
) -> Result<Analyzed, AnalyzeError> {
    let decoded = decode(bytes)?;
    let text = decoded.text();
    let language = match options.language {
        Some(language) => language,
        None => {
            let first_line = text.as_bytes().split(|&b| b == b'\n').next().unwrap_or(&[]);
            Language::detect(Path::new(path), first_line).ok_or(AnalyzeError::UnknownLanguage)?
        }
    };
    let lines = LineIndex::new(text.as_bytes());
    let mut notes = Vec::new();
    if let Some(note) = decoded.note() {
        notes.push(note);
    }
    let mut normalized = Normalized::default();
    let run = normalize_into(language, text, options, &mut normalized)?;
    for note in &run.lex_notes {
        let (line, col) = lines.line_col(note.offset);
        let what = match note.kind {
            LexNoteKind::UnterminatedString => "unterminated literal",
            LexNoteKind::UnterminatedComment => "unterminated comment",
            LexNoteKind::UnterminatedInterpolation => "unterminated interpolation",
            LexNoteKind::Truncated => "file truncated",
            _ => "lexer recovery",
        };
        notes.push(format!("{what} at {line}:{col}"));
    }
    let (frontend, fallback) = (run.frontend, run.fallback);
    let text_ranks = if options.normalize.applies_to(language) {
        normalized.text_ranks()
    } else {
        None
    };
    let decoded = if keep_text {
        decoded.into_owned()
    } else {
        decoded.without_text()
    };
    Ok(Analyzed {
        text_ranks,
        path: path.to_string(),
        decoded,
        language,
        frontend,
        fallback,
        notes,
        normalized: normalized.into(),
        lines,
    })
}

/// What [`normalize_into`] did besides writing the symbols.
#[derive(Clone, Debug)]
pub struct FrontendRun {
    /// The front-end that produced the symbols.
    pub frontend: Frontend,
    /// Why a simpler front-end than the one asked for was used, if it was.
    pub fallback: Option<String>,
    /// The lexer's recoveries (unterminated constructs), by byte offset.
    pub lex_notes: Vec<LexNote>,
}

/// The front-end dispatch of every bryo command: turns decoded `text` of
/// `language` into symbols with the front-end `options` ask for (prose,
/// HTML, tree-sitter with the lexer as recorded fallback, or the lexer),
/// writing into `out` (cleared first; prose and HTML reuse its buffers).
/// [`analyze`] is this plus decoding, detection and line mapping.
///
/// `Err` is the reason the text cannot be normalized
/// ([`AnalyzeError::NoLexer`]).
pub fn normalize_into(
    language: &'static Language,
    text: &str,
    options: &AnalyzeOptions,
    out: &mut Normalized,
) -> Result<FrontendRun, AnalyzeError> {
    let options = &options.for_language(language);
    let mut run = FrontendRun {
        frontend: Frontend::Lexer,
        fallback: None,
        lex_notes: Vec::new(),
    };
    match language.frontend() {
        FrontendKind::Text => {
            normalize_text_into(text, options.text_mode, out);
            run.frontend = Frontend::Text;
        }
        FrontendKind::Html => {
            normalize_html_into(text, options.text_mode, out);
            run.frontend = Frontend::Html;
        }
        _ => {
            if options.parser == Parser::TreeSitter {
                match tree_sitter(language, text, options) {
                    Ok(n) => {
                        *out = n;
                        run.frontend = Frontend::TreeSitter;
                        return Ok(run);
                    }
                    Err(reason) => run.fallback = Some(reason),
                }
            }
            let lexer = language.lexer().ok_or(AnalyzeError::NoLexer {
                language: language.name(),
            })?;
            // Not `Lexer::lex`, which gives back the unused room of both
            // vectors: the spans are packed and dropped, the symbols
            // shrunk once when packed (`PackedStream::from`).
            let mut lexed = Lexed {
                normalized: Normalized::with_capacity(text.len() / 4),
                notes: Vec::new(),
            };
            lexer.lex_into(text, options.normalization, &mut lexed);
            *out = lexed.normalized;
            run.lex_notes = lexed.notes;
        }
    }
    Ok(run)
}

#[cfg(feature = "tree-sitter")]
fn tree_sitter(
    language: &Language,
    text: &str,
    analyze: &AnalyzeOptions,
) -> Result<Normalized, String> {
    let name = ts_name(language.name());
    if bryo_treesitter::TsLanguage::by_name(name).is_none() {
        return Err(format!("no tree-sitter grammar for {}", language.name()));
    }
    let options = ts_options(language, analyze);
    bryo_treesitter::normalize(name, text.as_bytes(), &options).map_err(|e| e.to_string())
}

/// The tree-sitter front-end's options for a file in `language`.
#[cfg(feature = "tree-sitter")]
fn ts_options(language: &Language, analyze: &AnalyzeOptions) -> bryo_treesitter::Options {
    let normalize = analyze.normalize.applies_to(language);
    let mut options = bryo_treesitter::Options::default();
    options.normalization = analyze.normalization;
    options.drop_dead_code = normalize;
    options.canonical_forms = normalize;
    options.canonical_order = normalize;
    options.canonical_control = normalize;
    options.inline_calls = normalize;
    options
}

/// The symbols of `file` that token normalization spells otherwise than
/// the text at their span (`+=` and `1` for the two bytes of `++`, `while`
/// for `for`), by span: for showing the stream to people (`bryo tokens`).
/// Empty unless tree-sitter produced the symbols.
pub fn spellings(file: &Analyzed, options: &AnalyzeOptions) -> Vec<(Span, String)> {
    #[cfg(feature = "tree-sitter")]
    if file.frontend == Frontend::TreeSitter {
        let options = ts_options(file.language, &options.for_language(file.language));
        let language = bryo_treesitter::TsLanguage::by_name(ts_name(file.language.name()));
        if let Some(Ok(list)) = language.map(|l| l.spellings(file.text().as_bytes(), &options)) {
            return list
                .into_iter()
                .map(|(span, text)| (span, String::from_utf8_lossy(&text).into_owned()))
                .collect();
        }
    }
    let _ = (file, options);
    Vec::new()
}

#[cfg(not(feature = "tree-sitter"))]
fn tree_sitter(_: &Language, _: &str, _: &AnalyzeOptions) -> Result<Normalized, String> {
    Err("this build of bryo has no tree-sitter front-ends".to_string())
}

/// The tree-sitter crate's name for a lexer language name.
#[cfg(feature = "tree-sitter")]
fn ts_name(name: &str) -> &str {
    match name {
        "cc" => "cpp",
        other => other,
    }
}

/// Whether bryo has a tree-sitter front-end for `language`.
pub fn has_tree_sitter(language: &Language) -> bool {
    #[cfg(feature = "tree-sitter")]
    {
        bryo_treesitter::TsLanguage::by_name(ts_name(language.name())).is_some()
    }
    #[cfg(not(feature = "tree-sitter"))]
    {
        let _ = language;
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_binary_file_is_a_decode_error_with_the_decoders_message() {
        let err = analyze("a.py", b"ab\0c", &AnalyzeOptions::default()).unwrap_err();
        assert_eq!(err, AnalyzeError::Decode(DecodeError::Binary { offset: 2 }));
        assert_eq!(err.to_string(), "binary file (NUL byte at offset 2)");
    }

    #[test]
    fn an_unrecognised_language_is_reported_as_before() {
        let err = analyze("notes.unknown-ext", b"x = 1\n", &AnalyzeOptions::default()).unwrap_err();
        assert_eq!(err, AnalyzeError::UnknownLanguage);
        assert_eq!(
            err.to_string(),
            "language not recognised from the file name or shebang (pass -l)"
        );
    }

    #[test]
    fn the_no_lexer_message_names_the_language() {
        // Every code language has a lexer today, so only the message is
        // checked.
        let err = AnalyzeError::NoLexer { language: "cobol" };
        assert_eq!(err.to_string(), "no lexer for language cobol");
    }

    /// [`compact_runs`] by its definition: every prefix tried.
    fn compact_runs_naive(len: usize, a: &[u32], b: &[u32]) -> Vec<(usize, usize)> {
        let ordered = |r: &[u32]| r.windows(2).all(|w| w[0] + 1 == w[1]);
        let compact = |r: &[u32]| {
            let (lo, hi) = (r.iter().min().unwrap(), r.iter().max().unwrap());
            (hi - lo) as usize + 1 == r.len() && r.len() <= UNORDERED_RUN
        };
        let mut runs = Vec::new();
        let mut from = 0;
        while from < len {
            let end = (from + 1..=len)
                .rev()
                .find(|&e| {
                    let (a, b) = (&a[from..e], &b[from..e]);
                    ordered(a) && ordered(b) || compact(a) && compact(b)
                })
                .unwrap();
            runs.push((from, end - from));
            from = end;
        }
        runs
    }

    /// Text ranks of `n` symbols shuffled in blocks of up to `block` and
    /// the blocks moved about: what canonical order and operand sorting do.
    fn moved_ranks(n: usize, block: usize, seed: u64) -> Vec<u32> {
        let mut state = seed | 1;
        let mut next = move |m: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % m as u64) as usize
        };
        let mut blocks: Vec<Vec<u32>> = Vec::new();
        let mut i = 0;
        while i < n {
            let len = (1 + next(block)).min(n - i);
            let mut b: Vec<u32> = (i as u32..(i + len) as u32).collect();
            for k in (1..b.len()).rev() {
                if next(3) == 0 {
                    b.swap(k, next(k + 1));
                }
            }
            blocks.push(b);
            i += len;
        }
        for k in (1..blocks.len()).rev() {
            if next(4) == 0 {
                blocks.swap(k, next(k + 1));
            }
        }
        blocks.concat()
    }

    proptest::proptest! {
        #[test]
        fn compact_runs_are_the_longest_compact_prefixes(
            n in 1usize..120,
            block in 1usize..40,
            seed in proptest::prelude::any::<u64>(),
        ) {
            let a = moved_ranks(n, block, seed);
            let b = moved_ranks(n, block, seed.rotate_left(17));
            let runs = compact_runs(n, Some(&a), Some(&b));
            proptest::prop_assert_eq!(&runs, &compact_runs_naive(n, &a, &b));
            // Never more runs than the runs in order on both sides.
            let in_order = cut_runs(n, |i| a[i] + 1 == a[i + 1] && b[i] + 1 == b[i + 1]);
            proptest::prop_assert!(runs.len() <= in_order.len());
            let plain: Vec<u32> = (0..n as u32).collect();
            proptest::prop_assert_eq!(
                compact_runs(n, None, Some(&b)),
                compact_runs_naive(n, &plain, &b)
            );
        }
    }

    #[test]
    fn symbols_moved_within_a_stretch_make_one_run() {
        // Operands sorted on one side (2 1 0 4 3), a short statement moved
        // on the other (5..8 before 0..5): one stretch each.
        let a = [2, 1, 0, 4, 3, 5, 6, 7];
        assert_eq!(compact_runs(8, Some(&a), None), vec![(0, 8)]);
        let b = [3, 4, 5, 6, 7, 0, 1, 2];
        assert_eq!(compact_runs(8, Some(&a), Some(&b)), vec![(0, 8)]);
        // Moved across code outside the match: cut.
        let c = [0, 1, 2, 3, 9, 10, 11, 12];
        assert_eq!(compact_runs(8, None, Some(&c)), vec![(0, 4), (4, 4)]);
        assert_eq!(compact_runs(0, None, None), vec![]);
        // Two long members swapped: a stretch, but cut to show which
        // matched which.
        let n = UNORDERED_RUN as u32;
        let swapped: Vec<u32> = (n..2 * n).chain(0..n).collect();
        let runs = compact_runs(swapped.len(), Some(&swapped), None);
        assert_eq!(runs, vec![(0, n as usize), (n as usize, n as usize)]);
    }

    #[cfg(feature = "tree-sitter")]
    #[test]
    fn auto_normalizes_java_c_and_cpp_only() {
        let options = AnalyzeOptions {
            normalize: Normalize::Auto,
            ..AnalyzeOptions::default()
        };
        let program = b"class A { int f(int a) { int unused = 3; return a; } }\n";
        for (path, normalized) in [
            ("a.java", true),
            ("a.c", true),
            ("a.cpp", true),
            ("a.cs", false),
        ] {
            let a = analyze(path, program, &options).unwrap();
            let language = a.language;
            assert_eq!(options.normalize.applies_to(language), normalized, "{path}");
            let expected = if normalized {
                Frontend::TreeSitter
            } else {
                Frontend::Lexer
            };
            assert_eq!(a.frontend, expected, "{path}");
            // The same symbols as `On` where it normalizes (the unused
            // variable left out), as `Off` elsewhere.
            let with = |normalize| {
                analyze(
                    path,
                    program,
                    &AnalyzeOptions {
                        normalize,
                        ..options
                    },
                )
                .unwrap()
                .normalized
                .symbols
            };
            let (on, off) = (with(Normalize::On), with(Normalize::Off));
            assert_ne!(on, off, "{path}");
            let same = if normalized { on } else { off };
            assert_eq!(a.normalized.symbols, same, "{path}");
        }
        let python = Language::by_name("python").unwrap();
        assert!(!Normalize::Auto.applies_to(python));
        assert!(Normalize::On.applies_to(python));
        assert!(!Normalize::Off.applies_to(python));
    }
}
