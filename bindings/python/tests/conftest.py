"""Shared helpers: a generated corpus with planted copies, the `bryo` CLI
run on it, and both results in one comparable form."""

from __future__ import annotations

import json
import os
import random
import subprocess
from pathlib import Path

import pyarrow as pa
import pytest

REPO = Path(__file__).resolve().parents[3]


def bryo_binary() -> str:
    """The CLI the results are checked against: $BRYO_BIN, else the
    repository's release or debug build (the test fails if none exists)."""
    given = os.environ.get("BRYO_BIN")
    candidates = [given] if given else [
        REPO / "target" / "release" / "bryo",
        REPO / "target" / "debug" / "bryo",
    ]
    for c in candidates:
        if c and Path(c).is_file():
            return str(c)
    pytest.fail(
        "no bryo binary: build it (cargo build -p bryo-cli) or set BRYO_BIN", pytrace=False
    )


_WORDS = "alpha beta gamma delta total count index value items result node left right".split()


def _statement(rng: random.Random) -> str:
    a, b, c = (rng.choice(_WORDS) + str(rng.randrange(50)) for _ in range(3))
    form = rng.randrange(5)
    if form == 0:
        return f"{a} = {b} + {c} * {rng.randrange(100)}"
    if form == 1:
        return f"if {a} > {b}:\n        {c} = {a} - {rng.randrange(9)}"
    if form == 2:
        return f"for {a} in range({b}):\n        {c}.append({a})"
    if form == 3:
        return f"{a} = call_{b}({c}, {rng.randrange(7)})"
    return f"while {a} < {rng.randrange(1000)}:\n        {a} += {b}"


def _function(rng: random.Random, name: str, n: int) -> str:
    body = "\n    ".join(_statement(rng) for _ in range(n))
    return f"def {name}(x, y):\n    {body}\n    return x\n"


def make_corpus(n_docs: int, seed: int) -> dict[str, bytes]:
    """`n_docs` Python files named `docs/dNNN.py`: own functions, passages
    copied among random subsets (some in more than 10 documents, a few in
    two or three), exact copies, a binary file and an empty one."""
    rng = random.Random(seed)
    passages = [_function(rng, f"shared_{i}", rng.randrange(4, 30)) for i in range(12)]
    # How widely each passage is spread: two popular ones, the rest rare.
    spread = [0.6, 0.4] + [0.08] * 10
    docs: dict[str, bytes] = {}
    for d in range(n_docs):
        parts = [_function(rng, f"own_{d}_{j}", rng.randrange(3, 25)) for j in range(rng.randrange(1, 4))]
        for p, share in zip(passages, spread):
            if rng.random() < share:
                text = p
                if rng.random() < 0.3:  # an edited copy: one line changed
                    lines = text.split("\n")
                    i = rng.randrange(1, max(2, len(lines) - 2))
                    lines[i] = "    edited_" + str(d) + " = 1"
                    text = "\n".join(lines)
                parts.insert(rng.randrange(len(parts) + 1), text)
        docs[f"docs/d{d:03}.py"] = "\n".join(parts).encode()
    names = sorted(docs)
    docs[names[3]] = docs[names[1]]  # exact copies
    docs["docs/zz_binary.py"] = b"\x00\x01\x02 binary"
    docs["docs/zz_empty.py"] = b""
    return docs


def _gibberish(rng: random.Random, words: int) -> str:
    """Words of random letters: text that shares no k-gram by chance."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    return " ".join("".join(rng.choice(letters) for _ in range(rng.randrange(3, 10))) for _ in range(words))


def make_wide_corpus(n_docs: int, seed: int) -> dict[str, bytes]:
    """`n_docs` text files where 150 short passages are each in 45% of
    them: too few for template code (more than half), enough that their
    pairs exceed the rarity rule's records budget (2^18), so the seed limit
    cuts and each passage pairs only a sample of its documents. Each
    document has them in its own order, between words of its own, so a
    match never runs from one into the next: two documents get a fragment
    of a passage only where one of its few hashes sampled them (or, compared
    alone, always). Some documents also share a passage in pairs."""
    rng = random.Random(seed)
    wide = [_gibberish(rng, 10) for _ in range(150)]
    pair_passages = [_gibberish(rng, 60) for _ in range(n_docs // 20 + 1)]
    docs: dict[str, bytes] = {}
    for d in range(n_docs):
        parts = [_gibberish(rng, 80)]
        if d % 20 < 7 or d % 20 in (10, 11):
            for p in rng.sample(wide, len(wide)):
                parts += [p, _gibberish(rng, 3)]
        if d % 20 in (10, 11):
            parts.insert(rng.randrange(len(parts) + 1), pair_passages[d // 20])
        docs[f"docs/w{d:04}.txt"] = ("\n".join(parts) + "\n").encode()
    return docs


_PROSE = (
    "the committee met on tuesday to review the annual budget and the plans for the new library "
    "several members asked whether the reading rooms would stay open in the evenings "
    "the treasurer explained that the grant covered staff for two more years "
    "after a long discussion the proposal was accepted with one abstention "
    "the chair thanked the volunteers who had catalogued the donated books over the summer "
    "a final vote on the roof repairs was postponed until the engineers report arrives"
).split()


def make_prose_corpus(n_docs: int, seed: int) -> dict[str, bytes]:
    """`n_docs` text files: own sentences, and copies of one long passage
    with a word changed here and there, which the prose front-end merges
    into one fragment of several parts."""
    rng = random.Random(seed)
    passage = [rng.choice(_PROSE) for _ in range(220)]
    docs: dict[str, bytes] = {}
    for d in range(n_docs):
        own = " ".join(rng.choice(_PROSE) for _ in range(60)) + ".\n"
        body = own
        if d % 3 != 2:
            words = list(passage)
            for _ in range(3):
                words[rng.randrange(len(words))] = f"changed{d}"
            lines = [" ".join(words[i : i + 12]) for i in range(0, len(words), 12)]
            body += "\n".join(lines) + ".\n"
        body += " ".join(rng.choice(_PROSE) for _ in range(40)) + ".\n"
        docs[f"docs/t{d:02}.txt"] = body.encode()
    return docs


_JAVA_ORIGINAL = """public class Stats {
    public static double mean(double[] xs) {
        return sum(xs) / xs.length;
    }
    static double sum(double[] xs) {
        double total = 0;
        for (int i = 0; i < xs.length; i++) {
            total += xs[i];
        }
        return total;
    }
    public static void main(String[] args) {
        double[] xs = new double[args.length];
        for (int i = 0; i < args.length; i++) {
            xs[i] = Double.parseDouble(args[i]);
        }
        if (xs.length == 0) {
            System.out.println("no numbers");
        } else {
            System.out.println("mean " + mean(xs));
            System.out.println("count " + xs.length);
        }
    }
}
"""

_JAVA_OTHERS = [
    """class Words {
    static int count(String line) {
        int n = 0;
        boolean inWord = false;
        for (char c : line.toCharArray()) {
            if (Character.isLetter(c)) { if (!inWord) { n = n + 1; inWord = true; } }
            else { inWord = false; }
        }
        return n;
    }
    public static void main(String[] args) {
        java.util.Scanner in = new java.util.Scanner(System.in);
        int lines = 0, words = 0;
        while (in.hasNextLine()) { words += count(in.nextLine()); lines++; }
        System.out.printf("%d lines, %d words%n", lines, words);
    }
}
""",
    """import java.util.ArrayList;
import java.util.List;
class Primes {
    public static void main(String[] args) {
        int limit = Integer.parseInt(args[0]);
        boolean[] composite = new boolean[limit + 1];
        List<Integer> primes = new ArrayList<>();
        for (int p = 2; p <= limit; p++) {
            if (composite[p]) continue;
            primes.add(p);
            for (long q = (long) p * p; q <= limit; q += p) composite[(int) q] = true;
        }
        System.out.println(primes.size() + " primes up to " + limit);
        System.out.println(primes);
    }
}
""",
]


def make_java_corpus() -> dict[str, bytes]:
    """A Java original, three disguised copies (loops rewritten, the helper
    inlined, modifiers changed) and two unrelated programs: token
    normalization changes what is found."""
    o = _JAVA_ORIGINAL
    loops = o.replace(
        "for (int i = 0; i < xs.length; i++) {\n            total += xs[i];\n        }",
        "int i = 0;\n        while (i < xs.length) {\n            total = total + xs[i];\n            i += 1;\n        }",
    )
    inlined = o.replace(
        "        return sum(xs) / xs.length;",
        "        double total = 0;\n        for (int i = 0; i < xs.length; i++) {\n"
        "            total += xs[i];\n        }\n        return total / xs.length;",
    )
    inlined = inlined[: inlined.index("    static double sum")] + inlined[inlined.index("    public static void main"):]
    modifiers = o.replace("public static", "private static final").replace("    static double", "    public static double")
    docs = {
        "docs/a/Stats.java": o,
        "docs/b/Stats.java": loops,
        "docs/c/Stats.java": inlined,
        "docs/d/Stats.java": modifiers,
        "docs/e/Words.java": _JAVA_OTHERS[0],
        "docs/f/Primes.java": _JAVA_OTHERS[1],
    }
    return {name: text.encode() for name, text in docs.items()}


def write_corpus(root: Path, docs: dict[str, bytes]) -> None:
    for name, data in docs.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def run_cli(root: Path, *args: str) -> dict:
    """`bryo compare docs ARGS --format json` in `root`."""
    out = subprocess.run(
        [bryo_binary(), "compare", "docs", "--format", "json", *args],
        cwd=root,
        check=True,
        capture_output=True,
    )
    return json.loads(out.stdout)


def cli_pairs(report: dict) -> list[tuple]:
    """The CLI's pairs in report order, in the comparable form."""
    names = [s["name"] for s in report["submissions"]]
    return [
        (
            names[p["a"]],
            names[p["b"]],
            p["similarity"],
            p["a_percent"],
            p["b_percent"],
            p["shared_fingerprints"],
            p["identical"],
            tuple(_cli_fragment(f) + (tuple(_cli_fragment(q) for q in f.get("parts", [])),) for f in p["fragments"]),
        )
        for p in report["pairs"]
    ]


def _cli_fragment(f: dict) -> tuple:
    return (
        (f["a"]["file"], f["b"]["file"]),
        tuple(f["a"]["bytes"]),
        tuple(f["a"]["lines"]),
        tuple(f["b"]["bytes"]),
        tuple(f["b"]["lines"]),
        f["symbols"],
    )


def _arrow_fragment(f: dict, files=None) -> tuple:
    return (
        files or (f["file_a"], f["file_b"]),
        (f["a_byte_start"], f["a_byte_end"]),
        (f["a_first_line"], f["a_last_line"]),
        (f["b_byte_start"], f["b_byte_end"]),
        (f["b_first_line"], f["b_last_line"]),
        f["symbols"],
    )


def arrow_pairs(rows: list[dict]) -> list[tuple]:
    """Pairs from `bryo.compare` (or the Spark job) in the comparable form."""
    return [
        (
            r["doc_a"],
            r["doc_b"],
            r["similarity"],
            r["a_percent"],
            r["b_percent"],
            r["shared_fingerprints"],
            r["identical"],
            tuple(
                _arrow_fragment(f)
                # A part is in its fragment's files.
                + (tuple(_arrow_fragment(q, (f["file_a"], f["file_b"])) for q in f["parts"]),)
                for f in r["fragments"]
            ),
        )
        for r in rows
    ]


def make_term_layout(docs: dict[str, bytes], old_from: int) -> dict[str, bytes]:
    """The documents of `docs`, three per submission directory
    (`docs/sNN/fK.py`); submissions from number `old_from` on are under
    `old/` (an earlier term, for `--old`)."""
    layout = {}
    for i, name in enumerate(sorted(docs)):
        sub = i // 3
        top = "old" if sub >= old_from else "docs"
        layout[f"{top}/s{sub:02}/f{i % 3}.py"] = docs[name]
    return layout


def batch_of(docs: dict[str, bytes]) -> pa.RecordBatch:
    names = sorted(docs)
    return pa.RecordBatch.from_pydict(
        {"doc_id": names, "bytes": [docs[n] for n in names]},
        schema=pa.schema([("doc_id", pa.string()), ("bytes", pa.binary())]),
    )


@pytest.fixture(scope="session")
def corpus(tmp_path_factory) -> tuple[Path, dict[str, bytes]]:
    root = tmp_path_factory.mktemp("corpus")
    docs = make_corpus(60, seed=7)
    write_corpus(root, docs)
    return root, docs
