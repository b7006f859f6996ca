#!/usr/bin/env bash
# Runs the official MCP conformance suite's client scenarios against a client command.
#
#   .ci/conformance/run.sh [--version V] [-s SCENARIO]... [--] CLIENT COMMAND...
#   CONFORMANCE_CLIENT="python -m harness.conformance" .ci/conformance/run.sh
#
# V is a suite version pinned in package.json: 0.1.16 (the newest stable, the default) or
# 0.2.0-alpha.12 (adds the 2026-07-28 protocol). The suite starts a mock server per scenario
# and runs the client command with the server's URL appended (MCP_CONFORMANCE_SCENARIO names
# the scenario). The command is split on spaces by the suite, so no argument may contain one.
#
# Default scenarios: every client scenario the suite itself lists (`conformance list
# --client`), so a new release's scenarios run without an edit here. Also selectable with -s
# or CONFORMANCE_SCENARIOS="a b c". sse-retry checks reconnect timing (450-700 ms), so it
# runs alone after the others, which run in parallel.
#
# Installs both suite versions and Node 22 (the npm package "node") into
# .ci/conformance/node_modules from package-lock.json (skipped when already there).
# Every scenario server is kept on 127.0.0.1 by loopback.cjs, and this script checks its log.
# Results: one directory per scenario under a temp dir (kept, path printed at the end).
# Exit: 0 when every failure is listed in expected-failures-V.yml (each entry with its reason
# in a comment), 1 otherwise, 2 on bad usage.
set -euo pipefail

HERE="$(cd "$(dirname "$0")" && pwd)"
NODE="$HERE/node_modules/node/bin/node"
SCENARIO_TIMEOUT_MS=30000
declare -A PACKAGES=([0.1.16]="@modelcontextprotocol/conformance" [0.2.0-alpha.12]="conformance-alpha")  # as package.json names them

version="0.1.16" scenarios=()
while [ $# -gt 0 ]; do
  case "$1" in
    --version) version="$2"; shift 2 ;;
    -s|--scenario) scenarios+=("$2"); shift 2 ;;
    --) shift; break ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) break ;;
  esac
done
client="${*:-${CONFORMANCE_CLIENT:-}}"
if [ -z "$client" ] || [ -z "${PACKAGES[$version]:-}" ]; then
  echo "usage: $0 [--version ${!PACKAGES[*]}] [-s SCENARIO]... [--] CLIENT COMMAND...   (or set CONFORMANCE_CLIENT)" >&2
  exit 2
fi
PACKAGE_DIR="$HERE/node_modules/${PACKAGES[$version]}"
SUITE="$PACKAGE_DIR/dist/index.js"
EXPECTED="$HERE/expected-failures-$version.yml"

installed_version() {
  sed -n 's/^  "version": "\(.*\)",$/\1/p' "$PACKAGE_DIR/package.json" 2>/dev/null || true
}
if [ "$(installed_version)" != "$version" ] || ! "$NODE" --version 2>/dev/null | grep -q '^v22\.'; then
  echo "== installing the conformance suites and Node 22 into $HERE/node_modules"
  # Exact versions from package-lock.json. No --prefer-offline: the "node" package's preinstall
  # runs a nested npm install of its platform binary, which then fails to link (seen with npm 11).
  (cd "$HERE" && npm ci --no-audit --no-fund --loglevel=error)
fi
if [ ${#scenarios[@]} -eq 0 ]; then
  if [ -n "${CONFORMANCE_SCENARIOS:-}" ]; then
    read -r -a scenarios <<< "$CONFORMANCE_SCENARIOS"
  else
    # "  - NAME [versions]" per line; the auth/* ones go through harness.auth (s26).
    mapfile -t scenarios < <("$NODE" "$SUITE" list --client | sed -n 's/^  - \([^ ]*\).*/\1/p')
    [ ${#scenarios[@]} -gt 0 ] || { echo "conformance $version listed no client scenario" >&2; exit 1; }
  fi
fi

results="$(mktemp -d "${TMPDIR:-/tmp}/conformance.XXXXXX")"

run_one() {  # scenario -> writes $results/<safe name>/{out.log,loopback.log,exit}
  local scenario="$1" dir="$results/${1//\//_}"
  mkdir -p "$dir"
  : > "$dir/loopback.log"
  set +e
  LOOPBACK_LOG="$dir/loopback.log" "$NODE" --require "$HERE/loopback.cjs" "$SUITE" client \
    --command "$client" --scenario "$scenario" --timeout "$SCENARIO_TIMEOUT_MS" \
    --expected-failures "$EXPECTED" -o "$dir" > "$dir/out.log" 2>&1
  echo $? > "$dir/exit"
  set -e
}

summarize() {  # scenario -> prints one line, returns non-zero on an unexpected result
  local scenario="$1" dir="$results/${1//\//_}" code
  code="$(cat "$dir/exit")"
  local counts
  counts="$(find "$dir" -name checks.json -print0 | xargs -0 -r "$NODE" -e '
    const tally = {};
    for (const file of process.argv.slice(1))
      for (const c of JSON.parse(require("fs").readFileSync(file, "utf8"))) tally[c.status] = (tally[c.status] || 0) + 1;
    console.log(["SUCCESS", "FAILURE", "WARNING"].map(k => `${tally[k] || 0} ${k.toLowerCase()}`).join(", "));
  ')"
  counts="${counts:-no checks.json written}"
  local listens bad
  listens="$(grep -c . "$dir/loopback.log" || true)"
  bad="$(grep -vc '^listening 127\.0\.0\.1:[0-9]*$' "$dir/loopback.log" || true)"
  local verdict="pass"
  if [ "$code" != 0 ]; then verdict="FAIL (exit $code)"; fi
  if [ "$listens" = 0 ] || [ "$bad" != 0 ]; then verdict="FAIL (servers not verified on 127.0.0.1: $listens listens, $bad elsewhere)"; fi
  if grep -q '^  ~ ' "$dir/out.log" && [ "$code" = 0 ]; then verdict="expected failure"; fi
  printf '%-44s %-18s %s; %s server(s) on 127.0.0.1\n' "$scenario" "$verdict" "$counts" "$listens"
  [ "${verdict%% *}" != "FAIL" ]
}

started=$SECONDS
parallel=() alone=()
for s in "${scenarios[@]}"; do
  if [ "$s" = "sse-retry" ]; then alone+=("$s"); else parallel+=("$s"); fi
done
pids=()
for s in "${parallel[@]+"${parallel[@]}"}"; do run_one "$s" & pids+=($!); done
for p in "${pids[@]+"${pids[@]}"}"; do wait "$p"; done
for s in "${alone[@]+"${alone[@]}"}"; do run_one "$s"; done

failed=0
for s in "${scenarios[@]}"; do summarize "$s" || failed=1; done
echo "conformance $version: ${#scenarios[@]} scenario(s) in $((SECONDS - started)) s; logs and checks.json under $results"
if [ "$failed" != 0 ]; then
  for s in "${scenarios[@]}"; do
    dir="$results/${s//\//_}"
    if [ "$(cat "$dir/exit")" != 0 ]; then echo "---- $s"; tail -n 40 "$dir/out.log"; fi
  done
fi
exit "$failed"
