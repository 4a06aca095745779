//! Canonical order (token-sequence normalization against reordering): the
//! statements of a block whose reads and writes do not conflict, the members
//! of a class and the definitions of a file are put in one order that does
//! not depend on the order they were written in, so that a copy with moved
//! declarations, statements or methods keeps the symbols of its original.
//!
//! For each *list* (a block's statements, a class body's members, a file's
//! top level) the analysis records of every child what it reads and writes
//! (by name, as text), whether it has an effect (a call, a `new`, a jump
//! token, a write of a non-local name) and whether it is a *barrier* (it
//! starts with a jump, or is a label or a `case`). Two children *conflict*
//! if one writes a name the other reads or writes, if both have effects, or
//! if either is a barrier. Definitions (functions, methods, types) only bind
//! their name: two methods never conflict, a call of a function after its
//! definition does.
//!
//! After the walk, each list's children are put in the order of a
//! topological sort of the conflict order that always takes, among the
//! children whose conflicting predecessors are out, the one with the least
//! key, a hash of its own symbols (then the one written first). That order
//! depends only on which pairs conflict and on the children's symbols, so
//! any reordering of non-conflicting children gives the same stream. Lists
//! are put in order innermost first, so a child's key sees its own lists in
//! canonical order. Symbols keep their spans; the stream is then out of text
//! order where children moved (see `Normalized`).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::HashMap;

use crate::flat::Node;
use bryo_frontend::{Normalized, Span};

use crate::dead::{
    first_leaf, StatementTable, BLOCK, CALL, DEFINITION, LABEL, MEMBERS, NONLOCAL, SCOPE, UPDATE,
};
use crate::walk::Role;

/// Lists nested deeper than this (in lists) keep their order: it bounds the
/// work, one walk of each child's subtree per list holding it.
const MAX_NESTING: u32 = 32;

/// Lists with more children than this keep their order (a generated file's
/// thousand-statement block is no disguise).
const MAX_CHILDREN: usize = 4096;

/// One child of a list.
#[derive(Debug)]
struct Child {
    /// Its byte range.
    start: u32,
    end: u32,
    /// Names read or written (interned), sorted.
    reads: Vec<u32>,
    /// Names written, sorted.
    writes: Vec<u32>,
    effect: bool,
    barrier: bool,
}

/// A list whose children may be put in canonical order.
#[derive(Debug)]
pub(crate) struct List {
    /// Its depth in the tree.
    depth: u32,
    children: Vec<Child>,
}

/// A fixed reordering of a node's parts (`shape.rs`): the symbols between
/// consecutive byte offsets of `bounds` are the parts, emitted in `order`.
#[derive(Debug)]
pub(crate) struct Move {
    /// The node's depth in the tree.
    pub(crate) depth: u32,
    /// Increasing byte offsets; part `i` is `bounds[i]..bounds[i + 1]`.
    pub(crate) bounds: Vec<u32>,
    /// The parts in their new order.
    pub(crate) order: Vec<usize>,
    /// Instead of `order`: the first and the last part swapped if the
    /// last's symbols hash lower (the operands of a commutative operator
    /// in one order).
    pub(crate) sort_ends: bool,
}

/// Finds the lists of a tree, node by node during `shape::rewrite`'s walk,
/// with the analysis of their children: class bodies and top levels, and
/// with `statements` the blocks of statements too.
pub(crate) struct ListFinder<'a> {
    analysis: Analysis<'a>,
    names: HashMap<&'a [u8], u32>,
    statements: bool,
    /// The lists found.
    pub(crate) out: Vec<List>,
}

impl<'a> ListFinder<'a> {
    pub(crate) fn new(
        text: &'a [u8],
        roles: &'a [Role],
        table: &'a StatementTable,
        statements: bool,
    ) -> Self {
        ListFinder {
            analysis: Analysis { text, roles, table },
            names: HashMap::default(),
            statements,
            out: Vec::new(),
        }
    }

    /// Records `node` if it is a list (`flags` its own, `parent` its
    /// parent's; `nesting` lists hold it; `depth` in the tree); returns
    /// whether it is one.
    pub(crate) fn visit(
        &mut self,
        node: Node<'_>,
        flags: u16,
        parent: Option<u16>,
        nesting: u32,
        depth: u32,
    ) -> bool {
        // A block that is a class's body (Python) holds members too.
        let members = flags & MEMBERS != 0
            || (flags & BLOCK != 0 && parent.is_some_and(|p| p & DEFINITION != 0));
        let is_list = (members || (self.statements && flags & BLOCK != 0)) && !node.has_error();
        if is_list && nesting < MAX_NESTING {
            let kids: Vec<Node<'_>> = node
                .named_children()
                .filter(|k| !matches!(self.analysis.role(k), Some(Role::Dropped)))
                .collect();
            if kids.len() >= 2 && kids.len() <= MAX_CHILDREN {
                let children = kids
                    .iter()
                    .map(|&k| self.analysis.child(k, &mut self.names))
                    .collect();
                self.out.push(List { depth, children });
            }
        }
        is_list
    }
}

struct Analysis<'a> {
    text: &'a [u8],
    roles: &'a [Role],
    table: &'a StatementTable,
}

impl<'a> Analysis<'a> {
    fn role(&self, node: &Node<'_>) -> Option<Role> {
        self.roles.get(usize::from(node.kind_id())).copied()
    }

    fn text_of(&self, node: &Node<'_>) -> &'a [u8] {
        self.text.get(node.byte_range()).unwrap_or_default()
    }

    /// The name a definition binds, if it has a plain one (C's is under
    /// its declarators).
    fn defined_name(&self, node: Node<'_>) -> Option<&'a [u8]> {
        let t = self.table;
        let mut n = t
            .name_field
            .and_then(|f| node.child_by_field_id(f))
            .or_else(|| t.declarator_field.and_then(|f| node.child_by_field_id(f)))?;
        for _ in 0..4 {
            if self.role(&n) == Some(Role::Identifier) {
                return Some(self.text_of(&n));
            }
            n = t
                .declarator_field
                .and_then(|f| n.child_by_field_id(f))
                .or_else(|| t.name_field.and_then(|f| n.child_by_field_id(f)))?;
        }
        None
    }

    /// Whether `stmt` starts with a jump (or a `yield`, which hands
    /// control back too).
    fn jumps(&self, stmt: Node<'_>) -> bool {
        matches!(
            self.text_of(&first_leaf(stmt)),
            b"return" | b"break" | b"continue" | b"throw" | b"raise" | b"goto" | b"yield"
        )
    }

    /// Pushes the interned names of every identifier under `node` to `out`.
    fn identifiers(&self, node: Node<'_>, names: &mut HashMap<&'a [u8], u32>, out: &mut Vec<u32>) {
        let mut cursor = node.walk();
        loop {
            let n = cursor.node();
            let leaf = match self.role(&n) {
                Some(Role::Identifier) => {
                    out.push(intern(names, self.text_of(&n)));
                    true
                }
                Some(Role::Dropped | Role::Literal(_)) => true,
                _ => false,
            };
            if !leaf && cursor.goto_first_child() {
                continue;
            }
            loop {
                if cursor.node() == node {
                    return;
                }
                if cursor.goto_next_sibling() {
                    break;
                }
                if !cursor.goto_parent() {
                    return;
                }
            }
        }
    }

    fn child(&self, node: Node<'_>, names: &mut HashMap<&'a [u8], u32>) -> Child {
        let t = self.table;
        let flags = t.flags(&node);
        let mut c = Child {
            start: node.start_byte() as u32,
            end: node.end_byte() as u32,
            reads: Vec::new(),
            writes: Vec::new(),
            effect: false,
            barrier: flags & LABEL != 0 || self.jumps(node),
        };
        if flags & (SCOPE | DEFINITION) != 0 {
            // A definition binds its name; its body runs elsewhere.
            if let Some(name) = self.defined_name(node) {
                let id = intern(names, name);
                c.reads.push(id);
                c.writes.push(id);
            }
            return c;
        }
        let mut cursor = node.walk();
        loop {
            let n = cursor.node();
            let f = t.flags(&n);
            let kind = usize::from(n.kind_id());
            let mut descend = true;
            match self.role(&n) {
                Some(Role::Dropped | Role::Literal(_)) => descend = false,
                Some(Role::Identifier) => {
                    c.reads.push(intern(names, self.text_of(&n)));
                    descend = false;
                }
                _ => {}
            }
            if descend {
                if f & (CALL | NONLOCAL) != 0 || (f & SCOPE != 0 && n != node) {
                    c.effect = true;
                }
                let target_field = t
                    .assignment
                    .get(kind)
                    .copied()
                    .flatten()
                    .or_else(|| t.declarator.get(kind).copied().flatten());
                if let Some(field) = target_field.and_then(std::num::NonZeroU16::new) {
                    let targets: Vec<Node<'_>> = n.children_by_field_id(field).collect();
                    for target in targets {
                        self.identifiers(target, names, &mut c.writes);
                    }
                } else if f & UPDATE != 0 {
                    self.identifiers(n, names, &mut c.writes);
                }
                if n.child_count() == 0 {
                    let text = self.text_of(&n);
                    if t.spec.effect_tokens.iter().any(|e| e.as_bytes() == text) {
                        c.effect = true;
                    }
                }
            }
            if descend && cursor.goto_first_child() {
                continue;
            }
            loop {
                if cursor.node() == node {
                    c.reads.extend_from_slice(&c.writes);
                    for v in [&mut c.reads, &mut c.writes] {
                        v.sort_unstable();
                        v.dedup();
                    }
                    return c;
                }
                if cursor.goto_next_sibling() {
                    break;
                }
                cursor.goto_parent();
            }
        }
    }
}

fn intern<'a>(names: &mut HashMap<&'a [u8], u32>, name: &'a [u8]) -> u32 {
    let next = names.len() as u32;
    *names.entry(name).or_insert(next)
}

/// A list's children, or a move's parts, as symbol ranges of the stream
/// in text order.
struct Placed {
    depth: u32,
    /// For a list: indexes into its children of those with symbols.
    members: Vec<usize>,
    /// `ranges[i]`: the symbols of member (or part) `i`; between two
    /// members lie separators (`;`, `,`) that stay where they are.
    ranges: Vec<(usize, usize)>,
    /// For a move: the parts' new order.
    fixed: Option<Vec<usize>>,
    /// For a list: its index in `lists`.
    list: usize,
    /// For a move: [`Move::sort_ends`].
    sort_ends: bool,
}

/// Puts the children of every list of `lists` in canonical order and the
/// parts of every move in theirs in `out`, the stream the walk made of the
/// same tree (in text order), innermost first.
pub(crate) fn apply(lists: &[List], moves: &[Move], out: &mut Normalized) {
    if lists.is_empty() && moves.is_empty() {
        return;
    }
    let spans = &out.spans;
    let at = |byte: u32| spans.partition_point(|s| s.start < byte);
    // Every range is found while the stream is still in text order; a
    // node's reordering moves whole ranges of the nodes inside it, so
    // working innermost first keeps every range valid.
    let mut placed: Vec<Placed> = lists
        .iter()
        .enumerate()
        .map(|(li, list)| {
            let mut members = Vec::new();
            let mut ranges = Vec::new();
            for (i, c) in list.children.iter().enumerate() {
                let (s, e) = (at(c.start), at(c.end));
                if s < e {
                    members.push(i);
                    ranges.push((s, e));
                }
            }
            Placed {
                depth: list.depth,
                members,
                ranges,
                fixed: None,
                list: li,
                sort_ends: false,
            }
        })
        .collect();
    placed.extend(moves.iter().map(|m| Placed {
        depth: m.depth,
        members: Vec::new(),
        ranges: m.bounds.windows(2).map(|w| (at(w[0]), at(w[1]))).collect(),
        fixed: Some(m.order.clone()),
        list: 0,
        sort_ends: m.sort_ends,
    }));
    placed.sort_by_key(|p| Reverse(p.depth));
    let mut symbols: Vec<u64> = Vec::new();
    let mut new_spans: Vec<Span> = Vec::new();
    for p in &placed {
        let order = match &p.fixed {
            Some(_) if p.sort_ends => {
                let n = p.ranges.len();
                let (first, last) = (p.ranges[0], p.ranges[n - 1]);
                let mut order: Vec<usize> = (0..n).collect();
                if key(&out.symbols[last.0..last.1]) < key(&out.symbols[first.0..first.1]) {
                    order.swap(0, n - 1);
                }
                order
            }
            Some(order) => order.clone(),
            None => {
                if p.members.len() < 2 {
                    continue;
                }
                let keys: Vec<u64> = p
                    .ranges
                    .iter()
                    .map(|&(s, e)| key(&out.symbols[s..e]))
                    .collect();
                canonical(&p.members, &lists[p.list].children, &keys)
            }
        };
        if order.iter().enumerate().all(|(i, &j)| i == j) || p.ranges.is_empty() {
            continue;
        }
        let (first, last) = (p.ranges[0].0, p.ranges[p.ranges.len() - 1].1);
        symbols.clear();
        new_spans.clear();
        for (slot, &j) in order.iter().enumerate() {
            let (s, e) = p.ranges[j];
            symbols.extend_from_slice(&out.symbols[s..e]);
            new_spans.extend_from_slice(&out.spans[s..e]);
            // The separators after slot `slot` stay after it.
            if let Some(&(next, _)) = p.ranges.get(slot + 1) {
                let end = p.ranges[slot].1;
                symbols.extend_from_slice(&out.symbols[end..next]);
                new_spans.extend_from_slice(&out.spans[end..next]);
            }
        }
        out.symbols[first..last].copy_from_slice(&symbols);
        out.spans[first..last].copy_from_slice(&new_spans);
    }
}

/// The key of a child: a hash of its symbols.
fn key(symbols: &[u64]) -> u64 {
    let mut h: u64 = 0x243f_6a88_85a3_08d3 ^ symbols.len() as u64;
    for &s in symbols {
        h = (h.rotate_left(23) ^ s).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
    h ^ (h >> 29)
}

/// The canonical order of `members` (indexes into `children`, in text
/// order; `keys` per member): positions into `members`.
fn canonical(members: &[usize], children: &[Child], keys: &[u64]) -> Vec<usize> {
    let m = members.len();
    let mut succ: Vec<Vec<u32>> = vec![Vec::new(); m];
    let mut preds = vec![0u32; m];
    let mut edge = |from: usize, to: usize, succ: &mut Vec<Vec<u32>>| {
        succ[from].push(to as u32);
        preds[to] += 1;
    };
    // Per name: the last member writing it and the members reading it since.
    let mut by_name: HashMap<u32, (Option<usize>, Vec<usize>)> = HashMap::default();
    let mut last_effect: Option<usize> = None;
    let mut last_barrier: Option<usize> = None;
    let mut since_barrier: Vec<usize> = Vec::new();
    for (j, &ci) in members.iter().enumerate() {
        let c = &children[ci];
        if c.barrier {
            for &i in &since_barrier {
                edge(i, j, &mut succ);
            }
            if let Some(b) = last_barrier {
                edge(b, j, &mut succ);
            }
            since_barrier.clear();
            last_barrier = Some(j);
        } else {
            if let Some(b) = last_barrier {
                edge(b, j, &mut succ);
            }
            since_barrier.push(j);
        }
        if c.effect {
            if let Some(e) = last_effect {
                edge(e, j, &mut succ);
            }
            last_effect = Some(j);
        }
        for &name in &c.reads {
            let entry = by_name.entry(name).or_default();
            let written = c.writes.binary_search(&name).is_ok();
            if let Some(w) = entry.0 {
                edge(w, j, &mut succ);
            }
            if written {
                for &r in &entry.1 {
                    if r != j {
                        edge(r, j, &mut succ);
                    }
                }
                entry.0 = Some(j);
                entry.1.clear();
            } else {
                entry.1.push(j);
            }
        }
    }
    let mut ready: BinaryHeap<Reverse<(u64, usize)>> = (0..m)
        .filter(|&j| preds[j] == 0)
        .map(|j| Reverse((keys[j], j)))
        .collect();
    let mut order = Vec::with_capacity(m);
    while let Some(Reverse((_, j))) = ready.pop() {
        order.push(j);
        for &s in &succ[j] {
            let s = s as usize;
            preds[s] -= 1;
            if preds[s] == 0 {
                ready.push(Reverse((keys[s], s)));
            }
        }
    }
    debug_assert_eq!(order.len(), m, "the conflict order has no cycle");
    order
}

#[cfg(test)]
mod tests {
    use crate::test_support::normalize_random;
    use crate::{languages, Normalization, Options, TsLanguage};
    use proptest::prelude::*;

    fn options(order: bool) -> Options {
        Options {
            canonical_order: order,
            canonical_statement_order: order,
            normalization: Normalization::Full,
            ..Options::default()
        }
    }

    /// The symbols of `src` in canonical order.
    fn symbols(lang: &str, src: &str) -> Vec<u64> {
        TsLanguage::by_name(lang)
            .unwrap()
            .normalize(src.as_bytes(), &options(true))
            .unwrap()
            .normalized
            .symbols
    }

    /// The text of each symbol, in canonical order, joined by spaces.
    fn text(lang: &str, src: &str) -> String {
        let mut o = options(true);
        o.normalization = Normalization::Verbatim;
        let n = TsLanguage::by_name(lang)
            .unwrap()
            .normalize(src.as_bytes(), &o)
            .unwrap()
            .normalized;
        n.spans
            .iter()
            .map(|s| &src[s.range()])
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn independent_statements_and_members_take_one_order() {
        let a = "class A { int n = 0; void f(int x) { int p = 1; int q = 2; System.out.println(p + q + x); } \
                 int g() { return n; } }";
        // Members swapped, declarations swapped, a field after the methods.
        let b = "class A { int g() { return n; } void f(int y) { int q = 2; int p = 1; System.out.println(p + q + y); } \
                 int n = 0; }";
        assert_eq!(symbols("java", a), symbols("java", b));
        let c = "int sq(int v) { return v * v; }\nint cube(int v) { return v * v * v; }\n\
                 int main() { int a = 3; int b = 4; printf(\"%d %d\", sq(a), cube(b)); return 0; }\n";
        let d = "int cube(int w) { return w * w * w; }\nint sq(int w) { return w * w; }\n\
                 int main() { int b = 4; int a = 3; printf(\"%d %d\", sq(a), cube(b)); return 0; }\n";
        assert_eq!(symbols("c", c), symbols("c", d));
        let py = "import sys\ndef f(a):\n    x = 1\n    y = 2\n    return a + x * y\ndef g():\n    return 3\nprint(f(g()))\n";
        let py2 = "import sys\ndef g():\n    return 3\ndef f(a):\n    y = 2\n    x = 1\n    return a + x * y\nprint(f(g()))\n";
        assert_eq!(symbols("python", py), symbols("python", py2));
    }

    #[test]
    fn statements_keep_their_order_unless_asked() {
        let a =
            "class A { void f() { int p = 1; String q = \"a\"; g(p + q); } int h() { return 1; } }";
        let b =
            "class A { int h() { return 1; } void f() { String q = \"a\"; int p = 1; g(p + q); } }";
        let c =
            "class A { int h() { return 1; } void f() { int p = 1; String q = \"a\"; g(p + q); } }";
        let lang = TsLanguage::by_name("java").unwrap();
        let mut o = options(true);
        o.canonical_statement_order = false;
        let run = |src: &str| {
            lang.normalize(src.as_bytes(), &o)
                .unwrap()
                .normalized
                .symbols
        };
        assert_ne!(run(a), run(b));
        assert_eq!(run(a), run(c));
    }

    #[test]
    fn conflicting_statements_keep_their_order() {
        // `b` reads `a`: the two cannot swap.
        assert_ne!(
            symbols(
                "java",
                "class A { void f() { int a = 1; int b = a + 1; g(b); } }"
            ),
            symbols(
                "java",
                "class A { void f() { int b = a + 1; int a = 1; g(b); } }"
            )
        );
        // Two calls (effects) keep their order; reading input twice is not
        // the same in either order.
        let t = text("java", "class A { void f() { int n = in.nextInt(); int m = in.nextInt(); int k = 5; out(n - m + k); } }");
        assert!(
            t.contains("n = in . nextInt ( ) ; int m = in . nextInt"),
            "{t}"
        );
        // Nothing moves across a `return` or a `case`.
        let t = text(
            "c",
            "int f(int x) { int a = 2; if (x) return a; int b = 3; return b; }",
        );
        assert!(
            t.contains("int a = 2 ; if ( x ) return a ; int b = 3"),
            "{t}"
        );
        // An assignment and a later read of the same name.
        let t = text(
            "python",
            "def f():\n    s = 0\n    t = 5\n    s = s + t\n    return s\n",
        );
        assert!(t.ends_with("s = s + t return s"), "{t}");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// On any text, in every language: no panic, and the canonical
        /// stream is a permutation of the stream in text order: the same
        /// (symbol, span) pairs, spans still disjoint.
        #[test]
        fn ordering_only_permutes_symbols(
            s in "[a-z_ (){}\\[\\];,.=+*<>!&|\"0-9\n\t-]{0,300}|(int|for|if|return|def|class|let|x|y|f|=|;|\\{|\\}|\\(|\\)|\n|    | )*",
            li in 0usize..9,
            statements in any::<bool>(),
        ) {
            let lang = &languages()[li % languages().len()];
            let mut o = options(false);
            o.max_error_share = 1.0;
            let plain = normalize_random(lang, s.as_bytes(), &o);
            o.canonical_order = true;
            o.canonical_statement_order = statements;
            let ordered = normalize_random(lang, s.as_bytes(), &o);
            prop_assume!(plain.is_some() && ordered.is_some());
            let (plain, ordered) = (plain.unwrap(), ordered.unwrap());
            let mut a: Vec<_> = plain.spans.iter().zip(&plain.symbols).collect();
            let mut b: Vec<_> = ordered.spans.iter().zip(&ordered.symbols).collect();
            a.sort();
            b.sort();
            prop_assert_eq!(a, b);
        }
    }
}
