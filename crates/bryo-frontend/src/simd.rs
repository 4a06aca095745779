//! Explicit SIMD for the line index: AVX2 finds a 64-byte block's line ends
//! as two bit masks; and for the lexer, SSE2 (every x86-64 processor has it)
//! tells sixteen bytes at a time which are identifier characters or layout.
//! This module holds all of the crate's `unsafe` code.
//!
//! Source lines are short (about forty bytes), so a search that stops at
//! every line end (memchr) spends most of its time starting over. Here each
//! block costs two vector compares per byte value, and its line starts are
//! written four at a time without a branch per line, the count moved on by
//! the mask's population (a block with more than four goes on in a loop).
//!
//! The processor is checked once, at first use, with
//! `is_x86_feature_detected!`; the environment variable `BRYO_NO_SIMD` (set
//! to anything but `0` or the empty string) turns the vector path off for the
//! whole process, as it does in `bryo-engine`. Without it the line index
//! uses memchr, with the same results. The lexer's SSE2 scans need no
//! check (SSE2 is part of x86-64) and are always used there; elsewhere the
//! lexer reads eight bytes at a time in plain integers, with the same
//! results (tests hold both to the byte table).

use std::sync::OnceLock;

/// Whether the AVX2 path is used: the processor has AVX2 and `BRYO_NO_SIMD`
/// is not set. Checked once per process.
pub(crate) fn available() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| {
        let off = std::env::var_os("BRYO_NO_SIMD").is_some_and(|v| !v.is_empty() && v != "0");
        !off && hardware()
    })
}

/// Whether the processor has AVX2.
fn hardware() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Appends to `starts` the line start after every line end of `text`
/// (`\n`, `\r\n`, a lone `\r`), if the AVX2 path is available; `false`,
/// with `starts` unchanged, if not. Offsets must fit in `u32`.
pub(crate) fn line_starts(text: &[u8], starts: &mut Vec<u32>) -> bool {
    if !available() {
        return false;
    }
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: the processor has AVX2 (`available` checked it).
        #[allow(unsafe_code)]
        unsafe {
            avx2::line_starts(text, starts)
        };
        true
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (text, starts);
        false
    }
}

/// Bit `j` set for each byte `s[i + j]`, `j < 16`, that is not an ASCII
/// letter, digit or `_` and is below 0x80: where an identifier of every
/// lexer stops, but for a language's own extra characters. `None` where
/// fewer than sixteen bytes are left, or off x86-64.
#[inline]
pub(crate) fn non_ident_16(s: &[u8], i: usize) -> Option<u32> {
    sixteen(s, i, Class::Ident)
}

/// Bit `j` set for each byte `s[i + j]`, `j < 16`, that is not
/// whitespace (tab, line feed, vertical tab, form feed, carriage return,
/// space: the lexers' layout). `None` where fewer than sixteen bytes are
/// left, or off x86-64.
#[inline]
pub(crate) fn non_space_16(s: &[u8], i: usize) -> Option<u32> {
    sixteen(s, i, Class::Space)
}

/// The byte classes the lexer's sixteen-byte scans tell.
#[derive(Clone, Copy)]
enum Class {
    Ident,
    Space,
}

/// The bits of the bytes of `s[i..i + 16]` outside `class`.
#[inline]
fn sixteen(s: &[u8], i: usize, class: Class) -> Option<u32> {
    #[cfg(target_arch = "x86_64")]
    {
        let chunk = s.get(i..i.checked_add(16)?)?;
        Some(sse2::outside(chunk, class))
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (s, i, class);
        None
    }
}

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod sse2 {
    use std::arch::x86_64::*;

    /// Where `x - lo` is below `n` as unsigned bytes (flipped to signed:
    /// below `n - 128`), all ones.
    #[target_feature(enable = "sse2")]
    #[inline]
    fn below(x: __m128i, lo: u8, n: i8) -> __m128i {
        let d = _mm_xor_si128(
            _mm_sub_epi8(x, _mm_set1_epi8(lo as i8)),
            _mm_set1_epi8(i8::MIN),
        );
        _mm_cmplt_epi8(d, _mm_set1_epi8(n.wrapping_add(i8::MIN)))
    }

    /// Sixteen bytes from the start of `chunk` (at least that long).
    #[target_feature(enable = "sse2")]
    #[inline]
    fn load(chunk: &[u8]) -> __m128i {
        assert!(chunk.len() >= 16);
        // SAFETY: the chunk holds at least 16 bytes, what an unaligned load
        // reads.
        unsafe { _mm_loadu_si128(chunk.as_ptr().cast::<__m128i>()) }
    }

    /// The bits of the bytes of a chunk of at least sixteen bytes outside
    /// `class` ([`super::non_ident_16`], [`super::non_space_16`]).
    #[inline]
    pub(super) fn outside(chunk: &[u8], class: super::Class) -> u32 {
        match class {
            // SAFETY: SSE2 is part of x86-64 (enabled in every x86_64
            // target's configuration).
            super::Class::Ident => unsafe { non_ident_sse2(chunk) },
            // SAFETY: as above.
            super::Class::Space => unsafe { non_space_sse2(chunk) },
        }
    }

    #[target_feature(enable = "sse2")]
    #[inline]
    fn non_ident_sse2(chunk: &[u8]) -> u32 {
        let v = load(chunk);
        // With bit 5 set, upper-case letters are lower-case ones and no
        // other byte below 0x80 becomes a letter.
        let letters = below(_mm_or_si128(v, _mm_set1_epi8(0x20)), b'a', 26);
        let digits = below(v, b'0', 10);
        let underscore = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'_' as i8));
        let ident = _mm_or_si128(_mm_or_si128(letters, digits), underscore);
        // Bytes from 0x80 (their high bit, what the mask reads) count too.
        let inside = _mm_movemask_epi8(_mm_or_si128(ident, v)) as u32;
        !inside & 0xffff
    }

    #[target_feature(enable = "sse2")]
    #[inline]
    fn non_space_sse2(chunk: &[u8]) -> u32 {
        let v = load(chunk);
        let controls = below(v, 0x09, 5);
        let space = _mm_cmpeq_epi8(v, _mm_set1_epi8(b' ' as i8));
        !(_mm_movemask_epi8(_mm_or_si128(controls, space)) as u32) & 0xffff
    }
}

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod avx2 {
    use std::arch::x86_64::*;

    /// Bytes one step reads.
    const BLOCK: usize = 64;

    /// The line ends of one block, from its masks of `\n` (`lf`) and `\r`
    /// (`cr`): bit `i` set where a line ends at byte `i`, the next line starting
    /// at `i + 1`. A `\r\n` ends its line at the `\n`; `first_is_crlf_tail`
    /// says byte 0 is the `\n` of a `\r\n` the previous block's last byte began
    /// (its line end was counted there).
    #[inline]
    fn block_ends(lf: u64, cr: u64, first_is_crlf_tail: bool) -> u64 {
        let lf = lf & !u64::from(first_is_crlf_tail);
        if cr == 0 {
            return lf;
        }
        // `\r` at i with `\n` at i + 1: the line ends at i + 1 instead.
        let crlf = cr & (lf >> 1);
        (cr & !crlf) | lf
    }

    /// [`super::line_starts`] on AVX2.
    ///
    /// # Safety
    /// The processor must have AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn line_starts(text: &[u8], starts: &mut Vec<u32>) {
        let (nl, cr_byte) = (_mm256_set1_epi8(b'\n' as i8), _mm256_set1_epi8(b'\r' as i8));
        let mut blocks = text.chunks_exact(BLOCK);
        let mut off = 0usize;
        let mut tail = false;
        for block in &mut blocks {
            let (first, second) = block.split_at(32);
            // SAFETY: each half of the block is 32 bytes, what an unaligned
            // load reads.
            let v0 = unsafe { _mm256_loadu_si256(first.as_ptr().cast::<__m256i>()) };
            // SAFETY: as above.
            let v1 = unsafe { _mm256_loadu_si256(second.as_ptr().cast::<__m256i>()) };
            let bits = |needle: __m256i| {
                let lo = _mm256_movemask_epi8(_mm256_cmpeq_epi8(v0, needle)) as u32;
                let hi = _mm256_movemask_epi8(_mm256_cmpeq_epi8(v1, needle)) as u32;
                u64::from(lo) | u64::from(hi) << 32
            };
            let (lf, cr) = (bits(nl), bits(cr_byte));
            let mut ends = block_ends(lf, cr, tail);
            let at = off as u32;
            // A `\r` closing the block with a `\n` opening the next: the
            // line ends at that `\n`, the next block's first byte.
            tail = cr >> 63 == 1 && text.get(off + BLOCK) == Some(&b'\n');
            if tail {
                ends &= !(1 << 63);
            }
            push_ends(starts, ends, at + 1);
            if tail {
                starts.push(at + BLOCK as u32 + 1);
            }
            off += BLOCK;
        }
        let at = off as u32;
        let rest = blocks.remainder();
        let mut i = usize::from(tail);
        while i < rest.len() {
            match rest[i] {
                b'\n' => starts.push(at + i as u32 + 1),
                b'\r' => {
                    if rest.get(i + 1) == Some(&b'\n') {
                        i += 1;
                    }
                    starts.push(at + i as u32 + 1);
                }
                _ => {}
            }
            i += 1;
        }
    }

    /// Appends `first + i` for every bit `i` set in `ends`, in order: four
    /// written whatever the count (spare capacity), the length moved on by
    /// the count, a loop for the rest.
    #[inline]
    fn push_ends(starts: &mut Vec<u32>, mut ends: u64, first: u32) {
        let count = ends.count_ones() as usize;
        starts.reserve(BLOCK);
        let spare = starts.spare_capacity_mut();
        for slot in spare.iter_mut().take(4) {
            slot.write(first + ends.trailing_zeros());
            ends &= ends.wrapping_sub(1);
        }
        if count > 4 {
            for slot in spare.iter_mut().take(count).skip(4) {
                slot.write(first + ends.trailing_zeros());
                ends &= ends.wrapping_sub(1);
            }
        }
        let len = starts.len() + count;
        // SAFETY: the first `count` spare slots were written just above
        // (`reserve` left at least 64 ≥ count of them).
        unsafe { starts.set_len(len) };
    }
}
