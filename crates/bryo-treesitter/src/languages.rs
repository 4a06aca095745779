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
    /// What dead-statement removal needs to know of the grammar.
    pub(crate) statements: Statements,
}

/// The node kinds (and fields) dead-statement removal reads: where the
/// statements of a function are, which of them may be dropped, and which
/// constructs read, write, call or jump. See `dead.rs` for the analysis.
pub(crate) struct Statements {
    /// Functions, methods, lambdas: each has its own local variables; its
    /// statements are in its `body` field.
    pub(crate) scopes: &'static [&'static str],
    /// Whether the root node is a scope too (script languages, whose files
    /// hold statements at the top level).
    pub(crate) root_scope: bool,
    /// Nodes whose named children are statements.
    pub(crate) blocks: &'static [&'static str],
    /// Statements that may be dropped: declarations, expression statements,
    /// `if`, loops, nested blocks. Any other statement is always kept.
    pub(crate) droppable: &'static [&'static str],
    /// Calls (and `new`, macros): an effect, unless calling a function of
    /// the same file that has none, or one of `pure_calls`.
    pub(crate) calls: &'static [&'static str],
    /// Plainly named functions whose call has no effect of its own.
    pub(crate) pure_calls: &'static [&'static str],
    /// Assignments and loop headers, with the field holding the target.
    pub(crate) assignments: &'static [(&'static str, &'static str)],
    /// `++` and `--` (a kind is an update only when such a token is among
    /// its children): its operand is read and written.
    pub(crate) updates: &'static [&'static str],
    /// Declarations, with the field holding the declared name(s).
    pub(crate) declarators: &'static [(&'static str, &'static str)],
    /// Destructuring targets (`a, b = …`): each named child is a target.
    pub(crate) patterns: &'static [&'static str],
    /// Declarator wrappers (C's `*p`, `a[10]`): the name is in their
    /// `declarator` field.
    pub(crate) wrappers: &'static [&'static str],
    /// Whether a plain assignment declares a local (Python).
    pub(crate) assignment_declares: bool,
    /// Statements naming variables that are not local (`global`).
    pub(crate) nonlocal: &'static [&'static str],
    /// Labels and `case`s: code after a jump is reachable again from them.
    pub(crate) labels: &'static [&'static str],
    /// Keyword and operator tokens that have an effect (jumps, `delete`,
    /// C++'s stream `<<`).
    pub(crate) effect_tokens: &'static [&'static str],
    /// Nodes whose named children are members in no meaningful order: a
    /// class body, a file's top level (canonical order, `order.rs`).
    pub(crate) members: &'static [&'static str],
    /// Definitions (of a type, a namespace, a function that is not a
    /// scope): as a member or statement they only bind their name.
    pub(crate) definitions: &'static [&'static str],
    /// C-style `for (init; cond; update)` loops, written as `while` loops
    /// (`shape.rs`).
    pub(crate) loops: &'static [&'static str],
    /// `if` statements with `condition`, `consequence` and `alternative`.
    pub(crate) branches: &'static [&'static str],
    /// `switch` statements with `condition` and `body` written as `if`
    /// chains, and `if` chains comparing one value with constants written
    /// so too (`chain.rs`); empty where neither is rewritten.
    pub(crate) switches: &'static [&'static str],
    /// The nodes of a `switch` body holding its labels and statements.
    pub(crate) case_groups: &'static [&'static str],
    /// Whether a case without a jump at its end runs into the next one's
    /// statements (C's `switch`; not Go's, which ends every case unless it
    /// says `fallthrough`).
    pub(crate) falls_through: bool,
}

/// Tokens with an effect in every language that spells them so.
const JUMPS: &[&str] = &[
    "return",
    "break",
    "continue",
    "throw",
    "raise",
    "goto",
    "yield",
    "await",
    "assert",
    "delete",
    "del",
    "import",
    "export",
    "exit",
    "defer",
    "go",
    "asm",
    "__asm__",
    "synchronized",
    "lock",
    "unsafe",
];

const C_DROPPABLE: &[&str] = &[
    "declaration",
    "expression_statement",
    "if_statement",
    "for_statement",
    "while_statement",
    "do_statement",
    "compound_statement",
];
const C_STATEMENTS: Statements = Statements {
    scopes: &["function_definition"],
    root_scope: false,
    blocks: &["compound_statement", "case_statement"],
    droppable: C_DROPPABLE,
    calls: &["call_expression"],
    pure_calls: &[
        "abs", "fabs", "sqrt", "pow", "strlen", "strcmp", "max", "min",
    ],
    assignments: &[("assignment_expression", "left")],
    updates: &["update_expression"],
    declarators: &[
        ("declaration", "declarator"),
        ("init_declarator", "declarator"),
    ],
    patterns: &[],
    wrappers: &[
        "pointer_declarator",
        "array_declarator",
        "parenthesized_declarator",
    ],
    assignment_declares: false,
    nonlocal: &[],
    labels: &["labeled_statement", "case_statement"],
    effect_tokens: JUMPS,
    members: &["translation_unit"],
    definitions: &[
        "struct_specifier",
        "enum_specifier",
        "union_specifier",
        "type_definition",
    ],
    loops: &["for_statement"],
    branches: &["if_statement"],
    switches: &["switch_statement"],
    case_groups: &["case_statement"],
    falls_through: true,
};

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

const CPP_STATEMENTS: Statements = Statements {
    scopes: &["function_definition", "lambda_expression"],
    blocks: &["compound_statement", "case_statement"],
    droppable: &[
        "declaration",
        "expression_statement",
        "if_statement",
        "for_statement",
        "for_range_loop",
        "while_statement",
        "do_statement",
        "compound_statement",
    ],
    calls: &["call_expression", "new_expression", "delete_expression"],
    declarators: &[
        ("declaration", "declarator"),
        ("init_declarator", "declarator"),
        ("for_range_loop", "declarator"),
    ],
    wrappers: &[
        "pointer_declarator",
        "array_declarator",
        "reference_declarator",
        "parenthesized_declarator",
    ],
    effect_tokens: &[
        "return",
        "break",
        "continue",
        "throw",
        "goto",
        "co_yield",
        "co_await",
        "co_return",
        "delete",
        "asm",
        "__asm__",
        "<<",
        ">>",
    ],
    members: &[
        "translation_unit",
        "field_declaration_list",
        "declaration_list",
    ],
    definitions: &[
        "class_specifier",
        "struct_specifier",
        "enum_specifier",
        "union_specifier",
        "namespace_definition",
        "template_declaration",
        "type_definition",
        "alias_declaration",
    ],
    loops: &["for_statement"],
    branches: &["if_statement"],
    ..C_STATEMENTS
};

const JAVA_STATEMENTS: Statements = Statements {
    scopes: &[
        "method_declaration",
        "constructor_declaration",
        "compact_constructor_declaration",
        "lambda_expression",
    ],
    root_scope: false,
    blocks: &["block", "constructor_body", "switch_block_statement_group"],
    droppable: &[
        "local_variable_declaration",
        "expression_statement",
        "if_statement",
        "for_statement",
        "enhanced_for_statement",
        "while_statement",
        "do_statement",
        "block",
    ],
    calls: &[
        "method_invocation",
        "object_creation_expression",
        "explicit_constructor_invocation",
    ],
    pure_calls: &[],
    assignments: &[("assignment_expression", "left")],
    updates: &["update_expression"],
    declarators: &[
        ("variable_declarator", "name"),
        ("enhanced_for_statement", "name"),
    ],
    patterns: &[],
    wrappers: &[],
    assignment_declares: false,
    nonlocal: &[],
    labels: &["labeled_statement", "switch_label"],
    effect_tokens: JUMPS,
    members: &[
        "program",
        "class_body",
        "interface_body",
        "enum_body_declarations",
    ],
    definitions: &[
        "class_declaration",
        "interface_declaration",
        "enum_declaration",
        "record_declaration",
        "annotation_type_declaration",
    ],
    loops: &["for_statement"],
    branches: &["if_statement"],
    switches: &["switch_expression"],
    case_groups: &["switch_block_statement_group"],
    falls_through: true,
};

const PYTHON_STATEMENTS: Statements = Statements {
    scopes: &["function_definition", "lambda"],
    root_scope: true,
    blocks: &["block", "module"],
    droppable: &[
        "expression_statement",
        "if_statement",
        "for_statement",
        "while_statement",
        "pass_statement",
    ],
    calls: &["call"],
    pure_calls: &[
        "range",
        "len",
        "abs",
        "min",
        "max",
        "int",
        "float",
        "str",
        "bool",
        "list",
        "tuple",
        "dict",
        "set",
        "sorted",
        "sum",
        "enumerate",
        "zip",
        "reversed",
        "round",
        "ord",
        "chr",
    ],
    assignments: &[
        ("assignment", "left"),
        ("augmented_assignment", "left"),
        ("for_statement", "left"),
    ],
    updates: &[],
    declarators: &[],
    patterns: &["pattern_list", "tuple_pattern", "list_pattern"],
    wrappers: &[],
    assignment_declares: true,
    nonlocal: &["global_statement", "nonlocal_statement"],
    labels: &[],
    effect_tokens: JUMPS,
    members: &["module"],
    definitions: &["class_definition", "decorated_definition"],
    loops: &[],
    branches: &["if_statement"],
    switches: &["match_statement"],
    case_groups: &[],
    falls_through: false,
};

const JS_STATEMENTS: Statements = Statements {
    scopes: &[
        "function_declaration",
        "function_expression",
        "arrow_function",
        "method_definition",
        "generator_function_declaration",
        "generator_function",
    ],
    root_scope: true,
    blocks: &[
        "statement_block",
        "program",
        "switch_case",
        "switch_default",
    ],
    droppable: &[
        "lexical_declaration",
        "variable_declaration",
        "expression_statement",
        "if_statement",
        "for_statement",
        "for_in_statement",
        "while_statement",
        "do_statement",
        "statement_block",
        "empty_statement",
    ],
    calls: &["call_expression", "new_expression"],
    pure_calls: &[],
    assignments: &[
        ("assignment_expression", "left"),
        ("augmented_assignment_expression", "left"),
    ],
    updates: &["update_expression"],
    declarators: &[
        ("variable_declarator", "name"),
        ("for_in_statement", "left"),
    ],
    patterns: &["array_pattern", "object_pattern", "pair_pattern"],
    wrappers: &[],
    assignment_declares: false,
    nonlocal: &[],
    labels: &["labeled_statement", "switch_case"],
    effect_tokens: JUMPS,
    members: &["program", "class_body"],
    definitions: &[
        "class_declaration",
        "abstract_class_declaration",
        "interface_declaration",
        "type_alias_declaration",
        "enum_declaration",
    ],
    loops: &["for_statement"],
    branches: &["if_statement"],
    switches: &["switch_statement"],
    case_groups: &["switch_case", "switch_default"],
    falls_through: true,
};

const TS_STATEMENTS: Statements = JS_STATEMENTS;

const CSHARP_STATEMENTS: Statements = Statements {
    scopes: &[
        "method_declaration",
        "constructor_declaration",
        "local_function_statement",
        "lambda_expression",
        "anonymous_method_expression",
    ],
    root_scope: false,
    blocks: &["block", "switch_section"],
    droppable: &[
        "local_declaration_statement",
        "expression_statement",
        "if_statement",
        "for_statement",
        "foreach_statement",
        "while_statement",
        "do_statement",
        "block",
        "empty_statement",
    ],
    calls: &["invocation_expression", "object_creation_expression"],
    pure_calls: &[],
    assignments: &[("assignment_expression", "left")],
    updates: &["postfix_unary_expression", "prefix_unary_expression"],
    declarators: &[
        ("variable_declarator", "name"),
        ("foreach_statement", "left"),
    ],
    patterns: &["tuple_pattern"],
    wrappers: &[],
    assignment_declares: false,
    nonlocal: &[],
    labels: &["labeled_statement", "switch_section"],
    effect_tokens: JUMPS,
    members: &["compilation_unit", "declaration_list"],
    definitions: &[
        "class_declaration",
        "struct_declaration",
        "interface_declaration",
        "enum_declaration",
        "record_declaration",
        "namespace_declaration",
        "property_declaration",
    ],
    loops: &["for_statement"],
    branches: &["if_statement"],
    switches: &["switch_statement"],
    case_groups: &["switch_section"],
    falls_through: true,
};

const GO_STATEMENTS: Statements = Statements {
    scopes: &["function_declaration", "method_declaration", "func_literal"],
    root_scope: false,
    blocks: &["statement_list"],
    droppable: &[
        "short_var_declaration",
        "var_declaration",
        "assignment_statement",
        "inc_statement",
        "dec_statement",
        "expression_statement",
        "if_statement",
        "for_statement",
        "block",
        "empty_statement",
    ],
    calls: &["call_expression"],
    pure_calls: &["len", "cap", "abs", "min", "max"],
    assignments: &[("assignment_statement", "left")],
    updates: &["inc_statement", "dec_statement"],
    declarators: &[
        ("short_var_declaration", "left"),
        ("var_spec", "name"),
        ("range_clause", "left"),
    ],
    patterns: &["expression_list"],
    wrappers: &[],
    assignment_declares: false,
    nonlocal: &[],
    labels: &[
        "labeled_statement",
        "expression_case",
        "default_case",
        "type_case",
    ],
    effect_tokens: JUMPS,
    members: &["source_file"],
    definitions: &["type_declaration"],
    loops: &[],
    branches: &["if_statement"],
    switches: &["expression_switch_statement"],
    case_groups: &["expression_case", "default_case"],
    falls_through: false,
};

const RUST_STATEMENTS: Statements = Statements {
    scopes: &["function_item", "closure_expression"],
    root_scope: false,
    blocks: &["block"],
    droppable: &["let_declaration", "expression_statement", "empty_statement"],
    calls: &["call_expression", "macro_invocation"],
    pure_calls: &[],
    assignments: &[
        ("assignment_expression", "left"),
        ("compound_assignment_expr", "left"),
    ],
    updates: &[],
    declarators: &[
        ("let_declaration", "pattern"),
        ("for_expression", "pattern"),
    ],
    patterns: &["tuple_pattern"],
    wrappers: &[],
    assignment_declares: false,
    nonlocal: &[],
    labels: &[],
    effect_tokens: JUMPS,
    members: &["source_file", "declaration_list"],
    definitions: &[
        "impl_item",
        "struct_item",
        "enum_item",
        "trait_item",
        "mod_item",
        "union_item",
        "type_item",
    ],
    loops: &[],
    branches: &["if_expression"],
    switches: &["match_expression"],
    case_groups: &[],
    falls_through: false,
};

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
        statements: C_STATEMENTS,
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
        statements: CPP_STATEMENTS,
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
        statements: JAVA_STATEMENTS,
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
        statements: PYTHON_STATEMENTS,
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
        statements: JS_STATEMENTS,
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
        statements: TS_STATEMENTS,
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
        statements: CSHARP_STATEMENTS,
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
        statements: GO_STATEMENTS,
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
        statements: RUST_STATEMENTS,
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
            let st = &spec.statements;
            let statement_lists = [
                st.scopes,
                st.blocks,
                st.droppable,
                st.calls,
                st.updates,
                st.patterns,
                st.wrappers,
                st.nonlocal,
                st.labels,
            ];
            let with_fields = st.assignments.iter().chain(st.declarators);
            for kind in lists
                .iter()
                .chain(&statement_lists)
                .flat_map(|l| l.iter())
                .chain(with_fields.clone().map(|(k, _)| k))
            {
                assert_ne!(
                    language.id_for_node_kind(kind, true),
                    0,
                    "{}: no named node kind `{kind}`",
                    spec.name
                );
            }
            for (kind, field) in with_fields {
                assert!(
                    language.field_id_for_name(field).is_some(),
                    "{}: no field `{field}` (for `{kind}`)",
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
