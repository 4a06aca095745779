#!/usr/bin/env bash
# Run bryo's peers on IR-Plag and score them with irplag-eval.py.
#
# usage: bench/irplag-peers.sh [--dataset DIR] [--out DIR] [--bryo BRYO_BIN]
#
# Every tool is run twice, at its defaults:
#   per-case  one run per case directory (case-01 … case-07), outputs merged;
#   together  one run over all 467 files of the 7 cases.
# Runs: sim_java -p -R (its default: a passage counts for one matching file only, so an
# original copied many times shows up against few copies); sim_java -p -a -e -R (every
# pair compared in isolation, sim's mode for exact pair percentages); copydetect
# (bench/adapters/copydetect_pairs.py -e java); Dolos (bench/node/dolos.mjs -l java);
# jscpd -f java -r json; and, with --bryo, `bryo compare -l java --format json -n 0
# $BRYO_ARGS`. Mind bryo's -m (default 10: a passage in more than 10 submissions is
# ignored): an original copied 40-54 times per case shares most of its passages with more
# than 10 files; BRYO_ARGS="-m 100" lifts that. Outputs go to --out (default: a temporary
# directory); the markdown tables go to stdout. TOOLS="dolos jscpd" limits the tools.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
read -r -a bryo_args <<< "${BRYO_ARGS:-}"
dataset=""
out=""
bryo=""
while [ $# -gt 0 ]; do
  case "$1" in
    --dataset) dataset="${2:?}"; shift 2 ;;
    --out) out="${2:?}"; shift 2 ;;
    --bryo) bryo="${2:?}"; shift 2 ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "irplag-peers.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
if [ -z "$dataset" ]; then
  for c in "$here/../../shared/datasets/irplag" /work/shared/datasets/irplag; do
    [ -d "$c" ] && { dataset="$(cd "$c" && pwd)"; break; }
  done
fi
[ -f "$dataset/pairs_detailed.csv" ] || { echo "irplag-peers.sh: no dataset (use --dataset)" >&2; exit 2; }
[ -n "$out" ] || out="$(mktemp -d "${TMPDIR:-/tmp}/irplag-peers.XXXXXX")"
mkdir -p "$out"
data="$dataset/IR-Plag-Dataset"
py="$here/.venv/bin/python"
[ -x "$py" ] || py=python3
cases=$(cd "$data" && ls -d case-* | LC_ALL=C sort)

# run TOOL MODE: writes $out/TOOL-MODE[-case].*; returns the list of result files on stdout
run() {
  local tool="$1" dir="$2" o="$3"
  case "$tool" in
    sim_java) sim_java -p -R "$dir" > "$o.txt" 2> "$o.err"; echo "$o.txt" ;;
    copydetect) "$py" "$here/adapters/copydetect_pairs.py" -e java "$dir" > "$o.csv" 2> "$o.err"; echo "$o.csv" ;;
    dolos) node "$here/node/dolos.mjs" -l java "$dir" > "$o.csv" 2> "$o.err"; echo "$o.csv" ;;
    jscpd) "$here/node/node_modules/.bin/jscpd" -f java -r json -o "$o.jscpd" "$dir" > "$o.log" 2> "$o.err"
           python3 "$here/adapters/jscpd_pairs.py" "$o.jscpd/jscpd-report.json" --root "$dir" > "$o.csv"
           echo "$o.csv" ;;
    sim_java_ae) sim_java -p -a -e -R "$dir" > "$o.txt" 2> "$o.err"; echo "$o.txt" ;;
    # File names repeat across cases: PREFIX=RESULT tells irplag-eval.py which case a
    # name relative to the case directory belongs to.
    bryo) "$bryo" compare -l java --format json -n 0 "${bryo_args[@]}" "$dir" > "$o.json" 2> "$o.err"
          if [ "$dir" = "$data" ]; then echo "$o.json"; else echo "IR-Plag-Dataset/${dir#"$data"/}=$o.json"; fi ;;
  esac
}

tools="${TOOLS:-sim_java sim_java_ae copydetect dolos jscpd}"
case " $tools " in *" bryo "*) ;; *) [ -n "$bryo" ] && tools="bryo $tools" ;; esac
for tool in $tools; do
  for mode in per-case together; do
    files=()
    start=$(date +%s.%N)
    if [ "$mode" = together ]; then
      files+=("$(run "$tool" "$data" "$out/$tool-together")")
    else
      for c in $cases; do files+=("$(run "$tool" "$data/$c" "$out/$tool-$c")"); done
    fi
    secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
    echo "### $tool, $mode ($secs s)"
    echo
    python3 "$here/irplag-eval.py" --dataset "$dataset" --name "$tool $mode" "${files[@]}"
    echo
  done
done
echo "Outputs: $out"
