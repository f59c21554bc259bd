#!/usr/bin/env bash
# The packet bus's cost on the encoder's thread (issue 23): the time `publish` takes per
# packet — updating the last GOP and handing the packet to each output's queue — with 1
# and with 16 outputs attached, read from `--stats-json`'s packet_bus figures. The same
# 720p30 test pattern is recorded with x264 ultrafast, as fast as it goes, into 1 and
# then into 16 files (each file its own queue and worker), ROUNDS times each.
#
#   bash benchmarks/bus-publish.sh              # 20 s of video, 3 rounds
#   SECONDS_OF_VIDEO=60 ROUNDS=5 bash benchmarks/bus-publish.sh
set -euo pipefail
cd "$(dirname "$0")/.."
CAMFX=${CAMFX:-.build/release/camfx}
ROUNDS=${ROUNDS:-3}
SECONDS_OF_VIDEO=${SECONDS_OF_VIDEO:-20}
[ -x "$CAMFX" ] || { echo "no $CAMFX: run make release first" >&2; exit 1; }
WORK=$(mktemp -d "${BENCH_DIR:-/tmp}/camfx-bus.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
run() {  # run OUTPUTS
  local outputs=() i
  for i in $(seq "$1"); do outputs+=(-o "$WORK/out$i.mp4"); done
  "$CAMFX" record --source testsrc --size 1280x720 --fps 30 --duration "${SECONDS_OF_VIDEO}s" --audio sine=440 \
    --x264-preset ultrafast --quiet -y --stats-json "$WORK/stats.json" "${outputs[@]}"
  python3 - "$WORK/stats.json" "$1" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
b = s["packet_bus"]
print("  %2s output(s): %5d packets, publish %6.2f µs mean, %8.1f µs longest; %d frames, %d dropped"
      % (sys.argv[2], b["packets"], b["publish_mean_us"], b["publish_longest_us"], s["frames_out"], sum(s["dropped"].values())))
PY
  rm -f "$WORK"/out*.mp4
}
for round in $(seq "$ROUNDS"); do
  echo " round $round:"
  run 1
  run 16
done
