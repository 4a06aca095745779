#!/usr/bin/env python3
"""Accuracy of bryo (and its peers) on several labelled sets, in one command.

usage: bench/quality/run.py [--bryo PATH] [--bryo-args "ARGS"] [--peers] [--fast]
                            [--sets irplag,cheers1,...] [--datasets DIR] [--cache DIR]
                            [--seed N] [--budget SECONDS] [--json FILE]

Each set is run as one class: `bryo compare -l LANG -n 0 --format json [-d] ARGS PATHS`,
every labelled pair scored by pairs[].similarity (a pair bryo does not list scores 0).
Prints a markdown table (one row per set and level, ROC AUC / average precision /
R-precision / best F1 per tool); --json writes the same numbers for machines. See the
"Accuracy" section of bench/README.md for the sets and their labels.
"""

import argparse
import csv
import gzip
import hashlib
import importlib.util
import json
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
BENCH = HERE.parent
REPO = BENCH.parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(HERE))

import attacks  # noqa: E402
import disguise  # noqa: E402
from metrics import ranking_metrics  # noqa: E402
from pairs_io import load_bryo, load_csv  # noqa: E402

ALL_SETS = ("irplag", "cheers1", "cheers2", "poj104", "prose-short", "prose-long",
            "attack-poj", "attack-java")
FAST_SETS = ("irplag", "cheers1", "poj104", "prose-short", "prose-long")
FAST_LIMITS = {"cheers1_variants": 12, "poj_problems": 4, "poj_per_level": 4,
               "poj_groups": (4, 11), "short_docs": 60, "short_per_kind": 5,
               "long_docs": 15, "long_per_kind": 2, "attack_problems": 4,
               "attack_per_problem": 5}
FULL_LIMITS = {"cheers1_variants": None, "poj_problems": None, "poj_per_level": 15,
               "poj_groups": (3, 5, 6, 8, 10, 11, 12, 12), "short_docs": 400,
               "short_per_kind": 30, "long_docs": 100, "long_per_kind": 10,
               "attack_problems": None, "attack_per_problem": 5}


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def pair(a, b):
    return frozenset((a, b))


# ---------------------------------------------------------------------------------------
# Sets. Each builder returns a dict:
#   name, lang (bryo), dolos_lang, cd_ext (copydetect), dirmode,
#   bryo_paths: paths given to bryo; bryo_ids: {abs path of a submission: id}
#   peer_paths: paths given to the peers; peer_ids: {abs path of a file: id}
#   items: list of ids; class_pos: set of positive pairs (for implicit negatives)
#   rows: [{"name", "pos": [pairs], "neg": [pairs] or None (= every other pair)}]


def set_irplag(ds, cache, limits, rng):
    root = ds / "irplag"
    base = root / "IR-Plag-Dataset"
    ids = {}
    for p in sorted(base.rglob("*.java")):
        ids[str(p)] = str(p.relative_to(root))
    rows_all, det = [], []
    with open(root / "pairs_all_within_case.csv", newline="") as f:
        rows_all = list(csv.DictReader(f))
    with open(root / "pairs_detailed.csv", newline="") as f:
        det = list(csv.DictReader(f))
    pos = [pair(r["doc_a"], r["doc_b"]) for r in rows_all if r["label"] == "1"]
    neg = [pair(r["doc_a"], r["doc_b"]) for r in rows_all if r["label"] == "0"]
    rows = [{"name": "all pairs within a case", "pos": pos, "neg": neg},
            {"name": "original vs others (pairs.csv)",
             "pos": [pair(r["doc_a"], r["doc_b"]) for r in det if r["label"] == "1"],
             "neg": [pair(r["doc_a"], r["doc_b"]) for r in det if r["label"] == "0"]}]
    for lv in disguise.LEVELS:
        rows.append({"name": f"{lv} (original vs copy; all negatives)",
                     "pos": [pair(r["doc_a"], r["doc_b"]) for r in det if r["level"] == lv],
                     "neg": neg})
    return {"lang": "java", "dolos_lang": "java", "cd_ext": "java", "dirmode": False,
            "bryo_paths": [str(base)], "bryo_ids": ids, "peer_paths": [str(base)],
            "peer_ids": ids, "items": sorted(ids.values()), "class_pos": set(pos),
            "rows": rows,
            "note": "labelled pairs only (pairs across cases are not scored)"}


def concat_submissions(subs, out_root, ext):
    """One file per submission (its files in path order) for the peers, which have no
    directory mode. subs: {id: directory}. Returns {abs path of the file: id}."""
    ids = {}
    for sid, d in subs.items():
        dst = out_root / (sid + "." + ext)
        ids[str(dst)] = sid
        if dst.exists():
            continue
        dst.parent.mkdir(parents=True, exist_ok=True)
        parts = []
        for f in sorted(Path(d).rglob("*." + ext)):
            parts.append(f.read_text(encoding="utf-8", errors="replace"))
        dst.write_text("\n".join(parts), encoding="utf-8")
    return ids


def set_cheers(ds, cache, limits, rng, which):
    root = ds / "cheers" / which
    bases = sorted((root / "Base Programs").iterdir(), key=lambda p: p.name)
    bases = [b for b in bases if b.is_dir()]
    subs, group, level = {}, {}, {}
    for b in bases:
        sid = f"Base Programs/{b.name}"
        subs[sid] = b
        group[sid] = b.name
    parents = []
    vroot = root / "Variant Programs"
    for d in sorted(vroot.iterdir(), key=lambda p: p.name):
        if d.is_dir():
            parents.append(d)
    for par in parents:
        base_name, _, lv = par.name.partition("-")
        vs = sorted((v for v in par.iterdir() if v.is_dir()), key=lambda p: p.name)
        if which == "set1":
            # set1: Variant Programs/<p>/<p>-<n>
            base_name, lv = par.name, ""
            if limits["cheers1_variants"]:
                vs = vs[:limits["cheers1_variants"]]
        for v in vs:
            sid = f"Variant Programs/{par.name}/{v.name}"
            subs[sid] = v
            group[sid] = base_name
            level[sid] = lv
    items = sorted(subs)
    # bryo: -d with every folder whose entries are submissions
    bryo_paths = [str(root / "Base Programs")] + [str(p) for p in parents]
    bryo_ids = {str(Path(subs[s])): s for s in items}
    if limits["cheers1_variants"] and which == "set1":
        # a subset: copy the chosen submission folders into a staging tree
        stage = cache / "stage" / f"cheers-{which}-fast"
        bryo_paths, bryo_ids = [], {}
        for s in items:
            top = s.split("/")[0] if s.startswith("Base") else "/".join(s.split("/")[:2])
            dst = stage / top / Path(s).name
            dst.parent.mkdir(parents=True, exist_ok=True)
            if not dst.exists():
                shutil.copytree(subs[s], dst)  # bryo does not follow symbolic links
            bryo_ids[str(dst)] = s
            if str(dst.parent) not in bryo_paths:
                bryo_paths.append(str(dst.parent))
    class_pos = set()
    by_group = {}
    for s in items:
        by_group.setdefault(group[s], []).append(s)
    for members in by_group.values():
        for i in range(len(members)):
            for j in range(i + 1, len(members)):
                class_pos.add(pair(members[i], members[j]))
    rows = [{"name": "all (same base = positive)", "pos": sorted(class_pos, key=sorted),
             "neg": None}]
    if which == "set2":
        for lv in sorted({level[s] for s in level}):
            pos = [pair(s, f"Base Programs/{group[s]}") for s in items
                   if level.get(s) == lv]
            rows.append({"name": f"L{lv} variant vs its base; all negatives", "pos": pos,
                         "neg": None})
    else:
        rows.append({"name": "variant vs its base; all negatives",
                     "pos": [pair(s, f"Base Programs/{group[s]}") for s in level],
                     "neg": None})
    peer_ids = concat_submissions(
        subs, cache / "concat" / (f"cheers-{which}" + ("-fast" if limits["cheers1_variants"]
                                                         and which == "set1" else "")),
        "java")
    peer_root = next(iter(peer_ids)).rsplit("/Base Programs/", 1)[0] if peer_ids else ""
    return {"lang": "java", "dolos_lang": "java", "cd_ext": "java", "dirmode": True,
            "bryo_paths": bryo_paths, "bryo_ids": bryo_ids, "peer_paths": [peer_root],
            "peer_ids": peer_ids, "items": items, "class_pos": class_pos, "rows": rows,
            "note": "peers see each submission's .java files concatenated into one file"}


def new_id(rng, taken):
    while True:
        x = str(rng.randint(10000, 99999))
        if x not in taken:
            taken.add(x)
            return x


def build_poj(ds, out, limits, seed):
    """Copy the POJ-104 sample (or some problems of it) to `out` and plant disguised
    copies; write truth.json. Deterministic in `seed`."""
    truth_file = out / "truth.json"
    if truth_file.exists():
        return json.loads(truth_file.read_text())
    rng = random.Random(seed)
    src_root = ds / "poj104"
    problems = sorted(p.name for p in src_root.iterdir() if p.name.startswith("problem-"))
    if limits["poj_problems"]:
        problems = sorted(rng.sample(problems, limits["poj_problems"]))
    tmp = out.with_name(out.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    files = {}
    for prob in problems:
        (tmp / prob).mkdir(parents=True)
        for f in sorted((src_root / prob).glob("*.cpp")):
            sid = f"{prob}/{f.name}"
            data = f.read_bytes()
            (tmp / sid).write_bytes(data)
            files[sid] = data.decode("latin-1")
    taken = {Path(s).stem for s in files}
    originals = sorted(files)
    chosen = rng.sample(originals, limits["poj_per_level"] * 6 + len(limits["poj_groups"]))
    copies = []  # {id, source, level, group}
    for k, lv in enumerate(disguise.LEVELS):
        for orig in chosen[k * limits["poj_per_level"]:(k + 1) * limits["poj_per_level"]]:
            cid = f"{orig.split('/')[0]}/{new_id(rng, taken)}.cpp"
            files[cid] = disguise.disguise_c(files[orig], lv, rng)
            copies.append({"id": cid, "source": orig, "level": lv, "group": orig})
    for g, size in zip(chosen[6 * limits["poj_per_level"]:], limits["poj_groups"]):
        members = [g]
        for _ in range(size):
            src = rng.choice(members)
            lv = rng.choice(disguise.LEVELS)
            cid = f"{g.split('/')[0]}/{new_id(rng, taken)}.cpp"
            files[cid] = disguise.disguise_c(files[src], lv, rng)
            copies.append({"id": cid, "source": src, "level": lv, "group": g,
                           "widespread": True})
            members.append(cid)
    for c in copies:
        (tmp / c["id"]).write_text(files[c["id"]], encoding="utf-8")
    truth = {"seed": seed, "problems": problems, "items": sorted(files), "copies": copies}
    (tmp / "truth.json").write_text(json.dumps(truth, indent=1))
    shutil.rmtree(out, ignore_errors=True)
    tmp.rename(out)
    return truth


def grouped(items, group_of):
    by = {}
    for s in items:
        g = group_of.get(s)
        if g is not None:
            by.setdefault(g, []).append(s)
    pos = set()
    for members in by.values():
        for i in range(len(members)):
            for j in range(i + 1, len(members)):
                pos.add(pair(members[i], members[j]))
    return by, pos


def set_poj(ds, cache, limits, rng, seed, tag):
    out = cache / "corpus" / f"poj104-{tag}-seed{seed}"
    truth = build_poj(ds, out, limits, seed)
    items = truth["items"]
    group_of = {}
    for c in truth["copies"]:
        group_of[c["id"]] = c["group"]
        group_of[c["group"]] = c["group"]
    by, class_pos = grouped(items, group_of)
    wide = {c["group"] for c in truth["copies"] if c.get("widespread")}
    rows = [{"name": f"all ({len(truth['copies'])} planted copies)",
             "pos": sorted(class_pos, key=sorted), "neg": None}]
    for lv in disguise.LEVELS:
        rows.append({"name": f"{lv} copy vs its source; all negatives",
                     "pos": [pair(c["id"], c["source"]) for c in truth["copies"]
                             if c["level"] == lv and not c.get("widespread")],
                     "neg": None})
    rows.append({"name": f"copying groups ({len(wide)} groups of "
                         f"{min(len(by[g]) for g in wide)}-{max(len(by[g]) for g in wide)}); "
                         "all pairs within",
                 "pos": [p for g in sorted(wide) for p in grouped(by[g], {s: 0 for s in by[g]})[1]],
                 "neg": None})
    ids = {str(out / s): s for s in items}
    return {"lang": "cc", "dolos_lang": "cpp", "cd_ext": "cpp", "dirmode": False,
            "bryo_paths": [str(out / p) for p in truth["problems"]], "bryo_ids": ids,
            "peer_paths": [str(out / p) for p in truth["problems"]], "peer_ids": ids,
            "items": items, "class_pos": class_pos, "rows": rows,
            "note": f"{len(items)} files; copies planted by bench/quality/disguise.py"}


# ---------------------------------------------------------------------------------------
# Prose

def _prose_corpus_module():
    spec = importlib.util.spec_from_file_location("prose_corpus", BENCH / "prose-corpus.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def man_families(max_per_family=60):
    """{family: [man page paths]}: pages grouped by the name before the first - _ or .

    A page is taken once: symbolic links (the same page under another name, such
    as a cross toolchain's `aarch64-linux-gnu-as` for `as`) and files with the
    bytes of a page already taken are left out, so that no "independent"
    document of one family is a copy of another's."""
    fams, seen = {}, set()
    for root in sorted(Path("/usr/share/man").glob("man[1-9]*")):
        for p in sorted(root.glob("*.gz")):
            if p.is_symlink():
                continue
            try:
                digest = hashlib.sha256(p.read_bytes()).digest()
            except OSError:
                continue
            if digest in seen:
                continue
            seen.add(digest)
            fam = re.split(r"[-_.:]", p.name, maxsplit=1)[0].lower()
            fams.setdefault(fam, []).append(p)
    return {f: ps[:max_per_family] for f, ps in fams.items()}


def family_order(names, seed):
    """Families in an order drawn from the seed and each name alone, so that
    installing a package adds its families somewhere without reshuffling the
    others (the corpus then changes only where the new families fall)."""
    key = lambda f: hashlib.sha256(f"{seed}:{f}".encode()).digest()  # noqa: E731
    return sorted(names, key=key)


def page_text(pc, path, seen, runs):
    try:
        with gzip.open(path, "rt", encoding="utf-8", errors="replace") as f:
            src = f.read()
    except (OSError, EOFError):
        return ""
    if src.lstrip().startswith(".so ") and len(src) < 200:
        return ""
    chunks = list(pc.clean_paragraphs([(str(path), pc.strip_troff(src))], seen, runs, run=8))
    return " ".join(" ".join(c.split()) for c in chunks)


def trim_words(text, lo, hi, rng):
    """Whole sentences of text, between lo and hi words (None if too short)."""
    sents = disguise.sentences(text)
    out, n = [], 0
    target = rng.randint(lo, hi)
    for s in sents:
        w = len(s.split())
        if n + w > hi and n >= lo:
            break
        out.append(s)
        n += w
        if n >= target:
            break
    return " ".join(out) if n >= lo else None


def build_prose(out, limits, seed):
    truth_file = out / "truth.json"
    if truth_file.exists():
        return json.loads(truth_file.read_text())
    rng = random.Random(seed)
    pc = _prose_corpus_module()
    fams = man_families()
    names = family_order(fams, seed)
    seen, runs = set(), set()
    short, long_, filler = [], [], []  # (family, text)
    need_short, need_long = limits["short_docs"], limits["long_docs"]
    for fam in names:
        if len(short) >= need_short and len(long_) >= need_long and len(filler) > 400:
            break
        # Each family's draws depend on the seed and the family alone.
        frng = random.Random(f"{seed}:{fam}")
        pages = list(fams[fam])
        frng.shuffle(pages)
        acc = []
        for p in pages:
            text = page_text(pc, p, seen, runs)
            if not text:
                continue
            r = frng.random()
            if r < 0.15 or (len(short) >= need_short and len(long_) >= need_long):
                filler.extend(disguise.sentences(text))
            elif len(short) < need_short and (r < 0.7 or len(long_) >= need_long):
                t = trim_words(text, 100, 300, frng)
                if t:
                    short.append((fam, t))
            else:
                acc.append(text)
                joined = " ".join(acc)
                if len(joined.split()) >= 2500 and len(long_) < need_long:
                    t = trim_words(joined, 2500, 5000, frng)
                    if t:
                        long_.append((fam, t))
                    acc = []
    filler = [s for s in filler if 6 <= len(s.split()) <= 40]
    tmp = out.with_name(out.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    truth = {"seed": seed}
    taken = set()
    for kind, docs, per_kind in (("short", short, limits["short_per_kind"]),
                                 ("long", long_, limits["long_per_kind"])):
        d = tmp / kind
        d.mkdir(parents=True)
        ids, family = [], {}
        for fam, text in docs:
            did = new_id(rng, taken) + ".txt"
            (d / did).write_text(disguise.wrap(text, rng))
            ids.append(did)
            family[did] = fam
        chosen = rng.sample(ids, min(len(ids), per_kind * 3))
        copies = []
        for k, ck in enumerate(disguise.KINDS):
            for src in chosen[k * per_kind:(k + 1) * per_kind]:
                cid = new_id(rng, taken) + ".txt"
                text = (d / src).read_text()
                (d / cid).write_text(disguise.revise(text, ck, rng, filler))
                copies.append({"id": cid, "source": src, "level": ck})
                family[cid] = family[src]
        truth[kind] = {"items": sorted(family), "copies": copies, "family": family}
    (tmp / "truth.json").write_text(json.dumps(truth, indent=1))
    shutil.rmtree(out, ignore_errors=True)
    tmp.rename(out)
    return truth


def set_prose(ds, cache, limits, rng, seed, tag, kind):
    out = cache / "corpus" / f"prose-{tag}-seed{seed}"
    truth = build_prose(out, limits, seed)[kind]
    items = truth["items"]
    group_of = {}
    for c in truth["copies"]:
        group_of[c["id"]] = c["source"]
        group_of[c["source"]] = c["source"]
    _, class_pos = grouped(items, group_of)
    fam = truth["family"]
    same_topic = [pair(a, b) for i, a in enumerate(items) for b in items[i + 1:]
                  if fam[a] == fam[b] and pair(a, b) not in class_pos]
    rows = [{"name": f"all ({len(truth['copies'])} copies)", "pos": sorted(class_pos, key=sorted),
             "neg": None},
            {"name": f"all; same-topic negatives only ({len(same_topic)})",
             "pos": sorted(class_pos, key=sorted), "neg": same_topic}]
    for ck in disguise.KINDS:
        rows.append({"name": f"{ck}; all negatives",
                     "pos": [pair(c["id"], c["source"]) for c in truth["copies"]
                             if c["level"] == ck], "neg": None})
    ids = {str(out / kind / s): s for s in items}
    return {"lang": "text", "dolos_lang": "char", "cd_ext": "txt", "dirmode": False,
            "bryo_paths": [str(out / kind)], "bryo_ids": ids, "peer_paths": [str(out / kind)],
            "peer_ids": ids, "items": items, "class_pos": class_pos, "rows": rows,
            "note": f"{len(items)} documents from the man pages"}


# ---------------------------------------------------------------------------------------
# Attack sets: real programs, copies made by bench/quality/attacks.py

def build_attacked(out, originals, lang, ext, seed):
    """Write every original and one copy of it per attack under `out`; return truth.
    originals: {id (task/name): source text}."""
    truth_file = out / "truth.json"
    if truth_file.exists():
        return json.loads(truth_file.read_text())
    rng = random.Random(seed)
    tmp = out.with_name(out.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    copies = []
    for oid in sorted(originals):
        src = originals[oid]
        (tmp / oid).parent.mkdir(parents=True, exist_ok=True)
        (tmp / oid).write_text(src, encoding="utf-8")
        task = oid.split("/")[0]
        for a in attacks.ATTACKS:
            cid = f"{task}/{Path(oid).stem}-{a}.{ext}"
            (tmp / cid).write_text(attacks.attack(src, a, lang, rng), encoding="utf-8")
            copies.append({"id": cid, "source": oid, "attack": a})
    truth = {"seed": seed, "originals": sorted(originals), "copies": copies,
             "items": sorted(list(originals) + [c["id"] for c in copies])}
    (tmp / "truth.json").write_text(json.dumps(truth, indent=1))
    shutil.rmtree(out, ignore_errors=True)
    tmp.rename(out)
    return truth


def attack_spec(out, truth, lang, dolos_lang, cd_ext, note):
    """Rows per attack: each copy against its original; negatives: every pair of
    independent solutions of the same task (as JPlag's papers report the gap)."""
    task = {s: s.split("/")[0] for s in truth["items"]}
    origs = truth["originals"]
    neg = [pair(a, b) for i, a in enumerate(origs) for b in origs[i + 1:]
           if task[a] == task[b]]
    class_pos = {pair(c["id"], c["source"]) for c in truth["copies"]}
    rows = [{"name": f"{a} copy vs its original; same-task independents",
             "pos": [pair(c["id"], c["source"]) for c in truth["copies"] if c["attack"] == a],
             "neg": neg, "gap": True} for a in attacks.ATTACKS]
    ids = {str(out / s): s for s in truth["items"]}
    return {"lang": lang, "dolos_lang": dolos_lang, "cd_ext": cd_ext, "dirmode": False,
            "bryo_paths": [str(out)], "bryo_ids": ids, "peer_paths": [str(out)],
            "peer_ids": ids, "items": truth["items"], "class_pos": class_pos, "rows": rows,
            "note": note}


def set_attack_poj(ds, cache, limits, seed, tag):
    """POJ-104: `attack_per_problem` solutions of each problem attacked; the class is
    every solution of those problems plus the copies."""
    out = cache / "corpus" / f"attack-poj-{tag}-seed{seed}"
    rng = random.Random(seed)
    src_root = ds / "poj104"
    problems = sorted(p.name for p in src_root.iterdir() if p.name.startswith("problem-"))
    if limits["attack_problems"]:
        problems = sorted(rng.sample(problems, limits["attack_problems"]))
    originals = {}
    for prob in problems:
        files = sorted(src_root.joinpath(prob).glob("*.cpp"))
        for f in rng.sample(files, min(limits["attack_per_problem"], len(files))):
            originals[f"{prob}/{f.name}"] = f.read_bytes().decode("latin-1")
    truth = build_attacked(out, originals, "c", "cpp", seed)
    # The other solutions of those problems join the class (not attacked).
    others = []
    for prob in problems:
        for f in sorted(src_root.joinpath(prob).glob("*.cpp")):
            sid = f"{prob}/{f.name}"
            if sid not in truth["originals"]:
                others.append(sid)
                dst = out / sid
                if not dst.exists():
                    dst.write_bytes(f.read_bytes())
    truth = dict(truth, items=sorted(truth["items"] + others))
    spec = attack_spec(out, truth, "cc", "cpp", "cpp",
                       f"{len(truth['items'])} files: {len(truth['originals'])} POJ-104 "
                       f"solutions x {len(attacks.ATTACKS)} attacks + the rest of their "
                       "problems")
    # Negatives: each attacked solution against every other solution of its problem.
    origs = set(truth["originals"])
    neg = [pair(a, b) for a in sorted(origs) for b in truth["items"]
           if b not in origs and "-" not in Path(b).stem and b.split("/")[0] == a.split("/")[0]]
    neg += [pair(a, b) for a in sorted(origs) for b in sorted(origs)
            if a < b and a.split("/")[0] == b.split("/")[0]]
    for r in spec["rows"]:
        r["neg"] = neg
    return spec


def set_attack_java(ds, cache, limits, seed, tag):
    """IR-Plag: the original and the 15 independent solutions of every case attacked; the
    class is those 112 programs and their copies (IR-Plag's own copies left out)."""
    out = cache / "corpus" / f"attack-java-{tag}-seed{seed}"
    base = ds / "irplag" / "IR-Plag-Dataset"
    originals = {}
    for case in sorted(p for p in base.iterdir() if p.is_dir()):
        for f in sorted(case.glob("original/*.java")) + sorted(
                case.glob("non-plagiarized/*/*.java")):
            rel = f.relative_to(case)
            sid = f"{case.name}/{'-'.join(rel.parts[:-1])}_{f.stem}.java".replace("-", "_")
            originals[sid] = f.read_bytes().decode("latin-1")
    truth = build_attacked(out, originals, "java", "java", seed)
    return attack_spec(out, truth, "java", "java", "java",
                       f"{len(truth['items'])} files: IR-Plag's original and independent "
                       f"solutions x {len(attacks.ATTACKS)} attacks")


def build_set(name, ds, cache, limits, seed, tag):
    rng = random.Random(seed)
    if name == "irplag":
        return set_irplag(ds, cache, limits, rng)
    if name == "cheers1":
        return set_cheers(ds, cache, limits, rng, "set1")
    if name == "cheers2":
        return set_cheers(ds, cache, limits, rng, "set2")
    if name == "poj104":
        return set_poj(ds, cache, limits, rng, seed, tag)
    if name == "prose-short":
        return set_prose(ds, cache, limits, rng, seed, tag, "short")
    if name == "prose-long":
        return set_prose(ds, cache, limits, rng, seed, tag, "long")
    if name == "attack-poj":
        return set_attack_poj(ds, cache, limits, seed, tag)
    if name == "attack-java":
        return set_attack_java(ds, cache, limits, seed, tag)
    raise ValueError(name)


def dataset_present(name, ds):
    need = {"irplag": ds / "irplag" / "pairs_all_within_case.csv",
            "cheers1": ds / "cheers" / "set1" / "Base Programs",
            "cheers2": ds / "cheers" / "set2" / "Base Programs",
            "poj104": ds / "poj104",
            "prose-short": Path("/usr/share/man"), "prose-long": Path("/usr/share/man"),
            "attack-poj": ds / "poj104",
            "attack-java": ds / "irplag" / "IR-Plag-Dataset"}[name]
    return need.exists()


# ---------------------------------------------------------------------------------------
# Tools

def run_cmd(cmd, out_file, budget, env=None):
    """Run cmd with stdout to out_file; returns (status, seconds)."""
    t0 = time.monotonic()
    tmp = str(out_file) + ".part"
    with open(tmp, "wb") as out, open(str(out_file) + ".err", "wb") as err:
        try:
            p = subprocess.run(cmd, stdout=out, stderr=err, timeout=budget, env=env)
            status = "ok" if p.returncode in (0, 1) else f"exit {p.returncode}"
        except subprocess.TimeoutExpired:
            status = f"timeout after {budget:.0f} s"
    secs = time.monotonic() - t0
    if status == "ok":
        os.replace(tmp, out_file)
    else:
        os.unlink(tmp)
    return status, secs


def scores_by_id(raw, idmap):
    """{pair of tool names: s} -> {pair of ids: s}; names are looked up as absolute paths."""
    look = {}
    for k in idmap:
        look[k] = idmap[k]
        look[os.path.realpath(k)] = idmap[k]
    out, missing = {}, set()
    for k, s in raw.items():
        a, b = tuple(k)
        ia = look.get(a) or look.get(os.path.abspath(a))
        ib = look.get(b) or look.get(os.path.abspath(b))
        if ia is None or ib is None:
            missing.update(x for x, i in ((a, ia), (b, ib)) if i is None)
            continue
        if ia != ib:
            kk = pair(ia, ib)
            if s > out.get(kk, -1.0):
                out[kk] = s
    return out, missing


def run_tool(tool, spec, args, res_dir):
    """Returns (scores by id or None, info dict)."""
    res_dir.mkdir(parents=True, exist_ok=True)
    if tool.startswith("bryo"):
        extra = shlex.split(args.bryo_args) if tool == "bryo" else shlex.split(tool_args(tool))
        # CSV carries the JSON report's pairs[].similarity at full precision, one row per
        # pair and without fragments: with -m 0 on Cheers set2 the JSON is 3.9 GB.
        cmd = [args.bryo, "compare", "-l", spec["lang"], "-n", "0", "--format", args.bryo_format]
        cmd += (["-d"] if spec["dirmode"] else []) + extra + spec["bryo_paths"]
        key = hashlib.sha1(json.dumps(cmd).encode()).hexdigest()[:10]
        out = res_dir / f"bryo-{key}.{args.bryo_format}"
        status, secs = run_cmd(cmd, out, args.budget)
        info = {"cmd": cmd, "status": status, "seconds": round(secs, 2)}
        if status != "ok":
            return None, info
        raw = load_bryo(out) if args.bryo_format == "json" else load_csv(out)
        scores, missing = scores_by_id(raw, spec["bryo_ids"])
        if not args.keep:
            out.unlink()
    else:
        out = res_dir / f"{tool}.csv"
        meta = res_dir / f"{tool}.meta.json"
        if tool == "dolos":
            cmd = ["node", str(args.dolos), "-l", spec["dolos_lang"]] + spec["peer_paths"]
            env = dict(os.environ, NODE_OPTIONS="--max-old-space-size=8192")
        else:
            cmd = [str(args.copydetect_python), str(BENCH / "adapters" / "copydetect_pairs.py"),
                   "-e", spec["cd_ext"]] + spec["peer_paths"]
            env = None
        if meta.exists() and json.loads(meta.read_text()).get("cmd") == cmd:
            info = json.loads(meta.read_text())
            info["cached"] = True
        else:
            log(f"  running {tool} (budget {args.budget:.0f} s) ...")
            status, secs = run_cmd(cmd, out, args.budget, env)
            info = {"cmd": cmd, "status": status, "seconds": round(secs, 2)}
            meta.write_text(json.dumps(info))
        if info["status"] != "ok":
            return None, info
        scores, missing = scores_by_id(load_csv(out), spec["peer_ids"])
    if missing:
        info["unmatched_names"] = len(missing)
        log(f"  warning: {tool}: {len(missing)} names matched no item, e.g. {sorted(missing)[0]}")
    return scores, info


def tool_args(tool):
    return ""


def evaluate(spec, scores):
    n = len(spec["items"])
    total_pairs = n * (n - 1) // 2
    out = []
    for row in spec["rows"]:
        pos = [scores.get(p, 0.0) for p in row["pos"]]
        if row["neg"] is None:
            negs = [s for p, s in scores.items() if p not in spec["class_pos"]]
            zeros = total_pairs - len(spec["class_pos"]) - len(negs)
        else:
            negs = [scores.get(p, 0.0) for p in row["neg"]]
            zeros = 0
        m = ranking_metrics(pos, negs, zeros)
        m["zero_positives"] = sum(1 for s in pos if s <= 0)
        if row.get("gap"):
            # JPlag's papers: mean similarity of copies minus that of independent
            # solutions of the same task, in points (0..100).
            mp = 100 * sum(pos) / len(pos) if pos else float("nan")
            mn = 100 * sum(negs) / len(negs) if negs else float("nan")
            m.update(mean_pos=mp, mean_neg=mn, gap=mp - mn)
        out.append(dict(m, row=row["name"]))
    return out


# ---------------------------------------------------------------------------------------

def fmt(x):
    return "–" if x is None or x != x else f"{x:.3f}"


def markdown(results, tools):
    lines = []
    head = "| set | row | P / N | " + " | ".join(f"{t} AUC / AP / R-prec / F1" for t in tools) + " |"
    lines.append(head)
    lines.append("|" + "---|" * (3 + len(tools)))
    for sname, sres in results["sets"].items():
        if "skipped" in sres:
            lines.append(f"| {sname} | skipped: {sres['skipped']} | |" + " |" * len(tools))
            continue
        nrows = len(sres["rows"])
        for i in range(nrows):
            cells = []
            pn = ""
            for t in tools:
                tr = sres["tools"].get(t)
                if not tr or "metrics" not in tr:
                    cells.append(tr.get("status", "not run") if tr else "not run")
                    continue
                m = tr["metrics"][i]
                pn = f"{m['positives']} / {m['negatives']}"
                z = f" ({m['zero_positives']} at 0)" if m["zero_positives"] else ""
                g = (f" · gap {m['gap']:.1f} ({m['mean_pos']:.1f} vs {m['mean_neg']:.1f})"
                     if "gap" in m else "")
                cells.append(f"{fmt(m['auc'])} / {fmt(m['ap'])} / {fmt(m['r_precision'])} / "
                             f"{fmt(m['best_f1'])}{z}{g}")
            lines.append(f"| {sname} | {sres['rows'][i]} | {pn} | " + " | ".join(cells) + " |")
    lines.append("")
    lines.append("Runtimes (wall seconds): " + "; ".join(
        f"{s}: " + ", ".join(f"{t} {r['tools'][t].get('seconds', '–')}"
                             + (" (cached)" if r['tools'][t].get('cached') else "")
                             for t in tools if t in r.get("tools", {}))
        for s, r in results["sets"].items() if "tools" in r))
    return "\n".join(lines)


def find_bryo():
    """target/release/bryo or target/debug/bryo of this checkout, else of the main
    worktree (a git worktree has no target/ of its own); None if there is none."""
    roots = [REPO]
    try:
        common = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--git-common-dir"],
                                capture_output=True, text=True, check=True).stdout.strip()
        roots.append((REPO / common).resolve().parent)
    except (OSError, subprocess.CalledProcessError):
        pass
    for root in roots:
        for b in ("release", "debug"):
            if (root / "target" / b / "bryo").exists():
                return str(root / "target" / b / "bryo")
    return None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    default_bryo = find_bryo()
    ap.add_argument("--bryo", default=default_bryo, help="bryo binary (default: %(default)s)")
    ap.add_argument("--bryo-args", default="", help='extra flags for bryo, e.g. "-m 0"')
    ap.add_argument("--compare-args", action="append", default=[], metavar="ARGS",
                    help="also run bryo with these flags as another column (repeatable)")
    ap.add_argument("--bryo-format", choices=("csv", "json"), default="csv",
                    help="report format read for the scores (the same similarity; "
                         "default: %(default)s, much smaller)")
    ap.add_argument("--peers", action="store_true", help="also run Dolos and copydetect")
    ap.add_argument("--fast", action="store_true", help="the CI subset (bryo, < 60 s)")
    ap.add_argument("--sets", default=None,
                    help=f"comma-separated, of {','.join(ALL_SETS)} (default: all; with "
                         f"--fast: {','.join(FAST_SETS)})")
    ap.add_argument("--datasets", default=os.environ.get(
        "BRYO_DATASETS", str((REPO / ".." / "shared" / "datasets").resolve())))
    ap.add_argument("--cache", default=os.environ.get(
        "BRYO_QUALITY_CACHE", str(REPO / "target" / "quality-cache")))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--budget", type=float, default=900.0,
                    help="seconds a peer may take on one set before it is skipped")
    ap.add_argument("--dolos", default=str(BENCH / "node" / "dolos.mjs"))
    ap.add_argument("--copydetect-python", default=str(BENCH / ".venv" / "bin" / "python"))
    ap.add_argument("--json", metavar="FILE", help="write the results as JSON")
    ap.add_argument("--keep", action="store_true", help="keep bryo's JSON in the cache")
    ap.add_argument("--render", nargs="+", metavar="JSON",
                    help="only print the table of earlier --json files (sets merged, later "
                         "files win)")
    args = ap.parse_args(argv)
    if args.render:
        merged = None
        for f in args.render:
            with open(f) as fh:
                r = json.load(fh)
            if merged is None:
                merged = r
            else:
                merged["sets"].update(r["sets"])
        merged["sets"] = {k: merged["sets"][k] for k in sorted(
            merged["sets"], key=lambda k: ALL_SETS.index(k) if k in ALL_SETS else 99)}
        tools = []
        for sres in merged["sets"].values():
            for t in sres.get("tools", {}):
                if t not in tools:
                    tools.append(t)
        print(markdown(merged, tools))
        return merged
    args.datasets = Path(args.datasets).resolve()
    if args.sets is None:
        args.sets = ",".join(FAST_SETS if args.fast else ALL_SETS)
    if not args.bryo:
        ap.error("no bryo binary found under target/; pass --bryo PATH")
    cache = Path(args.cache).resolve()
    limits = FAST_LIMITS if args.fast else FULL_LIMITS
    tag = "fast" if args.fast else "full"
    dolos_path = Path(args.dolos)
    if not (dolos_path.parent / "node_modules").exists():
        main_node = Path("/work/main/bench/node/dolos.mjs")
        if (main_node.parent / "node_modules").exists():
            args.dolos = str(main_node)
    if not Path(args.copydetect_python).exists():
        alt = Path("/work/main/bench/.venv/bin/python")
        if alt.exists():
            args.copydetect_python = str(alt)
    tools = ["bryo"]
    global tool_args
    extra_cols = {f"bryo {a}": a for a in args.compare_args}
    tools += list(extra_cols)
    tool_args = lambda t: extra_cols.get(t, "")  # noqa: E731
    if args.peers:
        tools += ["dolos", "copydetect"]
    results = {"bryo": args.bryo, "bryo_args": args.bryo_args, "fast": args.fast,
               "seed": args.seed, "datasets": str(args.datasets), "sets": {}}
    for sname in [s for s in args.sets.split(",") if s]:
        if not dataset_present(sname, args.datasets):
            log(f"{sname}: dataset missing under {args.datasets}; skipped")
            results["sets"][sname] = {"skipped": "dataset missing"}
            continue
        t0 = time.monotonic()
        spec = build_set(sname, args.datasets, cache, limits, args.seed, tag)
        log(f"{sname}: {len(spec['items'])} submissions, {len(spec['class_pos'])} positive "
            f"pairs (built in {time.monotonic() - t0:.1f} s)")
        sres = {"rows": [r["name"] for r in spec["rows"]], "items": len(spec["items"]),
                "note": spec.get("note", ""), "tools": {}}
        res_dir = cache / "results" / f"{tag}-seed{args.seed}" / sname
        for tool in tools:
            scores, info = run_tool(tool, spec, args, res_dir)
            if scores is not None:
                info["metrics"] = evaluate(spec, scores)
                log(f"  {tool}: {info['seconds']} s, AUC {fmt(info['metrics'][0]['auc'])}, "
                    f"AP {fmt(info['metrics'][0]['ap'])}")
            else:
                log(f"  {tool}: {info['status']}; skipped for {sname}")
            info.pop("cmd", None) if tool != "bryo" else None
            sres["tools"][tool] = info
        results["sets"][sname] = sres
    print(markdown(results, tools))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1, default=str)
    return results


if __name__ == "__main__":
    main()
