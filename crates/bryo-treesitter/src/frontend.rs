//! Parsing with limits, the per-thread parser cache, and the fallback
//! decision.

use std::cell::RefCell;
use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use bryo_frontend::{Normalization, Normalized, Span};
use tree_sitter::{Language, ParseOptions, ParseState, Parser, Tree};

use crate::dead::{dead_statements, StatementTable};
use crate::error::Fallback;
use crate::flat::Flat;
use crate::forms::{Edits, Lexeme};
use crate::languages::{languages, TsLanguage};
use crate::walk::{role_table, walk, Role, TreeStats};
use crate::{inline, order, shape};

/// How to run a tree-sitter front-end, and when to give up on it.
///
/// Build with `Options::default()` and set fields:
///
/// ```
/// let mut options = bryo_treesitter::Options::default();
/// options.normalization = bryo_treesitter::Normalization::Verbatim;
/// options.max_bytes = 256 * 1024;
/// ```
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Options {
    /// What of identifiers and literals survives: every identifier one
    /// symbol and every literal the symbol of its kind
    /// ([`Normalization::Full`]), string and character literals hashed with
    /// their text ([`Normalization::KeepStrings`]), or identifiers and
    /// literals hashed with their text ([`Normalization::Verbatim`]).
    /// Default [`Normalization::Full`] (not `Normalization::default()`,
    /// which is the command line's `keep-strings`).
    pub normalization: Normalization,
    /// Longest text parsed; longer texts fall back with
    /// [`Fallback::TooLarge`]. Default 1 MiB; at most `u32::MAX` (spans are
    /// 32-bit).
    pub max_bytes: usize,
    /// Largest share of the text that syntax errors may cover before the
    /// tree is not trusted ([`Fallback::TooManyErrors`]), in `0.0..=1.0`.
    /// The covered bytes are those of stray tokens the parser could not fit
    /// into any construct ([`TreeStats::error_bytes`]) plus one per `MISSING`
    /// node it inserted (at most the whole text, so
    /// `1.0` never falls back for errors). Default `0.1`: one broken
    /// statement in a file still gets a tree, a file in the wrong language
    /// or of random bytes does not.
    pub max_error_share: f64,
    /// Wall-clock limit of the parse of a 1 MiB file
    /// ([`Fallback::TimedOut`]); a file of `n` bytes gets a tenth of it plus
    /// `n / 1 MiB` of it, at most all of it ([`parse_limit`]). `None` for no
    /// limit. Default 10 s, so 1 s plus 10 s per MiB: a 1 MiB file takes
    /// about 0.1 s on an unloaded core and about 1 s on a core shared by ten
    /// jobs, so only a pathological input reaches it, and a small file that
    /// sends error recovery into a long search (a few hundred random bytes
    /// can hold tree-sitter for minutes) costs a second, not ten. Whether it
    /// is reached depends on the machine's load, so set `None` where
    /// byte-identical results across machines matter more than a bound on
    /// time.
    pub timeout: Option<Duration>,
    /// Token-sequence normalization against inserted code: leave out the
    /// symbols of statements that have no effect on what the program
    /// outputs or returns (unused variables and assignments, code after a
    /// `return`, no-op statements, calls to functions of the file that do
    /// nothing). Spans stay those of the symbols kept. Default `false`.
    pub drop_dead_code: bool,
    /// Token-sequence normalization of equivalent forms: `x++`, `++x` and
    /// `x = x + e` are emitted as `x += 1` and `x += e` (likewise `--`,
    /// `-=` and the other arithmetic and bitwise operators), where the
    /// meaning is the same. Default `false`.
    pub canonical_forms: bool,
    /// Token-sequence normalization against reordering: the members of a
    /// class and the definitions and statements of a file's top level that
    /// do not conflict (neither writes what the other reads or writes, not
    /// both with effects, no jump or label) are emitted in one canonical
    /// order, whatever order they were written in. Symbols keep their
    /// spans, so the stream is then out of text order where they moved
    /// ([`Normalized`]). Default `false`.
    pub canonical_order: bool,
    /// With [`Options::canonical_order`], the statements of every block
    /// too. Default `false`: on the labelled sets it raises independent
    /// solutions of one task more than it helps copies (ARCHITECTURE.md,
    /// canonical order).
    pub canonical_statement_order: bool,
    /// Token-sequence normalization of control flow: a C-style `for`
    /// loop is emitted as the `while` loop it stands for (`init; while
    /// (cond) { body update; }`), and an `if`/`else` with a negated
    /// condition (`!c`, `!=`, `>=`, `<=`) is emitted with the positive
    /// condition and its branches swapped. Symbols keep spans of their own (the `for`
    /// keyword's is the `while`'s); the update and the swapped branches
    /// are out of text order. Default `false`.
    pub canonical_control: bool,
    /// Token-sequence normalization against extract-method and inline
    /// refactoring: a function of the file that is called exactly once, by
    /// plain name, is inlined there when its body ends in its only
    /// `return e;` (the call becomes `e`, the statements before the
    /// `return` go before the statement holding the call) or is statements
    /// without a `return` called as a statement of their own (the call
    /// becomes the statements). Its definition is left out. Symbols keep their spans, so the stream is
    /// out of text order where a body moved. Default `false`.
    pub inline_calls: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            normalization: Normalization::Full,
            max_bytes: 1 << 20,
            max_error_share: 0.1,
            timeout: Some(Duration::from_secs(10)),
            drop_dead_code: false,
            canonical_forms: false,
            canonical_order: false,
            canonical_statement_order: false,
            canonical_control: false,
            inline_calls: false,
        }
    }
}

impl Options {
    fn validate(&self) -> Result<(), Fallback> {
        if self.max_bytes > u32::MAX as usize {
            return Err(Fallback::InvalidOptions("max_bytes is over u32::MAX"));
        }
        if !(0.0..=1.0).contains(&self.max_error_share) {
            return Err(Fallback::InvalidOptions(
                "max_error_share is not within 0.0..=1.0",
            ));
        }
        Ok(())
    }
}

/// A successful tree-sitter front-end run: the symbol stream and what the
/// parser reported of syntax errors (under the limit, or there would have
/// been a [`Fallback`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Parsed {
    /// The symbols and their spans.
    pub normalized: Normalized,
    /// Syntax errors the tree holds.
    pub stats: TreeStats,
}

/// The parser and tables of one language on one thread.
struct ThreadParser {
    parser: Parser,
    roles: Vec<Role>,
    statements: StatementTable,
    /// The arena each tree is copied into for the passes, kept across
    /// files.
    flat: Flat,
}

impl ThreadParser {
    fn new(spec: &'static TsLanguage) -> Result<Self, Fallback> {
        let language: Language = spec.grammar();
        let mut parser = Parser::new();
        parser
            .set_language(&language)
            .map_err(|e| Fallback::Grammar(e.to_string()))?;
        let roles = role_table(spec, &language);
        let statements = StatementTable::new(spec, &language);
        Ok(ThreadParser {
            parser,
            roles,
            statements,
            flat: Flat::new(&language),
        })
    }

    /// Parses `text` on a stack deep enough for it ([`parse_stack`]): on
    /// this thread's own stack where enough of it is left, else on one
    /// made for the call.
    fn parse(&mut self, text: &[u8], timeout: Option<Duration>) -> Result<Tree, Fallback> {
        let needed = parse_stack(text.len());
        stacker::maybe_grow(needed, needed + STACK_SLACK, || {
            self.parse_here(text, timeout)
        })
    }

    fn parse_here(&mut self, text: &[u8], timeout: Option<Duration>) -> Result<Tree, Fallback> {
        let mut read = |i: usize, _| text.get(i..).unwrap_or_default();
        let tree = match timeout {
            None => self.parser.parse_with_options(&mut read, None, None),
            Some(limit) => {
                let limit = parse_limit(limit, text.len());
                let deadline = Instant::now().checked_add(limit);
                // tree-sitter calls this every hundred or so parse steps.
                let mut check = |_: &ParseState| match deadline {
                    Some(d) if Instant::now() >= d => ControlFlow::Break(()),
                    _ => ControlFlow::Continue(()),
                };
                let options = ParseOptions::new().progress_callback(&mut check);
                let tree = self
                    .parser
                    .parse_with_options(&mut read, None, Some(options));
                if tree.is_none() && deadline.is_some_and(|d| Instant::now() >= d) {
                    // A cancelled parser would resume this parse next time.
                    self.parser.reset();
                    return Err(Fallback::TimedOut(limit));
                }
                tree
            }
        };
        tree.ok_or_else(|| {
            self.parser.reset();
            Fallback::NoTree
        })
    }
}

impl ThreadParser {
    /// The edits that leave out `tree`'s dead statements when `options`
    /// drop dead code (none otherwise): what the rewrites start from.
    fn dead_edits(&self, text: &[u8], options: &Options) -> Edits {
        let mut edits = Edits::default();
        if options.drop_dead_code {
            edits.skip = dead_statements(&self.flat, text, &self.roles, &self.statements);
        }
        edits
    }
}

/// Stack a tree-sitter parse may need besides what the input adds.
const STACK_BASE: usize = 1 << 20;

/// Stack a tree-sitter parse may need for each byte of its input.
///
/// tree-sitter's parser frees the versions of its parse stack it drops
/// (error recovery, ambiguities) with a recursion per merged link
/// (`stack_node_release` in its `stack.c`), as deep as the chain of stack
/// nodes, which the input makes: 800 KB of `a = / b / c /[/ ` in C or
/// Java overflowed the 2 MiB stack of a worker thread and ended the whole
/// process. The worst input found, `{ [ ` repeated as Go, needs about 32
/// bytes of stack per byte (1 MiB of it parses on 32 MiB of stack, not
/// on 24); this leaves four times that.
const STACK_PER_BYTE: usize = 128;

/// What a parse leaves between the check of the stack and tree-sitter's
/// first frame: the closure and the parse call's own frames.
const STACK_SLACK: usize = 64 << 10;

/// The stack a parse of `bytes` bytes is given: where less is left on the
/// calling thread, the parse runs on a stack of this size made for it
/// (`stacker`), so no input can overflow the caller's. Threads that parse
/// many files (`bryo compare`'s workers) are started with
/// `parse_stack(Options::default().max_bytes)` to skip making one each time.
pub fn parse_stack(bytes: usize) -> usize {
    STACK_BASE.saturating_add(bytes.saturating_mul(STACK_PER_BYTE))
}

/// The time a parse of `bytes` bytes gets under [`Options::timeout`]
/// `timeout`: a tenth of it plus `bytes / 1 MiB` of it, at most all of it.
pub fn parse_limit(timeout: Duration, bytes: usize) -> Duration {
    let share = bytes as f64 / (1u64 << 20) as f64;
    (timeout / 10 + timeout.mul_f64(share.min(1.0))).min(timeout)
}

/// `text` with every `\r` not followed by `\n` replaced by `\n`; borrowed
/// when there is none.
fn lone_cr_as_lf(text: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    let lone = |i: usize| text[i] == b'\r' && text.get(i + 1) != Some(&b'\n');
    // Looked for at each `\r` only (most files have none, or one per line).
    if !memchr::memchr_iter(b'\r', text).any(lone) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut copy = text.to_vec();
    for (i, b) in copy.iter_mut().enumerate() {
        if lone(i) {
            *b = b'\n';
        }
    }
    std::borrow::Cow::Owned(copy)
}

thread_local! {
    /// One parser per language per thread, created on first use: parsers
    /// are not `Sync`, and creating one (and its role table) per file would
    /// cost more than parsing a small file.
    static PARSERS: RefCell<Vec<Option<ThreadParser>>> = const { RefCell::new(Vec::new()) };
}

impl TsLanguage {
    /// Runs this language's front-end on `text` (decoded UTF-8).
    ///
    /// Never panics on any input; every way it can decline a file is a
    /// [`Fallback`] with the reason.
    pub fn normalize(&self, text: &[u8], options: &Options) -> Result<Parsed, Fallback> {
        let mut normalized = Normalized::default();
        let stats = self.normalize_into(text, options, &mut normalized)?;
        Ok(Parsed { normalized, stats })
    }

    /// Like [`TsLanguage::normalize`], but appends to `out` (cleared first)
    /// so its buffers are reused across files. On a fallback `out` is left
    /// empty.
    pub fn normalize_into(
        &self,
        text: &[u8],
        options: &Options,
        out: &mut Normalized,
    ) -> Result<TreeStats, Fallback> {
        out.clear();
        options.validate()?;
        if text.len() > options.max_bytes {
            return Err(Fallback::TooLarge {
                bytes: text.len(),
                limit: options.max_bytes,
            });
        }
        // Tree-sitter grammars end lines and line comments at `\n` only; a
        // file with classic Mac line ends (a lone `\r`) would be one line, its
        // first `//` or `#` comment swallowing the rest. Parse a copy with
        // each lone `\r` made `\n` (same length, so spans are unchanged);
        // symbols are still hashed from the original text.
        let parse_text = lone_cr_as_lf(text);
        let verbatim = options.normalization == Normalization::Verbatim;
        let keep_strings = options.normalization == Normalization::KeepStrings;
        let stats = self.with_parser(|tp| {
            let tree = tp.parse(&parse_text, options.timeout)?;
            tp.flat.load(&tree);
            drop(tree);
            let tp = &*tp;
            let tree = &tp.flat;
            let mut edits = tp.dead_edits(&parse_text, options);
            let mut moves = Vec::new();
            let mut finder = options.canonical_order.then(|| {
                order::ListFinder::new(
                    &parse_text,
                    &tp.roles,
                    &tp.statements,
                    options.canonical_statement_order,
                )
            });
            let mut calls = options
                .inline_calls
                .then(|| inline::Finder::new(tree, &parse_text, &tp.roles, &tp.statements));
            if options.canonical_forms
                || options.canonical_control
                || finder.is_some()
                || calls.is_some()
            {
                shape::rewrite(
                    tree,
                    &parse_text,
                    &tp.roles,
                    &tp.statements,
                    options.canonical_forms,
                    options.canonical_control,
                    finder.as_mut(),
                    calls.as_mut(),
                    &mut edits,
                    &mut moves,
                );
            }
            edits.sort();
            let lists = finder.map(|f| f.out).unwrap_or_default();
            let inlines = calls.map(|c| c.finish(&edits)).unwrap_or_default();
            let stats = walk(tree, text, &tp.roles, &edits, verbatim, keep_strings, out);
            order::apply(&lists, &moves, out);
            inline::apply(&inlines, out);
            Ok(stats)
        })?;
        let error_bytes = (stats.error_bytes + stats.missing_nodes as usize).min(text.len());
        if error_bytes > 0 && error_bytes as f64 > options.max_error_share * text.len() as f64 {
            out.clear();
            return Err(Fallback::TooManyErrors {
                error_bytes,
                total_bytes: text.len(),
                error_nodes: stats.error_nodes,
                missing_nodes: stats.missing_nodes,
                max_share: options.max_error_share,
            });
        }
        Ok(stats)
    }

    /// The symbols that `options`' rewrites spell otherwise than the text at
    /// their span, by span: `x++` is emitted as `x += 1` with `+=` and `1`
    /// at one byte of `++` each, a `for` loop's keyword as `while`. For
    /// showing a stream to people (`bryo tokens`); the symbols themselves
    /// come from [`TsLanguage::normalize`]. Sorted by span, each span once;
    /// a span the stream does not hold (a rewrite inside dead code) may be
    /// listed too.
    pub fn spellings(
        &self,
        text: &[u8],
        options: &Options,
    ) -> Result<Vec<(Span, Vec<u8>)>, Fallback> {
        if !options.canonical_forms && !options.canonical_control {
            return Ok(Vec::new());
        }
        let tree = self.parse_tree(text, options)?;
        let parse_text = lone_cr_as_lf(text);
        let mut edits = Edits::default();
        self.with_parser(|tp| {
            tp.flat.load(&tree);
            let tp = &*tp;
            // The rewrites read around dead statements as the stream does.
            edits = tp.dead_edits(&parse_text, options);
            shape::rewrite(
                &tp.flat,
                &parse_text,
                &tp.roles,
                &tp.statements,
                options.canonical_forms,
                options.canonical_control,
                None,
                None,
                &mut edits,
                &mut Vec::new(),
            );
            Ok(())
        })?;
        let mut out: Vec<(Span, Vec<u8>)> = edits
            .replace
            .iter()
            .flat_map(|(_, emits)| emits)
            .filter_map(|e| {
                let spelled: &[u8] = match e.lexeme {
                    Lexeme::Fixed(t) => t,
                    Lexeme::Text(s, t) => text.get(s as usize..t as usize)?,
                };
                let written = text.get(e.start as usize..e.end as usize)?;
                (spelled != written).then(|| (Span::new(e.start, e.end), spelled.to_vec()))
            })
            .collect();
        out.sort_by_key(|(span, _)| (span.start, span.end));
        out.dedup_by_key(|(span, _)| (span.start, span.end));
        Ok(out)
    }

    /// Parses `text` into a syntax tree with this thread's cached parser,
    /// under the same size and time limits as [`TsLanguage::normalize`] (no
    /// error-share check: the tree is returned as it is).
    pub fn parse_tree(&self, text: &[u8], options: &Options) -> Result<Tree, Fallback> {
        options.validate()?;
        if text.len() > options.max_bytes {
            return Err(Fallback::TooLarge {
                bytes: text.len(),
                limit: options.max_bytes,
            });
        }
        self.with_parser(|tp| tp.parse(&lone_cr_as_lf(text), options.timeout))
    }

    fn with_parser<T>(
        &self,
        f: impl FnOnce(&mut ThreadParser) -> Result<T, Fallback>,
    ) -> Result<T, Fallback> {
        let index = self
            .index()
            .ok_or_else(|| Fallback::UnknownLanguage(self.name.to_owned()))?;
        let spec: &'static TsLanguage = &languages()[index];
        PARSERS.with(|cell| match cell.try_borrow_mut() {
            Ok(mut parsers) => {
                if parsers.len() <= index {
                    parsers.resize_with(index + 1, || None);
                }
                let slot = &mut parsers[index];
                if slot.is_none() {
                    *slot = Some(ThreadParser::new(spec)?);
                }
                match slot.as_mut() {
                    Some(tp) => f(tp),
                    None => Err(Fallback::NoTree),
                }
            }
            // Only reachable if `f` re-entered this function; a private
            // parser keeps that correct, if slower.
            Err(_) => f(&mut ThreadParser::new(spec)?),
        })
    }
}

/// Runs the tree-sitter front-end of language `name` (canonical name or
/// alias, see [`TsLanguage::by_name`]) on `text`.
///
/// On `Err`, the caller should run the lexer front-end instead and record
/// the [`Fallback`] reason.
pub fn normalize(name: &str, text: &[u8], options: &Options) -> Result<Normalized, Fallback> {
    let language =
        TsLanguage::by_name(name).ok_or_else(|| Fallback::UnknownLanguage(name.to_owned()))?;
    language.normalize(text, options).map(|p| p.normalized)
}

#[cfg(test)]
mod tests {
    use super::lone_cr_as_lf;
    use proptest::prelude::*;

    proptest! {
        /// Every lone `\r`, and only those, becomes `\n`; a text without
        /// one is borrowed, not copied.
        #[test]
        fn lone_carriage_returns_become_line_feeds(
            text in proptest::collection::vec(prop_oneof![Just(b'\r'), Just(b'\n'), Just(b'a')], 0..64)
        ) {
            let expected: Vec<u8> = (0..text.len())
                .map(|i| match text[i] {
                    b'\r' if text.get(i + 1) != Some(&b'\n') => b'\n',
                    b => b,
                })
                .collect();
            let got = lone_cr_as_lf(&text);
            prop_assert_eq!(&got[..], &expected[..]);
            prop_assert_eq!(matches!(got, std::borrow::Cow::Borrowed(_)), expected == text);
        }
    }
}
