//! Functions called once, inlined (token-sequence normalization against
//! extract-method and inline refactoring): a copy that moves a block of
//! statements or an expression into a function of its own and calls it
//! from where the code was keeps the symbols of its original, and so does
//! the reverse.
//!
//! A function of the file is inlined when it is its name's only
//! definition, the name occurs exactly twice outside the function's body
//! (the definition and one plain call, `f(…)`, not `obj.f(…)`; a C
//! prototype does not count; inside the body the name can only be a local
//! variable, a call there being a second call), the call is outside the
//! function, its arguments hold no call, and the body is one of
//!
//! - statements ending in the only `return e;`: the call's symbols are
//!   replaced by those of `e`, and the statements before the `return` go
//!   before the statement holding the call (which must be an expression
//!   statement, a `return` or a declaration, not a loop or a branch, whose
//!   condition would run them again); `x = e; return x;` returns `e`;
//! - statements without any `return`, and the call is a statement of its
//!   own (`f(…);`): that statement's symbols are replaced by those of the
//!   body's statements (without the braces).
//!
//! The definition's other symbols (header, braces, `return`) and the call's
//! name and arguments are left out. Every symbol keeps its span, so the
//! stream is out of text order where a body moved (see `Normalized`); no
//! span is used twice, which is why a function called twice stays as it is.
//!
//! Definitions, calls and names are gathered in `shape::rewrite`'s walk of
//! the tree. The inlining runs last, on the finished stream: it finds each call,
//! definition and body by the spans of their symbols, so it composes with
//! the other normalizations (which only permute symbols inside a node, so
//! the symbols of a node stay together). Callers are inlined before the
//! functions they call, so that a body moved into its caller moves on with
//! it; an inlining whose symbols are not together (a rewrite that crossed
//! it) is left out rather than guessed.

use crate::HashMap;

use crate::flat::{Flat, Node};
use bryo_frontend::{Normalized, Span};

use crate::dead::{Builder, StatementTable, BLOCK, CALL, PATTERN, SCOPE};
use crate::forms::Edits;
use crate::walk::Role;

/// Maps by name.
type ByName<'a, V> = HashMap<&'a [u8], V>;

/// At most this many functions are inlined per file: each inlining is one
/// pass over the stream.
const MAX_INLINES: usize = 64;

/// Of the functions that could be inlined, the first this many calls (in
/// text order) are considered.
const MAX_CANDIDATES: usize = 4 * MAX_INLINES;

/// One function to inline at its one call: byte ranges of the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Inline {
    /// The call (or the statement that is only the call), replaced.
    pub(crate) call: (u32, u32),
    /// The whole definition, left out...
    pub(crate) definition: (u32, u32),
    /// ...but for these symbols of it, which take the call's place...
    pub(crate) body: (u32, u32),
    /// ...and these (the statements before a final `return`), which go
    /// before the statement holding the call: (statements, statement).
    pub(crate) prefix: Option<((u32, u32), (u32, u32))>,
}

fn range(node: &Node<'_>) -> (u32, u32) {
    (node.start_byte() as u32, node.end_byte() as u32)
}

fn inside(inner: (u32, u32), outer: (u32, u32)) -> bool {
    outer.0 <= inner.0 && inner.1 <= outer.1
}

/// Finds the functions to inline, node by node during `shape::rewrite`'s
/// walk of the tree.
pub(crate) struct Finder<'a, 't> {
    b: Builder<'a, 'a>,
    /// Occurrences as an identifier, by name.
    seen: ByName<'a, u32>,
    /// Names declared by a C prototype (`int f(int);`, not a use).
    prototypes: ByName<'a, u32>,
    definitions: ByName<'a, Vec<Node<'t>>>,
    /// Plain calls, by the name called.
    calls: ByName<'a, Vec<Node<'t>>>,
    /// The kind ids of a C declaration and a function declarator.
    declaration: Option<u16>,
    function_declarator: Option<u16>,
}

impl<'a, 't> Finder<'a, 't> {
    pub(crate) fn new(
        tree: &'t Flat,
        text: &'a [u8],
        roles: &'a [Role],
        table: &'a StatementTable,
    ) -> Self {
        let language = tree.language();
        let id = |kind: &str| Some(language.id_for_node_kind(kind, true)).filter(|&i| i != 0);
        Finder {
            b: Builder { text, roles, table },
            seen: ByName::default(),
            prototypes: ByName::default(),
            definitions: ByName::default(),
            calls: ByName::default(),
            declaration: id("declaration"),
            function_declarator: id("function_declarator"),
        }
    }

    /// Records what `node` (with statement `flags`) is to the inlining.
    pub(crate) fn visit(&mut self, node: Node<'t>, flags: u16) {
        let b = &self.b;
        if b.is_identifier(&node) {
            *self.seen.entry(b.text_of(&node)).or_default() += 1;
        } else if flags & SCOPE != 0 {
            if let Some(name) = b.scope_name(node) {
                self.definitions.entry(name).or_default().push(node);
            }
        } else if flags & CALL != 0 {
            if let Some(name) = b.callee(node) {
                self.calls.entry(name).or_default().push(node);
            }
        } else if self.declaration.is_some() && Some(node.kind_id()) == self.declaration {
            // C's `int f(int);` declares what the definition defines.
            let declarator = b
                .table
                .declarator_field
                .and_then(|f| node.child_by_field_id(f))
                .filter(|d| Some(d.kind_id()) == self.function_declarator);
            let name = declarator
                .and_then(|d| {
                    b.table
                        .declarator_field
                        .and_then(|f| d.child_by_field_id(f))
                })
                .filter(|n| b.is_identifier(n));
            if let Some(name) = name {
                *self.prototypes.entry(b.text_of(&name)).or_default() += 1;
            }
        }
    }

    /// The functions to inline, callers before the functions they call;
    /// `edits` says which statements the walk leaves out.
    pub(crate) fn finish(self, edits: &Edits) -> Vec<Inline> {
        let Finder {
            b,
            seen,
            prototypes,
            definitions,
            calls,
            ..
        } = self;
        let table = b.table;
        let mut found: Vec<Inline> = Vec::new();
        for (name, defs) in &definitions {
            let ([def], Some([call])) = (&defs[..], calls.get(name).map(|c| &c[..])) else {
                continue;
            };
            // A local variable of the function may share its name.
            let mut uses = seen.get(name).copied().unwrap_or(0);
            if uses > 2 {
                if let Some(body) = table.body.and_then(|f| def.child_by_field_id(f)) {
                    let inner = count_below(body, |n| b.is_identifier(n) && b.text_of(n) == *name);
                    uses = uses.saturating_sub(inner);
                }
            }
            if uses.saturating_sub(prototypes.get(name).copied().unwrap_or(0)) != 2 {
                continue;
            }
            if def.has_error() || inside(range(call), range(def)) || holds_call(*call, table) {
                continue;
            }
            if let Some(inline) = candidate(&b, edits, *def, *call) {
                found.push(inline);
            }
        }
        found.sort_unstable_by_key(|i| i.call);
        // Ordering is quadratic in what it orders: the first calls only.
        found.truncate(MAX_CANDIDATES);
        callers_first(found)
    }
}

/// The inlining of `def` at `call`, if its body has one of the forms.
fn candidate<'t>(
    b: &Builder<'_, '_>,
    edits: &Edits,
    def: Node<'t>,
    call: Node<'t>,
) -> Option<Inline> {
    let table = b.table;
    let mut body = table.body.and_then(|f| def.child_by_field_id(f))?;
    if table.flags(&body) & BLOCK == 0 {
        // Go: `body: block { statement_list }`.
        body = named_children(body)
            .into_iter()
            .find(|c| table.flags(c) & BLOCK != 0)?;
    }
    // Go: `block { statement_list }`.
    // The statements the walk keeps (not comments, not dead code).
    let statements = |n: Node<'t>| -> Vec<Node<'t>> {
        n.named_children()
            .filter(|k| !matches!(b.roles.get(usize::from(k.kind_id())), Some(Role::Dropped)))
            .filter(|k| !edits.skips(k.id()))
            .collect()
    };
    let mut kids = statements(body);
    if let [only] = kids[..] {
        if table.flags(&only) & BLOCK != 0 {
            body = only;
            kids = statements(body);
        }
    }
    let (first, last) = (*kids.first()?, *kids.last()?);
    if let Some(value) = returned(b, last) {
        let value = single(b, value);
        // `x = e; return x;` returns `e`.
        let n = kids.len();
        let (value, before) = match n.checked_sub(2).and_then(|i| assigned(b, kids[i], value)) {
            Some(e) => (e, n - 2),
            None => (value, n - 1),
        };
        let prefix = &kids[..before];
        if prefix
            .iter()
            .any(|s| RETURNS.contains(&s.kind()) || holds_return(*s))
        {
            return None;
        }
        let prefix = match (prefix.first(), prefix.last()) {
            (Some(a), Some(z)) => Some((
                (a.start_byte() as u32, z.end_byte() as u32),
                range(&enclosing(table, call)?),
            )),
            _ => None,
        };
        return Some(Inline {
            call: range(&call),
            definition: range(&def),
            body: range(&value),
            prefix,
        });
    }
    let statement = call.parent()?;
    let alone = statement.kind() == "expression_statement"
        && statement.named_child_count() == 1
        && !holds_return(body);
    alone.then(|| Inline {
        call: range(&statement),
        definition: range(&def),
        body: (first.start_byte() as u32, last.end_byte() as u32),
        prefix: None,
    })
}

fn named_children(node: Node<'_>) -> Vec<Node<'_>> {
    node.named_children().collect()
}

/// A `return` statement, or Rust's `return` expression.
const RETURNS: &[&str] = &["return_statement", "return_expression"];

/// What the last statement of a body returns, if it is a `return e;` (or
/// Rust's `return e;` or tail expression `e`).
fn returned<'t>(b: &Builder<'_, '_>, last: Node<'t>) -> Option<Node<'t>> {
    let value = |n: Node<'t>| match named_children(n)[..] {
        [value] => Some(value),
        _ => None,
    };
    match last.kind() {
        "return_statement" => value(last),
        "expression_statement" => value(last)
            .filter(|r| r.kind() == "return_expression")
            .and_then(value),
        // Only Rust's blocks hold bare expressions: its tail.
        kind if kind.ends_with("_expression") => Some(last),
        _ => matches!(
            b.roles.get(usize::from(last.kind_id())),
            Some(Role::Identifier | Role::Literal(_))
        )
        .then_some(last),
    }
}

/// If `stmt` gives the name `value` a value (`x = e;`, `T x = e;`,
/// `x := e`), that value `e`: the one assignment or declarator with a value
/// among `stmt` and the nodes up to two levels below it.
fn assigned<'t>(b: &Builder<'_, '_>, stmt: Node<'t>, value: Node<'t>) -> Option<Node<'t>> {
    let t = b.table;
    let value = single(b, value);
    if !b.is_identifier(&value) {
        return None;
    }
    let mut nodes = vec![stmt];
    for level in 0..2 {
        let from = if level == 0 { 0 } else { 1 };
        let parents: Vec<Node<'t>> = nodes[from..].to_vec();
        for p in parents {
            nodes.extend(named_children(p));
        }
    }
    let kind = |n: &Node<'_>| usize::from(n.kind_id());
    let mut found = nodes.iter().filter_map(|n| {
        if let Some(target) = t.assignment.get(kind(n)).copied().flatten() {
            let left = n.child_by_field_id(target)?;
            let right = t.right_field.and_then(|f| n.child_by_field_id(f))?;
            let between = b
                .text
                .get(left.end_byte()..right.start_byte())
                .unwrap_or_default()
                .trim_ascii();
            return matches!(between, b"=" | b":=").then_some((left, right));
        }
        let field = t.declarator.get(kind(n)).copied().flatten()?;
        let name = n.child_by_field_id(field)?;
        // The value is a field of its own, or (C#) the one other child.
        let e = t.value_field.and_then(|f| n.child_by_field_id(f)).or_else(
            || match named_children(*n)[..] {
                [first, e] if first == name => Some(e),
                _ => None,
            },
        )?;
        Some((name, e))
    });
    let (Some((target, e)), None) = (found.next(), found.next()) else {
        return None;
    };
    let target = single(b, target);
    (b.is_identifier(&target) && b.text_of(&target) == b.text_of(&value)).then(|| single(b, e))
}

/// The one element of a one-element list (Go's `expression_list`), or the
/// node itself.
fn single<'t>(b: &Builder<'_, '_>, node: Node<'t>) -> Node<'t> {
    if b.table.flags(&node) & PATTERN != 0 {
        if let [only] = named_children(node)[..] {
            return only;
        }
    }
    node
}

/// Statements that evaluate their expressions once, in every language:
/// what may hold a call whose function's first statements are put before
/// it.
const SIMPLE_STATEMENTS: &[&str] = &[
    "expression_statement",
    "return_statement",
    "declaration",
    "local_variable_declaration",
    "local_declaration_statement",
    "lexical_declaration",
    "variable_declaration",
    "let_declaration",
    "short_var_declaration",
];

/// The statement of a block that holds `call`, if it is a simple one and
/// no function lies between them (the statements put before it then run
/// once, where the call would).
fn enclosing<'t>(table: &StatementTable, call: Node<'t>) -> Option<Node<'t>> {
    let mut n = call;
    loop {
        let p = n.parent()?;
        if table.flags(&p) & BLOCK != 0 {
            return SIMPLE_STATEMENTS.contains(&n.kind()).then_some(n);
        }
        if table.flags(&p) & SCOPE != 0 {
            return None;
        }
        n = p;
    }
}

/// How many nodes under `node` pass `test`.
fn count_below(node: Node<'_>, test: impl Fn(&Node<'_>) -> bool) -> u32 {
    let mut count = 0;
    let mut cursor = node.walk();
    loop {
        count += u32::from(test(&cursor.node()));
        if cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return count;
            }
        }
    }
}

/// Whether some node under `node` (not `node` itself) is a call.
fn holds_call(node: Node<'_>, table: &StatementTable) -> bool {
    any_below(node, |n| table.flags(n) & CALL != 0)
}

/// Whether some node under `node` is a `return` statement.
fn holds_return(node: Node<'_>) -> bool {
    any_below(node, |n| RETURNS.contains(&n.kind()))
}

fn any_below(node: Node<'_>, test: impl Fn(&Node<'_>) -> bool) -> bool {
    let mut cursor = node.walk();
    if !cursor.goto_first_child() {
        return false;
    }
    loop {
        if test(&cursor.node()) {
            return true;
        }
        if cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() || cursor.node() == node {
                return false;
            }
        }
    }
}

/// `found` ordered so that an inlining whose call lies in the definition
/// of another comes after that other; inlinings in a cycle of calls, and
/// those past [`MAX_INLINES`], are left out.
fn callers_first(found: Vec<Inline>) -> Vec<Inline> {
    let n = found.len();
    // The inlining whose definition holds each call (the innermost: the
    // definitions found do not overlap but for nested functions).
    let parent: Vec<Option<usize>> = found
        .iter()
        .map(|i| {
            (0..n)
                .filter(|&j| inside(i.call, found[j].definition))
                .min_by_key(|&j| found[j].definition.1 - found[j].definition.0)
        })
        .collect();
    // Calls nested in `d` inlined definitions; `None` in a cycle.
    let depth: Vec<Option<usize>> = (0..n)
        .map(|start| {
            let mut d = 0;
            let mut at = start;
            while let Some(p) = parent[at] {
                d += 1;
                at = p;
                if d > n {
                    return None;
                }
            }
            Some(d)
        })
        .collect();
    let mut order: Vec<(usize, usize)> = (0..n).filter_map(|i| depth[i].map(|d| (d, i))).collect();
    order.sort_unstable();
    order
        .into_iter()
        .take(MAX_INLINES)
        .map(|(_, i)| found[i])
        .collect()
}

/// Where the symbols inside a byte range are in the stream, if together
/// (an empty range at 0 if there are none).
fn positions(spans: &[Span], bytes: (u32, u32)) -> Option<(usize, usize)> {
    let mut first = None;
    let mut count = 0;
    let mut last = 0;
    for (p, s) in spans.iter().enumerate() {
        if bytes.0 <= s.start && s.end <= bytes.1 {
            first.get_or_insert(p);
            last = p;
            count += 1;
        }
    }
    match first {
        None => Some((0, 0)),
        Some(first) => (last + 1 - first == count).then_some((first, last + 1)),
    }
}

/// Applies `inlines` (in their order) to `out`, the finished stream.
pub(crate) fn apply(inlines: &[Inline], out: &mut Normalized) {
    let mut symbols = Vec::new();
    let mut spans = Vec::new();
    let within = |inner: (usize, usize), outer: (usize, usize)| {
        inner.0 == inner.1 || (outer.0 <= inner.0 && inner.1 <= outer.1)
    };
    for inline in inlines {
        let at = |bytes| positions(&out.spans, bytes);
        let (Some(call), Some(definition), Some(body)) =
            (at(inline.call), at(inline.definition), at(inline.body))
        else {
            continue;
        };
        // (the statements moved, where they go)
        let prefix = match inline.prefix {
            None => Some(((0, 0), 0)),
            Some((moved, statement)) => match (at(moved), at(statement)) {
                (Some(m), Some(s)) if within(call, s) && !overlap(s, definition) => Some((m, s.0)),
                _ => None,
            },
        };
        let Some((moved, before)) = prefix else {
            continue;
        };
        if call.0 == call.1
            || body.0 == body.1
            || overlap(call, definition)
            || !within(body, definition)
            || !within(moved, definition)
        {
            continue;
        }
        symbols.clear();
        spans.clear();
        for p in 0..out.symbols.len() {
            if p == before && moved.0 < moved.1 {
                symbols.extend_from_slice(&out.symbols[moved.0..moved.1]);
                spans.extend_from_slice(&out.spans[moved.0..moved.1]);
            }
            if p == call.0 {
                symbols.extend_from_slice(&out.symbols[body.0..body.1]);
                spans.extend_from_slice(&out.spans[body.0..body.1]);
            }
            if (call.0..call.1).contains(&p) || (definition.0..definition.1).contains(&p) {
                continue;
            }
            symbols.push(out.symbols[p]);
            spans.push(out.spans[p]);
        }
        std::mem::swap(&mut out.symbols, &mut symbols);
        std::mem::swap(&mut out.spans, &mut spans);
    }
}

/// Whether two ranges of positions share one.
fn overlap(a: (usize, usize), b: (usize, usize)) -> bool {
    a.0 < b.1 && b.0 < a.1
}

#[cfg(test)]
mod tests {
    use crate::test_support::normalize_random;
    use crate::{languages, HashMap, HashSet, Options, TsLanguage};
    use proptest::prelude::*;

    fn options(inline: bool) -> Options {
        Options {
            inline_calls: inline,
            max_error_share: 1.0,
            ..Options::default()
        }
    }

    /// The source text of the symbols, in stream order, joined by spaces.
    fn stream(lang: &str, src: &str, inline: bool) -> String {
        stream_with(lang, src, &options(inline))
    }

    fn stream_with(lang: &str, src: &str, options: &Options) -> String {
        let parsed = TsLanguage::by_name(lang)
            .unwrap()
            .normalize(src.as_bytes(), options)
            .unwrap();
        parsed
            .normalized
            .spans
            .iter()
            .map(|s| &src[s.range()])
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn symbols(lang: &str, src: &str) -> Vec<u64> {
        TsLanguage::by_name(lang)
            .unwrap()
            .normalize(src.as_bytes(), &options(true))
            .unwrap()
            .normalized
            .symbols
    }

    #[test]
    fn a_returned_expression_takes_the_call_s_place() {
        let extracted = "class A { static double bmi(double w, double h) { return w / (h * h); }
            void main() { double b = bmi(x, y); print(b); } }";
        let inline = "class A { void main() { double b = x / (y * y); print(b); } }";
        assert_eq!(symbols("java", extracted), symbols("java", inline));
        assert_eq!(
            stream("java", extracted, true),
            "class A { void main ( ) { double b = w / ( h * h ) ; print ( b ) ; } }"
        );
        let c = "int sq(int a) { return a * a; }\nint main() { int y = sq(x) + 1; return y; }";
        let c_inline = "int main() { int y = x * x + 1; return y; }";
        assert_eq!(symbols("c", c), symbols("c", c_inline));
    }

    #[test]
    fn statements_take_the_place_of_a_call_statement() {
        let extracted = "class A {
            void main() { read(); if (n <= 0) report(); else go(); done(); }
            private static void report() { System.out.println(\"empty\"); count++; } }";
        let inline = "class A {
            void main() { read(); if (n <= 0) System.out.println(\"none\"); count++; else go(); done(); } }";
        assert_eq!(
            stream("java", extracted, true),
            "class A { void main ( ) { read ( ) ; if ( n <= 0 ) System . out . println ( \"empty\" ) ; count ++ ; else go ( ) ; done ( ) ; } }"
        );
        assert_eq!(
            symbols("java", extracted).len(),
            symbols("java", inline).len()
        );
        let py = "def show(x):\n    print(x)\n    print(x * 2)\n\ndef main():\n    a = 1\n    show(a)\n    print(3)\n";
        assert_eq!(
            stream("python", py, true),
            "def main ( ) : a = 1 print ( x ) print ( x * 2 ) print ( 3 )"
        );
    }

    #[test]
    fn statements_before_a_return_go_before_the_statement_holding_the_call() {
        let extracted = "class A {
            static double diagonal(double[][] m) {
                double sum = 0;
                for (int i = 0; i < m.length; i++) sum += m[i][i];
                return sum;
            }
            void main() { read(m); print(\"Sum is \" + diagonal(m)); } }";
        let inline = "class A {
            void main() { read(m);
                double sum = 0;
                for (int i = 0; i < m.length; i++) sum += m[i][i];
                print(\"Sum is \" + sum); } }";
        assert_eq!(symbols("java", extracted), symbols("java", inline));
        // `x = e; return x;` and `T x = e; return x;` return `e`.
        // (The function's local shares its name.)
        for (body, main) in [
            (
                "double area; area = r * r * 3.14; return area;",
                "double area ; a = r * r * 3.14 ;",
            ),
            (
                "double area = r * r * 3.14; return area;",
                "a = r * r * 3.14 ;",
            ),
        ] {
            let src = format!(
                "class A {{ static double area(double r) {{ {body} }}
                void main() {{ a = area(r); print(a); }} }}"
            );
            assert_eq!(
                stream("java", &src, true),
                format!("class A {{ void main ( ) {{ {main} print ( a ) ; }} }}"),
                "{body}"
            );
        }
        let c = "int f(int a) { a++; return a; }\nint main() { return f(1); }";
        assert_eq!(stream("c", c, true), "int main ( ) { a ++ ; return a ; }");
        // Statements dead-code removal leaves out are not in the way.
        let src = "class A { static double area(double r) {
                double s = r * r * 3.14; int dz = 3; dz++; return s; }
            void main() { a = area(r); print(a); } }";
        let options = Options {
            drop_dead_code: true,
            ..options(true)
        };
        assert_eq!(
            stream_with("java", src, &options),
            "class A { void main ( ) { a = r * r * 3.14 ; print ( a ) ; } }"
        );
    }

    #[test]
    fn every_tree_sitter_language_inlines() {
        let cases = [
            (
                "python",
                "def area(r):\n    s = r * r * 3.14\n    return s\n\ndef main():\n    a = area(2)\n    print(a)\n",
                "def main ( ) : a = r * r * 3.14 print ( a )",
            ),
            (
                "javascript",
                "function area(r) { const s = r * r * 3.14; return s; }\nfunction main() { const a = area(2); log(a); }",
                "function main ( ) { const a = r * r * 3.14 ; log ( a ) ; }",
            ),
            (
                "typescript",
                "function area(r: number): number { return r * r; }\nfunction main() { let a = area(2); log(a); }",
                "function main ( ) { let a = r * r ; log ( a ) ; }",
            ),
            (
                "go",
                "package main\nfunc area(r float64) float64 {\n\ts := r * r\n\treturn s\n}\nfunc main() {\n\ta := area(2)\n\tprintln(a)\n}\n",
                "package main func main ( ) { a := r * r println ( a ) }",
            ),
            (
                "csharp",
                "class A { static double Area(double r) { double s = r * r; return s; } static void Main() { var a = Area(2); Log(a); } }",
                "class A { static void Main ( ) { var a = r * r ; Log ( a ) ; } }",
            ),
            (
                "rust",
                "fn area(r: f64) -> f64 { let s = r * r; s }\nfn show(a: f64) { log(a); }\nfn main() { let a = area(2.0); show(a); }",
                "fn main ( ) { let a = r * r ; log ( a ) ; }",
            ),
            (
                "cpp",
                "int sq(int a) { int s = a * a; return s; }\nint main() { std::cout << sq(2); }",
                "int main ( ) { std :: cout << a * a ; }",
            ),
        ];
        for (lang, src, inlined) in cases {
            assert_eq!(stream(lang, src, true), inlined, "{lang}");
        }
    }

    #[test]
    fn a_function_inlined_into_an_inlined_function_moves_with_it() {
        let src = "int g(int a) { return a + 1; }\nint f(int a) { return g(a) * 2; }\nint main() { return f(3); }";
        assert_eq!(
            stream("c", src, true),
            "int main ( ) { return a + 1 * 2 ; }"
        );
    }

    #[test]
    fn functions_that_cannot_be_inlined_stay() {
        for src in [
            // Called twice.
            "int sq(int a) { return a * a; }\nint main() { return sq(1) + sq(2); }",
            // Recursive.
            "int f(int a) { return f(a - 1); }\nint main() { return f(3); }",
            // Its name used otherwise (a pointer to it).
            "int sq(int a) { return a * a; }\nint main() { int (*p)(int) = sq; return sq(2); }",
            // Statements with a `return`.
            "void f(int a) { if (a) return; puts(\"x\"); }\nint main() { f(1); return 0; }",
            // Statements, but the call's value is used.
            "int f(int a) { puts(\"x\"); }\nint main() { return f(1); }",
            // An argument holds a call.
            "int sq(int a) { return a * a; }\nint main() { return sq(read()); }",
            // Statements before the `return`, and the call in a loop's
            // condition (they would run once, the call every time).
            "int f(int a) { a++; return a; }\nint main() { while (f(1)) puts(\"x\"); }",
            // ... or in a branch's.
            "int f(int a) { a++; return a; }\nint main() { if (f(1)) return 2; return 0; }",
            // A `return` before the last statement.
            "int f(int a) { if (a) return 1; a++; return a; }\nint main() { return f(1); }",
        ] {
            assert_eq!(stream("c", src, true), stream("c", src, false), "{src}");
        }
        // Overloads, and a call through an object.
        for src in [
            "class A { int f(int a) { return a; } int f(String s) { return 1; } void m() { g(f(1)); } }",
            "class A { int f(int a) { return a; } void m() { g(this.f(1)); } }",
        ] {
            assert_eq!(stream("java", src, true), stream("java", src, false), "{src}");
        }
    }

    #[test]
    fn a_prototype_is_not_a_use() {
        let src = "int sq(int);\nint main() { return sq(2); }\nint sq(int a) { return a * a; }\n";
        assert_eq!(
            stream("c", src, true),
            "int sq ( int ) ; int main ( ) { return a * a ; }"
        );
    }

    #[test]
    fn mutually_recursive_functions_stay() {
        let src = "int f(int a);\nint g(int a) { return f(a); }\nint f(int a) { return g(a); }\n";
        assert_eq!(stream("c", src, true), stream("c", src, false));
        // With a third name for `f`, `g` is inlined into `f` alone.
        let src =
            "int f(int a);\nint g(int a) { return f(a); }\nint f(int a) { return g(a) + f(0); }\n";
        assert_eq!(
            stream("c", src, true),
            "int f ( int a ) ; int f ( int a ) { return f ( a ) + f ( 0 ) ; }"
        );
    }

    #[test]
    fn thousands_of_functions_called_once_are_bounded() {
        // A chain: `main` calls f0, f0 calls f1, ..., each once.
        let n = 3000;
        let mut src = String::from("int main() { return f0(1); }\n");
        for i in 0..n {
            src += &format!("int f{i}(int a) {{ return f{}(a) + 1; }}\n", i + 1);
        }
        src += &format!("int f{n}(int a) {{ return a; }}\n");
        let all = stream("c", &src, false);
        let some = stream("c", &src, true);
        // 64 inlined: each leaves out a definition's 16 symbols but its
        // value's 6 (`f1 ( a ) + 1`), and the call's 4 (`f0 ( 1 )`).
        let count = |s: &str| s.split(' ').count();
        assert_eq!(count(&all) - count(&some), 64 * 14, "{}", &some[..200]);
        // f0 … f63 inlined into one another, in order; f64 is called.
        assert!(
            some.starts_with(&format!(
                "int main ( ) {{ return f64 ( a ){}",
                " + 1".repeat(64)
            )),
            "{}",
            &some[..200]
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// On any text, in every language: no panic, every span is used at
        /// most once, and every symbol is one of the stream without
        /// inlining, with its span.
        #[test]
        fn inlining_keeps_symbols_with_their_spans(
            s in "(int|void|def|return|f|g|x|=|;|\\(|\\)|\\{|\\}|,|\\+|\n|    | |:|class|A)*",
            li in 0usize..9,
        ) {
            let lang = &languages()[li % languages().len()];
            let all = normalize_random(lang, s.as_bytes(), &options(false));
            let some = normalize_random(lang, s.as_bytes(), &options(true));
            prop_assume!(all.is_some() && some.is_some());
            let (all, some) = (all.unwrap(), some.unwrap());
            let by_span: HashMap<_, _> =
                all.spans.iter().zip(&all.symbols).map(|(sp, sy)| ((sp.start, sp.end), *sy)).collect();
            let mut used = HashSet::default();
            for (sym, span) in some.symbols.iter().zip(&some.spans) {
                prop_assert!(used.insert((span.start, span.end)), "{}: span {:?} twice", lang.name(), span);
                prop_assert_eq!(by_span.get(&(span.start, span.end)), Some(sym));
            }
        }
    }
}
