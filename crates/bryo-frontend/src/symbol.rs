//! The symbol scheme: how a normalized lexeme becomes a `u64` symbol.
//!
//! A symbol is a fixed hash of a class byte and the normalized lexeme's
//! bytes — never a per-run interner id and never a parser's internal node
//! id — so symbols are equal across runs, machines and grammar upgrades.
//! The hash is 64-bit FNV-1a over `[class, lexeme…]` followed by the
//! SplitMix64 finalizer (so that short lexemes spread over all 64 bits).
//! Changing anything here changes every symbol: bump
//! [`SYMBOL_SCHEME_VERSION`].

/// Version of the symbol scheme (the classes, the hash, and what each
/// front-end feeds it). Stored indexes record it.
pub const SYMBOL_SCHEME_VERSION: u32 = 1;

/// What kind of lexeme a symbol stands for. The class is hashed with the
/// lexeme, so an identifier `if` (kept verbatim) never equals the keyword
/// `if`, and a string literal never equals a number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
#[non_exhaustive]
pub enum SymbolClass {
    /// A keyword of a programming language, verbatim (case-folded where the
    /// language is case-insensitive).
    Keyword = 1,
    /// An operator or punctuation token, verbatim.
    Operator = 2,
    /// An identifier. Normalized mode hashes the empty lexeme, so every
    /// identifier is the same symbol; verbatim mode hashes its text.
    Identifier = 3,
    /// A string literal (normalized: empty lexeme; verbatim: its text).
    String = 4,
    /// A character literal.
    Char = 5,
    /// A numeric literal.
    Number = 6,
    /// Any other literal (booleans and nil/null are keywords, not this).
    OtherLiteral = 7,
    /// One case-folded character of prose.
    TextChar = 8,
    /// One case-folded word of prose.
    TextWord = 9,
    /// A syntax-tree node kind emitted by a structural front-end.
    Node = 10,
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// The symbol of `lexeme` in `class`: FNV-1a 64 over the class byte and the
/// lexeme, then the SplitMix64 finalizer. Part of the stability contract.
#[inline]
pub fn symbol(class: SymbolClass, lexeme: &[u8]) -> u64 {
    finalize(lexeme.iter().fold(fnv_start(class), |h, &b| fnv_byte(h, b)))
}

// The steps of `symbol`, for front-ends that hash a lexeme while they read
// it (`text`): `finalize(fnv_byte(…fnv_byte(fnv_start(class), b0)…))`.

/// The FNV-1a state after the class byte.
#[inline]
pub(crate) const fn fnv_start(class: SymbolClass) -> u64 {
    fnv_byte(FNV_OFFSET, class as u8)
}

/// One FNV-1a step.
#[inline]
pub(crate) const fn fnv_byte(h: u64, b: u8) -> u64 {
    (h ^ b as u64).wrapping_mul(FNV_PRIME)
}

/// The SplitMix64 finalizer. The engine's `bryo_engine::rehash` is the same
/// function, but belongs to the hash scheme (versioned apart) and front-ends
/// do not depend on the engine; a test checks that the two agree.
#[inline]
pub(crate) fn finalize(h: u64) -> u64 {
    let mut z = h;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_separate_equal_lexemes() {
        assert_ne!(
            symbol(SymbolClass::Keyword, b"if"),
            symbol(SymbolClass::Identifier, b"if")
        );
        assert_ne!(
            symbol(SymbolClass::String, b""),
            symbol(SymbolClass::Number, b"")
        );
    }

    #[test]
    fn golden_values() {
        // Pinned: a change here changes every stored symbol (bump the version).
        assert_eq!(symbol(SymbolClass::Identifier, b""), GOLDEN_IDENT);
        assert_eq!(symbol(SymbolClass::Keyword, b"while"), GOLDEN_WHILE);
    }

    #[test]
    fn finalizer_is_the_engines_rehash() {
        let mut rng = bryo_engine::SplitMix64::new(12);
        for x in [0, 1, u64::MAX]
            .into_iter()
            .chain((0..1000).map(|_| rng.next()))
        {
            assert_eq!(finalize(x), bryo_engine::rehash(x));
        }
    }

    const GOLDEN_IDENT: u64 = 0x0e49_abb0_b396_f44c; // computed independently in Python
    const GOLDEN_WHILE: u64 = 0xc217_29d3_d2c1_e2eb;
}
