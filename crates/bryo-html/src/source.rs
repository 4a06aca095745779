//! Source texts: loading, decoding, byte-offset mapping, light syntax
//! highlighting and the HTML of a file's code.

use std::path::{Path, PathBuf};

use bryo_frontend::{decode, symbol, Decoded, FrontendKind, Language, Normalization, SymbolClass};

use crate::error::LoadError;
use crate::escape::{escape_text_into, push_fmt};

/// Gives the renderer the bytes of a submitted file, by its display path
/// (`FileEntry::path` in the report).
///
/// `Err` is a [`LoadError`], shown in the page in place of the text ("No
/// such file or directory", "inside a zip archive", …); the rest of the
/// report is still written. Any `Fn(&str) -> Result<Vec<u8>, E> + Sync`
/// closure whose `E` converts into a [`LoadError`] (a `String` reason, a
/// `LoadError`) is a loader.
pub trait SourceLoader: Sync {
    /// The file's bytes as they were when the report was made.
    fn load(&self, path: &str) -> Result<Vec<u8>, LoadError>;
}

impl<F, E> SourceLoader for F
where
    F: Fn(&str) -> Result<Vec<u8>, E> + Sync,
    E: Into<LoadError>,
{
    fn load(&self, path: &str) -> Result<Vec<u8>, LoadError> {
        self(path).map_err(Into::into)
    }
}

/// Reads files from disk: a display path is taken relative to `root` (the
/// directory `bryo compare` ran in, where the paths of the report are
/// valid); absolute paths are read as they are. It trusts the paths it is
/// given: to render a result from elsewhere, wrap it in a
/// [`CheckedLoader`](crate::CheckedLoader).
#[derive(Clone, Debug)]
pub struct DiskLoader {
    root: PathBuf,
}

impl DiskLoader {
    /// A loader resolving relative paths against `root`.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        DiskLoader { root: root.into() }
    }
}

impl Default for DiskLoader {
    /// Paths relative to the current directory.
    fn default() -> Self {
        DiskLoader::new(".")
    }
}

impl SourceLoader for DiskLoader {
    fn load(&self, path: &str) -> Result<Vec<u8>, LoadError> {
        let full = self.root.join(Path::new(path));
        std::fs::read(&full).map_err(|source| {
            let inside_zip = path
                .split('/')
                .scan(PathBuf::new(), |acc, part| {
                    acc.push(part);
                    Some(acc.clone())
                })
                .any(|p| {
                    p.extension().is_some_and(|e| e.eq_ignore_ascii_case("zip"))
                        && self.root.join(&p).is_file()
                });
            if inside_zip {
                LoadError::InsideZip
            } else {
                LoadError::Io {
                    path: full.clone(),
                    source,
                }
            }
        })
    }
}

/// A decoded source file.
pub(crate) struct Source {
    decoded: Decoded<'static>,
    /// Length of the file in bytes.
    file_len: u64,
    /// Where the text's UTF-8 offsets and the shown text's UTF-16 offsets
    /// part: `(text offset after a character, shrinkage so far)` for every
    /// character longer in UTF-8 than in UTF-16 and every `\r` of a `\r\n`
    /// (line ends are shown as one `\n`). Empty for ASCII with `\n` lines.
    shrink: Vec<(u32, u32)>,
}

impl Source {
    /// Decodes the bytes as `bryo compare` did, so byte ranges line up.
    pub fn decode(bytes: &[u8]) -> Result<Source, String> {
        let decoded = decode(bytes).map_err(|e| e.to_string())?.into_owned();
        let mut shrink = Vec::new();
        let mut total = 0u32;
        let text = decoded.text();
        for (i, c) in text.char_indices() {
            let delta = if c == '\r' && text.as_bytes().get(i + 1) == Some(&b'\n') {
                1
            } else {
                (c.len_utf8() - c.len_utf16()) as u32
            };
            if delta > 0 {
                total += delta;
                shrink.push(((i + c.len_utf8()) as u32, total));
            }
        }
        Ok(Source {
            decoded,
            file_len: bytes.len() as u64,
            shrink,
        })
    }

    /// The offset in the text as shown in the browser (UTF-16 code units,
    /// line ends as one `\n`) of file offset `original`.
    pub fn shown_offset(&self, original: u64) -> usize {
        let t = self.text_offset(original);
        let i = self
            .shrink
            .partition_point(|&(after, _)| after as usize <= t);
        let shrunk = i.checked_sub(1).map_or(0, |i| self.shrink[i].1);
        t - shrunk as usize
    }

    pub fn text(&self) -> &str {
        self.decoded.text()
    }

    /// Lines of the text, counted as `bryo compare` counts them.
    pub fn line_count(&self) -> u32 {
        bryo_frontend::LineIndex::new(self.text().as_bytes()).line_count()
    }

    /// Whether the byte offset lies inside the file (a range past the end
    /// means the file changed since the report was made).
    pub fn holds(&self, original: u64) -> bool {
        original <= self.file_len
    }

    /// The text offset (a character boundary) of file offset `original`:
    /// the first character whose bytes start at or after it. The inverse of
    /// [`Decoded::original_offset`], by binary search (that map is monotone).
    pub fn text_offset(&self, original: u64) -> usize {
        let text = self.text();
        // g(i) = file offset of the character holding byte i of the text;
        // monotone in i. The first i with g(i) >= original is a character
        // boundary (g steps only there), or 0, or the end.
        let g = |i: usize| self.decoded.original_offset(floor_boundary(text, i) as u32) as u64;
        let (mut lo, mut hi) = (0usize, text.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if g(mid) < original {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }
}

/// The largest character boundary at or below `i`.
fn floor_boundary(text: &str, mut i: usize) -> usize {
    i = i.min(text.len());
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// What a highlighted stretch of code is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Class {
    Keyword,
    String,
    Number,
    Comment,
}

impl Class {
    /// The element that shows it (styled in `bryo.css`): short tags keep
    /// pages small.
    fn tag(self) -> &'static str {
        match self {
            Class::Keyword => "b",
            Class::String => "q",
            Class::Number => "u",
            Class::Comment => "i",
        }
    }
}

/// A highlighted stretch `[start, end)` of the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Token {
    pub start: usize,
    pub end: usize,
    pub class: Class,
}

/// Light highlighting with bryo's own lexer for `language`: keywords,
/// literals, and whatever the lexer skipped between tokens (comments) — the
/// same view of the code the comparison had. Prose and HTML get none.
pub(crate) fn highlight(language: &str, text: &str) -> Vec<Token> {
    let Some(lexer) = Language::by_name(language)
        .filter(|l| l.frontend() == FrontendKind::Code)
        .and_then(|l| l.lexer())
    else {
        return Vec::new();
    };
    let ident = symbol(SymbolClass::Identifier, b"");
    let string = symbol(SymbolClass::String, b"");
    let chr = symbol(SymbolClass::Char, b"");
    let number = symbol(SymbolClass::Number, b"");
    let other = symbol(SymbolClass::OtherLiteral, b"");
    let lexed = lexer.lex(text, Normalization::Full);
    let n = &lexed.normalized;
    let mut out = Vec::with_capacity(n.len() / 2);
    let mut prev_end = 0usize;
    for (&sym, span) in n.symbols.iter().zip(&n.spans) {
        let (start, end) = (span.start as usize, span.end as usize);
        if start < prev_end || end > text.len() {
            continue;
        }
        push_gap(&mut out, text, prev_end, start);
        prev_end = end;
        let class = if sym == ident {
            continue;
        } else if sym == string || sym == chr {
            Class::String
        } else if sym == number || sym == other {
            Class::Number
        } else if text[start..end]
            .chars()
            .next()
            .is_some_and(|c| c.is_alphabetic() || c == '_')
        {
            Class::Keyword
        } else {
            continue;
        };
        out.push(Token { start, end, class });
    }
    push_gap(&mut out, text, prev_end, text.len());
    out
}

/// Text between two tokens that is not whitespace is what the lexer
/// skipped: comments.
fn push_gap(out: &mut Vec<Token>, text: &str, start: usize, end: usize) {
    let Some(gap) = text.get(start..end) else {
        return;
    };
    let trimmed_start = gap.len() - gap.trim_start().len();
    let trimmed_end = gap.trim_end().len();
    if trimmed_start < trimmed_end {
        out.push(Token {
            start: start + trimmed_start,
            end: start + trimmed_end,
            class: Class::Comment,
        });
    }
}

/// The code of `text` as HTML, highlighted with `tokens` (sorted,
/// disjoint), every piece of text escaped, line ends shown as `\n` (as an
/// HTML parser would make them): the content of a pair page's code block,
/// where `bryo.js` lays the fragments over it.
pub(crate) fn render_code(text: &str, tokens: &[Token]) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 4);
    let mut t = 0usize;
    render_plain(&mut out, text, 0, text.len(), tokens, &mut t);
    if out.contains('\r') {
        out = out.replace("\r\n", "\n").replace('\r', "\n");
    }
    out
}

/// Appends `text[start..end]` with its tokens; `t` is the first token that
/// may still reach `start` (tokens are consumed in order).
fn render_plain(
    out: &mut String,
    text: &str,
    start: usize,
    end: usize,
    tokens: &[Token],
    t: &mut usize,
) {
    let mut pos = start;
    while *t < tokens.len() && tokens[*t].end <= start {
        *t += 1;
    }
    let mut i = *t;
    while i < tokens.len() && tokens[i].start < end {
        let tok = tokens[i];
        let s = tok.start.clamp(pos, end);
        let e = tok.end.clamp(s, end);
        if s < e {
            if let (Some(before), Some(inner)) = (text.get(pos..s), text.get(s..e)) {
                escape_text_into(out, before);
                let tag = tok.class.tag();
                push_fmt(out, format_args!("<{tag}>"));
                escape_text_into(out, inner);
                push_fmt(out, format_args!("</{tag}>"));
                pos = e;
            }
        }
        if tok.end > end {
            // The token goes on past this stretch; the next one resumes it.
            break;
        }
        i += 1;
    }
    *t = i;
    if let Some(rest) = text.get(pos..end) {
        escape_text_into(out, rest);
    }
}

/// Appends the line-number gutter of a text with `lines` lines: an empty
/// element that `bryo.js` fills (numbers written out would add about 5
/// bytes per line to every page).
pub(crate) fn render_gutter(out: &mut String, lines: u32) {
    push_fmt(
        out,
        format_args!(
            "<pre class=\"ln\" aria-hidden=\"true\" data-lines=\"{}\"></pre>",
            lines.max(1)
        ),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    use proptest::prelude::*;

    /// Naive inverse of the decoder's map: the first character boundary at
    /// or after `original`, by a linear scan.
    fn naive_text_offset(src: &Source, original: u64) -> usize {
        let text = src.text();
        (0..=text.len())
            .filter(|&t| text.is_char_boundary(t))
            .find(|&t| src.decoded.original_offset(t as u32) as u64 >= original)
            .unwrap_or(text.len())
    }

    /// Naive shown offset: UTF-16 units before `t`, a `\r\n` counted once.
    fn naive_shown(text: &str, t: usize) -> usize {
        let prefix = &text[..t];
        let crlf = text.as_bytes()[..t]
            .iter()
            .enumerate()
            .filter(|&(i, &b)| b == b'\r' && text.as_bytes().get(i + 1) == Some(&b'\n'))
            .count();
        prefix.encode_utf16().count() - crlf
    }

    fn file_bytes() -> impl Strategy<Value = Vec<u8>> {
        let piece = prop_oneof![
            Just("a".to_string()),
            Just("\r\n".to_string()),
            Just("\r".to_string()),
            Just("\n".to_string()),
            Just("é".to_string()),
            Just("€".to_string()),
            Just("😀".to_string()),
        ];
        (proptest::collection::vec(piece, 0..40), 0..4u8).prop_map(|(pieces, encoding)| {
            let text: String = pieces.concat();
            match encoding {
                0 => text.into_bytes(),
                1 => [b"\xEF\xBB\xBF".as_slice(), text.as_bytes()].concat(),
                2 => {
                    let mut out = vec![0xFF, 0xFE];
                    for unit in text.encode_utf16() {
                        out.extend(unit.to_le_bytes());
                    }
                    out
                }
                // Invalid UTF-8 late in the file: Windows-1252.
                _ => [text.as_bytes(), b"\xE9x".as_slice()].concat(),
            }
        })
    }

    proptest! {
        /// The rendered code shows exactly the text (line ends as `\n`),
        /// and its only markup is the highlighting elements.
        #[test]
        fn rendered_code_shows_the_text_and_nothing_else(
            pieces in proptest::collection::vec(
                prop_oneof![
                    Just("def "), Just("if"), Just("x"), Just(" = "), Just("'s<b>'"),
                    Just("\"</script>\""), Just("# <img onerror=x> &amp;\n"), Just("12"),
                    Just("\r\n"), Just("\r"), Just("\n"), Just("<"), Just(">"), Just("&"),
                    Just("'''"), Just("é😀"), Just("\t"),
                ],
                0..60,
            ),
        ) {
            let text: String = pieces.concat();
            let html = render_code(&text, &highlight("python", &text));
            let mut bare = html.clone();
            for tag in ["<b>", "</b>", "<q>", "</q>", "<u>", "</u>", "<i>", "</i>"] {
                bare = bare.replace(tag, "");
            }
            prop_assert!(!bare.contains('<') && !bare.contains('>'), "{}", html);
            let shown = bare.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&");
            prop_assert_eq!(shown, text.replace("\r\n", "\n").replace('\r', "\n"));
        }

        #[test]
        fn offsets_match_naive_definitions(bytes in file_bytes()) {
            let src = Source::decode(&bytes).unwrap();
            for original in 0..=bytes.len() as u64 + 1 {
                let t = src.text_offset(original);
                prop_assert_eq!(t, naive_text_offset(&src, original), "offset {}", original);
                prop_assert_eq!(src.shown_offset(original), naive_shown(src.text(), t));
            }
        }
    }

    #[test]
    fn text_offsets_invert_the_decoder() {
        // UTF-8 with a byte-order mark: the text starts 3 bytes later.
        let src = Source::decode(b"\xEF\xBB\xBFab\xC3\xA9cd").unwrap();
        assert_eq!(src.text(), "abécd");
        assert_eq!(src.text_offset(3), 0);
        assert_eq!(src.text_offset(5), 2); // é
        assert_eq!(src.text_offset(7), 4); // c
        assert_eq!(src.text_offset(9), 6); // end

        // Windows-1252: é is one byte in the file, two in the text.
        let src = Source::decode(b"ab\xE9cd\xFF").unwrap();
        assert_eq!(&src.text()[..2], "ab");
        assert_eq!(src.text_offset(2), 2);
        assert_eq!(src.text_offset(3), 4);
        assert_eq!(src.text_offset(4), 5);

        // UTF-16LE with a byte-order mark.
        let src = Source::decode(b"\xFF\xFEa\x00b\x00c\x00").unwrap();
        assert_eq!(src.text(), "abc");
        assert_eq!(src.text_offset(2), 0);
        assert_eq!(src.text_offset(4), 1);
        assert_eq!(src.text_offset(8), 3);
    }

    #[test]
    fn python_is_highlighted() {
        let text = "def f(x):  # add one\n    return x + 1 + len('s')\n";
        let tokens = highlight("python", text);
        let shown: Vec<(&str, Class)> = tokens
            .iter()
            .map(|t| (&text[t.start..t.end], t.class))
            .collect();
        assert_eq!(
            shown,
            [
                ("def", Class::Keyword),
                ("# add one", Class::Comment),
                ("return", Class::Keyword),
                ("1", Class::Number),
                ("'s'", Class::String),
            ]
        );
        assert!(highlight("text", text).is_empty());
    }

    #[test]
    fn code_is_highlighted_and_escaped() {
        let text = "if a < b:\r\n    x = '</script>' # <b>\n";
        let tokens = highlight("python", text);
        assert_eq!(
            render_code(text, &tokens),
            "<b>if</b> a &lt; b:\n    x = <q>'&lt;/script&gt;'</q> <i># &lt;b&gt;</i>\n"
        );
    }

    #[test]
    fn shown_offsets_count_utf16_and_one_character_line_ends() {
        let src = Source::decode("a\r\né😀b\rc".as_bytes()).unwrap();
        // a \n é 😀(2 units) b \n c
        let shown: Vec<usize> = [0u64, 1, 3, 5, 9, 10, 11, 12]
            .iter()
            .map(|&o| src.shown_offset(o))
            .collect();
        assert_eq!(shown, [0, 1, 2, 3, 5, 6, 7, 8]);
        assert_eq!("a\né😀b\nc".encode_utf16().count(), 8);
    }
}
