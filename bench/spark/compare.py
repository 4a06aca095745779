#!/usr/bin/env python3
"""`bryo compare` next to `python -m bryo.spark` on the same documents.

    bench/spark/compare.py --bryo target/release/bryo --python target/venv-py/bin/python \\
        --out /tmp/bryo-spark /usr/share/doc/python3.11/html [/usr/share/doc/rust-doc/html]

Takes every regular `.html` file under the directories (symbolic links
left out, as the CLI leaves them), writes them as one Parquet file of
(id = path, text = bytes), runs the CLI (`--files-from`, `-l html [-m M]
-n N --format json`, 2 threads) and the Spark job (`--master local[2]`, the
same options; without -m both apply the rarity rule), checks that the pairs are equal (names, scores, fragments,
order) and prints both times, the job's seconds per stage and its shuffle
bytes as JSON. Everything it writes goes under --out (remove it after).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path


def html_files(roots):
    out = []
    for root in roots:
        for d, _, names in os.walk(root):
            for n in names:
                p = os.path.join(d, n)
                if n.endswith(".html") and os.path.isfile(p) and not os.path.islink(p):
                    out.append(p)
    return sorted(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bryo", required=True)
    ap.add_argument("--python", required=True, help="interpreter with the bryo wheel and pyspark")
    ap.add_argument("--out", required=True)
    ap.add_argument("-m", type=int, help="MOSS's -m for both (default: the rarity rule)")
    ap.add_argument("-n", type=int, default=250)
    ap.add_argument("--driver-memory", default="8g")
    ap.add_argument("roots", nargs="+")
    a = ap.parse_args()
    moss = [] if a.m is None else ["-m", str(a.m)]

    import pyarrow as pa
    import pyarrow.parquet as pq

    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    files = html_files(a.roots)
    (out / "files.txt").write_text("\n".join(files) + "\n")
    total = 0
    writer = None
    schema = pa.schema([("id", pa.string()), ("text", pa.binary())])
    with pq.ParquetWriter(out / "docs.parquet", schema) as writer:
        for i in range(0, len(files), 1000):
            chunk = files[i : i + 1000]
            data = [Path(f).read_bytes() for f in chunk]
            total += sum(map(len, data))
            writer.write_table(pa.table({"id": chunk, "text": data}, schema=schema))

    t0 = time.perf_counter()
    cli = subprocess.run(
        [a.bryo, "compare", "-j", "2", "-l", "html", *moss, "-n", str(a.n),
         "--format", "json", "--files-from", str(out / "files.txt")],
        check=True, capture_output=True,
    )
    cli_seconds = time.perf_counter() - t0
    cli_rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    report = json.loads(cli.stdout)

    env = dict(os.environ, PYSPARK_PYTHON=a.python)
    t0 = time.perf_counter()
    subprocess.run(
        [a.python, "-m", "bryo.spark", "--input", str(out / "docs.parquet"), "--output",
         str(out / "spark"), "-l", "html", *moss, "-n", str(a.n), "--master", "local[2]",
         "--conf", f"spark.driver.memory={a.driver_memory}",
         "--conf", "spark.ui.showConsoleProgress=false"],
        check=True, env=env,
    )
    spark_seconds = time.perf_counter() - t0
    run = json.loads((out / "spark" / "run.json").read_text())

    names = [s["name"] for s in report["submissions"]]
    expected = [
        (names[p["a"]], names[p["b"]], p["similarity"], p["shared_fingerprints"],
         [(tuple(f["a"]["bytes"]), tuple(f["b"]["bytes"]), f["symbols"]) for f in p["fragments"]])
        for p in report["pairs"]
    ]
    rows = sorted(pq.read_table(out / "spark" / "pairs.parquet").to_pylist(), key=lambda r: r["rank"])
    got = [
        (r["doc_a"], r["doc_b"], r["similarity"], r["shared_fingerprints"],
         [((f["a_byte_start"], f["a_byte_end"]), (f["b_byte_start"], f["b_byte_end"]), f["symbols"])
          for f in r["fragments"]])
        for r in rows
    ]
    shuffle = run.get("shuffle_write_bytes")
    print(json.dumps({
        "documents": len(files),
        "input_bytes": total,
        "cli_seconds": round(cli_seconds, 1),
        "cli_max_rss_kb": cli_rss,
        "cli_pairs": len(expected),
        "spark_seconds_total": round(spark_seconds, 1),
        "spark_stage_seconds": run["seconds"],
        "spark_counts": run["counts"],
        "shuffle_write_bytes": shuffle,
        "shuffle_bytes_per_gb_input": None if shuffle is None else round(shuffle / (total / 1e9)),
        "equal": got == expected,
        "first_difference": next(
            (i for i, (x, y) in enumerate(zip(got, expected)) if x != y),
            None if len(got) == len(expected) else min(len(got), len(expected)),
        ),
    }, indent=2))
    return 0 if got == expected else 1


if __name__ == "__main__":
    sys.exit(main())
