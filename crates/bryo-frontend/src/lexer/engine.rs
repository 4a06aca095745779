//! The one lexing engine. A [`Lexer`] is a language's [`LexSpec`] compiled
//! into byte tables: a 256-entry class table, per-first-byte lists of
//! comment and literal openers and of operators (longest first), and an
//! open-addressing keyword table whose symbols are precomputed. Lexing
//! allocates nothing per token in `Normalization::Full`.
//!
//! The engine is a loop over bytes with an explicit stack for interpolated
//! literals and a depth counter for nested comments, so no input can make
//! it recurse.

use super::spec::{LexSpec, PrefixKind, Quote, Tick};
use crate::{symbol, Normalization, Normalized, Span, SymbolClass};

const WS: u8 = 1;
const ID_START: u8 = 2;
const ID_CONT: u8 = 4;
const DIGIT: u8 = 8;
const SPECIAL: u8 = 16;
const OP_RUN: u8 = 32;
const SIGIL: u8 = 64;

/// A byte whose token the class tests of [`Lexer::run`] tell.
const ACT_CHAIN: u8 = 0;
/// A byte that starts an identifier or keyword, and nothing else.
const ACT_IDENT: u8 = 1;
/// A byte that is a one-byte operator, and nothing else (no longer
/// operator, comment or literal starts with it), outside interpolations.
const ACT_SINGLE: u8 = 2;
/// A whitespace byte: layout, whatever else its class says (the class
/// tests of [`Lexer::run`] test whitespace first).
const ACT_SPACE: u8 = 3;

/// Something the lexer recovered from; lexing never fails.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LexNote {
    /// Byte offset where the unterminated construct started.
    pub offset: u32,
    /// What happened.
    pub kind: LexNoteKind,
}

/// The kinds of [`LexNote`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum LexNoteKind {
    /// A literal was not closed. Literals that may span lines end at the
    /// end of the text; single-line literals end at the end of their line.
    UnterminatedString,
    /// A block comment was not closed; it ends at the end of the text.
    UnterminatedComment,
    /// An interpolated expression inside a literal (`${…}`) was not closed
    /// by the end of the text.
    UnterminatedInterpolation,
    /// The text is longer than 4 GiB − 1 bytes (spans are `u32`); only the
    /// part before this offset was lexed.
    Truncated,
}

/// The output of a lexer: the symbol stream and the recoveries made.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Lexed {
    /// Symbols and their spans.
    pub normalized: Normalized,
    /// Unterminated constructs, in order of their start.
    pub notes: Vec<LexNote>,
}

#[derive(Clone, Copy, Debug)]
enum Starter {
    /// Line comment, first column only.
    LineStart(&'static [u8]),
    /// POD-style first-column block comment.
    LineStartBlock,
    /// First-column end of code (`__END__`).
    EndMarker(&'static [u8]),
    Line(&'static [u8]),
    Block(&'static [u8], &'static [u8]),
    Quote(u16),
    Tick,
    Regex,
}

impl Starter {
    fn len(&self, spec: &LexSpec) -> usize {
        match *self {
            Starter::LineStart(p) | Starter::Line(p) | Starter::Block(p, _) => p.len(),
            Starter::Quote(q) => spec.quotes[q as usize].open.len(),
            Starter::LineStartBlock | Starter::Tick | Starter::Regex | Starter::EndMarker(_) => 0,
        }
    }
    fn rank(&self) -> u8 {
        match self {
            Starter::LineStart(_) | Starter::LineStartBlock | Starter::EndMarker(_) => 0,
            Starter::Tick | Starter::Regex => 2,
            _ => 1,
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct KwSlot {
    word: &'static [u8],
    sym: u64,
    comment: bool,
}

/// Open-addressing keyword table keyed on the first and last eight bytes
/// and the length; symbols precomputed.
#[derive(Debug)]
struct Keywords {
    slots: Vec<Option<KwSlot>>,
    mask: usize,
    min_len: usize,
    max_len: usize,
    /// Bit `min(len, 63)` of entry `b` set when some word of that length
    /// starts with the byte `b`: most identifiers are turned away by it
    /// without a hash.
    first_len: [u64; 256],
}

#[inline]
fn kw_hash(w: &[u8]) -> u64 {
    let mut x = 0u64;
    for (k, &b) in w.iter().take(8).enumerate() {
        x |= u64::from(b) << (8 * k);
    }
    if w.len() > 8 {
        let mut y = 0u64;
        for (k, &b) in w[w.len() - 8..].iter().enumerate() {
            y |= u64::from(b) << (8 * k);
        }
        x ^= y.rotate_left(29);
    }
    x ^= (w.len() as u64) << 59;
    x.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32
}

/// [`kw_hash`] of `s[start..end]` (`start < end`), read from the text a
/// word at a time: the same value, without the loop over the first eight
/// bytes.
#[inline]
fn kw_hash_at(s: &[u8], start: usize, end: usize) -> u64 {
    let len = end - start;
    let mut x = match s.get(start..start + 8) {
        Some(word) => {
            let x = u64::from_le_bytes(word.try_into().expect("eight bytes"));
            if len >= 8 {
                x
            } else {
                x & ((1u64 << (8 * len)) - 1)
            }
        }
        // Fewer than eight bytes are left in the text.
        None => s[start..end]
            .iter()
            .enumerate()
            .fold(0, |x, (k, &b)| x | u64::from(b) << (8 * k)),
    };
    if len > 8 {
        let y = u64::from_le_bytes(s[end - 8..end].try_into().expect("eight bytes"));
        x ^= y.rotate_left(29);
    }
    x ^= (len as u64) << 59;
    x.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32
}

/// `a == b` for the short slices of keywords and operators, without a
/// call to `memcmp`.
#[inline]
fn eq_short(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

/// `starts(rest, p)` for short `p`.
#[inline]
fn starts(rest: &[u8], p: &[u8]) -> bool {
    p.len() <= rest.len() && p.iter().zip(rest).all(|(x, y)| x == y)
}

impl Keywords {
    fn new(spec: &LexSpec) -> Keywords {
        let n = spec.keywords().count() + spec.comment_words.len();
        let cap = (n * 4).next_power_of_two().max(16);
        let mut kw = Keywords {
            slots: vec![None; cap],
            mask: cap - 1,
            min_len: usize::MAX,
            max_len: 0,
            first_len: [0; 256],
        };
        let all = spec
            .keywords()
            .map(|w| (w, false))
            .chain(spec.comment_words.iter().map(|&w| (w, true)));
        for (w, comment) in all {
            let word = w.as_bytes();
            if kw.find(word).is_some() {
                continue;
            }
            kw.min_len = kw.min_len.min(word.len());
            kw.max_len = kw.max_len.max(word.len());
            kw.first_len[word[0] as usize] |= 1 << word.len().min(63);
            let mut h = kw_hash(word) as usize & kw.mask;
            while kw.slots[h].is_some() {
                h = (h + 1) & kw.mask;
            }
            kw.slots[h] = Some(KwSlot {
                word,
                sym: symbol(SymbolClass::Keyword, word),
                comment,
            });
        }
        kw
    }

    #[inline]
    fn find(&self, w: &[u8]) -> Option<&KwSlot> {
        if w.len() > self.max_len || w.len() < self.min_len {
            return None;
        }
        self.probe(w, kw_hash(w))
    }

    /// [`Keywords::find`] of `s[start..end]` (`start < end`), hashed
    /// from the text a word at a time.
    #[inline]
    fn find_at(&self, s: &[u8], start: usize, end: usize) -> Option<&KwSlot> {
        let len = end - start;
        if self.first_len[s[start] as usize] >> len.min(63) & 1 == 0 {
            return None;
        }
        self.probe(&s[start..end], kw_hash_at(s, start, end))
    }

    /// The slot of `w`, whose [`kw_hash`] is `hash`.
    #[inline]
    fn probe(&self, w: &[u8], hash: u64) -> Option<&KwSlot> {
        let mut h = hash as usize & self.mask;
        loop {
            match &self.slots[h] {
                None => return None,
                Some(s) if eq_short(s.word, w) => return Some(s),
                Some(_) => h = (h + 1) & self.mask,
            }
        }
    }
}

/// A compiled lexer for one language. Obtain one with
/// [`Language::lexer`](crate::Language::lexer); it is built once per
/// process and shared by all threads.
#[derive(Debug)]
pub struct Lexer {
    spec: &'static LexSpec,
    class: [u8; 256],
    /// What a token starting with the byte is, where one look decides it
    /// ([`ACT_IDENT`], [`ACT_SINGLE`], [`ACT_SPACE`]); [`ACT_CHAIN`]
    /// elsewhere.
    action: [u8; 256],
    starters: Vec<Vec<Starter>>,
    ops: Vec<Vec<(&'static [u8], u64)>>,
    single_op: Vec<u64>,
    keywords: Keywords,
    sym_ident: u64,
    sym_number: u64,
    sym_class: [u64; 16],
    /// For each of the spec's quotes, the bytes its body must stop at.
    quote_stops: Vec<Stops>,
}

/// The bytes that can close, escape, interpolate or cut short a literal's
/// body: everything between them is skipped at once (with `memchr` for
/// up to three of them, as for the long docstrings of Python).
#[derive(Debug)]
struct Stops {
    bytes: Vec<u8>,
    table: [bool; 256],
}

impl Stops {
    fn new(quote: &Quote) -> Stops {
        let mut bytes = vec![quote.close.as_bytes()[0]];
        if quote.escape {
            bytes.push(b'\\');
        }
        if !quote.multiline {
            bytes.extend([b'\n', b'\r']);
        }
        if let Some(ip) = quote.interp {
            bytes.push(ip.as_bytes()[0]);
        }
        bytes.sort_unstable();
        bytes.dedup();
        let mut table = [false; 256];
        for &b in &bytes {
            table[b as usize] = true;
        }
        Stops { bytes, table }
    }

    /// The first stop at or after `from`, or `s.len()`.
    #[inline]
    fn next(&self, s: &[u8], from: usize) -> usize {
        let rest = &s[from..];
        let found = match *self.bytes.as_slice() {
            [a] => memchr::memchr(a, rest),
            [a, b] => memchr::memchr2(a, b, rest),
            [a, b, c] => memchr::memchr3(a, b, c, rest),
            _ => rest.iter().position(|&c| self.table[c as usize]),
        };
        found.map_or(s.len(), |p| from + p)
    }
}

/// An interpolation in progress: the literal it belongs to and the
/// bracket depth inside it.
#[derive(Clone, Copy, Debug)]
struct Frame {
    quote: u16,
    open: u8,
    close: u8,
    depth: u32,
    start: u32,
}

struct Run<'a> {
    s: &'a [u8],
    mode: Normalization,
    out: &'a mut Normalized,
    notes: &'a mut Vec<LexNote>,
    stack: Vec<Frame>,
    /// Offset just after the last value-like token (identifier, literal,
    /// closing bracket): decides MATLAB's transpose.
    value_end: usize,
    lower: Vec<u8>,
    /// Here-documents opened on the current line: the terminator's range
    /// in the text and where the opener was; their bodies start at the
    /// next line.
    heredocs: Vec<(usize, usize, usize)>,
    /// A `/` before this offset starts no regular expression: one that
    /// started earlier on the line found no end before this line end (so
    /// lines full of unclosed `/[` stay linear).
    regex_fail_until: usize,
}

impl Lexer {
    pub(crate) fn new(spec: &'static LexSpec) -> Lexer {
        let mut class = [0u8; 256];
        for b in [b' ', b'\t', b'\n', b'\r', 0x0b, 0x0c] {
            class[b as usize] |= WS;
        }
        for b in (b'a'..=b'z')
            .chain(b'A'..=b'Z')
            .chain([b'_'])
            .chain(0x80..=0xff)
        {
            class[b as usize] |= ID_START | ID_CONT;
        }
        for b in b'0'..=b'9' {
            class[b as usize] |= DIGIT | ID_CONT;
        }
        for &b in spec.ident_start {
            class[b as usize] |= ID_START | ID_CONT;
        }
        for &b in spec.ident_cont {
            class[b as usize] |= ID_CONT;
        }
        for &b in spec.op_run {
            class[b as usize] |= OP_RUN;
        }
        for &b in spec.sigils {
            class[b as usize] |= SIGIL;
        }

        let mut starters: Vec<Vec<Starter>> = vec![Vec::new(); 256];
        let mut add = |first: u8, st: Starter| {
            starters[first as usize].push(st);
            class[first as usize] |= SPECIAL;
        };
        for p in spec.line_start_comments {
            add(p.as_bytes()[0], Starter::LineStart(p.as_bytes()));
        }
        if let Some((open, _)) = spec.line_start_block {
            add(open.as_bytes()[0], Starter::LineStartBlock);
        }
        for p in spec.end_markers {
            add(p.as_bytes()[0], Starter::EndMarker(p.as_bytes()));
        }
        for p in spec.line_comments {
            add(p.as_bytes()[0], Starter::Line(p.as_bytes()));
        }
        for (o, c) in spec.block_comments {
            add(o.as_bytes()[0], Starter::Block(o.as_bytes(), c.as_bytes()));
        }
        for (i, q) in spec.quotes.iter().enumerate() {
            add(q.open.as_bytes()[0], Starter::Quote(i as u16));
        }
        if spec.tick != Tick::Op {
            add(b'\'', Starter::Tick);
        }
        if spec.regex {
            add(b'/', Starter::Regex);
        }
        for list in &mut starters {
            // First-column forms first, then longer openers, the tick last.
            list.sort_by_key(|st| (st.rank(), usize::MAX - st.len(spec)));
        }

        let mut ops: Vec<Vec<(&'static [u8], u64)>> = vec![Vec::new(); 256];
        for op in spec.operators {
            let b = op.as_bytes();
            ops[b[0] as usize].push((b, symbol(SymbolClass::Operator, b)));
        }
        for list in &mut ops {
            list.sort_by_key(|(o, _)| usize::MAX - o.len());
        }
        let single_op = (0..=255u8)
            .map(|b| symbol(SymbolClass::Operator, &[b]))
            .collect();
        let mut action = [ACT_CHAIN; 256];
        for b in 0..=255u8 {
            let c = class[b as usize];
            let layout = matches!(b, b'.' | b'\\') || (b == b'<' && spec.heredoc.is_some());
            action[b as usize] = if c & WS != 0 {
                ACT_SPACE
            } else if c & SPECIAL != 0 || layout {
                ACT_CHAIN
            } else if c & ID_START != 0 {
                ACT_IDENT
            } else if c & (WS | DIGIT | SIGIL | OP_RUN) == 0 && ops[b as usize].is_empty() {
                ACT_SINGLE
            } else {
                ACT_CHAIN
            };
        }
        let mut sym_class = [0u64; 16];
        for c in [
            SymbolClass::Identifier,
            SymbolClass::String,
            SymbolClass::Char,
            SymbolClass::Number,
            SymbolClass::OtherLiteral,
        ] {
            sym_class[c as usize] = symbol(c, b"");
        }
        Lexer {
            spec,
            class,
            action,
            starters,
            ops,
            single_op,
            keywords: Keywords::new(spec),
            sym_ident: symbol(SymbolClass::Identifier, b""),
            sym_number: symbol(SymbolClass::Number, b""),
            sym_class,
            quote_stops: spec.quotes.iter().map(Stops::new).collect(),
        }
    }

    /// Whether keywords and identifiers ignore ASCII case in this language.
    pub fn case_insensitive(&self) -> bool {
        self.spec.case_insensitive
    }

    /// Lexes `text` into a new [`Lexed`].
    pub fn lex(&self, text: &str, mode: Normalization) -> Lexed {
        let mut out = Lexed {
            normalized: Normalized::with_capacity(text.len() / 4),
            notes: Vec::new(),
        };
        self.lex_into(text, mode, &mut out);
        // The guess above is generous (code has one token per 5-8 bytes):
        // give back what was not used, since the result is kept.
        out.normalized.symbols.shrink_to_fit();
        out.normalized.spans.shrink_to_fit();
        out
    }

    /// Lexes `text` into `out`, replacing its contents but keeping its
    /// buffers (for lexing many files on one thread).
    pub fn lex_into(&self, text: &str, mode: Normalization, out: &mut Lexed) {
        out.normalized.clear();
        out.notes.clear();
        let mut limit = text.len().min(u32::MAX as usize);
        while !text.is_char_boundary(limit) {
            limit -= 1;
        }
        let mut run = Run {
            s: &text.as_bytes()[..limit],
            mode,
            out: &mut out.normalized,
            notes: &mut out.notes,
            stack: Vec::new(),
            value_end: usize::MAX,
            lower: Vec::new(),
            heredocs: Vec::new(),
            regex_fail_until: 0,
        };
        self.run(&mut run);
        if limit < text.len() {
            out.notes.push(LexNote {
                offset: limit as u32,
                kind: LexNoteKind::Truncated,
            });
        }
    }

    fn run(&self, r: &mut Run<'_>) {
        let s = r.s;
        let n = s.len();
        let mut i = 0;
        while i < n {
            let b = s[i];
            // Identifiers and one-byte operators, most tokens, decided by
            // one look; the class tests below for the rest.
            match self.action[b as usize] {
                ACT_IDENT => {
                    i = self.ident(r, i);
                    continue;
                }
                ACT_SINGLE if r.stack.is_empty() => {
                    self.push(r, self.single_op[b as usize], i, i + 1);
                    i += 1;
                    if matches!(b, b')' | b']' | b'}') {
                        r.value_end = i;
                    }
                    continue;
                }
                ACT_SPACE => {
                    if b == b'\n' && !r.heredocs.is_empty() {
                        i = self.heredoc_bodies(r, i + 1);
                        continue;
                    }
                    i += 1;
                    if r.heredocs.is_empty() {
                        // Most runs of layout are one space between two
                        // tokens: one look before the word scan.
                        if i < n && self.class[s[i] as usize] & WS != 0 {
                            i = self.space_end(s, i);
                        }
                        continue;
                    }
                    while i < n && self.class[s[i] as usize] & WS != 0 && s[i] != b'\n' {
                        i += 1;
                    }
                    continue;
                }
                _ => {}
            }
            let c = self.class[b as usize];
            if c & WS != 0 {
                if b == b'\n' && !r.heredocs.is_empty() {
                    i = self.heredoc_bodies(r, i + 1);
                    continue;
                }
                i += 1;
                if r.heredocs.is_empty() {
                    i = self.space_end(s, i);
                    continue;
                }
                while i < n && self.class[s[i] as usize] & WS != 0 && s[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            if c & SPECIAL != 0 {
                if let Some(next) = self.special(r, i) {
                    i = next;
                    continue;
                }
            }
            if c & ID_START != 0 {
                if b == b'.' && i + 1 < n && s[i + 1].is_ascii_digit() {
                    // Languages with `.` in identifiers still read `.5` as a number.
                    let end = self.number(s, i);
                    self.emit_lit(r, SymbolClass::Number, i, end);
                    i = end;
                } else {
                    i = self.ident(r, i);
                }
                continue;
            }
            if c & DIGIT != 0 {
                let end = self.number(s, i);
                self.emit_lit(r, SymbolClass::Number, i, end);
                i = end;
                continue;
            }
            if c & SIGIL != 0 && i + 1 < n {
                let nb = s[i + 1];
                let end = if self.class[nb as usize] & ID_START != 0 {
                    self.ident_end(s, i + 1)
                } else if b == b'$' && self.spec.sigil_specials.contains(&nb) {
                    i + 2
                } else {
                    i
                };
                if end > i {
                    self.emit_ident(r, i, end);
                    i = end;
                    continue;
                }
            }
            if let Some(top) = r.stack.last_mut() {
                if b == top.open {
                    top.depth += 1;
                } else if b == top.close {
                    if top.depth == 0 {
                        let q = top.quote;
                        r.stack.pop();
                        i = self.quote_body(r, q, i, i + 1);
                        continue;
                    }
                    top.depth -= 1;
                }
            }
            if b == b'.' && i + 1 < n && s[i + 1].is_ascii_digit() {
                let end = self.number(s, i);
                self.emit_lit(r, SymbolClass::Number, i, end);
                i = end;
                continue;
            }
            if b == b'\\' && matches!(s.get(i + 1), Some(b'\n' | b'\r')) {
                // A line continuation is layout, like the line end itself.
                i += 1;
                continue;
            }
            i = self.operator(r, i);
        }
        if let Some(f) = r.stack.first() {
            r.notes.push(LexNote {
                offset: f.start,
                kind: LexNoteKind::UnterminatedInterpolation,
            });
        }
    }

    #[inline]
    fn push(&self, r: &mut Run<'_>, sym: u64, start: usize, end: usize) {
        r.out.push(sym, Span::new(start as u32, end as u32));
    }

    fn emit_lit(&self, r: &mut Run<'_>, class: SymbolClass, start: usize, end: usize) {
        let sym = match r.mode {
            Normalization::Full => {
                if class == SymbolClass::Number {
                    self.sym_number
                } else {
                    self.sym_class[class as usize & 15]
                }
            }
            Normalization::KeepStrings
                if matches!(class, SymbolClass::String | SymbolClass::Char) =>
            {
                symbol(class, &r.s[start..end])
            }
            Normalization::KeepStrings if class == SymbolClass::Number => self.sym_number,
            Normalization::KeepStrings => self.sym_class[class as usize & 15],
            Normalization::Verbatim => symbol(class, &r.s[start..end]),
        };
        r.value_end = end;
        self.push(r, sym, start, end);
    }

    #[inline]
    fn emit_ident(&self, r: &mut Run<'_>, start: usize, end: usize) {
        let sym = match r.mode {
            Normalization::Full | Normalization::KeepStrings => self.sym_ident,
            Normalization::Verbatim => self.verbatim_ident(r, start, end),
        };
        r.value_end = end;
        self.push(r, sym, start, end);
    }

    /// An identifier's symbol when identifiers are kept verbatim
    /// (case-folded where the language ignores case).
    #[inline(never)]
    fn verbatim_ident(&self, r: &mut Run<'_>, start: usize, end: usize) -> u64 {
        if self.spec.case_insensitive {
            r.lower.clear();
            r.lower
                .extend(r.s[start..end].iter().map(u8::to_ascii_lowercase));
            symbol(SymbolClass::Identifier, &r.lower)
        } else {
            symbol(SymbolClass::Identifier, &r.s[start..end])
        }
    }

    /// The end of the identifier characters from `i`. Sixteen (or eight)
    /// bytes at a time while they are letters, digits, `_` or non-ASCII
    /// (identifier characters in every language), then the class table for
    /// the byte that stopped them (a language's own extras, such as `$` or
    /// `-`).
    #[inline]
    fn ident_end(&self, s: &[u8], mut i: usize) -> usize {
        loop {
            // Sixteen bytes at a time where the processor tells them at
            // once, else eight.
            let stop = match crate::simd::non_ident_16(s, i) {
                Some(0) => {
                    i += 16;
                    continue;
                }
                Some(outside) => Ok(i + outside.trailing_zeros() as usize),
                None => first_outside(s, i, common_ident_bytes),
            };
            match stop {
                Ok(p) if self.class[s[p] as usize] & ID_CONT != 0 => i = p + 1,
                Ok(p) => return p,
                Err(tail) => return self.class_end(s, tail, ID_CONT),
            }
        }
    }

    /// The end of the whitespace from `i` where no here-document waits for
    /// a line end: sixteen (or eight) bytes at a time.
    #[inline]
    fn space_end(&self, s: &[u8], mut i: usize) -> usize {
        // Sixteen bytes at a time where the processor tells them at once.
        while let Some(outside) = crate::simd::non_space_16(s, i) {
            if outside != 0 {
                return i + outside.trailing_zeros() as usize;
            }
            i += 16;
        }
        first_outside(s, i, space_bytes).unwrap_or_else(|tail| self.class_end(s, tail, WS))
    }

    /// The first byte at or after `i` outside the class `bit`, one byte at
    /// a time.
    #[inline]
    fn class_end(&self, s: &[u8], mut i: usize, bit: u8) -> usize {
        while i < s.len() && self.class[s[i] as usize] & bit != 0 {
            i += 1;
        }
        i
    }

    fn ident(&self, r: &mut Run<'_>, start: usize) -> usize {
        let s = r.s;
        let end = self.ident_end(s, start + 1);
        let word = &s[start..end];
        if end - start <= 3
            && end < s.len()
            && !self.spec.prefixes.is_empty()
            && (self.class[s[end] as usize] & SPECIAL != 0 || s[end] == b'#')
        {
            if let Some(next) = self.prefixed(r, start, end) {
                return next;
            }
        }
        let found = if self.spec.case_insensitive {
            if word.len() <= self.keywords.max_len {
                let mut buf = [0u8; 64];
                let k = word.len().min(64);
                for (d, &c) in buf.iter_mut().zip(word) {
                    *d = c.to_ascii_lowercase();
                }
                self.keywords.find(&buf[..k]).copied()
            } else {
                None
            }
        } else {
            self.keywords.find_at(s, start, end).copied()
        };
        match found {
            Some(kw) if kw.comment => line_end(s, end),
            Some(kw) => {
                self.push(r, kw.sym, start, end);
                end
            }
            None => {
                self.emit_ident(r, start, end);
                end
            }
        }
    }

    /// A literal glued to an identifier prefix (`b"…"`, `r#"…"#`, `R"x(…)x"`).
    fn prefixed(&self, r: &mut Run<'_>, start: usize, end: usize) -> Option<usize> {
        let s = r.s;
        let word = &s[start..end];
        let kind = self
            .spec
            .prefixes
            .iter()
            .find(|(p, _)| p.as_bytes() == word)?
            .1;
        match kind {
            PrefixKind::Plain => {
                for st in &self.starters[s[end] as usize] {
                    match *st {
                        Starter::Quote(q) => {
                            let open = self.spec.quotes[q as usize].open.as_bytes();
                            if starts(&s[end..], open) {
                                return Some(self.quote_body(r, q, start, end + open.len()));
                            }
                        }
                        Starter::Tick => {
                            if let Some(e) = self.char_lit(s, end) {
                                self.emit_lit(r, SymbolClass::Char, start, e);
                                return Some(e);
                            }
                        }
                        _ => {}
                    }
                }
                None
            }
            PrefixKind::RustRaw => {
                let mut j = end;
                while j < s.len() && s[j] == b'#' {
                    j += 1;
                }
                let hashes = j - end;
                if j < s.len() && s[j] == b'"' {
                    let body = j + 1;
                    let mut k = body;
                    let close_at = loop {
                        match memchr_at(b'"', s, k) {
                            None => break None,
                            Some(q) => {
                                let h = s[q + 1..].iter().take_while(|&&c| c == b'#').count();
                                if h >= hashes {
                                    break Some(q + 1 + hashes);
                                }
                                k = q + 1;
                            }
                        }
                    };
                    let e = self.close_or_eof(r, close_at, start, LexNoteKind::UnterminatedString);
                    self.emit_lit(r, SymbolClass::String, start, e);
                    Some(e)
                } else if word == b"r"
                    && hashes == 1
                    && j < s.len()
                    && self.class[s[j] as usize] & ID_START != 0
                {
                    // Raw identifier `r#type`.
                    let e = self.ident_end(s, j);
                    self.emit_ident(r, start, e);
                    Some(e)
                } else {
                    None
                }
            }
            PrefixKind::CppRaw => {
                if s[end] != b'"' {
                    return None;
                }
                let d0 = end + 1;
                let paren = s[d0..]
                    .iter()
                    .take(17)
                    .position(|&c| c == b'(')
                    .map(|p| d0 + p)?;
                let delim = &s[d0..paren];
                if delim
                    .iter()
                    .any(|&c| matches!(c, b' ' | b')' | b'\\' | b'\t' | b'\n' | b'\r' | b'"'))
                {
                    return None;
                }
                let mut k = paren + 1;
                let close_at = loop {
                    match memchr_at(b')', s, k) {
                        None => break None,
                        Some(q) => {
                            let rest = &s[q + 1..];
                            if starts(rest, delim) && rest.get(delim.len()) == Some(&b'"') {
                                break Some(q + 2 + delim.len());
                            }
                            k = q + 1;
                        }
                    }
                };
                let e = self.close_or_eof(r, close_at, start, LexNoteKind::UnterminatedString);
                self.emit_lit(r, SymbolClass::String, start, e);
                Some(e)
            }
        }
    }

    fn close_or_eof(
        &self,
        r: &mut Run<'_>,
        close: Option<usize>,
        start: usize,
        kind: LexNoteKind,
    ) -> usize {
        close.unwrap_or_else(|| {
            r.notes.push(LexNote {
                offset: start as u32,
                kind,
            });
            r.s.len()
        })
    }

    /// Comment, literal or first-column forms starting at `i`; `None` when
    /// none applies and the byte is lexed as usual.
    fn special(&self, r: &mut Run<'_>, i: usize) -> Option<usize> {
        let s = r.s;
        let rest = &s[i..];
        for st in &self.starters[s[i] as usize] {
            match *st {
                Starter::LineStart(p) => {
                    if at_line_start(s, i) && starts(rest, p) {
                        return Some(line_end(s, i));
                    }
                }
                Starter::EndMarker(p) => {
                    if at_line_start(s, i) && starts(rest, p) && line_end(s, i) == i + p.len() {
                        return Some(s.len());
                    }
                }
                Starter::LineStartBlock => {
                    if at_line_start(s, i) {
                        if let Some(e) = self.line_start_block(r, i) {
                            return Some(e);
                        }
                    }
                }
                Starter::Line(p) => {
                    if starts(rest, p) && (!self.spec.comment_needs_word_start || word_start(s, i))
                    {
                        return Some(line_end(s, i));
                    }
                }
                Starter::Block(open, close) => {
                    if starts(rest, open) {
                        return Some(self.block_comment(r, i, open, close));
                    }
                }
                Starter::Quote(q) => {
                    let open = self.spec.quotes[q as usize].open.as_bytes();
                    if starts(rest, open) {
                        return Some(self.quote_body(r, q, i, i + open.len()));
                    }
                }
                Starter::Tick => return self.tick(r, i),
                Starter::Regex => return self.regex(r, i),
            }
        }
        None
    }

    fn line_start_block(&self, r: &mut Run<'_>, i: usize) -> Option<usize> {
        let (open, close) = self.spec.line_start_block?;
        let s = r.s;
        let (open, close) = (open.as_bytes(), close.as_bytes());
        if !starts(&s[i..], open) {
            return None;
        }
        let after = s.get(i + open.len()).copied();
        let ok = if open.len() == 1 {
            after.is_some_and(|c| c.is_ascii_alphabetic())
        } else {
            after.is_none_or(|c| self.class[c as usize] & ID_CONT == 0)
        };
        if !ok {
            return None;
        }
        let mut j = line_end(s, i);
        while j < s.len() {
            // `j` is at a line end: step over it to the next line start.
            j += if s[j] == b'\r' && s.get(j + 1) == Some(&b'\n') {
                2
            } else {
                1
            };
            if starts(&s[j..], close) {
                return Some(line_end(s, j));
            }
            j = line_end(s, j);
        }
        r.notes.push(LexNote {
            offset: i as u32,
            kind: LexNoteKind::UnterminatedComment,
        });
        Some(s.len())
    }

    fn block_comment(&self, r: &mut Run<'_>, i: usize, open: &[u8], close: &[u8]) -> usize {
        let s = r.s;
        let nested = self.spec.nested_comments;
        let (c0, o0) = (close[0], open[0]);
        let mut depth = 1u64;
        let mut j = i + open.len();
        while j < s.len() {
            let b = s[j];
            if b == c0 && starts(&s[j..], close) {
                depth -= 1;
                j += close.len();
                if depth == 0 {
                    return j;
                }
            } else if nested && b == o0 && starts(&s[j..], open) {
                depth += 1;
                j += open.len();
            } else {
                j += 1;
            }
        }
        r.notes.push(LexNote {
            offset: i as u32,
            kind: LexNoteKind::UnterminatedComment,
        });
        s.len()
    }

    /// The body of literal `q` from `j`; the symbol's span starts at
    /// `start` (the opener, a prefix, or the `}` ending an interpolation).
    fn quote_body(&self, r: &mut Run<'_>, q: u16, start: usize, mut j: usize) -> usize {
        let quote: &Quote = &self.spec.quotes[q as usize];
        let s = r.s;
        let n = s.len();
        let close = quote.close.as_bytes();
        let c0 = close[0];
        let interp = quote.interp.map(str::as_bytes);
        let i0 = interp.map_or(0, |p| p[0]);
        let stops = &self.quote_stops[q as usize];
        loop {
            if j < n && !stops.table[s[j] as usize] {
                j = stops.next(s, j);
            }
            if j >= n {
                r.notes.push(LexNote {
                    offset: start as u32,
                    kind: LexNoteKind::UnterminatedString,
                });
                self.emit_lit(r, quote.class, start, n);
                return n;
            }
            let b = s[j];
            if let Some(ip) = interp {
                if b == i0 && starts(&s[j..], ip) {
                    if ip.len() == 1 && s.get(j + 1) == Some(&i0) {
                        j += 2;
                        continue;
                    }
                    let k = j + ip.len();
                    self.emit_lit(r, quote.class, start, k);
                    let open = ip
                        .iter()
                        .copied()
                        .find(|c| matches!(c, b'{' | b'(' | b'['))
                        .unwrap_or(b'{');
                    r.stack.push(Frame {
                        quote: q,
                        open,
                        close: closing_bracket(open),
                        depth: 0,
                        start: j as u32,
                    });
                    return k;
                }
            }
            if b == c0 && starts(&s[j..], close) {
                if quote.doubled && s[j + close.len()..].starts_with(close) {
                    j += 2 * close.len();
                    continue;
                }
                let e = j + close.len();
                self.emit_lit(r, quote.class, start, e);
                return e;
            }
            if b == b'\\' && quote.escape {
                j += if s.get(j + 1) == Some(&b'\r') && s.get(j + 2) == Some(&b'\n') {
                    3
                } else {
                    2
                };
                continue;
            }
            if (b == b'\n' || b == b'\r') && !quote.multiline {
                r.notes.push(LexNote {
                    offset: start as u32,
                    kind: LexNoteKind::UnterminatedString,
                });
                self.emit_lit(r, quote.class, start, j);
                return j;
            }
            j += 1;
        }
    }

    /// A regular-expression literal `/…/flags` at `i`, if the previous
    /// token is no operand and the literal closes on its line.
    fn regex(&self, r: &mut Run<'_>, i: usize) -> Option<usize> {
        let after_value = r
            .out
            .spans
            .last()
            .is_some_and(|sp| sp.end as usize == r.value_end);
        if after_value || i < r.regex_fail_until {
            return None;
        }
        let s = r.s;
        let mut j = i + 1;
        let mut in_class = false;
        loop {
            match s.get(j) {
                None | Some(b'\n' | b'\r') => {
                    r.regex_fail_until = j;
                    return None;
                }
                Some(b'\\') => {
                    if matches!(s.get(j + 1), None | Some(b'\n' | b'\r')) {
                        r.regex_fail_until = j + 1;
                        return None;
                    }
                    j += 2;
                }
                Some(b'[') => {
                    in_class = true;
                    j += 1;
                }
                Some(b']') => {
                    in_class = false;
                    j += 1;
                }
                // `//` is no regex: Perl's defined-or, or a comment.
                Some(b'/') if !in_class && j == i + 1 => return None,
                Some(b'/') if !in_class => break,
                Some(_) => j += 1,
            }
        }
        j += 1;
        while j < s.len() && s[j].is_ascii_alphabetic() {
            j += 1;
        }
        self.emit_lit(r, SymbolClass::OtherLiteral, i, j);
        Some(j)
    }

    /// End of a character literal `'x'` or `'\…'` starting at `i`.
    fn char_lit(&self, s: &[u8], i: usize) -> Option<usize> {
        let next = *s.get(i + 1)?;
        if next == b'\\' {
            let mut j = i + 3;
            while j < s.len() && j < i + 16 {
                match s[j] {
                    b'\'' => return Some(j + 1),
                    b'\n' | b'\r' => return None,
                    _ => j += 1,
                }
            }
            return None;
        }
        if next == b'\'' || next == b'\n' || next == b'\r' {
            return None;
        }
        let len = utf8_len(next);
        (s.get(i + 1 + len) == Some(&b'\'')).then_some(i + 2 + len)
    }

    fn tick(&self, r: &mut Run<'_>, i: usize) -> Option<usize> {
        let s = r.s;
        match self.spec.tick {
            Tick::Op => None,
            // Ada and VHDL: a tick right after a name or `)` is an
            // attribute or qualification (`X'First`, `T'('a')`).
            Tick::CharOrOp if r.value_end == i => None,
            Tick::CharOrOp | Tick::CharOrTickIdent => {
                if let Some(e) = self.char_lit(s, i) {
                    self.emit_lit(r, SymbolClass::Char, i, e);
                    return Some(e);
                }
                if self.spec.tick == Tick::CharOrTickIdent
                    && s.get(i + 1)
                        .is_some_and(|&c| self.class[c as usize] & ID_START != 0)
                {
                    let e = self.ident_end(s, i + 1);
                    self.emit_ident(r, i, e);
                    return Some(e);
                }
                None
            }
            Tick::VerilogBase => {
                let mut j = i + 1;
                if matches!(s.get(j), Some(b's' | b'S')) {
                    j += 1;
                }
                if !matches!(
                    s.get(j),
                    Some(b'b' | b'B' | b'o' | b'O' | b'd' | b'D' | b'h' | b'H')
                ) {
                    return None;
                }
                j += 1;
                while j < s.len() && (s[j].is_ascii_alphanumeric() || matches!(s[j], b'_' | b'?')) {
                    j += 1;
                }
                self.emit_lit(r, SymbolClass::Number, i, j);
                Some(j)
            }
            Tick::MatlabTranspose => {
                if r.value_end == i {
                    self.push(r, self.single_op[b'\'' as usize], i, i + 1);
                    r.value_end = i + 1;
                    return Some(i + 1);
                }
                let mut j = i + 1;
                loop {
                    match s.get(j) {
                        None | Some(b'\n' | b'\r') => {
                            r.notes.push(LexNote {
                                offset: i as u32,
                                kind: LexNoteKind::UnterminatedString,
                            });
                            break;
                        }
                        Some(b'\'') if s.get(j + 1) == Some(&b'\'') => j += 2,
                        Some(b'\'') => {
                            j += 1;
                            break;
                        }
                        Some(_) => j += 1,
                    }
                }
                self.emit_lit(r, SymbolClass::String, i, j);
                Some(j)
            }
        }
    }

    /// End of the number starting at `i` (a digit, or `.` and a digit).
    fn number(&self, s: &[u8], i: usize) -> usize {
        let n = s.len();
        let mut j = i;
        let tick = self.spec.digit_tick;
        let digits = |mut j: usize, hex: bool| {
            let digit = |c: u8| c.is_ascii_digit() || (hex && c.is_ascii_hexdigit());
            while j < n
                && (digit(s[j])
                    || s[j] == b'_'
                    || (tick && s[j] == b'\'' && s.get(j + 1).is_some_and(|&c| digit(c))))
            {
                j += 1;
            }
            j
        };
        if s[j] == b'0' && matches!(s.get(j + 1), Some(b'x' | b'X' | b'b' | b'B' | b'o' | b'O')) {
            j = digits(j + 2, true);
        } else {
            j = digits(j, false);
            if self.spec.based_hash && s.get(j) == Some(&b'#') {
                j += 1;
                while j < n && (s[j].is_ascii_hexdigit() || matches!(s[j], b'_' | b'.')) {
                    j += 1;
                }
                if s.get(j) == Some(&b'#') {
                    j += 1;
                }
            }
            if s.get(j) == Some(&b'.') {
                match s.get(j + 1) {
                    Some(c) if c.is_ascii_digit() => j = digits(j + 1, false),
                    Some(&c) if c == b'.' || self.class[c as usize] & ID_START != 0 => {}
                    _ => j += 1,
                }
            }
            if matches!(s.get(j), Some(b'e' | b'E')) {
                let k = if matches!(s.get(j + 1), Some(b'+' | b'-')) {
                    j + 2
                } else {
                    j + 1
                };
                if s.get(k).is_some_and(u8::is_ascii_digit) {
                    j = digits(k, false);
                }
            }
        }
        while j < n && (s[j].is_ascii_alphanumeric() || s[j] == b'_') {
            j += 1;
        }
        if self.spec.tick == Tick::VerilogBase && s.get(j) == Some(&b'\'') {
            let mut k = j + 1;
            if matches!(s.get(k), Some(b's' | b'S')) {
                k += 1;
            }
            if matches!(
                s.get(k),
                Some(b'b' | b'B' | b'o' | b'O' | b'd' | b'D' | b'h' | b'H')
            ) {
                j = k + 1;
                while j < n && (s[j].is_ascii_alphanumeric() || matches!(s[j], b'_' | b'?')) {
                    j += 1;
                }
            }
        }
        j
    }

    /// A here-document opener (`<<EOF`, `<<-'EOF'`, `<<~EOS`, `<<<EOT`) at
    /// `i`: one string symbol; the body is skipped at the next line end.
    fn heredoc(&self, r: &mut Run<'_>, i: usize) -> Option<usize> {
        let op = self.spec.heredoc?.as_bytes();
        let s = r.s;
        if !starts(&s[i..], op) {
            return None;
        }
        let mut j = i + op.len();
        if matches!(s.get(j), Some(b'-' | b'~')) {
            j += 1;
        }
        let quote = match s.get(j) {
            Some(&q @ (b'\'' | b'"')) => {
                j += 1;
                Some(q)
            }
            _ => None,
        };
        if !s
            .get(j)
            .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_')
        {
            return None;
        }
        let word_start = j;
        while j < s.len() && (s[j].is_ascii_alphanumeric() || s[j] == b'_') {
            j += 1;
        }
        let word_end = j;
        if let Some(q) = quote {
            if s.get(j) != Some(&q) {
                return None;
            }
            j += 1;
        }
        r.heredocs.push((word_start, word_end, i));
        self.emit_lit(r, SymbolClass::String, i, j);
        Some(j)
    }

    /// Skips the bodies of the pending here-documents, starting at `i` (the
    /// start of the line after their openers). Returns the offset just
    /// after the last terminator word.
    fn heredoc_bodies(&self, r: &mut Run<'_>, mut i: usize) -> usize {
        let s = r.s;
        let docs = std::mem::take(&mut r.heredocs);
        let mut end = i;
        for &(ws, we, opener) in &docs {
            let word = &s[ws..we];
            let found = loop {
                if i >= s.len() {
                    break false;
                }
                let le = line_end(s, i);
                let mut t = i;
                while t < le && matches!(s[t], b' ' | b'\t') {
                    t += 1;
                }
                let line = &s[t..le];
                if starts(line, word)
                    && line
                        .get(word.len())
                        .is_none_or(|&c| self.class[c as usize] & ID_CONT == 0)
                {
                    // The rest of the terminator's line is code (PHP `EOT;`).
                    end = t + word.len();
                    i = le + 1;
                    break true;
                }
                i = le + 1;
            };
            if !found {
                r.notes.push(LexNote {
                    offset: opener as u32,
                    kind: LexNoteKind::UnterminatedString,
                });
                // Later here-documents have no body left.
                end = s.len();
                break;
            }
        }
        end.min(s.len())
    }

    fn operator(&self, r: &mut Run<'_>, i: usize) -> usize {
        let s = r.s;
        let b = s[i];
        if b == b'<' {
            if let Some(e) = self.heredoc(r, i) {
                return e;
            }
        }
        if self.class[b as usize] & OP_RUN != 0 {
            let mut e = i + 1;
            while e < s.len() && self.class[s[e] as usize] & OP_RUN != 0 {
                e += 1;
            }
            if e > i + 1 {
                self.push(r, symbol(SymbolClass::Operator, &s[i..e]), i, e);
                return e;
            }
        }
        let rest = &s[i..];
        let (len, sym) = self.ops[b as usize]
            .iter()
            .find(|(op, _)| starts(rest, op))
            .map_or((1, self.single_op[b as usize]), |&(op, sym)| {
                (op.len(), sym)
            });
        let e = i + len;
        self.push(r, sym, i, e);
        if matches!(b, b')' | b']' | b'}') {
            r.value_end = e;
        }
        e
    }
}

fn closing_bracket(open: u8) -> u8 {
    match open {
        b'(' => b')',
        b'[' => b']',
        b'<' => b'>',
        _ => b'}',
    }
}

#[inline]
fn memchr_at(needle: u8, s: &[u8], from: usize) -> Option<usize> {
    memchr::memchr(needle, s.get(from..)?).map(|p| p + from)
}

/// The high bit of every byte of a word.
const HIGH_BITS: u64 = 0x8080_8080_8080_8080;

/// Bit 7 of each byte of `word` set where the byte is in `lo..=hi` (both
/// below 0x80), for bytes below 0x80; garbage elsewhere (callers mask).
#[inline]
fn bytes_in(low7: u64, lo: u8, hi: u8) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    // Each byte is at most 0x7f, so neither sum carries into the next byte.
    let at_least_lo = low7 + ONES * u64::from(0x80 - lo);
    let above_hi = low7 + ONES * u64::from(0x7f - hi);
    at_least_lo & !above_hi & HIGH_BITS
}

/// The first byte at or after `i` that `inside` (bit 7 of each byte of a
/// little-endian word set where the byte belongs) leaves out, read eight
/// bytes at a time; `Err` with where the last whole word ends when every
/// byte of the whole words belongs (fewer than eight bytes are left).
#[inline]
fn first_outside(s: &[u8], mut i: usize, inside: impl Fn(u64) -> u64) -> Result<usize, usize> {
    while let Some(chunk) = s.get(i..i + 8) {
        let word = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
        let outside = !inside(word) & HIGH_BITS;
        if outside != 0 {
            return Ok(i + (outside.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    Err(i)
}

/// Bit 7 of each byte of `word` set where the byte is an ASCII letter,
/// digit or `_`, or not ASCII: the identifier characters every lexer has.
#[inline]
fn common_ident_bytes(word: u64) -> u64 {
    let low7 = word & !HIGH_BITS;
    let ascii = bytes_in(low7, b'a', b'z')
        | bytes_in(low7, b'A', b'Z')
        | bytes_in(low7, b'0', b'9')
        | bytes_in(low7, b'_', b'_');
    (ascii & !word) | (word & HIGH_BITS)
}

/// Bit 7 of each byte of `word` set where the byte is whitespace (tab,
/// line feed, vertical tab, form feed, carriage return, space): the
/// lexers' `WS` class.
#[inline]
fn space_bytes(word: u64) -> u64 {
    let low7 = word & !HIGH_BITS;
    (bytes_in(low7, 0x09, 0x0d) | bytes_in(low7, b' ', b' ')) & !word
}

/// Offset of the line end (`\n` or `\r`) at or after `i`, or the text's end.
#[inline]
fn line_end(s: &[u8], i: usize) -> usize {
    memchr::memchr2(b'\n', b'\r', &s[i..]).map_or(s.len(), |p| i + p)
}

#[inline]
fn at_line_start(s: &[u8], i: usize) -> bool {
    i == 0 || s[i - 1] == b'\n' || s[i - 1] == b'\r'
}

fn word_start(s: &[u8], i: usize) -> bool {
    i == 0
        || matches!(
            s[i - 1],
            b' ' | b'\t' | b'\n' | b'\r' | b';' | b'(' | b')' | b'|' | b'&' | 0x0b | 0x0c
        )
}

fn utf8_len(lead: u8) -> usize {
    match lead {
        0xf0..=0xff => 4,
        0xe0..=0xef => 3,
        0xc0..=0xdf => 2,
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Language;
    use proptest::prelude::*;

    /// The keyword table against a linear search of the language's list.
    fn naive_keyword(spec: &LexSpec, w: &[u8]) -> Option<bool> {
        if spec.keywords().any(|k| k.as_bytes() == w) {
            Some(false)
        } else if spec.comment_words.iter().any(|k| k.as_bytes() == w) {
            Some(true)
        } else {
            None
        }
    }

    fn word() -> impl Strategy<Value = Vec<u8>> {
        prop_oneof![
            // Real keywords of some language, possibly cut or extended.
            (
                0..Language::all().len(),
                any::<prop::sample::Index>(),
                0..3usize
            )
                .prop_map(|(l, k, cut)| {
                    let words: Vec<&str> = Language::all()[l]
                        .spec
                        .map_or(Vec::new(), |s| s.keywords().collect());
                    let w = if words.is_empty() {
                        "if"
                    } else {
                        words[k.index(words.len())]
                    };
                    let mut v = w.as_bytes().to_vec();
                    match cut {
                        0 => {}
                        1 => {
                            v.pop();
                        }
                        _ => v.push(b'x'),
                    }
                    v
                }),
            prop::collection::vec(prop::sample::select(b"abcdefilnorstuw_.$#".to_vec()), 0..14),
        ]
    }

    /// Code-like text: every byte the dispatch treats apart (brackets,
    /// operators, quotes, comment and heredoc openers, sigils, escapes,
    /// interpolation openers, line ends), words, openers of several bytes
    /// and any byte.
    fn code_text() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            4 => prop::sample::select(
                b"()[]{},;:.<>=+-*/%&|^~!?@#$'\"`\\\n\r\t 0123456789".to_vec()
            )
            .prop_map(|b| vec![b]),
            2 => prop::sample::select(b"abxyzEOT_".to_vec()).prop_map(|b| vec![b]),
            1 => prop::sample::select(vec![
                &b"if"[..], b"<<EOT", b"${", b"#{", b"\\(", b"/*", b"*/", b"--", b"'''",
                b"r\"", b"f'", b"`${", b"=begin\n", b"__END__",
            ])
            .prop_map(<[u8]>::to_vec),
            1 => any::<u8>().prop_map(|b| vec![b]),
        ];
        prop::collection::vec(piece, 0..120)
            .prop_map(|pieces| String::from_utf8_lossy(&pieces.concat()).into_owned())
    }

    proptest! {
        /// The one-look dispatch of identifiers, one-byte operators and
        /// layout gives what the class tests alone give, in every language
        /// and mode: the same symbols, spans and notes.
        #[test]
        fn dispatch_matches_the_class_tests(text in code_text()) {
            for lang in Language::all() {
                let (Some(spec), Some(fast)) = (lang.spec, lang.lexer()) else { continue };
                let mut chain = Lexer::new(spec);
                chain.action = [ACT_CHAIN; 256];
                for mode in [
                    Normalization::Full,
                    Normalization::KeepStrings,
                    Normalization::Verbatim,
                ] {
                    prop_assert_eq!(
                        fast.lex(&text, mode),
                        chain.lex(&text, mode),
                        "{} {:?} {:?}",
                        lang.name(),
                        mode,
                        text
                    );
                }
            }
        }
    }

    proptest! {
        #[test]
        fn keyword_table_matches_linear_search(w in word()) {
            for lang in Language::all() {
                let (Some(spec), Some(lx)) = (lang.spec, lang.lexer()) else { continue };
                let fast = lx.keywords.find(&w).map(|k| k.comment);
                prop_assert_eq!(fast, naive_keyword(spec, &w), "{}", lang.name());
                if let Some(k) = lx.keywords.find(&w) {
                    prop_assert_eq!(k.sym, symbol(SymbolClass::Keyword, &w));
                }
            }
        }

        /// The hash read a word at a time from the text is the hash of
        /// the word alone, wherever it sits (at the text's end too, where
        /// fewer than eight bytes follow), and finds what `find` finds.
        #[test]
        fn keyword_hash_in_the_text_is_the_words(
            before in prop::collection::vec(any::<u8>(), 0..10),
            w in word().prop_filter("a word", |w| !w.is_empty()),
            after in prop::collection::vec(any::<u8>(), 0..10),
        ) {
            let text = [&before[..], &w[..], &after[..]].concat();
            let (start, end) = (before.len(), before.len() + w.len());
            prop_assert_eq!(kw_hash_at(&text, start, end), kw_hash(&w));
            for lang in Language::all() {
                let Some(lx) = lang.lexer() else { continue };
                let at = lx.keywords.find_at(&text, start, end).map(|k| k.sym);
                prop_assert_eq!(at, lx.keywords.find(&w).map(|k| k.sym), "{}", lang.name());
            }
        }

        #[test]
        fn quote_stops_are_the_first_stop_byte(
            text in prop::collection::vec(
                prop::sample::select(b"ab\"'`\\\n\r{$#(x".to_vec()), 0..80),
            from in 0usize..80,
        ) {
            let from = from.min(text.len());
            for lang in Language::all() {
                let Some(lx) = lang.lexer() else { continue };
                for stops in &lx.quote_stops {
                    let naive = text[from..]
                        .iter()
                        .position(|&c| stops.table[c as usize])
                        .map_or(text.len(), |p| from + p);
                    prop_assert_eq!(stops.next(&text, from), naive, "{}", lang.name());
                }
            }
        }

        #[test]
        fn word_scans_match_the_class_table(
            text in prop::collection::vec(prop_oneof![
                prop::sample::select(b"aZ_09 \t\n\r\x0b\x0c$-'?!.@#`~^{}[]zAQ\x7f\x80".to_vec()),
                any::<u8>(),
            ], 0..40),
            from in 0usize..40,
        ) {
            let from = from.min(text.len());
            for lang in Language::all() {
                let Some(lx) = lang.lexer() else { continue };
                let scan = |bit: u8| {
                    text[from..]
                        .iter()
                        .position(|&c| lx.class[c as usize] & bit == 0)
                        .map_or(text.len(), |p| from + p)
                };
                prop_assert_eq!(lx.ident_end(&text, from), scan(ID_CONT), "{}", lang.name());
                prop_assert_eq!(lx.space_end(&text, from), scan(WS), "{}", lang.name());
            }
        }

        #[test]
        fn line_ends_match_a_byte_scan(
            text in prop::collection::vec(prop::sample::select(b"ab\n\r ".to_vec()), 0..60),
            from in 0usize..60,
        ) {
            let from = from.min(text.len());
            let naive = text[from..]
                .iter()
                .position(|&c| c == b'\n' || c == b'\r')
                .map_or(text.len(), |p| from + p);
            prop_assert_eq!(line_end(&text, from), naive);
            let naive = text[from..].iter().position(|&c| c == b'a').map(|p| from + p);
            prop_assert_eq!(memchr_at(b'a', &text, from), naive);
        }

        #[test]
        fn short_comparisons_match_std(a in prop::collection::vec(0u8..4, 0..6),
                                       b in prop::collection::vec(0u8..4, 0..6)) {
            prop_assert_eq!(eq_short(&a, &b), a == b);
            prop_assert_eq!(starts(&a, &b), a.starts_with(&b));
        }
    }

    /// The keyword sets are pinned (`tests/fixtures/keywords.tsv`, captured
    /// when the tables became rows): a keyword more or less changes symbols.
    /// Every byte value in every lane of a word, and of sixteen bytes:
    /// identifier characters exactly where the byte is an ASCII letter,
    /// digit or `_`, or from 0x80, whatever its neighbours.
    #[test]
    fn ident_byte_masks_are_the_byte_test() {
        for b in 0..=255u8 {
            let ident = b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80;
            for fill in [b'a', b' ', 0xff, b'@', b'[', b'`', b'{', b'/', b':'] {
                for lane in 0..8 {
                    let mut bytes = [fill; 8];
                    bytes[lane] = b;
                    let mask = common_ident_bytes(u64::from_le_bytes(bytes)) & HIGH_BITS;
                    assert_eq!(
                        mask >> (8 * lane + 7) & 1 == 1,
                        ident,
                        "{b:#x} in lane {lane}"
                    );
                }
                let fill_ident = fill.is_ascii_alphanumeric() || fill == b'_' || fill >= 0x80;
                check_sixteen(crate::simd::non_ident_16, b, ident, fill, fill_ident);
            }
        }
        assert_eq!(crate::simd::non_ident_16(&[b'a'; 15], 0), None);
    }

    /// `b` in every lane of sixteen bytes of `fill` (after one byte more):
    /// `outside` leaves a lane's bit clear exactly where the byte is in the
    /// class (`b_in`, `fill_in`), where it answers at all.
    fn check_sixteen(
        outside: fn(&[u8], usize) -> Option<u32>,
        b: u8,
        b_in: bool,
        fill: u8,
        fill_in: bool,
    ) {
        for lane in 0..16 {
            let mut bytes = [fill; 17];
            bytes[lane + 1] = b;
            if let Some(bits) = outside(&bytes, 1) {
                for j in 0..16 {
                    let want = if j == lane { b_in } else { fill_in };
                    assert_eq!(bits >> j & 1 == 0, want, "{b:#x} at {lane}, {j}");
                }
            }
        }
    }

    /// Every byte value in every lane of sixteen bytes: whitespace exactly
    /// where the class table says so.
    #[test]
    fn space_byte_masks_are_the_byte_test() {
        let lx = Language::by_name("python")
            .and_then(|l| l.lexer())
            .expect("python");
        for b in 0..=255u8 {
            let space = lx.class[b as usize] & WS != 0;
            for fill in [b' ', b'\t', b'a', 0x08, 0x0e, 0x1f, b'!', 0xff] {
                let fill_space = lx.class[fill as usize] & WS != 0;
                check_sixteen(crate::simd::non_space_16, b, space, fill, fill_space);
            }
        }
        assert_eq!(crate::simd::non_space_16(&[b' '; 15], 0), None);
    }

    #[test]
    fn keyword_sets_are_pinned() {
        let pinned = include_str!("../../tests/fixtures/keywords.tsv");
        let mut expected = std::collections::BTreeMap::new();
        for line in pinned.lines().filter(|l| !l.starts_with("# ")) {
            let mut f = line.split('\t');
            let (lang, list, words) = (f.next().unwrap(), f.next().unwrap(), f.next().unwrap());
            expected.insert((lang, list), words.split(' ').collect::<Vec<_>>());
        }
        let mut actual = std::collections::BTreeMap::new();
        for lang in Language::all() {
            let Some(spec) = lang.spec else { continue };
            let lists: [(&str, Vec<&str>); 2] = [
                ("keywords", spec.keywords().collect()),
                ("comment_words", spec.comment_words.to_vec()),
            ];
            for (list, mut words) in lists {
                let n = words.len();
                words.sort_unstable();
                words.dedup();
                assert_eq!(
                    words.len(),
                    n,
                    "{}: a {list} word is listed twice",
                    lang.name()
                );
                if !words.is_empty() {
                    actual.insert((lang.name(), list), words);
                }
            }
        }
        let keys: std::collections::BTreeSet<_> = actual.keys().chain(expected.keys()).collect();
        let mut diffs = Vec::new();
        for key in keys {
            let (a, e) = (actual.get(key), expected.get(key));
            let (a, e) = (a.map_or(&[][..], |v| v), e.map_or(&[][..], |v| v));
            let missing: Vec<_> = e.iter().filter(|w| !a.contains(w)).collect();
            let extra: Vec<_> = a.iter().filter(|w| !e.contains(w)).collect();
            if !missing.is_empty() || !extra.is_empty() {
                diffs.push(format!("{key:?}: missing {missing:?}, extra {extra:?}"));
            }
        }
        assert!(diffs.is_empty(), "{}", diffs.join("\n"));
    }

    #[test]
    fn case_insensitive_keyword_lists_are_lower_case() {
        for lang in Language::all() {
            let Some(spec) = lang.spec else { continue };
            if spec.case_insensitive {
                for k in spec.keywords().chain(spec.comment_words.iter().copied()) {
                    assert_eq!(k, k.to_ascii_lowercase(), "{}: {k}", lang.name());
                }
            }
        }
    }
}
