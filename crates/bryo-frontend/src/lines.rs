/// Turns byte offsets of a text into 1-based line and column numbers.
///
/// Built once per file in one pass (line starts found with a byte scan); each
/// look-up is a binary search. Lines end at `\n`, `\r\n` or a lone `\r`.
/// Columns count bytes from 1.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LineIndex {
    /// Offset of the first byte of every line; `starts[0] == 0`.
    starts: Vec<u32>,
    len: u32,
}

impl LineIndex {
    /// Indexes `text`.
    pub fn new(text: &[u8]) -> Self {
        let mut starts = Vec::with_capacity(text.len() / 32 + 1);
        starts.push(0);
        // A block of 64 bytes at a time with AVX2, else memchr.
        if !crate::simd::line_starts(text, &mut starts) {
            push_starts(text, &mut starts);
        }
        LineIndex {
            starts,
            len: text.len() as u32,
        }
    }

    /// Number of lines (a text without a final line end still has its last
    /// line; an empty text has one empty line).
    pub fn line_count(&self) -> u32 {
        let n = self.starts.len() as u32;
        // A final line end opens no new line.
        if n > 1 && *self.starts.last().unwrap() == self.len {
            n - 1
        } else {
            n
        }
    }

    /// The 1-based line holding byte `offset` (offsets past the end count as
    /// the last line).
    pub fn line(&self, offset: u32) -> u32 {
        self.starts.partition_point(|&s| s <= offset) as u32
    }

    /// The 1-based `(line, column)` of byte `offset`.
    pub fn line_col(&self, offset: u32) -> (u32, u32) {
        let line = self.line(offset);
        let start = self.starts[line as usize - 1];
        (line, offset - start + 1)
    }

    /// Byte offset of the first byte of 1-based `line`, if it exists.
    pub fn line_start(&self, line: u32) -> Option<u32> {
        self.starts.get(line.checked_sub(1)? as usize).copied()
    }
}

/// Appends the line start after every line end of `text`, found with
/// memchr; `\r\n` is one line end, so the `\n` after a `\r` is passed over.
fn push_starts(text: &[u8], starts: &mut Vec<u32>) {
    let mut crlf = usize::MAX;
    for i in memchr::memchr2_iter(b'\n', b'\r', text) {
        if text[i] == b'\r' && text.get(i + 1) == Some(&b'\n') {
            crlf = i + 1;
            starts.push(i as u32 + 2);
        } else if i != crlf {
            starts.push(i as u32 + 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Line starts one byte at a time, as a reference.
    fn naive_starts(text: &[u8]) -> Vec<u32> {
        let mut starts = vec![0];
        let mut i = 0;
        while i < text.len() {
            match text[i] {
                b'\n' => starts.push(i as u32 + 1),
                b'\r' => {
                    if text.get(i + 1) == Some(&b'\n') {
                        i += 1;
                    }
                    starts.push(i as u32 + 1);
                }
                _ => {}
            }
            i += 1;
        }
        starts
    }

    proptest::proptest! {
        #[test]
        fn line_starts_equal_a_byte_by_byte_scan(
            text in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::strategy::Just(b'\n'),
                    proptest::strategy::Just(b'\r'),
                    proptest::prelude::any::<u8>(),
                ],
                0..300,
            )
        ) {
            let naive = naive_starts(&text);
            let mut memchr = vec![0];
            push_starts(&text, &mut memchr);
            proptest::prop_assert_eq!(&memchr, &naive);
            proptest::prop_assert_eq!(&LineIndex::new(&text).starts, &naive);
            let mut vector = vec![0];
            if crate::simd::line_starts(&text, &mut vector) {
                proptest::prop_assert_eq!(&vector, &naive);
            }
        }
    }

    proptest::proptest! {
        /// Long texts with few line ends, and runs of them, across many
        /// 64-byte blocks; the vector path against memchr's.
        #[test]
        fn vector_line_starts_equal_memchr(
            text in proptest::collection::vec(
                proptest::prop_oneof![
                    1 => proptest::strategy::Just(b'\n'),
                    1 => proptest::strategy::Just(b'\r'),
                    12 => proptest::prelude::any::<u8>(),
                ],
                0..2000,
            )
        ) {
            let mut memchr = vec![0];
            push_starts(&text, &mut memchr);
            proptest::prop_assert_eq!(&memchr, &naive_starts(&text));
            let mut vector = vec![0];
            if crate::simd::line_starts(&text, &mut vector) {
                proptest::prop_assert_eq!(&vector, &memchr);
            }
        }
    }

    #[test]
    fn vector_path_across_block_edges() {
        if !crate::simd::available() {
            eprintln!("SKIP: no AVX2 here (or BRYO_NO_SIMD): the vector line index is not tested");
            return;
        }
        // A `\r\n` split by a block edge, a lone `\r` closing a block, a
        // block of line ends only, and a text ending on each of them.
        let mut cases: Vec<Vec<u8>> = Vec::new();
        for at in [62, 63, 64, 65, 127, 128] {
            for end in [&b"\r\n"[..], b"\r", b"\n", b"\r\r", b"\n\r"] {
                let mut t = vec![b'x'; at];
                t.extend_from_slice(end);
                cases.push(t.clone());
                t.extend_from_slice(&[b'y'; 70]);
                cases.push(t);
            }
        }
        cases.push(vec![b'\n'; 200]);
        cases.push(b"\r\n".repeat(100));
        cases.push(vec![b'\r'; 129]);
        for text in cases {
            let mut vector = vec![0];
            assert!(crate::simd::line_starts(&text, &mut vector));
            assert_eq!(vector, naive_starts(&text), "{text:?}");
        }
    }

    #[test]
    fn all_line_ends() {
        let idx = LineIndex::new(b"a\nbc\r\nd\re");
        assert_eq!(idx.line_col(0), (1, 1));
        assert_eq!(idx.line_col(2), (2, 1));
        assert_eq!(idx.line_col(3), (2, 2));
        assert_eq!(idx.line_col(6), (3, 1));
        assert_eq!(idx.line_col(8), (4, 1));
        assert_eq!(idx.line_count(), 4);
        assert_eq!(LineIndex::new(b"x\n").line_count(), 1);
        assert_eq!(LineIndex::new(b"").line_count(), 1);
    }
}
