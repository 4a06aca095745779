"""Read the ranked pair lists of bryo and its peers into one shape.

`load_pairs(path, fmt="auto")` returns a dict mapping an unordered pair of document paths
(a frozenset of two strings, as the tool printed them) to a similarity in 0..1.
Formats:
  bryo      `bryo compare --format json`: submissions[].name, pairs[] with a, b (indices)
            and similarity.
  sim       `sim_* -p` output: lines "F consists for x % of G material". The pair's score
            is the larger of the two directions, divided by 100.
  jscpd     jscpd's `jscpd-report.json` (reporter json): a pair's score is the lines of
            both files inside clones between them, over the lines of both files. File
            names are resolved against --root (default: the current directory).
  csv       a CSV with a header naming the two documents (a/b, left/right, doc_a/doc_b,
            file1/file2) and a `similarity` column, as printed by bench/node/dolos.mjs and
            bench/adapters/copydetect_pairs.py.
`match_ids(paths, ids)` maps tool paths onto dataset ids by path suffixes.
"""

import csv
import json
import os
import re

SIM_LINE = re.compile(r"^(.*) consists for (\d+(?:\.\d+)?) % of (.*) material$")
NAME_COLUMNS = [("a", "b"), ("left", "right"), ("doc_a", "doc_b"), ("file1", "file2")]


def _key(a, b):
    return frozenset((a, b)) if a != b else None


def _put(out, a, b, s):
    k = _key(a, b)
    if k is not None and s > out.get(k, -1.0):
        out[k] = s


def detect_format(path):
    with open(path, "rb") as f:
        head = f.read(4096).decode("utf-8", "replace").lstrip()
    if head.startswith("{"):
        if '"duplicates"' in head or '"statistics"' in head:
            return "jscpd"
        return "bryo"
    if head.startswith("File ") or " consists for " in head:
        return "sim"
    return "csv"


def load_bryo(path):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    names = [s["name"] for s in doc["submissions"]]
    out = {}
    for p in doc["pairs"]:
        _put(out, names[p["a"]], names[p["b"]], float(p["similarity"]))
    return out


def load_sim(path):
    out = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = SIM_LINE.match(line.rstrip("\n"))
            if m:
                _put(out, m.group(1), m.group(3), float(m.group(2)) / 100.0)
    return out


def _line_count(path, cache):
    if path not in cache:
        try:
            with open(path, "rb") as f:
                data = f.read()
            cache[path] = data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)
        except OSError:
            cache[path] = 0
    return cache[path]


def load_jscpd(path, root=None):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    root = root or os.getcwd()
    covered = {}  # (a, b) -> {a: set(lines), b: set(lines)}
    for d in doc.get("duplicates", []):
        fa, fb = d["firstFile"], d["secondFile"]
        a, b = fa["name"], fb["name"]
        if a == b:
            continue
        k = (a, b) if a < b else (b, a)
        c = covered.setdefault(k, {a: set(), b: set()})
        c[a].update(range(fa["start"], fa["end"] + 1))
        c[b].update(range(fb["start"], fb["end"] + 1))
    counts = {}
    out = {}
    for (a, b), c in covered.items():
        la = _line_count(os.path.join(root, a), counts)
        lb = _line_count(os.path.join(root, b), counts)
        if la + lb == 0:
            continue
        _put(out, a, b, min(1.0, (len(c[a]) + len(c[b])) / (la + lb)))
    return out


def load_csv(path):
    out = {}
    with open(path, newline="", encoding="utf-8") as f:
        r = csv.DictReader(f)
        cols = None
        for x, y in NAME_COLUMNS:
            if r.fieldnames and x in r.fieldnames and y in r.fieldnames:
                cols = (x, y)
                break
        if cols is None or "similarity" not in (r.fieldnames or []):
            raise ValueError(f"{path}: no document and similarity columns in {r.fieldnames}")
        for row in r:
            _put(out, row[cols[0]], row[cols[1]], float(row["similarity"]))
    return out


def load_pairs(path, fmt="auto", root=None):
    if fmt == "auto":
        fmt = detect_format(path)
    if fmt == "bryo":
        return load_bryo(path)
    if fmt == "sim":
        return load_sim(path)
    if fmt == "jscpd":
        return load_jscpd(path, root)
    if fmt == "csv":
        return load_csv(path)
    raise ValueError(f"unknown format {fmt}")


def match_ids(paths, ids):
    """Map each tool path to a dataset id, or None.

    A path matches the id that is its longest '/'-suffix (the tool saw absolute or longer
    paths); failing that, the one id of which the path is a '/'-suffix (the tool printed
    paths relative to a directory inside the dataset), if only one id ends so.
    """
    ids = set(ids)
    tails = {}
    for i in ids:
        parts = i.split("/")
        for k in range(1, len(parts)):
            t = "/".join(parts[k:])
            tails[t] = None if t in tails and tails[t] != i else i
    out = {}
    for p in paths:
        q = p.replace("\\", "/")
        parts = [x for x in q.split("/") if x not in ("", ".")]
        hit = None
        for i in range(len(parts)):
            cand = "/".join(parts[i:])
            if cand in ids:
                hit = cand
                break
        if hit is None:
            hit = tails.get("/".join(parts))
        out[p] = hit
    return out


def by_ids(pairs, ids):
    """Re-key a load_pairs() result by dataset ids; pairs outside the ids are dropped."""
    paths = {p for k in pairs for p in k}
    m = match_ids(paths, ids)
    out = {}
    for k, s in pairs.items():
        a, b = tuple(k)
        ia, ib = m[a], m[b]
        if ia is None or ib is None or ia == ib:
            continue
        kk = frozenset((ia, ib))
        if s > out.get(kk, -1.0):
            out[kk] = s
    return out


def unmatched(pairs, ids):
    paths = {p for k in pairs for p in k}
    return sorted(p for p, i in match_ids(paths, ids).items() if i is None)
