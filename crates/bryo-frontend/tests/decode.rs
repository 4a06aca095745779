//! Decoding: each encoding, binary detection, and the map from spans of the
//! decoded text back to the file's bytes.

use bryo_frontend::{decode, normalize_text, DecodeError, Span, TextEncoding, TextMode};
use proptest::prelude::*;

const SAMPLE: &str = "Grüße, naïve café — 𝄞 ok\r\nline two\rthree";

fn utf16(s: &str, big_endian: bool) -> Vec<u8> {
    let mut v = if big_endian {
        vec![0xFE, 0xFF]
    } else {
        vec![0xFF, 0xFE]
    };
    for u in s.encode_utf16() {
        v.extend(if big_endian {
            u.to_be_bytes()
        } else {
            u.to_le_bytes()
        });
    }
    v
}

/// Every character's span maps to exactly the bytes that encode it.
fn check_char_map(file: &[u8], expect_char_bytes: impl Fn(char) -> Vec<u8>) {
    let d = decode(file).unwrap();
    for (i, c) in d.text().char_indices() {
        let span = Span::new(i as u32, (i + c.len_utf8()) as u32);
        let r = d.original_range(span);
        assert_eq!(file[r].to_vec(), expect_char_bytes(c), "char {c:?} at {i}");
    }
}

#[test]
fn utf8_without_bom_is_borrowed_and_identity_mapped() {
    let d = decode(SAMPLE.as_bytes()).unwrap();
    assert_eq!(d.text(), SAMPLE);
    assert_eq!(d.encoding(), TextEncoding::Utf8);
    assert!(d.is_borrowed());
    assert_eq!(d.note(), None);
    assert_eq!(d.original_range(Span::new(3, 9)), 3..9);
    check_char_map(SAMPLE.as_bytes(), |c| c.to_string().into_bytes());
}

#[test]
fn utf8_bom_is_stripped_and_shifted() {
    let mut file = b"\xEF\xBB\xBF".to_vec();
    file.extend(SAMPLE.as_bytes());
    let d = decode(&file).unwrap();
    assert_eq!(d.text(), SAMPLE);
    assert_eq!(d.encoding(), TextEncoding::Utf8Bom);
    assert_eq!(d.original_range(Span::new(0, 5)), 3..8);
    check_char_map(&file, |c| c.to_string().into_bytes());
}

#[test]
fn utf16_both_byte_orders() {
    for (be, enc) in [
        (false, TextEncoding::Utf16Le),
        (true, TextEncoding::Utf16Be),
    ] {
        let file = utf16(SAMPLE, be);
        let d = decode(&file).unwrap();
        assert_eq!(d.text(), SAMPLE);
        assert_eq!(d.encoding(), enc);
        assert!(!d.is_borrowed());
        check_char_map(&file, |c| utf16(&c.to_string(), be)[2..].to_vec());
        // A whole-text span covers everything after the BOM.
        let all = Span::new(0, SAMPLE.len() as u32);
        assert_eq!(d.original_range(all), 2..file.len());
    }
}

#[test]
fn utf16_repairs_unpaired_surrogates_and_odd_tail() {
    // "a", unpaired high surrogate, "b", then one stray byte.
    let file = [0xFF, 0xFE, b'a', 0, 0x00, 0xD8, b'b', 0, b'c'];
    let d = decode(&file).unwrap();
    assert_eq!(d.text(), "a\u{FFFD}b\u{FFFD}");
    let b_at = d.text().find('b').unwrap() as u32;
    assert_eq!(d.original_range(Span::new(b_at, b_at + 1)), 6..8);
    let tail = d.text().len() as u32;
    assert_eq!(d.original_range(Span::new(tail - 3, tail)), 8..9);
}

#[test]
fn invalid_utf8_falls_back_to_windows_1252() {
    // "Caf\xE9 \x93quoted\x94 \x80" in Windows-1252.
    let file = b"Caf\xE9 \x93quoted\x94 \x80";
    let d = decode(file).unwrap();
    assert_eq!(d.text(), "Café \u{201C}quoted\u{201D} €");
    assert_eq!(d.encoding(), TextEncoding::Windows1252);
    assert_eq!(d.fallback_offset(), Some(3));
    assert_eq!(
        d.note().as_deref(),
        Some("decoded as windows-1252: invalid UTF-8 at offset 3")
    );
    for (i, c) in d.text().char_indices() {
        let span = Span::new(i as u32, (i + c.len_utf8()) as u32);
        let r = d.original_range(span);
        assert_eq!(r.len(), 1, "{c:?}");
        let (back, _, _) = encoding_rs::WINDOWS_1252.encode(&d.text()[span.range()]);
        assert_eq!(&file[r], &back[..]);
    }
    // A word span maps back to the word's bytes.
    let n = normalize_text(d.text(), TextMode::Words);
    assert_eq!(&file[d.original_range(n.spans[0])], b"Caf\xE9");
    assert_eq!(&file[d.original_range(n.spans[1])], b"quoted");
}

#[test]
fn invalid_utf8_after_a_bom_falls_back_too() {
    let file = b"\xEF\xBB\xBFna\xEFve";
    let d = decode(file).unwrap();
    assert_eq!(d.text(), "naïve");
    assert_eq!(d.fallback_offset(), Some(5));
    assert_eq!(d.original_range(Span::new(2, 4)), 5..6);
}

#[test]
fn a_truncated_utf8_file_stays_utf8() {
    let full = "naïve 𝄞".as_bytes();
    let file = &full[..full.len() - 2]; // cut inside the last character
    let d = decode(file).unwrap();
    assert_eq!(d.text(), "naïve \u{FFFD}");
    assert_eq!(d.encoding(), TextEncoding::Utf8);
    assert_eq!(d.truncated_offset(), Some(7));
    assert_eq!(d.fallback_offset(), None);
    assert_eq!(
        d.note().as_deref(),
        Some("incomplete UTF-8 character at offset 7 (end of file) replaced")
    );
    assert_eq!(d.original_range(Span::new(2, 4)), 2..4); // "ï"
    assert_eq!(d.original_range(Span::new(7, 10)), 7..9); // the fragment
                                                          // Without other UTF-8 characters, a final high byte is Windows-1252.
    let d = decode(b"caf\xE9").unwrap();
    assert_eq!(d.text(), "café");
    assert_eq!(d.encoding(), TextEncoding::Windows1252);
}

#[test]
fn nul_bytes_mean_binary() {
    let e = decode(b"text\0more").unwrap_err();
    assert_eq!(e, DecodeError::Binary { offset: 4 });
    assert_eq!(e.to_string(), "binary file (NUL byte at offset 4)");
    assert_eq!(
        decode(b"\xEF\xBB\xBF\0").unwrap_err(),
        DecodeError::Binary { offset: 3 }
    );
    // UTF-16 text has zero bytes; only a NUL code unit makes it binary.
    assert!(decode(&utf16("fine", false)).is_ok());
    let mut file = utf16("ab", true);
    file.extend([0, 0]);
    assert_eq!(
        decode(&file).unwrap_err(),
        DecodeError::Binary { offset: 6 }
    );
    // Invalid UTF-8 with a NUL is binary, not windows-1252.
    assert!(decode(b"\xFF\0").is_err());
}

#[test]
fn empty_and_bom_only_files_are_empty_text() {
    assert_eq!(decode(b"").unwrap().text(), "");
    assert_eq!(decode(b"\xEF\xBB\xBF").unwrap().text(), "");
    assert_eq!(decode(b"\xFF\xFE").unwrap().text(), "");
}

proptest! {
    #[test]
    fn arbitrary_bytes_decode_or_are_binary(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        match decode(&bytes) {
            Ok(d) => {
                let len = d.text().len() as u32;
                // The whole text maps into the file, and maps monotonically.
                let mut last = 0;
                for (i, c) in d.text().char_indices() {
                    let r = d.original_range(Span::new(i as u32, i as u32 + c.len_utf8() as u32));
                    prop_assert!(r.start >= last && r.start < r.end && r.end <= bytes.len());
                    last = r.end;
                }
                prop_assert!(d.original_range(Span::new(len, len)).end <= bytes.len());
            }
            Err(DecodeError::Binary { offset }) => prop_assert!(offset < bytes.len()),
            Err(e) => prop_assert!(false, "unexpected {e}"),
        }
    }

    #[test]
    fn utf16_round_trips(s in "\\PC{0,40}", be in any::<bool>()) {
        prop_assume!(!s.contains('\0'));
        let file = utf16(&s, be);
        let d = decode(&file).unwrap();
        prop_assert_eq!(d.text(), s.as_str());
        for (i, c) in s.char_indices() {
            let r = d.original_range(Span::new(i as u32, (i + c.len_utf8()) as u32));
            prop_assert_eq!(file[r].to_vec(), utf16(&c.to_string(), be)[2..].to_vec());
        }
    }
}

/// Without its text, a decoded file keeps everything a report needs: the
/// encoding, the note and the map back to the file's bytes, the same as
/// the owned copy with its text released.
#[test]
fn without_text_keeps_the_map_and_the_note() {
    let mut latin1 = b"caf\xe9 ok\r\n".to_vec();
    latin1.extend_from_slice("more text".as_bytes());
    for file in [
        utf16(SAMPLE, false),
        utf16(SAMPLE, true),
        [b"\xEF\xBB\xBF".as_slice(), SAMPLE.as_bytes()].concat(),
        latin1,
    ] {
        let d = decode(&file).unwrap();
        let len = d.text().len() as u32;
        let spans: Vec<Span> = d
            .text()
            .char_indices()
            .map(|(i, c)| Span::new(i as u32, (i + c.len_utf8()) as u32))
            .collect();
        let mut released = d.clone().into_owned();
        released.release_text();
        let bare = d.without_text();
        assert_eq!(bare.text(), "");
        assert_eq!(bare.encoding(), released.encoding());
        assert_eq!(bare.note(), released.note());
        for span in spans {
            assert_eq!(bare.original_range(span), released.original_range(span));
        }
        assert_eq!(bare.original_offset(len), file.len());
    }
}
