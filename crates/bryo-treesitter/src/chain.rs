//! `switch` and `if` chains written one way (token-sequence normalization
//! against restructuring): a `switch` on a value and an `if`/`else if`
//! chain that compares one value with constants are both emitted as
//!
//! ```text
//! if x == 1 A else if == 2 || 3 B else C
//! ```
//!
//! with the value once, without the conditions' parentheses and the
//! bodies' braces, and without the `break` that ends a case, so a copy that
//! rewrites one into the other keeps its symbols.
//!
//! A `switch` is rewritten only where the chain means the same: its value
//! is pure (no call, assignment, `++` or `--`: `x`, `a[i]`, `p.kind`), it
//! has two or more `case` groups, every group but the last ends in a jump
//! (`break`, `return`, `throw`, `continue`, `goto`; no fall-through into
//! the next group's statements), no other `break` leaves it, every label is
//! `case v:` with one value, and `default` (if any) is the last group's
//! only label. Dead statements (`dead.rs`) do not count. A chain is
//! rewritten when it has two or more conditions, each `x == v` or a
//! disjunction of such, with one pure value `x` throughout (the same text
//! but for layout) and each `v` a literal or a name in capitals (a
//! constant: `case` labels hold nothing else); its last condition may be
//! negated (`x != v`, `!(…)`) when an `else` follows, as the negated
//! branch is swapped (`shape.rs`).
//!
//! Symbols keep spans of their own: the `switch` keyword's is the `if`'s;
//! the `if` and `==` a later case needs (`else if ==` after a `return`)
//! share the bytes of its `case` keyword (one each, the last the rest),
//! `else` after a `break;` takes the `break`'s; a `:` between two labels
//! (or Go's `,` between two values) is the `||`, and the second label's
//! `case` is left out, as the `x ==` of a chain's second comparison is. The
//! languages (`Statements::switches`): C, C++, Java, C#, JavaScript and
//! TypeScript (whose `===` in a chain is written `==`, the comparison its
//! `switch` makes), and Go, whose cases end without a `break`
//! (`Statements::falls_through`: a case is rewritten unless it says
//! `fallthrough`; a `switch` with a statement before its value, or none,
//! keeps its form). Python's `match` on literals and dotted names and its
//! `if`/`elif` chains share a form of their own, `if x == 1 A elif == 2
//! or 3 B else C` ([`Chains::match_edits`]); so do Rust's `match` on
//! literals and paths and its `if`/`else if` chains, `if x 1 A else 2 || 3
//! B else C` ([`Chains::arms_edits`]: an arm has no keyword whose bytes
//! could hold the `==`). A constant is a literal, maybe negative, a name in
//! capitals or a path (`Color::Red`).

use crate::HashSet;

use crate::flat::Node;
use bryo_frontend::SymbolClass;

use crate::dead::{StatementTable, BLOCK, CALL, UPDATE};
use crate::forms::{Edits, Emit, Lexeme};
use crate::walk::Role;

/// Statements that end a case without falling into the next.
const JUMPS: &[&str] = &[
    "break_statement",
    "return_statement",
    "throw_statement",
    "continue_statement",
    "goto_statement",
];

/// One `case v:` or `default:` label.
struct Label<'t> {
    keyword: Node<'t>,
    value: Option<Node<'t>>,
    colon: Node<'t>,
}

/// Labels and the statements they lead to.
#[derive(Default)]
struct Group<'t> {
    labels: Vec<Label<'t>>,
    statements: Vec<Node<'t>>,
}

/// How the case before a label ended.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Before {
    /// No case yet: the `switch` keyword is the `if`.
    Start,
    /// A `break;`, emitted as `else`.
    Break,
    /// Another jump, kept as written.
    Jump,
}

pub(crate) struct Chains<'a> {
    pub(crate) text: &'a [u8],
    pub(crate) roles: &'a [Role],
    pub(crate) table: &'a StatementTable,
    /// Statements dead-code removal leaves out (`dead.rs`): a case is
    /// read without them (`break; { int unused = 1; }` ends in its `break`).
    pub(crate) dead: HashSet<usize>,
}

impl<'a> Chains<'a> {
    /// Whether the language's `switch` statements are rewritten (and so
    /// its `if` chains).
    pub(crate) fn enabled(&self) -> bool {
        !self.table.spec.switches.is_empty()
    }

    fn text_of(&self, node: &Node<'_>) -> &'a [u8] {
        self.text.get(node.byte_range()).unwrap_or_default()
    }

    fn role(&self, node: &Node<'_>) -> Option<Role> {
        self.roles.get(usize::from(node.kind_id())).copied()
    }

    /// A comment, or other layout the walk leaves out.
    fn is_layout(&self, node: &Node<'_>) -> bool {
        self.role(node) == Some(Role::Dropped)
    }

    /// The condition of an `if` or `switch` statement (its `condition` or,
    /// in JavaScript, C# and Go, `value` field) without its parentheses,
    /// with them: inside a `parenthesized_expression` or a
    /// `condition_clause`, or (C#) the statement's own `(` and `)` around
    /// it; none in Go, whose conditions have none.
    fn condition<'t>(&self, node: Node<'t>) -> Option<(Node<'t>, Vec<Node<'t>>)> {
        let condition = node
            .child_by_field_name("condition")
            .or_else(|| node.child_by_field_name("value"))?;
        if let Some((inner, parens)) = self.unwrap(condition) {
            return Some((inner, parens.to_vec()));
        }
        let is = |n: Option<Node<'t>>, t: &[u8]| n.is_some_and(|n| self.text_of(&n) == t);
        let (open, close) = (condition.prev_sibling(), condition.next_sibling());
        match (is(open, b"("), is(close, b")")) {
            (true, true) => Some((condition, vec![open?, close?])),
            (false, false) => Some((condition, Vec::new())),
            _ => None,
        }
    }

    /// The expression inside a condition's parentheses (C and Java's
    /// `parenthesized_expression`, C++'s `condition_clause`), with the
    /// parentheses.
    fn unwrap<'t>(&self, condition: Node<'t>) -> Option<(Node<'t>, [Node<'t>; 2])> {
        if !matches!(
            condition.kind(),
            "parenthesized_expression" | "condition_clause"
        ) || condition.named_child_count() != 1
        {
            return None;
        }
        let open = condition.child(0)?;
        let close = condition.child((condition.child_count() as u32).checked_sub(1)?)?;
        if self.text_of(&open) != b"(" || self.text_of(&close) != b")" {
            return None;
        }
        Some((condition.named_child(0)?, [open, close]))
    }

    /// The braces of `node` if it is a block written with them (Go's
    /// `block`, around its `statement_list`, too).
    fn braces<'t>(&self, node: Node<'t>) -> Option<[Node<'t>; 2]> {
        if self.table.flags(&node) & BLOCK == 0 && node.kind() != "block" {
            return None;
        }
        let open = node.child(0)?;
        let close = node.child((node.child_count() as u32).checked_sub(1)?)?;
        (open.id() != close.id() && self.text_of(&open) == b"{" && self.text_of(&close) == b"}")
            .then_some([open, close])
    }

    /// `node` emitted as one symbol spelled `t` over its own bytes.
    fn respell(&self, node: &Node<'_>, class: SymbolClass, t: &'static [u8]) -> (usize, Vec<Emit>) {
        self.respell_at(node, node, class, t)
    }

    /// `node` emitted as one symbol spelled `t` over the bytes of `at`.
    fn respell_at(
        &self,
        node: &Node<'_>,
        at: &Node<'_>,
        class: SymbolClass,
        t: &'static [u8],
    ) -> (usize, Vec<Emit>) {
        let (start, end) = (at.start_byte(), at.end_byte());
        (node.id(), vec![self.fixed(class, t, start, end)])
    }

    /// One symbol spelled `t` over `start..end`.
    fn fixed(&self, class: SymbolClass, t: &'static [u8], start: usize, end: usize) -> Emit {
        Emit {
            class,
            lexeme: Lexeme::Fixed(t),
            start: start as u32,
            end: end as u32,
        }
    }

    /// `pieces` emitted over the bytes of `keyword`, one byte each and the
    /// last the rest; `None` if the keyword is too short to hold them.
    fn over(&self, keyword: &Node<'_>, pieces: &[&'static [u8]]) -> Option<Vec<Emit>> {
        let (start, end) = (keyword.start_byte(), keyword.end_byte());
        if end - start < pieces.len() {
            return None;
        }
        let out = pieces
            .iter()
            .enumerate()
            .map(|(i, &p)| {
                let s = start + i;
                let e = if i + 1 == pieces.len() { end } else { s + 1 };
                let class = if matches!(p, b"if" | b"else" | b"elif") {
                    SymbolClass::Keyword
                } else {
                    SymbolClass::Operator
                };
                self.fixed(class, p, s, e)
            })
            .collect();
        Some(out)
    }

    /// Whether evaluating `node` again changes nothing: no call, no
    /// assignment, no `++` or `--` under it.
    fn pure(&self, node: Node<'_>) -> bool {
        let mut stack = vec![node];
        while let Some(n) = stack.pop() {
            let flags = self.table.flags(&n);
            let assigns = self
                .table
                .assignment
                .get(usize::from(n.kind_id()))
                .is_some_and(Option::is_some);
            if flags & (CALL | UPDATE) != 0 || assigns {
                return false;
            }
            stack.extend(n.named_children());
        }
        true
    }

    /// Records `left` as the value a chain compares: `key` is its text
    /// without layout, the same for every comparison of the chain.
    fn subject<'t>(
        &self,
        left: Node<'t>,
        key: &mut Option<Vec<u8>>,
        lefts: &mut Vec<Node<'t>>,
    ) -> Option<()> {
        if !self.pure(left) {
            return None;
        }
        let k: Vec<u8> = self
            .text_of(&left)
            .iter()
            .copied()
            .filter(|b| !b.is_ascii_whitespace())
            .collect();
        if *key.get_or_insert_with(|| k.clone()) != k {
            return None;
        }
        lefts.push(left);
        Some(())
    }

    /// The labels and statements of a `switch` body, in groups; `None` for
    /// a form this module does not rewrite (Java's `case 1 ->` rules,
    /// `case 1, 2:`, statements before the first label).
    fn groups<'t>(&self, body: Node<'t>, open: Node<'t>) -> Option<Vec<Group<'t>>> {
        let mut groups: Vec<Group<'t>> = Vec::new();
        let mut current = Group::default();
        for item in body.named_children() {
            // Go's cases are children of the statement, after its value.
            if self.is_layout(&item) || item.end_byte() <= open.start_byte() {
                continue;
            }
            if !self.table.spec.case_groups.contains(&item.kind()) {
                return None;
            }
            let mut keyword: Option<Node<'t>> = None;
            let mut value: Option<Node<'t>> = None;
            for child in item.children() {
                if self.is_layout(&child) {
                    continue;
                }
                let text = self.text_of(&child);
                if !child.is_named() && matches!(text, b"case" | b"default") {
                    keyword = Some(child);
                } else if child.kind() == "switch_label" {
                    // Java: `case v` or `default`, the `:` after it.
                    let first = child.child(0)?;
                    if !matches!(self.text_of(&first), b"case" | b"default")
                        || child.named_child_count() > 1
                    {
                        return None;
                    }
                    keyword = Some(first);
                    value = child.named_child(0);
                } else if !child.is_named() && text == b":" {
                    let label = Label {
                        keyword: keyword.take()?,
                        value: value.take(),
                        colon: child,
                    };
                    if !current.statements.is_empty() {
                        groups.push(std::mem::take(&mut current));
                    }
                    current.labels.push(label);
                } else if child.is_named() && keyword.is_some() && value.is_none() {
                    // C: the value between `case` and `:`; C#'s type
                    // patterns (`case int n:`) test no equality.
                    if child.kind().ends_with("_pattern") && child.kind() != "constant_pattern" {
                        return None;
                    }
                    value = Some(child);
                } else if child.is_named() && keyword.is_none() && !current.labels.is_empty() {
                    // Go: a case's statements in one `statement_list`.
                    let list =
                        self.table.flags(&child) & BLOCK != 0 && self.braces(child).is_none();
                    if list {
                        current.statements.extend(
                            child
                                .named_children()
                                .filter(|c| !self.is_layout(c) && self.live(*c)),
                        );
                    } else if self.live(child) {
                        current.statements.push(child);
                    }
                } else {
                    return None;
                }
            }
            if keyword.is_some() {
                return None;
            }
        }
        if !current.labels.is_empty() {
            groups.push(current);
        }
        Some(groups)
    }

    /// Whether statement `node` is emitted with more than braces: not dead,
    /// and not a block of dead statements (or none).
    fn live(&self, node: Node<'_>) -> bool {
        // A stack, not recursion: blocks nest without bound.
        let mut stack = vec![node];
        while let Some(n) = stack.pop() {
            if self.dead.contains(&n.id()) {
                continue;
            }
            if self.braces(n).is_none() {
                return true;
            }
            stack.extend(n.named_children().filter(|c| !self.is_layout(c)));
        }
        false
    }

    /// The statement that ends `statements` if it is a jump (also as the
    /// last statement of a block that ends them: `case 1: { …; break; }`).
    fn final_jump<'t>(&self, statements: &[Node<'t>]) -> Option<Node<'t>> {
        let last = *statements.last()?;
        if JUMPS.contains(&last.kind()) {
            return Some(last);
        }
        self.braces(last)?;
        let inner = last
            .named_children()
            .filter(|c| !self.is_layout(c) && self.live(*c))
            .last()?;
        JUMPS.contains(&inner.kind()).then_some(inner)
    }

    /// Whether a `break` under `node` (but `allowed`) would leave the
    /// `switch`: one not inside a loop or another `switch` of its own.
    fn breaks_out(&self, node: Node<'_>, allowed: Option<usize>) -> bool {
        let mut stack = vec![node];
        while let Some(n) = stack.pop() {
            let kind = n.kind();
            if kind == "break_statement" && Some(n.id()) != allowed {
                return true;
            }
            let nested = kind.starts_with("for")
                || kind.starts_with("while")
                || kind.starts_with("do_")
                || kind.starts_with("enhanced_for")
                || self.table.spec.switches.contains(&kind);
            if nested {
                continue;
            }
            stack.extend(n.named_children());
        }
        false
    }

    /// Adds to `edits` the rewrite of the `switch` statement `node` into
    /// the chain form; `false` (and no edits) where it does not mean the
    /// same.
    pub(crate) fn switch(&self, node: Node<'_>, edits: &mut Edits) -> bool {
        match self.switch_edits(node) {
            Some(e) => {
                edits.skip.extend(e.skip);
                edits.replace.extend(e.replace);
                true
            }
            None => false,
        }
    }

    fn switch_edits(&self, node: Node<'_>) -> Option<Edits> {
        match node.kind() {
            "match_statement" => return self.match_edits(node),
            "match_expression" => return self.arms_edits(node),
            _ => {}
        }
        let keyword = node.child(0)?;
        let (name, parens) = self.condition(node)?;
        // Go's cases are the statement's own children.
        let body = node.child_by_field_name("body").unwrap_or(node);
        // Go's `switch v := f(); v {`.
        let initialized = node.child_by_field_name("initializer").is_some();
        if self.text_of(&keyword) != b"switch" || !self.pure(name) || initialized {
            return None;
        }
        let braces = self.braces(body).or_else(|| {
            // Java's `switch_block` is no statement block; Go's braces
            // follow the value.
            let open = body.children().find(|c| self.text_of(c) == b"{")?;
            let close = body.child((body.child_count() as u32).checked_sub(1)?)?;
            (open.end_byte() > name.end_byte() && self.text_of(&close) == b"}")
                .then_some([open, close])
        })?;
        let groups = self.groups(body, braces[0])?;
        let valued = groups
            .iter()
            .filter(|g| g.labels.iter().all(|l| l.value.is_some()))
            .count();
        if valued < 2 {
            return None;
        }
        let mut out = Edits::default();
        out.replace
            .push(self.respell(&keyword, SymbolClass::Keyword, b"if"));
        out.skip
            .extend(parens.iter().chain(&braces).map(|n| n.id()));
        let mut before = Before::Start;
        for (i, group) in groups.iter().enumerate() {
            let last = i + 1 == groups.len();
            let default = group.labels.iter().any(|l| l.value.is_none());
            if default {
                // Only as the last group's only label.
                let label = &group.labels[0];
                if !last || group.labels.len() != 1 {
                    return None;
                }
                match before {
                    Before::Break => out.skip.push(label.keyword.id()),
                    Before::Jump => out.replace.push(self.respell(
                        &label.keyword,
                        SymbolClass::Keyword,
                        b"else",
                    )),
                    Before::Start => return None,
                }
                out.skip.push(label.colon.id());
            } else {
                for (j, label) in group.labels.iter().enumerate() {
                    let pieces: &[&[u8]] = match (j, before) {
                        (0, Before::Start) => &[b"=="],
                        (0, Before::Break) => &[b"if", b"=="],
                        (0, Before::Jump) => &[b"else", b"if", b"=="],
                        // `x == 2 || 3`: a further value is compared as the
                        // first was.
                        _ => &[],
                    };
                    if pieces.is_empty() {
                        out.skip.push(label.keyword.id());
                    } else {
                        out.replace
                            .push((label.keyword.id(), self.over(&label.keyword, pieces)?));
                    }
                    // Go: `case 2, 3:`.
                    for comma in label
                        .value
                        .filter(|v| v.kind() == "expression_list")
                        .into_iter()
                        .flat_map(|v| v.children())
                        .filter(|c| !c.is_named() && self.text_of(c) == b",")
                    {
                        out.replace
                            .push(self.respell(&comma, SymbolClass::Operator, b"||"));
                    }
                    let colon = &label.colon;
                    if j + 1 < group.labels.len() {
                        out.replace
                            .push(self.respell(colon, SymbolClass::Operator, b"||"));
                    } else {
                        out.skip.push(colon.id());
                    }
                }
            }
            // A block among a case's statements is a bare block, written
            // without braces as in a block (`shape.rs`).
            for b in group.statements.iter().filter_map(|s| self.braces(*s)) {
                out.skip.extend(b.iter().map(|n| n.id()));
            }
            let jump = self.final_jump(&group.statements);
            let allowed = jump.map(|j| j.id());
            if group
                .statements
                .iter()
                .any(|s| self.breaks_out(*s, allowed) || s.kind() == "fallthrough_statement")
            {
                return None;
            }
            before = match jump {
                Some(jump) => {
                    // A plain `break;` (not Java's `break label;`).
                    if jump.kind() == "break_statement" && jump.named_child_count() == 0 {
                        if last {
                            out.skip.push(jump.id());
                        } else {
                            let k = jump.child(0)?;
                            out.replace.push(self.respell_at(
                                &jump,
                                &k,
                                SymbolClass::Keyword,
                                b"else",
                            ));
                        }
                        Before::Break
                    } else {
                        Before::Jump
                    }
                }
                // Falling into the next group's statements (not in Go,
                // where the case ends there as after a `return`).
                None if !last && self.table.spec.falls_through => return None,
                None => Before::Jump,
            };
        }
        Some(out)
    }

    /// The `==` operators of `condition` if it is `x == v` or a disjunction
    /// of such comparisons, with their left sides in `lefts` (the same
    /// value throughout: `key`).
    fn comparisons<'t>(
        &self,
        condition: Node<'t>,
        key: &mut Option<Vec<u8>>,
        out: &mut Vec<Node<'t>>,
        lefts: &mut Vec<Node<'t>>,
    ) -> Option<()> {
        // A stack, not recursion: `||` nests as deep as the disjunction is
        // long. Left before right, so `lefts` is in text order.
        let mut stack = vec![condition];
        while let Some(node) = stack.pop() {
            if node.kind() != "binary_expression" {
                return None;
            }
            let left = node.child_by_field_name("left")?;
            let op = node.child_by_field_name("operator")?;
            let right = node.child_by_field_name("right")?;
            match self.text_of(&op) {
                b"||" => {
                    stack.push(right);
                    stack.push(left);
                }
                // JavaScript's `===` is what its `switch` compares with.
                b"==" | b"===" if self.constant(&right) => {
                    self.subject(left, key, lefts)?;
                    out.push(op);
                }
                _ => return None,
            }
        }
        Some(())
    }

    /// The statement after `else` of an `alternative` field (C's
    /// `else_clause { else, statement }`; Java's is the statement).
    fn else_statement<'t>(&self, alternative: Node<'t>) -> Option<Node<'t>> {
        if alternative.kind() != "else_clause" {
            return Some(alternative);
        }
        let found = alternative
            .named_children()
            .filter(|c| !self.is_layout(c))
            .last();
        found
    }

    /// The `else` statement of `node` if it is not another `if`.
    fn last_else<'t>(&self, node: Node<'t>) -> Option<Node<'t>> {
        let other = self.else_statement(node.child_by_field_name("alternative")?)?;
        (other.kind() != node.kind()).then_some(other)
    }

    /// Whether `value` is what a `case` label holds: a literal (maybe
    /// negative), a name in capitals (a constant, an enum's value) or a
    /// path (`Color::Red`).
    fn constant(&self, value: &Node<'_>) -> bool {
        // `Color::Red` (C++, Rust): an enumerator.
        if value.kind() == "scoped_identifier" {
            return true;
        }
        // `-1`.
        let minus = value.child(0).is_some_and(|m| self.text_of(&m) == b"-");
        if minus && value.child_count() == 2 {
            return value
                .child(1)
                .is_some_and(|v| matches!(self.role(&v), Some(Role::Literal(_))));
        }
        match self.role(value) {
            Some(Role::Literal(_)) => true,
            Some(Role::Identifier) => {
                let t = self.text_of(value);
                t.iter().any(u8::is_ascii_uppercase) && !t.iter().any(u8::is_ascii_lowercase)
            }
            _ => false,
        }
    }

    /// Like `comparisons`, for a condition that is their negation: `x !=
    /// v`, or `!(…)` of comparisons.
    fn negated<'t>(
        &self,
        condition: Node<'t>,
        key: &mut Option<Vec<u8>>,
        out: &mut Vec<Node<'t>>,
        lefts: &mut Vec<Node<'t>>,
    ) -> Option<()> {
        let op = condition
            .child_by_field_name("operator")
            .or_else(|| condition.child(0))?;
        match (condition.kind(), self.text_of(&op)) {
            ("binary_expression", b"!=") => {
                let left = condition.child_by_field_name("left")?;
                let right = condition.child_by_field_name("right")?;
                if !self.constant(&right) {
                    return None;
                }
                self.subject(left, key, lefts)
            }
            ("unary_expression" | "prefix_unary_expression", b"!")
                if condition.named_child_count() == 1 =>
            {
                let (inner, _) = self.unwrap(condition.named_child(0)?)?;
                self.comparisons(inner, key, out, lefts)
            }
            _ => None,
        }
    }

    /// Adds to `edits` the rewrite of the `if` chain headed by `node` into
    /// the chain form (and its `==` operators to `touched`, so they keep
    /// their operands' order); `false` where it is no such chain or a part
    /// of one already rewritten (`done`).
    pub(crate) fn if_chain(
        &self,
        node: Node<'_>,
        done: &mut HashSet<usize>,
        touched: &mut HashSet<usize>,
        edits: &mut Edits,
    ) -> bool {
        if done.contains(&node.id()) {
            return false;
        }
        if self.python() {
            return self.elif_chain(node, touched, edits);
        }
        let mut out = Edits::default();
        let mut ifs = Vec::new();
        let mut ops = Vec::new();
        let mut key: Option<Vec<u8>> = None;
        let mut lefts = Vec::new();
        let mut further = Vec::new();
        let mut current = node;
        // The links of the chain.
        let mut links = 0;
        loop {
            let Some((inner, parens)) = self.condition(current) else {
                return false;
            };
            let Some(then) = current.child_by_field_name("consequence") else {
                return false;
            };
            let first_op = ops.len();
            let link = match self.comparisons(inner, &mut key, &mut ops, &mut lefts) {
                Some(()) => Some(true),
                // `else if (x != 3) C else B`: the negated branch swapped
                // (`shape.rs`) is `else if (x == 3) B else C` (not in Rust,
                // whose chain form has no `==`).
                None if links > 0 && self.last_else(current).is_some() && !self.bare() => self
                    .negated(inner, &mut key, &mut ops, &mut lefts)
                    .map(|()| false),
                None => None,
            };
            let Some(positive) = link else {
                return false;
            };
            if links > 0 && self.bare() {
                // Rust: `else if` is `else`.
                out.skip.extend(current.child(0).map(|k| k.id()));
            }
            links += 1;
            if positive {
                ifs.push(current.id());
            }
            // `x == 2 || x == 3` is `x == 2 || 3`, as a `case` with two
            // values.
            further.extend(ops[(first_op + 1).min(ops.len())..].iter().map(|o| o.id()));
            out.skip.extend(parens.iter().map(|n| n.id()));
            if let Some(b) = self.braces(then) {
                out.skip.extend(b.iter().map(|n| n.id()));
            }
            let Some(alternative) = current.child_by_field_name("alternative") else {
                break;
            };
            let Some(other) = self.else_statement(alternative) else {
                return false;
            };
            if other.kind() == node.kind() {
                current = other;
                continue;
            }
            if let Some(b) = self.braces(other) {
                out.skip.extend(b.iter().map(|n| n.id()));
            }
            break;
        }
        if links < 2 {
            return false;
        }
        done.extend(ifs);
        touched.extend(ops.iter().map(|o| o.id()));
        edits.skip.extend(&further);
        if self.bare() {
            // Rust: no `==` at all.
            edits.skip.extend(ops.iter().map(|o| o.id()));
        }
        for op in ops
            .iter()
            .filter(|o| self.text_of(o) == b"===" && !further.contains(&o.id()))
        {
            edits
                .replace
                .push(self.respell(op, SymbolClass::Operator, b"=="));
        }
        edits.skip.extend(out.skip);
        // The value compared is written once, in the first comparison.
        edits.skip.extend(lefts.iter().skip(1).map(|n| n.id()));
        true
    }

    /// Whether this is Rust, whose `match` arms have no keyword to hold an
    /// `if` or `==`: its chain form is `if x 1 A else 2 || 3 B else C`,
    /// without the `==` and the `if` of `else if`.
    fn bare(&self) -> bool {
        self.table.spec.switches.contains(&"match_expression")
    }

    /// Rust: the rewrite of `match x { … }` whose arms compare with
    /// literals or paths (`1 =>`, `2 | 3 =>`, `Color::Red =>`, a last `_
    /// =>`) into the chain form of [`Chains::bare`]: `match` is the `if`,
    /// an arm's `}` (of a block) or `,` (after an expression) the `else`
    /// before the next arm, `|` the `||`; the braces of the match and of
    /// the arms' blocks, the `=>` and the `_` are left out. An arm with a
    /// guard, a binding, a range or any other pattern, or a `_` that is not
    /// the last arm, keeps the `match` as written.
    fn arms_edits(&self, node: Node<'_>) -> Option<Edits> {
        let keyword = node.child(0)?;
        let value = node.child_by_field_name("value")?;
        let body = node.child_by_field_name("body")?;
        if self.text_of(&keyword) != b"match" || !self.pure(value) {
            return None;
        }
        let open = body.child(0)?;
        let close = body.child((body.child_count() as u32).checked_sub(1)?)?;
        if self.text_of(&open) != b"{" || self.text_of(&close) != b"}" {
            return None;
        }
        let mut out = Edits::default();
        out.replace
            .push(self.respell(&keyword, SymbolClass::Keyword, b"if"));
        out.skip.extend([open.id(), close.id()]);
        let arms: Vec<Node<'_>> = body
            .named_children()
            .filter(|c| !self.is_layout(c))
            .collect();
        let mut valued = 0;
        for (i, arm) in arms.iter().enumerate() {
            let last = i + 1 == arms.len();
            let pattern = arm.child_by_field_name("pattern")?;
            let result = arm.child_by_field_name("value")?;
            if arm.kind() != "match_arm" || pattern.child_by_field_name("condition").is_some() {
                return None;
            }
            if self.text_of(&pattern) == b"_" {
                if i == 0 || !last {
                    return None;
                }
                out.skip.push(pattern.id());
            } else {
                for bar in self.value_pattern(pattern)? {
                    out.replace
                        .push(self.respell(&bar, SymbolClass::Operator, b"||"));
                }
                valued += 1;
            }
            let arrow = result.prev_sibling()?;
            if self.text_of(&arrow) != b"=>" {
                return None;
            }
            out.skip.push(arrow.id());
            // The `else` before the next arm: the block's `}` or the `,`.
            let comma = result.next_sibling().filter(|c| self.text_of(c) == b",");
            let end = match self.braces(result) {
                Some([open, close]) => {
                    out.skip.push(open.id());
                    out.skip.extend(comma.map(|c| c.id()));
                    close
                }
                None => match comma {
                    Some(comma) => comma,
                    None if last => {
                        continue;
                    }
                    None => return None,
                },
            };
            if last {
                out.skip.push(end.id());
            } else {
                out.replace
                    .push(self.respell(&end, SymbolClass::Keyword, b"else"));
            }
        }
        (valued >= 2).then_some(out)
    }

    /// Whether this is Python, whose `match` and `if`/`elif` chains have
    /// forms of their own.
    fn python(&self) -> bool {
        self.table.spec.switches.contains(&"match_statement")
    }

    /// Python: the rewrite of `match x:` whose cases are literals or dotted
    /// names (`case 1:`, `case "a" | "b":`, `case Color.RED:`, a last
    /// `case _:`) into the chain form `if x == 1 A elif == 2 or 3 B else
    /// C`: `match` is the `if`, a first `case` the `==`, a later one `elif
    /// ==`, `|` the `or`, the `case` of `_` the `else`; colons and the `_`
    /// are left out. A case does not run into the next, and `break` belongs
    /// to a loop around, so no case is refused for how it ends; a guard
    /// (`case 1 if y:`), a capture (`case n:`), a sequence or class pattern,
    /// or a `_` that is not the last case keeps the `match` as written.
    fn match_edits(&self, node: Node<'_>) -> Option<Edits> {
        let keyword = node.child(0)?;
        let subject = node.child_by_field_name("subject")?;
        let body = node.child_by_field_name("body")?;
        let colon = subject.next_sibling()?;
        if self.text_of(&keyword) != b"match" || self.text_of(&colon) != b":" || !self.pure(subject)
        {
            return None;
        }
        let mut out = Edits::default();
        out.replace
            .push(self.respell(&keyword, SymbolClass::Keyword, b"if"));
        out.skip.push(colon.id());
        let clauses: Vec<Node<'_>> = body
            .named_children()
            .filter(|c| !self.is_layout(c))
            .collect();
        let mut valued = 0;
        for (i, clause) in clauses.iter().enumerate() {
            if clause.kind() != "case_clause" || clause.child_by_field_name("guard").is_some() {
                return None;
            }
            let case = clause.child(0)?;
            let mut patterns = clause
                .named_children()
                .filter(|c| c.kind() == "case_pattern");
            let (pattern, None) = (patterns.next()?, patterns.next()) else {
                return None;
            };
            let colon = pattern.next_sibling()?;
            if self.text_of(&case) != b"case" || self.text_of(&colon) != b":" {
                return None;
            }
            out.skip.push(colon.id());
            if self.text_of(&pattern) == b"_" {
                // The wildcard: `else`, as the last case only.
                if i == 0 || i + 1 != clauses.len() {
                    return None;
                }
                out.skip.push(pattern.id());
                out.replace
                    .push(self.respell(&case, SymbolClass::Keyword, b"else"));
                continue;
            }
            for bar in self.value_pattern(pattern)? {
                out.replace
                    .push(self.respell(&bar, SymbolClass::Keyword, b"or"));
            }
            let pieces: &[&[u8]] = if i == 0 { &[b"=="] } else { &[b"elif", b"=="] };
            out.replace.push((case.id(), self.over(&case, pieces)?));
            valued += 1;
        }
        (valued >= 2).then_some(out)
    }

    /// The `|` tokens of a pattern (Python's `case`, Rust's arm) that
    /// compares with values only: literals (a number, maybe negative, a
    /// string), dotted names (`Color.RED`; a bare name would capture) and
    /// paths (`Color::Red`), alone or joined by `|`; `None` for any other
    /// pattern.
    fn value_pattern<'t>(&self, pattern: Node<'t>) -> Option<Vec<Node<'t>>> {
        let mut bars = Vec::new();
        let mut stack = vec![pattern];
        while let Some(n) = stack.pop() {
            match n.kind() {
                "case_pattern" | "union_pattern" | "match_pattern" | "or_pattern" => {
                    for c in n.children().filter(|c| !self.is_layout(c)) {
                        if c.is_named() {
                            stack.push(c);
                        } else {
                            match self.text_of(&c) {
                                b"|" => bars.push(c),
                                b"-" => {}
                                _ => return None,
                            }
                        }
                    }
                }
                "dotted_name" if n.named_child_count() >= 2 => {}
                "scoped_identifier" | "negative_literal" => {}
                _ if matches!(self.role(&n), Some(Role::Literal(_))) => {}
                _ => return None,
            }
        }
        Some(bars)
    }

    /// Whether `value` is what a `case` compares with in Python: a literal,
    /// maybe negative, a dotted name (`Color.RED`), or a name in capitals.
    fn py_constant(&self, value: &Node<'_>) -> bool {
        value.kind() == "attribute" || self.constant(value)
    }

    /// Python: the `==` operators of `condition` if it is `x == v` or an
    /// `or` of such (one pure value `x` throughout), with their left sides.
    fn py_comparisons<'t>(
        &self,
        condition: Node<'t>,
        key: &mut Option<Vec<u8>>,
        out: &mut Vec<Node<'t>>,
        lefts: &mut Vec<Node<'t>>,
    ) -> Option<()> {
        let mut stack = vec![condition];
        while let Some(node) = stack.pop() {
            match node.kind() {
                "boolean_operator" => {
                    let op = node.child_by_field_name("operator")?;
                    if self.text_of(&op) != b"or" {
                        return None;
                    }
                    stack.push(node.child_by_field_name("right")?);
                    stack.push(node.child_by_field_name("left")?);
                }
                "comparison_operator" if node.child_count() == 3 => {
                    let (left, op, right) = (node.child(0)?, node.child(1)?, node.child(2)?);
                    if self.text_of(&op) != b"==" || !self.py_constant(&right) {
                        return None;
                    }
                    self.subject(left, key, lefts)?;
                    out.push(op);
                }
                _ => return None,
            }
        }
        Some(())
    }

    /// Python: the rewrite of an `if`/`elif` chain comparing one value with
    /// constants into the chain form of [`Chains::match_edits`]: the colons
    /// left out, the value written once, a further value of an `or` without
    /// its `x ==`.
    fn elif_chain(&self, node: Node<'_>, touched: &mut HashSet<usize>, edits: &mut Edits) -> bool {
        let mut links = vec![node];
        let mut last_else = None;
        for alternative in node.children().filter(|c| c.is_named()) {
            match alternative.kind() {
                "elif_clause" => links.push(alternative),
                "else_clause" => last_else = Some(alternative),
                _ => {}
            }
        }
        if links.len() < 2 {
            return false;
        }
        let mut out = Edits::default();
        let (mut key, mut ops, mut lefts, mut further) = (None, Vec::new(), Vec::new(), Vec::new());
        for link in &links {
            let Some(condition) = link.child_by_field_name("condition") else {
                return false;
            };
            let first_op = ops.len();
            if self
                .py_comparisons(condition, &mut key, &mut ops, &mut lefts)
                .is_none()
            {
                return false;
            }
            further.extend(ops[(first_op + 1).min(ops.len())..].iter().map(|o| o.id()));
            match condition.next_sibling() {
                Some(colon) if self.text_of(&colon) == b":" => out.skip.push(colon.id()),
                _ => return false,
            }
        }
        if let Some(colon) = last_else
            .and_then(|e| e.child(1))
            .filter(|c| self.text_of(c) == b":")
        {
            out.skip.push(colon.id());
        }
        touched.extend(ops.iter().map(|o| o.id()));
        edits.skip.extend(out.skip);
        edits.skip.extend(further);
        // The value compared is written once, in the first comparison.
        edits.skip.extend(lefts.iter().skip(1).map(|n| n.id()));
        true
    }
}

#[cfg(test)]
mod tests {
    use crate::test_support;
    use crate::{Options, TsLanguage};
    use proptest::prelude::*;

    fn options() -> Options {
        Options {
            canonical_control: true,
            canonical_forms: true,
            drop_dead_code: true,
            canonical_order: true,
            inline_calls: true,
            ..Options::default()
        }
    }

    fn symbols(lang: &str, src: &str) -> Vec<u64> {
        test_support::symbols(lang, src, &options())
    }

    fn one_form(lang: &str, frame: &str, forms: &[&str]) {
        test_support::one_form(lang, frame, forms, &options())
    }

    /// `frame` with `$` replaced by `a` and by `b` gives other symbols.
    fn differ(lang: &str, frame: &str, a: &str, b: &str) {
        assert_ne!(
            symbols(lang, &frame.replace('$', a)),
            symbols(lang, &frame.replace('$', b)),
            "{lang}: {a} | {b}"
        );
    }

    const JAVA: &str = "class A { static int f(int x, int y) { int r = 0; $ return r + y; } }";
    const C: &str = "int f(int x, int y) { int r = 0; $ return r + y; }";
    const JS: &str = "function f(x, y) { let r = 0; $ return r + y; }";
    const CS: &str = "class A { static int F(int x, int y) { int r = 0; $ return r + y; } }";

    /// Every language whose switches are rewritten, with a frame.
    const LANGUAGES: [(&str, &str); 6] = [
        ("java", JAVA),
        ("c", C),
        ("cpp", C),
        ("javascript", JS),
        ("typescript", JS),
        ("csharp", CS),
    ];

    #[test]
    fn switches_are_if_chains() {
        for (lang, frame) in LANGUAGES {
            one_form(
                lang,
                frame,
                &[
                    "switch (x) { case 1: r = 10; break; case 2: case 3: r = y; break; \
                     default: r = 0; }",
                    "if (x == 1) { r = 10; } else if (x == 2 || x == 3) { r = y; } \
                     else { r = 0; }",
                    "if (x == 1) r = 10; else if (x == 2 || x == 3) r = y; else r = 0;",
                    // The last case's `break`, and a comment.
                    "switch (x) { case 1: r = 10; break; /* two */ case 2: case 3: r = y; \
                     break; default: r = 0; break; }",
                ],
            );
            // Cases that return, one in a block, no default.
            one_form(
                lang,
                frame,
                &[
                    "switch (x) { case 1: return 2; case 'a': { r = y * 2; y = 1; break; } \
                     case 4: r = 1; }",
                    "if (x == 1) { return 2; } else if (x == 'a') { r = y * 2; y = 1; } \
                     else if (x == 4) { r = 1; }",
                ],
            );
            // A pure value other than a name, written once.
            one_form(
                lang,
                &frame.replace(
                    "int x,",
                    if lang == "java" {
                        "int[] x,"
                    } else {
                        "int *x,"
                    },
                ),
                &[
                    "switch (x[y]) { case 1: r = 1; break; case 2: r = 2; break; }",
                    "switch (x[y]) { case 1: r = 1; break; case 2: r = 2; }",
                    "if (x[y] == 1) r = 1; else if (x[ y ] == 2) r = 2;",
                ],
            );
            // JavaScript's strict comparison is what its switch makes.
            if lang == "javascript" {
                one_form(
                    lang,
                    frame,
                    &[
                        "switch (x) { case 1: r = 1; break; case 2: r = 2; break; }",
                        "if (x === 1) r = 1; else if (x === 2) r = 2;",
                    ],
                );
            }
            // Constants by name.
            one_form(
                lang,
                frame,
                &[
                    "switch (x) { case MAX: r = 1; break; case 2: r = 2; break; }",
                    "if (x == MAX) r = 1; else if (x == 2) r = 2;",
                ],
            );
            // Dead code after a case's `break`.
            let declare = if lang.ends_with("script") {
                "let"
            } else {
                "int"
            };
            one_form(
                lang,
                frame,
                &[
                    &format!(
                        "switch (x) {{ case 1: r = 1; break; case 2: r = 2; break; \
                         {{ {declare} q = 2; }} }}"
                    ),
                    "if (x == 1) r = 1; else if (x == 2) r = 2;",
                ],
            );
            // The last link negated, with its branches swapped.
            one_form(
                lang,
                frame,
                &[
                    "if (x == 1) { r = 1; } else if (x == 2) { r = 2; } else { r = y; }",
                    "if (x == 1) { r = 1; } else if (x != 2) { r = y; } else { r = 2; }",
                    "if (x == 1) r = 1; else if (!(x == 2)) r = y; else { r = 2; }",
                    "switch (x) { case 1: r = 1; break; case 2: r = 2; break; default: r = y; }",
                ],
            );
            // A `break` of a loop in a case is the loop's.
            one_form(
                lang,
                frame,
                &[
                    "switch (x) { case 1: while (y > 0) { if (y == 3) break; y = y - 1; } \
                     break; case 2: r = 2; break; }",
                    "if (x == 1) { while (y > 0) { if (y == 3) break; y = y - 1; } } \
                     else if (x == 2) { r = 2; }",
                ],
            );
        }
    }

    /// Whether the `switch` of `src` is written as a chain (its keyword
    /// spelled `if`).
    fn rewritten(lang: &str, src: &str) -> bool {
        let at = src.find("switch").unwrap() as u32;
        TsLanguage::by_name(lang)
            .unwrap()
            .spellings(src.as_bytes(), &options())
            .unwrap()
            .iter()
            .any(|(span, t)| span.start == at && t == b"if")
    }

    #[test]
    fn only_switches_that_mean_the_chain_are_rewritten() {
        for (lang, frame) in LANGUAGES {
            assert!(rewritten(
                lang,
                &frame.replace('$', "switch (x) { case 1: r = 10; break; case 2: r = y; }")
            ));
            for kept in [
                // Falling through into the next case.
                "switch (x) { case 1: r = 10; case 2: r = y; break; }",
                // A `break` that leaves the switch early.
                "switch (x) { case 1: if (y > 0) break; r = 10; break; case 2: r = y; break; }",
                // One case: a plain if/else.
                "switch (x) { case 1: r = 10; break; default: r = y; }",
                // `default` before a case.
                "switch (x) { default: r = y; break; case 1: r = 10; break; case 2: r = 3; }",
                // A value that changes when evaluated again.
                "switch (g(x)) { case 1: r = 10; break; case 2: r = y; break; }",
                "switch (y++) { case 1: r = 10; break; case 2: r = y; break; }",
                // Code before the first label.
                "switch (x) { r = 1; case 1: r = 10; break; case 2: r = y; break; }",
            ] {
                let src = frame.replace('$', kept);
                assert!(!rewritten(lang, &src), "{lang}: {kept}");
            }
        }
        // C#'s type patterns and guards.
        for kept in [
            "switch (x) { case int n: r = 10; break; case string s: r = y; break; }",
            "switch (x) { case 1 when y > 0: r = 10; break; case 2: r = y; break; }",
        ] {
            assert!(!rewritten("csharp", &CS.replace('$', kept)), "{kept}");
        }
        // Java's arrow cases and lists of values.
        for kept in [
            "switch (x) { case 1 -> r = 10; case 2 -> r = y; }",
            "switch (x) { case 1, 4: r = 10; break; case 2: r = y; break; }",
        ] {
            assert!(!rewritten("java", &JAVA.replace('$', kept)), "{kept}");
        }
        // Chains that are no switch keep their parentheses and braces.
        let switch = "switch (x) { case 1: r = 10; break; case 2: r = y; break; }";
        for (lang, frame, chain) in [
            (
                "java",
                JAVA,
                "if (x == 1) { r = 10; } else if (y == 2) { r = y; }",
            ),
            ("c", C, "if (x < 1) { r = 10; } else if (x == 2) { r = y; }"),
            (
                "c",
                C,
                "if (x == 1) { r = 10; } else if (x == y) { r = y; }",
            ),
            (
                "c",
                C,
                "if (x == 1) { r = 10; } else if (x == 2 && y) { r = y; }",
            ),
            ("c", C, "if (x == 1) { r = 10; } else { r = y; }"),
        ] {
            differ(lang, frame, chain, switch);
            // Every `{` of the chain is still a symbol.
            let src = frame.replace('$', chain);
            let spans = TsLanguage::by_name(lang)
                .unwrap()
                .normalize(src.as_bytes(), &options())
                .unwrap()
                .normalized
                .spans;
            let braces = spans.iter().filter(|s| &src[s.range()] == "{").count();
            assert_eq!(braces, src.matches('{').count(), "{lang}: {chain}");
        }
    }

    const GO: &str = "package p\nfunc f(x int, y int) int {\n\tr := 0\n\t$\n\treturn r + y\n}\n";

    #[test]
    fn go_switches_are_if_chains() {
        one_form(
            "go",
            GO,
            &[
                "switch x {\n\tcase 1:\n\t\tr = 10\n\tcase 2, 3:\n\t\tr = y\n\t\
                 default:\n\t\tr = 0\n\t}",
                "if x == 1 {\n\t\tr = 10\n\t} else if x == 2 || x == 3 {\n\t\tr = y\n\t\
                 } else {\n\t\tr = 0\n\t}",
                // A `break` at the end of a case changes nothing.
                "switch x {\n\tcase 1:\n\t\tr = 10\n\t\tbreak\n\tcase 2, 3:\n\t\tr = y\n\t\
                 default:\n\t\tr = 0\n\t}",
                "if (x == 1) {\n\t\tr = 10\n\t} else if (x == 2 || x == 3) {\n\t\tr = y\n\t\
                 } else {\n\t\tr = 0\n\t}",
            ],
        );
        // Cases that return, no default; and C's form of two values.
        one_form(
            "go",
            GO,
            &[
                "switch x {\n\tcase 1:\n\t\treturn 2\n\tcase 4, 5:\n\t\tr = y * 2\n\t}",
                "if x == 1 {\n\t\treturn 2\n\t} else if x == 4 || x == 5 {\n\t\tr = y * 2\n\t}",
            ],
        );
        one_form(
            "c",
            C,
            &[
                "switch (x) { case 2: case 3: r = y; break; case 4: r = 1; }",
                "if (x == 2 || x == 3) r = y; else if (x == 4) r = 1;",
            ],
        );
        assert!(rewritten(
            "go",
            &GO.replace(
                '$',
                "switch x {\n\tcase 1:\n\t\tr = 10\n\tcase 2:\n\t\tr = y\n\t}"
            )
        ));
        for kept in [
            // Falling through on purpose.
            "switch x {\n\tcase 1:\n\t\tr = 10\n\t\tfallthrough\n\tcase 2:\n\t\tr = y\n\t}",
            // A `break` that leaves the switch early.
            "switch x {\n\tcase 1:\n\t\tif y > 0 {\n\t\t\tbreak\n\t\t}\n\t\tr = 10\n\t\
             case 2:\n\t\tr = y\n\t}",
            // A statement before the value, and no value.
            "switch v := y; v {\n\tcase 1:\n\t\tr = 10\n\tcase 2:\n\t\tr = y\n\t}",
            "switch {\n\tcase x == 1:\n\t\tr = 10\n\tcase x == 2:\n\t\tr = y\n\t}",
            // One case.
            "switch x {\n\tcase 1:\n\t\tr = 10\n\tdefault:\n\t\tr = y\n\t}",
        ] {
            assert!(!rewritten("go", &GO.replace('$', kept)), "{kept}");
        }
    }

    const PY: &str = "def f(x, y):\n    r = 0\n$    return r + y\n";

    /// `lines` as a block of `f` in [`PY`] (four spaces more each).
    fn py(lines: &[&str]) -> String {
        lines.iter().map(|l| format!("    {l}\n")).collect()
    }

    #[test]
    fn python_matches_are_if_chains() {
        let chain = py(&[
            "if x == 1:",
            "    r = 10",
            "elif x == 2 or x == 3:",
            "    r = y",
            "elif x == -4 or x == Color.RED:",
            "    r = 'a'",
            "else:",
            "    r = 0",
        ]);
        let matched = py(&[
            "match x:",
            "    case 1:",
            "        r = 10",
            "    case 2 | 3:",
            "        r = y",
            "    case -4 | Color.RED:",
            "        r = 'a'",
            "    case _:",
            "        r = 0",
        ]);
        one_form("python", PY, &[&chain, &matched]);
        // Strings, no wildcard, a case that breaks out of a loop around.
        let chain = py(&[
            "for x in y:",
            "    if x == 'a':",
            "        break",
            "    elif x == 'b':",
            "        r = 1",
        ]);
        let matched = py(&[
            "for x in y:",
            "    match x:",
            "        case 'a':",
            "            break",
            "        case 'b':",
            "            r = 1",
        ]);
        one_form("python", PY, &[&chain, &matched]);
        let rewritten = |body: &[&str]| {
            let src = PY.replace('$', &py(body));
            let at = src.find("match").unwrap() as u32;
            TsLanguage::by_name("python")
                .unwrap()
                .spellings(src.as_bytes(), &options())
                .unwrap()
                .iter()
                .any(|(span, t)| span.start == at && t == b"if")
        };
        assert!(rewritten(&[
            "match x:",
            "    case 1:",
            "        r = 10",
            "    case 2:",
            "        r = y",
        ]));
        for kept in [
            // A guard, a capture, a sequence, a wildcard before a case.
            ["case 1 if y:", "case 2:"],
            ["case 1:", "case n:"],
            ["case 1:", "case 2, 3:"],
            ["case _:", "case 2:"],
            ["case [1]:", "case 2:"],
        ] {
            let body = [
                "match x:",
                &format!("    {}", kept[0]),
                "        r = 10",
                &format!("    {}", kept[1]),
                "        r = y",
            ];
            assert!(!rewritten(&body), "{kept:?}");
        }
        // A wildcard between two cases.
        assert!(!rewritten(&[
            "match x:",
            "    case 1:",
            "        r = 10",
            "    case _:",
            "        r = y",
            "    case 2:",
            "        r = 3",
        ]));
        // One case and a wildcard: a plain if/else, as written.
        assert!(!rewritten(&[
            "match x:",
            "    case 1:",
            "        r = 10",
            "    case _:",
            "        r = y",
        ]));
        // A chain on two values, or with another test, keeps its colons.
        for chain in [
            ["if x == 1:", "elif y == 2:"],
            ["if x == 1:", "elif x < 2:"],
        ] {
            let src = PY.replace('$', &py(&[chain[0], "    r = 1", chain[1], "    r = 2"]));
            let spans = TsLanguage::by_name("python")
                .unwrap()
                .normalize(src.as_bytes(), &options())
                .unwrap()
                .normalized
                .spans;
            let colons = spans.iter().filter(|s| &src[s.range()] == ":").count();
            assert_eq!(colons, 3, "{chain:?}");
        }
    }

    const RUST: &str = "fn f(x: i32, y: i32) -> i32 { let mut r = 0; $ r + y }";

    #[test]
    fn rust_matches_are_if_chains() {
        one_form(
            "rust",
            RUST,
            &[
                "match x { 1 => { r = 10; } 2 | 3 => { r = y; }, Color::Red => { r = 4; } \
                 _ => { r = 0; } }",
                "if x == 1 { r = 10; } else if x == 2 || x == 3 { r = y; } \
                 else if x == Color::Red { r = 4; } else { r = 0; }",
            ],
        );
        // Arms that are expressions (their `,` the `else`), no wildcard.
        one_form(
            "rust",
            RUST,
            &[
                "r = match x { -1 => { y }, 'a' => 2, 7 => g(y) };",
                "r = if x == -1 { y } else if x == 'a' { 2 } else if x == 7 { g(y) };",
            ],
        );
        let rewritten = |body: &str| {
            let src = RUST.replace('$', body);
            let at = src.find("match").unwrap() as u32;
            TsLanguage::by_name("rust")
                .unwrap()
                .spellings(src.as_bytes(), &options())
                .unwrap()
                .iter()
                .any(|(span, t)| span.start == at && t == b"if")
        };
        assert!(rewritten("match x { 1 => { r = 10; } 2 => { r = y; } }"));
        for kept in [
            // A guard, a binding, a range, a tuple, a wildcard first.
            "match x { 1 if y > 0 => { r = 10; } 2 => { r = y; } }",
            "match x { 1 => { r = 10; } n => { r = n; } }",
            "match x { 1..=3 => { r = 10; } 4 => { r = y; } }",
            "match (x, y) { (1, _) => { r = 10; } (2, _) => { r = y; } }",
            "match x { _ => { r = 10; } 2 => { r = y; } }",
            // A value that changes when evaluated again; one arm.
            "match g(x) { 1 => { r = 10; } 2 => { r = y; } }",
            "match x { 1 => { r = 10; } _ => { r = y; } }",
        ] {
            assert!(!rewritten(kept), "{kept}");
        }
        // A chain with another test keeps its braces and `==`.
        differ(
            "rust",
            RUST,
            "if x == 1 { r = 10; } else if x < 2 { r = y; }",
            "match x { 1 => { r = 10; } 2 => { r = y; } }",
        );
    }

    #[test]
    fn a_long_disjunction_costs_no_stack() {
        // Left-nested `||` 50,000 deep: read with a stack, not recursion.
        let tests: Vec<String> = (0..50_000).map(|v| format!("x == {v}")).collect();
        let src = format!(
            "int f(int x) {{ int r = 0; if ({}) r = 1; else if (x == -1) r = 2; return r; }}",
            tests.join(" || ")
        );
        let mut options = options();
        options.max_bytes = src.len();
        let parsed = TsLanguage::by_name("c")
            .unwrap()
            .normalize(src.as_bytes(), &options)
            .unwrap()
            .normalized;
        // Written as a chain: the value once, so one `x` per comparison
        // fewer than as written (and the parentheses left out).
        let names = parsed
            .spans
            .iter()
            .filter(|s| &src[s.range()] == "x")
            .count();
        assert_eq!(names, 2);
    }

    #[test]
    fn a_switch_keeps_its_spans() {
        let src = "int f(int x) { switch (x) { case 1: return 2; case 3: return 4; } return 0; }";
        let parsed = TsLanguage::by_name("c")
            .unwrap()
            .normalize(src.as_bytes(), &options())
            .unwrap()
            .normalized;
        let texts: Vec<&str> = parsed.spans.iter().map(|s| &src[s.range()]).collect();
        // `if x == 1 return 2 ; else if == 3 return 4 ;`: the second
        // case's `else if ==` are its keyword's four bytes.
        assert_eq!(
            texts,
            [
                "int", "f", "(", "int", "x", ")", "{", "switch", "x", "case", "1", "return", "2",
                ";", "c", "a", "se", "3", "return", "4", ";", "return", "0", ";", "}"
            ]
        );
        let spellings = TsLanguage::by_name("c")
            .unwrap()
            .spellings(src.as_bytes(), &options())
            .unwrap();
        let written: Vec<&[u8]> = spellings.iter().map(|(_, t)| &t[..]).collect();
        let expected: [&[u8]; 5] = [b"if", b"==", b"else", b"if", b"=="];
        assert_eq!(written, expected);
    }

    /// Statements a case may hold, and whether one holds a `break` that
    /// leaves the switch.
    const STATEMENTS: &[(&str, bool)] = &[
        ("r = 1;", false),
        ("y = y * 3;", false),
        ("{ r = y; y = 2; }", false),
        ("while (y > 0) { y = y - 1; if (y == 4) break; }", false),
        ("if (y == 2) break;", true),
    ];

    /// How a case ends.
    const ENDS: &[&str] = &["break;", "return r;", ""];

    /// One case group: its labels (`None`: `default`), statements, end.
    type Case = (Vec<Option<u8>>, Vec<usize>, usize);

    fn cases() -> impl Strategy<Value = Vec<Case>> {
        let label = prop_oneof![4 => (0u8..6).prop_map(Some), 1 => Just(None)];
        let case = (
            prop::collection::vec(label, 1..3),
            prop::collection::vec(0..STATEMENTS.len(), 1..3),
            0..ENDS.len(),
        );
        prop::collection::vec(case, 1..5)
    }

    fn value(v: u8) -> String {
        if v == 5 {
            "MAX".to_string()
        } else {
            v.to_string()
        }
    }

    /// The switch of `cases`.
    fn switch_of(cases: &[Case]) -> String {
        let mut out = String::from("switch (x) { ");
        for (labels, statements, end) in cases {
            for l in labels {
                match l {
                    Some(v) => out += &format!("case {}: ", value(*v)),
                    None => out += "default: ",
                }
            }
            for &s in statements {
                out += STATEMENTS[s].0;
                out += " ";
            }
            out += ENDS[*end];
            out += " ";
        }
        out + "}"
    }

    /// Whether the switch of `cases` means an `if` chain (the module's rule,
    /// written plainly), and that chain.
    fn chain_of(cases: &[Case]) -> Option<String> {
        let valued = cases
            .iter()
            .filter(|c| c.0.iter().all(Option::is_some))
            .count();
        if valued < 2 {
            return None;
        }
        let mut out = String::new();
        for (i, (labels, statements, end)) in cases.iter().enumerate() {
            let last = i + 1 == cases.len();
            if statements.iter().any(|&s| STATEMENTS[s].1) || (!last && ENDS[*end].is_empty()) {
                return None;
            }
            if i > 0 {
                out += "else ";
            }
            if labels.contains(&None) {
                if !last || labels.len() > 1 {
                    return None;
                }
            } else {
                let tests: Vec<String> = labels
                    .iter()
                    .map(|l| format!("x == {}", value(l.unwrap())))
                    .collect();
                out += &format!("if ({}) ", tests.join(" || "));
            }
            out += "{ ";
            for &s in statements {
                out += STATEMENTS[s].0;
                out += " ";
            }
            if ENDS[*end] != "break;" {
                out += ENDS[*end];
            }
            out += " } ";
        }
        Some(out)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// A random switch is rewritten exactly when it means an `if`
        /// chain, and then has the symbols of that chain.
        #[test]
        fn random_switches_are_their_chains(cases in cases(), li in 0usize..LANGUAGES.len()) {
            let (lang, frame) = LANGUAGES[li];
            let switch = frame.replace('$', &switch_of(&cases));
            match chain_of(&cases) {
                Some(chain) => {
                    let chain = frame.replace('$', &chain);
                    prop_assert!(rewritten(lang, &switch), "{}", switch);
                    prop_assert_eq!(symbols(lang, &switch), symbols(lang, &chain), "{} | {}", switch, chain);
                }
                None => prop_assert!(!rewritten(lang, &switch), "{}", switch),
            }
        }
    }
}
