#!/usr/bin/env python3
"""The archive benchmark of `bryo index` (BENCHMARKS.md, "Fingerprint index").

Builds eleven terms of a 300-student class from POJ-104 (C++): each term
takes 181 programs of its own and 119 disguised copies of programs of
earlier terms (identifiers renamed, comments and blank lines added,
indentation changed), so copies are planted across terms. Terms 0..9 are
the archive, term 10 the new one. For N = 1..10 archived terms it adds term
N-1 to an index (timed: `index add` throughput and index size), then times

    bryo compare -l cc -n PAIRS --format json --against IDX term10
    bryo compare -l cc -n PAIRS --format json --against IDX --in-memory term10
    bryo compare -l cc -n PAIRS --format json --old term00 ... --old termNN term10

(best of --runs; the first reads the index in part, the second loads every
archived submission), checks that all give the same result (the archived side
is named `path [TAG]`; the marks and `options.old` are removed before
comparing) and prints a markdown table.

    bench/index/archive.py --bryo target/release/bryo --work /tmp/bryo-archive
"""

import argparse
import json
import random
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "datasets" / "poj104"
TERMS, CLASS, OWN = 11, 300, 181


def disguise(text: str, rng: random.Random) -> str:
    """A copy as a student hides it: identifiers renamed, comments and
    blank lines added, indentation changed."""
    names = {"i": "idx", "j": "jdx", "n": "count", "a": "arr", "s": "str1", "sum": "total", "k": "kk"}
    for old, new in names.items():
        if rng.random() < 0.7:
            text = re.sub(rf"\b{old}\b", new, text)
    lines = []
    for line in text.splitlines():
        if rng.random() < 0.05:
            lines.append("// " + rng.choice(["check", "loop", "input", "output", "edge case"]))
        if rng.random() < 0.03:
            lines.append("")
        lines.append(line.replace("    ", "\t"))
    return "\n".join(lines) + "\n"


def make_terms(work: Path, data: Path) -> list:
    files = sorted(data.glob("problem-*/*.cpp"))
    if len(files) < TERMS * OWN:
        sys.exit(f"{data}: {len(files)} programs, need {TERMS * OWN}")
    rng = random.Random(1)
    rng.shuffle(files)
    terms = []
    for t in range(TERMS):
        d = work / f"term{t:02}"
        if d.exists():
            shutil.rmtree(d)
        d.mkdir(parents=True)
        for i, f in enumerate(files[t * OWN:(t + 1) * OWN]):
            shutil.copy(f, d / f"s{i:03}.cpp")
        for i in range(CLASS - OWN):
            if t == 0:
                src = files[rng.randrange(OWN)]
            else:
                src = files[rng.randrange(t * OWN)]
            text = src.read_text(encoding="latin-1")
            (d / f"c{i:03}.cpp").write_text(disguise(text, rng), encoding="latin-1")
        terms.append(d)
    return terms


def timed(cmd: list, runs: int) -> tuple:
    best, out = None, None
    for _ in range(runs):
        start = time.perf_counter()
        p = subprocess.run(cmd, capture_output=True, check=True)
        elapsed = time.perf_counter() - start
        best = elapsed if best is None else min(best, elapsed)
        out = p.stdout
    return best, out


def unmarked(raw: bytes) -> dict:
    report = json.loads(raw)
    report["options"]["old"] = None
    text = re.sub(r" \[term\d\d\]", "", json.dumps(report, sort_keys=True))
    return json.loads(text)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bryo", default="target/release/bryo")
    ap.add_argument("--work", default="/tmp/bryo-archive", type=Path)
    ap.add_argument("--data", default=DATA, type=Path)
    ap.add_argument("--runs", default=3, type=int)
    ap.add_argument("--pairs", default="250", help="-n for both compares (0: every pair)")
    args = ap.parse_args()
    bryo = str(Path(args.bryo).resolve())
    args.work.mkdir(parents=True, exist_ok=True)
    terms = make_terms(args.work, args.data)
    idx = args.work / "idx"
    if idx.exists():
        shutil.rmtree(idx)
    subprocess.run([bryo, "index", "create", str(idx), "-l", "cc"], check=True, capture_output=True)
    new = str(terms[-1])
    base = [bryo, "compare", "-l", "cc", "-n", args.pairs, "--format", "json"]
    print("| archived terms | archived programs | `index add` of the term (s) | index size (MB) | `--against` (s) | `--against --in-memory` (s) | `--old` (s) | pairs | same result |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for n in range(1, TERMS):
        term = terms[n - 1]
        start = time.perf_counter()
        subprocess.run([bryo, "index", "add", str(idx), "--tag", term.name, str(term)], check=True, capture_output=True)
        add = time.perf_counter() - start
        size = sum(f.stat().st_size for f in idx.rglob("*") if f.is_file()) / 1e6
        t_against, out_against = timed(base + ["--against", str(idx), new], args.runs)
        t_whole, out_whole = timed(base + ["--against", str(idx), "--in-memory", new], args.runs)
        old = []
        for t in terms[:n]:
            old += ["--old", str(t)]
        t_old, out_old = timed(base + old + [new], args.runs)
        same = unmarked(out_against) == unmarked(out_old) and out_against == out_whole
        pairs = len(json.loads(out_against)["pairs"])
        print(f"| {n} | {n * CLASS} | {add:.2f} | {size:.1f} | {t_against:.3f} | {t_whole:.3f} | {t_old:.3f} | {pairs} | {'yes' if same else 'NO'} |", flush=True)


if __name__ == "__main__":
    main()
