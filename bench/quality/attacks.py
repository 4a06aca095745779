"""Automated disguise attacks on real programs (C/C++ and Java), for measuring how well a
copy survives them: insertion of dead statements and reordering of independent members,
as the obfuscators of the literature do (Mossad; Sağlam et al., ICSE 2024: "insertion"
and "reordering" attacks).

Everything is deterministic in the `random.Random` passed in. The transforms work on the
tokens of `disguise.tokenize` (comments, strings and preprocessor lines respected) and
keep the program's behaviour: inserted statements declare fresh variables and touch
nothing else; reordering moves whole functions (C/C++, with prototypes up front) or whole
methods of a class (Java), whose order does not matter.

Attacks (`ATTACKS`):
  ins10 ... ins100   dead statements inserted: round(rate x statements) of them, each at a
                     distinct statement boundary inside a function body (at 100 %, one after
                     every statement)
  reorder            functions (C/C++) or methods (Java) shuffled; C/C++ also shuffles runs
                     of declarations (disguise.reorder)
  ins50+reorder      both
  loops              every `for` without `continue` written as a `while` and some `while`s
                     as `for (; c;)` (disguise.loops)
  branches           every `if (c) A else B` (not an `else if`) written as
                     `if (!(c)) B else A`, or with the comparison negated (`<` -> `>=`)
  stmts              independent neighbouring statements swapped: two assignments or
                     initialised declarations without calls, neither naming what the
                     other writes (half of such pairs)
  extract            in every function, a run of its top-level statements moved into a new
                     function called in its place (extract method): statements that declare
                     nothing, jump nowhere and write no local variable, whose locals become
                     parameters of their declared types (C arrays, unknown types: not moved)
  combined           the restructuring a rewriting tool does, all at once: identifiers
                     renamed, members reordered, loops and branches rewritten,
                     expressions respelled (disguise.expressions), 25 % dead statements
"""

import disguise

ATTACKS = ["ins10", "ins25", "ins50", "ins100", "reorder", "ins50+reorder", "stmts", "loops",
           "branches", "extract", "combined"]

# Dead statements valid in C, C++ and Java: fresh names, no effect on anything else.
DEAD = [
    "int {a} = {n};",
    "int {a} = {n} * {m};",
    "if ({n} < 0) {{ int {a} = {m}; {a}++; }}",
    "{{ int {a} = {n}; {a} = {a} * {m}; }}",
    "for (int {a} = 0; {a} < 0; {a}++) {{ }}",
    "int {a} = {n}; {a} += {m};",
]


def _boundaries(tokens):
    """Token indices after which a statement may be inserted: after a `;` outside
    parentheses, or after the `{` opening a function (or method) body, inside a body;
    never before `else`, `catch`, `finally`, `case`, `default` or the `while` of a
    do-while. Also the number of statements (those `;`)."""
    out, statements = [], 0
    depth = paren = 0
    body = None  # depth of the open function body
    for i, (kind, t) in enumerate(tokens):
        if kind != "op":
            continue
        if t == "(":
            paren += 1
        elif t == ")":
            paren -= 1
        elif t == "{":
            depth += 1
            if body is None and paren == 0 and i > 0 and tokens[i - 1][1] == ")":
                body = depth
                out.append(i)
        elif t == "}":
            if body is not None and depth == body:
                body = None
            depth -= 1
        elif t == ";" and paren == 0 and body is not None:
            statements += 1
            nxt = next((x for k, x in tokens[i + 1:i + 2]), "")
            if nxt not in ("else", "catch", "finally", "case", "default", "while"):
                out.append(i)
    return out, statements


def insert_dead(src, rate, rng):
    """`src` with round(rate x statements) dead statements at distinct boundaries."""
    tokens = disguise.tokenize(src)
    spots, statements = _boundaries(tokens)
    want = min(len(spots), max(1, round(rate * statements)))
    chosen = set(rng.sample(spots, want))
    out = []
    for i, tok in enumerate(tokens):
        out.append(tok)
        if i in chosen:
            name = "dz" + rng.choice(disguise.NAME_PARTS) + str(rng.randint(100, 999))
            code = rng.choice(DEAD).format(a=name, n=rng.randint(1, 50), m=rng.randint(2, 9))
            out.extend(disguise.tokenize(code))
    return out


def reorder_java(tokens, rng):
    """Methods of every class shuffled among the method slots of that class (fields and
    nested types stay where they are)."""
    out, i, n = [], 0, len(tokens)
    while i < n:
        kind, t = tokens[i]
        out.append(tokens[i])
        i += 1
        if not (kind == "op" and t == "{"):
            continue
        # A class body: `{` after `class Name ...` (not after `)`, not an array literal).
        head = [x for _, x in tokens[max(0, i - 12):i - 1]]
        if "class" not in head or (len(out) > 1 and out[-2][1] in (")", "=", "]")):
            continue
        members, cur, depth = [], [], 0
        while i < n:
            k, x = tokens[i]
            if depth == 0 and k == "op" and x == "}":
                break
            cur.append(tokens[i])
            if k == "op" and x == "{":
                depth += 1
            elif k == "op" and x == "}":
                depth -= 1
                if depth == 0:
                    members.append(cur)
                    cur = []
            elif k == "op" and x == ";" and depth == 0:
                members.append(cur)
                cur = []
            i += 1
        if cur:
            members.append(cur)
        is_method = [any(x == "(" for _, x in m) and m[-1][1] == "}"
                     and not any(x == "class" for _, x in m[:8]) for m in members]
        slots = [j for j, f in enumerate(is_method) if f]
        moved = [members[j] for j in slots]
        rng.shuffle(moved)
        for j, m in zip(slots, moved):
            members[j] = m
        for m in members:
            out.extend(m)
    return out


def _target(stmt):
    """The name a simple statement writes (`int a = 1;`, `a = b * 2;`), or None: it must
    end with `;`, hold one `=` and no call, block, jump or step."""
    words = [t for _, t in stmt]
    if not words or words[-1] != ";" or words.count("=") != 1:
        return None
    if any(t in ("(", "{", "}", "return", "break", "continue", "++", "--", "new")
           for t in words):
        return None
    eq = words.index("=")
    if eq == 0 or stmt[eq - 1][0] != "id":
        return None
    return words[eq - 1]


def swap_statements(tokens, rng):
    """Inside every block, neighbouring independent statements swapped (half of the
    pairs that qualify): both simple (`_target`), neither naming the other's target."""
    out, i, n = [], 0, len(tokens)
    while i < n:
        kind, t = tokens[i]
        if not (kind == "op" and t == "{"):
            out.append(tokens[i])
            i += 1
            continue
        close = disguise.match(tokens, i)
        inner = swap_statements(tokens[i + 1:close], rng)
        code = [k for k, tok in enumerate(inner) if tok[0] not in ("ws", "comment")]
        body = [inner[k] for k in code]
        stmts = [body[a:b] for a, b in disguise.statements(body, 0, len(body))]
        j = 0
        while j + 1 < len(stmts):
            a, b = stmts[j], stmts[j + 1]
            ta, tb = _target(a), _target(b)
            if ta and tb and ta != tb and ta not in [x for _, x in b] \
                    and tb not in [x for _, x in a] and rng.random() < 0.5:
                stmts[j], stmts[j + 1] = b, a
                j += 2
                continue
            j += 1
        out.append(tokens[i])
        out.extend(tok for st in stmts for tok in st)
        out.append(tokens[close] if close < n else ("op", "}"))
        i = close + 1
    return out


NEGATE = {"<": ">=", ">": "<=", "<=": ">", ">=": "<", "==": "!=", "!=": "=="}


def swap_branches(tokens, rng):
    """`if (c) A else B` -> `if (!(c)) B else A` (or `if (a >= b) B else A` for a single
    comparison), inside out; `else if` chains are left as they are."""
    out, i, n = [], 0, len(tokens)
    while i < n:
        kind, t = tokens[i]
        if t == "if" and kind == "id" and i + 1 < n and tokens[i + 1][1] == "(":
            close = disguise.match(tokens, i + 1)
            a_end = disguise._stmt_end(tokens, close + 1) if close + 1 < n else n
            has_else = a_end < n and tokens[a_end][1] == "else"
            b_start = a_end + 1
            if has_else and b_start < n and tokens[b_start][1] != "if":
                b_end = disguise._stmt_end(tokens, b_start)
                cond = tokens[i + 2:close]
                a = swap_branches(tokens[close + 1:a_end], rng)
                b = swap_branches(tokens[b_start:b_end], rng)
                ops = [j for j, x in enumerate(cond) if x[0] == "op" and x[1] in NEGATE]
                simple = len(ops) == 1 and not any(x[1] in ("&&", "||", "?", "(", "!")
                                                   for x in cond)
                if simple and rng.random() < 0.5:
                    j = ops[0]
                    cond = cond[:j] + [("op", NEGATE[cond[j][1]])] + cond[j + 1:]
                else:
                    cond = [("op", "!"), ("op", "(")] + cond + [("op", ")")]
                out.extend([tokens[i], ("op", "(")] + cond + [("op", ")")] + b
                           + [("id", "else")] + a)
                i = b_end
                continue
        out.append(tokens[i])
        i += 1
    return out


# Types a local may be declared with, to become a parameter of the extracted function.
JAVA_TYPES = {"int", "long", "short", "byte", "char", "boolean", "double", "float", "String"}
C_TYPES = {"int", "long", "short", "char", "bool", "double", "float", "unsigned", "signed",
           "string"}
JUMPS = {"return", "break", "continue", "goto", "throw", "yield", "case", "default"}
WRITES = {"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", "++", "--"}


def _declared(stmt, types):
    """`{name: type tokens}` of a declaration `T a = 1, b;` (Java arrays `T[] a` too), or
    None if `stmt` is not one; names declared as C arrays (`a[10]`) map to None."""
    words = [t for _, t in stmt]
    if not words or words[0] not in types:
        return None
    j = 0
    while j < len(words) and (words[j] in types or words[j] in ("[", "]")):
        j += 1
    ty = stmt[:j]
    out, depth = {}, 0
    expect, pointer = True, False
    for k in range(j, len(stmt)):
        kind, t = stmt[k]
        if depth == 0 and expect and t in ("*", "&", "&&"):
            pointer = True
        elif t in ("(", "[", "{"):
            if depth == 0 and t == "[" and k > 0 and stmt[k - 1][0] == "id":
                out[stmt[k - 1][1]] = None  # a C array
            depth += 1
        elif t in (")", "]", "}"):
            depth -= 1
        elif depth == 0 and t == ",":
            expect, pointer = True, False
        elif depth == 0 and expect and kind == "id":
            out[t] = None if pointer else ty  # a pointer or reference: not passed on
            expect = False
        elif depth == 0 and t == "=":
            expect = False
    return out


def _params(header, types):
    """`{name: type tokens}` of a parameter list's tokens (inside the parentheses)."""
    out, cur = {}, []
    for tok in header + [("op", ",")]:
        if tok[1] == ",":
            if len(cur) >= 2 and cur[-1][0] == "id" and all(
                    t in types or t in ("[", "]") for _, t in cur[:-1]):
                out[cur[-1][1]] = cur[:-1]
            else:
                # `int a[][100]`, `const T& x`: names of a type not passed on.
                out.update({t: None for kind, t in cur if kind == "id"})
            cur = []
        else:
            cur.append(tok)
    return out


DECL_WORDS = {"struct", "enum", "union", "const", "static", "typedef", "auto", "register",
              "volatile", "final", "var", "class"}


def _other_declaration(stmt):
    """Whether `stmt` may declare names of a type `_declared` does not know (`struct v *c;`,
    `Scanner in = ...;`, `List<T> xs;`, the rest of a declaration split at an
    initializer's brace): its names must not move."""
    words = [t for _, t in stmt]
    if not words:
        return False
    if words[0] in DECL_WORDS or stmt[0][0] not in ("id",) and words[0] not in ("{", "(", "++", "--", "*"):
        return True
    if len(stmt) >= 2 and stmt[0][0] == "id" and (
            words[1] in ("<", "::")
            or (len(stmt) >= 3 and words[1] in ("*", "&") and stmt[2][0] == "id")
            or (len(stmt) >= 3 and words[1:3] == ["[", "]"])):
        return True
    # Two names in a row before any `=` outside brackets: `T x`, `java.util.Scanner in`.
    depth = 0
    for k in range(len(stmt) - 1):
        t = words[k]
        if t in ("(", "[", "{"):
            depth += 1
        elif t in (")", "]", "}"):
            depth -= 1
        elif depth == 0 and t in ("=", ";"):
            break
        elif depth == 0 and stmt[k][0] == "id" and stmt[k + 1][0] == "id" \
                and t not in ("else", "do", "return", "case", "goto"):
            return True
    return False


def _movable(stmt, local, types):
    """Whether a top-level statement may move into another function: it declares
    nothing, jumps nowhere, writes no local (`=`, `+=`, `++`, `>> x`, `&x`) and reads no
    local of unknown type."""
    if _declared(stmt, types) is not None or not stmt or stmt[-1][1] not in (";", "}"):
        return False
    if _other_declaration(stmt):
        return False
    words = [t for _, t in stmt]
    if any(t in JUMPS for t in words):
        return False
    for k, (kind, t) in enumerate(stmt):
        if kind != "id" or t not in local:
            continue
        if local[t] is None:
            return False
        nxt = words[k + 1] if k + 1 < len(words) else ""
        prev = words[k - 1] if k else ""
        if prev == "." or prev == "->":
            continue
        if nxt in WRITES or prev in ("++", "--", ">>", "&"):
            return False
    return True


def extract_method(tokens, lang, rng):
    """In every function body, one run of movable top-level statements (`_movable`) moved
    into a new function called in its place; the locals it reads become parameters."""
    types = JAVA_TYPES if lang == "java" else C_TYPES
    out, i, n = [], 0, len(tokens)
    count = 0
    while i < n:
        kind, t = tokens[i]
        # A function body: `name ( params ) {` with `name` not a keyword.
        if not (t == "{" and i > 0 and tokens[i - 1][1] == ")"):
            out.append(tokens[i])
            i += 1
            continue
        close_paren = i - 1
        depth, j = 0, close_paren
        while j >= 0:
            if tokens[j][1] == ")":
                depth += 1
            elif tokens[j][1] == "(":
                depth -= 1
                if depth == 0:
                    break
            j -= 1
        name = tokens[j - 1] if j > 0 else ("op", "")
        before = tokens[j - 2][1] if j > 1 else ""
        if name[0] != "id" or name[1] in disguise.KEYWORDS or before == "new" or name[1] in (
                "if", "for", "while", "switch", "catch", "synchronized"):
            out.append(tokens[i])
            i += 1
            continue
        close = disguise.match(tokens, i)
        local = _params(tokens[j + 1:close_paren], types)
        stmts, a = [], i + 1
        while a < close:
            b = min(close, max(a + 1, _statement_end(tokens, a)))
            stmts.append(tokens[a:b])
            a = b
        runs, cur = [], []
        # The locals in scope at each statement.
        scope = []
        for k, st in enumerate(stmts):
            decl = _declared(st, types)
            if decl is None and _other_declaration(st):
                # Names of unknown type: whatever reads them stays.
                decl = {t: None for kind2, t in st[1:] if kind2 == "id"}
            if decl is not None:
                local = dict(local, **decl)
            scope.append(local)
            # (A recursive call stays: C's new function comes before the one it calls.)
            if _movable(st, local, types) and all(t != name[1] for _, t in st):
                cur.append(k)
            else:
                if cur:
                    runs.append(cur)
                cur = []
        if cur:
            runs.append(cur)
        body = stmts
        runs = [r for r in runs if sum(len(stmts[k]) for k in r) >= 8]
        if runs:
            run_ = rng.choice(runs)
            a = rng.randrange(len(run_))
            b = rng.randrange(a, len(run_))
            if b == a and len(run_) > 1:
                b = min(len(run_) - 1, a + 1)
            moved = [stmts[k] for k in run_[a:b + 1]]
            local = scope[run_[a]]
            used = []
            for st in moved:
                for kind2, t2 in st:
                    if kind2 == "id" and t2 in local and t2 not in used:
                        used.append(t2)
            count += 1
            fname = "part" + rng.choice(disguise.NAME_PARTS).capitalize() + str(count)
            call = [("id", fname), ("op", "(")]
            params = []
            for u in used:
                if call[-1][1] != "(":
                    call.append(("op", ","))
                    params.append(("op", ","))
                call.append(("id", u))
                params.extend(local[u] + [("id", u)])
            call += [("op", ")"), ("op", ";")]
            static = lang == "java" and any(t2 == "static" for _, t2 in tokens[max(0, j - 8):j])
            helper = ([("id", "static")] if static else []) + [("id", "void"), ("id", fname),
                      ("op", "(")] + params + [("op", ")"), ("op", "{")] + \
                [tok for st in moved for tok in st] + [("op", "}")]
            first = run_[a]
            body = stmts[:first] + [call] + stmts[run_[b] + 1:]
            if lang == "java":
                # After the method, inside its class.
                pending = helper
            else:
                # C and C++: just before the function, after what it may call.
                start = _header_start(out)
                out[start:start] = helper
                pending = None
        else:
            pending = None
        out.append(tokens[i])
        out.extend(tok for st in body for tok in st)
        out.append(tokens[close])
        if pending:
            out.extend(pending)
        i = close + 1
    return out


def _statement_end(tokens, i):
    """End (exclusive) of the statement starting at i: `disguise._stmt_end`, and Java's
    `try`/`catch`/`finally` and `synchronized` blocks."""
    t = tokens[i][1]
    if t == "synchronized" and i + 1 < len(tokens) and tokens[i + 1][1] == "(":
        return disguise.match(tokens, disguise.match(tokens, i + 1) + 1) + 1
    if t != "try":
        return disguise._stmt_end(tokens, i)
    j = i + 1
    if j < len(tokens) and tokens[j][1] == "(":  # try-with-resources
        j = disguise.match(tokens, j) + 1
    j = disguise.match(tokens, j) + 1
    while j < len(tokens) and tokens[j][1] in ("catch", "finally"):
        if tokens[j][1] == "catch":
            j = disguise.match(tokens, j + 1) + 1
        else:
            j += 1
        j = disguise.match(tokens, j) + 1
    return j


def _header_start(out):
    """Index in `out` (ending with a function's header) where that header starts: after
    the last `;`, `}` or preprocessor line before it."""
    k = len(out)
    while k > 0 and out[k - 1][1] not in (";", "}") and out[k - 1][0] != "pp":
        k -= 1
    return k


def attack(src, name, lang, rng):
    """A copy of program `src` (`lang` "c" or "java") under attack `name`."""
    rate = {"ins10": 0.1, "ins25": 0.25, "ins50": 0.5, "ins100": 1.0,
            "ins50+reorder": 0.5}.get(name)
    if rate is not None:
        tokens = insert_dead(src, rate, rng)
    else:
        tokens = disguise.tokenize(src)
    if name == "combined":
        tokens = insert_dead(src, 0.25, rng)
        tokens = disguise.rename(tokens, rng)
    if "reorder" in name or name == "combined":
        tokens = disguise.reorder(tokens, rng) if lang == "c" else reorder_java(tokens, rng)
    if name == "stmts":
        tokens = swap_statements(tokens, rng)
    if name in ("loops", "combined"):
        tokens = disguise.loops(tokens, rng, 1.0)
    if name in ("branches", "combined"):
        tokens = swap_branches(tokens, rng)
    if name == "extract":
        tokens = extract_method(tokens, lang, rng)
    if name == "combined":
        tokens = disguise.expressions(tokens, rng)
    return disguise.layout(tokens, rng)
