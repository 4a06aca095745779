#!/usr/bin/env python3
"""How much of the archive of `bench/index/archive.py` a query under MOSS's
rule needs (BENCHMARKS.md, "Fingerprint index"): for N = 1..10 archived
terms, the documents `Index::related` loads for term 10, with `-m` 0 (no
limit) and the values given.

    cargo build -p bryo-cli -p bryo-index --example related
    bench/index/related.py --bryo target/debug/bryo --related target/debug/examples/related
"""

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from archive import DATA, TERMS, make_terms  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bryo", default="target/debug/bryo")
    ap.add_argument("--related", default="target/debug/examples/related")
    ap.add_argument("--work", default="/tmp/bryo-related", type=Path)
    ap.add_argument("--data", default=DATA, type=Path)
    ap.add_argument("-m", default="0,10", help="values of -m, comma-separated")
    args = ap.parse_args()
    bryo = str(Path(args.bryo).resolve())
    args.work.mkdir(parents=True, exist_ok=True)
    terms = make_terms(args.work, args.data)
    idx = args.work / "idx"
    if idx.exists():
        shutil.rmtree(idx)
    subprocess.run([bryo, "index", "create", str(idx), "-l", "cc"], check=True, capture_output=True)
    for n in range(1, TERMS):
        term = terms[n - 1]
        subprocess.run([bryo, "index", "add", str(idx), "--tag", term.name, str(term)], check=True, capture_output=True)
        for m in args.m.split(","):
            out = subprocess.run([args.related, str(idx), m, str(terms[-1])], check=True, capture_output=True, text=True).stdout
            print(f"terms {n} -m {m}: {out.strip()}", flush=True)


if __name__ == "__main__":
    main()
