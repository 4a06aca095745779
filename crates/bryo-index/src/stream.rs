//! The stored form of a document: its normalized symbols with their spans,
//! and its source bytes, each compressed with zstd.
//!
//! Symbol stream layout before compression: `n` (the number of symbols),
//! `d` (distinct symbols), the `d` distinct symbols as little-endian `u64`
//! in order of first appearance, then for each symbol its index in that
//! table, then for each span the distance of its start from the previous
//! span's start (zigzag, spans of tree-sitter front-ends may step back)
//! and its length. Every count, index and distance is a LEB128 varint. A
//! source file has few distinct symbols and short, close spans, so most
//! symbols take three bytes before zstd.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use bryo_frontend::{Normalized, Span};

/// zstd level: fast to write, and the decompression speed does not depend
/// on it.
const LEVEL: i32 = 3;

fn put(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Reads varints from a byte slice; every read past the end or beyond 64
/// bits is an error.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn varint(&mut self) -> Result<u64, String> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = *self
                .bytes
                .get(self.at)
                .ok_or("the stream ends inside a number")?;
            self.at += 1;
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err("a number longer than 64 bits".to_string())
    }

    fn u64(&mut self) -> Result<u64, String> {
        let b = self
            .bytes
            .get(self.at..self.at + 8)
            .ok_or("the stream ends inside a symbol")?;
        self.at += 8;
        Ok(u64::from_le_bytes(b.try_into().expect("8 bytes")))
    }

    fn u32(&mut self) -> Result<u32, String> {
        u32::try_from(self.varint()?).map_err(|_| "a span beyond 4 GiB".to_string())
    }
}

/// Symbols are already hashes: one multiply spreads them over the table
/// (SipHash would cost more than the rest of the encoding).
#[derive(Default)]
struct SymbolHasher(u64);

impl Hasher for SymbolHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (v ^ (v >> 29)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    }
}

/// The compressed symbol stream of `symbols` and their `spans`.
pub(crate) fn encode_stream(symbols: &[u64], spans: impl IntoIterator<Item = Span>) -> Vec<u8> {
    let n = symbols.len();
    let mut table: HashMap<u64, u64, BuildHasherDefault<SymbolHasher>> = HashMap::default();
    let mut distinct = Vec::new();
    let mut indexes = Vec::with_capacity(n);
    for &s in symbols {
        let next = table.len() as u64;
        let i = *table.entry(s).or_insert_with(|| {
            distinct.push(s);
            next
        });
        indexes.push(i);
    }
    let mut raw = Vec::with_capacity(8 + distinct.len() * 8 + n * 3);
    put(&mut raw, n as u64);
    put(&mut raw, distinct.len() as u64);
    for s in distinct {
        raw.extend_from_slice(&s.to_le_bytes());
    }
    for i in indexes {
        put(&mut raw, i);
    }
    let mut previous = 0i64;
    for span in spans {
        let delta = i64::from(span.start) - previous;
        put(&mut raw, ((delta << 1) ^ (delta >> 63)) as u64);
        put(&mut raw, u64::from(span.end - span.start));
        previous = i64::from(span.start);
    }
    compress(&raw)
}

/// The symbols and spans back from [`encode_stream`]'s output; `Err` says
/// what is wrong with damaged data.
pub(crate) fn decode_stream(data: &[u8]) -> Result<Normalized, String> {
    let raw = decompress(data)?;
    let mut r = Reader { bytes: &raw, at: 0 };
    let n = r.varint()?;
    let d = r.varint()?;
    // Every symbol takes at least two bytes and every table entry eight:
    // counts beyond the data are damage, not allocations to make.
    if n.saturating_mul(3) > raw.len() as u64 || d.saturating_mul(8) > raw.len() as u64 {
        return Err("counts larger than the stream".to_string());
    }
    let table: Vec<u64> = (0..d).map(|_| r.u64()).collect::<Result<_, _>>()?;
    let mut symbols = Vec::with_capacity(n as usize);
    for _ in 0..n {
        let i = r.varint()?;
        symbols.push(
            *table
                .get(i as usize)
                .ok_or("a symbol index beyond the table")?,
        );
    }
    let mut spans = Vec::with_capacity(n as usize);
    let mut previous = 0i64;
    for _ in 0..n {
        let z = r.varint()?;
        let delta = ((z >> 1) as i64) ^ -((z & 1) as i64);
        let start = u32::try_from(previous + delta).map_err(|_| "a span outside 0..4 GiB")?;
        let end = start
            .checked_add(r.u32()?)
            .ok_or("a span ends beyond 4 GiB")?;
        spans.push(Span { start, end });
        previous = i64::from(start);
    }
    if r.at != raw.len() {
        return Err("bytes after the last span".to_string());
    }
    Ok(Normalized { symbols, spans })
}

/// zstd-compressed bytes.
pub(crate) fn compress(bytes: &[u8]) -> Vec<u8> {
    zstd::bulk::compress(bytes, LEVEL).expect("compressing into memory cannot fail")
}

/// Bytes back from [`compress`]. One decompression context per thread:
/// archived documents are many and small, and creating a context costs
/// more than decompressing one of them.
pub(crate) fn decompress(data: &[u8]) -> Result<Vec<u8>, String> {
    thread_local! {
        static CONTEXT: std::cell::RefCell<Option<zstd::bulk::Decompressor<'static>>> =
            const { std::cell::RefCell::new(None) };
    }
    let size = match zstd::zstd_safe::get_frame_content_size(data) {
        Ok(Some(size)) => size,
        // Frames written by `compress` always record their size.
        _ => return Err("zstd: not a frame with its content size".to_string()),
    };
    // A damaged header must not make us allocate more than a frame of this
    // many bytes can hold (a 128 KiB block takes at least 4 bytes).
    if size > (data.len() as u64).saturating_mul(1 << 16) {
        return Err("zstd: a content size larger than the frame can hold".to_string());
    }
    CONTEXT.with(|cell| {
        let mut context = cell.borrow_mut();
        if context.is_none() {
            *context = Some(zstd::bulk::Decompressor::new().map_err(|e| format!("zstd: {e}"))?);
        }
        let d = context.as_mut().expect("created above");
        let out = d
            .decompress(data, size as usize)
            .map_err(|e| format!("zstd: {e}"))?;
        if out.len() as u64 != size {
            return Err("zstd: the frame is shorter than its recorded size".to_string());
        }
        Ok(out)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn streams_round_trip(items in proptest::collection::vec((any::<u64>(), 0u32..1 << 30, 0u32..1000), 0..300)) {
            let normalized = Normalized {
                symbols: items.iter().map(|i| i.0).collect(),
                spans: items.iter().map(|i| Span { start: i.1, end: i.1 + i.2 }).collect(),
            };
            let back = decode_stream(&encode_stream(&normalized.symbols, normalized.spans.iter().copied())).unwrap();
            prop_assert_eq!(back.symbols, normalized.symbols);
            prop_assert_eq!(back.spans, normalized.spans);
        }

        #[test]
        fn damaged_streams_are_errors_not_panics(items in proptest::collection::vec(any::<u64>(), 1..50), cut in any::<prop::sample::Index>(), flip in any::<prop::sample::Index>()) {
            let normalized = Normalized {
                spans: items.iter().map(|_| Span { start: 0, end: 1 }).collect(),
                symbols: items,
            };
            let data = encode_stream(&normalized.symbols, normalized.spans.iter().copied());
            let truncated = &data[..cut.index(data.len())];
            prop_assert!(decode_stream(truncated).is_err());
            let mut flipped = data.clone();
            let i = flip.index(flipped.len());
            flipped[i] ^= 0x5a;
            // A flipped byte either fails to decode or decodes to a
            // well-formed stream; it never panics. (The catalogue's
            // checksum of the symbols catches the second case.)
            let _ = decode_stream(&flipped);
        }
    }
}
