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
# A scenario passes only if the suite's own verdict says so: a client the suite reports as
# timed out, or an OVERALL: FAILED that expected-failures-V.yml does not cover, fails it,
# whatever the exit code. A scenario whose checks are all SKIPPED (or INFO) exercised
# nothing: it fails too, unless not-exercised-V.txt lists it with its reason.
# CONFORMANCE_JOBS scenarios run at once (default: the cores plus one; a client that waits
# for a CPU is a client that times out); CONFORMANCE_TIMEOUT_MS is each one's limit.
# Exit: 0 when every failure is listed in expected-failures-V.yml (each entry with its reason
# in a comment), 1 otherwise, 2 on bad usage.
set -euo pipefail

HERE="$(cd "$(dirname "$0")" && pwd)"
NODE="$HERE/node_modules/node/bin/node"
SCENARIO_TIMEOUT_MS="${CONFORMANCE_TIMEOUT_MS:-30000}"
JOBS="${CONFORMANCE_JOBS:-$(( $(nproc) + 1 ))}"
declare -A PACKAGES=([0.1.16]="@modelcontextprotocol/conformance" [0.2.0-alpha.12]="conformance-alpha")  # as package.json names them

version="0.1.16" scenarios=()
while [ $# -gt 0 ]; do
  case "$1" in
    --version) version="$2"; shift 2 ;;
    -s|--scenario) scenarios+=("$2"); shift 2 ;;
    --) shift; break ;;
    -h|--help) sed -n '2,29p' "$0"; exit 0 ;;
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
UNEXERCISED="$HERE/not-exercised-$version.txt"  # "NAME  # why" per line

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
    console.log(["SUCCESS", "FAILURE", "WARNING", "SKIPPED"].map(k => `${tally[k] || 0} ${k.toLowerCase()}`).join(", "));
  ')"
  counts="${counts:-0 success, 0 failure, 0 warning, 0 skipped}"
  local n_ok n_fail n_warn n_skip
  read -r n_ok _ n_fail _ n_warn _ n_skip _ <<< "${counts//,/}"
  total_ok=$((total_ok + n_ok)) total_fail=$((total_fail + n_fail)) total_skip=$((total_skip + n_skip))
  local listens bad
  listens="$(grep -c . "$dir/loopback.log" || true)"
  bad="$(grep -vc '^listening 127\.0\.0\.1:[0-9]*$' "$dir/loopback.log" || true)"
  local verdict="pass" expected=0
  if grep -q '^  ~ ' "$dir/out.log" && [ "$code" = 0 ]; then expected=1; fi
  if [ "$expected" = 1 ]; then verdict="expected failure"
  elif [ "$n_ok" = 0 ] && [ "$n_fail" = 0 ] && [ "$n_warn" = 0 ]; then
    if grep -q "^$scenario " "$UNEXERCISED" 2>/dev/null; then verdict="not exercised (listed)"
    else verdict="FAIL (not exercised: every check skipped; list it in $(basename "$UNEXERCISED") with why)"; fi
  fi
  if [ "$expected" = 0 ] && grep -q 'OVERALL: FAILED' "$dir/out.log"; then verdict="FAIL (the suite says FAILED)"; fi
  if grep -qi 'client timed out' "$dir/out.log"; then verdict="FAIL (the client timed out)"; fi
  if [ "$code" != 0 ]; then verdict="FAIL (exit $code)"; fi
  if [ "$listens" = 0 ] || [ "$bad" != 0 ]; then verdict="FAIL (servers not verified on 127.0.0.1: $listens listens, $bad elsewhere)"; fi
  printf '%-44s %-18s %s; %s server(s) on 127.0.0.1\n' "$scenario" "$verdict" "$counts" "$listens"
  [ "${verdict%% *}" != "FAIL" ]
}

started=$SECONDS
parallel=() alone=()
for s in "${scenarios[@]}"; do
  if [ "$s" = "sse-retry" ]; then alone+=("$s"); else parallel+=("$s"); fi
done
running=0
for s in "${parallel[@]+"${parallel[@]}"}"; do
  if [ "$running" -ge "$JOBS" ]; then wait -n; running=$((running - 1)); fi
  run_one "$s" & running=$((running + 1))
done
wait
for s in "${alone[@]+"${alone[@]}"}"; do run_one "$s"; done
failed=0 total_ok=0 total_fail=0 total_skip=0
for s in "${scenarios[@]}"; do summarize "$s" || failed=1; done
echo "conformance $version: ${#scenarios[@]} scenario(s) in $((SECONDS - started)) s, $JOBS at a time; checks: $total_ok passed, $total_fail failed, $total_skip skipped; logs and checks.json under $results"
if [ "$failed" != 0 ]; then
  for s in "${scenarios[@]}"; do
    dir="$results/${s//\//_}"
    if [ "$(cat "$dir/exit")" != 0 ]; then echo "---- $s"; tail -n 40 "$dir/out.log"; fi
  done
fi
exit "$failed"
