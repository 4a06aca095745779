//! One pair's JSON written by hand, in either [`JsonLayout`]: on one line
//! (byte for byte what `serde_json::to_vec` writes for it) or pretty (what
//! `serde_json::to_vec_pretty` writes), indented for its place in a
//! report's `pairs` array, in one pass and without serde's per-token
//! formatter calls. A class's report is mostly its pairs' fragments, and
//! `-n 0` on a large class writes hundreds of megabytes of them.
//!
//! (`tests/report.rs` checks the bytes against `write_json_with` on random
//! reports; the unit tests below check every escaped character and the
//! numbers against serde_json.)

use crate::{Fragment, FragmentPart, JsonLayout, Location, Pair};

/// Two spaces per level, as serde_json's pretty printer indents: the
/// indentation of up to 32 levels, cut to length.
const SPACES: &[u8; 64] = &[b' '; 64];

/// Appends `pair` at `depth` levels of indentation (its opening brace
/// indented too), laid out as `layout` says, without a trailing newline.
pub(crate) fn pair(out: &mut Vec<u8>, p: &Pair, depth: usize, layout: JsonLayout) {
    indent(out, depth);
    match layout {
        JsonLayout::Lines => pair_body::<false>(out, p, depth),
        JsonLayout::Pretty => pair_body::<true>(out, p, depth),
    }
}

/// The pair from its opening brace on; `P`: pretty, else on one line.
fn pair_body<const P: bool>(out: &mut Vec<u8>, p: &Pair, depth: usize) {
    out.push(b'{');
    let d = depth + 1;
    // In the model's field order.
    key::<P>(out, d, "a", true);
    uint(out, p.a as u64);
    key::<P>(out, d, "b", false);
    uint(out, p.b as u64);
    for (name, x) in [
        ("similarity", p.similarity),
        ("a_percent", p.a_percent),
        ("b_percent", p.b_percent),
    ] {
        key::<P>(out, d, name, false);
        float(out, x);
    }
    for (name, n) in [
        ("a_lines_matched", p.a_lines_matched),
        ("b_lines_matched", p.b_lines_matched),
        ("lines_matched", p.lines_matched),
        ("longest_fragment", p.longest_fragment),
        ("shared_fingerprints", p.shared_fingerprints),
    ] {
        key::<P>(out, d, name, false);
        uint(out, n);
    }
    key::<P>(out, d, "identical", false);
    out.extend_from_slice(if p.identical { b"true" } else { b"false" });
    key::<P>(out, d, "fragments", false);
    array::<_, P>(out, d, &p.fragments, fragment::<P>);
    close::<P>(out, depth, b'}');
}

/// A fragment as the value of a key or an element at `depth`.
fn fragment<const P: bool>(out: &mut Vec<u8>, f: &Fragment, depth: usize) {
    matched::<P>(out, &f.a, &f.b, f.symbols, depth);
    // Omitted when empty (`skip_serializing_if`).
    if !f.parts.is_empty() {
        key::<P>(out, depth + 1, "parts", false);
        array::<_, P>(out, depth + 1, &f.parts, part::<P>);
    }
    close::<P>(out, depth, b'}');
}

fn part<const P: bool>(out: &mut Vec<u8>, p: &FragmentPart, depth: usize) {
    matched::<P>(out, &p.a, &p.b, p.symbols, depth);
    close::<P>(out, depth, b'}');
}

/// The opening brace and the members a fragment and a part share: where
/// it is on each side and its symbols.
fn matched<const P: bool>(
    out: &mut Vec<u8>,
    a: &Location,
    b: &Location,
    symbols: u64,
    depth: usize,
) {
    out.push(b'{');
    let d = depth + 1;
    key::<P>(out, d, "a", true);
    location::<P>(out, a, d);
    key::<P>(out, d, "b", false);
    location::<P>(out, b, d);
    key::<P>(out, d, "symbols", false);
    uint(out, symbols);
}

fn location<const P: bool>(out: &mut Vec<u8>, l: &Location, depth: usize) {
    out.push(b'{');
    let d = depth + 1;
    key::<P>(out, d, "file", true);
    string(out, &l.file);
    key::<P>(out, d, "lines", false);
    array::<_, P>(out, d, &l.lines, |out, &n, _| uint(out, n));
    key::<P>(out, d, "bytes", false);
    array::<_, P>(out, d, &l.bytes, |out, &n, _| uint(out, n));
    close::<P>(out, depth, b'}');
}

/// `[]`, or (pretty) one element per line at `depth + 1` and the closing
/// bracket at `depth`.
fn array<T, const P: bool>(
    out: &mut Vec<u8>,
    depth: usize,
    items: &[T],
    each: impl Fn(&mut Vec<u8>, &T, usize),
) {
    out.push(b'[');
    if items.is_empty() {
        out.push(b']');
        return;
    }
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        if P {
            out.push(b'\n');
            indent(out, depth + 1);
        }
        each(out, item, depth + 1);
    }
    close::<P>(out, depth, b']');
}

/// A key of an object whose members sit at `depth`, with its separator.
fn key<const P: bool>(out: &mut Vec<u8>, depth: usize, name: &str, first: bool) {
    if !first {
        out.push(b',');
    }
    if P {
        out.push(b'\n');
        indent(out, depth);
    }
    out.push(b'"');
    out.extend_from_slice(name.as_bytes());
    out.extend_from_slice(if P { b"\": " } else { b"\":" });
}

/// The closing `bracket` of a non-empty object or array at `depth` (on a
/// line of its own when pretty).
fn close<const P: bool>(out: &mut Vec<u8>, depth: usize, bracket: u8) {
    if P {
        out.push(b'\n');
        indent(out, depth);
    }
    out.push(bracket);
}

fn indent(out: &mut Vec<u8>, depth: usize) {
    let mut n = 2 * depth;
    while n > 0 {
        let take = n.min(SPACES.len());
        out.extend_from_slice(&SPACES[..take]);
        n -= take;
    }
}

fn uint(out: &mut Vec<u8>, n: u64) {
    out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
}

/// A finite number as serde_json writes it (the shortest form that reads
/// back to the same `f64`); a report's numbers are checked finite before
/// they are encoded.
fn float(out: &mut Vec<u8>, x: f64) {
    debug_assert!(x.is_finite());
    // serde_json writes finite floats with ryu; writing into a vector
    // cannot fail.
    serde_json::to_writer(&mut *out, &x).expect("a finite number is written");
}

/// A JSON string, escaped as serde_json escapes: `"`, `\` and control
/// characters; everything else, non-ASCII included, as it is.
fn string(out: &mut Vec<u8>, s: &str) {
    out.push(b'"');
    let bytes = s.as_bytes();
    // Most strings (paths above all) need nothing escaped: checked eight
    // bytes at a time, then copied whole.
    if !needs_escaping(bytes) {
        out.extend_from_slice(bytes);
        out.push(b'"');
        return;
    }
    let mut from = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let escaped: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x08 => b"\\b",
            0x0c => b"\\f",
            0..=0x1f => &[],
            _ => continue,
        };
        out.extend_from_slice(&bytes[from..i]);
        if escaped.is_empty() {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.extend_from_slice(b"\\u00");
            out.push(HEX[usize::from(b >> 4)]);
            out.push(HEX[usize::from(b & 0xf)]);
        } else {
            out.extend_from_slice(escaped);
        }
        from = i + 1;
    }
    out.extend_from_slice(&bytes[from..]);
    out.push(b'"');
}

/// Whether a byte of `bytes` is `"`, `\` or a control character (below
/// 0x20), read a word at a time: for a word `w`, `(w − 0x20…) & !w`
/// has a byte's high bit set for some byte below 0x20 if there is one
/// (and never when there is none), and so has `(x − 0x01…) & !x` for
/// some zero byte of `x = w ^ c…`, a byte equal to `c`.
fn needs_escaping(bytes: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero_byte = |x: u64| x.wrapping_sub(ONES) & !x;
    let mut words = bytes.chunks_exact(8);
    for chunk in &mut words {
        let w = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
        let control = w.wrapping_sub(ONES * 0x20) & !w;
        let quote = zero_byte(w ^ (ONES * u64::from(b'"')));
        let backslash = zero_byte(w ^ (ONES * u64::from(b'\\')));
        if (control | quote | backslash) & HIGH != 0 {
            return true;
        }
    }
    words
        .remainder()
        .iter()
        .any(|&b| b < 0x20 || b == b'"' || b == b'\\')
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Strings of every length around the eight-byte words, with the
        /// characters that need escaping anywhere: serde_json's JSON.
        #[test]
        fn strings_are_escaped_as_serde_json_escapes_them(
            chars in prop::collection::vec(prop_oneof![
                4 => prop::sample::select(vec!['a', '/', ' ', '~', 'é', '😀']),
                1 => prop::sample::select(vec!['"', '\\', '\n', '\u{1f}', '\u{0}', '\u{7f}']),
            ], 0..40),
        ) {
            let s: String = chars.into_iter().collect();
            let mut ours = Vec::new();
            string(&mut ours, &s);
            prop_assert_eq!(String::from_utf8(ours).unwrap(), serde_json::to_string(&s).unwrap());
            let naive = s.bytes().any(|b| b < 0x20 || b == b'"' || b == b'\\');
            prop_assert_eq!(needs_escaping(s.as_bytes()), naive);
        }
    }

    #[test]
    fn every_ascii_character_is_escaped_as_serde_json_escapes_it() {
        for c in (0u8..=0x7f)
            .map(char::from)
            .chain(['é', '€', '😀', '\u{2028}'])
        {
            let s = format!("a{c}b{c}");
            let mut ours = Vec::new();
            string(&mut ours, &s);
            assert_eq!(
                String::from_utf8(ours).unwrap(),
                serde_json::to_string(&s).unwrap(),
                "{:?}",
                c
            );
        }
    }

    #[test]
    fn numbers_are_written_as_serde_json_writes_them() {
        for n in [0, 1, 9, 10, 12_345, u64::from(u32::MAX), u64::MAX] {
            let mut ours = Vec::new();
            uint(&mut ours, n);
            assert_eq!(ours, serde_json::to_vec(&n).unwrap());
        }
        for x in [
            0.0,
            -0.0,
            1.0,
            0.5,
            1.0 / 3.0,
            1e-7,
            1e21,
            99.99,
            f64::MIN_POSITIVE,
        ] {
            let mut ours = Vec::new();
            float(&mut ours, x);
            assert_eq!(ours, serde_json::to_vec(&x).unwrap());
        }
    }

    #[test]
    fn a_pair_is_serde_jsons_json_of_it_in_either_layout_indented() {
        let at = |file: &str, n: u64| Location {
            file: file.into(),
            lines: [n, n + 3],
            bytes: [10 * n, 10 * n + 35],
        };
        let exact = Fragment {
            a: at("a/\"q\".py", 1),
            b: at("b\\x.py", 7),
            symbols: 20,
            parts: Vec::new(),
        };
        let merged = Fragment {
            parts: vec![
                FragmentPart {
                    a: at("a.py", 1),
                    b: at("b.py", 2),
                    symbols: 12,
                },
                FragmentPart {
                    a: at("a.py", 5),
                    b: at("b.py", 9),
                    symbols: 13,
                },
            ],
            ..exact.clone()
        };
        for fragments in [Vec::new(), vec![exact.clone()], vec![merged, exact]] {
            let p = Pair {
                a: 3,
                b: 0,
                similarity: 0.8125,
                a_percent: 100.0,
                b_percent: 12.5,
                a_lines_matched: 4,
                b_lines_matched: 40,
                lines_matched: 40,
                longest_fragment: 25,
                shared_fingerprints: 7,
                identical: fragments.is_empty(),
                fragments,
            };
            let pretty = serde_json::to_string_pretty(&p).unwrap();
            let line = serde_json::to_string(&p).unwrap();
            for depth in [0, 2, 40] {
                let pad = "  ".repeat(depth);
                let mut ours = Vec::new();
                pair(&mut ours, &p, depth, JsonLayout::Pretty);
                let expected: Vec<String> = pretty.lines().map(|l| format!("{pad}{l}")).collect();
                assert_eq!(String::from_utf8(ours).unwrap(), expected.join("\n"));
                let mut ours = Vec::new();
                pair(&mut ours, &p, depth, JsonLayout::Lines);
                assert_eq!(String::from_utf8(ours).unwrap(), format!("{pad}{line}"));
            }
        }
    }
}
