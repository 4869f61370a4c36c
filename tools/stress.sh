#!/usr/bin/env bash
# The suite in a loop under CPU load, each runtime × callback path on its own, with glibc's malloc
# checks and core dumps on, to catch intermittent crashes (docs/testing.md, "The stress loop").
#
#   tools/stress.sh [rounds]        # default 3 rounds of 6 runs (deno, bun, node × native, js)
#
# Environment: TRITONSERVER_LIB / TRITONSERVER_BACKEND_DIR name the core (the fake core otherwise),
# STRESS_RUNTIMES the runtimes to loop over (default "deno bun node"),
# STRESS_LOAD the stress-ng CPU load in percent per core (default 70; 0: no load), STRESS_LOGS the
# folder for each run's output (default a new one under /tmp). A run that fails keeps its log; a
# core dump found after it is printed with gdb's backtrace of every thread. Exits non-zero when any
# run failed. Needs stress-ng and gdb (Debian: apt-get install stress-ng gdb).
set -u
cd "$(dirname "$0")/.."
rounds="${1:-3}"
load="${STRESS_LOAD:-70}"
logs="${STRESS_LOGS:-$(mktemp -d /tmp/tritonffi-stress.XXXXXX)}"
mkdir -p "$logs"
debug_malloc="$(ls /usr/lib/*/libc_malloc_debug.so.0 2>/dev/null | head -1)"
ulimit -c unlimited
stressor=""
if [ "$load" -gt 0 ]; then
  stress-ng --cpu "$(nproc)" --cpu-load "$load" --quiet &
  stressor=$!
fi
trap '[ -n "$stressor" ] && kill "$stressor" 2>/dev/null' EXIT

node="$PWD/node_modules/.bin/node"
failed=0
for round in $(seq 1 "$rounds"); do
  for runtime in ${STRESS_RUNTIMES:-deno bun node}; do
    for callbacks in native js; do
      log="$logs/round$round-$runtime-$callbacks.log"
      start=$(date +%s)
      rm -f core core.*
      GLIBC_TUNABLES=glibc.malloc.check=3 LD_PRELOAD="$debug_malloc" \
        TEST_RUNTIMES="$runtime" TEST_CALLBACKS="$callbacks" "$node" tests/run_all.mjs >"$log" 2>&1
      rc=$?
      summary="$(grep -E '^total:' "$log" | tail -1)"
      echo "round $round $runtime/$callbacks: rc $rc, $(($(date +%s) - start)) s, ${summary:-no summary}"
      if [ "$rc" -ne 0 ]; then
        failed=1
        grep -E 'fake core:|double free|corruption|Segmentation|SIGSEGV|SIGABRT|Aborted|not ok|✖|\(fail\)|FAILED' "$log" |
          sort -u | head -20
        for core in core core.*; do
          [ -f "$core" ] || continue
          exe="$(file "$core" | sed -n "s/.*execfn: '\([^']*\)'.*/\1/p")"
          echo "--- $core ($exe)"
          gdb -batch -ex "thread apply all bt 20" "${exe:-$node}" "$core" 2>/dev/null | head -200 \
            >"$log.$core.bt"
          grep -m 40 -E '^#|^Thread' "$log.$core.bt"
          mv "$core" "$logs/round$round-$runtime-$callbacks.$core"
        done
      fi
    done
  done
done
echo "logs: $logs"
exit "$failed"
