#!/usr/bin/env python3
"""Make a corpus N times the size of a source tree by copying it with light edits.

usage: bench/scale/grow.py SRC DEST [--times N] [--seed S] [--ext .py]

DEST/copy00 is SRC unchanged (files with the extension only); DEST/copy01 ...
copy{N-1} are edited copies: in every file a few lines are deleted, a few comment
lines are inserted and one identifier is renamed throughout, so that each copy is
a known near-duplicate of its original (as a class where everyone copied) and no
two copies are byte-identical. Deterministic for a given seed. Prints the number of
files and bytes written.
"""
import argparse
import os
import random
import re
import sys

IDENT = re.compile(rb"\b[A-Za-z_][A-Za-z0-9_]{3,}\b")


def edit(data: bytes, rng: random.Random, copy: int) -> bytes:
    lines = data.split(b"\n")
    n = len(lines)
    for _ in range(min(3, n // 20)):
        del lines[rng.randrange(len(lines))]
    for _ in range(max(1, n // 50)):
        at = rng.randrange(len(lines) + 1)
        indent = re.match(rb"[ \t]*", lines[at - 1] if at else b"").group(0)
        lines.insert(at, indent + b"# edited in copy %d" % copy)
    text = b"\n".join(lines)
    names = IDENT.findall(text)
    if names:
        name = rng.choice(names)
        text = re.sub(rb"\b" + re.escape(name) + rb"\b", name + b"_%d" % copy, text)
    return text


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("src")
    ap.add_argument("dest")
    ap.add_argument("--times", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--ext", default=".py")
    args = ap.parse_args()
    files = []
    for root, dirs, names in os.walk(args.src):
        dirs[:] = sorted(d for d in dirs if d != "site-packages" and not d.startswith("."))
        files += [os.path.join(root, f) for f in sorted(names) if f.endswith(args.ext)]
    if not files:
        print(f"grow.py: no {args.ext} files under {args.src}", file=sys.stderr)
        return 2
    count = size = 0
    for copy in range(args.times):
        rng = random.Random(args.seed * 1_000_003 + copy)
        for path in files:
            rel = os.path.relpath(path, args.src)
            out = os.path.join(args.dest, f"copy{copy:02d}", rel)
            os.makedirs(os.path.dirname(out), exist_ok=True)
            with open(path, "rb") as f:
                data = f.read()
            if copy:
                data = edit(data, rng, copy)
            with open(out, "wb") as f:
                f.write(data)
            count += 1
            size += len(data)
    print(f"{count} files, {size / 1e6:.1f} MB in {args.dest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
