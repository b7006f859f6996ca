#!/usr/bin/env bash
# Runs the official MCP conformance suite's client scenarios against a client command.
#
#   .ci/conformance/run.sh [-s SCENARIO]... [--] CLIENT COMMAND...
#   CONFORMANCE_CLIENT="python -m harness.conformance" .ci/conformance/run.sh
#
# The suite starts a mock server per scenario and runs the client command with the server's
# URL appended (MCP_CONFORMANCE_SCENARIO names the scenario). The command is split on spaces
# by the suite, so no argument may contain one.
#
# Default scenarios: initialize, tools_call, elicitation-sep1034-client-defaults, sse-retry, and all 22 auth/*.
# Also selectable with CONFORMANCE_SCENARIOS="a b c". sse-retry checks reconnect timing
# (450-700 ms), so it runs alone after the others, which run in parallel.
#
# Installs @modelcontextprotocol/conformance 0.1.16 and Node 22 (the npm package "node")
# into .ci/conformance/node_modules from package-lock.json (skipped when already there).
# Every scenario server is kept on 127.0.0.1 by loopback.cjs, and this script checks its log.
# Results: one directory per scenario under a temp dir (kept, path printed at the end).
# Exit: 0 when every failure is listed in expected-failures.yml, 1 otherwise, 2 on bad usage.
set -euo pipefail

HERE="$(cd "$(dirname "$0")" && pwd)"
SUITE_VERSION="0.1.16"
NODE="$HERE/node_modules/node/bin/node"
SUITE="$HERE/node_modules/@modelcontextprotocol/conformance/dist/index.js"
SCENARIO_TIMEOUT_MS=30000

scenarios=()
while [ $# -gt 0 ]; do
  case "$1" in
    -s|--scenario) scenarios+=("$2"); shift 2 ;;
    --) shift; break ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) break ;;
  esac
done
client="${*:-${CONFORMANCE_CLIENT:-}}"
if [ -z "$client" ]; then
  echo "usage: $0 [-s SCENARIO]... [--] CLIENT COMMAND...   (or set CONFORMANCE_CLIENT)" >&2
  exit 2
fi
if [ ${#scenarios[@]} -eq 0 ]; then
  # The 22 auth/* scenarios go through harness.auth (s26); see harness/conformance.py.
  auth="metadata-default metadata-var1 metadata-var2 metadata-var3 basic-cimd scope-from-www-authenticate
    scope-from-scopes-supported scope-omitted-when-undefined scope-step-up scope-retry-limit token-endpoint-auth-basic
    token-endpoint-auth-post token-endpoint-auth-none pre-registration 2025-03-26-oauth-metadata-backcompat
    2025-03-26-oauth-endpoint-fallback resource-mismatch offline-access-scope offline-access-not-supported
    client-credentials-jwt client-credentials-basic cross-app-access-complete-flow"
  read -r -a scenarios <<< "${CONFORMANCE_SCENARIOS:-initialize tools_call elicitation-sep1034-client-defaults sse-retry $(printf 'auth/%s ' $auth)}"
fi

installed_version() {
  sed -n 's/^  "version": "\(.*\)",$/\1/p' "$HERE/node_modules/@modelcontextprotocol/conformance/package.json" 2>/dev/null || true
}
if [ "$(installed_version)" != "$SUITE_VERSION" ] || ! "$NODE" --version 2>/dev/null | grep -q '^v22\.'; then
  echo "== installing the conformance suite $SUITE_VERSION and Node 22 into $HERE/node_modules"
  # Exact versions from package-lock.json. No --prefer-offline: the "node" package's preinstall
  # runs a nested npm install of its platform binary, which then fails to link (seen with npm 11).
  (cd "$HERE" && npm ci --no-audit --no-fund --loglevel=error)
fi

results="$(mktemp -d "${TMPDIR:-/tmp}/conformance.XXXXXX")"

run_one() {  # scenario -> writes $results/<safe name>/{out.log,loopback.log,exit}
  local scenario="$1" dir="$results/${1//\//_}"
  mkdir -p "$dir"
  : > "$dir/loopback.log"
  set +e
  LOOPBACK_LOG="$dir/loopback.log" "$NODE" --require "$HERE/loopback.cjs" "$SUITE" client \
    --command "$client" --scenario "$scenario" --timeout "$SCENARIO_TIMEOUT_MS" \
    --expected-failures "$HERE/expected-failures.yml" -o "$dir" > "$dir/out.log" 2>&1
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
echo "conformance: ${#scenarios[@]} scenario(s) in $((SECONDS - started)) s; logs and checks.json under $results"
if [ "$failed" != 0 ]; then
  for s in "${scenarios[@]}"; do
    dir="$results/${s//\//_}"
    if [ "$(cat "$dir/exit")" != 0 ]; then echo "---- $s"; tail -n 40 "$dir/out.log"; fi
  done
fi
exit "$failed"
