#!/usr/bin/env python3
"""Turn a jscpd JSON report into pair similarities, as CSV.

usage: jscpd_pairs.py REPORT.json --root DIR

jscpd reports clones (duplicated blocks), not pair scores. A pair's similarity here is the
lines of both files inside clones between them over the lines of both files. jscpd names
files relative to the directory it scanned: give that directory as --root; the CSV
(a,b,similarity) names files as ROOT/name.
"""

import argparse
import csv
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from pairs_io import load_jscpd  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("report")
    ap.add_argument("--root", required=True)
    args = ap.parse_args()
    pairs = load_jscpd(args.report, args.root)
    w = csv.writer(sys.stdout)
    w.writerow(["a", "b", "similarity"])
    for k, s in sorted(pairs.items(), key=lambda kv: -kv[1]):
        a, b = sorted(k)
        w.writerow([os.path.join(args.root, a), os.path.join(args.root, b), f"{s:.6f}"])


if __name__ == "__main__":
    main()
