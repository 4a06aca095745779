"""Whether the attacked copies are still programs: every attack of `attacks.ATTACKS`
applied to a sample of the real programs the attack sets are made from, each copy
compiled (`g++ -fsyntax-only` for POJ-104's C/C++, `javac` for IR-Plag's Java) and
counted against the originals that compile.

    python3 bench/quality/compile_attacks.py --datasets ../shared/datasets [--every 67]

POJ-104's solutions come without their `#include`s; they are compiled with
`<bits/stdc++.h>` and `using namespace std;` put in front. Prints one row per
language: attack -> copies that compile / originals that compile, then the first
compiler errors.
"""

import argparse
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import attacks  # noqa: E402


def check(files, lang, command, seed):
    """{attack: (copies that compile, originals that compile)} and the failures."""
    ok = {a: 0 for a in attacks.ATTACKS}
    total = 0
    failures = []
    with tempfile.TemporaryDirectory() as d:
        for f in files:
            src = f.read_text(encoding="utf-8", errors="replace")
            target = Path(d) / f.name
            target.write_text(src, encoding="utf-8")
            if subprocess.run(command + [f.name], cwd=d, capture_output=True).returncode:
                continue
            total += 1
            for a in attacks.ATTACKS:
                target.write_text(attacks.attack(src, a, lang, random.Random(seed)),
                                  encoding="utf-8")
                r = subprocess.run(command + [f.name], cwd=d, capture_output=True)
                if r.returncode == 0:
                    ok[a] += 1
                else:
                    failures.append((a, f, r.stderr.decode(errors="replace")[:400]))
    return {a: (ok[a], total) for a in attacks.ATTACKS}, failures


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--datasets", type=Path, required=True)
    ap.add_argument("--every", type=int, default=67,
                    help="every n-th POJ-104 solution and n/13-th IR-Plag program")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rows = []
    if shutil.which("g++"):
        poj = sorted((args.datasets / "poj104").glob("problem-*/*.cpp"))[::args.every]
        with tempfile.NamedTemporaryFile("w", suffix=".h", delete=False) as pre:
            pre.write("#include <bits/stdc++.h>\nusing namespace std;\n")
        rows.append(("C/C++ (POJ-104)",) + check(
            poj, "c", ["g++", "-fsyntax-only", "-w", "-fpermissive", "-include", pre.name,
                       "-x", "c++"], args.seed))
        Path(pre.name).unlink()
    else:
        print("SKIP C/C++: no g++ on PATH")
    if shutil.which("javac"):
        ir = args.datasets / "irplag" / "IR-Plag-Dataset"
        java = sorted(ir.glob("case-*/original/*.java")) + sorted(
            ir.glob("case-*/non-plagiarized/*/*.java"))[::max(1, args.every // 13)]
        rows.append(("Java (IR-Plag)",) + check(java, "java", ["javac", "-d", ".", "-nowarn"],
                                                args.seed))
    else:
        print("SKIP Java: no javac on PATH")
    print("| language | " + " | ".join(attacks.ATTACKS) + " |")
    print("|---|" + "---:|" * len(attacks.ATTACKS))
    for name, counts, _ in rows:
        print(f"| {name} | " + " | ".join(f"{o}/{t}" for o, t in counts.values()) + " |")
    for name, _, failures in rows:
        for a, f, err in failures[:5]:
            print(f"\n{name}, {a}, {f}:\n{err}")
    return 1 if any(failures for _, _, failures in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
