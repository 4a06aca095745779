//! Decoding arbitrary bytes never panics, and every character of the text
//! maps to a non-empty, increasing range of the file.
#![no_main]

use bryo_frontend::{decode, DecodeError, Span};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    match decode(data) {
        Ok(d) => {
            let mut last = 0;
            for (i, c) in d.text().char_indices() {
                let span = Span::new(i as u32, (i + c.len_utf8()) as u32);
                let r = d.original_range(span);
                assert!(r.start >= last && r.start < r.end && r.end <= data.len());
                last = r.end;
            }
        }
        Err(DecodeError::Binary { offset }) => assert_eq!(data.get(offset).copied(), Some(0)),
        Err(_) => {}
    }
});
