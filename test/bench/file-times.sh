#!/bin/bash
# Wall and CPU time of a set of test files, and each file's own time, from one vitest run:
#   test/bench/file-times.sh [vitest args...]      e.g. test/bench/file-times.sh test/commit0/loop.test.ts test/runs
# With no argument, the heaviest files of the suite. Prints the load average before and after (figures taken
# on a loaded machine are inflated; compare runs taken under the same load, or CPU time).
set -euo pipefail
cd "$(dirname "$0")/../.."
[ $# -gt 0 ] || set -- test/commit0/loop.test.ts test/queue/workers.test.ts test/export/harbor-test-scored.test.ts \
  test/agents/opencode.test.ts test/runs/models.test.ts test/export/harbor.test.ts test/runs/cli.test.ts
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/time -f "%e s wall, %U s user, %S s system" -o "$out/time" npx vitest run "$@" --reporter=json --outputFile="$out/r.json" >/dev/null 2>"$out/err" || true
echo "load after:  $(cut -d' ' -f1-3 /proc/loadavg)"
echo "vitest: $(cat "$out/time")"
node -e '
const r = require(process.argv[1]);
const files = r.testResults.map((f) => ({ s: f.startTime, e: f.endTime, name: f.name.replace(/.*?\/test\//, "test/"), ok: f.status, n: f.assertionResults.length }));
const t0 = Math.min(...files.map((f) => f.s)), t1 = Math.max(...files.map((f) => f.e));
for (const f of files.sort((a, b) => b.e - b.s - (a.e - a.s))) console.log(`${((f.e - f.s) / 1000).toFixed(1).padStart(7)} s  ${f.ok.padEnd(6)} ${f.name} (${f.n} tests)`);
console.log(`${files.length} files, ${r.numPassedTests} passed, ${r.numFailedTests} failed; first start to last end ${((t1 - t0) / 1000).toFixed(1)} s`);
' "$out/r.json"
