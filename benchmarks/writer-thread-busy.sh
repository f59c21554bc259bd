#!/usr/bin/env bash
# The writer thread's busy time per frame with every tap on (issue 36, item 2): one
# live camera-like source (testsrc on the wall clock, 1280x720 30 fps, x264 veryfast)
# with --motion, a 5 s pre-roll (--pre-record; the test pattern's moving counter
# triggers a clip) and --preview watched by one MJPEG viewer, ROUNDS times, two builds
# in turn when CAMFX_B is given (main's, say: before the taps left the writer thread).
# Prints per run: the writer stage's busy time per frame (busy_seconds.writer /
# frames_out in --stats-json: what the encoder's thread spends on each frame, taps
# included wherever they ran on it), the tap stage's when there is one, the frames the
# taps missed, CPU seconds (user + sys), peak RSS, the threads at mid-run and the frames
# dropped at the source. Run on an otherwise idle machine.
#
#   bash benchmarks/writer-thread-busy.sh                          # 30 s, 2 rounds
#   CAMFX_B=/tmp/camfx-main/.build/release/camfx bash benchmarks/writer-thread-busy.sh
#   LIVE_SECONDS=60 ROUNDS=3 SIZE=1920x1080 bash benchmarks/writer-thread-busy.sh
set -euo pipefail
cd "$(dirname "$0")/.."
CAMFX=${CAMFX:-.build/release/camfx}
CAMFX_B=${CAMFX_B:-}
ROUNDS=${ROUNDS:-2}
LIVE_SECONDS=${LIVE_SECONDS:-30}
SIZE=${SIZE:-1280x720}
PORT=${PORT:-18190}
[ -x "$CAMFX" ] || { echo "no $CAMFX: run make release first" >&2; exit 1; }
[ -z "$CAMFX_B" ] || [ -x "$CAMFX_B" ] || { echo "no $CAMFX_B (CAMFX_B)" >&2; exit 1; }
command -v curl >/dev/null || { echo "curl is not installed (the preview's viewer)" >&2; exit 1; }
WORK=$(mktemp -d "${BENCH_DIR:-/tmp}/camfx-writer-busy.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "live $SIZE 30 fps test pattern, ${LIVE_SECONDS} s, x264 veryfast, --motion --pre-record 5s --preview (one viewer):"
run() {  # run NAME BINARY
  local name=$1 binary=$2
  rm -rf "$WORK/run" && mkdir "$WORK/run"
  PORT=$((PORT + 1))
  sleep 3
  /usr/bin/time -f "%U %S %M" -o "$WORK/time" "$binary" record --source testsrc --size "$SIZE" --fps 30 \
    --x264-preset veryfast --motion --pre-record 5s --event-output "$WORK/run/event-%s.mp4" \
    --preview "127.0.0.1:$PORT" --duration "${LIVE_SECONDS}s" --quiet -y --stats-json "$WORK/stats.json" \
    -o "$WORK/run/out.mp4" 2>"$WORK/stderr" &
  local timer=$!
  sleep 2
  curl -s -o /dev/null --max-time $((LIVE_SECONDS - 4)) "http://127.0.0.1:$PORT/stream.mjpeg" || true &
  sleep $((LIVE_SECONDS / 2 - 2))
  local pid threads names
  pid=$(pgrep -P "$timer" | head -1)
  threads=$(ls "/proc/$pid/task" | wc -l)
  names=$(cat /proc/"$pid"/task/*/comm | sort | uniq -c | awk '{printf "%s%s×%s", (NR > 1 ? " " : ""), $2, $1}')
  wait "$timer" || { echo "  $name failed:" >&2; cat "$WORK/stderr" >&2; exit 1; }
  python3 - "$WORK/stats.json" "$WORK/time" "$name" "$threads" "$names" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
user, system, rss = map(float, open(sys.argv[2]).read().split()[-3:])
frames = max(s["frames_out"], 1)
busy = s["busy_seconds"]
taps = s.get("taps")
tap = (", taps %5.0f µs a frame on their own stage (%d given, %d missed)"
       % (busy["taps"] / max(taps["frames"], 1) * 1e6, taps["frames"], taps["dropped"])) if taps else ""
print("  %-7s writer %5.0f µs a frame%s; CPU %6.2f s, RSS %4.0f MB, %d frames, %d dropped, %s threads"
      % (sys.argv[3], busy["writer"] / frames * 1e6, tap, user + system, rss / 1024, s["frames_out"],
         sum(s["dropped"].values()), sys.argv[4]))
print("          threads: %s" % sys.argv[5])
PY
}
for round in $(seq "$ROUNDS"); do
  echo " round $round:"
  [ -z "$CAMFX_B" ] || run "before" "$CAMFX_B"
  run "after" "$CAMFX"
done
