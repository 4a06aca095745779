//! The prose front-end (`-l text`): the paper's §2.1 normalization.
//!
//! The rules are documented on [`normalize_text`], for users.

use std::sync::OnceLock;

use caseless::Caseless;

use crate::symbol::{finalize, fnv_byte, fnv_start};
use crate::{symbol, Normalized, Span, SymbolClass};

/// What a prose symbol stands for.
///
/// Characters are the default, as in the paper: on planted copies in real
/// English text (`examples/text_quality.rs`), characters with k = 20 and
/// w = 40 separated lightly edited 40-word passages from unrelated pairs best
/// (AUC 0.995); words need a much smaller k (k = 6, w = 12 came close, AUC
/// 0.990, with about five times fewer symbols).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TextMode {
    /// One symbol per case-folded alphanumeric character, as in the paper.
    #[default]
    Chars,
    /// One symbol per case-folded word (maximal run of alphanumerics).
    Words,
}

impl TextMode {
    /// The mode's name: `"chars"` or `"words"`.
    pub fn name(self) -> &'static str {
        match self {
            TextMode::Chars => "chars",
            TextMode::Words => "words",
        }
    }
}

/// Normalizes prose: the paper's §2.1 normalization.
///
/// Whitespace and punctuation are removed and letters are case-folded, so a
/// copy that was re-cased, reflowed or re-punctuated yields the same symbols.
///
/// * A character is **kept** when it is alphanumeric (Unicode `Alphabetic`
///   or `Numeric`); everything else — whitespace including `\r` and `\n`,
///   punctuation, symbols, control characters and non-alphabetic combining
///   marks — is dropped.
/// * Kept characters are case-folded with Unicode full default case folding
///   (`"ß"` folds to `"ss"`, `"Σ"` and `"ς"` to `"σ"`).
/// * [`TextMode::Chars`]: one symbol per kept character,
///   `symbol(TextChar, utf8(fold(c)))`, its span the character's bytes.
/// * [`TextMode::Words`]: a word is a maximal run of kept characters
///   (punctuation separates words just as whitespace does, so `"don't"` is
///   `don` and `t`); one symbol per word, `symbol(TextWord, fold(word))`, its
///   span from the word's first byte to its last.
///
/// ASCII goes through 128-entry tables (a precomputed symbol per byte in
/// character mode, a folded byte per byte in word mode, where the word's
/// symbol is hashed as it is read); other characters take the Unicode path.
///
/// ```
/// use bryo_frontend::{normalize_text, TextMode};
///
/// let a = normalize_text("Hello, World!", TextMode::Words);
/// let b = normalize_text("hello\r\nworld", TextMode::Words);
/// assert_eq!(a.symbols, b.symbols);
/// assert_eq!(a.spans[1].range(), 7..12); // "World"
/// ```
pub fn normalize_text(text: &str, mode: TextMode) -> Normalized {
    let mut out = Normalized::default();
    normalize_text_into(text, mode, &mut out);
    out
}

/// Like [`normalize_text`], but writes into `out` (cleared first), reusing
/// its buffers.
///
/// Spans are 32-bit: text past the first 4 GiB − 1 bytes is not read
/// ([`decode`](crate::decode) refuses longer files).
pub fn normalize_text_into(text: &str, mode: TextMode, out: &mut Normalized) {
    out.clear();
    let text = addressable(text);
    let mut e = Emitter::new(out, mode);
    e.reserve(text.len());
    e.text(text, 0);
    e.finish();
}

/// The longest prefix of `text` that 32-bit spans can address.
pub(crate) fn addressable(text: &str) -> &str {
    let mut end = text.len().min(u32::MAX as usize);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

// ---------------------------------------------------------------------------
// Tables and the word hash.

/// ASCII alphanumerics lower-cased; 0 for every other byte.
const ASCII_FOLD: [u8; 128] = {
    let mut t = [0u8; 128];
    let mut b = 0;
    while b < 128 {
        let c = b as u8;
        if c.is_ascii_alphanumeric() {
            t[b] = c.to_ascii_lowercase();
        }
        b += 1;
    }
    t
};

/// The character symbol of every ASCII byte; 0 for bytes that are dropped
/// (no kept byte's symbol is 0: checked by a test).
fn ascii_char_symbols() -> &'static [u64; 128] {
    static TABLE: OnceLock<[u64; 128]> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = [0u64; 128];
        for (b, slot) in t.iter_mut().enumerate() {
            let f = ASCII_FOLD[b];
            if f != 0 {
                *slot = symbol(SymbolClass::TextChar, &[f]);
            }
        }
        t
    })
}

// The symbol scheme's hash (see `symbol`), computed incrementally so a word's
// symbol is ready when its last byte is read. A test checks it against
// `symbol` on arbitrary words.
const WORD_INIT: u64 = fnv_start(SymbolClass::TextWord);

/// Whether a character is kept (see [`normalize_text`]).
#[inline]
pub(crate) fn is_kept(c: char) -> bool {
    c.is_alphanumeric()
}

/// Appends the UTF-8 of `c`'s full case folding to `buf` (at most 12 bytes),
/// returning the new length.
#[inline]
fn fold_into(c: char, buf: &mut [u8; 16], mut len: usize) -> usize {
    for f in std::iter::once(c).default_case_fold() {
        if len + 4 > buf.len() {
            break;
        }
        len += f.encode_utf8(&mut buf[len..]).len();
    }
    len
}

// ---------------------------------------------------------------------------
// The emitter: shared by the text and HTML front-ends.

/// Turns pieces of text (and decoded HTML entities) into symbols. A word may
/// continue from one piece to the next until [`Emitter::boundary`].
pub(crate) struct Emitter<'o> {
    out: &'o mut Normalized,
    mode: TextMode,
    word_open: bool,
    word_hash: u64,
    word_start: u32,
    word_end: u32,
    // Character mode's output buffers (see `chars`), kept here so that the
    // many short pieces of an HTML page do not each initialise them.
    chunk_symbols: [u64; CHUNK],
    chunk_spans: [Span; CHUNK],
}

/// Characters per step of character mode.
const CHUNK: usize = 256;

impl<'o> Emitter<'o> {
    pub(crate) fn new(out: &'o mut Normalized, mode: TextMode) -> Self {
        Emitter {
            out,
            mode,
            word_open: false,
            word_hash: WORD_INIT,
            word_start: 0,
            word_end: 0,
            chunk_symbols: [0; CHUNK],
            chunk_spans: [Span::default(); CHUNK],
        }
    }

    /// Reserves room for the symbols of `n` bytes of text.
    pub(crate) fn reserve(&mut self, n: usize) {
        let guess = match self.mode {
            TextMode::Chars => n,
            TextMode::Words => n / 5 + 1,
        };
        self.out.symbols.reserve(guess);
        self.out.spans.reserve(guess);
    }

    /// Processes `s`, which starts at offset `base` of the document.
    #[inline]
    pub(crate) fn text(&mut self, s: &str, base: usize) {
        if s.is_empty() {
            return;
        }
        match self.mode {
            TextMode::Chars => self.chars(s, base as u32),
            TextMode::Words => self.words(s, base as u32),
        }
    }

    /// Processes characters that stand for the whole of `span` (a decoded
    /// HTML entity): their alphanumerics, folded, make one character symbol
    /// in character mode and join the current word in word mode; with no
    /// alphanumeric they are a separator.
    pub(crate) fn replacement(&mut self, s: &str, span: Span) {
        let mut buf = [0u8; 16];
        let mut len = 0;
        for c in s.chars().filter(|&c| is_kept(c)) {
            len = fold_into(c, &mut buf, len);
        }
        if len == 0 {
            self.boundary();
            return;
        }
        match self.mode {
            TextMode::Chars => self
                .out
                .push(symbol(SymbolClass::TextChar, &buf[..len]), span),
            TextMode::Words => self.word_bytes(&buf[..len], span),
        }
    }

    /// Ends the current word, if any (markup, punctuation).
    #[inline]
    pub(crate) fn boundary(&mut self) {
        if self.word_open {
            self.out.push(
                finalize(self.word_hash),
                Span::new(self.word_start, self.word_end),
            );
            self.word_open = false;
        }
    }

    /// Ends the stream.
    pub(crate) fn finish(mut self) {
        self.boundary();
    }

    /// Adds folded bytes covering `span` to the current word.
    fn word_bytes(&mut self, folded: &[u8], span: Span) {
        if folded.is_empty() {
            return;
        }
        if !self.word_open {
            self.word_open = true;
            self.word_hash = WORD_INIT;
            self.word_start = span.start;
        }
        for &b in folded {
            self.word_hash = fnv_byte(self.word_hash, b);
        }
        self.word_end = span.end;
    }

    fn chars(&mut self, s: &str, base: u32) {
        // Symbols are written branch-free to a small buffer on the stack
        // (a dropped byte's slot is overwritten by the next one) and copied
        // out per chunk: prose mixes kept and dropped bytes too irregularly
        // for a branch per byte to predict well.
        let table = ascii_char_symbols();
        let bytes = s.as_bytes();
        let (syms, spans) = (&mut self.chunk_symbols, &mut self.chunk_spans);
        let mut i = 0;
        while i < bytes.len() {
            let chunk_end = (i + CHUNK).min(bytes.len());
            // One slot per input character at most, so `n < CHUNK`.
            let mut n = 0;
            while i < chunk_end {
                let b = bytes[i];
                let at = base + i as u32;
                if b < 0x80 {
                    let sym = table[b as usize];
                    syms[n] = sym;
                    spans[n] = Span::new(at, at + 1);
                    n += usize::from(sym != 0);
                    i += 1;
                } else {
                    let Some(c) = s.get(i..).and_then(|r| r.chars().next()) else {
                        i = bytes.len();
                        break;
                    };
                    let len = c.len_utf8();
                    if is_kept(c) {
                        let mut buf = [0u8; 16];
                        let folded = fold_into(c, &mut buf, 0);
                        syms[n] = symbol(SymbolClass::TextChar, &buf[..folded]);
                        spans[n] = Span::new(at, at + len as u32);
                        n += 1;
                    }
                    i += len;
                }
            }
            self.out.symbols.extend_from_slice(&syms[..n]);
            self.out.spans.extend_from_slice(&spans[..n]);
        }
    }

    fn words(&mut self, s: &str, base: u32) {
        let bytes = s.as_bytes();
        let mut open = self.word_open;
        let mut h = self.word_hash;
        let mut start = self.word_start;
        let mut end = self.word_end;
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            if b < 0x80 {
                let f = ASCII_FOLD[b as usize];
                if f != 0 {
                    if !open {
                        open = true;
                        h = WORD_INIT;
                        start = base + i as u32;
                    }
                    h = fnv_byte(h, f);
                    end = base + i as u32 + 1;
                } else if open {
                    self.out.push(finalize(h), Span::new(start, end));
                    open = false;
                }
                i += 1;
            } else {
                let Some(c) = s.get(i..).and_then(|r| r.chars().next()) else {
                    break;
                };
                let n = c.len_utf8();
                if is_kept(c) {
                    if !open {
                        open = true;
                        h = WORD_INIT;
                        start = base + i as u32;
                    }
                    let mut buf = [0u8; 16];
                    let len = fold_into(c, &mut buf, 0);
                    for &f in &buf[..len] {
                        h = fnv_byte(h, f);
                    }
                    end = base + (i + n) as u32;
                } else if open {
                    self.out.push(finalize(h), Span::new(start, end));
                    open = false;
                }
                i += n;
            }
        }
        self.word_open = open;
        self.word_hash = h;
        self.word_start = start;
        self.word_end = end;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_kept_ascii_byte_has_symbol_zero() {
        let t = ascii_char_symbols();
        for b in 0..128u8 {
            assert_eq!(t[b as usize] != 0, b.is_ascii_alphanumeric(), "byte {b}");
        }
    }

    #[test]
    fn incremental_word_hash_is_the_symbol_scheme() {
        for w in ["", "a", "hello", "straße", "σοφία", "x1y2z3"] {
            let mut h = WORD_INIT;
            for &b in w.as_bytes() {
                h = fnv_byte(h, b);
            }
            assert_eq!(finalize(h), symbol(SymbolClass::TextWord, w.as_bytes()));
        }
    }

    #[test]
    fn full_case_folding() {
        let mut buf = [0u8; 16];
        let n = fold_into('ß', &mut buf, 0);
        assert_eq!(&buf[..n], b"ss");
        let n = fold_into('Σ', &mut buf, 0);
        assert_eq!(std::str::from_utf8(&buf[..n]), Ok("σ"));
        let n = fold_into('ς', &mut buf, 0);
        assert_eq!(std::str::from_utf8(&buf[..n]), Ok("σ"));
    }
}
