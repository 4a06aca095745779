//! Equivalent forms written one way (token-sequence normalization): the
//! walk emits `x += 1` for `x++`, `++x` and `x = x + 1` (and likewise for
//! `--`, `-=` and the other arithmetic and bitwise operators), so a copy
//! that rewrites one into the other keeps its symbols.
//!
//! Only where the meaning is the same: a step (`x++`, `--x`) whose value is
//! not used (a statement of its own, or a `for` loop's update) of a plain
//! name, and an assignment `x = x op e` whose right side is a binary
//! expression with `x` alone on its left (`x = x - y - z` is `(x - y) - z`
//! and stays as written). Spans stay increasing: the symbols of `x++` take
//! the name's span and one byte each of `++`; those of `x = x + e` are `x`,
//! `+=` at the `=`, then `e`.

use crate::flat::Node;
use bryo_frontend::SymbolClass;

use crate::dead::{StatementTable, PATTERN, UPDATE};
use crate::walk::Role;

/// The text of a symbol the walk emits in place of a node's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Lexeme {
    /// This spelling.
    Fixed(&'static [u8]),
    /// The text at this byte range.
    Text(u32, u32),
}

/// One symbol emitted in place of a node's subtree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Emit {
    pub(crate) class: SymbolClass,
    pub(crate) lexeme: Lexeme,
    pub(crate) start: u32,
    pub(crate) end: u32,
}

/// What the walk does differently from the plain tree: nodes left out with
/// their subtree, and nodes whose subtree is replaced by given symbols.
#[derive(Debug, Default)]
pub(crate) struct Edits {
    /// Node ids, sorted.
    pub(crate) skip: Vec<usize>,
    /// By node id, sorted.
    pub(crate) replace: Vec<(usize, Vec<Emit>)>,
}

impl Edits {
    pub(crate) fn is_empty(&self) -> bool {
        self.skip.is_empty() && self.replace.is_empty()
    }

    pub(crate) fn sort(&mut self) {
        self.skip.sort_unstable();
        self.skip.dedup();
        self.replace.sort_unstable_by_key(|r| r.0);
    }

    pub(crate) fn skips(&self, id: usize) -> bool {
        !self.skip.is_empty() && self.skip.binary_search(&id).is_ok()
    }

    pub(crate) fn replacement(&self, id: usize) -> Option<&[Emit]> {
        if self.replace.is_empty() {
            return None;
        }
        self.replace
            .binary_search_by_key(&id, |r| r.0)
            .ok()
            .map(|i| &self.replace[i].1[..])
    }

    /// A reader of the edits for node ids asked in increasing order (the
    /// walk's pre-order): each question moves on from the last answer
    /// instead of searching both lists again.
    pub(crate) fn in_order(&self) -> InOrder<'_> {
        InOrder {
            edits: self,
            skip_at: 0,
            replace_at: 0,
            last: None,
        }
    }
}

/// [`Edits::skips`] and [`Edits::replacement`] for ids in increasing
/// order ([`Edits::in_order`]), with the same answers.
pub(crate) struct InOrder<'e> {
    edits: &'e Edits,
    skip_at: usize,
    replace_at: usize,
    last: Option<usize>,
}

impl<'e> InOrder<'e> {
    fn advance(&mut self, id: usize) {
        debug_assert!(self.last.is_none_or(|l| l <= id), "ids out of order");
        self.last = Some(id);
        let (skip, replace) = (&self.edits.skip, &self.edits.replace);
        while skip.get(self.skip_at).is_some_and(|&s| s < id) {
            self.skip_at += 1;
        }
        while replace.get(self.replace_at).is_some_and(|r| r.0 < id) {
            self.replace_at += 1;
        }
    }

    /// Whether node `id` is left out with its subtree.
    pub(crate) fn skips(&mut self, id: usize) -> bool {
        self.advance(id);
        self.edits.skip.get(self.skip_at) == Some(&id)
    }

    /// The symbols that replace node `id`'s subtree, if any.
    pub(crate) fn replacement(&mut self, id: usize) -> Option<&'e [Emit]> {
        self.advance(id);
        let replace = &self.edits.replace;
        match replace.get(self.replace_at) {
            Some(r) if r.0 == id => {
                // Two replacements of one node: the one a binary search
                // finds, as `Edits::replacement` answers.
                if replace.get(self.replace_at + 1).is_some_and(|n| n.0 == id) {
                    self.edits.replacement(id)
                } else {
                    Some(&r.1[..])
                }
            }
            _ => None,
        }
    }
}

/// The rewrites of equivalent forms, node by node (the walk is
/// `shape::rewrite`'s).
pub(crate) struct Forms<'a> {
    pub(crate) text: &'a [u8],
    pub(crate) roles: &'a [Role],
    pub(crate) table: &'a StatementTable,
}

impl Forms<'_> {
    /// Adds to `edits` the rewrite of `node` if it is an equivalent form;
    /// `unused`: whether its parent discards its value.
    pub(crate) fn visit(&self, node: Node<'_>, flags: u16, unused: bool, edits: &mut Edits) {
        let kinds = &self.table.kinds;
        if kinds.modifiers.contains(&node) {
            // Access, `static`, `final`, `synchronized`, annotations: a
            // declaration's modifiers are left out.
            edits.skip.push(node.id());
            return;
        }
        // `((e))`, `return (e)`, `f((e))`, `(x) + 1`: parentheses around a
        // whole value, a name or a literal hold nothing together.
        if kinds.parenthesized.contains(&node) {
            let only = (node.named_child_count() == 1)
                .then(|| node.named_child(0))
                .flatten();
            let leaf = only.is_some_and(|c| {
                matches!(
                    self.roles.get(usize::from(c.kind_id())),
                    Some(Role::Identifier | Role::Literal(_))
                )
            });
            if leaf {
                self.drop_parentheses(Some(node), edits);
            } else if only.is_some_and(|c| kinds.parenthesized.contains(&c)) {
                self.drop_parentheses(only, edits);
            }
        } else if kinds.unwrapping.contains(&node) {
            for child in node.named_children() {
                self.drop_parentheses(Some(child), edits);
            }
        }
        if flags & UPDATE != 0 {
            self.step(node, unused, edits);
        } else if self
            .table
            .assignment
            .get(usize::from(node.kind_id()))
            .copied()
            .flatten()
            .is_some()
        {
            // `x = (e)`, `x += (e)`: the parentheses hold nothing together.
            if let Some(f) = self.table.right_field {
                self.drop_parentheses(node.child_by_field_id(f), edits);
            }
            self.self_assignment(node, edits);
        }
    }

    /// Leaves out the parentheses of `node` if it is a parenthesized
    /// expression (of one expression).
    fn drop_parentheses(&self, node: Option<Node<'_>>, edits: &mut Edits) {
        let Some(node) = node
            .filter(|n| self.table.kinds.parenthesized.contains(n) && n.named_child_count() == 1)
        else {
            return;
        };
        let last = (node.child_count() as u32).checked_sub(1);
        for paren in [node.child(0), last.and_then(|i| node.child(i))]
            .into_iter()
            .flatten()
        {
            if matches!(self.text_of(&paren), b"(" | b")") {
                edits.skip.push(paren.id());
            }
        }
    }

    fn text_of(&self, node: &Node<'_>) -> &[u8] {
        self.text.get(node.byte_range()).unwrap_or_default()
    }

    /// `node` if it is a plain name, or the name inside a one-element
    /// list (Go's `expression_list`).
    fn name<'t>(&self, node: Option<Node<'t>>) -> Option<Node<'t>> {
        let node = node?;
        let role = self.roles.get(usize::from(node.kind_id())).copied();
        if role == Some(Role::Identifier) {
            return Some(node);
        }
        if self.table.flags(&node) & PATTERN != 0 && node.named_child_count() == 1 {
            return self.name(node.named_child(0));
        }
        None
    }

    /// The first anonymous child of `node` spelled like one of `spellings`.
    fn token<'t>(&self, node: Node<'t>, spellings: &[&[u8]]) -> Option<Node<'t>> {
        let found = node
            .children()
            .find(|c| !c.is_named() && spellings.contains(&self.text_of(c)));
        found
    }

    /// `x++`, `++x`, `x--`, `--x` whose value is `unused` (its parent is a
    /// block, a statement or a `for` header) → `x += 1`, `x -= 1`.
    fn step(&self, node: Node<'_>, unused: bool, edits: &mut Edits) {
        let Some(op) = self.token(node, &[b"++", b"--"]) else {
            return;
        };
        let Some(operand) = self.name(node.named_child(0)) else {
            return;
        };
        if !unused || op.end_byte() - op.start_byte() != 2 {
            return;
        }
        let assign: &'static [u8] = if self.text_of(&op) == b"++" {
            b"+="
        } else {
            b"-="
        };
        let (o, e) = (op.start_byte() as u32, op.end_byte() as u32);
        let name = Lexeme::Text(operand.start_byte() as u32, operand.end_byte() as u32);
        let (ns, ne) = (operand.start_byte() as u32, operand.end_byte() as u32);
        let symbols = if ns < o {
            // x++: `x` at x, `+=` and `1` at one byte of `++` each.
            vec![
                emit(SymbolClass::Identifier, name, ns, ne),
                emit(SymbolClass::Operator, Lexeme::Fixed(assign), o, o + 1),
                emit(SymbolClass::Number, Lexeme::Fixed(b"1"), o + 1, e),
            ]
        } else {
            // ++x: `x` and `+=` at one byte of `++` each, `1` at x.
            vec![
                emit(SymbolClass::Identifier, name, o, o + 1),
                emit(SymbolClass::Operator, Lexeme::Fixed(assign), o + 1, e),
                emit(SymbolClass::Number, Lexeme::Fixed(b"1"), ns, ne),
            ]
        };
        edits.replace.push((node.id(), symbols));
    }

    /// `x = x op e` → `x op= e`.
    fn self_assignment<'t>(&self, node: Node<'t>, edits: &mut Edits) {
        fn field<'t>(f: Option<u16>, n: &Node<'t>) -> Option<Node<'t>> {
            f.and_then(|f| n.child_by_field_id(f))
        }
        let Some(target) = self.name(field(self.table.left_field, &node)) else {
            return;
        };
        let Some(eq) = self.token(node, &[b"="]) else {
            return;
        };
        let Some(mut right) = field(self.table.right_field, &node) else {
            return;
        };
        if self.table.flags(&right) & PATTERN != 0 && right.named_child_count() == 1 {
            match right.named_child(0) {
                Some(only) => right = only,
                None => return,
            }
        }
        let Some(first) = self.name(field(self.table.left_field, &right)) else {
            return;
        };
        let Some(op) = field(self.table.operator_field, &right) else {
            return;
        };
        if self.text_of(&first) != self.text_of(&target) {
            return;
        }
        let assign: &'static [u8] = match self.text_of(&op) {
            b"+" => b"+=",
            b"-" => b"-=",
            b"*" => b"*=",
            b"/" => b"/=",
            b"%" => b"%=",
            b"&" => b"&=",
            b"|" => b"|=",
            b"^" => b"^=",
            b"<<" => b"<<=",
            b">>" => b">>=",
            _ => return,
        };
        let (s, e) = (eq.start_byte() as u32, eq.end_byte() as u32);
        edits.replace.push((
            eq.id(),
            vec![emit(SymbolClass::Operator, Lexeme::Fixed(assign), s, e)],
        ));
        edits.skip.push(first.id());
        edits.skip.push(op.id());
        // `x = x op (e)` → `x op= e`: the parentheses only held `e`
        // together.
        self.drop_parentheses(field(self.table.right_field, &right), edits);
    }
}

fn emit(class: SymbolClass, lexeme: Lexeme, start: u32, end: u32) -> Emit {
    Emit {
        class,
        lexeme,
        start,
        end,
    }
}

#[cfg(test)]
mod tests {
    use super::{Edits, Emit, Lexeme};
    use crate::test_support::normalize_random;
    use crate::{languages, Options};
    use bryo_frontend::SymbolClass;
    use proptest::prelude::*;

    fn options() -> Options {
        Options {
            canonical_forms: true,
            ..Options::default()
        }
    }

    fn symbols(lang: &str, src: &str) -> Vec<u64> {
        crate::test_support::symbols(lang, src, &options())
    }

    /// Every spelling of one step, in a function of each language that has
    /// it, gives the symbols of the first.
    #[test]
    fn steps_and_self_assignments_are_one_form() {
        let cases: [(&str, &str, &[&str]); 7] = [
            (
                "java",
                "class A { void f(int i) { $; g(i); } }",
                &["i++", "++i", "i += 1", "i = i + 1"],
            ),
            (
                "c",
                "void f(int i) { $; g(i); }",
                &["i++", "++i", "i += 1", "i = i + 1"],
            ),
            (
                "cpp",
                "void f(int i) { $; g(i); }",
                &["i--", "--i", "i -= 1", "i = i - 1"],
            ),
            (
                "javascript",
                "function f(i) { $; g(i); }",
                &["i++", "++i", "i += 1", "i = i + 1"],
            ),
            (
                "csharp",
                "class A { void F(int i) { $; G(i); } }",
                &["i++", "++i", "i += 1", "i = i + 1"],
            ),
            (
                "go",
                "package p\nfunc f(i int) { $; g(i) }\n",
                &["i++", "i += 1", "i = i + 1"],
            ),
            (
                "python",
                "def f(i):\n    $\n    g(i)\n",
                &["i += 1", "i = i + 1"],
            ),
        ];
        for (lang, frame, forms) in cases {
            crate::test_support::one_form(lang, frame, forms, &options());
        }
        let java = |s: &str| symbols("java", &format!("class A {{ void f(int i) {{ {s}; }} }}"));
        assert_eq!(java("x = x * (y + 2)"), java("x *= (y + 2)"));
        assert_eq!(java("x = x * (y + 2)"), java("x *= y + 2"));
        assert_eq!(java("x = (y + 2)"), java("x = y + 2"));
        // Where the forms differ in meaning, or in what the right side is,
        // nothing is rewritten.
        assert_ne!(java("y = x++"), java("y = x += 1"));
        assert_ne!(java("x = x - y - z"), java("x -= y - z"));
        assert_ne!(java("x = y + 1"), java("x += 1"));
        // Modifiers and annotations are left out.
        assert_eq!(
            symbols(
                "java",
                "class A { @Override public static synchronized int f() { return 1; } }"
            ),
            symbols("java", "class A { int f() { return 1; } }")
        );
        assert_eq!(
            symbols("csharp", "class A { public static int F() { return 1; } }"),
            symbols("csharp", "class A { int F() { return 1; } }")
        );
        // Parentheses around a whole value or a single name go.
        assert_eq!(java("return (x)"), java("return x"));
        assert_eq!(java("g((x + 1), (y))"), java("g(x + 1, y)"));
        assert_eq!(java("y = ((x + 1)) * 2"), java("y = (x + 1) * 2"));
        assert_eq!(java("y = (x) * (2)"), java("y = x * 2"));
        assert_ne!(java("y = (x + 1) * 2"), java("y = x + 1 * 2"));
        // The parentheses around the rest go with the expansion.
        for lang in ["java", "c", "cpp", "javascript", "csharp"] {
            let src = |s: &str| format!("int f(int x) {{ {s}; return x; }}");
            assert_eq!(
                symbols(lang, &src("x = x + (a * b)")),
                symbols(lang, &src("x += a * b")),
                "{lang}"
            );
            assert_ne!(
                symbols(lang, &src("x = x * (a + b)")),
                symbols(lang, &src("x = x * a + b")),
                "{lang}"
            );
        }
        // A for loop's update is a step whose value is unused.
        assert_eq!(
            java("for (i = 0; i < n; i++) g(i)"),
            java("for (i = 0; i < n; i = i + 1) g(i)")
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// On any text: no panic, spans strictly increasing, inside the
        /// text, non-empty.
        #[test]
        fn rewritten_streams_keep_the_span_invariant(
            s in "[a-z_ (){}\\[\\];,.=+*<>!&|\"0-9\\n\\t-]{0,300}|(x|y|=|\\+|-|\\+\\+|--|;|\\{|\\}|\\(|\\)|for|int|\\n| )*",
            li in 0usize..9,
        ) {
            let lang = &languages()[li % languages().len()];
            let options = Options {
                max_error_share: 1.0,
                canonical_forms: true,
                drop_dead_code: true,
                ..Options::default()
            };
            let n = normalize_random(lang, s.as_bytes(), &options);
            prop_assume!(n.is_some());
            let n = n.unwrap();
            let mut last = 0;
            for span in &n.spans {
                prop_assert!(span.start >= last && span.start < span.end, "{}: {:?}", lang.name(), n.spans);
                prop_assert!(span.end as usize <= s.len());
                last = span.end;
            }
        }
    }

    proptest! {
        /// The in-order reader answers as the searches do, for any sorted
        /// edits (replacements of one node twice included) and any
        /// increasing questions.
        #[test]
        fn in_order_answers_as_the_searches(
            mut skip in proptest::collection::vec(0usize..60, 0..20),
            mut replaced in proptest::collection::vec((0usize..60, 0u32..4), 0..20),
            mut asked in proptest::collection::vec(0usize..64, 0..40),
        ) {
            skip.sort_unstable();
            skip.dedup();
            let emit = |n: u32| Emit {
                class: SymbolClass::Operator,
                lexeme: Lexeme::Fixed(b"+"),
                start: n,
                end: n + 1,
            };
            let mut edits = Edits {
                skip,
                replace: replaced.drain(..).map(|(id, n)| (id, vec![emit(n)])).collect(),
            };
            edits.sort();
            asked.sort_unstable();
            let mut reader = edits.in_order();
            for &id in &asked {
                prop_assert_eq!(reader.skips(id), edits.skips(id));
                prop_assert_eq!(reader.replacement(id), edits.replacement(id));
            }
        }
    }
}
