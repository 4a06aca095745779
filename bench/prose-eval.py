#!/usr/bin/env python3
"""Score a tool's ranked pairs on the prose corpus built by prose-corpus.py.

usage: prose-eval.py [--truth OUT_DIR/truth.csv] [--format auto|bryo|sim|jscpd|csv]
                     [--json] [--name NAME] RESULT [RESULT...]

RESULT is a tool's output over OUT_DIR/docs (`bryo compare --format json`, `sim_text -p`,
or a CSV with two document columns and `similarity`, e.g. from
bench/adapters/copydetect_pairs.py or bench/adapters/jscpd_pairs.py). Documents are
matched by file name. Reports, for the planted pairs of truth.csv (all, verbatim, edited):
  found          planted pairs the tool scored above 0 (reported at all);
  above all      planted pairs scored strictly above every unrelated pair (the goal: a
                 reviewer reading the ranked list from the top meets them first);
  in top N       planted pairs among the N highest-ranked pairs (N = number planted).
"""

import argparse
import csv
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pairs_io import load_pairs  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results", nargs="+")
    ap.add_argument("--truth", default=None, help="truth.csv (default: next to the docs)")
    ap.add_argument("--format", default="auto", choices=["auto", "bryo", "sim", "jscpd", "csv"])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--name", default=None)
    args = ap.parse_args()

    scores = {}
    for path in args.results:
        try:
            pairs = load_pairs(path, args.format)
        except (OSError, ValueError, KeyError, json.JSONDecodeError) as e:
            sys.exit(f"prose-eval: cannot read {path}: {e}")
        for k, s in pairs.items():
            a, b = (os.path.basename(x) for x in k)
            if a == b:
                continue
            kk = frozenset((a, b))
            if s > scores.get(kk, -1.0):
                scores[kk] = s

    truth_path = args.truth
    if truth_path is None:
        sys.exit("prose-eval: give --truth OUT_DIR/truth.csv")
    planted = {}
    with open(truth_path, newline="") as f:
        for row in csv.DictReader(f):
            planted[frozenset((row["doc_a"], row["doc_b"]))] = row["kind"]

    unrelated = [s for k, s in scores.items() if k not in planted]
    max_unrelated = max(unrelated, default=0.0)
    ranked = sorted(scores.items(), key=lambda kv: -kv[1])
    top = {k for k, _ in ranked[: len(planted)]}

    res = {}
    for kind in ("all", "verbatim", "edited"):
        sel = [k for k, v in planted.items() if kind == "all" or v == kind]
        got = [scores.get(k, 0.0) for k in sel]
        res[kind] = {
            "planted": len(sel),
            "found": sum(1 for s in got if s > 0),
            "above_all_unrelated": sum(1 for s in got if s > max_unrelated),
            "in_top_n": sum(1 for k in sel if k in top),
        }
    res["pairs_reported"] = len(scores)
    res["max_unrelated_similarity"] = max_unrelated
    name = args.name or ", ".join(os.path.basename(p) for p in args.results)
    if args.json:
        json.dump({"tool": name, **res}, sys.stdout, indent=2)
        print()
        return
    print(f"Prose, {name}: {len(scores)} pairs reported; "
          f"highest unrelated similarity {max_unrelated:.3f}")
    print()
    print(f"| planted | n | found | above all unrelated | in top {len(planted)} |")
    print("|---|---:|---:|---:|---:|")
    for kind in ("all", "verbatim", "edited"):
        m = res[kind]
        print(f"| {kind} | {m['planted']} | {m['found']} | {m['above_all_unrelated']} "
              f"| {m['in_top_n']} |")


if __name__ == "__main__":
    main()
