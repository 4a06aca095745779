//! What of identifiers and literals survives the normalization of code: one
//! type for the lexers, the tree-sitter front-ends, the comparison and the
//! command line.

use std::fmt;
use std::str::FromStr;

/// What of identifiers and literals survives the normalization of code.
/// Keywords and operators always keep their text; comments and whitespace
/// are always dropped. Prose and HTML ignore it.
///
/// [`name`](Normalization::name) is the spelling on the command line and in
/// reports; [`FromStr`] reads it back:
///
/// ```
/// use bryo_frontend::Normalization;
///
/// let n: Normalization = "keep-strings".parse().unwrap();
/// assert_eq!(n, Normalization::KeepStrings);
/// assert_eq!(n.name(), "keep-strings");
/// assert!("strings".parse::<Normalization>().is_err());
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Normalization {
    /// As MOSS: every identifier is one symbol and every literal the symbol
    /// of its kind (string, character, number).
    Full,
    /// As [`Full`](Normalization::Full), but string and character literals
    /// are hashed with their text; numbers stay one symbol. The default:
    /// renaming still goes unseen, while independent programs that print
    /// different messages are told apart (measured on IR-Plag, see
    /// BENCHMARKS.md).
    #[default]
    KeepStrings,
    /// Identifiers and literals are hashed with their text (identifiers
    /// lower-cased in case-insensitive languages).
    Verbatim,
}

impl Normalization {
    /// Every normalization, in the order the command line lists them.
    pub const ALL: [Normalization; 3] = [
        Normalization::Full,
        Normalization::KeepStrings,
        Normalization::Verbatim,
    ];

    /// The name used on the command line and in reports: `full`,
    /// `keep-strings` or `verbatim`.
    pub fn name(self) -> &'static str {
        match self {
            Normalization::Full => "full",
            Normalization::KeepStrings => "keep-strings",
            Normalization::Verbatim => "verbatim",
        }
    }
}

impl fmt::Display for Normalization {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Normalization {
    type Err = UnknownNormalization;

    /// Reads a [`name`](Normalization::name) (exactly, case-sensitive).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Normalization::ALL
            .into_iter()
            .find(|n| n.name() == s)
            .ok_or_else(|| UnknownNormalization {
                name: s.to_string(),
            })
    }
}

/// A name that is not one of [`Normalization`]'s.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown normalization `{name}` (expected full, keep-strings or verbatim)")]
pub struct UnknownNormalization {
    name: String,
}

impl UnknownNormalization {
    /// The name that was not recognised.
    pub fn name(&self) -> &str {
        &self.name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_reads_back() {
        for n in Normalization::ALL {
            assert_eq!(Normalization::from_str(n.name()), Ok(n));
            assert_eq!(n.to_string(), n.name());
        }
    }

    #[test]
    fn names_are_the_command_line_ones() {
        let names: Vec<_> = Normalization::ALL.iter().map(|n| n.name()).collect();
        assert_eq!(names, ["full", "keep-strings", "verbatim"]);
        assert_eq!(Normalization::default(), Normalization::KeepStrings);
    }

    #[test]
    fn unknown_names_are_errors() {
        for bad in ["", "Full", "keep_strings", "normalized"] {
            let err = Normalization::from_str(bad).unwrap_err();
            assert_eq!(err.name(), bad);
            assert!(err.to_string().contains("expected full"), "{err}");
        }
    }
}
