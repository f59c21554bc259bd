#!/usr/bin/env bash
# make test's XCTest run, as four test processes at once on the two cores: the suites
# that mostly wait on the wall clock (real-time recordings, kill -9 moments during them,
# the preview server's viewers) in two groups, and all the others in two (the command's
# own suites, which mostly run camfx and wait for it, and the rest, which mostly
# compute). Two processes kept the cores half busy; the run is as long as the longest
# group.
#
#   scripts/run-unit-tests.sh [BUNDLE]     default .build/debug/camfxPackageTests.xctest
#
# The bundle is run directly (not through `swift test`, whose lock on .build would make
# the others wait for the first). The first group prints as it goes; the others' output
# is printed after it, whole, one group after another, so the logs do not interleave.
# Exit status 1 when any group fails.
set -uo pipefail
bundle="${1:-.build/debug/camfxPackageTests.xctest}"
[[ -x "$bundle" ]] || { echo "run-unit-tests: no test bundle at $bundle (swift build --build-tests)" >&2; exit 1; }
# The wall-clock suites, in two groups of about the same length.
wall_clock_a=(CamfxCLITests.CrashSafeRecordingTests CamfxCLITests.PreviewTests CamfxCLITests.EventMQTTTests CamfxCLITests.MotionCommandTests PipelineTests.MosaicRecordingTests)
wall_clock_b=(CamfxCLITests.ArchiveTests CamfxCLITests.LiveViewTests CamfxCLITests.EventCommandTests PipelineTests.PacketBusTests CamfxCLITests.RunCommandTests CamfxCLITests.SeveralCamerasTests)

# Every suite ("Module.Suite") the bundle has, less the wall-clock ones: the command's
# (CamfxCLITests) in one group, the rest in another.
listing="$("$bundle" --list-tests)" || { echo "run-unit-tests: $bundle --list-tests failed" >&2; exit 1; }
command_suites=()
others=()
while read -r suite; do
  [[ " ${wall_clock_a[*]} ${wall_clock_b[*]} " == *" $suite "* ]] && continue
  if [[ "$suite" == CamfxCLITests.* ]]; then command_suites+=("$suite"); else others+=("$suite"); fi
done < <(sed -n 's#^\([A-Za-z0-9_]*\.[A-Za-z0-9_]*\)/.*#\1#p' <<<"$listing" | sort -u)
# (An empty selection would run every test.)
((${#command_suites[@]} > 0 && ${#others[@]} > 0)) || { echo "run-unit-tests: $bundle lists no other suites" >&2; exit 1; }
for suite in "${wall_clock_a[@]}" "${wall_clock_b[@]}"; do
  grep -q "^$suite/" <<<"$listing" || { echo "run-unit-tests: the bundle has no suite $suite" >&2; exit 1; }
done

work="$(mktemp -d "${TMPDIR:-/tmp}/camfx-unit-tests.XXXXXX")"
trap 'rm -rf "$work"' EXIT
# XCTest takes one argument: the selected suites, separated by commas.
selection() { local IFS=,; echo "$*"; }
# Each group's wall and CPU time (bash's `time`, to a file of its own; the tests' own
# stderr goes where it went), to see how the groups share the cores.
TIMEFORMAT='%R s, CPU %U s user + %S s system'
# The groups run in the background, their output kept; "others" runs in front.
names=(command wall-clock-a wall-clock-b)
selections=("$(selection "${command_suites[@]}")" "$(selection "${wall_clock_a[@]}")" "$(selection "${wall_clock_b[@]}")")
pids=()
for i in "${!names[@]}"; do
  { time "$bundle" "${selections[$i]}" >"$work/${names[$i]}.log" 2>&1; } 2>"$work/${names[$i]}.time" &
  pids+=($!)
done
{ time "$bundle" "$(selection "${others[@]}")" 2>&3 3>&-; } 3>&2 2>"$work/others.time"
others_status=$?
failed=0
((others_status == 0)) || failed=1
# The last "Executed" line is the whole selection's.
summary() { grep -E "Executed [0-9]+ tests?," "$1" | tail -n 1 | sed 's/^[[:space:]]*//'; }
report="run-unit-tests: others (${#others[@]} suites): exit $others_status; $(cat "$work/others.time")"
for i in "${!names[@]}"; do
  wait "${pids[$i]}"
  status=$?
  ((status == 0)) || failed=1
  name=${names[$i]}
  echo "---- the $name group (run beside the suites above) ----"
  cat "$work/$name.log"
  report+=$'\n'"run-unit-tests: $name: exit $status, $(summary "$work/$name.log"); $(cat "$work/$name.time")"
done
echo "$report"
((failed == 0))
