#!/usr/bin/env python3
"""Two or more builds of bryo, run in turn, phase by phase.

    bench/ab_timings.py [-n ROUNDS] [--csv FILE] LABEL=BIN ... -- ARGS...

Runs `BIN ARGS --timings` for each build, one after the other, ROUNDS times
(the builds alternate, so a machine that slows down slows them all), and
prints for each phase of `--timings` the median wall and CPU time of each
build and the ratio of each build to the first. A label may carry
environment variables before the binary: `simd-off=BRYO_NO_SIMD=1:BIN`; a
`+` after the binary adds arguments for that build alone:
`j3=BIN+-j+3`. Standard output of the runs is discarded.

Example (a change against the build before it, on the standard library):

    bench/ab_timings.py -n 21 before=/tmp/bryo-before after=target/release/bryo \\
        -- compare -l python --format json /tmp/stdlib

Medians of alternating runs are what BENCHMARKS.md reports for changes of a
few per cent: on a shared 2-core machine one run varies by ±10 %.
"""

import argparse
import csv
import os
import platform
import re
import statistics
import subprocess
import sys

PHASE_ROW = re.compile(r"^([a-z]+)\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)\s+(\d+)\s+([0-9.]+)\s*$")


def parse_timings(stderr):
    """{phase: (wall ms, CPU ms)} from the table `--timings` prints."""
    out = {}
    for line in stderr.splitlines():
        m = PHASE_ROW.match(line.strip())
        if m:
            out[m.group(1)] = (float(m.group(2)), float(m.group(3)))
    return out


def parse_build(spec):
    """`LABEL=[VAR=VALUE:...]BIN[+ARG+ARG]` -> (label, binary, extra args, env)."""
    if "=" not in spec:
        raise ValueError(f"`{spec}`: give a build as LABEL=BIN")
    label, rest = spec.split("=", 1)
    env = {}
    parts = rest.split(":")
    for p in parts[:-1]:
        if "=" not in p:
            raise ValueError(f"`{spec}`: `{p}` is not VAR=VALUE")
        k, v = p.split("=", 1)
        env[k] = v
    binary, *extra = parts[-1].split("+")
    if not label or not binary:
        raise ValueError(f"`{spec}`: empty label or binary")
    return label, binary, extra, env


def run_rounds(builds, args, rounds):
    """{label: {phase: [(wall, cpu), ...]}}, the builds alternating."""
    results = {b[0]: {} for b in builds}
    for _ in range(rounds):
        for label, binary, extra, env in builds:
            p = subprocess.run([binary, *args, *extra, "--timings"], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True, env={**os.environ, **env})
            if p.returncode not in (0, 1):
                raise RuntimeError(f"{label}: exit status {p.returncode}: {p.stderr.strip()[-500:]}")
            phases = parse_timings(p.stderr)
            if not phases:
                raise RuntimeError(f"{label}: no --timings table in its output")
            for phase, t in phases.items():
                results[label].setdefault(phase, []).append(t)
    return results


def table(results):
    """Rows [phase, then per build: wall, CPU, and wall and CPU ÷ the first's]."""
    labels = list(results)
    phases = []
    for label in labels:
        for phase in results[label]:
            if phase not in phases:
                phases.append(phase)
    rows = []
    for phase in phases:
        row = [phase]
        base = None
        for label in labels:
            ts = results[label].get(phase)
            if not ts:
                row += ["", "", "", ""]
                continue
            wall = statistics.median(t[0] for t in ts)
            cpu = statistics.median(t[1] for t in ts)
            if base is None:
                base = (wall, cpu)
            ratio = lambda x, b: f"{x / b:.3f}" if b else ""
            row += [f"{wall:.1f}", f"{cpu:.1f}", ratio(wall, base[0]), ratio(cpu, base[1])]
        rows.append(row)
    return labels, rows


def machine():
    """The processor and its cores, as a table's heading names them: ratios
    of one processor are not those of another."""
    model = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    model = model or platform.processor() or platform.machine() or "unknown processor"
    return f"{model}, {os.cpu_count()} cores"


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if "--" not in argv:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    cut = argv.index("--")
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-n", "--rounds", type=int, default=11, help="rounds (default 11)")
    ap.add_argument("--csv", metavar="FILE", help="also write the table as CSV")
    ap.add_argument("builds", nargs="+", metavar="LABEL=BIN")
    opts = ap.parse_args(argv[:cut])
    try:
        builds = [parse_build(b) for b in opts.builds]
    except ValueError as e:
        ap.error(str(e))
    if len({b[0] for b in builds}) != len(builds):
        ap.error("labels must differ")
    results = run_rounds(builds, argv[cut + 1:], opts.rounds)
    labels, rows = table(results)
    head = ["phase"] + [f"{l} {c}" for l in labels for c in ("wall ms", "CPU ms", "wall ÷", "CPU ÷")]
    print(f"medians of {opts.rounds} alternating runs on {machine()}; ÷ is against {labels[0]}")
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" + "---:|" * (len(head) - 1))
    for row in rows:
        print("| " + " | ".join(row) + " |")
    if opts.csv:
        with open(opts.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(head)
            w.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
