#!/usr/bin/env bash
# What event clips and motion detection cost (issues 24 and 25):
# 1. The detector alone per frame at 720p, 1080p and 4K (`camfx bench`'s motion detect
#    row: the luma plane of a yuv420p frame with a box that moves, one core).
# 2. A live 1080p30 recording of the test pattern (x264 veryfast, 4 Mbit/s, played on
#    the wall clock) plain, with --motion (detection only: no clips without a
#    pre-roll), with a 10 s pre-roll kept (--pre-record 10s, no trigger), and with both
#    (the test pattern's moving counter then triggers a clip), ROUNDS times in turn: CPU seconds (user + sys) and peak
#    RSS of each run, the most bytes the pre-roll kept, and the detector's own mean and
#    longest time per frame (--stats-json). Run on an otherwise idle machine.
#
#   bash benchmarks/events-cost.sh                      # 30 s, 2 rounds
#   LIVE_SECONDS=60 ROUNDS=3 bash benchmarks/events-cost.sh
set -euo pipefail
cd "$(dirname "$0")/.."
CAMFX=${CAMFX:-.build/release/camfx}
ROUNDS=${ROUNDS:-2}
LIVE_SECONDS=${LIVE_SECONDS:-30}
[ -x "$CAMFX" ] || { echo "no $CAMFX: run make release first" >&2; exit 1; }
WORK=$(mktemp -d "${BENCH_DIR:-/tmp}/camfx-motion.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "1. the detector per frame (camfx bench):"
"$CAMFX" bench --filter motion-detect --size 1280x720 --size 1920x1080 --size 3840x2160 --seconds 2 \
  | grep -E "motion-detect|frames/s" | sed 's/^/   /'

echo "2. live 1080p30 test pattern, ${LIVE_SECONDS} s, x264 veryfast at 4 Mbit/s:"
run() {  # run NAME ARGS...
  local name=$1
  shift
  /usr/bin/time -f "%U %S %M" -o "$WORK/time" "$CAMFX" record --source testsrc --size 1920x1080 --fps 30 \
    --video-bitrate 4M --duration "${LIVE_SECONDS}s" --quiet -y --stats-json "$WORK/stats.json" -o "$WORK/out.mp4" "$@"
  python3 - "$WORK/stats.json" "$WORK/time" "$name" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
user, system, rss = map(float, open(sys.argv[2]).read().split()[-3:])
m = s.get("motion")
detector = ("; detector %.0f µs a frame mean, %.0f µs longest, %d motion(s)"
            % (m["mean_us"], m["longest_us"], m["motions"])) if m else ""
kept = s.get("packet_bus", {}).get("peak_kept_bytes", 0)
preroll = "; pre-roll kept %.2f MB at most" % (kept / 1e6) if kept else ""
print("   %-22s CPU %6.2f s (user %.2f, sys %.2f), RSS %.0f MB, %d frames, %d dropped%s%s"
      % (sys.argv[3], user + system, user, system, rss / 1024, s["frames_out"], sum(s["dropped"].values()),
         preroll, detector))
PY
}
for round in $(seq "$ROUNDS"); do
  echo "  round $round:"
  run "plain"
  run "--motion" --motion
  run "--pre-record 10s" --pre-record 10s --event-output "$WORK/ev-%s.mp4"
  run "both" --pre-record 10s --event-output "$WORK/ev-%s.mp4" --motion
done
