#!/usr/bin/env python3
"""Build a prose corpus with planted copies, from the manual pages on this machine.

usage: prose-corpus.py OUT_DIR [--seed N] [--docs 2000] [--size 24000] [--pairs 100]

Writes OUT_DIR/docs/doc-NNNN.txt (English text of about --size bytes each) and
OUT_DIR/truth.csv (doc_a,doc_b,kind): for each of --pairs planted pairs, a passage of
1-3 KB from doc_a was copied into doc_b, either verbatim (kind "verbatim") or lightly
edited (kind "edited": one word in twelve replaced by a random corpus word, one word in
ten re-cased, and the lines re-wrapped to another width). Each document takes part in at
most one planted pair.

The text comes from the English manual pages (/usr/share/man/man*/*.gz), turned into plain
text by stripping the troff markup (requests, font and character escapes) in Python, which
is fast and needs no groff. To keep unrelated documents unrelated, text (in chunks of up
to 30 lines) that is not mostly words, repeats itself, or shares more than a fifth of its
word 5-grams with text kept before is dropped. If the man pages run out, other documentation on the machine is used as well (info manuals, READMEs,
changelogs, .md/.rst/.pod/.txt files under /usr/share, /usr/lib, /usr/local and the Cargo
registry sources). The same seed on the same machine, with the same packages installed,
gives the same corpus.
"""

import argparse
import csv
import gzip
import os
import random
import re
import sys
import textwrap
from pathlib import Path

ESCAPES = [
    (re.compile(r"\\f(\[[^\]]*\]|\(..|.)"), ""),  # font changes
    (re.compile(r"\\s[+-]?\d+"), ""),  # size changes
    (re.compile(r"\\\*(\[[^\]]*\]|\(..|.)"), ""),  # string interpolation
    (re.compile(r"\\\((em|en)"), "--"),
    (re.compile(r"\\\((lq|rq|dq)"), '"'),
    (re.compile(r"\\\((oq|cq|aq)"), "'"),
    (re.compile(r"\\\((bu|ci)"), "*"),
    (re.compile(r"\\\((co)"), "(c)"),
    (re.compile(r"\\\(..|\\\[[^\]]*\]"), ""),  # other special characters
    (re.compile(r"\\[-]"), "-"),
    (re.compile(r"\\e"), "\\\\"),
    (re.compile(r"\\[&|^%:0/,)c]"), ""),
    (re.compile(r"\\ "), " "),
    (re.compile(r"\\[nwhvlLxXkzoNDbZ](\[[^\]]*\]|\(..|'[^']*'|.)?"), ""),
    (re.compile(r"\\(.)"), r"\1"),
]
# Requests whose arguments are running text.
TEXT_REQUESTS = {
    "SH", "SS", "B", "I", "BI", "BR", "IB", "IR", "RB", "RI", "SM", "SB", "IP", "TP", "Nm",
    "Nd", "Ar", "Fl", "Em", "Sy", "Pa", "Dl", "Xr", "It", "Sh", "Ss", "Op", "Cm", "Li", "Va",
    "Ql", "Dq", "Sq", "Pq", "Ev", "Fn", "Fa", "Ft", "Cd", "Ic", "UR", "MT", "OP",
}
PARAGRAPH_REQUESTS = {"PP", "LP", "P", "SH", "SS", "TP", "IP", "Pp", "Sh", "Ss", "sp", "br"}
WORD = re.compile(r"[A-Za-z]{3,}")


def strip_troff(src):
    """Plain text of a troff man page: a list of paragraphs, each a list of lines."""
    paras, cur = [], []
    skip_block = 0
    for raw in src.splitlines():
        line = raw.rstrip()
        if skip_block:
            if line.startswith(".."):
                skip_block = 0
            continue
        if line.startswith(('.\\"', "'\\\"", '\\"')):
            continue
        if line.startswith((".", "'")):
            parts = line[1:].strip().split(None, 1)
            if not parts:
                continue
            req = parts[0]
            if req in ("de", "de1", "am", "ig"):
                skip_block = 1
                continue
            if req in PARAGRAPH_REQUESTS and cur:
                paras.append(cur)
                cur = []
            if req in TEXT_REQUESTS and len(parts) > 1:
                arg = parts[1].replace('"', "")
                line = arg
            else:
                continue
        for pat, rep in ESCAPES:
            line = pat.sub(rep, line)
        line = " ".join(line.split())
        if not line:
            if cur:
                paras.append(cur)
                cur = []
            continue
        cur.append(line)
    if cur:
        paras.append(cur)
    return paras


def man_pages():
    roots = sorted(Path("/usr/share/man").glob("man[1-9]*"))
    for root in roots:
        for path in sorted(root.glob("*.gz")):
            try:
                with gzip.open(path, "rt", encoding="utf-8", errors="replace") as f:
                    src = f.read()
            except (OSError, EOFError):
                continue
            if src.lstrip().startswith(".so ") and len(src) < 200:
                continue  # a link to another page
            yield str(path), strip_troff(src)


DOC_ROOTS = ["/usr/share/info", "/usr/share/doc", "/usr/share", "/usr/lib", "/usr/local",
             os.path.expanduser("~/.cargo/registry/src")]
DOC_NAMES = re.compile(
    r"(\.(txt|md|rst|pod|info)|^(readme|news|faq|changelog|changes|history)[^/]*)(\.gz)?$",
    re.IGNORECASE)


def doc_files():
    """Other English documentation on the machine: info manuals, READMEs, changelogs, ..."""
    paths = set()
    for root in DOC_ROOTS:
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if d not in ("man", "locale", "i18n"))
            for name in filenames:
                if DOC_NAMES.search(name):
                    paths.add(os.path.join(dirpath, name))
    for path in sorted(paths):
        try:
            if os.path.islink(path) or os.path.getsize(path) < 2048:
                continue
            opener = gzip.open if path.endswith(".gz") else open
            with opener(path, "rt", encoding="utf-8", errors="strict") as f:
                text = f.read(2_000_000)
        except (OSError, UnicodeDecodeError, EOFError):
            continue
        text = text.replace("\x1f", "")
        paras = []
        for p in re.split(r"\n\s*\n", text):
            lines = [" ".join(x.split()) for x in p.splitlines() if x.strip()]
            lines = [x for x in lines if not x.startswith(("=", "```", "~~~", "..", "#"))]
            if lines:
                paras.append(lines)
        yield path, paras


RUN_WORD = re.compile(r"\w+")


def clean_paragraphs(sources, seen, runs_seen=None, run=0):
    """Paragraphs (as re-wrapped text) from sources that share little with earlier text.

    Paragraphs are re-wrapped and cut into chunks of at most 30 lines. Chunks that are not
    mostly words (under half of their tokens words of three letters or more, or under 3/4
    letters and spaces) are dropped, so are chunks that repeat themselves (under half of
    their word 5-grams distinct) and chunks of which more than a fifth of the word 5-grams
    (case folded) occurred in text kept before; the rest is kept and its 5-grams
    remembered. This removes licence blocks, templated pages (thousands of generated
    command references repeat the same sentences) and pages installed under several names,
    so that documents without a planted passage share no more than common phrases.

    With `run` = N > 0, a chunk is also dropped when any run of N words (case folded, all
    word tokens) occurred in text kept before (`runs_seen`), so that no two documents
    share a passage of N words unless one was planted.
    """
    for _, paras in sources:
        for para in paras:
            text = " ".join(para).strip()
            lines = textwrap.wrap(text, width=78, break_long_words=False, break_on_hyphens=False)
            for i in range(0, len(lines), 30):  # at most about 2.4 KB a paragraph
                chunk = "\n".join(lines[i:i + 30])
                words = WORD.findall(chunk.lower())
                tokens = chunk.split()
                if len(words) < 6 or len(words) * 2 < len(tokens):
                    continue  # not prose: tables, code, encodings test data, ...
                if sum(c.isalpha() or c in " \n" for c in chunk) * 4 < len(chunk) * 3:
                    continue
                seq = [hash(tuple(words[j:j + 5])) for j in range(len(words) - 4)]
                grams = set(seq)
                if len(grams) * 2 < len(seq):
                    continue  # repeats itself: lists, tables of names
                if sum(1 for g in grams if g in seen) * 5 > len(grams):
                    continue
                if run:
                    tokens_all = RUN_WORD.findall(chunk.lower())
                    runs = {" ".join(tokens_all[j:j + run]) for j in range(len(tokens_all) - run + 1)}
                    if not runs.isdisjoint(runs_seen):
                        continue
                    runs_seen.update(runs)
                seen.update(grams)
                yield chunk


def edit_passage(passage, rng, vocab):
    words = passage.split()
    out = []
    for i, w in enumerate(words):
        if rng.randrange(12) == 0:
            w = rng.choice(vocab)
        elif rng.randrange(10) == 0:
            w = rng.choice([w.upper(), w.lower(), w.capitalize()])
        out.append(w)
    width = rng.randint(50, 100)
    return textwrap.fill(" ".join(out), width=width, break_long_words=False, break_on_hyphens=False)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out_dir")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--docs", type=int, default=2000)
    ap.add_argument("--size", type=int, default=24000, help="bytes per document, about")
    ap.add_argument("--pairs", type=int, default=100)
    ap.add_argument("--distinct-runs", type=int, default=0, metavar="N",
                    help="also drop text that shares any run of N words with text kept before, "
                         "so unrelated documents share no passage of N words (0 = off)")
    args = ap.parse_args()
    if args.pairs * 2 > args.docs:
        ap.error("--pairs must be at most half of --docs")
    rng = random.Random(args.seed)

    # Sources in a seeded order, so documents mix unrelated pages.
    pages = list(man_pages())
    rng.shuffle(pages)
    seen = set()
    runs_seen = set()
    paras = clean_paragraphs(pages, seen, runs_seen, args.distinct_runs)
    extra = None

    docs = []
    cur, cur_len = [], 0
    while len(docs) < args.docs:
        p = next(paras, None)
        if p is None:
            if extra is None:
                extras = list(doc_files())
                rng.shuffle(extras)
                extra = clean_paragraphs(extras, seen, runs_seen, args.distinct_runs)
                paras = extra
                continue
            sys.exit(f"prose-corpus: ran out of text after {len(docs)} documents")
        cur.append(p)
        cur_len += len(p) + 2
        if cur_len >= args.size:
            docs.append(cur)
            cur, cur_len = [], 0

    vocab = sorted({w for d in docs[:200] for p in d for w in WORD.findall(p)})
    names = [f"doc-{i:04d}.txt" for i in range(len(docs))]
    chosen = rng.sample(range(len(docs)), 2 * args.pairs)
    truth = []
    for k in range(args.pairs):
        x, y = chosen[2 * k], chosen[2 * k + 1]
        kind = "verbatim" if k % 2 == 0 else "edited"
        # A passage of whole paragraphs of X, 1-3 KB, cut to whole lines.
        target = rng.randint(1000, 3000)
        start = rng.randrange(len(docs[x]))
        lines = []
        for p in docs[x][start:] + docs[x][:start]:
            for line in p.split("\n"):
                if sum(len(s) + 1 for s in lines) >= target:
                    break
                lines.append(line)
            else:
                lines.append("")
                continue
            break
        passage = "\n".join(lines).strip("\n")
        if kind == "edited":
            passage = edit_passage(passage, rng, vocab)
        at = rng.randint(1, len(docs[y]) - 1)
        docs[y].insert(at, passage)
        truth.append((names[x], names[y], kind))

    out = Path(args.out_dir)
    (out / "docs").mkdir(parents=True, exist_ok=True)
    for name, d in zip(names, docs):
        (out / "docs" / name).write_text("\n\n".join(d) + "\n", encoding="utf-8")
    with open(out / "truth.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["doc_a", "doc_b", "kind"])
        w.writerows(truth)
    total = sum(os.path.getsize(out / "docs" / n) for n in names)
    print(
        f"prose-corpus: {len(names)} documents, {total / 1e6:.1f} MB in {out / 'docs'}; "
        f"{len(truth)} planted pairs in {out / 'truth.csv'}",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
