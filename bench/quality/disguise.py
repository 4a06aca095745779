"""Deterministic disguises for planted copies: C/C++ source (levels L1-L6) and prose
(cut, light and heavy revision).

Everything takes a `random.Random`, so the same seed gives the same copies. The C/C++
transforms work on tokens (comments, strings, preprocessor lines and brackets are
respected); they aim at "compiles-ish" output — balanced brackets, consistent names — not
at a verified compile.

C/C++ levels (one transform each on top of L1's layout changes; L6 mixes all of them):
  L1  comments removed or added, indentation and line breaks changed
  L2  identifiers renamed consistently (not keywords, not library names)
  L3  declarations split and reordered, top-level functions reordered (with prototypes)
  L4  dead code and extra statements inserted
  L5  for -> while, while -> for, `a += b` -> `a = a + b`, `x++;` -> `x += 1;`,
      operands of commutative / mirrored comparisons swapped
  L6  L2 + L3 + L4 + L5
"""

import re

# ---------------------------------------------------------------------------------------
# C/C++ tokens

KEYWORDS = set("""
alignas alignof and and_eq asm auto bitand bitor bool break case catch char char16_t
char32_t class compl const constexpr const_cast continue decltype default delete do double
dynamic_cast else enum explicit export extern false float for friend goto if inline int long
mutable namespace new noexcept not not_eq nullptr operator or or_eq private protected public
register reinterpret_cast return short signed sizeof static static_assert static_cast struct
switch template this thread_local throw true try typedef typeid typename union unsigned using
virtual void volatile wchar_t while xor xor_eq
""".split())

# Names from the C and C++ libraries that programs of this kind call; never renamed.
LIBRARY = set("""
main std cin cout cerr endl printf scanf puts gets getchar putchar fgets fputs sprintf sscanf
fprintf fscanf fopen fclose stdin stdout stderr EOF NULL malloc calloc realloc free memset
memcpy memmove memcmp strlen strcpy strncpy strcmp strncmp strcat strncat strchr strrchr
strstr strtok atoi atof atol itoa abs fabs labs sqrt pow exp log log10 sin cos tan asin acos
atan atan2 floor ceil round fmod min max swap sort reverse qsort bsearch exit system rand
srand time clock isdigit isalpha isalnum isupper islower isspace toupper tolower string
vector map set pair make_pair queue stack deque list priority_queue begin end size push_back
pop_back push pop front back top empty clear insert erase find count length substr c_str
getline iostream cstdio cstdlib cstring cmath algorithm iomanip setw setprecision fixed
stdio stdlib string math ctype h INT_MAX INT_MIN LONG_MAX memory iterator first second
ios sync_with_stdio tie size_t FILE assert INT_MIN DBL_MAX get ignore peek eof good fail
put write read open close is_open str precision width fill npos append replace at
""".split())

TYPE_WORDS = {"int", "char", "double", "float", "long", "short", "unsigned", "signed", "bool",
              "const", "static", "string", "auto"}

TOKEN = re.compile(
    r"""(?P<pp>^[ \t]*\#(?:\\\n|[^\n])*)
      |(?P<comment>//[^\n]*|/\*.*?\*/)
      |(?P<str>"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')
      |(?P<ws>\s+)
      |(?P<id>[A-Za-z_]\w*)
      |(?P<num>\.?\d(?:[eE][+-]|[\w.])*)
      |(?P<op>->|\+\+|--|<<=|>>=|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^!=<>]=|::|.)""",
    re.S | re.M | re.X)


def tokenize(src):
    """(kind, text) tokens without whitespace and comments; kinds: pp id num str op."""
    out = []
    for m in TOKEN.finditer(src):
        kind = m.lastgroup
        if kind in ("ws", "comment"):
            continue
        out.append((kind, m.group(kind).strip() if kind == "pp" else m.group(kind)))
    return out


def render(tokens, rng, style=None):
    """Lay tokens out as C: one statement a line, indentation by braces (style varies)."""
    style = style or {}
    indent_unit = style.get("indent", "    ")
    brace_newline = style.get("brace_newline", False)
    spaced = style.get("spaced", True)
    out, line, depth, paren = [], [], 0, 0

    def flush():
        if line:
            out.append(indent_unit * depth + "".join(line).strip())
            line.clear()

    prev = None
    for kind, text in tokens:
        if kind == "pp":
            flush()
            out.append(text)
            prev = None
            continue
        if text == "(":
            paren += 1
        elif text == ")":
            paren = max(0, paren - 1)
        if text == "{":
            if brace_newline:
                flush()
                out.append(indent_unit * depth + "{")
            else:
                line.append(" {")
                flush()
            depth += 1
            prev = text
            continue
        if text == "}":
            flush()
            depth = max(0, depth - 1)
            out.append(indent_unit * depth + "}")
            prev = text
            continue
        if prev is not None and line:
            if kind in ("id", "num") and prev[0] in ("id", "num"):
                line.append(" ")
            elif spaced and kind == "op" and text in ("=", "==", "<", ">", "<=", ">=", "!=",
                                                      "+", "-", "*", "/", "&&", "||", "+=",
                                                      "-=", "<<", ">>"):
                line.append(" ")
            elif spaced and prev[1] in ("=", "==", "<", ">", "<=", ">=", "!=", "+", "-", "*",
                                        "/", "&&", "||", "+=", "-=", "<<", ">>", ","):
                line.append(" ")
        line.append(text)
        prev = (kind, text)
        if text == ";" and paren == 0:
            flush()
    flush()
    return "\n".join(out) + "\n"


COMMENTS = ["// read the input", "// main loop", "/* compute the answer */", "// output",
            "// helper", "/* check the bounds */", "// initialise", "// done"]


def layout(tokens, rng, comments=True):
    """L1: a random layout style, with a few comments sprinkled in."""
    style = {"indent": rng.choice(["  ", "    ", "\t"]),
             "brace_newline": rng.random() < 0.5,
             "spaced": rng.random() < 0.6}
    text = render(tokens, rng, style)
    if not comments:
        return text
    lines = text.split("\n")
    out = []
    for ln in lines:
        if ln.strip() and not ln.lstrip().startswith("#") and rng.random() < 0.12:
            out.append(ln[: len(ln) - len(ln.lstrip())] + rng.choice(COMMENTS))
        out.append(ln)
        if rng.random() < 0.05:
            out.append("")
    return "\n".join(out)


# ---------------------------------------------------------------------------------------
# Transforms on token lists

NAME_PARTS = ["val", "num", "cnt", "idx", "tmp", "res", "arr", "sum", "len", "pos", "flag",
              "cur", "acc", "buf", "data", "item", "total", "k", "p", "q", "n", "m", "x", "y"]


def rename(tokens, rng, only=None):
    """L2: every user identifier (or every name in `only`) gets a new, unused name
    (consistently)."""
    used = {t for k, t in tokens if k == "id"}
    mapping = {}
    out = []
    for i, (kind, text) in enumerate(tokens):
        if kind == "id" and text not in KEYWORDS and text not in LIBRARY and (
                only is None or text in only):
            prev = tokens[i - 1][1] if i else ""
            if prev in (".", "->") and text in LIBRARY:
                out.append((kind, text))
                continue
            if text not in mapping:
                while True:
                    name = rng.choice(NAME_PARTS) + rng.choice(["", "_", ""]) + \
                        rng.choice(NAME_PARTS).capitalize() + str(rng.randint(0, 99))
                    if name not in used and name not in KEYWORDS:
                        break
                used.add(name)
                mapping[text] = name
            out.append((kind, mapping[text]))
        else:
            out.append((kind, text))
    return out


def match(tokens, i):
    """Index of the bracket closing the one at i."""
    pairs = {"(": ")", "{": "}", "[": "]"}
    open_, close = tokens[i][1], pairs[tokens[i][1]]
    depth = 0
    for j in range(i, len(tokens)):
        t = tokens[j][1]
        if tokens[j][0] != "op":
            continue
        if t == open_:
            depth += 1
        elif t == close:
            depth -= 1
            if depth == 0:
                return j
    return len(tokens) - 1


def top_level_items(tokens):
    """Split into top-level items: (kind, tokens) with kind pp, func, other."""
    items, i, n = [], 0, len(tokens)
    while i < n:
        if tokens[i][0] == "pp":
            items.append(("pp", tokens[i:i + 1]))
            i += 1
            continue
        j = i
        while j < n and tokens[j][0] != "pp":
            t = tokens[j][1]
            if t == ";" and tokens[j][0] == "op":
                items.append(("other", tokens[i:j + 1]))
                break
            if t == "{" and tokens[j][0] == "op":
                k = match(tokens, j)
                seg = tokens[i:k + 1]
                is_func = j > i and tokens[j - 1][1] == ")" and not any(
                    x[1] in ("struct", "class", "=", "enum", "union", "namespace") for x in tokens[i:j])
                if not is_func and k + 1 < n and tokens[k + 1][1] == ";":
                    k += 1
                    seg = tokens[i:k + 1]
                items.append(("func" if is_func else "other", seg))
                j = k
                break
            j += 1
        else:
            if j > i:
                items.append(("other", tokens[i:j]))
            i = j
            continue
        i = j + 1
    return items


def statements(tokens, start, end):
    """Split tokens[start:end] (a block's inside) into statements at depth 0."""
    out, i = [], start
    while i < end:
        j = i
        while j < end:
            t = tokens[j][1]
            if tokens[j][0] == "op" and t in ("(", "{", "["):
                k = match(tokens, j)
                if t == "{":
                    j = k
                    # a block statement ends at its brace unless an `else`/`while`/`;` follows
                    if j + 1 < end and tokens[j + 1][1] in ("else", "while", ";"):
                        j += 1
                        continue
                    break
                j = k + 1
                continue
            if t == ";" and tokens[j][0] == "op":
                break
            j += 1
        out.append((i, min(j, end - 1) + 1))
        i = min(j, end - 1) + 1
    return out


def is_decl(stmt):
    if not stmt or stmt[-1][1] != ";":
        return False
    words = [t for k, t in stmt if k == "id"]
    if not words or stmt[0][1] not in TYPE_WORDS:
        return False
    return not any(t in ("(",) for _, t in stmt) or stmt[0][1] in ("int", "double", "char",
                                                                   "float", "long")


def split_decl(stmt):
    """`int a, b[3], c = 1;` -> `int a;` `int b[3];` `int c = 1;` (commas at depth 0)."""
    # the base type: leading type words
    k = 0
    while k < len(stmt) and stmt[k][1] in TYPE_WORDS:
        k += 1
    if k == 0 or k >= len(stmt):
        return [stmt]
    base, rest = stmt[:k], stmt[k:-1]
    parts, cur, depth = [], [], 0
    for tok in rest:
        if tok[1] in ("(", "[", "{"):
            depth += 1
        elif tok[1] in (")", "]", "}"):
            depth -= 1
        if tok[1] == "," and depth == 0:
            parts.append(cur)
            cur = []
        else:
            cur.append(tok)
    parts.append(cur)
    if any(not p for p in parts):
        return [stmt]
    return [base + p + [("op", ";")] for p in parts]


def reorder(tokens, rng):
    """L3: split declarations; shuffle runs of declarations without initialisers; shuffle
    top-level functions and declare them all up front."""
    items = top_level_items(tokens)
    new_items = []
    for kind, seg in items:
        if kind == "func":
            open_ = next(i for i, t in enumerate(seg) if t[1] == "{" and seg[i - 1][1] == ")")
            body = seg[open_ + 1:-1]
            new_items.append((kind, seg[:open_ + 1] + reorder_block(body, rng) + [("op", "}")]))
        else:
            new_items.append((kind, seg))
    funcs = [(i, s) for i, (k, s) in enumerate(new_items) if k == "func"]
    if len(funcs) >= 2:
        order = [s for _, s in funcs]
        rng.shuffle(order)
        protos = []
        for s in order:
            head = s[:next(i for i, t in enumerate(s) if t[1] == "{")]
            if not any(t[1] == "main" for t in head):
                protos.append(("other", head + [("op", ";")]))
        first = funcs[0][0]
        rebuilt = []
        it = iter(order)
        for i, item in enumerate(new_items):
            if i == first:
                rebuilt.extend(protos)
            rebuilt.append(("func", next(it)) if item[0] == "func" else item)
        new_items = rebuilt
    return [t for _, seg in new_items for t in seg]


def reorder_block(body, rng):
    stmts = statements(body, 0, len(body))
    out, run = [], []

    def flush():
        if len(run) > 1:
            rng.shuffle(run)
        for s in run:
            out.extend(s)
        run.clear()

    for a, b in stmts:
        s = body[a:b]
        if is_decl(s) and not any(t[1] == "(" for t in s):
            for d in split_decl(s):
                if any(t[1] == "=" for t in d):
                    flush()
                    out.extend(d)
                else:
                    run.append(d)
            continue
        flush()
        out.extend(s)
    flush()
    return out


DEAD = [
    "int {a} = {n};",
    "{a}: ;",
    "if ({n} < 0) {{ int {a} = {m}; {a}++; }}",
    "{{ int {a} = {n}; {a} = {a} * {m}; }}",
    "for (int {a} = 0; {a} < 0; {a}++) {{ }}",
    "while (0) {{ int {a} = {n}; }}",
    "int {a} = {n} + {m}; {a}--;",
]


def insert_dead(tokens, rng, rate=0.2):
    """L4: dead statements after `;` inside function bodies (not before `else`)."""
    out = []
    depth = paren = 0
    n = 0
    func_depths = []
    for i, (kind, text) in enumerate(tokens):
        out.append((kind, text))
        if kind != "op":
            continue
        if text == "(":
            paren += 1
        elif text == ")":
            paren -= 1
        elif text == "{":
            depth += 1
            if i > 0 and tokens[i - 1][1] == ")" and not func_depths and depth == 1:
                func_depths.append(depth)
        elif text == "}":
            if func_depths and depth == func_depths[-1]:
                func_depths.pop()
            depth -= 1
        elif text == ";" and paren == 0 and func_depths and depth >= 1:
            nxt = tokens[i + 1][1] if i + 1 < len(tokens) else ""
            prev_kw = [t for _, t in tokens[max(0, i - 40):i]]
            if nxt in ("else", "case", "default", "}") and nxt != "}":
                continue
            if "switch" in prev_kw and nxt in ("case", "default"):
                continue
            if rng.random() < rate:
                n += 1
                name = "dz" + rng.choice(NAME_PARTS) + str(rng.randint(100, 999))
                tpl = rng.choice(DEAD)
                if tpl.startswith("{a}:"):
                    tpl = DEAD[0]
                code = tpl.format(a=name, n=rng.randint(1, 50), m=rng.randint(2, 9))
                out.extend(tokenize(code))
    return out


def _stmt_end(tokens, i):
    """End (exclusive) of the statement starting at i."""
    t = tokens[i][1]
    if t == "{":
        return match(tokens, i) + 1
    if t in ("for", "while", "if", "switch"):
        j = match(tokens, i + 1) + 1
        e = _stmt_end(tokens, j)
        if t == "if" and e < len(tokens) and tokens[e][1] == "else":
            e = _stmt_end(tokens, e + 1)
        return e
    if t == "do":
        e = _stmt_end(tokens, i + 1)  # body
        j = match(tokens, e + 1) + 1  # while ( ... )
        return j + 1
    depth = 0
    for j in range(i, len(tokens)):
        x = tokens[j][1]
        if x in ("(", "[", "{"):
            depth += 1
        elif x in (")", "]", "}"):
            depth -= 1
        elif x == ";" and depth == 0:
            return j + 1
    return len(tokens)


def loops(tokens, rng, rate=1.0):
    """L5 (loops): `for (a; b; c) S` -> `{ a; while (b) { S c; } }`, `while (b)` -> `for (; b;)`."""
    out, i, n = [], 0, len(tokens)
    while i < n:
        kind, text = tokens[i]
        if text == "for" and kind == "id" and i + 1 < n and tokens[i + 1][1] == "(" \
                and rng.random() < rate:
            close = match(tokens, i + 1)
            head = tokens[i + 2:close]
            semis = [j for j, t in enumerate(head) if t[1] == ";"]
            depth_ok = len(semis) == 2
            body_start = close + 1
            if depth_ok and body_start < n:
                body_end = _stmt_end(tokens, body_start)
                body = loops(tokens[body_start:body_end], rng, rate)
                if body and body[0][1] == "{":
                    body = body[1:-1]
                init, cond, step = head[:semis[0]], head[semis[0] + 1:semis[1]], head[semis[1] + 1:]
                has_continue = any(t[1] == "continue" for t in body)
                if not has_continue:
                    new = [("op", "{")] + init + [("op", ";"), ("id", "while"), ("op", "(")]
                    new += cond or [("num", "1")]
                    new += [("op", ")"), ("op", "{")] + body
                    if step:
                        new += step + [("op", ";")]
                    new += [("op", "}"), ("op", "}")]
                    out.extend(new)
                    i = body_end
                    continue
        if text == "while" and kind == "id" and i + 1 < n and tokens[i + 1][1] == "(" \
                and (not out or out[-1][1] != "}") and rng.random() < rate * 0.5:
            close = match(tokens, i + 1)
            out.extend([("id", "for"), ("op", "("), ("op", ";")] + tokens[i + 2:close]
                       + [("op", ";"), ("op", ")")])
            i = close + 1
            continue
        out.append((kind, text))
        i += 1
    return out


SIMPLE_LEFT = {"(", "=", ",", ";", "return", "&&", "||", "?", ":", "{", "}"}
SIMPLE_RIGHT = {")", ";", ",", "&&", "||", "?", "]"}
MIRROR = {"==": "==", "!=": "!=", "+": "+", "*": "*", "<": ">", ">": "<", "<=": ">=",
          ">=": "<="}


def expressions(tokens, rng, rate=0.8):
    """L5 (expressions): compound assignments expanded, `x++;` -> `x += 1;`, operands of
    `a OP b` swapped (OP commutative or a mirrored comparison, a and b single tokens)."""
    out, i, n = [], 0, len(tokens)
    while i < n:
        kind, text = tokens[i]
        nxt = tokens[i + 1][1] if i + 1 < n else ""
        prev = out[-1][1] if out else ";"
        # a += b;  ->  a = a + (b);
        if kind == "id" and nxt in ("+=", "-=", "*=") and prev in (";", "{", "}", ")") \
                and rng.random() < rate:
            j = i + 2
            depth = 0
            while j < n and not (tokens[j][1] in (";", ")", ",") and depth == 0):
                if tokens[j][1] in ("(", "["):
                    depth += 1
                elif tokens[j][1] in (")", "]"):
                    depth -= 1
                j += 1
            rhs = tokens[i + 2:j]
            out.extend([(kind, text), ("op", "="), (kind, text), ("op", nxt[0])])
            out.extend([("op", "(")] + rhs + [("op", ")")] if len(rhs) > 1 else rhs)
            i = j
            continue
        # x++; / ++x;  ->  x += 1;  /  x = x + 1;
        if kind == "id" and nxt in ("++", "--") and prev in (";", "{", "}") \
                and i + 2 < n and tokens[i + 2][1] in (";", ")") and rng.random() < rate:
            if rng.random() < 0.5:
                out.extend([(kind, text), ("op", nxt[0] + "="), ("num", "1")])
            else:
                out.extend([(kind, text), ("op", "="), (kind, text), ("op", nxt[0]),
                            ("num", "1")])
            i += 2
            continue
        # a OP b  ->  b OP' a
        if kind in ("id", "num") and nxt in MIRROR and i + 2 < n \
                and tokens[i + 2][0] in ("id", "num") and prev in SIMPLE_LEFT \
                and text not in KEYWORDS and tokens[i + 2][1] not in KEYWORDS \
                and (tokens[i + 3][1] if i + 3 < n else ";") in SIMPLE_RIGHT \
                and not (prev == "{" and nxt in ("<", ">")) and rng.random() < rate:
            out.extend([tokens[i + 2], ("op", MIRROR[nxt]), (kind, text)])
            i += 3
            continue
        out.append((kind, text))
        i += 1
    return out


LEVELS = ("L1", "L2", "L3", "L4", "L5", "L6")


def disguise_c(src, level, rng):
    """A disguised copy of C/C++ source `src` at `level` (L1..L6)."""
    toks = tokenize(src)
    if level in ("L2", "L6"):
        toks = rename(toks, rng)
    if level in ("L3", "L6"):
        toks = reorder(toks, rng)
    if level in ("L4", "L6"):
        toks = insert_dead(toks, rng, rate=0.2 if level == "L4" else 0.15)
    if level in ("L5", "L6"):
        toks = loops(toks, rng, rate=1.0 if level == "L5" else 0.7)
        toks = expressions(toks, rng, rate=0.8 if level == "L5" else 0.6)
    return layout(toks, rng)


def balanced(src):
    """True if (), [] and {} are balanced outside comments, strings and preprocessor lines."""
    stack = []
    pairs = {")": "(", "]": "[", "}": "{"}
    for kind, t in tokenize(src):
        if kind != "op":
            continue
        if t in "([{":
            stack.append(t)
        elif t in pairs:
            if not stack or stack.pop() != pairs[t]:
                return False
    return not stack


# ---------------------------------------------------------------------------------------
# Prose

SYNONYM_GROUPS = """
use employ utilise | used employed utilised | uses employs utilises | using employing utilising
show display present | shows displays presents | shown displayed presented
make create produce | makes creates produces | made created produced
file document | files documents | directory folder | directories folders
start begin commence | starts begins commences | started begun commenced
stop halt end | stops halts ends | end finish | ends finishes
get obtain fetch | gets obtains fetches | give provide supply | gives provides supplies
need require | needs requires | needed required | allow permit enable | allows permits enables
change modify alter | changes modifies alters | changed modified altered
set configure | sets configures | remove delete erase | removes deletes erases
removed deleted erased | add append insert | adds appends inserts | added appended inserted
find locate | finds locates | found located | check verify test | checks verifies tests
run execute | runs executes | running executing | ran executed
write output emit | writes outputs emits | written output emitted | read load | reads loads
print display | prints displays | option flag switch | options flags switches
default standard usual | value setting | values settings | name label | names labels
list enumerate | lists enumerates | number count | numbers counts | size length
big large | small little | fast quick rapid | slow sluggish | new fresh | old previous
many numerous several | few some | all every | each every | also too additionally
however nevertheless | therefore thus hence | because since | but yet | often frequently
usually normally typically | only solely merely | exactly precisely | simply just
possible feasible | important significant | different distinct | same identical
similar comparable | specific particular | specified given | current present
first initial | last final | next following | previous preceding | main primary
may might | can could | must should | will shall | begin start | error fault failure
errors faults failures | problem issue | problems issues | result outcome | results outcomes
information data details | system machine | program application tool | programs applications tools
command instruction | commands instructions | user operator | users operators
process handle treat | processes handles treats | processed handled treated
example instance | examples instances | method way approach | methods ways approaches
describe explain | describes explains | described explained | mean signify | means signifies
contain hold include | contains holds includes | contained held included
return yield | returns yields | call invoke | calls invokes | called invoked
support handle | supports handles | supported handled | work operate function
works operates functions | specify indicate state | specifies indicates states
ignore disregard skip | ignores disregards skips | ignored disregarded skipped
enable activate | enables activates | disable deactivate | disables deactivates
enabled activated | disabled deactivated | create generate | creates generates
format layout | output result | input entry | entries records | entry record
line row | lines rows | field column | fields columns | character symbol | characters symbols
text content | string sequence | strings sequences | path location | paths locations
access reach | accesses reaches | control manage govern | controls manages governs
send transmit | sends transmits | sent transmitted | receive accept | receives accepts
request query | requests queries | response reply | responses replies | connect link
connection link | connections links | server host | servers hosts | client consumer
level degree | type kind sort | types kinds sorts | part portion section | parts portions sections
whole entire complete | available accessible | required mandatory | optional elective
correct right proper | wrong incorrect | valid legitimate | invalid illegitimate
easy simple | hard difficult | clear obvious | quickly rapidly | slowly gradually
directly immediately | automatically implicitly | explicitly expressly | finally lastly
instead alternatively | especially particularly | generally broadly | currently presently
""".strip()


def synonym_table():
    """word -> list of alternatives (case folded)."""
    table = {}
    for group in SYNONYM_GROUPS.replace("\n", "|").split("|"):
        words = group.split()
        for w in words:
            table.setdefault(w, [])
            table[w].extend(x for x in words if x != w and x not in table[w])
    return table


SYNONYMS = synonym_table()
SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\"'])")
WORD_RE = re.compile(r"[A-Za-z]+")


def sentences(text):
    return [s for s in SENTENCE.split(" ".join(text.split())) if s]


def substitute(text, rng, rate):
    """Replace about `rate` of the words that have synonyms (case kept for the first letter)."""
    def rep(m):
        w = m.group(0)
        alts = SYNONYMS.get(w.lower())
        if not alts or rng.random() >= rate:
            return w
        a = rng.choice(alts)
        return a.capitalize() if w[0].isupper() else a
    return WORD_RE.sub(rep, text)


def drop_words(sent, rng, rate):
    words = sent.split()
    if len(words) < 6:
        return sent
    kept = [w for i, w in enumerate(words) if i == 0 or i == len(words) - 1 or rng.random() >= rate]
    return " ".join(kept)


def wrap(text, rng):
    import textwrap
    return "\n".join(textwrap.wrap(text, width=rng.choice([60, 70, 72, 78, 80]),
                                   break_long_words=False, break_on_hyphens=False)) + "\n"


KINDS = ("cut", "light", "heavy")


def revise(src, kind, rng, filler):
    """A derived text of `src`: `cut` a verbatim excerpt (half to all of it, with some
    unrelated `filler` sentences around it), `light` a few synonyms and small deletions,
    `heavy` sentences reordered, split and merged, many synonyms, deletions and insertions
    from `filler` (a list of sentences not otherwise in the corpus)."""
    sents = sentences(src)
    if kind == "cut":
        n = len(sents)
        take = max(1, int(n * rng.uniform(0.5, 0.9)))
        start = rng.randint(0, n - take)
        body = sents[start:start + take]
        pre = rng.sample(filler, min(len(filler), rng.randint(0, 2)))
        post = rng.sample(filler, min(len(filler), rng.randint(1, 3)))
        return wrap(" ".join(pre + body + post), rng)
    if kind == "light":
        out = []
        for s in sents:
            if len(sents) > 4 and rng.random() < 0.05:
                continue
            s = substitute(s, rng, 0.3)
            s = drop_words(s, rng, 0.03)
            out.append(s)
        return wrap(" ".join(out), rng)
    if kind == "heavy":
        work = []
        for s in sents:
            if rng.random() < 0.2:
                continue  # deleted
            s = drop_words(substitute(s, rng, 0.7), rng, 0.1)
            words = s.split()
            if len(words) > 16 and rng.random() < 0.4:  # split
                cut = rng.randint(6, len(words) - 6)
                a = " ".join(words[:cut]).rstrip(",;:") + "."
                b = " ".join(words[cut:])
                work.extend([a, b[:1].upper() + b[1:]])
            elif work and rng.random() < 0.2:  # merge with the previous sentence
                work[-1] = work[-1].rstrip(".") + ", and " + s[:1].lower() + s[1:]
            else:
                work.append(s)
        # reorder: shuffle blocks of a few sentences, then swap some neighbours
        blocks = [work[i:i + 3] for i in range(0, len(work), 3)]
        rng.shuffle(blocks)
        work = [s for b in blocks for s in b]
        for i in range(len(work) - 1):
            if rng.random() < 0.3:
                work[i], work[i + 1] = work[i + 1], work[i]
        n_ins = max(1, len(work) // 5)
        for _ in range(n_ins):
            if filler:
                work.insert(rng.randint(0, len(work)), rng.choice(filler))
        return wrap(" ".join(work), rng)
    raise ValueError(kind)
