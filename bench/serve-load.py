#!/usr/bin/env python3
"""Load benchmark of `bryo serve` with the real mosspy client.

Starts `bryo serve` on 127.0.0.1 with a fresh data directory, then:

1. `--clients` (50) mosspy submissions at once, each of a class of
   `--students` (100) Python submissions (one file each, some planted
   copies): throughput (jobs per second), latency from connect to URL
   (median, 90th percentile, max) and the server's peak memory (VmHWM);
2. one class of `--big` (1,000) submissions: latency to URL and memory.

Needs Python with mosspy (`python3 -m venv target/venv-serve &&
target/venv-serve/bin/pip install mosspy`). Prints a Markdown table for
BENCHMARKS.md. A benchmark, not a test: nothing is asserted beyond every
submission getting a URL.

    target/venv-serve/bin/python bench/serve-load.py --bryo target/release/bryo
"""

import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

import mosspy

OPS = ["+", "-", "*", "//", "%"]
CMP = ["<", ">", "<=", ">=", "==", "!="]


def program(rng):
    """A Python program of varied structure, about 60 lines."""
    out = []
    for j in range(25):
        o1, o2, c = rng.choice(OPS), rng.choice(OPS), rng.choice(CMP)
        kind = rng.randrange(6)
        if kind == 0:
            out.append(f"def f{j}(a, b):\n    return a {o1} b {o2} {rng.randrange(9)}\n")
        elif kind == 1:
            out.append(f"if x {c} y:\n    z = x {o1} y\nelse:\n    z = y {o2} 1\n")
        elif kind == 2:
            out.append(f"while i {c} n:\n    i = i {o1} {rng.randrange(1, 5)}\n")
        elif kind == 3:
            out.append(f"data = [v {o1} 2 for v in range(n) if v {c} 3]\n")
        elif kind == 4:
            out.append(f"class C{j}:\n    def m(self, x):\n        return self.v {o1} x\n")
        else:
            out.append(f"try:\n    r = a {o1} b\nexcept ValueError:\n    r = None\n")
    return "".join(out)


def make_class(root, students, seed):
    rng = random.Random(seed)
    files = []
    texts = []
    for i in range(students):
        if i % 10 == 1:
            text = texts[i - 1].replace("data", "rows")  # a planted copy
        else:
            text = program(rng)
        texts.append(text)
        path = os.path.join(root, f"s{i:04d}.py")
        with open(path, "w") as f:
            f.write(text)
        files.append(path)
    return files


def peak_rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def submit(userid, port, files, results, index):
    started = time.monotonic()
    m = mosspy.Moss(userid, "python")
    m.server = "127.0.0.1"
    m.port = port
    for path in files:
        m.addFile(path)
    url = m.send()
    results[index] = (time.monotonic() - started, url)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bryo", required=True)
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--students", type=int, default=100)
    ap.add_argument("--big", type=int, default=1000)
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as work:
        data = os.path.join(work, "data")
        out = subprocess.run(
            [args.bryo, "serve", "user", "add", "bench@example.edu", "--data", data],
            check=True, capture_output=True, text=True,
        ).stdout
        userid = int(out.splitlines()[0])
        server = subprocess.Popen(
            [args.bryo, "serve", "--data", data, "--http", "127.0.0.1:0",
             "--moss", "127.0.0.1:0", "--queue", str(max(64, args.clients + 1))],
            stdout=subprocess.PIPE, text=True,
        )
        port = None
        for line in server.stdout:
            m = re.match(r"bryo serve: MOSS protocol on 127\.0\.0\.1:(\d+)", line)
            if m:
                port = int(m.group(1))
            if line.startswith("bryo serve: results at"):
                break
        try:
            cls = os.path.join(work, "class")
            os.makedirs(cls)
            files = make_class(cls, args.students, seed=1)
            results = [None] * args.clients
            threads = [
                threading.Thread(target=submit, args=(userid, port, files, results, i))
                for i in range(args.clients)
            ]
            started = time.monotonic()
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            wall = time.monotonic() - started
            bad = [r for r in results if not r or not r[1].startswith("http")]
            if bad:
                sys.exit(f"submissions without a URL: {bad[:3]}")
            lat = sorted(r[0] for r in results)
            rss1 = peak_rss_mb(server.pid)

            big = os.path.join(work, "big")
            os.makedirs(big)
            big_files = make_class(big, args.big, seed=2)
            res = [None]
            submit(userid, port, big_files, res, 0)
            if not res[0][1].startswith("http"):
                sys.exit(f"the big class got no URL: {res[0][1]}")
            with urllib.request.urlopen(res[0][1] + "result.json") as r:
                big_result = json.load(r)
            compared = len(big_result["submissions"])
            if compared != args.big:
                sys.exit(f"the big class compared {compared} submissions, not {args.big}")
            with urllib.request.urlopen(results[0][1] + "result.json") as r:
                small_pairs = len(json.load(r)["pairs"])
            rss2 = peak_rss_mb(server.pid)
        finally:
            server.kill()
            server.wait()

    cpus = os.cpu_count()
    print(f"| run | jobs | wall | throughput | latency to URL (median / p90 / max) | server peak RSS |")
    print(f"|---|---|---|---|---|---|")
    print(
        f"| {args.clients} concurrent mosspy clients, {args.students} submissions each "
        f"({small_pairs} pairs reported) "
        f"| {args.clients} | {wall:.1f} s | {args.clients / wall:.2f} jobs/s "
        f"| {statistics.median(lat):.1f} / {lat[int(0.9 * (len(lat) - 1))]:.1f} / {lat[-1]:.1f} s "
        f"| {rss1:.0f} MB |"
    )
    print(
        f"| one class of {args.big} submissions ({len(big_result['pairs'])} pairs reported) | 1 | {res[0][0]:.1f} s | – "
        f"| {res[0][0]:.1f} s | {rss2:.0f} MB |"
    )
    print(f"\n({cpus} cores; {args.bryo})")


if __name__ == "__main__":
    main()
