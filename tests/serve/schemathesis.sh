#!/usr/bin/env bash
# Property-based test of bryo serve's JSON API with schemathesis (PyPI):
# requests generated from /api/openapi.json, with a valid token, with a
# wrong one and without; no answer may be a server error (5xx other than
# the documented 503) or break the documented schema.
#   tests/serve/schemathesis.sh BRYO_BINARY SCHEMATHESIS_BINARY
set -euo pipefail
bryo="$(realpath "$1")"
st="$(realpath "$2")"
work="$(mktemp -d)"
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT
token="$("$bryo" serve user add fuzz@example.edu --data "$work/data" | sed -n 's/^token //p')"
"$bryo" serve --data "$work/data" --http 127.0.0.1:0 --moss 127.0.0.1:0 >"$work/log" 2>&1 &
pid=$!
for _ in $(seq 100); do
    grep -q 'HTTP on' "$work/log" && break
    sleep 0.1
done
addr="$(sed -n 's/^bryo serve: HTTP on //p' "$work/log")"
[ -n "$addr" ] || { cat "$work/log"; exit 1; }
# Run from the scratch directory: schemathesis leaves files where it runs.
cd "$work"
"$st" run "http://$addr/api/openapi.json" \
    -H "Authorization: Bearer $token" \
    --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance \
    --max-examples "${BRYO_SCHEMATHESIS_EXAMPLES:-100}" \
    --no-color
# The server survived it.
kill -0 "$pid"
