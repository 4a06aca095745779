#!/usr/bin/env python3
"""ROC AUC and average precision of a tool's pair similarities on IR-Plag.

usage: irplag-eval.py [--format auto|bryo|sim|jscpd|csv] [--root DIR] [--dataset DIR]
                      [--all-pairs] [--json] [--name NAME] [PREFIX=]RESULT...

RESULT is a tool's output: `bryo compare --format json`, `sim_java -p`, a jscpd JSON
report, or a CSV with two document columns and `similarity` (bench/node/dolos.mjs,
bench/adapters/copydetect_pairs.py). Several RESULTs (e.g. one run per case) are merged,
keeping a pair's highest score. Tool paths are matched to the dataset's ids by path
suffixes, so absolute or relative paths both work; file names repeat across cases, so for
a tool that names files relative to a case directory give PREFIX=RESULT (e.g.
case-01=out-01.json) and PREFIX/ is put before its relative paths.

Labels come from the dataset's pairs_detailed.csv (the original of each case against its
355 plagiarised copies and 105 independent solutions; --all-pairs uses
pairs_all_within_case.csv, every pair inside each case). A labelled pair missing from the
tool's output gets similarity 0. Prints AUC and AP overall and per plagiarism level
(positives of that level against all negatives), as markdown or (--json) JSON.
"""

import argparse
import csv
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from metrics import average_precision, roc_auc  # noqa: E402
from pairs_io import by_ids, load_pairs, unmatched  # noqa: E402

LEVELS = ["L1", "L2", "L3", "L4", "L5", "L6"]


def default_dataset():
    env = os.environ.get("BRYO_IRPLAG")
    if env:
        return Path(env)
    repo = Path(__file__).resolve().parent.parent
    for cand in (repo.parent / "shared" / "datasets" / "irplag",
                 Path("/work/shared/datasets/irplag")):
        if cand.is_dir():
            return cand
    return repo.parent / "shared" / "datasets" / "irplag"


def read_labels(dataset, all_pairs):
    rows = []
    name = "pairs_all_within_case.csv" if all_pairs else "pairs_detailed.csv"
    with open(dataset / name, newline="") as f:
        for row in csv.DictReader(f):
            if all_pairs:
                levels = row.get("levels") or ""
                level = levels if row["label"] == "1" and "original" in row["relation"] else ""
            else:
                level = row.get("level") or ""
            rows.append((row["doc_a"], row["doc_b"], int(row["label"]), level))
    return rows


def evaluate(scores, rows):
    def metric(sel):
        y = [r[2] for r in sel]
        s = [scores.get(frozenset((r[0], r[1])), 0.0) for r in sel]
        return {"auc": roc_auc(y, s), "ap": average_precision(y, s),
                "pos": sum(y), "neg": len(y) - sum(y)}

    res = {"overall": metric(rows)}
    negs = [r for r in rows if r[2] == 0]
    for lv in LEVELS:
        pos = [r for r in rows if r[2] == 1 and r[3] == lv]
        if pos:
            res[lv] = metric(pos + negs)
    found = sum(1 for r in rows if scores.get(frozenset((r[0], r[1])), 0.0) > 0)
    res["coverage"] = {"labelled": len(rows), "with_score": found}
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results", nargs="+")
    ap.add_argument("--format", default="auto", choices=["auto", "bryo", "sim", "jscpd", "csv"])
    ap.add_argument("--root", help="directory jscpd was run from (for its relative names)")
    ap.add_argument("--dataset", type=Path, default=None)
    ap.add_argument("--all-pairs", action="store_true")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--name", default=None, help="tool name for the report")
    args = ap.parse_args()
    dataset = args.dataset or default_dataset()
    if not (dataset / "pairs_detailed.csv").is_file():
        sys.exit(f"irplag-eval: no pairs_detailed.csv in {dataset} (use --dataset)")
    rows = read_labels(dataset, args.all_pairs)
    ids = {r[0] for r in rows} | {r[1] for r in rows}

    scores = {}
    for arg in args.results:
        prefix, path = "", arg
        if "=" in arg and not os.path.exists(arg):
            prefix, path = arg.split("=", 1)
        try:
            pairs = load_pairs(path, args.format, args.root)
            if prefix:
                pairs = {frozenset(x if os.path.isabs(x) else f"{prefix}/{x}" for x in k): v
                         for k, v in pairs.items()}
        except (OSError, ValueError, KeyError, json.JSONDecodeError) as e:
            sys.exit(f"irplag-eval: cannot read {path}: {e}")
        lost = unmatched(pairs, ids)
        if lost:
            print(f"irplag-eval: warning: {len(lost)} paths of {path} match no dataset id "
                  f"(or several), e.g. {lost[0]}", file=sys.stderr)
        for k, s in by_ids(pairs, ids).items():
            if s > scores.get(k, -1.0):
                scores[k] = s
    if not scores:
        print("irplag-eval: warning: no pair of the output matched the dataset's paths",
              file=sys.stderr)
    res = evaluate(scores, rows)
    name = args.name or ", ".join(os.path.basename(p) for p in args.results)
    if args.json:
        json.dump({"tool": name, **res}, sys.stdout, indent=2)
        print()
        return
    cov = res["coverage"]
    print(f"IR-Plag, {name}: {cov['with_score']} of {cov['labelled']} labelled pairs scored > 0")
    print()
    print("| set | positives | negatives | ROC AUC | AP |")
    print("|---|---:|---:|---:|---:|")
    for k in ["overall"] + LEVELS:
        if k in res:
            m = res[k]
            print(f"| {k} | {m['pos']} | {m['neg']} | {m['auc']:.3f} | {m['ap']:.3f} |")


if __name__ == "__main__":
    main()
