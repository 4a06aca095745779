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
        // Line ends found with SIMD (memchr); `\r\n` is one line end, so
        // the `\n` after a `\r` is passed over.
        let mut crlf = usize::MAX;
        for i in memchr::memchr2_iter(b'\n', b'\r', text) {
            if text[i] == b'\r' && text.get(i + 1) == Some(&b'\n') {
                crlf = i + 1;
                starts.push(i as u32 + 2);
            } else if i != crlf {
                starts.push(i as u32 + 1);
            }
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
            let index = LineIndex::new(&text);
            proptest::prop_assert_eq!(index.starts, naive_starts(&text));
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
