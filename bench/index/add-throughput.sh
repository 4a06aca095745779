#!/usr/bin/env bash
# `bryo index add` throughput and index size per GB of text (BENCHMARKS.md,
# "Fingerprint index").
#
#   bench/index/add-throughput.sh BRYO MB [WORK]
#
# Builds MB megabytes of prose from this machine's documentation
# (/usr/share/doc, /usr/share/common-licenses: every text file, gzip ones
# decompressed), cut into 32 KB files and repeated with a copy number
# prepended until MB is reached, then times `bryo index create -l text` and
# `bryo index add` and prints input MB, seconds, MB/s and index bytes per
# input byte (segments, catalogue).
set -euo pipefail
bryo="$(realpath "$1")"
mb="$2"
work="${3:-/tmp/bryo-index-add}"
rm -rf "$work"
mkdir -p "$work/corpus"
python3 - "$work/corpus" "$mb" <<'PY'
import gzip, os, sys
from pathlib import Path
out, mb = Path(sys.argv[1]), int(sys.argv[2])
texts = []
for root in ["/usr/share/doc", "/usr/share/common-licenses"]:
    for p in sorted(Path(root).rglob("*")):
        if not p.is_file() or p.is_symlink():
            continue
        try:
            data = gzip.decompress(p.read_bytes()) if p.suffix == ".gz" else p.read_bytes()
        except Exception:
            continue
        if b"\0" in data:
            continue
        texts.append(data.decode("utf-8", "replace"))
pool = "\n".join(texts)
chunk, n, written, copy = 32 * 1024, 0, 0, 0
while written < mb * 1_000_000:
    for start in range(0, len(pool), chunk):
        piece = f"copy {copy} part {start}\n" + pool[start:start + chunk]
        (out / f"d{n // 1000:04}").mkdir(exist_ok=True)
        (out / f"d{n // 1000:04}" / f"f{n:07}.txt").write_text(piece)
        n += 1
        written += len(piece.encode())
        if written >= mb * 1_000_000:
            break
    copy += 1
PY
input=$(du -sb "$work/corpus" | cut -f1)
files=$(find "$work/corpus" -type f | wc -l)
"$bryo" index create "$work/idx" -l text >/dev/null
start=$(date +%s.%N)
/usr/bin/time -f "%M" -o "$work/rss" "$bryo" index add "$work/idx" --tag bench "$work/corpus"
end=$(date +%s.%N)
segments=$(du -sb "$work/idx/segments" | cut -f1)
catalog=$(du -cb "$work/idx"/catalog.sqlite* | tail -1 | cut -f1)
python3 - "$input" "$files" "$start" "$end" "$segments" "$catalog" "$(cat "$work/rss")" <<'PY'
import sys
inp, files, start, end, seg, cat, rss = (float(x) for x in sys.argv[1:])
s = end - start
print(f"input {inp/1e6:.0f} MB in {files:.0f} files; add {s:.1f} s = {inp/1e6/s:.1f} MB/s; "
      f"peak RSS {rss/1024:.0f} MB; segments {seg/inp:.3f} B/B, catalogue {cat/inp:.3f} B/B, "
      f"total {(seg+cat)/inp:.3f} bytes per input byte ({(seg+cat)/inp:.2f} GB per GB)")
PY
