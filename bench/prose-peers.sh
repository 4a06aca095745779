#!/usr/bin/env bash
# Run bryo's peers at their defaults on the prose corpus and score them with prose-eval.py.
#
# usage: bench/prose-peers.sh [--out DIR] [--bryo BRYO_BIN] [--budget SECONDS] CORPUS_DIR
#
# CORPUS_DIR is the OUT_DIR of prose-corpus.py (documents in CORPUS_DIR/docs, labels in
# CORPUS_DIR/truth.csv). Tools: sim_text -p -R (its default threshold reports a pair only
# when 20 % of a file is found in the other); copydetect (adapters/copydetect_pairs.py
# -e txt); jscpd -f txt; Dolos with its character tokenizer (dolos.mjs -l char); and, with
# --bryo, `bryo compare --format json -n 0 $BRYO_ARGS`. TOOLS="sim_text jscpd" limits the tools;
# not run by default: sim_text_t1 (sim_text -p -t 1, reporting down to 1 %) and
# copydetect_f (copydetect --disable-filter: at its defaults copydetect drops all plain
# text, so it finds nothing in prose).
# Each run is timed with /usr/bin/time -v and killed after --budget seconds (default 900).
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
read -r -a bryo_args <<< "${BRYO_ARGS:-}"
out=""
bryo=""
budget=900
corpus=""
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out="${2:?}"; shift 2 ;;
    --bryo) bryo="${2:?}"; shift 2 ;;
    --budget) budget="${2:?}"; shift 2 ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "prose-peers.sh: unknown option $1" >&2; exit 2 ;;
    *) corpus="$1"; shift ;;
  esac
done
[ -d "$corpus/docs" ] && [ -f "$corpus/truth.csv" ] \
  || { echo "prose-peers.sh: usage: prose-peers.sh [options] CORPUS_DIR (from prose-corpus.py)" >&2; exit 2; }
corpus="$(cd "$corpus" && pwd)"
docs="$corpus/docs"
[ -n "$out" ] || out="$(mktemp -d "${TMPDIR:-/tmp}/prose-peers.XXXXXX")"
mkdir -p "$out"
py="$here/.venv/bin/python"
[ -x "$py" ] || py=python3

tools="${TOOLS:-sim_text copydetect jscpd dolos}"
case " $tools " in *" bryo "*) ;; *) [ -n "$bryo" ] && tools="bryo $tools" ;; esac
echo "Prose corpus: $(ls "$docs" | wc -l) documents, $(du -sm "$docs" | cut -f1) MB; $(($(wc -l < "$corpus/truth.csv") - 1)) planted pairs."
echo
for tool in $tools; do
  o="$out/$tool"
  case "$tool" in
    bryo) cmd=("$bryo" compare --format json -n 0 "${bryo_args[@]}" "$docs"); result="$o.out" ;;
    sim_text) cmd=(sim_text -p -R "$docs"); result="$o.out" ;;
    sim_text_t1) cmd=(sim_text -p -t 1 -R "$docs"); result="$o.out" ;;
    copydetect) cmd=("$py" "$here/adapters/copydetect_pairs.py" -e txt "$docs"); result="$o.out" ;;
    copydetect_f) cmd=("$py" "$here/adapters/copydetect_pairs.py" -e txt -f "$docs"); result="$o.out" ;;
    jscpd) cmd=("$here/node/node_modules/.bin/jscpd" -f txt -r json -o "$o.jscpd" "$docs"); result="$o.csv" ;;
    dolos) cmd=(node --max-old-space-size=8192 "$here/node/dolos.mjs" -l char "$docs"); result="$o.out" ;;
    *) echo "prose-peers.sh: unknown tool $tool" >&2; continue ;;
  esac
  echo "prose-peers.sh: $tool: ${cmd[*]}" >&2
  /usr/bin/time -v -o "$o.time" timeout --kill-after=10 "$budget" "${cmd[@]}" > "$o.out" 2> "$o.err"
  rc=$?
  wall=$(sed -n 's/^\s*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$o.time")
  rss=$(sed -n 's/^\s*Maximum resident set size (kbytes): //p' "$o.time")
  echo "### $tool"
  echo
  echo "\`${cmd[*]}\`: exit $rc, wall $wall, peak RSS $((${rss:-0} / 1024)) MB"
  echo
  if [ $rc != 0 ]; then
    why=$(grep -m1 -iE "fatal|error" "$o.err" || tail -1 "$o.err")
    echo "(no result: $(printf '%s' "$why" | cut -c1-160))"
    echo
    continue
  fi
  if [ "$tool" = jscpd ]; then
    python3 "$here/adapters/jscpd_pairs.py" "$o.jscpd/jscpd-report.json" --root "$docs" > "$o.csv"
  fi
  python3 "$here/prose-eval.py" --truth "$corpus/truth.csv" --name "$tool" "$result"
  echo
done
echo "Outputs: $out"
