//! The MOSS protocol parser on arbitrary input, cut into chunks at
//! arbitrary places: it never panics, an error closes the session, and
//! every file of a query holds exactly its declared bytes within the limits.
#![no_main]

use bryo_serve::{Event, Limits, Session};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let limits = Limits {
        max_line_bytes: 256,
        max_file_bytes: 4096,
        max_job_bytes: 16384,
        max_files: 16,
    };
    // The first byte chooses the chunk size, so splits are explored too.
    let (chunk, rest) = match data.split_first() {
        Some((c, rest)) => (usize::from(*c).max(1), rest),
        None => (1, data),
    };
    let mut session = Session::new(limits);
    for piece in rest.chunks(chunk) {
        match session.feed(piece) {
            Ok(events) => {
                for event in events {
                    if let Event::Query(upload) = event {
                        assert!(upload.files.len() <= limits.max_files);
                        let total: usize = upload.files.iter().map(|f| f.bytes.len()).sum();
                        assert!(total as u64 <= limits.max_job_bytes);
                    }
                }
            }
            Err(e) => {
                assert!(!e.to_string().is_empty());
                assert!(session.is_closed());
                assert_eq!(session.feed(b"moss 1\n"), Ok(Vec::new()));
                return;
            }
        }
    }
    let _ = session.finish();
});
