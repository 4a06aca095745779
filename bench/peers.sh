#!/usr/bin/env bash
# Speed and memory of `bryo compare` against its peers, side by side in one run, on the
# Python standard library of this machine (every .py file outside site-packages; about
# 1,790 files, 31.5 MB for CPython 3.11) and on deterministic subsets of it.
#
# usage: bench/peers.sh [options] BRYO_BIN
#   BRYO_BIN            the bryo binary. If it is missing or fails, that is reported and
#                       the peers are still measured ("none" skips bryo).
#   --sizes "200 800 full"
#                       corpus sizes to run (default: "200 800 full"); "full" = all files.
#   --tools "bryo sim_c sim_text jscpd copydetect dolos"
#                       tools to run (default: all of these).
#   --budget SECONDS    a slow tool (copydetect, Dolos) is skipped at a size where its CPU
#                       time, extrapolated from the smaller sizes, exceeds this (default
#                       900 = 15 minutes); every run is also killed after 2 × budget.
#   --seed N            seed for choosing the subsets (default 1).
#   --stdlib DIR        corpus root instead of this Python's standard library.
#   --raw DIR           keep the tools' outputs and /usr/bin/time reports in DIR
#                       (default: a temporary directory, removed at the end).
#
# Each run is `/usr/bin/time -v CMD`; wall time is "Elapsed (wall clock)", memory is
# "Maximum resident set size", CPU is user + system time. The markdown table goes to
# stdout, progress to stderr.
# Peers are installed by bench/install-peers.sh.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
sizes="200 800 full"
tools="bryo sim_c sim_text jscpd copydetect dolos"
budget=900
seed=1
stdlib=""
raw=""
bryo=""

die() { echo "peers.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --sizes) sizes="${2:?}"; shift 2 ;;
    --tools) tools="${2:?}"; shift 2 ;;
    --budget) budget="${2:?}"; shift 2 ;;
    --seed) seed="${2:?}"; shift 2 ;;
    --stdlib) stdlib="${2:?}"; shift 2 ;;
    --raw) raw="${2:?}"; shift 2 ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option $1" ;;
    *) [ -z "$bryo" ] || die "only one BRYO_BIN"; bryo="$1"; shift ;;
  esac
done
[ -n "$bryo" ] || die "usage: peers.sh [options] BRYO_BIN (see --help)"
[ -x /usr/bin/time ] || die "/usr/bin/time not found (run bench/install-peers.sh)"

if [ -z "$stdlib" ]; then
  stdlib="$(python3 -c 'import os; print(os.path.dirname(os.__file__))')"
fi
[ -d "$stdlib" ] || die "no such directory: $stdlib"

venv="$here/.venv"
copydetect_bin="$venv/bin/copydetect"
[ -x "$copydetect_bin" ] || copydetect_bin="$(command -v copydetect || true)"
jscpd_bin="$here/node/node_modules/.bin/jscpd"
dolos_js="$here/node/dolos.mjs"

work="$(mktemp -d "${TMPDIR:-/tmp}/bryo-peers.XXXXXX")"
keep_raw=1
if [ -z "$raw" ]; then raw="$work/raw"; keep_raw=0; fi
mkdir -p "$raw"
cleanup() { rm -rf "$work/corpus"; [ "$keep_raw" = 1 ] || rm -rf "$work"; }
trap cleanup EXIT

# --- corpora ----------------------------------------------------------------------------
all_list="$work/all.txt"
(cd "$stdlib" && find . -name '*.py' -type f -not -path '*/site-packages/*' \
  -not -path '*/dist-packages/*' | sed 's|^\./||' | LC_ALL=C sort) > "$all_list"
n_all=$(wc -l < "$all_list")
[ "$n_all" -ge 2 ] || die "fewer than two .py files under $stdlib"

declare -A corpus_dir corpus_n corpus_bytes
for s in $sizes; do
  if [ "$s" = full ]; then n=$n_all; else n=$s; fi
  [ "$n" -le "$n_all" ] 2>/dev/null || die "size $s is not a number <= $n_all"
  d="$work/corpus/$s"
  mkdir -p "$d"
  python3 - "$all_list" "$n" "$seed" > "$work/list-$s.txt" <<'EOF'
import random, sys
names = open(sys.argv[1]).read().split("\n")[:-1]
n, seed = int(sys.argv[2]), int(sys.argv[3])
pick = names if n >= len(names) else random.Random(seed).sample(names, n)
print("\n".join(sorted(pick)))
EOF
  (cd "$stdlib" && xargs -d '\n' cp --parents -t "$d") < "$work/list-$s.txt"
  corpus_dir[$s]="$d"
  corpus_n[$s]=$(find "$d" -type f | wc -l)
  corpus_bytes[$s]=$(find "$d" -type f -printf '%s\n' | awk '{s+=$1} END {print s+0}')
  echo "peers.sh: corpus $s: ${corpus_n[$s]} files, ${corpus_bytes[$s]} bytes" >&2
done

# --- running ----------------------------------------------------------------------------
# cmd_for TOOL DIR OUTBASE -> prints the command (one word per line) on stdout
cmd_for() {
  local tool="$1" d="$2" o="$3"
  case "$tool" in
    bryo) printf '%s\n' "$bryo" compare -l python --format json "$d" ;;
    sim_c) printf '%s\n' sim_c -p -R "$d" ;;
    sim_text) printf '%s\n' sim_text -p -R "$d" ;;
    jscpd) printf '%s\n' "$jscpd_bin" -f python -r json -o "$o.jscpd" "$d" ;;
    copydetect) printf '%s\n' "$copydetect_bin" -t "$d" -e py -a -O "$o.copydetect.html" ;;
    dolos) printf '%s\n' node "$dolos_js" -l python "$d" ;;
    *) return 1 ;;
  esac
}

available() {
  case "$1" in
    bryo) [ "$bryo" != none ] && [ -x "$bryo" ] ;;
    sim_c|sim_text) command -v "$1" >/dev/null ;;
    jscpd) [ -x "$jscpd_bin" ] ;;
    copydetect) [ -n "$copydetect_bin" ] && [ -x "$copydetect_bin" ] ;;
    dolos) [ -f "$dolos_js" ] && [ -d "$here/node/node_modules/@dodona/dolos-lib" ] ;;
    *) return 1 ;;
  esac
}

declare -A wall rss cpu status cmdline
# seconds from "h:mm:ss" or "m:ss.ss"
to_seconds() { awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; printf "%.2f", s }' <<<"$1"; }

run_one() {
  local tool="$1" s="$2" key="$1/$2" o="$raw/$1-$2"
  local -a cmd
  mapfile -t cmd < <(cmd_for "$tool" "${corpus_dir[$s]}" "$o")
  cmdline[$key]="${cmd[*]}"
  echo "peers.sh: [$s] $tool: ${cmd[*]}" >&2
  /usr/bin/time -v -o "$o.time" timeout --kill-after=10 $((2 * budget)) "${cmd[@]}" \
    > "$o.out" 2> "$o.err"
  local rc=$?
  local w r
  w=$(sed -n 's/^\s*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$o.time")
  r=$(sed -n 's/^\s*Maximum resident set size (kbytes): //p' "$o.time")
  [ -n "$w" ] && wall[$key]=$(to_seconds "$w")
  [ -n "$r" ] && rss[$key]=$(awk -v k="$r" 'BEGIN { printf "%.0f", k / 1024 }')
  cpu[$key]=$(awk -F': ' '/User time \(seconds\)|System time \(seconds\)/ { s += $2 } END { printf "%.2f", s }' "$o.time")
  if [ $rc = 124 ] || [ $rc = 137 ]; then
    status[$key]="killed after $((2 * budget)) s"
  elif [ $rc != 0 ]; then
    status[$key]="failed (exit $rc: $(grep -v '^\s*$' "$o.err" | tail -1 | cut -c1-80))"
  else
    status[$key]=ok
  fi
  echo "peers.sh: [$s] $tool: ${status[$key]}, ${wall[$key]:-?} s, ${rss[$key]:-?} MB" >&2
}

# Extrapolated CPU time (user + system) of TOOL at size S from its runs at smaller sizes:
# the growth exponent between the last two sizes (or 2, all pairs, with one size), applied
# to the file count. CPU time, not wall time, so that a loaded machine does not skew it;
# copydetect and Dolos run on one core.
predict() {
  local tool="$1" s="$2" prev="" prev2=""
  for p in $sizes; do
    [ "$p" = "$s" ] && break
    [ "${status[$tool/$p]:-}" = ok ] && { prev2="$prev"; prev="$p"; }
  done
  [ -n "$prev" ] || return 1
  local t1="${cpu[$tool/$prev]}" n1="${corpus_n[$prev]}" n="${corpus_n[$s]}"
  if [ -n "$prev2" ]; then
    awk -v t0="${cpu[$tool/$prev2]}" -v n0="${corpus_n[$prev2]}" -v t1="$t1" -v n1="$n1" -v n="$n" \
      'BEGIN { e = (t0 > 0 && t1 > t0) ? log(t1 / t0) / log(n1 / n0) : 2; printf "%.0f", t1 * (n / n1) ^ e }'
  else
    awk -v t1="$t1" -v n1="$n1" -v n="$n" 'BEGIN { printf "%.0f", t1 * (n / n1) ^ 2 }'
  fi
}

for s in $sizes; do
  for tool in $tools; do
    key="$tool/$s"
    cmd_for "$tool" x x >/dev/null || die "unknown tool $tool"
    if ! available "$tool"; then
      if [ "$tool" = bryo ]; then
        status[$key]="not run: $bryo is not an executable file"
      else
        status[$key]="not installed (run bench/install-peers.sh)"
      fi
      echo "peers.sh: [$s] $tool: ${status[$key]}" >&2
      continue
    fi
    if [ "$tool" = copydetect ] || [ "$tool" = dolos ]; then
      if est=$(predict "$tool" "$s") && [ "$est" -gt "$budget" ]; then
        status[$key]="skipped: predicted ${est} s > budget ${budget} s"
        echo "peers.sh: [$s] $tool: ${status[$key]}" >&2
        continue
      fi
    fi
    run_one "$tool" "$s"
  done
done

# --- report -----------------------------------------------------------------------------
cores=$(nproc)
echo "## bryo compare and its peers on the Python standard library"
echo
echo "Corpus: \`$stdlib\` (.py files outside site-packages; subsets drawn with seed $seed)."
# The processor too: same-run ratios move with it (an instruction-bound
# bryo against memory-bound peers), so a table names the one it ran on.
model=$(awk -F': *' '/^model name/ {print $2; exit}' /proc/cpuinfo 2>/dev/null)
echo "Machine: $cores cores${model:+ ($model)}, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo);"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg). $(date -u '+%Y-%m-%d %H:%M UTC')."
echo
echo "| files | MB | tool | wall s | CPU s | peak RSS MB | wall ÷ bryo | CPU ÷ bryo | RSS ÷ bryo | status |"
echo "|---:|---:|---|---:|---:|---:|---:|---:|---:|---|"
for s in $sizes; do
  mb=$(awk -v b="${corpus_bytes[$s]}" 'BEGIN { printf "%.1f", b / 1e6 }')
  bw="${wall[bryo/$s]:-}"; br="${rss[bryo/$s]:-}"; bc="${cpu[bryo/$s]:-}"
  [ "${status[bryo/$s]:-}" = ok ] || { bw=""; br=""; bc=""; }
  for tool in $tools; do
    key="$tool/$s"
    w="${wall[$key]:-}"; r="${rss[$key]:-}"; c="${cpu[$key]:-}"
    st="${status[$key]:-}"
    rw="–"; rr="–"; rc="–"
    if [ "$st" = ok ] && [ -n "$bw" ] && [ -n "$w" ]; then
      rw=$(awk -v a="$w" -v b="$bw" 'BEGIN { if (b > 0) printf "%.2f×", a / b; else print "–" }')
      rr=$(awk -v a="$r" -v b="$br" 'BEGIN { if (b > 0) printf "%.2f×", a / b; else print "–" }')
      rc=$(awk -v a="$c" -v b="$bc" 'BEGIN { if (b > 0) printf "%.2f×", a / b; else print "–" }')
    fi
    if [ "$st" != ok ] && [ "${st#failed}" = "$st" ] && [ "${st#killed}" = "$st" ]; then w=""; r=""; c=""; fi
    echo "| ${corpus_n[$s]} | $mb | $tool | ${w:-–} | ${c:-–} | ${r:-–} | $rw | $rc | $rr | ${st//|/\\|} |"
  done
done
echo
echo "Commands (DIR = the corpus directory of that size):"
echo
for tool in $tools; do
  for s in $sizes; do
    c="${cmdline[$tool/$s]:-}"
    if [ -n "$c" ]; then
      echo "- $tool: \`${c//${corpus_dir[$s]}/DIR}\`" | sed "s|$raw/|RAW/|g"
      break
    fi
  done
done
echo
echo "Ratios are tool ÷ bryo: above 1× means the tool is slower or larger than bryo. CPU s is"
echo "user + system time: on a loaded machine it is steadier than wall time."
if [ "$keep_raw" = 1 ]; then echo "Raw outputs and time reports: \`$raw\`."; fi
