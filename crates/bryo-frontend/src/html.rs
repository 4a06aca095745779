//! The HTML front-end: markup removed, entities decoded, then the prose front-end.
//!
//! The rules are documented on [`normalize_html`], for users.

use std::sync::OnceLock;

use crate::text::{addressable, Emitter};
use crate::{Normalized, Span, TextMode};

/// Normalizes an HTML document: markup removed, entities decoded, then the prose front-end, every span still pointing into the HTML.
///
///
/// Removed: start and end tags with their attributes (a `>` inside a quoted
/// attribute value does not end the tag), comments, `<!DOCTYPE …>` and other
/// `<!…>` declarations, `<?…>` processing instructions, CDATA sections, and
/// the contents of `<script>` and `<style>`. Every piece of markup separates
/// words. A `<` that cannot start markup (`a < b`, `<3`) is text, and so
/// punctuation. Unterminated constructs end at the end of the file, as in a
/// browser. The scanner never recurses, so nesting depth costs nothing.
///
/// Character references are decoded: all 2,231 named references of HTML5
/// (from the `entities` crate, including the legacy ones without `;`) and
/// numeric ones `&#…;` and `&#x…;` (with HTML5's repairs: 0, surrogates and
/// values past U+10FFFF become U+FFFD, 0x80–0x9F are read as Windows-1252).
/// A decoded reference's span is the whole reference; its alphanumerics are
/// one character symbol, or part of the current word. Text inside
/// attributes (`alt`, `title`) is not read.
///
/// ```
/// use bryo_frontend::{normalize_html, normalize_text, TextMode};
///
/// let html = "<p class=\"x>y\">Caf&eacute; <b>au</b> lait<script>var x;</script></p>";
/// let n = normalize_html(html, TextMode::Words);
/// assert_eq!(n.symbols, normalize_text("café au lait", TextMode::Words).symbols);
/// assert_eq!(&html[n.spans[0].range()], "Caf&eacute;");
/// ```
pub fn normalize_html(html: &str, mode: TextMode) -> Normalized {
    let mut out = Normalized::default();
    normalize_html_into(html, mode, &mut out);
    out
}

/// Like [`normalize_html`], but writes into `out` (cleared first), reusing
/// its buffers.
///
/// Spans are 32-bit: text past the first 4 GiB − 1 bytes is not read
/// ([`decode`](crate::decode) refuses longer files).
pub fn normalize_html_into(html: &str, mode: TextMode, out: &mut Normalized) {
    out.clear();
    let html = addressable(html);
    let mut e = Emitter::new(out, mode);
    e.reserve(html.len() / 2);
    let b = html.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let Some(off) = memchr::memchr2(b'<', b'&', &b[i..]) else {
            e.text(&html[i..], i);
            break;
        };
        let j = i + off;
        e.text(&html[i..j], i);
        if b[j] == b'&' {
            match char_ref(b, j) {
                Some((r, end)) => {
                    let mut buf = [0u8; 4];
                    let s = match r {
                        CharRef::Named(s) => s,
                        CharRef::Numeric(c) => c.encode_utf8(&mut buf),
                    };
                    e.replacement(s, Span::new(j as u32, end as u32));
                    i = end;
                }
                None => {
                    e.text("&", j);
                    i = j + 1;
                }
            }
        } else {
            match markup_end(b, j) {
                Some(end) => {
                    e.boundary();
                    i = end;
                }
                None => {
                    e.text("<", j);
                    i = j + 1;
                }
            }
        }
    }
    e.finish();
}

/// The text of an HTML document or fragment as a reader sees it, by the
/// rules of [`normalize_html`]: every piece of markup (tags, comments,
/// declarations, `<script>` and `<style>` with their contents) becomes one
/// space and every character reference is decoded; case, whitespace and
/// punctuation are kept. For showing a passage of HTML as text.
///
/// ```
/// use bryo_frontend::html_to_text;
///
/// let html = "<p>Caf&eacute;<b>au</b>&nbsp;lait<script>x()</script> 3 &lt; 4";
/// assert_eq!(html_to_text(html), " Café au \u{a0}lait  3 < 4");
/// ```
pub fn html_to_text(html: &str) -> String {
    let b = html.as_bytes();
    let mut out = String::with_capacity(html.len());
    let mut i = 0;
    while i < b.len() {
        let Some(off) = memchr::memchr2(b'<', b'&', &b[i..]) else {
            out.push_str(&html[i..]);
            break;
        };
        let j = i + off;
        out.push_str(&html[i..j]);
        if b[j] == b'&' {
            match char_ref(b, j) {
                Some((CharRef::Named(s), end)) => {
                    out.push_str(s);
                    i = end;
                }
                Some((CharRef::Numeric(c), end)) => {
                    out.push(c);
                    i = end;
                }
                None => {
                    out.push('&');
                    i = j + 1;
                }
            }
        } else {
            match markup_end(b, j) {
                Some(end) => {
                    out.push(' ');
                    i = end;
                }
                None => {
                    out.push('<');
                    i = j + 1;
                }
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------
// Markup.

#[inline]
fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r' | b'\x0C')
}

/// Where markup starting with the `<` at `j` ends (one past its last byte),
/// or `None` when this `<` is text.
fn markup_end(b: &[u8], j: usize) -> Option<usize> {
    let next = *b.get(j + 1)?;
    if next.is_ascii_alphabetic() {
        let name_end = tag_name_end(b, j + 1);
        let end = tag_end(b, name_end);
        let name = &b[j + 1..name_end];
        if name.eq_ignore_ascii_case(b"script") || name.eq_ignore_ascii_case(b"style") {
            return Some(raw_text_end(b, end, name));
        }
        return Some(end);
    }
    match next {
        b'/' => match b.get(j + 2) {
            Some(c) if c.is_ascii_alphabetic() => {
                let name_end = tag_name_end(b, j + 2);
                Some(tag_end(b, name_end))
            }
            Some(b'>') => Some(j + 3),
            // `</` then anything else: a bogus comment up to `>`.
            Some(_) => Some(find_after(b, j + 2, b">")),
            None => None,
        },
        b'!' => {
            let rest = &b[j + 2..];
            if rest.starts_with(b"--") {
                let body = j + 4;
                // `<!-->` and `<!--->` are (empty) comments too.
                if b.get(body) == Some(&b'>') {
                    return Some(body + 1);
                }
                if b.get(body..body + 2) == Some(b"->") {
                    return Some(body + 2);
                }
                Some(find_after(b, body, b"-->"))
            } else if rest.starts_with(b"[CDATA[") {
                Some(find_after(b, j + 9, b"]]>"))
            } else {
                Some(find_after(b, j + 2, b">"))
            }
        }
        b'?' => Some(find_after(b, j + 2, b">")),
        _ => None,
    }
}

/// One past the first occurrence of `pat` at or after `from`, or the end.
fn find_after(b: &[u8], from: usize, pat: &[u8]) -> usize {
    let from = from.min(b.len());
    match memchr::memmem::find(&b[from..], pat) {
        Some(k) => from + k + pat.len(),
        None => b.len(),
    }
}

fn tag_name_end(b: &[u8], from: usize) -> usize {
    let mut p = from;
    while p < b.len() && !is_space(b[p]) && b[p] != b'/' && b[p] != b'>' {
        p += 1;
    }
    p
}

/// One past the `>` closing a tag whose attributes start at `p`; quoted
/// attribute values may hold `>`. Unterminated: the end of the file.
fn tag_end(b: &[u8], mut p: usize) -> usize {
    while p < b.len() {
        match b[p] {
            b'>' => return p + 1,
            b'=' => {
                p += 1;
                while p < b.len() && is_space(b[p]) {
                    p += 1;
                }
                if let Some(&q) = b.get(p) {
                    if q == b'"' || q == b'\'' {
                        match memchr::memchr(q, &b[p + 1..]) {
                            Some(k) => p += k + 2,
                            None => return b.len(),
                        }
                    }
                }
            }
            _ => p += 1,
        }
    }
    b.len()
}

/// The end of a `<script>` or `<style>` element whose start tag ended at
/// `from`: one past the `>` of its end tag, or the end of the file.
fn raw_text_end(b: &[u8], from: usize, name: &[u8]) -> usize {
    let mut p = from;
    while let Some(k) = memchr::memmem::find(&b[p.min(b.len())..], b"</") {
        let at = p + k;
        let name_start = at + 2;
        let name_end = name_start + name.len();
        if b.get(name_start..name_end)
            .is_some_and(|n| n.eq_ignore_ascii_case(name))
            && b.get(name_end)
                .is_none_or(|&c| is_space(c) || c == b'/' || c == b'>')
        {
            return tag_end(b, name_end);
        }
        p = at + 2;
    }
    b.len()
}

// ---------------------------------------------------------------------------
// Character references.

enum CharRef {
    Named(&'static str),
    Numeric(char),
}

/// Longest named reference (`CounterClockwiseContourIntegral`), without `&`
/// and `;`.
const MAX_NAME: usize = 32;

/// The named references, without their `&`, sorted for binary search.
fn named_refs() -> &'static [(&'static [u8], &'static str)] {
    static TABLE: OnceLock<Vec<(&'static [u8], &'static str)>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut v: Vec<_> = entities::ENTITIES
            .iter()
            .map(|e| {
                let name = e.entity.as_bytes();
                (name.strip_prefix(b"&").unwrap_or(name), e.characters)
            })
            .collect();
        v.sort_unstable();
        v.dedup_by(|a, b| a.0 == b.0);
        v
    })
}

fn lookup(name: &[u8]) -> Option<&'static str> {
    let t = named_refs();
    t.binary_search_by(|(k, _)| (*k).cmp(name))
        .ok()
        .map(|i| t[i].1)
}

/// The character reference starting with the `&` at `j` and where it ends,
/// or `None` when this `&` is text.
fn char_ref(b: &[u8], j: usize) -> Option<(CharRef, usize)> {
    let p = j + 1;
    if b.get(p) == Some(&b'#') {
        return numeric_ref(b, p + 1);
    }
    let mut q = p;
    while q < b.len() && q - p < MAX_NAME && b[q].is_ascii_alphanumeric() {
        q += 1;
    }
    if q == p {
        return None;
    }
    if b.get(q) == Some(&b';') {
        if let Some(s) = lookup(&b[p..=q]) {
            return Some((CharRef::Named(s), q + 1));
        }
    }
    // Legacy references without `;` (`&amp`, `&copy`): the longest match.
    (p + 2..=q)
        .rev()
        .find_map(|e| lookup(&b[p..e]).map(|s| (CharRef::Named(s), e)))
}

fn numeric_ref(b: &[u8], p: usize) -> Option<(CharRef, usize)> {
    let (radix, start) = match b.get(p) {
        Some(b'x' | b'X') => (16, p + 1),
        _ => (10, p),
    };
    let mut q = start;
    let mut v: u32 = 0;
    while let Some(d) = b.get(q).and_then(|&c| (c as char).to_digit(radix)) {
        // Saturate past the Unicode range; the value is replaced anyway.
        v = v.saturating_mul(radix).saturating_add(d).min(0x11_0000);
        q += 1;
    }
    if q == start {
        return None;
    }
    if b.get(q) == Some(&b';') {
        q += 1;
    }
    let c = match v {
        0x80..=0x9F => {
            let byte = [v as u8];
            let (s, _) = encoding_rs::WINDOWS_1252.decode_without_bom_handling(&byte);
            s.chars().next().unwrap_or(char::REPLACEMENT_CHARACTER)
        }
        _ => char::from_u32(v)
            .filter(|&c| c != '\0')
            .unwrap_or(char::REPLACEMENT_CHARACTER),
    };
    Some((CharRef::Numeric(c), q))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decoded(s: &str) -> Option<(String, usize)> {
        char_ref(s.as_bytes(), 0).map(|(r, end)| match r {
            CharRef::Named(n) => (n.to_string(), end),
            CharRef::Numeric(c) => (c.to_string(), end),
        })
    }

    #[test]
    fn references() {
        assert_eq!(decoded("&amp;x"), Some(("&".into(), 5)));
        assert_eq!(decoded("&ampx"), Some(("&".into(), 4)));
        assert_eq!(decoded("&notin;"), Some(("∉".into(), 7)));
        assert_eq!(decoded("&notit;"), Some(("¬".into(), 4)));
        assert_eq!(decoded("&#233;"), Some(("é".into(), 6)));
        assert_eq!(decoded("&#xE9"), Some(("é".into(), 5)));
        assert_eq!(decoded("&#150;"), Some(("–".into(), 6)));
        assert_eq!(decoded("&#0;"), Some(("\u{FFFD}".into(), 4)));
        assert_eq!(decoded("&#xD800;"), Some(("\u{FFFD}".into(), 8)));
        assert_eq!(decoded("&#99999999999;"), Some(("\u{FFFD}".into(), 14)));
        assert_eq!(decoded("&#;"), None);
        assert_eq!(decoded("&nosuch;"), None);
        assert_eq!(decoded("& x"), None);
        assert_eq!(
            decoded("&CounterClockwiseContourIntegral;"),
            Some(("∳".into(), 33))
        );
    }

    #[test]
    fn markup_ends() {
        let end = |s: &str| markup_end(s.as_bytes(), 0);
        assert_eq!(end("<a href='x>y'>t"), Some(14));
        assert_eq!(end("<a b=\"1\" c=2>t"), Some(13));
        assert_eq!(end("<!-- a > b -->t"), Some(14));
        assert_eq!(end("<!-->t"), Some(5));
        assert_eq!(end("<!DOCTYPE html>t"), Some(15));
        assert_eq!(end("<![CDATA[ <x> ]]>t"), Some(17));
        assert_eq!(end("</p >t"), Some(5));
        assert_eq!(end("<script>a</b></scriptx></SCRIPT>t"), Some(32));
        assert_eq!(end("<style>unterminated"), Some(19));
        assert_eq!(end("< b"), None);
        assert_eq!(end("<3"), None);
        assert_eq!(end("<"), None);
    }
}
