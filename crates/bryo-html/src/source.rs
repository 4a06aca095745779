//! Source texts: loading, decoding, byte-offset mapping, light syntax
//! highlighting and the HTML of a file's code.

use std::path::{Path, PathBuf};

use bryo_frontend::{decode, symbol, Decoded, FrontendKind, Language, LexMode, SymbolClass};

use crate::escape::{escape_into, push_fmt};

/// Gives the renderer the bytes of a submitted file, by its display path
/// (`FileEntry::path` in the report).
///
/// `Err` carries a reason shown in the page in place of the text ("No such
/// file or directory", "inside a zip archive", …); the rest of the report is
/// still written. Any `Fn(&str) -> Result<Vec<u8>, String> + Sync` closure
/// is a loader.
pub trait SourceLoader: Sync {
    /// The file's bytes as they were when the report was made.
    fn load(&self, path: &str) -> Result<Vec<u8>, String>;
}

impl<F> SourceLoader for F
where
    F: Fn(&str) -> Result<Vec<u8>, String> + Sync,
{
    fn load(&self, path: &str) -> Result<Vec<u8>, String> {
        self(path)
    }
}

/// Reads files from disk: a display path is taken relative to `root` (the
/// directory `bryo compare` ran in, where the paths of the report are
/// valid); absolute paths are read as they are.
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
    fn load(&self, path: &str) -> Result<Vec<u8>, String> {
        let full = self.root.join(Path::new(path));
        std::fs::read(&full).map_err(|e| {
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
                "the file is inside a zip archive; render the report with `bryo compare --format html` to show it".to_string()
            } else {
                format!("cannot read {}: {e}", full.display())
            }
        })
    }
}

/// A decoded source file.
pub(crate) struct Source {
    decoded: Decoded<'static>,
    /// Length of the file in bytes.
    file_len: u64,
}

impl Source {
    /// Decodes the bytes as `bryo compare` did, so byte ranges line up.
    pub fn decode(bytes: &[u8]) -> Result<Source, String> {
        let decoded = decode(bytes).map_err(|e| e.to_string())?.into_owned();
        Ok(Source {
            decoded,
            file_len: bytes.len() as u64,
        })
    }

    pub fn text(&self) -> &str {
        self.decoded.text()
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
    let lexed = lexer.lex(text, LexMode::Normalized);
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

/// A marked stretch of a file: a fragment or a base-code passage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Mark {
    pub start: usize,
    pub end: usize,
    /// `Some(i)`: fragment `i` of the pair; `None`: base code.
    pub fragment: Option<usize>,
}

/// Appends the code of `text` as HTML: `marks` (sorted by start; overlaps
/// are clipped) become `<mark>` elements, `tokens` (sorted, disjoint) the
/// highlighting elements inside them. Every piece of text is escaped.
/// `side` (`a` or `b`) prefixes the id of each fragment's first element.
pub(crate) fn render_code(
    out: &mut String,
    text: &str,
    marks: &[Mark],
    tokens: &[Token],
    side: char,
) {
    // A newline right after <pre> is dropped by HTML parsers; this one is
    // the one dropped, so a file starting with a blank line keeps it.
    out.push_str("<pre class=\"code\">\n");
    let mut pos = 0usize;
    let mut t = 0usize;
    let mut seen = std::collections::HashSet::new();
    for m in marks {
        let start = floor_boundary(text, m.start.max(pos));
        let end = floor_boundary(text, m.end);
        if start >= end {
            continue;
        }
        render_plain(out, text, pos, start, tokens, &mut t);
        match m.fragment {
            Some(i) => {
                push_fmt(
                    out,
                    format_args!("<mark class=\"f c{}\" data-f=\"{i}\"", i % 24),
                );
                if seen.insert(i) {
                    push_fmt(out, format_args!(" id=\"{side}{i}\""));
                }
                out.push('>');
            }
            None => out.push_str("<mark class=\"base\" title=\"base code\">"),
        }
        render_plain(out, text, start, end, tokens, &mut t);
        out.push_str("</mark>");
        pos = end;
    }
    render_plain(out, text, pos, text.len(), tokens, &mut t);
    out.push_str("</pre>");
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
                escape_into(out, before);
                let tag = tok.class.tag();
                push_fmt(out, format_args!("<{tag}>"));
                escape_into(out, inner);
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
        escape_into(out, rest);
    }
}

/// Appends the line-number gutter of a text with `lines` lines.
pub(crate) fn render_gutter(out: &mut String, lines: u32) {
    out.push_str("<pre class=\"ln\" aria-hidden=\"true\">\n");
    for n in 1..=lines.max(1) {
        push_fmt(out, format_args!("{n}\n"));
    }
    out.push_str("</pre>");
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn marks_and_tokens_nest_and_everything_is_escaped() {
        let text = "if a < b:\n    x = '<b>'\n";
        let tokens = highlight("python", text);
        let marks = [
            Mark {
                start: 3,
                end: 14,
                fragment: Some(2),
            },
            Mark {
                start: 20,
                end: 23,
                fragment: None,
            },
        ];
        let mut out = String::new();
        render_code(&mut out, text, &marks, &tokens, 'a');
        assert_eq!(
            out,
            "<pre class=\"code\">\n<b>if</b> <mark class=\"f c2\" data-f=\"2\" id=\"a2\">a &lt; b:\n    </mark>x = <q>&#39;&lt;</q><mark class=\"base\" title=\"base code\"><q>b&gt;&#39;</q></mark>\n</pre>"
        );
    }
}
