//! Dead-statement analysis: which statements of a syntax tree have no
//! effect on what the program outputs or returns, so that the walk can leave
//! their symbols out (token-sequence normalization against inserted code).
//!
//! The analysis is per function (a *scope*), flow-insensitive and by name,
//! and errs on the side of keeping code:
//!
//! - a statement has an *effect* if it calls anything (a call, a `new`, a
//!   macro) but a function of this file whose body has no effect, jumps
//!   (`return`, `break`, `throw`, …), writes through a pointer, a field or
//!   an index (`a[i] = …`, `this.x = …`), writes a name that is not a local
//!   variable of its function (a field, a global, a parameter), or holds a
//!   construct that is never dropped (a switch, a try, a nested function);
//! - a *local* is a name declared in the function (a declarator, or for
//!   Python a plain assignment target not named `global` or `nonlocal`);
//! - a statement is *essential* if it has an effect, writes a local that
//!   an essential statement reads, or holds an essential statement; the
//!   names an essential statement reads are *live*. Both are computed to a
//!   fixed point, so a chain of assignments feeding only each other is
//!   dropped whole;
//! - statements after a `return`, `break`, `continue`, `throw`, `raise` or
//!   `goto` in the same block (up to the next label) are unreachable and
//!   dropped too.
//!
//! Only statements of the kinds a language lists as droppable (declarations,
//! expression statements, `if`, loops, blocks) are ever dropped; everything
//! else stays. Names are compared by text, so two variables of one function
//! with the same name are one variable to the analysis: that keeps more
//! code, never less.

use crate::{HashMap, HashSet};

use tree_sitter::Language;

use crate::flat::{Flat, KindSet, Node};

use crate::languages::{Statements, TsLanguage};
use crate::walk::Role;

pub(crate) const SCOPE: u16 = 1;
pub(crate) const BLOCK: u16 = 1 << 1;
pub(crate) const DROPPABLE: u16 = 1 << 2;
pub(crate) const CALL: u16 = 1 << 3;
pub(crate) const UPDATE: u16 = 1 << 4;
pub(crate) const PATTERN: u16 = 1 << 5;
pub(crate) const NONLOCAL: u16 = 1 << 6;
const WRAPPER: u16 = 1 << 7;
pub(crate) const LABEL: u16 = 1 << 8;
pub(crate) const MEMBERS: u16 = 1 << 9;
pub(crate) const DEFINITION: u16 = 1 << 10;
pub(crate) const LOOP: u16 = 1 << 11;
pub(crate) const BRANCH: u16 = 1 << 12;
/// A kind whose name has `for` in it: a loop header discards the value of
/// a step in it.
pub(crate) const FOR_LIKE: u16 = 1 << 13;
/// `binary_expression`: `left`, `operator`, `right`.
pub(crate) const BINARY: u16 = 1 << 14;
/// A `switch` written as an `if` chain (`chain.rs`).
pub(crate) const SWITCH: u16 = 1 << 15;

/// The statement tables of one grammar by kind id, built once per thread
/// and language like the role table.
pub(crate) struct StatementTable {
    flags: Vec<u16>,
    /// The field holding the target of an assignment kind.
    pub(crate) assignment: Vec<Option<u16>>,
    /// The field holding the declared name(s) of a declarator kind.
    pub(crate) declarator: Vec<Option<u16>>,
    pub(crate) body: Option<u16>,
    pub(crate) declarator_field: Option<u16>,
    function_field: Option<u16>,
    pub(crate) name_field: Option<u16>,
    object_field: Option<u16>,
    pub(crate) value_field: Option<u16>,
    pub(crate) left_field: Option<u16>,
    pub(crate) right_field: Option<u16>,
    pub(crate) operator_field: Option<u16>,
    pub(crate) spec: &'static Statements,
    /// Kinds the rewrites test every node against (`shape.rs`, `forms.rs`).
    pub(crate) kinds: RewriteKinds,
}

/// The kinds of node the rewrites look for in every node of a tree, by
/// name: sets tested by kind id (`perf` put comparing names, per node and
/// name, at about a tenth of the rewrites' samples).
#[derive(Debug)]
pub(crate) struct RewriteKinds {
    /// Loops whose body is written without its braces.
    pub(crate) loops: KindSet,
    /// A declaration's modifiers (left out).
    pub(crate) modifiers: KindSet,
    /// `( e )`.
    pub(crate) parenthesized: KindSet,
    /// Nodes whose named children lose parentheses around a whole value:
    /// `return (e)`, `f((e))`.
    pub(crate) unwrapping: KindSet,
}

impl RewriteKinds {
    fn new(language: &Language) -> Self {
        RewriteKinds {
            loops: KindSet::new(language, crate::shape::LOOPS),
            modifiers: KindSet::new(language, &["modifiers", "modifier"]),
            parenthesized: KindSet::new(language, &["parenthesized_expression"]),
            unwrapping: KindSet::new(
                language,
                &["return_statement", "argument_list", "arguments"],
            ),
        }
    }
}

impl StatementTable {
    pub(crate) fn new(spec: &'static TsLanguage, language: &Language) -> Self {
        let st = &spec.statements;
        let count = language.node_kind_count();
        let mut flags = vec![0u16; count];
        let mut assignment = vec![None; count];
        let mut declarator = vec![None; count];
        let field = |name: &str| language.field_id_for_name(name).map(|f| f.get());
        let lists: [(&[&str], u16); 13] = [
            (st.scopes, SCOPE),
            (st.blocks, BLOCK),
            (st.droppable, DROPPABLE),
            (st.calls, CALL),
            (st.updates, UPDATE),
            (st.patterns, PATTERN),
            (st.nonlocal, NONLOCAL),
            (st.wrappers, WRAPPER),
            (st.members, MEMBERS),
            (st.definitions, DEFINITION),
            (st.loops, LOOP),
            (st.branches, BRANCH),
            (st.switches, SWITCH),
        ];
        for id in 0..count {
            let Some(name) = language.node_kind_for_id(id as u16) else {
                continue;
            };
            if name.contains("for") {
                flags[id] |= FOR_LIKE;
            }
            if !language.node_kind_is_named(id as u16) {
                continue;
            }
            if name == "binary_expression" {
                flags[id] |= BINARY;
            }
            for (names, flag) in lists {
                if names.contains(&name) {
                    flags[id] |= flag;
                }
            }
            if st.labels.contains(&name) {
                flags[id] |= LABEL;
            }
            if let Some(&(_, f)) = st.assignments.iter().find(|(k, _)| *k == name) {
                assignment[id] = field(f);
            }
            if let Some(&(_, f)) = st.declarators.iter().find(|(k, _)| *k == name) {
                declarator[id] = field(f);
            }
        }
        StatementTable {
            flags,
            assignment,
            declarator,
            body: field("body"),
            declarator_field: field("declarator"),
            function_field: field("function"),
            name_field: field("name"),
            object_field: field("object"),
            value_field: field("value"),
            left_field: field("left"),
            right_field: field("right"),
            operator_field: field("operator"),
            spec: st,
            kinds: RewriteKinds::new(language),
        }
    }

    pub(crate) fn flags(&self, node: &Node<'_>) -> u16 {
        self.flags
            .get(usize::from(node.kind_id()))
            .copied()
            .unwrap_or(0)
    }
}

/// One statement of a scope.
#[derive(Debug)]
struct Stmt<'t> {
    node: Node<'t>,
    parent: Option<usize>,
    droppable: bool,
    effect: bool,
    unreachable: bool,
    /// Names read (interned), outside the statement's nested blocks.
    reads: Vec<u32>,
    /// Locals written.
    writes: Vec<u32>,
    /// A call to a function of this file, by name: an effect unless that
    /// function has none.
    calls: Vec<u32>,
}

/// Names interned to small integers, per file.
#[derive(Default)]
struct Names<'a> {
    ids: HashMap<&'a [u8], u32>,
}

impl<'a> Names<'a> {
    fn id(&mut self, name: &'a [u8]) -> u32 {
        let next = self.ids.len() as u32;
        *self.ids.entry(name).or_insert(next)
    }
}

/// The analysis of one file: the ids of the nodes whose subtrees the walk
/// leaves out, sorted.
pub(crate) fn dead_statements(
    tree: &Flat,
    text: &[u8],
    roles: &[Role],
    table: &StatementTable,
) -> Vec<usize> {
    let mut names = Names::default();
    let scopes = find_scopes(tree, table);
    let mut analyses: Vec<Scope<'_>> = scopes
        .iter()
        .filter_map(|&(scope, is_root)| {
            Scope::build(scope, is_root, text, roles, table, &mut names)
        })
        .collect();
    // Functions of this file whose bodies turn out to have no effect make
    // calls to them free of effect, which may empty other functions: a few
    // rounds reach the fixed point in practice; four bound the work.
    let mut inert: HashSet<u32> = HashSet::default();
    for _ in 0..4 {
        for scope in &mut analyses {
            scope.solve(&inert);
        }
        // By name: an overload or a method of another class with the same
        // name that does something keeps every call to that name.
        let busy: HashSet<u32> = analyses
            .iter()
            .filter(|s| !s.is_inert())
            .filter_map(|s| s.name)
            .collect();
        let now: HashSet<u32> = analyses
            .iter()
            .filter(|s| s.is_inert())
            .filter_map(|s| s.name)
            .filter(|n| !busy.contains(n))
            .collect();
        if now == inert {
            break;
        }
        inert = now;
    }
    let mut dead: Vec<usize> = Vec::new();
    for scope in &analyses {
        if scope.name.is_some() && scope.is_inert() {
            // A named function that does nothing goes whole, header
            // included, as the calls to it do.
            dead.push(scope.node.id());
        } else {
            dead.extend(scope.dropped(text));
        }
    }
    dead.sort_unstable();
    dead.dedup();
    dead
}

/// The first leaf under `node` (its first token).
pub(crate) fn first_leaf(node: Node<'_>) -> Node<'_> {
    let mut node = node;
    while let Some(first) = node.child(0) {
        node = first;
    }
    node
}

/// Every scope node of the tree (functions, and the root for script
/// languages), with whether it is the root.
fn find_scopes<'t>(tree: &'t Flat, table: &StatementTable) -> Vec<(Node<'t>, bool)> {
    let mut out = Vec::new();
    let root = tree.root_node();
    if table.spec.root_scope {
        out.push((root, true));
    }
    out.extend(
        tree.nodes()
            .filter(|node| table.flags(node) & SCOPE != 0)
            .map(|node| (node, false)),
    );
    out
}

/// The statements of one scope and the state of the fixed point.
struct Scope<'t> {
    /// The function (or the root).
    node: Node<'t>,
    /// The function's own name, for calls to it.
    name: Option<u32>,
    stmts: Vec<Stmt<'t>>,
    essential: Vec<bool>,
}

impl<'t> Scope<'t> {
    fn build<'a>(
        scope: Node<'t>,
        is_root: bool,
        text: &'a [u8],
        roles: &[Role],
        table: &StatementTable,
        names: &mut Names<'a>,
    ) -> Option<Scope<'t>> {
        let body = if is_root {
            scope
        } else {
            table.body.and_then(|f| scope.child_by_field_id(f))?
        };
        let builder = Builder { text, roles, table };
        let name = (!is_root)
            .then(|| builder.scope_name(scope))
            .flatten()
            .map(|n| names.id(n));
        let locals = builder.locals(body, names);
        let mut stmts: Vec<Stmt<'t>> = Vec::new();
        // (block node, statement holding it)
        let mut blocks: Vec<(Node<'t>, Option<usize>)> = Vec::new();
        if is_root || table.flags(&body) & BLOCK != 0 {
            blocks.push((body, None));
        } else {
            // Go: `body: block { statement_list }`.
            let inner = body.named_children().find(|c| table.flags(c) & BLOCK != 0);
            match inner {
                Some(list) => blocks.push((list, None)),
                None if body.named_child_count() == 0 => {}
                // An expression body (a lambda's): one statement that is
                // kept, whose nested blocks (a Rust closure's `match`
                // arms, a Java lambda's `switch` cases) hold statements of
                // their own.
                None => {
                    builder.statement(body, None, false, &locals, names, &mut stmts, &mut blocks);
                }
            }
        }
        while let Some((block, parent)) = blocks.pop() {
            let mut after_jump = false;
            let children: Vec<Node<'t>> = block.named_children().collect();
            for child in children {
                if matches!(roles.get(usize::from(child.kind_id())), Some(Role::Dropped)) {
                    continue;
                }
                let flags = table.flags(&child);
                if flags & LABEL != 0 {
                    after_jump = false;
                }
                let droppable = flags & DROPPABLE != 0;
                let idx = builder.statement(
                    child,
                    parent,
                    droppable,
                    &locals,
                    names,
                    &mut stmts,
                    &mut blocks,
                );
                // Under an unreachable statement, everything is.
                if parent.is_some_and(|p| stmts[p].unreachable) || (after_jump && droppable) {
                    stmts[idx].unreachable = true;
                } else if builder.jumps(child) {
                    after_jump = true;
                }
            }
        }
        let essential = vec![false; stmts.len()];
        Some(Scope {
            node: scope,
            name,
            stmts,
            essential,
        })
    }

    /// Runs the fixed point: which statements are essential, given the
    /// functions of the file known to have no effect.
    fn solve(&mut self, inert: &HashSet<u32>) {
        let n = self.stmts.len();
        let mut live: HashSet<u32> = HashSet::default();
        let mut counted = vec![false; n];
        loop {
            let essential = &mut self.essential;
            essential.iter_mut().for_each(|e| *e = false);
            // Children come after their parents in `stmts`, so one pass
            // from the end settles every statement before its parent.
            for i in (0..n).rev() {
                let s = &self.stmts[i];
                if s.unreachable {
                    continue;
                }
                let own = !s.droppable
                    || s.effect
                    || s.calls.iter().any(|c| !inert.contains(c))
                    || s.writes.iter().any(|w| live.contains(w));
                if own {
                    essential[i] = true;
                }
                if essential[i] {
                    if let Some(p) = s.parent {
                        essential[p] = true;
                    }
                }
            }
            // Essential statements only grow as `live` does: add the
            // reads of those that became essential this round.
            let before = live.len();
            for (i, s) in self.stmts.iter().enumerate() {
                if essential[i] && !counted[i] {
                    counted[i] = true;
                    live.extend(s.reads.iter().copied());
                }
            }
            if live.len() == before {
                return;
            }
        }
    }

    /// Whether nothing in the function has an effect (a call to it does
    /// nothing).
    fn is_inert(&self) -> bool {
        !self.essential.iter().any(|&e| e)
    }

    /// Ids of the outermost statements to leave out, with the `;` that
    /// follows one where the grammar keeps it apart (Go).
    fn dropped(&self, text: &[u8]) -> Vec<usize> {
        let mut out = Vec::new();
        for (i, s) in self.stmts.iter().enumerate() {
            if self.essential[i] || !s.droppable {
                continue;
            }
            // Only the outermost: a statement under a dropped one goes
            // with it.
            let under_dropped = s.parent.is_some_and(|p| !self.essential[p]);
            if !under_dropped {
                out.push(s.node.id());
                if let Some(next) = s.node.next_sibling() {
                    if !next.is_named() && text.get(next.byte_range()) == Some(b";") {
                        out.push(next.id());
                    }
                }
            }
        }
        out
    }
}

/// What the statement builder reads from.
pub(crate) struct Builder<'a, 'b> {
    pub(crate) text: &'a [u8],
    pub(crate) roles: &'b [Role],
    pub(crate) table: &'b StatementTable,
}

impl<'a> Builder<'a, '_> {
    fn role(&self, node: &Node<'_>) -> Option<Role> {
        self.roles.get(usize::from(node.kind_id())).copied()
    }

    pub(crate) fn is_identifier(&self, node: &Node<'_>) -> bool {
        self.role(node) == Some(Role::Identifier)
    }

    pub(crate) fn text_of(&self, node: &Node<'_>) -> &'a [u8] {
        self.text.get(node.byte_range()).unwrap_or_default()
    }

    /// The name a function is called by, if it has a plain one.
    pub(crate) fn scope_name(&self, scope: Node<'_>) -> Option<&'a [u8]> {
        let mut node = self
            .table
            .name_field
            .and_then(|f| scope.child_by_field_id(f))
            .or_else(|| {
                self.table
                    .declarator_field
                    .and_then(|f| scope.child_by_field_id(f))
            })?;
        // C: `declarator: function_declarator { declarator: identifier }`.
        for _ in 0..4 {
            if self.is_identifier(&node) {
                return Some(self.text_of(&node));
            }
            node = self
                .table
                .declarator_field
                .and_then(|f| node.child_by_field_id(f))?;
        }
        None
    }

    /// The identifier nodes a write to `target` binds, or `None` if it
    /// writes through something else (a field, an index, a pointer).
    fn plain_targets<'t>(&self, target: Node<'t>) -> Option<Vec<Node<'t>>> {
        let mut out = Vec::new();
        let mut stack = vec![target];
        while let Some(node) = stack.pop() {
            if self.is_identifier(&node) {
                out.push(node);
                continue;
            }
            let flags = self.table.flags(&node);
            if flags & WRAPPER != 0 {
                stack.push(
                    self.table
                        .declarator_field
                        .and_then(|f| node.child_by_field_id(f))?,
                );
            } else if flags & PATTERN != 0 {
                stack.extend(node.named_children());
            } else {
                return None;
            }
        }
        Some(out)
    }

    /// Whether the assignment `node` also reads its target (`+=`, not `=`).
    fn compound(&self, node: &Node<'_>) -> bool {
        let found = node.children().any(|c| {
            !c.is_named() && {
                let t = self.text_of(&c);
                t.len() >= 2
                    && t.ends_with(b"=")
                    && !matches!(t, b":=" | b"==" | b"!=" | b"<=" | b">=" | b"===" | b"!==")
            }
        });
        found
    }

    /// Whether a declarator gives its variable a value (`= …`, `:= …`, a
    /// `value` field: a loop variable's sequence), not just a type.
    fn initialized(&self, node: &Node<'_>) -> bool {
        if self
            .table
            .value_field
            .and_then(|f| node.child_by_field_id(f))
            .is_some()
        {
            return true;
        }
        let found = node.children().any(|c| {
            !c.is_named() && matches!(self.text_of(&c), b"=" | b":=" | b":" | b"in" | b"of")
        });
        found
    }

    /// Names declared local in a scope's body (nested scopes left out).
    fn locals(&self, body: Node<'_>, names: &mut Names<'a>) -> HashSet<u32> {
        let mut locals = HashSet::default();
        let mut nonlocal = HashSet::default();
        let mut stack = vec![body];
        while let Some(node) = stack.pop() {
            let flags = self.table.flags(&node);
            if node != body && flags & SCOPE != 0 {
                continue;
            }
            if flags & NONLOCAL != 0 {
                for c in node.named_children() {
                    if self.is_identifier(&c) {
                        nonlocal.insert(names.id(self.text_of(&c)));
                    }
                }
                continue;
            }
            let kind = usize::from(node.kind_id());
            let declared = self.table.declarator.get(kind).copied().flatten().or(
                if self.table.spec.assignment_declares {
                    self.table.assignment.get(kind).copied().flatten()
                } else {
                    None
                },
            );
            if let Some(field) = declared {
                let targets: Vec<Node<'_>> = node
                    .children_by_field_id(
                        std::num::NonZeroU16::new(field).expect("field ids are non-zero"),
                    )
                    .collect();
                for t in targets {
                    for id in self.plain_targets(t).unwrap_or_default() {
                        locals.insert(names.id(self.text_of(&id)));
                    }
                }
            }
            stack.extend(node.named_children());
        }
        locals.retain(|n| !nonlocal.contains(n));
        locals
    }

    /// Whether `stmt` starts with a jump: what follows it in its block is
    /// unreachable.
    fn jumps(&self, stmt: Node<'_>) -> bool {
        matches!(
            self.text_of(&first_leaf(stmt)),
            b"return" | b"break" | b"continue" | b"throw" | b"raise" | b"goto"
        )
    }

    /// Adds statement `root` (under `parent`) to `stmts` with its reads,
    /// writes and effects, and queues the blocks nested in it.
    #[allow(clippy::too_many_arguments)]
    fn statement<'t>(
        &self,
        root: Node<'t>,
        parent: Option<usize>,
        droppable: bool,
        locals: &HashSet<u32>,
        names: &mut Names<'a>,
        stmts: &mut Vec<Stmt<'t>>,
        blocks: &mut Vec<(Node<'t>, Option<usize>)>,
    ) -> usize {
        let idx = stmts.len();
        let mut s = Stmt {
            node: root,
            parent,
            droppable,
            effect: false,
            unreachable: false,
            reads: Vec::new(),
            writes: Vec::new(),
            calls: Vec::new(),
        };
        // Identifier nodes written by a plain `=` (not read) and those
        // written and read (`+=`, `++`); few per statement.
        let mut pure_targets: Vec<usize> = Vec::new();
        // A cursor walk of the statement's subtree (no allocation per
        // node); `outer[d]` is whether depth `d` is inside a nested scope.
        let mut cursor = root.walk();
        let mut outer: Vec<bool> = Vec::new();
        let mut nested = false;
        loop {
            let node = cursor.node();
            let descend = self.visit(
                node,
                idx,
                nested,
                locals,
                names,
                &mut s,
                &mut pure_targets,
                blocks,
            );
            let inner = nested || self.table.flags(&node) & SCOPE != 0;
            if descend && cursor.goto_first_child() {
                outer.push(nested);
                nested = inner;
                continue;
            }
            loop {
                if outer.is_empty() {
                    for names in [&mut s.reads, &mut s.writes, &mut s.calls] {
                        names.sort_unstable();
                        names.dedup();
                    }
                    stmts.push(s);
                    return idx;
                }
                if cursor.goto_next_sibling() {
                    break;
                }
                cursor.goto_parent();
                nested = outer.pop().unwrap_or(false);
            }
        }
    }

    /// One node of statement number `idx` for [`Builder::statement`]:
    /// records what it reads, writes, calls; whether to descend into it.
    #[allow(clippy::too_many_arguments)]
    fn visit<'t>(
        &self,
        node: Node<'t>,
        idx: usize,
        nested: bool,
        locals: &HashSet<u32>,
        names: &mut Names<'a>,
        s: &mut Stmt<'t>,
        pure_targets: &mut Vec<usize>,
        blocks: &mut Vec<(Node<'t>, Option<usize>)>,
    ) -> bool {
        {
            let flags = self.table.flags(&node);
            // A nested block's statements are statements of their own (a
            // bare block's and a case's too, under the block statement).
            if !nested && flags & BLOCK != 0 {
                blocks.push((node, Some(idx)));
                return false;
            }
            // A nested function is analysed as its own scope: here its names
            // are only read, and anything it does counts as an effect.
            let nested = nested || flags & SCOPE != 0;
            match self.role(&node) {
                Some(Role::Dropped) => return false,
                Some(Role::Identifier) => {
                    if !pure_targets.contains(&node.id()) {
                        s.reads.push(names.id(self.text_of(&node)));
                    }
                    return false;
                }
                Some(Role::Literal(_)) => return false,
                _ => {}
            }
            if flags & CALL != 0 {
                match self.callee(node) {
                    Some(name)
                        if !nested
                            && self
                                .table
                                .spec
                                .pure_calls
                                .contains(&std::str::from_utf8(name).unwrap_or("")) => {}
                    Some(name) if !nested => s.calls.push(names.id(name)),
                    _ => s.effect = true,
                }
            }
            let kind = usize::from(node.kind_id());
            if let Some(field) = self.table.assignment.get(kind).copied().flatten() {
                let read_too = self.compound(&node);
                let fid = std::num::NonZeroU16::new(field).expect("field ids are non-zero");
                let targets: Vec<Node<'t>> = node.children_by_field_id(fid).collect();
                for target in targets {
                    self.write(target, read_too, nested, locals, names, s, pure_targets);
                }
            } else if let Some(field) = self.table.declarator.get(kind).copied().flatten() {
                let fid = std::num::NonZeroU16::new(field).expect("field ids are non-zero");
                let initialized = self.initialized(&node);
                let targets: Vec<Node<'t>> = node.children_by_field_id(fid).collect();
                for target in targets {
                    if self
                        .table
                        .declarator
                        .get(usize::from(target.kind_id()))
                        .copied()
                        .flatten()
                        .is_some()
                    {
                        // `declaration { declarator: init_declarator }`:
                        // the inner node names the variable.
                        continue;
                    }
                    if let Some(ids) = self.plain_targets(target) {
                        for id in ids {
                            pure_targets.push(id.id());
                            // A declaration without a value (`int x;`)
                            // writes nothing: it goes whatever follows.
                            if !nested && initialized {
                                s.writes.push(names.id(self.text_of(&id)));
                            }
                        }
                    }
                }
            } else if flags & UPDATE != 0 {
                let is_step = node
                    .children()
                    .any(|c| !c.is_named() && matches!(self.text_of(&c), b"++" | b"--"));
                if is_step {
                    let operand = node.named_children().next();
                    match operand {
                        Some(o) => self.write(o, true, nested, locals, names, s, pure_targets),
                        None => s.effect = true,
                    }
                }
            }
            if node.child_count() == 0 {
                let t = self.text_of(&node);
                if self
                    .table
                    .spec
                    .effect_tokens
                    .iter()
                    .any(|e| e.as_bytes() == t)
                {
                    s.effect = true;
                }
            }
            true
        }
    }

    /// Records a write of `target` into `s`.
    #[allow(clippy::too_many_arguments)]
    fn write<'t>(
        &self,
        target: Node<'t>,
        read_too: bool,
        nested: bool,
        locals: &HashSet<u32>,
        names: &mut Names<'a>,
        s: &mut Stmt<'t>,
        pure_targets: &mut Vec<usize>,
    ) {
        let Some(ids) = self.plain_targets(target) else {
            s.effect = true;
            return;
        };
        for id in ids {
            let name = names.id(self.text_of(&id));
            if !read_too {
                pure_targets.push(id.id());
            }
            if nested || !locals.contains(&name) {
                s.effect = true;
            } else {
                s.writes.push(name);
            }
        }
    }

    /// The plain name a call calls (`f(…)`, `this.f(…)` is not one), if
    /// any.
    pub(crate) fn callee(&self, call: Node<'_>) -> Option<&'a [u8]> {
        if self
            .table
            .object_field
            .and_then(|f| call.child_by_field_id(f))
            .is_some()
        {
            return None;
        }
        let f = self
            .table
            .function_field
            .and_then(|f| call.child_by_field_id(f))
            .or_else(|| {
                self.table
                    .name_field
                    .and_then(|f| call.child_by_field_id(f))
            })?;
        self.is_identifier(&f).then(|| self.text_of(&f))
    }
}

#[cfg(test)]
mod tests {
    use crate::test_support::normalize_random;
    use crate::{languages, Options, TsLanguage};
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// On any text, in every language: no panic, and the symbols kept
        /// are a subsequence of those without the analysis (same symbols,
        /// same spans, still strictly increasing).
        #[test]
        fn dropping_only_removes_symbols(
            s in "[a-z_ (){}\\[\\];,.=+*<>!&|\"0-9\n\t-]{0,300}|(int|for|if|return|def|let|x|y|=|;|\\{|\\}|\\(|\\)|\n|    | )*",
            li in 0usize..9,
        ) {
            let lang = &languages()[li % languages().len()];
            let mut options = Options {
                max_error_share: 1.0,
                ..Options::default()
            };
            let all = normalize_random(lang, s.as_bytes(), &options);
            options.drop_dead_code = true;
            let some = normalize_random(lang, s.as_bytes(), &options);
            prop_assume!(all.is_some() && some.is_some());
            let (all, some) = (all.unwrap(), some.unwrap());
            let mut j = 0;
            for (sym, span) in some.symbols.iter().zip(&some.spans) {
                while j < all.len() && all.spans[j] != *span {
                    j += 1;
                }
                prop_assert!(j < all.len(), "{}: span {:?} not in the full stream", lang.name(), span);
                prop_assert_eq!(all.symbols[j], *sym);
                j += 1;
            }
        }
    }

    /// The source text of the symbols kept, joined by spaces.
    fn kept(lang: &str, src: &str) -> String {
        let options = Options {
            drop_dead_code: true,
            normalization: crate::Normalization::Verbatim,
            ..Options::default()
        };
        let parsed = TsLanguage::by_name(lang)
            .unwrap()
            .normalize(src.as_bytes(), &options)
            .unwrap();
        parsed
            .normalized
            .spans
            .iter()
            .map(|s| &src[s.range()])
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// `attacked` (the original with dead code inserted) keeps exactly the
    /// symbols of `original`.
    fn same(lang: &str, original: &str, attacked: &str) {
        let a = kept(lang, original);
        let b = kept(lang, attacked);
        assert_eq!(a, b, "{lang}");
    }

    #[test]
    fn java_dead_statements_are_dropped() {
        let original = "class A { int f; int g(int[] a, int n) { int s = 0; for (int i = 0; i < n; i++) { s += a[i]; } System.out.println(s); return s; } }";
        let attacked =
            "class A { int f; int g(int[] a, int n) { int dz = 5; int s = 0; int q = n * 3; \
            for (int i = 0; i < n; i++) { s += a[i]; { int w = n; w = w * 2; } } \
            if (n < 0) { int z = 4; z++; } for (int k = 0; k < 0; k++) { } int u = n; u += 2; \
            System.out.println(s); return s; int never = 1; } }";
        same("java", original, attacked);
    }

    #[test]
    fn c_and_cpp_dead_statements_are_dropped() {
        let original = "#include <stdio.h>\nint sum(int *a, int n) { int s = 0, i; for (i = 0; i < n; i++) s += a[i]; return s; }\n\
            int main() { int n, a[100]; scanf(\"%d\", &n); printf(\"%d\\n\", sum(a, n)); return 0; }\n";
        let attacked = "#include <stdio.h>\nint sum(int *a, int n) { int dz = 5; int s = 0, i; int *p = a; for (i = 0; i < n; i++) s += a[i]; \
            if (n < 0) { int q = 2; q++; } return s; s = 4; }\n\
            void nothing(int x) { int y = x * 2; y--; }\n\
            int main() { int n, a[100]; int t; t = 3; nothing(n); scanf(\"%d\", &n); { int b = 1; b += n; } \
            printf(\"%d\\n\", sum(a, n)); return 0; }\n";
        same("c", original, attacked);
        let cpp =
            "int main() { int s = 0; for (auto x : v) { s += x; } std::cout << s; return 0; }";
        let cpp_attacked = "int main() { int s = 0; int dz = 7; for (auto x : v) { int w = x; s += x; } std::cout << s; return 0; }";
        same("cpp", cpp, cpp_attacked);
        // The output statement has no call, only C++'s `<<`: kept.
        assert!(kept("cpp", cpp).contains("cout << s"));
    }

    #[test]
    fn the_statements_of_a_case_are_a_block() {
        // After a case's `break`, code is unreachable up to the next label;
        // an unused local of a case goes.
        for (lang, src) in [
            ("c", "void f(int p) { switch (p) { case 1: g(1); break; g(2); case 2: { int m = 1; g(3); } } }"),
            ("java", "class A { void f(int p) { switch (p) { case 1: g(1); break; g(2); case 2: { int m = 1; g(3); } } } }"),
        ] {
            let out = kept(lang, src);
            assert!(out.contains("case 1 : g ( 1 ) ; break ; case 2 : { g ( 3 ) ; }"), "{lang}: {out}");
        }
    }

    #[test]
    fn python_dead_statements_are_dropped() {
        let original = "import sys\nG = 3\ndef f(a, n):\n    s = 0\n    for i in range(n):\n        s += a[i] * G\n    return s\n\nprint(f([1, 2], 2))\n";
        let attacked = "import sys\nG = 3\nunused = 9\ndef f(a, n):\n    dz = 5\n    s = 0\n    t, u = 1, 2\n    for i in range(n):\n        w = i * 2\n        s += a[i] * G\n    for k in range(3):\n        pass\n    return s\n    s = 1\n\ndef idle(x):\n    y = x\n\nidle(3)\nprint(f([1, 2], 2))\n";
        same("python", original, attacked);
    }

    #[test]
    fn javascript_and_typescript_dead_statements_are_dropped() {
        let original = "function f(a, n) { let s = 0; for (let i = 0; i < n; i++) { s += a[i]; } return s; }\nconsole.log(f([1, 2], 2));\n";
        let attacked = "function f(a, n) { let dz = 5; let s = 0; var t; t = 2; for (let i = 0; i < n; i++) { const w = i; s += a[i]; } if (n < 0) { let q = 1; q++; } return s; }\nlet junk = 4;\nconsole.log(f([1, 2], 2));\n";
        same("javascript", original, attacked);
        same("typescript", original, attacked);
    }

    #[test]
    fn go_rust_and_csharp_dead_statements_are_dropped() {
        let go = "package main\nfunc f(a []int, n int) int { s := 0; for i := 0; i < n; i++ { s += a[i] }; return s }\n";
        let go_attacked = "package main\nfunc f(a []int, n int) int { dz := 5; s := 0; var t int; t = 3; for i := 0; i < n; i++ { w := i; w++; s += a[i] }; return s }\n";
        same("go", go, go_attacked);
        let rust = "fn f(a: &[i32], n: usize) -> i32 { let mut s = 0; for i in 0..n { s += a[i]; } println!(\"{}\", s); s }";
        let rust_attacked = "fn f(a: &[i32], n: usize) -> i32 { let dz = 5; let mut s = 0; let mut t = 1; t += 2; for i in 0..n { let w = i * 2; s += a[i]; } println!(\"{}\", s); s }";
        same("rust", rust, rust_attacked);
        let cs = "class A { int F(int[] a, int n) { int s = 0; for (int i = 0; i < n; i++) { s += a[i]; } Console.WriteLine(s); return s; } }";
        let cs_attacked = "class A { int F(int[] a, int n) { int dz = 5; int s = 0; int t = 1; t++; for (int i = 0; i < n; i++) { int w = i; s += a[i]; } Console.WriteLine(s); return s; } }";
        same("csharp", cs, cs_attacked);
    }

    /// What has an effect stays: calls, writes through fields, indexes and
    /// pointers, writes of globals and parameters, values that reach them.
    #[test]
    fn statements_with_effects_are_kept() {
        let java = "class A { int f; void g(int[] a, int p) { int x = 1; int y = x + 1; a[0] = y; this.f = 2; f = 3; p = 4; \
            int z = 5; log(z); int k; k = read(); switch (p) { case 1: int m = 2; break; } } }";
        // Only `int k;` and `int m = 2;` go: `k` and `m` are never read
        // (the statements of a case are a block's).
        assert_eq!(
            kept("java", java),
            "class A { int f ; void g ( int [ ] a , int p ) { int x = 1 ; int y = x + 1 ; \
             a [ 0 ] = y ; this . f = 2 ; f = 3 ; p = 4 ; int z = 5 ; log ( z ) ; \
             k = read ( ) ; switch ( p ) { case 1 : break ; } } }"
        );
        // A declaration without a value goes, even of a variable in use.
        assert_eq!(
            kept("java", "class A { void f() { int k; k = 2; g(k); } }"),
            "class A { void f ( ) { k = 2 ; g ( k ) ; } }"
        );
        assert_eq!(
            kept(
                "go",
                "package p\nfunc f() { var k int; s := 1; k = s; g(k) }\n"
            ),
            "package p func f ( ) { s := 1 ; k = s ; g ( k ) }"
        );
        let c = "int g; void h(int *p) { int x = 2; *p = x; g = 1; int y = 3; p[y] = 0; }";
        assert_eq!(
            kept("c", c),
            "int g ; void h ( int * p ) { int x = 2 ; * p = x ; g = 1 ; int y = 3 ; p [ y ] = 0 ; }"
        );
        let py = "def f(a):\n    global G\n    G = 1\n    x = 2\n    a.v = x\n";
        assert_eq!(
            kept("python", py),
            "def f ( a ) : global G G = 1 x = 2 a . v = x"
        );
    }
}
