//! Control flow written one way (token-sequence normalization against
//! restructuring): a C-style `for (init; cond; update) body` is emitted as
//! the `while` loop it stands for, `init; while (cond) { body update; }`
//! (the update before the body's closing brace, or after a body without
//! braces); a loop's body and a block that is a statement of another block
//! are emitted without their braces; and an `if`/`else` whose condition is
//! negated (`!c`, `a != b`, `a >= b`, `a <= b`) is emitted with the
//! condition's positive form and its branches swapped.
//!
//! Symbols are rewritten by the walk (`Edits`: the `for` keyword is
//! emitted as `while`, the `;` after the condition as `)`, the `)` as `;`)
//! and moved after it (`Move`: the update after the body, the branches
//! swapped), so every symbol keeps a span of its own in the text.

use crate::flat::{Flat, Node};
use bryo_frontend::SymbolClass;

use crate::HashSet;

use crate::chain::Chains;
use crate::dead::{StatementTable, BINARY, BLOCK, BRANCH, DROPPABLE, FOR_LIKE, LOOP, SWITCH};
use crate::forms::{Edits, Emit, Forms, Lexeme};
use crate::inline;
use crate::order::{ListFinder, Move};
use crate::walk::Role;

/// Loops and branches deeper than this in the tree keep their form: each
/// rewrite copies the symbols under its node, so unbounded nesting would
/// cost time quadratic in the file.
const MAX_DEPTH: u32 = 256;

/// Loops whose body is written without its braces (`loop_body`).
pub(crate) const LOOPS: &[&str] = &[
    "for_statement",
    "while_statement",
    "do_statement",
    "enhanced_for_statement",
    "foreach_statement",
    "for_in_statement",
];

/// Adds to `edits` (and `moves`) the rewrites of `tree`, in one walk:
/// equivalent forms (`forms.rs`) with `forms`, loops, branches and bare
/// blocks with `control`; and gives `lists` every node to find the lists
/// to put in canonical order (`order.rs`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn rewrite<'t>(
    tree: &'t Flat,
    text: &[u8],
    roles: &[Role],
    table: &StatementTable,
    forms: bool,
    control: bool,
    mut lists: Option<&mut ListFinder<'_>>,
    mut inlines: Option<&mut inline::Finder<'_, 't>>,
    edits: &mut Edits,
    moves: &mut Vec<Move>,
) {
    let shapes = Shapes { text, roles, table };
    let rewrites = Forms { text, roles, table };
    let mut chains = Chains {
        text,
        roles,
        table,
        dead: HashSet::default(),
    };
    let chained = chains.enabled();
    if chained {
        // Before any rewrite, `edits` holds only the dead statements.
        chains.dead = edits.skip.iter().copied().collect();
    }
    // The `if`s of chains already rewritten.
    let mut in_chain: HashSet<usize> = HashSet::default();
    let mut cursor = tree.walk();
    let mut depth = 0u32;
    // The flags of the nodes on the path (`Node::parent` searches from the
    // root: quadratic on deep trees).
    let mut path: Vec<u16> = Vec::new();
    // Operators already rewritten by a negated branch.
    let mut touched: HashSet<usize> = HashSet::default();
    // Lists holding each node of the path.
    let mut nesting: Vec<u32> = vec![0];
    loop {
        let node = cursor.node();
        let flags = table.flags(&node);
        let here = nesting.last().copied().unwrap_or(0);
        let is_list = match lists.as_deref_mut() {
            Some(finder) => finder.visit(node, flags, path.last().copied(), here, depth),
            None => false,
        };
        if let Some(finder) = inlines.as_deref_mut() {
            finder.visit(node, flags);
        }
        if forms {
            // A block, a droppable statement or a loop header discards the
            // value of a step in it.
            let unused = path
                .last()
                .is_none_or(|p| p & (BLOCK | DROPPABLE | FOR_LIKE) != 0);
            rewrites.visit(node, flags, unused, edits);
        }
        if control && depth <= MAX_DEPTH && !node.has_error() {
            if flags & LOOP != 0 {
                shapes.c_for(node, depth, edits, moves);
            } else if flags & SWITCH != 0 {
                chains.switch(node, edits);
            } else if flags & BRANCH != 0 {
                if !(chained && chains.if_chain(node, &mut in_chain, &mut touched, edits)) {
                    shapes.branch(node, depth, &mut touched, edits, moves);
                }
            } else if flags & BINARY != 0 {
                shapes.operands(node, depth, &touched, edits, moves);
            } else if flags & BLOCK != 0 && path.last().is_some_and(|p| p & BLOCK != 0) {
                shapes.bare_block(node, edits);
            }
            if table.kinds.loops.contains(&node) {
                shapes.loop_body(node, edits);
            }
        }
        if cursor.goto_first_child() {
            depth += 1;
            path.push(flags);
            nesting.push(here + u32::from(is_list));
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return;
            }
            depth -= 1;
            path.pop();
            nesting.pop();
        }
    }
}

/// One symbol of `class` spelled `text`, at `node`'s span.
fn fixed(class: SymbolClass, text: &'static [u8], node: &Node<'_>) -> Emit {
    Emit {
        class,
        lexeme: Lexeme::Fixed(text),
        start: node.start_byte() as u32,
        end: node.end_byte() as u32,
    }
}

struct Shapes<'a> {
    text: &'a [u8],
    roles: &'a [Role],
    table: &'a StatementTable,
}

impl Shapes<'_> {
    fn text_of(&self, node: &Node<'_>) -> &[u8] {
        self.text.get(node.byte_range()).unwrap_or_default()
    }

    fn field<'t>(&self, node: Node<'t>, name: &str) -> Option<Node<'t>> {
        node.child_by_field_name(name)
    }

    /// The anonymous children of `node` spelled `t`.
    fn tokens<'t>(&self, node: Node<'t>, t: &[u8]) -> Vec<Node<'t>> {
        let found = node
            .children()
            .filter(|c| !c.is_named() && self.text_of(c) == t)
            .collect();
        found
    }

    /// Leaves out the braces of a block that is a statement of another
    /// block (`{ int i = 0; while (…) … }`): they only scope names.
    fn bare_block(&self, block: Node<'_>, edits: &mut Edits) {
        let (Some(first), Some(last)) = (
            block.child(0),
            block.child((block.child_count() as u32).wrapping_sub(1)),
        ) else {
            return;
        };
        if first.id() != last.id() && self.text_of(&first) == b"{" && self.text_of(&last) == b"}" {
            edits.skip.push(first.id());
            edits.skip.push(last.id());
        }
    }

    /// Leaves out the braces of a loop's body: `while (c) s;` and `while
    /// (c) { s; }` are one loop, and the `while` loop a `for` loop stands
    /// for has a body of two statements or more (its update), which a
    /// rewriting tool writes in braces.
    fn loop_body(&self, node: Node<'_>, edits: &mut Edits) {
        if let Some(body) = node.child_by_field_name("body") {
            if self.table.flags(&body) & BLOCK != 0 {
                self.bare_block(body, edits);
            }
        }
    }

    /// `for (init; cond; update) { body }` → `init; while (cond) { body
    /// update; }`.
    fn c_for(&self, node: Node<'_>, depth: u32, edits: &mut Edits, moves: &mut Vec<Move>) {
        let (Some(keyword), Some(cond), Some(body)) = (
            node.child(0),
            self.field(node, "condition"),
            self.field(node, "body"),
        ) else {
            return;
        };
        if self.text_of(&keyword) != b"for"
            || self.roles.get(usize::from(cond.kind_id())) == Some(&Role::Dropped)
        {
            return;
        }
        let (Some(open), Some(close)) = (
            self.tokens(node, b"(").into_iter().next(),
            self.tokens(node, b")").into_iter().last(),
        ) else {
            return;
        };
        // The `;` after the condition: the first one at the loop's level
        // that ends after the condition starts.
        let Some(second) = self
            .tokens(node, b";")
            .into_iter()
            .find(|s| s.start_byte() >= cond.end_byte())
        else {
            return;
        };
        let ordered = open.end_byte() <= cond.start_byte()
            && cond.end_byte() <= second.start_byte()
            && second.end_byte() <= close.start_byte()
            && close.end_byte() <= body.start_byte();
        if !ordered {
            return;
        }
        let has_init = node.children().any(|c| {
            c.is_named()
                && c.start_byte() >= open.end_byte()
                && c.end_byte() <= cond.start_byte()
                && c.kind() != "empty_statement"
        });
        let has_update = node.children().any(|c| {
            c.is_named()
                && c.start_byte() >= second.end_byte()
                && c.end_byte() <= close.start_byte()
        });
        if !has_init {
            // `for (; c; u)`: no statement before the loop.
            let first = node.children().find(|c| {
                c.start_byte() >= open.end_byte()
                    && c.end_byte() <= cond.start_byte()
                    && (self.text_of(c) == b";" || c.kind() == "empty_statement")
            });
            if let Some(first) = first {
                edits.skip.push(first.id());
            }
        }
        edits.replace.push((
            keyword.id(),
            vec![fixed(SymbolClass::Keyword, b"while", &keyword)],
        ));
        edits.replace.push((
            second.id(),
            vec![fixed(SymbolClass::Operator, b")", &second)],
        ));
        if has_update {
            edits
                .replace
                .push((close.id(), vec![fixed(SymbolClass::Operator, b";", &close)]));
        } else {
            edits.skip.push(close.id());
        }
        let b = |n: usize| n as u32;
        let last = body.child((body.child_count() as u32).wrapping_sub(1));
        // A block body takes the update before its closing brace, as the
        // `while` loop's does: [for (] [init ;] [cond )] [update ;] [{ body]
        // [}] → [init ;] [while (] [cond )] [{ body] [update ;] [}].
        let block =
            self.table.flags(&body) & BLOCK != 0 && last.is_some_and(|l| self.text_of(&l) == b"}");
        let mut bounds = vec![
            b(node.start_byte()),
            b(open.end_byte()),
            b(cond.start_byte()),
            b(second.end_byte()),
            b(body.start_byte()),
        ];
        let order = match last.filter(|_| block) {
            Some(close_brace) => {
                bounds.push(b(close_brace.start_byte()));
                vec![1, 0, 2, 4, 3, 5]
            }
            // A single statement: [for (] [init ;] [cond )] [update ;]
            // [body] → [init ;] [while (] [cond )] [body] [update ;].
            None => vec![1, 0, 2, 4, 3],
        };
        bounds.push(b(body.end_byte()));
        moves.push(Move {
            depth,
            bounds,
            order,
            sort_ends: false,
        });
    }

    /// `if (!c) a else b` → `if (c) b else a`, and likewise for `!=`, `>=`,
    /// `<=` (`==`, `<`, `>`).
    fn branch(
        &self,
        node: Node<'_>,
        depth: u32,
        touched: &mut HashSet<usize>,
        edits: &mut Edits,
        moves: &mut Vec<Move>,
    ) {
        let (Some(cond), Some(then)) = (
            self.field(node, "condition"),
            self.field(node, "consequence"),
        ) else {
            return;
        };
        let Some(alt) = self.field(node, "alternative") else {
            return;
        };
        // C and JavaScript: `alternative: else_clause { else, statement }`;
        // Java and C#: `else` and the statement are children of the `if`.
        let (else_start, other) = if alt.kind() == "else_clause" {
            let inner = self
                .field(alt, "body")
                .or_else(|| alt.named_child((alt.named_child_count() as u32).wrapping_sub(1)));
            match inner {
                Some(inner) => (alt.start_byte(), inner),
                None => return,
            }
        } else {
            match self.tokens(node, b"else").into_iter().next() {
                Some(e) => (e.start_byte(), alt),
                None => return,
            }
        };
        // The condition inside its parentheses (or C++'s condition clause).
        let mut inner = cond;
        while matches!(
            inner.kind(),
            "parenthesized_expression" | "condition_clause"
        ) && inner.named_child_count() == 1
        {
            match inner.named_child(0) {
                Some(c) => inner = c,
                None => return,
            }
        }
        let ordered = then.end_byte() <= else_start && else_start <= other.start_byte();
        let Some(pending) = self.negation(inner).filter(|_| ordered) else {
            return;
        };
        edits.skip.extend(pending.skip);
        touched.extend(pending.replace.iter().map(|r| r.0));
        edits.replace.extend(pending.replace);
        // [if (c)] [a] [else] [b] → [if (c)] [b] [else] [a]
        let b = |n: usize| n as u32;
        moves.push(Move {
            depth,
            bounds: vec![
                b(node.start_byte()),
                b(then.start_byte()),
                b(else_start),
                b(other.start_byte()),
                b(other.end_byte()),
            ],
            order: vec![0, 3, 2, 1],
            sort_ends: false,
        });
    }

    /// Whether `node` is emitted as one symbol (a name, a literal, a
    /// token).
    fn atomic(&self, node: &Node<'_>) -> bool {
        node.child_count() == 0
            || matches!(
                self.roles.get(usize::from(node.kind_id())),
                Some(Role::Identifier | Role::Literal(_))
            )
    }

    /// `b > a` → `a < b` (likewise `>=`), and the operands of `+`, `*`,
    /// `==`, `!=`, `&`, `|`, `^` in one order, when both are single
    /// symbols.
    fn operands(
        &self,
        node: Node<'_>,
        depth: u32,
        touched: &HashSet<usize>,
        edits: &mut Edits,
        moves: &mut Vec<Move>,
    ) {
        let t = self.table;
        let field = |f: Option<u16>| f.and_then(|f| node.child_by_field_id(f));
        let (Some(left), Some(op), Some(right)) = (
            field(t.left_field),
            field(t.operator_field),
            field(t.right_field),
        ) else {
            return;
        };
        if !self.atomic(&left) || !self.atomic(&right) || touched.contains(&op.id()) {
            return;
        }
        if !(left.end_byte() <= op.start_byte() && op.end_byte() <= right.start_byte()) {
            return;
        }
        let mirrored: Option<&'static [u8]> = match self.text_of(&op) {
            b">" => Some(b"<"),
            b">=" => Some(b"<="),
            b"+" | b"*" | b"==" | b"!=" | b"===" | b"!==" | b"&" | b"|" | b"^" => None,
            _ => return,
        };
        if let Some(m) = mirrored {
            edits
                .replace
                .push((op.id(), vec![fixed(SymbolClass::Operator, m, &op)]));
        }
        let b = |n: usize| n as u32;
        moves.push(Move {
            depth,
            bounds: vec![
                b(left.start_byte()),
                b(op.start_byte()),
                b(right.start_byte()),
                b(right.end_byte()),
            ],
            order: vec![2, 1, 0],
            sort_ends: mirrored.is_none(),
        });
    }

    /// The edits that write a negated condition in its positive form, or
    /// `None` if it is not one: `!c` (the `!` left out, with the
    /// parentheses of `!(…)`), `a != b`, `a >= b`, `a <= b` (`==`, `<`,
    /// `>`).
    fn negation(&self, inner: Node<'_>) -> Option<Edits> {
        let mut out = Edits::default();
        match inner.kind() {
            "unary_expression" | "not_operator" | "prefix_unary_expression" => {
                let op = inner.child(0)?;
                if !matches!(self.text_of(&op), b"!" | b"not") || inner.named_child_count() != 1 {
                    return None;
                }
                out.skip.push(op.id());
                let arg = inner.named_child(0)?;
                if arg.kind() == "parenthesized_expression" && arg.named_child_count() == 1 {
                    for p in self
                        .tokens(arg, b"(")
                        .into_iter()
                        .chain(self.tokens(arg, b")"))
                    {
                        out.skip.push(p.id());
                    }
                }
            }
            "binary_expression" | "comparison_operator" => {
                let op = self.field(inner, "operator").or_else(|| {
                    let ops: Vec<Node<'_>> = inner.children().filter(|c| !c.is_named()).collect();
                    (ops.len() == 1).then(|| ops[0])
                })?;
                let positive: &'static [u8] = match self.text_of(&op) {
                    b"!=" => b"==",
                    b"!==" => b"===",
                    b">=" => b"<",
                    b"<=" => b">",
                    _ => return None,
                };
                out.replace
                    .push((op.id(), vec![fixed(SymbolClass::Operator, positive, &op)]));
            }
            _ => return None,
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use crate::test_support;
    use crate::test_support::normalize_random;
    use crate::{languages, Options};
    use proptest::prelude::*;

    fn options() -> Options {
        Options {
            canonical_control: true,
            canonical_forms: true,
            ..Options::default()
        }
    }

    fn symbols(lang: &str, src: &str) -> Vec<u64> {
        test_support::symbols(lang, src, &options())
    }

    fn one_form(lang: &str, frame: &str, forms: &[&str]) {
        test_support::one_form(lang, frame, forms, &options())
    }

    #[test]
    fn for_loops_are_while_loops() {
        one_form(
            "java",
            "class A { int f(int[] a, int n) { int s = 0; $ return s; } }",
            &[
                "for (int i = 0; i < n; i++) { s += a[i]; }",
                "int i = 0; while (i < n) { s += a[i]; i++; }",
                "int i = 0; while (i < n) { s = s + a[i]; i = i + 1; }",
            ],
        );
        one_form(
            "c",
            "int f(int *a, int n) { int s = 0, i; $ return s; }",
            &[
                "for (i = 0; i < n; i++) { s += a[i]; }",
                "i = 0; while (i < n) { s += a[i]; i++; }",
            ],
        );
        one_form(
            "javascript",
            "function f(a, n) { let s = 0; $ return s; }",
            &[
                "for (let i = 0; i < n; i++) { s += a[i]; }",
                "let i = 0; while (i < n) { s += a[i]; i++; }",
            ],
        );
        one_form(
            "csharp",
            "class A { int F(int[] a, int n) { int s = 0; $ return s; } }",
            &[
                "for (int i = 0; i < n; i++) { s += a[i]; }",
                "int i = 0; while (i < n) { s += a[i]; i++; }",
            ],
        );
        // The loop in a block of its own, as a rewriting tool leaves it.
        one_form(
            "java",
            "class A { int f(int n) { int s = 0; $ return s; } }",
            &[
                "for (int i = 0; i < n; i++) { s += i; }",
                "{ int i = 0; while (i < n) { s += i; i++; } }",
            ],
        );
        // No update, no initializer.
        one_form(
            "cpp",
            "int f(int n) { int s = 0; $ return s; }",
            &[
                "for (; n > 0;) { s += n--; }",
                "while (n > 0) { s += n--; }",
            ],
        );
        // A loop without a condition is left as it is.
        assert_ne!(
            symbols("c", "void f() { for (;;) g(); }"),
            symbols("c", "void f() { while (1) g(); }")
        );
    }

    #[test]
    fn loop_bodies_are_written_without_braces() {
        one_form(
            "c",
            "int f(int *a, int n) { int s = 0, i; $ return s; }",
            &[
                "for (i = 0; i < n; i++) s += a[i];",
                "for (i = 0; i < n; i++) { s += a[i]; }",
                "i = 0; while (i < n) { s += a[i]; i++; }",
                "i = 0; while (i < n) { { s += a[i]; } i++; }",
            ],
        );
        one_form(
            "java",
            "class A { int f(int[] a) { int s = 0; $ return s; } }",
            &["for (int x : a) s += x;", "for (int x : a) { s += x; }"],
        );
        one_form(
            "cpp",
            "int f(int n) { int s = 0; $ return s; }",
            &[
                "do s += n--; while (n > 0);",
                "do { s += n--; } while (n > 0);",
            ],
        );
        // `for … of` and `for … in`: tree-sitter's field lookup misses
        // their `body` (the arena's does not).
        for lang in ["javascript", "typescript"] {
            one_form(
                lang,
                "function f(a) { let s = 0; $ return s; }",
                &[
                    "for (const x of a) s += x;",
                    "for (const x of a) { s += x; }",
                ],
            );
            one_form(
                lang,
                "function f(a) { let s = 0; $ return s; }",
                &[
                    "for (const k in a) s += a[k];",
                    "for (const k in a) { s += a[k]; }",
                ],
            );
        }
        one_form(
            "csharp",
            "class A { int F(int[] a) { int s = 0; $ return s; } }",
            &[
                "foreach (var x in a) s += x;",
                "foreach (var x in a) { s += x; }",
            ],
        );
        // A branch keeps its braces.
        assert_ne!(
            symbols("c", "void f(int a) { if (a) { g(); } }"),
            symbols("c", "void f(int a) { if (a) g(); }")
        );
    }

    #[test]
    fn negated_branches_are_swapped() {
        one_form(
            "java",
            "class A { void f(int a, int b) { $ } }",
            &[
                "if (a < b) { x(); } else { y(1); }",
                "if (a >= b) { y(1); } else { x(); }",
                "if (!(a < b)) { y(1); } else { x(); }",
            ],
        );
        one_form(
            "c",
            "void f(int a, int b) { $ }",
            &[
                "if (a == b) x(); else { y(1); z(); }",
                "if (a != b) { y(1); z(); } else x();",
            ],
        );
        one_form(
            "python",
            "def f(a, b):\n    $\n",
            &[
                "if a:\n        x()\n    else:\n        y(1)",
                "if not a:\n        y(1)\n    else:\n        x()",
            ],
        );
        one_form(
            "javascript",
            "function f(a, b) { $ }",
            &[
                "if (a === b) { x(); } else { y(1); }",
                "if (a !== b) { y(1); } else { x(); }",
            ],
        );
        // Without an `else` nothing is swapped, and a positive condition
        // stays.
        assert_ne!(
            symbols("java", "class A { void f(int a) { if (!(a < 1)) x(); } }"),
            symbols("java", "class A { void f(int a) { if (a < 1) x(); } }")
        );
        assert_ne!(
            symbols("c", "void f(int a) { if (a < 1) x(1); else y(); }"),
            symbols("c", "void f(int a) { if (a < 1) y(); else x(1); }")
        );
    }

    #[test]
    fn mirrored_and_commutative_operands_take_one_order() {
        let frame = "class A { int f(int x, int[] v) { $ return x; } }";
        one_form("java", frame, &["if (x < 5) g(x);", "if (5 > x) g(x);"]);
        one_form("java", frame, &["g(x <= 3, x);", "g(3 >= x, x);"]);
        one_form("java", frame, &["x = g(x + 1);", "x = g(1 + x);"]);
        one_form(
            "c",
            "int f(int a) { return $; }",
            &[
                "a == 0 || 2 * a != 7",
                "0 == a || a * 2 != 7",
                "0 == a || a * 2 != 7",
            ],
        );
        // Only where the order does not matter, and only single symbols.
        assert_ne!(
            symbols("java", "class A { int f(int x) { return x - 1; } }"),
            symbols("java", "class A { int f(int x) { return 1 - x; } }")
        );
        assert_ne!(
            symbols("c", "int f(int a, int b) { return a * (b + 1); }"),
            symbols("c", "int f(int a, int b) { return (b + 1) * a; }")
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// On any text, in every language: no panic, and every span is
        /// inside the text and apart from every other.
        #[test]
        fn rewritten_control_flow_keeps_spans_apart(
            s in "[a-z_ (){}\\[\\];,.=+*<>!&|\"0-9\n\t-]{0,300}|(for|if|else|while|switch|case|default|break|return|not|!|!=|==|>=|\\|\\||x|i|1|=|;|<|\\+\\+|\\{|\\}|\\(|\\)|\n|    |:| )*",
            li in 0usize..9,
        ) {
            let lang = &languages()[li % languages().len()];
            let mut o = options();
            o.max_error_share = 1.0;
            o.drop_dead_code = true;
            o.canonical_order = true;
            let n = normalize_random(lang, s.as_bytes(), &o);
            prop_assume!(n.is_some());
            let n = n.unwrap();
            let mut spans = n.spans.clone();
            spans.sort();
            for w in spans.windows(2) {
                prop_assert!(w[0].end <= w[1].start, "{}: {:?}", lang.name(), n.spans);
            }
            for span in &spans {
                prop_assert!(span.start < span.end && span.end as usize <= s.len());
            }
        }
    }
}
