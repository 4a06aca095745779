#!/usr/bin/env bash
# The winnowing paper's web experiments (§5.1, Figures 3 and 4) on real HTML:
# the Debian documentation of Rust (rust-doc, ~480 MB of HTML) and Python
# (python3.11-doc, ~60 MB), installed with apt.
#
#   bench/web-corpus.sh            # install (as root) if missing, build, run both
#   OUT=/tmp/web bench/web-corpus.sh
#
# Writes into $OUT (default bench/results/web): density.json, rank.json,
# rank.svg, rank.png, density-one-stream.json (the paper's method: all
# files hashed as one stream, `bryo density --one-stream`) and time-*.txt
# (the /usr/bin/time -v report of each run: wall clock and peak memory).
set -euo pipefail

cd "$(dirname "$0")/.."
OUT=${OUT:-bench/results/web}
K=${K:-50}
W=${W:-100}
RUST_HTML=/usr/share/doc/rust-doc/html
PYTHON_HTML=/usr/share/doc/python3.11/html

if [ ! -d "$RUST_HTML" ] || [ ! -d "$PYTHON_HTML" ]; then
    if [ "$(id -u)" != 0 ]; then
        echo "install the corpus first: apt-get install rust-doc python3.11-doc" >&2
        exit 2
    fi
    # `apt-cache search --names-only '^python3\.[0-9]+-doc$'` lists the
    # Python documentation package of the release (python3.11-doc on Debian 12).
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        rust-doc python3.11-doc
fi

cargo build --release -p bryo-cli
BRYO=target/release/bryo
mkdir -p "$OUT"

echo "corpus:"
for d in "$RUST_HTML" "$PYTHON_HTML"; do
    n=$(find "$d" -type f \( -name '*.html' -o -name '*.htm' \) | wc -l)
    b=$(find "$d" -type f \( -name '*.html' -o -name '*.htm' \) -printf '%s\n' | awk '{s+=$1} END {print s}')
    echo "  $d: $n HTML files, $b bytes"
done

run() {
    local name=$1
    shift
    /usr/bin/time -v -o "$OUT/time-$name.txt" "$@"
    grep -E 'Elapsed|Maximum resident' "$OUT/time-$name.txt" | sed "s/^/  $name: /" >&2
}

echo "bryo density -l html -k $K -w $W:"
run density "$BRYO" density -l html -k "$K" -w "$W" --timing --format json \
    "$RUST_HTML" "$PYTHON_HTML" > "$OUT/density.json"
echo "bryo density --one-stream -l html -k $K -w $W:"
run density-one-stream "$BRYO" density --one-stream -l html -k "$K" -w "$W" --timing \
    --format json "$RUST_HTML" "$PYTHON_HTML" > "$OUT/density-one-stream.json"
echo "bryo rank -l html -k $K -w $W:"
run rank "$BRYO" rank -l html -k "$K" -w "$W" --top 20 -o "$OUT" --format json \
    "$RUST_HTML" "$PYTHON_HTML" > "$OUT/rank.json"

python3 - "$OUT" <<'PY'
import json, sys
out = sys.argv[1]
d = json.load(open(f"{out}/density.json"))
r = json.load(open(f"{out}/rank.json"))
print(f"documents {d['documents']:,}, total bytes {d['total_bytes']:,}, text symbols {d['symbols']:,}, hashes {d['hashes']:,}")
for key in ("winnow", "robust_winnow", "mod_p", "safe_mod_p"):
    s = d[key]
    print(f"{key:14} fingerprints {s['fingerprints']:>12,} density {s['density']:.6f} expected {s['expected_density']:.6f} longest gap {s['longest_gap']:,}")
for key in ("winnow", "robust_winnow"):
    s = d[key]
    print(f"{key}: density off 2/(w+1) by {100 * (s['density'] / s['expected_density'] - 1):+.2f}%, "
          f"off the expectation for these document lengths ({s['expected_density_for_lengths']:.6f}) by "
          f"{100 * (s['density'] / s['expected_density_for_lengths'] - 1):+.2f}%")
o = json.load(open(f"{out}/density-one-stream.json"))
print(f"one stream (the paper's method): hashes {o['hashes']:,} (text symbols {o['symbols']:,} - {o['symbols'] - o['hashes']})")
for key in ("winnow", "robust_winnow", "mod_p", "safe_mod_p"):
    s = o[key]
    print(f"{key:14} fingerprints {s['fingerprints']:>12,} density {s['density']:.6f} expected {s['expected_density']:.6f} "
          f"({100 * (s['density'] / s['expected_density'] - 1):+.2f}%) longest gap {s['longest_gap']:,}")
t = o["timing"]
print(f"one-stream throughput {t['bytes_per_second'] / 1e6:.1f} MB/s of HTML on {t['threads']} thread ({t['seconds']:.1f} s)")
t = d["timing"]
print(f"density throughput {t['bytes_per_second'] / 1e6:.1f} MB/s of HTML on {t['threads']} threads ({t['seconds']:.1f} s)")
for key in ("hashes", "fingerprints"):
    x = r[key]
    slope = x["power_law"]["slope"] if x.get("power_law") else float("nan")
    print(f"rank {key:12} distinct {x['distinct']:,} once {x['once']['share']:.1%} twice {x['twice']['share']:.1%} three times {x['three_times']['share']:.1%} max {x['max_frequency']:,} slope {slope:.3f}")
PY
