#!/usr/bin/env python3
"""Web scale on one box: `bryo compare` streamed over 0.5 to 7 GB of HTML.

The corpus is every regular `.html` file of Debian's python3.11-doc and
rust-doc (about 32,600 pages, 528 MB; `apt-get install rust-doc
python3.11-doc`) and mirrors of it: mirror r holds every page with a
sentence naming the mirror inserted after `<body…>` and the first " the "
of the text written " this " — so that no page of a mirror is identical to
its original, and every (page, same page in another mirror) pair is a
known copy.

    bench/web-scale.py --bryo target/release/bryo --mirrors 0,1,3,7,12 \\
        --work /tmp/bryo-web-scale --out bench/results/web-scale.json

For each count of mirrors m, `bryo compare -l html --memory SIZE --format
json` runs over the originals and mirrors 1..m under `/usr/bin/time`; the
table gives input size, wall time, throughput, peak memory, the spilled
runs and, of the reported pairs, the share that are known copies (a page
and the same page in another mirror, or two pages identical in the
original corpus). The mirrors are written once and reused.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOTS = [Path("/usr/share/doc/python3.11/html"), Path("/usr/share/doc/rust-doc/html")]
BODY = re.compile(rb"<body[^>]*>", re.IGNORECASE)


def pages(roots: list[Path]) -> list[Path]:
    """Every regular `.html` file below the roots (symbolic links left
    out, as `bryo compare` leaves them), sorted."""
    out = []
    for root in roots:
        for dirpath, _, names in os.walk(root):
            for name in names:
                p = Path(dirpath) / name
                if name.endswith(".html") and p.is_file() and not p.is_symlink():
                    out.append(p)
    return sorted(out)


def mirrored(text: bytes, r: int) -> bytes:
    """Page `text` as mirror `r` holds it."""
    note = f"<p>Mirror number {r} keeps a copy of this page.</p>".encode()
    m = BODY.search(text)
    at = m.end() if m else 0
    text = text[:at] + note + text[at:]
    return text.replace(b" the ", b" this ", 1)


def write_mirror(work: Path, r: int, files: list[Path]) -> Path:
    dest = work / f"mirror{r:02d}"
    done = dest / ".complete"
    if done.exists():
        return dest
    for p in files:
        root = next(x for x in ROOTS if p.is_relative_to(x))
        target = dest / root.parent.name / p.relative_to(root)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(mirrored(p.read_bytes(), r))
    done.write_text("")
    return dest


def page_key(name: str) -> str:
    """A page's path below its documentation root, whichever mirror."""
    for marker in ("python3.11/", "rust-doc/"):
        if marker in name:
            return marker + name.split(marker, 1)[1].removeprefix("html/")
    return name


def run(bryo: str, paths: list[Path], memory: str, spill: Path) -> dict:
    cmd = [
        "/usr/bin/time", "-f", "%e %M", bryo, "compare", "-l", "html", "--memory", memory,
        "--spill-dir", str(spill), "--format", "json", *map(str, paths),
    ]
    started = time.time()
    proc = subprocess.run(cmd, capture_output=True, check=True)
    wall, rss_kb = proc.stderr.decode().strip().splitlines()[-1].split()
    report = json.loads(proc.stdout)
    subs = report["submissions"]
    known = 0
    for p in report["pairs"]:
        a, b = subs[p["a"]]["name"], subs[p["b"]]["name"]
        if page_key(a) == page_key(b) or p["identical"]:
            known += 1
    return {
        "wall_s": float(wall),
        "peak_rss_mb": int(rss_kb) / 1024,
        "pairs": len(report["pairs"]),
        "known_copies": known,
        "files": report["stats"]["files"],
        "fingerprints": report["stats"]["fingerprints"],
        "candidate_pairs": report["stats"]["candidate_pairs"],
        "seed_limit": report["stats"]["seed_limit"],
        "started": started,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bryo", default="target/release/bryo")
    ap.add_argument("--mirrors", default="0,1,3,7,12", help="mirror counts to run, comma-separated")
    ap.add_argument("--memory", default="512M")
    ap.add_argument("--work", type=Path, default=Path("/tmp/bryo-web-scale"))
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    if not all(r.is_dir() for r in ROOTS):
        print("install the corpus first: apt-get install rust-doc python3.11-doc", file=sys.stderr)
        return 2
    counts = sorted({int(x) for x in args.mirrors.split(",")})
    files = pages(ROOTS)
    original = sum(p.stat().st_size for p in files)
    args.work.mkdir(parents=True, exist_ok=True)
    spill = args.work / "spill"
    spill.mkdir(exist_ok=True)
    mirrors = [write_mirror(args.work, r, files) for r in range(1, max(counts) + 1)]
    rows = []
    print("| mirrors | input GB | pages | wall s | MB/s | peak RSS MB | candidate pairs | pairs | known copies |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for m in counts:
        paths = ROOTS + mirrors[:m]
        size = original + sum(
            f.stat().st_size for d in mirrors[:m] for f in d.rglob("*.html") if f.is_file()
        )
        row = run(args.bryo, paths, args.memory, spill)
        row.update(mirrors=m, input_bytes=size)
        rows.append(row)
        print(
            f"| {m} | {size / 1e9:.2f} | {row['files']:,} | {row['wall_s']:.1f} | "
            f"{size / 1e6 / row['wall_s']:.0f} | {row['peak_rss_mb']:.0f} | "
            f"{row['candidate_pairs']:,} | {row['pairs']} | {row['known_copies']} |",
            flush=True,
        )
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({"memory": args.memory, "runs": rows}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
