//! The one walker shared by all languages: a `TreeCursor` loop (no
//! recursion, so nesting depth costs heap, never stack) that turns the
//! leaves of a syntax tree into symbols.

use bryo_frontend::{symbol, Normalized, Span, SymbolClass};
use tree_sitter::Language;

use crate::flat::{Flat, Node};

use crate::forms::{Edits, Emit, Lexeme};
use crate::languages::TsLanguage;

/// What the walker does with a node of a given kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    /// Descend into it; if it is a leaf, emit its text as keyword/operator.
    Other,
    /// Emit one identifier symbol for the whole node.
    Identifier,
    /// Emit one literal (or opaque-text) symbol for the whole node.
    Literal(SymbolClass),
    /// Skip it and everything under it.
    Dropped,
}

/// The roles of every node kind id of one grammar, indexed by kind id.
///
/// Built from names once per thread and language: kind ids are internal to a
/// grammar version, so only the names in the table are part of the contract.
/// Every id carrying a listed *named* kind gets the role (a grammar may give
/// one name several ids through aliases); anonymous tokens never do, so the
/// keyword `string` of C# is not mistaken for the node kind `string`.
pub(crate) fn role_table(spec: &TsLanguage, language: &Language) -> Vec<Role> {
    let lists: [(&[&str], Role); 6] = [
        (spec.identifiers, Role::Identifier),
        (spec.strings, Role::Literal(SymbolClass::String)),
        (spec.chars, Role::Literal(SymbolClass::Char)),
        (spec.numbers, Role::Literal(SymbolClass::Number)),
        (spec.opaque, Role::Literal(SymbolClass::OtherLiteral)),
        (spec.dropped, Role::Dropped),
    ];
    let count = language.node_kind_count();
    (0..count)
        .map(|id| {
            let id = id as u16;
            let (Some(name), true) = (
                language.node_kind_for_id(id),
                language.node_kind_is_named(id),
            ) else {
                return Role::Other;
            };
            lists
                .iter()
                .find(|(names, _)| names.contains(&name))
                .map_or(Role::Other, |&(_, role)| role)
        })
        .collect()
}

/// What the walk saw of syntax errors.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct TreeStats {
    /// `ERROR` nodes, nested ones included.
    pub error_nodes: u32,
    /// Zero-width `MISSING` nodes the parser inserted to recover.
    pub missing_nodes: u32,
    /// Bytes of stray tokens: the tokens (leaves, identifiers, literals)
    /// whose parent is an `ERROR` node, and `ERROR` nodes with no children.
    ///
    /// Not the bytes *under* `ERROR` nodes: when tree-sitter cannot recover
    /// it may wrap a whole file, valid functions included, in one `ERROR`
    /// root; only the tokens it could not fit into any construct are lost.
    pub error_bytes: usize,
}

/// Appends the symbols of `tree` (parsed from `text`) to `out`.
///
/// Spans are the nodes' byte ranges. A node that would break the stream's
/// invariant (empty, past the text, or overlapping the previous symbol)
/// is skipped; tree-sitter leaves are disjoint and in order, so only empty
/// (missing) nodes are skipped in practice.
pub(crate) fn walk(
    tree: &Flat,
    text: &[u8],
    roles: &[Role],
    edits: &Edits,
    verbatim: bool,
    keep_strings: bool,
    out: &mut Normalized,
) -> TreeStats {
    let mut sink = Sink {
        text,
        out,
        last_end: 0,
        stats: TreeStats::default(),
    };
    // `parent_is_error[d]`: whether the node at depth `d` of the cursor's
    // path is an ERROR node (a heap stack, so depth costs no call stack).
    let mut parent_is_error: Vec<bool> = Vec::new();
    let mut cursor = tree.walk();
    // Nodes come in pre-order, so in increasing id order.
    let no_edits = edits.is_empty();
    let mut edits = edits.in_order();
    loop {
        let node = cursor.node();
        let in_error = parent_is_error.last().copied().unwrap_or(false);
        // The ERROR kind id lies outside the grammar's table.
        // Nodes `edits` leaves out or replaces go with their subtree.
        let role = if no_edits {
            roles.get(usize::from(node.kind_id())).copied()
        } else if edits.skips(node.id()) {
            Some(Role::Dropped)
        } else if let Some(symbols) = edits.replacement(node.id()) {
            for &e in symbols {
                sink.emit_given(e, verbatim);
            }
            Some(Role::Dropped)
        } else {
            roles.get(usize::from(node.kind_id())).copied()
        };
        let mut is_error = false;
        let mut descend = false;
        match role {
            Some(Role::Dropped) => {}
            Some(Role::Identifier) => sink.emit(&node, SymbolClass::Identifier, verbatim, in_error),
            Some(Role::Literal(class)) => {
                let keep = verbatim
                    || (keep_strings && matches!(class, SymbolClass::String | SymbolClass::Char));
                sink.emit(&node, class, keep, in_error)
            }
            Some(Role::Other) => descend = true,
            None => {
                if node.is_error() {
                    sink.stats.error_nodes += 1;
                    is_error = true;
                }
                descend = true;
            }
        }
        if descend {
            if cursor.goto_first_child() {
                parent_is_error.push(is_error);
                continue;
            }
            // A leaf with no role of its own: keyword or operator by spelling.
            let word = text.get(node.byte_range()).is_some_and(is_word);
            let class = if word {
                SymbolClass::Keyword
            } else {
                SymbolClass::Operator
            };
            sink.emit(&node, class, true, in_error || is_error);
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return sink.stats;
            }
            parent_is_error.pop();
        }
    }
}

/// Keywords are spelled like words: a letter or `_`, then letters, digits
/// or `_`. Everything else a leaf can be (`+=`, `::`, `#include`) is an
/// operator.
fn is_word(t: &[u8]) -> bool {
    match t.split_first() {
        Some((&first, rest)) => {
            (first.is_ascii_alphabetic() || first == b'_')
                && rest.iter().all(|&b| b.is_ascii_alphanumeric() || b == b'_')
        }
        None => false,
    }
}

/// Where symbols go, with what the stream invariant needs.
struct Sink<'a> {
    text: &'a [u8],
    out: &'a mut Normalized,
    last_end: usize,
    stats: TreeStats,
}

impl Sink<'_> {
    /// Emits `node` as one symbol of `class`, hashing its text when
    /// `with_text` and the empty lexeme otherwise; `stray` marks a token the
    /// parser could not fit into any construct (its bytes count as errors).
    #[inline]
    fn emit(&mut self, node: &Node<'_>, class: SymbolClass, with_text: bool, stray: bool) {
        let (start, end) = (node.start_byte(), node.end_byte());
        if stray {
            self.stats.error_bytes += end.saturating_sub(start);
        }
        if start >= end {
            if node.is_missing() {
                self.stats.missing_nodes += 1;
            }
            return;
        }
        let Some(text) = self.text.get(start..end) else {
            return;
        };
        if start < self.last_end {
            return;
        }
        let lexeme = if with_text { text } else { b"" };
        // `end <= text.len() <= u32::MAX` is checked before parsing.
        self.out
            .push(symbol(class, lexeme), Span::new(start as u32, end as u32));
        self.last_end = end;
    }

    /// Emits a symbol given by a normalization rewrite (never one of an
    /// error's tokens: rewrites apply to well-formed constructs).
    fn emit_given(&mut self, e: Emit, verbatim: bool) {
        let (start, end) = (e.start as usize, e.end as usize);
        if start >= end || end > self.text.len() || start < self.last_end {
            return;
        }
        let lexeme: &[u8] = match e.lexeme {
            Lexeme::Fixed(t) => t,
            Lexeme::Text(s, t) => self.text.get(s as usize..t as usize).unwrap_or_default(),
        };
        let with_text = verbatim || matches!(e.class, SymbolClass::Operator | SymbolClass::Keyword);
        let lexeme = if with_text { lexeme } else { b"" };
        self.out
            .push(symbol(e.class, lexeme), Span::new(e.start, e.end));
        self.last_end = end;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::languages::languages;
    use proptest::prelude::*;

    /// The walk written the obvious way: recursion over tree-sitter's own
    /// `Node::child`, without the arena.
    fn reference(
        node: tree_sitter::Node<'_>,
        text: &[u8],
        roles: &[Role],
        verbatim: bool,
        parent_is_error: bool,
        out: &mut Vec<(u64, usize, usize)>,
        stats: &mut TreeStats,
    ) {
        let (start, end) = (node.start_byte(), node.end_byte());
        let mut push = |class, with_text: bool, stray: bool, stats: &mut TreeStats| {
            if stray {
                stats.error_bytes += end - start;
            }
            if start == end {
                stats.missing_nodes += u32::from(node.is_missing());
                return;
            }
            if out.last().is_some_and(|&(_, _, e)| start < e) {
                return;
            }
            let lexeme = if with_text { &text[start..end] } else { b"" };
            out.push((symbol(class, lexeme), start, end));
        };
        match roles.get(usize::from(node.kind_id())) {
            Some(Role::Dropped) => {}
            Some(Role::Identifier) => {
                push(SymbolClass::Identifier, verbatim, parent_is_error, stats)
            }
            Some(&Role::Literal(class)) => push(class, verbatim, parent_is_error, stats),
            _ => {
                let is_error = node.is_error();
                stats.error_nodes += u32::from(is_error);
                if node.child_count() == 0 {
                    let class = if is_word(&text[start..end]) {
                        SymbolClass::Keyword
                    } else {
                        SymbolClass::Operator
                    };
                    push(class, true, parent_is_error || is_error, stats);
                }
                for i in 0..node.child_count() {
                    if let Some(child) = node.child(i as u32) {
                        reference(child, text, roles, verbatim, is_error, out, stats);
                    }
                }
            }
        }
    }

    /// Whether the walk and the reference agree on `text`, or `None` when
    /// its parse passes the property tests' time limit.
    fn compare(li: usize, text: &[u8], verbatim: bool) -> Option<()> {
        let spec = &languages()[li % languages().len()];
        let language = spec.grammar();
        let roles = role_table(spec, &language);
        let options = crate::Options {
            timeout: Some(crate::test_support::PARSE_LIMIT),
            ..crate::Options::default()
        };
        let tree = match spec.parse_tree(text, &options) {
            Ok(tree) => tree,
            Err(crate::Fallback::TimedOut(_)) => return None,
            Err(other) => panic!("{}: {other}", spec.name),
        };

        let mut fast = Normalized::default();
        let fast_stats = walk(
            &Flat::of(&tree),
            text,
            &roles,
            &Edits::default(),
            verbatim,
            false,
            &mut fast,
        );
        let mut naive = Vec::new();
        let mut naive_stats = TreeStats::default();
        reference(
            tree.root_node(),
            text,
            &roles,
            verbatim,
            false,
            &mut naive,
            &mut naive_stats,
        );
        let fast: Vec<_> = fast
            .symbols
            .iter()
            .zip(&fast.spans)
            .map(|(&s, sp)| (s, sp.start as usize, sp.end as usize))
            .collect();
        assert_eq!(
            fast,
            naive,
            "{}: {:?}",
            spec.name,
            String::from_utf8_lossy(text)
        );
        assert_eq!(fast_stats, naive_stats, "{}", spec.name);
        Some(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        #[test]
        fn walk_matches_the_recursive_reference(
            s in "[a-zA-Z_ (){}\\[\\];,.=+*<>!&|\"'0-9#/\n\t-]{0,300}",
            li in 0usize..9,
            verbatim in any::<bool>(),
        ) {
            prop_assume!(compare(li, s.as_bytes(), verbatim).is_some());
        }
    }
}
