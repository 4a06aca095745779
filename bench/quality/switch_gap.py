#!/usr/bin/env python3
"""The `switch` attack measured only where it changes something.

Every POJ-104 solution that `attacks.switch_chains` changes (a `switch` that
means an `if` chain, or a chain of `x == v` tests on an integer) gets one
`switch` copy; the class is every solution of those problems plus the copies.
For each bryo binary given, prints the mean similarity of a copy to its
original, of an original to the other solutions of its problem, the gap
between them (as JPlag's papers report it), the AUC of copies against those
independents, and the weakest copies.

    python3 bench/quality/switch_gap.py --datasets ../shared/datasets \\
        --bryo target/release/bryo [--bryo OTHER ...]
"""

import argparse
import json
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import attacks  # noqa: E402
import disguise  # noqa: E402


def build(datasets, out):
    """Write the class under `out`; return [(original, copy)] paths."""
    changed = []
    for f in sorted((datasets / "poj104").glob("problem-*/*.cpp")):
        src = f.read_bytes().decode("latin-1")
        tokens = disguise.tokenize(src)
        if attacks.switch_chains(tokens, None, "c") != tokens:
            changed.append((f, src))
    pairs = []
    for problem in sorted({f.parent.name for f, _ in changed}):
        (out / problem).mkdir(parents=True)
        for g in (datasets / "poj104" / problem).glob("*.cpp"):
            shutil.copy(g, out / problem)
    for f, src in changed:
        copy = out / f.parent.name / f"{f.stem}-switch.cpp"
        copy.write_text(attacks.attack(src, "switch", "c", random.Random(1)))
        pairs.append((out / f.parent.name / f.name, copy))
    return pairs


def similarities(bryo, out):
    run = subprocess.run([bryo, "compare", "-l", "cc", "-n", "0", "--format", "json", str(out)],
                         capture_output=True, check=True)
    report = json.loads(run.stdout)
    names = [s["name"] for s in report["submissions"]]
    return {frozenset((names[p["a"]], names[p["b"]])): p["similarity"] for p in report["pairs"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--datasets", type=Path, required=True)
    ap.add_argument("--bryo", action="append", required=True, help="a bryo binary (repeatable)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bryo-switch-") as tmp:
        out = Path(tmp) / "class"
        pairs = build(args.datasets.resolve(), out)
        print(f"{len(pairs)} solutions changed by the switch attack, "
              f"in {len({o.parent for o, _ in pairs})} problems")
        for bryo in args.bryo:
            sim = similarities(bryo, out)
            pos, neg, weakest = [], [], []
            for original, copy in pairs:
                s = sim.get(frozenset((str(original), str(copy))), 0.0)
                pos.append(s)
                weakest.append((s, original.parent.name + "/" + original.name))
                for other in original.parent.glob("*.cpp"):
                    if other != original and not other.stem.endswith("-switch"):
                        neg.append(sim.get(frozenset((str(original), str(other))), 0.0))
            auc = sum((x > y) + 0.5 * (x == y) for x in pos for y in neg) / (len(pos) * len(neg))
            mp, mn = 100 * sum(pos) / len(pos), 100 * sum(neg) / len(neg)
            print(f"{bryo}: copies {mp:.1f}, independents {mn:.1f}, gap {mp - mn:.1f}, "
                  f"AUC {auc:.3f}; weakest: "
                  + ", ".join(f"{n} {s:.2f}" for s, n in sorted(weakest)[:3]))


if __name__ == "__main__":
    main()
