#!/usr/bin/env bash
# Install the tools bryo is measured against, idempotently:
#   - Debian: similarity-tester (sim_c, sim_java, sim_text, ...), hyperfine, GNU time,
#     man-db and groff-base (to render man pages for the prose corpus);
#   - PyPI, in a virtual environment at bench/.venv: copydetect and compare50
#     (compare50 pins old versions of its dependencies, so it stays out of the system
#     Python);
#   - npm, into bench/node/node_modules from bench/node/package.json: jscpd and
#     @dodona/dolos-lib (driven by bench/node/dolos.mjs). Dolos parses with tree-sitter,
#     whose native parsers are compiled by node-gyp at install time (a C/C++ compiler,
#     make and the Node headers are needed; this takes a few minutes).
# Run as root (or with sudo available). Re-running skips what is already there.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi

# --- Debian packages -----------------------------------------------------------------
debs=(similarity-tester hyperfine time man-db groff-base build-essential python3-venv)
missing=()
for p in "${debs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-peers: apt-get install ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
else
  echo "install-peers: Debian packages present"
fi

# --- Python peers in a virtual environment --------------------------------------------
venv="$here/.venv"
if [ ! -x "$venv/bin/python" ]; then
  echo "install-peers: creating $venv"
  python3 -m venv "$venv"
fi
if ! "$venv/bin/python" -c 'import copydetect, compare50' 2>/dev/null; then
  echo "install-peers: pip install copydetect compare50"
  "$venv/bin/pip" install -q --disable-pip-version-check copydetect compare50
else
  echo "install-peers: copydetect and compare50 present"
fi

# --- npm peers --------------------------------------------------------------------------
node_dir="$here/node"
if ! command -v npm >/dev/null; then
  echo "install-peers: npm not found; install Node.js >= 18 and npm first" >&2
  exit 1
fi
if [ ! -x "$node_dir/node_modules/.bin/jscpd" ] \
  || ! (cd "$node_dir" && node -e 'import("@dodona/dolos-parsers").then(m => { if (!m.default.python) process.exit(1) })' 2>/dev/null); then
  echo "install-peers: npm install in $node_dir"
  # npm >= 11 runs dependencies' install scripts only when package.json approves them
  # ("allowScripts"); older npm runs them anyway. Rebuild explicitly so both work.
  (cd "$node_dir" && npm install --no-audit --no-fund \
    && npm rebuild @dodona/dolos-parsers tree-sitter tree-sitter-compat)
else
  echo "install-peers: jscpd and Dolos present"
fi

echo "install-peers: done"
echo "  sim_c:      $(command -v sim_c)"
echo "  copydetect: $venv/bin/copydetect"
echo "  compare50:  $venv/bin/compare50"
echo "  jscpd:      $node_dir/node_modules/.bin/jscpd"
echo "  dolos:      node $node_dir/dolos.mjs"
