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
                     every statement; in Java never right after a jump, which javac
                     rejects as unreachable)
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
                     renamed (in Java only those the program declares), members reordered, loops and branches rewritten,
                     expressions respelled (disguise.expressions), 25 % dead statements
  inline             every function called once inlined at its call (the reverse of
                     extract): its parameters become locals of a block initialised with the
                     arguments, its locals and parameters get fresh names, and `return e`
                     at its end assigns or returns e (`x = f(a);`, `T x = f(a);`,
                     `return f(a);`, or `f(a);` for a body without `return`)
  switch             every `switch` whose cases end in a jump written as an `if`/`else
                     if` chain (`x == 1 || x == 2` for two labels), and every chain of two
                     or more `x == v` conditions on one integer name written as a `switch`
"""

import random

import disguise

ATTACKS = ["ins10", "ins25", "ins50", "ins100", "reorder", "ins50+reorder", "stmts", "loops",
           "branches", "extract", "combined", "inline", "switch"]

# Dead statements valid in C, C++ and Java: fresh names, no effect on anything else.
DEAD = [
    "int {a} = {n};",
    "int {a} = {n} * {m};",
    "if ({n} < 0) {{ int {a} = {m}; {a}++; }}",
    "{{ int {a} = {n}; {a} = {a} * {m}; }}",
    "for (int {a} = 0; {a} < 0; {a}++) {{ }}",
    "int {a} = {n}; {a} += {m};",
]


def _boundaries(tokens, after_jumps=True):
    """Token indices after which a statement may be inserted: after a `;` outside
    parentheses, or after the `{` opening a function (or method) body, inside a body;
    never before `else`, `catch`, `finally`, `case`, `default` or the `while` of a
    do-while, and not after a `return`, `break`, `continue` or `throw` unless
    `after_jumps` (Java rejects unreachable statements). Also the number of statements
    (those `;`)."""
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
            k = i
            while k > 0 and tokens[k - 1][1] not in (";", "{", "}"):
                k -= 1
            jump = tokens[k][1] in ("return", "break", "continue", "throw")
            if nxt not in ("else", "catch", "finally", "case", "default", "while") and (
                    after_jumps or not jump):
                out.append(i)
    return out, statements


def insert_dead(src, rate, rng, lang="c"):
    """`src` with round(rate x statements) dead statements at distinct boundaries (in
    Java, none right after a jump)."""
    tokens = disguise.tokenize(src)
    spots, statements = _boundaries(tokens, after_jumps=lang != "java")
    want = min(len(spots), max(1, round(rate * statements)))
    chosen = set(rng.sample(spots, want))
    out, braces = [], []  # the open braces around i: (index, whether a switch's body)
    for i, tok in enumerate(tokens):
        out.append(tok)
        if tok[1] == "{":
            braces.append(i > 0 and tokens[i - 1][1] == ")" and
                          tokens[_open_paren(tokens, i - 1) - 1][1] == "switch")
        elif tok[1] == "}" and braces:
            braces.pop()
        if i in chosen:
            name = "dz" + rng.choice(disguise.NAME_PARTS) + str(rng.randint(100, 999))
            code = rng.choice(DEAD).format(a=name, n=rng.randint(1, 50), m=rng.randint(2, 9))
            if braces and braces[-1]:
                # Between a switch's labels a declaration needs a block of its own (C++
                # rejects a jump to a label past an initialization).
                code = "{ " + code + " }"
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
        j = _open_paren(tokens, close_paren)
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


# Words before a name that do not make it a declaration (`return x;`, `case X:`).
NOT_TYPES = {"return", "else", "case", "goto", "new", "throw", "delete", "sizeof", "do",
             "yield", "typedef", "instanceof", "assert", "break", "continue", "default"}
# The tokens a statement can start after.
STARTS = {";", "{", "}"}


def _open_paren(tokens, close):
    """Index of the `(` matching the `)` at `close`."""
    depth = 0
    for j in range(close, -1, -1):
        t = tokens[j][1]
        if t == ")":
            depth += 1
        elif t == "(":
            depth -= 1
            if depth == 0:
                return j
    return -1


def _definitions(tokens):
    """Function definitions `name ( params ) { body }`: (name, name index, `(` index,
    `{` index, `}` index) each."""
    out = []
    for i, (_, t) in enumerate(tokens):
        if t != "{" or i == 0 or tokens[i - 1][1] != ")":
            continue
        j = _open_paren(tokens, i - 1)
        if j < 2:
            continue
        kind, name = tokens[j - 1]
        before = tokens[j - 2]
        if kind != "id" or name in disguise.KEYWORDS or name in NOT_TYPES or name in (
                "catch", "synchronized") or before[1] in ("new", ".", "->", "="):
            continue
        # A type before the name (`int f(`, `static T* f(`), not a statement's start.
        if before[1] in STARTS or before[1] in NOT_TYPES or (
                before[0] != "id" and before[1] not in ("*", "&", ">", "]")):
            continue
        out.append((name, j - 1, j, i, disguise.match(tokens, i)))
    return out


def _split_commas(toks):
    """`toks` split at commas outside brackets (and `<...>` of generic types)."""
    parts, cur, depth = [], [], 0
    for tok in toks:
        t = tok[1]
        if t in ("(", "[", "{", "<"):
            depth += 1
        elif t in (")", "]", "}", ">"):
            depth -= 1
        if t == "," and depth == 0:
            parts.append(cur)
            cur = []
        else:
            cur.append(tok)
    if cur or parts:
        parts.append(cur)
    return parts


def _declared_names(toks):
    """Names that `toks` (a function's parameters and body) declares, by their place:
    after a type (`int a`, `T* p`, `List<T> xs`, `int[] a`) and before `=`, `;`, `,`,
    `[`, `)` or `:`, and the later names of a declaration list (`int a, b;`)."""
    out = set()
    n = len(toks)
    for q, (kind, t) in enumerate(toks):
        if kind != "id" or q == 0 or t in disguise.KEYWORDS or t in NOT_TYPES:
            continue
        nxt = toks[q + 1][1] if q + 1 < n else ";"
        if nxt not in ("=", ";", ",", "[", ")", ":"):
            continue
        pk, pt = toks[q - 1]
        if pt in ("*", "&") and q >= 2:
            k2, t2 = toks[q - 2]
            typed = k2 == "id" and t2 not in NOT_TYPES and (
                q < 3 or toks[q - 3][1] in STARTS | {"(", ",", "const"} or toks[q - 3][0] == "id")
        elif pt == ">":
            depth, k = 0, q - 1
            while k >= 0:
                if toks[k][1] == ">":
                    depth += 1
                elif toks[k][1] == "<":
                    depth -= 1
                    if depth == 0:
                        break
                elif toks[k][1] in STARTS or toks[k][1] in ("(", ")", "="):
                    k = -1
                    break
                k -= 1
            typed = k > 0 and toks[k - 1][0] == "id"
        elif pt == "]":
            typed = q >= 3 and toks[q - 2][1] == "[" and toks[q - 3][0] == "id"
        else:
            typed = pk == "id" and pt not in NOT_TYPES
        if not typed:
            continue
        out.add(t)
        # The rest of the list: `int a = 1, b, c[3];`.
        depth, k = 0, q + 1
        while k < n:
            x = toks[k][1]
            if x in ("(", "[", "{"):
                depth += 1
            elif x in (")", "]", "}"):
                if depth == 0:
                    break
                depth -= 1
            elif depth == 0 and x == ";":
                break
            elif depth == 0 and x == ",":
                m = k + 1
                while m < n and toks[m][1] in ("*", "&"):
                    m += 1
                if m < n and toks[m][0] == "id" and m + 1 < n and toks[m + 1][1] in (
                        "=", ";", ",", "["):
                    out.add(toks[m][1])
            k += 1
    return out


def _free_names(toks, declared):
    """Names `toks` reads or writes that it does not declare: not members (`a.x`), not
    calls, not words of the language."""
    out = set()
    for q, (kind, t) in enumerate(toks):
        if kind != "id" or t in declared or t in disguise.KEYWORDS or t in NOT_TYPES:
            continue
        if q and toks[q - 1][1] in (".", "->", "::"):
            continue
        if q + 1 < len(toks) and toks[q + 1][1] == "(":
            continue
        out.add(t)
    return out


MODIFIERS = {"static", "public", "private", "protected", "inline", "final", "synchronized",
             "extern", "virtual", "abstract", "native", "strictfp"}


def _header_begin(tokens, i):
    """Where the header of the definition or declaration whose name is at `i` begins:
    after the `;`, brace or preprocessor line before it."""
    while i > 0 and tokens[i - 1][1] not in STARTS and tokens[i - 1][0] != "pp":
        i -= 1
    return i


def _in_parens(tokens, i):
    """Whether the token at `i` is inside parentheses (of a `for` header, say)."""
    depth = 0
    for j in range(i - 1, -1, -1):
        t = tokens[j][1]
        if t == ")":
            depth += 1
        elif t == "(":
            depth -= 1
            if depth < 0:
                return True
        elif t in ("{", "}") and depth == 0:
            return False
    return False


def _enclosing_statement(tokens, p):
    """(start, end, wrap) of the simple statement holding the call at `p` (or of the `if`
    or `switch` whose condition holds it), if code can go just before it: not in a loop's
    header, an `else if`'s condition, a `case`, or after `&&`, `||` or `?` (which may
    not evaluate the call); `wrap` when the statement is a branch or loop body without
    braces."""
    depth, s0 = 0, p
    while s0 > 0:
        t = tokens[s0 - 1][1]
        if t in (")", "]"):
            depth += 1
        elif t in ("(", "["):
            depth -= 1
        elif t in STARTS and depth <= 0:
            break
        s0 -= 1
    if s0 and tokens[s0 - 1][1] == ";" and _in_parens(tokens, s0 - 1):
        return None  # a `for` header
    wrap = False
    while True:
        first = tokens[s0][1]
        if first == "else":
            s0, wrap = s0 + 1, True
            continue
        if first in ("if", "switch", "while", "for") and tokens[s0 + 1][1] == "(":
            hc = disguise.match(tokens, s0 + 1)
            if p > hc:
                s0, wrap = hc + 1, True
                continue
            if first in ("while", "for") or s0 and tokens[s0 - 1][1] == "else":
                return None
            end = hc + 1
            break
        # A `return`, an expression or a declaration of a built-in type; not
        # a `do`, a label, a `try`, a jump or a `const` declaration.
        if first in ("do", "case", "default", "try") or (
                first in disguise.KEYWORDS and first != "return" and first not in C_TYPES):
            return None
        end = _statement_end(tokens, s0)
        break
    if any(t in ("&&", "||", "?", "{", "}") for _, t in tokens[s0:end]):
        return None
    if tokens[s0][1] in ("if", "switch"):
        end = _statement_end(tokens, s0)
    return s0, end, wrap


def _inline_once(tokens, lang):
    """`tokens` with one function that is called once inlined at its call, or None when
    no function qualifies."""
    defs = _definitions(tokens)
    by_name = {}
    for d in defs:
        by_name.setdefault(d[0], []).append(d)
    ids = {t for kind, t in tokens if kind == "id"}
    for name, ni, op, bo, bc in defs:
        if len(by_name[name]) != 1 or name == "main":
            continue
        protos, uses = [], []
        for p, (kind, t) in enumerate(tokens):
            if kind != "id" or t != name or p == ni:
                continue
            if p + 1 < len(tokens) and tokens[p + 1][1] == "(":
                cp = disguise.match(tokens, p + 1)
                if cp + 1 < len(tokens) and tokens[cp + 1][1] == ";" and p and (
                        tokens[p - 1][0] == "id" and tokens[p - 1][1] not in NOT_TYPES
                        or tokens[p - 1][1] == "*"):
                    protos.append((p, cp + 1))
                    continue
            uses.append(p)
        if len(uses) != 1:
            continue
        p = uses[0]
        if bo < p < bc or p + 1 >= len(tokens) or tokens[p + 1][1] != "(" or \
                tokens[p - 1][1] in (".", "->", "::", "new"):
            continue
        cp = disguise.match(tokens, p + 1)
        alone = cp + 1 < len(tokens) and tokens[cp + 1][1] == ";"
        # The caller: the innermost definition around the call.
        around = [d for d in defs if d[3] < p < d[4]]
        if not around:
            continue
        caller = max(around, key=lambda d: d[3])
        # The body: statements, and where `return` stands.
        body = tokens[bo + 1:bc]
        returns = [k for k, (_, t) in enumerate(body) if t == "return"]
        stmts, a = [], 0
        while a < len(body):
            b = min(len(body), max(a + 1, _statement_end(body, a)))
            stmts.append(body[a:b])
            a = b
        value = None
        if stmts and len(returns) == 1 and stmts[-1][0][1] == "return":
            if len(stmts[-1]) > 2:
                value = stmts[-1][1:-1]
            stmts = stmts[:-1]
        elif returns:
            continue
        # The call's statement: tokens[start:end] become head + the block + rest, the
        # block ending in `assign value ;`.
        prev = tokens[p - 1][1]
        end, head, assign, rest = cp + 2, [], None, []
        if alone and (prev in STARTS or prev == "else"):
            if value is not None:
                continue
            start = p
        elif value is None:
            continue
        elif alone and prev == "return":
            start, assign = p - 1, [("id", "return")]
        elif alone and prev == "=" and tokens[p - 2][0] == "id":
            target = tokens[p - 2]
            s0 = p - 2
            while s0 > 0 and tokens[s0 - 1][1] not in STARTS:
                s0 -= 1
            decl = tokens[s0:p - 2]
            if any(t in ("(", "=", ",", "const", "auto", "var", "&", "static", "else")
                   or t in NOT_TYPES for _, t in decl):
                continue
            start, head = s0, (decl + [target, ("op", ";")] if decl else [])
            assign = [target, ("op", "=")]
        else:
            # Anywhere else in a simple statement (or an `if`'s condition): the value
            # goes into a new local of the function's type, read in the call's place.
            stmt = _enclosing_statement(tokens, p)
            if stmt is None:
                continue
            start, end, wrap = stmt
            rtype = [tok for tok in tokens[_header_begin(tokens, ni):ni]
                     if tok[1] not in MODIFIERS and tok[0] != "pp"]
            if not rtype or any(t in ("@", "<", "const", "auto") for _, t in rtype):
                continue
            tmp = ("id", f"value_{name}")
            head = rtype + [tmp, ("op", ";")]
            assign = [tmp, ("op", "=")]
            rest = tokens[start:p] + [tmp] + tokens[cp + 1:end]
            if wrap:
                head = [("op", "{")] + head
                rest = rest + [("op", "}")]
        # Parameters become locals bound to the arguments.
        header = tokens[op + 1:bc - len(body) - 2]
        params = [] if [t for _, t in header] in ([], ["void"]) else _split_commas(header)
        args = _split_commas(tokens[p + 2:cp])
        if len(params) != len(args) or any(
                not q or q[-1][0] != "id" and q[-1][1] != "]" or
                any(t in ("=", "...") for _, t in q) for q in params):
            continue
        binds = []
        for q, arg in zip(params, args):
            if q[-1][1] == "]":
                # `int a[]`: Java keeps it; C and C++ take a pointer (`int *a`).
                if len(q) < 3 or [t for _, t in q[-2:]] != ["[", "]"] or q[-3][0] != "id":
                    break
                if lang != "java":
                    if "[" in [t for _, t in q[:-3]]:
                        break
                    q = q[:-3] + [("op", "*"), q[-3]]
            if not arg:
                break
            binds.append((q, arg))
        else:
            header_names = {q[-1][1] if q[-1][0] == "id" else q[-3][1] for q in params}
            locals_ = _declared_names(body) | header_names
            free = _free_names(body, locals_)
            caller_locals = _declared_names(tokens[caller[2]:caller[4]])
            if free & caller_locals:
                continue
            fresh = {}
            for x in sorted(locals_):
                y, k = f"{x}_{name}", 2
                while y in ids:
                    y, k = f"{x}_{name}{k}", k + 1
                fresh[x] = y
                ids.add(y)

            def renamed(toks):
                return [("id", fresh[t]) if kind == "id" and t in fresh and (
                    j == 0 or toks[j - 1][1] not in (".", "->", "::")) else (kind, t)
                    for j, (kind, t) in enumerate(toks)]

            block = [("op", "{")] + [tok for q, arg in binds for tok in renamed(q) + [
                ("op", "=")] + arg + [("op", ";")]] + [
                tok for st in stmts for tok in renamed(st)]
            if assign is not None:
                block += assign + renamed(value) + [("op", ";")]
            block.append(("op", "}"))
            # The definition goes, from after what precedes its header.
            edits = [(_header_begin(tokens, ni), bc + 1, []), (start, end, head + block + rest)]
            for a0, b0 in protos:
                while a0 > 0 and tokens[a0 - 1][1] not in STARTS and tokens[a0 - 1][0] != "pp":
                    a0 -= 1
                edits.append((a0, b0 + 1, []))
            out = list(tokens)
            for a0, b0, new in sorted(edits, reverse=True):
                out[a0:b0] = new
            return out
    return None


def inline_calls(tokens, lang, limit=16):
    """Up to `limit` functions called once inlined at their calls (`_inline_once`)."""
    for _ in range(limit):
        out = _inline_once(tokens, lang)
        if out is None:
            break
        tokens = out
    return tokens


# Types a `switch` takes (Java: no `long`).
SWITCH_TYPES = {"java": {"int", "short", "byte", "char"},
                "c": {"int", "short", "char", "long", "unsigned", "signed"}}


def _statements_of(tokens, start, end):
    """(start, end) of the statements in tokens[start:end]."""
    out, i = [], start
    while i < end:
        e = min(_statement_end(tokens, i), end)
        out.append((i, e))
        i = e
    return out


def _breaks_out(toks):
    """Whether `toks` (statements) hold a `break` that is not inside a loop or switch
    of their own."""
    i = 0
    while i < len(toks):
        t = toks[i][1]
        if t in ("for", "while", "do", "switch") and toks[i][0] == "id":
            i = _statement_end(toks, i)
            continue
        if t == "break":
            return True
        i += 1
    return False


def _last_word(toks):
    """The first token of the last of statements `toks` (of the last statement of a
    block that ends them), or None for no statement."""
    stmts = _statements_of(toks, 0, len(toks))
    if not stmts:
        return None
    a, b = stmts[-1]
    if toks[a][1] == "{":
        return _last_word(toks[a + 1:b - 1])
    return toks[a][1]


def _ends_in_jump(toks):
    """Whether statements `toks` end in a `return`, `throw`, `continue` or `break` (also
    as the last statement of a block)."""
    return _last_word(toks) in ("return", "throw", "continue", "break")


def _may_end(toks):
    """Whether statements `toks` may run on to what follows them (as far as a token
    scan can tell: not after a jump, and not after an `if`/`else` or a loop, which
    Java may find unable to end)."""
    return _last_word(toks) not in ("return", "throw", "continue", "break", "if", "while",
                                    "for", "do", "switch", "try")


def _without_break(toks):
    """Statements `toks` without the `break;` that ends them (also as the last
    statement of a block: `{ a(); break; }`), or None if they do not end so."""
    stmts = _statements_of(toks, 0, len(toks))
    if not stmts:
        return None
    a, b = stmts[-1]
    if toks[a][1] == "break" and b - a == 2:
        return toks[:a]
    if toks[a][1] == "{":
        inner = _without_break(toks[a + 1:b - 1])
        if inner is not None:
            return toks[:a + 1] + inner + toks[b - 1:]
    return None


def _switch_to_chain(tokens, i, lang, rng):
    """The `if` chain standing for the `switch` at tokens[i], and the index after it;
    None where it does not mean the same (fall-through, an early `break`, `default`
    before a case)."""
    n = len(tokens)
    if i + 1 >= n or tokens[i + 1][1] != "(":
        return None
    close = disguise.match(tokens, i + 1)
    value = tokens[i + 2:close]
    if not value or any(k not in ("id", "num") and t not in ("[", "]", ".")
                        for k, t in value):
        return None
    if close + 1 >= n or tokens[close + 1][1] != "{":
        return None
    end = disguise.match(tokens, close + 1)
    groups, j = [], close + 2  # [labels, statements (tokens)]
    while j < end:
        t = tokens[j][1]
        if t in ("case", "default"):
            k = j + 1
            while k < end and tokens[k][1] != ":":
                k += 1
            label = tokens[j + 1:k] if t == "case" else None
            if not groups or groups[-1][1]:
                groups.append([[], []])
            groups[-1][0].append(label)
            j = k + 1
            continue
        if not groups:
            return None
        e = min(_statement_end(tokens, j), end)
        groups[-1][1].extend(tokens[j:e])
        j = e
    if sum(1 for g in groups if None not in g[0]) < 2:
        return None
    out = []
    for g, (labels, body) in enumerate(groups):
        last = g + 1 == len(groups)
        if None in labels and (not last or len(labels) > 1):
            return None
        stripped = _without_break(body)
        if stripped is not None:
            body = stripped
        elif not last and not _ends_in_jump(body):
            return None
        if _breaks_out(body):
            return None
        body = switch_chains(body, rng, lang)
        if g:
            out.append(("id", "else"))
        if None not in labels:
            tests = []
            for label in labels:
                if tests:
                    tests.append(("op", "||"))
                tests += value + [("op", "==")] + label
            out += [("id", "if"), ("op", "(")] + tests + [("op", ")")]
        out += [("op", "{")] + body + [("op", "}")]
    return out, end + 1


def _switchable(tokens, name, lang):
    """Whether `name` is declared with a type a `switch` takes (`int x`, `int a, x`)."""
    types = SWITCH_TYPES["java" if lang == "java" else "c"]
    for j, (k, t) in enumerate(tokens):
        if t != name or k != "id" or j == 0:
            continue
        prev = tokens[j - 1][1]
        if prev in types:
            return True
        if prev == ",":
            b = j - 1
            while b > 0 and tokens[b - 1][1] not in (";", "{", "}", "("):
                b -= 1
            if tokens[b][1] in types:
                return True
    return False


def _chain_tests(cond, name):
    """Values compared with `name` in `cond` (`x == 1 || x == 'a'`), or None."""
    values, j = [], 0
    while j < len(cond):
        part = cond[j:j + 3]
        if len(part) < 3 or part[0] != ("id", name) or part[1][1] != "==":
            return None
        if part[2][0] != "num" and not (part[2][0] == "str" and part[2][1].startswith("'")):
            return None
        values.append(part[2])
        j += 3
        if j < len(cond):
            if cond[j][1] != "||":
                return None
            j += 1
    return values


def _chain_to_switch(tokens, i, lang, rng):
    """The `switch` standing for the `if` chain at tokens[i] (two or more conditions
    `x == v` on one integer name, integer or character values), and the index after
    it; None for any other `if`."""
    n = len(tokens)
    arms, j, name = [], i, None  # (values or None for else, body tokens)
    while j < n and tokens[j][1] == "if" and j + 1 < n and tokens[j + 1][1] == "(":
        close = disguise.match(tokens, j + 1)
        cond = tokens[j + 2:close]
        name = name or (cond[0][1] if cond and cond[0][0] == "id" else None)
        values = _chain_tests(cond, name) if name else None
        if values is None:
            return None
        body_end = disguise._stmt_end(tokens, close + 1)
        arms.append((values, tokens[close + 1:body_end]))
        j = body_end
        if j < n and tokens[j][1] == "else":
            if j + 1 < n and tokens[j + 1][1] == "if":
                j += 1
                continue
            e = disguise._stmt_end(tokens, j + 1)
            arms.append((None, tokens[j + 1:e]))
            j = e
        break
    valued = [a for a in arms if a[0] is not None]
    seen = [v[1] for a in valued for v in a[0]]
    if len(valued) < 2 or len(set(seen)) != len(seen) or not _switchable(tokens, name, lang):
        return None
    out = [("id", "switch"), ("op", "("), ("id", name), ("op", ")"), ("op", "{")]
    for values, body in arms:
        if _breaks_out(body):
            return None
        if values is None:
            out += [("id", "default"), ("op", ":")]
        for v in values or []:
            out += [("id", "case"), v, ("op", ":")]
        body = switch_chains(body, rng, lang)
        if body[0][1] != "{":
            body = [("op", "{")] + body + [("op", "}")]
        out += body
        if _may_end(body[1:-1]):
            out += [("id", "break"), ("op", ";")]
        elif not _ends_in_jump(body[1:-1]):
            return None
    return out + [("op", "}")], j


def switch_chains(tokens, rng, lang="c"):
    """Every `switch` that means an `if` chain written as that chain, and every `if`
    chain comparing one integer name with constants written as a `switch`."""
    out, i, n = [], 0, len(tokens)
    while i < n:
        kind, t = tokens[i]
        done = None
        if kind == "id" and t == "switch":
            done = _switch_to_chain(tokens, i, lang, rng)
        elif kind == "id" and t == "if" and not (out and out[-1][1] == "else"):
            done = _chain_to_switch(tokens, i, lang, rng)
        if done:
            out.extend(done[0])
            i = done[1]
            continue
        out.append(tokens[i])
        i += 1
    return out


def attack(src, name, lang, rng):
    """A copy of program `src` (`lang` "c" or "java") under attack `name`."""
    if name == "switch":
        # Its own random layout, so that the copies of the attacks before it (drawn
        # from `rng` program after program) stay as they were.
        rng = random.Random(sum(src.encode("utf-8", "replace")) * 31 + len(src))
    rate = {"ins10": 0.1, "ins25": 0.25, "ins50": 0.5, "ins100": 1.0,
            "ins50+reorder": 0.5}.get(name)
    if rate is not None:
        tokens = insert_dead(src, rate, rng, lang)
    else:
        tokens = disguise.tokenize(src)
    if name == "combined":
        tokens = insert_dead(src, 0.25, rng, lang)
        # Java: only the names the program declares (its methods, fields, locals and
        # parameters); the library's and the class's own stay.
        only = None if lang != "java" else _declared_names(tokens) | {
            d[0] for d in _definitions(tokens) if d[0] != "main"}
        tokens = disguise.rename(tokens, rng, only)
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
    if name == "inline":
        tokens = inline_calls(tokens, lang)
    if name == "switch":
        tokens = switch_chains(tokens, rng, lang)
    return disguise.layout(tokens, rng)
