#!/usr/bin/env bash
# Runs each libFuzzer target for FUZZ_SECONDS (default 120) from a copy of its seed
# corpus in fuzz/corpus/ (new inputs go to a scratch folder, not into git), and prints
# runs, executions per second and what it found. A crash leaves its input in
# fuzz/crashes/ and makes the script exit 1. `make fuzz` builds and runs it.
# FUZZ_TARGETS="FuzzMovie:movie" runs only those targets (target:corpus pairs).
set -uo pipefail
cd "$(dirname "$0")"
seconds=${FUZZ_SECONDS:-${1:-120}}
work=$(mktemp -d /tmp/camfx-fuzz.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p crashes
status=0
for pair in ${FUZZ_TARGETS:-FuzzFilterSpec:filter-spec FuzzPNG:png FuzzMovie:movie FuzzCameraFrame:camera-frame}; do
  target=${pair%%:*} corpus=${pair#*:}
  cp -r "corpus/$corpus" "$work/$corpus"
  SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0 ".build/release/$target" -max_total_time="$seconds" \
    -rss_limit_mb=4096 -artifact_prefix="crashes/$target-" "$work/$corpus" >"$work/$target.log" 2>&1
  rc=$?
  done_line=$(grep -E "^Done [0-9]+ runs" "$work/$target.log" | tail -n 1)
  last=$(grep -E "^#[0-9]+" "$work/$target.log" | tail -n 1)
  if [ $rc -eq 0 ]; then
    echo "$target: ${done_line:-no summary} — ${last#*cov:} (no crash)"
  else
    echo "$target: CRASH (exit $rc): $(grep -E "ERROR|SUMMARY|Test unit written" "$work/$target.log" | head -n 3 | tr '\n' ' ')"
    status=1
  fi
done
exit $status
