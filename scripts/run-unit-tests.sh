#!/usr/bin/env bash
# make test's XCTest run, as two test processes at once, one per core: the suites that
# mostly wait on the wall clock (real-time recordings, kill -9 moments during them, the
# preview server's viewers) beside all the others, which mostly compute: the run is as
# long as the longer group, not the two together.
#
#   scripts/run-unit-tests.sh [BUNDLE]     default .build/debug/camfxPackageTests.xctest
#
# The bundle is run directly (not through `swift test`, whose lock on .build would make
# the second process wait for the first). The wall-clock group's output is printed after
# the other's, whole, so the two logs do not interleave. Exit status 1 when either fails.
set -uo pipefail
bundle="${1:-.build/debug/camfxPackageTests.xctest}"
[[ -x "$bundle" ]] || { echo "run-unit-tests: no test bundle at $bundle (swift build --build-tests)" >&2; exit 1; }
wall_clock=(CamfxCLITests.ArchiveTests CamfxCLITests.CrashSafeRecordingTests CamfxCLITests.PreviewTests CamfxCLITests.EventCommandTests CamfxCLITests.EventMQTTTests CamfxCLITests.MotionCommandTests PipelineTests.PacketBusTests CamfxCLITests.SeveralCamerasTests PipelineTests.MosaicRecordingTests CamfxCLITests.RunCommandTests CamfxCLITests.LiveViewTests)

# Every suite ("Module.Suite") the bundle has, less the wall-clock ones.
listing="$("$bundle" --list-tests)" || { echo "run-unit-tests: $bundle --list-tests failed" >&2; exit 1; }
others=()
while read -r suite; do
  [[ " ${wall_clock[*]} " == *" $suite "* ]] || others+=("$suite")
done < <(sed -n 's#^\([A-Za-z0-9_]*\.[A-Za-z0-9_]*\)/.*#\1#p' <<<"$listing" | sort -u)
for suite in "${wall_clock[@]}"; do
  grep -q "^$suite/" <<<"$listing" || { echo "run-unit-tests: the bundle has no suite $suite" >&2; exit 1; }
done

log="$(mktemp "${TMPDIR:-/tmp}/camfx-wall-clock-tests.XXXXXX")"
trap 'rm -f "$log" "$log.time-wall" "$log.time-others"' EXIT
# XCTest takes one argument: the selected suites, separated by commas.
selection() { local IFS=,; echo "$*"; }
# Each group's wall and CPU time (bash's `time`, to a file of its own; the tests' own
# stderr goes where it went), to see how the two groups share the two cores.
TIMEFORMAT='%R s, CPU %U s user + %S s system'
{ time "$bundle" "$(selection "${wall_clock[@]}")" >"$log" 2>&1; } 2>"$log.time-wall" &
wall_pid=$!
{ time "$bundle" "$(selection "${others[@]}")" 2>&3 3>&-; } 3>&2 2>"$log.time-others"
others_status=$?
wait "$wall_pid"
wall_status=$?
echo "---- ${wall_clock[*]} (run beside the suites above) ----"
cat "$log"
# The last "Executed" line is the whole selection's.
summary() { grep -E "Executed [0-9]+ tests?," "$1" | tail -n 1 | sed 's/^[[:space:]]*//'; }
echo "run-unit-tests: ${#others[@]} suites: exit $others_status; ${wall_clock[*]}: exit $wall_status, $(summary "$log")"
echo "run-unit-tests: time: the ${#others[@]} suites $(cat "$log.time-others"); the wall-clock suites $(cat "$log.time-wall")"
((others_status == 0 && wall_status == 0))
