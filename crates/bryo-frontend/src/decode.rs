//! Decoding: the first step of every front-end, from a file's bytes to text.
//!
//! The rules are documented on [`decode`], for users.

use std::borrow::Cow;
use std::fmt;
use std::ops::Range;

use crate::Span;

/// The encoding a file was decoded from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TextEncoding {
    /// UTF-8 without a byte-order mark (the text is the file, no copy made).
    Utf8,
    /// UTF-8 after a byte-order mark (`EF BB BF`).
    Utf8Bom,
    /// UTF-16 little-endian, after the byte-order mark `FF FE`.
    Utf16Le,
    /// UTF-16 big-endian, after the byte-order mark `FE FF`.
    Utf16Be,
    /// Windows-1252, the fallback for bytes that are not valid UTF-8.
    Windows1252,
}

impl TextEncoding {
    /// The encoding's name as users know it (`"UTF-8"`, `"UTF-16LE"`,
    /// `"windows-1252"`, …).
    pub fn name(self) -> &'static str {
        match self {
            TextEncoding::Utf8 => "UTF-8",
            TextEncoding::Utf8Bom => "UTF-8 (BOM)",
            TextEncoding::Utf16Le => "UTF-16LE",
            TextEncoding::Utf16Be => "UTF-16BE",
            TextEncoding::Windows1252 => "windows-1252",
        }
    }
}

impl fmt::Display for TextEncoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a file's bytes were not turned into text: the file is skipped, and the
/// message (its `Display`) is the reason shown to the user.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DecodeError {
    /// The file holds a NUL byte (for UTF-16, a NUL code unit), so it is
    /// taken to be binary.
    #[error("binary file (NUL byte at offset {offset})")]
    Binary {
        /// Offset of the NUL byte (or code unit) in the file.
        offset: usize,
    },
    /// The decoded text is longer than spans can address (4 GiB − 1 bytes).
    #[error("file too large ({len} bytes of text; at most {max})", max = u32::MAX)]
    TooLarge {
        /// Length of the decoded text in bytes.
        len: usize,
    },
}

/// A file's bytes decoded to text, with what is needed to map offsets in the
/// text back to the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decoded<'a> {
    text: Cow<'a, str>,
    encoding: TextEncoding,
    map: OffsetMap,
    fallback_at: Option<usize>,
    /// Offset of an incomplete UTF-8 character ending the file, replaced by
    /// U+FFFD.
    truncated_at: Option<usize>,
}

/// Maps offsets of the decoded text to offsets in the file.
#[derive(Clone, Debug, PartialEq, Eq)]
enum OffsetMap {
    /// `file = text + shift` (0 for UTF-8, 3 after a UTF-8 byte-order mark).
    Shift(usize),
    /// Runs of characters that each take the same number of bytes in the
    /// text and in the file; ASCII-heavy text needs very few runs.
    Runs { runs: Vec<Run>, file_len: usize },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Run {
    text_start: u32,
    file_start: usize,
    /// Bytes per character in the text (1–4).
    text_unit: u8,
    /// Bytes per character in the file (1, 2 or 4).
    file_unit: u8,
}

/// Builds the run table while decoding, one character at a time.
struct RunBuilder {
    runs: Vec<Run>,
    text_pos: u32,
    file_pos: usize,
}

impl RunBuilder {
    fn new(file_start: usize) -> Self {
        RunBuilder {
            runs: Vec::new(),
            text_pos: 0,
            file_pos: file_start,
        }
    }

    #[inline]
    fn push(&mut self, text_unit: u8, file_unit: u8) {
        match self.runs.last() {
            Some(r) if r.text_unit == text_unit && r.file_unit == file_unit => {}
            _ => self.runs.push(Run {
                text_start: self.text_pos,
                file_start: self.file_pos,
                text_unit,
                file_unit,
            }),
        }
        // Saturating: an over-long text is rejected after decoding.
        self.text_pos = self.text_pos.saturating_add(u32::from(text_unit));
        self.file_pos += usize::from(file_unit);
    }

    fn finish(self) -> OffsetMap {
        OffsetMap::Runs {
            runs: self.runs,
            file_len: self.file_pos,
        }
    }
}

impl OffsetMap {
    /// The file offset of text offset `off`. An offset inside a character is
    /// rounded to the character's first byte, or past its last byte when
    /// `round_up` is set.
    fn file_offset(&self, off: u32, round_up: bool) -> usize {
        match self {
            OffsetMap::Shift(s) => off as usize + s,
            OffsetMap::Runs { runs, file_len } => {
                let i = runs.partition_point(|r| r.text_start <= off);
                let Some(r) = i.checked_sub(1).and_then(|i| runs.get(i)) else {
                    return runs.first().map_or(*file_len, |r| r.file_start);
                };
                let delta = off - r.text_start;
                let chars = (delta / u32::from(r.text_unit)) as usize;
                let partial = !delta.is_multiple_of(u32::from(r.text_unit));
                let extra = usize::from(round_up && partial);
                (r.file_start + (chars + extra) * usize::from(r.file_unit)).min(*file_len)
            }
        }
    }
}

impl<'a> Decoded<'a> {
    /// The decoded text.
    #[inline]
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The encoding the file was decoded from.
    #[inline]
    pub fn encoding(&self) -> TextEncoding {
        self.encoding
    }

    /// Whether the text borrows the file's bytes (UTF-8 without a
    /// byte-order mark: no copy was made).
    #[inline]
    pub fn is_borrowed(&self) -> bool {
        matches!(self.text, Cow::Borrowed(_))
    }

    /// Where the file stopped being valid UTF-8, when the Windows-1252
    /// fallback was used.
    #[inline]
    pub fn fallback_offset(&self) -> Option<usize> {
        self.fallback_at
    }

    /// Where an incomplete UTF-8 character cut the file short (it was
    /// replaced by U+FFFD and the rest read as UTF-8).
    #[inline]
    pub fn truncated_offset(&self) -> Option<usize> {
        self.truncated_at
    }

    /// The note to record when the text is not exactly the file's
    /// characters: `"decoded as windows-1252: invalid UTF-8 at offset N"`,
    /// or `"incomplete UTF-8 character at offset N (end of file) replaced"`.
    pub fn note(&self) -> Option<String> {
        if let Some(n) = self.fallback_at {
            return Some(format!(
                "decoded as windows-1252: invalid UTF-8 at offset {n}"
            ));
        }
        self.truncated_at
            .map(|n| format!("incomplete UTF-8 character at offset {n} (end of file) replaced"))
    }

    /// The file offset of text offset `offset` (a character boundary).
    pub fn original_offset(&self, offset: u32) -> usize {
        self.map.file_offset(offset, false)
    }

    /// The bytes of the file that the text under `span` was decoded from.
    pub fn original_range(&self, span: Span) -> Range<usize> {
        self.map.file_offset(span.start, false)..self.map.file_offset(span.end, true)
    }

    /// Frees the decoded text and keeps the rest: the encoding, the notes
    /// and the map back to the file ([`original_offset`](Self::original_offset),
    /// [`original_range`](Self::original_range)), which is all a report
    /// needs once the text went through its front-end. [`text`](Self::text)
    /// is empty afterwards.
    pub fn release_text(&mut self) {
        self.text = Cow::Owned(String::new());
    }

    /// The same decoded file without its text, no longer borrowing the
    /// input bytes: [`release_text`](Self::release_text) without first
    /// copying a borrowed text.
    pub fn without_text(self) -> Decoded<'static> {
        Decoded {
            text: Cow::Owned(String::new()),
            encoding: self.encoding,
            map: self.map,
            fallback_at: self.fallback_at,
            truncated_at: self.truncated_at,
        }
    }

    /// The same decoded file, no longer borrowing the input bytes (the
    /// text is copied if it was borrowed).
    pub fn into_owned(self) -> Decoded<'static> {
        Decoded {
            text: Cow::Owned(self.text.into_owned()),
            encoding: self.encoding,
            map: self.map,
            fallback_at: self.fallback_at,
            truncated_at: self.truncated_at,
        }
    }

    /// Takes the text, copying it if it was borrowed.
    pub fn into_text(self) -> String {
        self.text.into_owned()
    }
}

const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// Decodes the bytes of a file to text.
///
/// Recognised, in this order: a UTF-8 byte-order mark, a UTF-16 LE or BE
/// byte-order mark, valid UTF-8, and otherwise Windows-1252 (the legacy 8-bit
/// encoding most "invalid UTF-8" files really are; every byte decodes, so the
/// fallback never fails). One exception: text with non-ASCII UTF-8
/// characters whose only fault is an incomplete character at the very end (a
/// truncated file) stays UTF-8, the fragment replaced by U+FFFD.
///
/// A NUL byte (a NUL code unit in UTF-16) marks a binary file, which is
/// skipped with its reason. Line ends are left as they
/// are: `\r\n` and `\r` are whitespace to every front-end and line ends to
/// [`LineIndex`](crate::LineIndex).
///
/// Front-ends work on the decoded text, so their spans are offsets into it;
/// [`Decoded::original_range`] maps a span back to the bytes of the file.
///
/// ```
/// use bryo_frontend::{decode, Span, TextEncoding};
///
/// let d = decode(b"\xFF\xFEh\0i\0")?; // "hi" in UTF-16LE with a BOM
/// assert_eq!(d.text(), "hi");
/// assert_eq!(d.encoding(), TextEncoding::Utf16Le);
/// assert_eq!(d.original_range(Span::new(1, 2)), 4..6);
/// assert!(decode(b"ab\0c").is_err()); // binary
/// # Ok::<(), bryo_frontend::DecodeError>(())
/// ```
pub fn decode(bytes: &[u8]) -> Result<Decoded<'_>, DecodeError> {
    if let Some(body) = bytes.strip_prefix(UTF8_BOM) {
        return decode_8bit(body, UTF8_BOM.len(), TextEncoding::Utf8Bom);
    }
    match bytes {
        [0xFF, 0xFE, body @ ..] => decode_utf16(body, false),
        [0xFE, 0xFF, body @ ..] => decode_utf16(body, true),
        _ => decode_8bit(bytes, 0, TextEncoding::Utf8),
    }
}

fn check_len(len: usize) -> Result<(), DecodeError> {
    if len > u32::MAX as usize {
        Err(DecodeError::TooLarge { len })
    } else {
        Ok(())
    }
}

/// UTF-8 (after `skip` bytes of byte-order mark), else Windows-1252.
fn decode_8bit(
    body: &[u8],
    skip: usize,
    encoding: TextEncoding,
) -> Result<Decoded<'_>, DecodeError> {
    if let Some(i) = memchr::memchr(0, body) {
        return Err(DecodeError::Binary { offset: skip + i });
    }
    match std::str::from_utf8(body) {
        Ok(text) => {
            check_len(text.len())?;
            Ok(Decoded {
                text: Cow::Borrowed(text),
                encoding,
                map: OffsetMap::Shift(skip),
                fallback_at: None,
                truncated_at: None,
            })
        }
        Err(e) if e.error_len().is_none() && !body[..e.valid_up_to()].is_ascii() => {
            // Valid UTF-8 cut short inside its last character (a truncated
            // file): keep it UTF-8 and replace the fragment. Only when the
            // rest holds other UTF-8 characters: `caf\xE9` alone is far more
            // likely Windows-1252 than a truncated file.
            let valid = e.valid_up_to();
            let mut text = String::with_capacity(valid + 3);
            text.push_str(std::str::from_utf8(&body[..valid]).unwrap_or_default());
            text.push(char::REPLACEMENT_CHARACTER);
            check_len(text.len())?;
            let runs = vec![
                Run {
                    text_start: 0,
                    file_start: skip,
                    text_unit: 1,
                    file_unit: 1,
                },
                Run {
                    text_start: valid as u32,
                    file_start: skip + valid,
                    text_unit: 3,
                    file_unit: (body.len() - valid) as u8,
                },
            ];
            Ok(Decoded {
                text: Cow::Owned(text),
                encoding,
                map: OffsetMap::Runs {
                    runs,
                    file_len: skip + body.len(),
                },
                fallback_at: None,
                truncated_at: Some(skip + valid),
            })
        }
        Err(e) => {
            let (text, _) = encoding_rs::WINDOWS_1252.decode_without_bom_handling(body);
            check_len(text.len())?;
            // Every byte is one character in Windows-1252.
            let mut map = RunBuilder::new(skip);
            for c in text.chars() {
                map.push(c.len_utf8() as u8, 1);
            }
            Ok(Decoded {
                text: Cow::Owned(text.into_owned()),
                encoding: TextEncoding::Windows1252,
                map: map.finish(),
                fallback_at: Some(skip + e.valid_up_to()),
                truncated_at: None,
            })
        }
    }
}

/// UTF-16 after its 2-byte byte-order mark. Unpaired surrogates and a final
/// odd byte become U+FFFD.
fn decode_utf16(body: &[u8], big_endian: bool) -> Result<Decoded<'static>, DecodeError> {
    const BOM_LEN: usize = 2;
    let unit = |p: &[u8]| {
        let b = [p[0], p[1]];
        if big_endian {
            u16::from_be_bytes(b)
        } else {
            u16::from_le_bytes(b)
        }
    };
    let pairs = body.chunks_exact(2);
    let odd = !pairs.remainder().is_empty();
    if let Some(i) = pairs.clone().position(|p| unit(p) == 0) {
        return Err(DecodeError::Binary {
            offset: BOM_LEN + 2 * i,
        });
    }
    let mut text = String::with_capacity(body.len() / 2 + body.len() / 8);
    let mut map = RunBuilder::new(BOM_LEN);
    for r in char::decode_utf16(pairs.map(unit)) {
        let c = r.unwrap_or(char::REPLACEMENT_CHARACTER);
        let file_unit = if c as u32 > 0xFFFF { 4 } else { 2 };
        text.push(c);
        map.push(c.len_utf8() as u8, file_unit);
    }
    if odd {
        text.push(char::REPLACEMENT_CHARACTER);
        map.push(3, 1);
    }
    check_len(text.len())?;
    Ok(Decoded {
        text: Cow::Owned(text),
        encoding: if big_endian {
            TextEncoding::Utf16Be
        } else {
            TextEncoding::Utf16Le
        },
        map: map.finish(),
        fallback_at: None,
        truncated_at: None,
    })
}
