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
  combined           the restructuring a rewriting tool does, all at once: identifiers
                     renamed, members reordered, loops and branches rewritten,
                     expressions respelled (disguise.expressions), 25 % dead statements
"""

import disguise

ATTACKS = ["ins10", "ins25", "ins50", "ins100", "reorder", "ins50+reorder", "stmts", "loops",
           "branches", "combined"]

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
    if name == "combined":
        tokens = disguise.expressions(tokens, rng)
    return disguise.layout(tokens, rng)
