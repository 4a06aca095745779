//! The stored form of a document: its normalized symbols with their spans,
//! and its source bytes, each compressed with zstd.
//!
//! Symbol stream layout before compression (little-endian): `n: u32`, then
//! `n` symbols (`u64`), then `n` spans as `start: u32` and the span's
//! length `end - start: u32`.

use bryo_frontend::{Normalized, Span};

/// zstd level: fast to write, and the decompression speed does not depend
/// on it.
const LEVEL: i32 = 3;

/// The compressed symbol stream of `normalized`.
pub(crate) fn encode_stream(normalized: &Normalized) -> Vec<u8> {
    let n = normalized.symbols.len();
    let mut raw = Vec::with_capacity(4 + n * 16);
    raw.extend_from_slice(&(n as u32).to_le_bytes());
    for s in &normalized.symbols {
        raw.extend_from_slice(&s.to_le_bytes());
    }
    for span in &normalized.spans {
        raw.extend_from_slice(&span.start.to_le_bytes());
        raw.extend_from_slice(&(span.end - span.start).to_le_bytes());
    }
    compress(&raw)
}

/// The symbols and spans back from [`encode_stream`]'s output; `Err` says
/// what is wrong with damaged data.
pub(crate) fn decode_stream(data: &[u8]) -> Result<Normalized, String> {
    let raw = decompress(data)?;
    let n = raw
        .get(..4)
        .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")) as usize)
        .ok_or("the stream is shorter than its header")?;
    if raw.len() != 4 + n * 16 {
        return Err(format!(
            "the stream holds {} bytes, {} symbols need {}",
            raw.len(),
            n,
            4 + n * 16
        ));
    }
    let (symbol_bytes, span_bytes) = raw[4..].split_at(n * 8);
    let symbols = symbol_bytes
        .chunks_exact(8)
        .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
        .collect();
    let mut spans = Vec::with_capacity(n);
    for b in span_bytes.chunks_exact(8) {
        let start = u32::from_le_bytes(b[..4].try_into().expect("4 bytes"));
        let len = u32::from_le_bytes(b[4..].try_into().expect("4 bytes"));
        let end = start.checked_add(len).ok_or("a span ends beyond 4 GiB")?;
        spans.push(Span { start, end });
    }
    Ok(Normalized { symbols, spans })
}

/// zstd-compressed bytes.
pub(crate) fn compress(bytes: &[u8]) -> Vec<u8> {
    zstd::bulk::compress(bytes, LEVEL).expect("compressing into memory cannot fail")
}

/// Bytes back from [`compress`].
pub(crate) fn decompress(data: &[u8]) -> Result<Vec<u8>, String> {
    zstd::stream::decode_all(data).map_err(|e| format!("zstd: {e}"))
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
            let back = decode_stream(&encode_stream(&normalized)).unwrap();
            prop_assert_eq!(back.symbols, normalized.symbols);
            prop_assert_eq!(back.spans, normalized.spans);
        }

        #[test]
        fn damaged_streams_are_errors_not_panics(items in proptest::collection::vec(any::<u64>(), 1..50), cut in any::<prop::sample::Index>(), flip in any::<prop::sample::Index>()) {
            let normalized = Normalized {
                spans: items.iter().map(|_| Span { start: 0, end: 1 }).collect(),
                symbols: items,
            };
            let data = encode_stream(&normalized);
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
