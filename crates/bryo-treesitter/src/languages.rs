//! The per-language table: which grammar, and which node kinds of its trees
//! are identifiers, literals, comments or opaque text.
//!
//! Everything language-specific lives here as data; the walker in
//! `walk.rs` is shared by all languages. A node kind not named here is
//! either descended into (inner nodes) or, as a leaf, emitted by its text as
//! a keyword (alphanumeric text) or an operator (anything else).

use tree_sitter_language::LanguageFn;

/// One language with a tree-sitter front-end: its canonical name, its
/// grammar, and how the grammar's node kinds map to symbol classes.
///
/// Obtain one with [`TsLanguage::by_name`] or from [`languages`].
pub struct TsLanguage {
    pub(crate) name: &'static str,
    pub(crate) aliases: &'static [&'static str],
    pub(crate) grammar: LanguageFn,
    /// Leaves that are identifiers (all become one symbol when normalized).
    pub(crate) identifiers: &'static [&'static str],
    /// String literals, emitted as one symbol for the whole node.
    pub(crate) strings: &'static [&'static str],
    /// Character literals, emitted as one symbol for the whole node.
    pub(crate) chars: &'static [&'static str],
    /// Numeric literals, emitted as one symbol for the whole node.
    pub(crate) numbers: &'static [&'static str],
    /// Free-form text a grammar keeps as one leaf (macro bodies, JSX text):
    /// one `OtherLiteral` symbol for the whole node.
    pub(crate) opaque: &'static [&'static str],
    /// Comments and other layout (line continuations, shebangs): dropped.
    pub(crate) dropped: &'static [&'static str],
}

impl std::fmt::Debug for TsLanguage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TsLanguage")
            .field("name", &self.name)
            .field("aliases", &self.aliases)
            .finish_non_exhaustive()
    }
}

impl TsLanguage {
    /// The canonical name (`c`, `cpp`, `java`, `python`, `javascript`,
    /// `typescript`, `csharp`, `go`, `rust`).
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// Other names accepted by [`TsLanguage::by_name`] (e.g. `cc` for C++,
    /// `js` for JavaScript).
    pub fn aliases(&self) -> &'static [&'static str] {
        self.aliases
    }

    /// The language with canonical name or alias `name` (ASCII
    /// case-insensitive), if this build has its grammar.
    pub fn by_name(name: &str) -> Option<&'static TsLanguage> {
        LANGUAGES.iter().find(|l| {
            l.name.eq_ignore_ascii_case(name)
                || l.aliases.iter().any(|a| a.eq_ignore_ascii_case(name))
        })
    }

    /// The tree-sitter grammar, for callers that want the syntax tree
    /// itself. Creating a `Language` is cheap but not free: keep it.
    pub fn grammar(&self) -> tree_sitter::Language {
        tree_sitter::Language::new(self.grammar)
    }

    /// Position of this entry in [`languages`], used as the key of the
    /// per-thread parser cache.
    pub(crate) fn index(&self) -> Option<usize> {
        LANGUAGES.iter().position(|l| std::ptr::eq(l, self))
    }
}

/// Every language this build has a grammar for (one cargo feature each),
/// in a fixed order.
pub fn languages() -> &'static [TsLanguage] {
    LANGUAGES
}

static LANGUAGES: &[TsLanguage] = &[
    #[cfg(feature = "c")]
    TsLanguage {
        name: "c",
        aliases: &[],
        grammar: tree_sitter_c::LANGUAGE,
        identifiers: &[
            "identifier",
            "field_identifier",
            "type_identifier",
            "statement_identifier",
        ],
        strings: &["string_literal", "system_lib_string"],
        chars: &["char_literal"],
        numbers: &["number_literal"],
        opaque: &["preproc_arg"],
        dropped: &["comment"],
    },
    #[cfg(feature = "cpp")]
    TsLanguage {
        name: "cpp",
        aliases: &["cc", "c++", "cxx"],
        grammar: tree_sitter_cpp::LANGUAGE,
        identifiers: &[
            "identifier",
            "field_identifier",
            "type_identifier",
            "namespace_identifier",
            "statement_identifier",
        ],
        strings: &["string_literal", "raw_string_literal", "system_lib_string"],
        chars: &["char_literal"],
        numbers: &["number_literal"],
        opaque: &["preproc_arg"],
        dropped: &["comment"],
    },
    #[cfg(feature = "java")]
    TsLanguage {
        name: "java",
        aliases: &[],
        grammar: tree_sitter_java::LANGUAGE,
        identifiers: &["identifier", "type_identifier"],
        strings: &["string_literal"],
        chars: &["character_literal"],
        numbers: &[
            "decimal_integer_literal",
            "hex_integer_literal",
            "octal_integer_literal",
            "binary_integer_literal",
            "decimal_floating_point_literal",
            "hex_floating_point_literal",
        ],
        opaque: &[],
        dropped: &["line_comment", "block_comment"],
    },
    #[cfg(feature = "python")]
    TsLanguage {
        name: "python",
        aliases: &["py"],
        grammar: tree_sitter_python::LANGUAGE,
        identifiers: &["identifier"],
        strings: &["string"],
        chars: &[],
        numbers: &["integer", "float"],
        opaque: &[],
        dropped: &["comment", "line_continuation"],
    },
    #[cfg(feature = "javascript")]
    TsLanguage {
        name: "javascript",
        aliases: &["js"],
        grammar: tree_sitter_javascript::LANGUAGE,
        identifiers: &[
            "identifier",
            "property_identifier",
            "shorthand_property_identifier",
            "shorthand_property_identifier_pattern",
            "private_property_identifier",
            "statement_identifier",
        ],
        strings: &["string", "template_string", "regex"],
        chars: &[],
        numbers: &["number"],
        opaque: &["jsx_text"],
        dropped: &["comment", "html_comment", "hash_bang_line"],
    },
    #[cfg(feature = "typescript")]
    TsLanguage {
        name: "typescript",
        aliases: &["ts"],
        grammar: tree_sitter_typescript::LANGUAGE_TYPESCRIPT,
        identifiers: &[
            "identifier",
            "property_identifier",
            "shorthand_property_identifier",
            "shorthand_property_identifier_pattern",
            "private_property_identifier",
            "statement_identifier",
            "type_identifier",
        ],
        strings: &["string", "template_string", "regex"],
        chars: &[],
        numbers: &["number"],
        opaque: &[],
        dropped: &["comment", "html_comment", "hash_bang_line"],
    },
    #[cfg(feature = "csharp")]
    TsLanguage {
        name: "csharp",
        aliases: &["cs", "c#"],
        grammar: tree_sitter_c_sharp::LANGUAGE,
        identifiers: &["identifier"],
        strings: &[
            "string_literal",
            "verbatim_string_literal",
            "raw_string_literal",
            "interpolated_string_expression",
        ],
        chars: &["character_literal"],
        numbers: &["integer_literal", "real_literal"],
        opaque: &["preproc_arg"],
        dropped: &["comment", "shebang_directive"],
    },
    #[cfg(feature = "go")]
    TsLanguage {
        name: "go",
        aliases: &["golang"],
        grammar: tree_sitter_go::LANGUAGE,
        identifiers: &[
            "identifier",
            "field_identifier",
            "type_identifier",
            "package_identifier",
            "label_name",
        ],
        strings: &["interpreted_string_literal", "raw_string_literal"],
        chars: &["rune_literal"],
        numbers: &["int_literal", "float_literal", "imaginary_literal"],
        opaque: &[],
        dropped: &["comment"],
    },
    #[cfg(feature = "rust")]
    TsLanguage {
        name: "rust",
        aliases: &["rs"],
        grammar: tree_sitter_rust::LANGUAGE,
        identifiers: &[
            "identifier",
            "field_identifier",
            "type_identifier",
            "shorthand_field_identifier",
            "metavariable",
        ],
        strings: &["string_literal", "raw_string_literal"],
        chars: &["char_literal"],
        numbers: &["integer_literal", "float_literal"],
        opaque: &[],
        dropped: &["line_comment", "block_comment", "shebang"],
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    /// Catches typos and grammar upgrades that rename a kind: every kind
    /// the table names must be a named kind of its grammar.
    #[test]
    fn every_listed_kind_exists_in_its_grammar() {
        for spec in languages() {
            let language = spec.grammar();
            let lists = [
                spec.identifiers,
                spec.strings,
                spec.chars,
                spec.numbers,
                spec.opaque,
                spec.dropped,
            ];
            for kind in lists.iter().flat_map(|l| l.iter()) {
                assert_ne!(
                    language.id_for_node_kind(kind, true),
                    0,
                    "{}: no named node kind `{kind}`",
                    spec.name
                );
            }
        }
    }

    #[test]
    fn names_and_aliases_are_unique() {
        let mut all: Vec<&str> = languages()
            .iter()
            .flat_map(|l| std::iter::once(l.name).chain(l.aliases.iter().copied()))
            .collect();
        let n = all.len();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), n);
    }
}
