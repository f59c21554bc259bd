#!/usr/bin/env bash
# Live 1080p30 from camera-like frames (issue 12): a YUYV rawvideo movie played on the
# wall clock (camfx --input FILE --realtime, ffmpeg -re) through a left-right mirror and
# a timestamp, encoded with the same x264 settings (veryfast, CRF 23, GOP 60, no
# B-frames), alternating ROUNDS times. Prints each run's CPU seconds (user + sys) and
# camfx's dropped frames; camfx's path is yuyv422 → yuv420p → mirror → timestamp →
# encoder, with no BGRA. Run on an otherwise idle machine.
#
#   bash benchmarks/live-camera-vs-ffmpeg.sh                     # 60 s, 2 rounds
#   LIVE_SECONDS=20 ROUNDS=3 bash benchmarks/live-camera-vs-ffmpeg.sh
#   CAMFX_B=.build-other/release/camfx bash benchmarks/live-camera-vs-ffmpeg.sh
#                       # also a second camfx build each round (camfx-b): two builds A/B
set -euo pipefail
cd "$(dirname "$0")/.."
CAMFX=${CAMFX:-.build/release/camfx}
CAMFX_B=${CAMFX_B:-}
ROUNDS=${ROUNDS:-2}
LIVE_SECONDS=${LIVE_SECONDS:-60}
# The raw movie is large (1920 × 1080 × 2 bytes × 30 fps: 124 MB a second), so it lives
# in RAM when /dev/shm can hold it.
WORK=$(mktemp -d "${BENCH_DIR:-/dev/shm}/camfx-live.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
FONT=/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf

[ -x "$CAMFX" ] || { echo "no $CAMFX: run make release first" >&2; exit 1; }
[ -z "$CAMFX_B" ] || [ -x "$CAMFX_B" ] || { echo "no $CAMFX_B (CAMFX_B)" >&2; exit 1; }
command -v ffmpeg >/dev/null || { echo "ffmpeg is not installed (apt-get install ffmpeg)" >&2; exit 1; }

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "making ${LIVE_SECONDS} s of 1920x1080 30 fps YUYV (rawvideo in NUT) in $WORK"
ffmpeg -v error -f lavfi -i "testsrc2=size=1920x1080:rate=30:duration=$LIVE_SECONDS" \
  -pix_fmt yuyv422 -c:v rawvideo "$WORK/cam.nut"

timed() {
  local name=$1; shift
  /usr/bin/time -o "$WORK/time" -f "%e %U %S" "$@" >"$WORK/$name.out" 2>&1
  read -r wall user sys <"$WORK/time"
  local cpu; cpu=$(echo "$user + $sys" | bc)
  printf '  %-7s wall %6.2f s   cpu %6.2f s' "$name" "$wall" "$cpu"
  echo "$cpu" >>"$WORK/$name.cpu"
}
camfx() {  # camfx [NAME BINARY]
  local name=${1:-camfx} binary=${2:-$CAMFX}
  timed "$name" "$binary" record --input "$WORK/cam.nut" --realtime --filter mirror --filter timestamp=size=32 \
    --x264-preset veryfast --crf 23 --gop 60 --quiet -v --stats-json "$WORK/stats.json" -y -o "$WORK/camfx.mp4"
  python3 - "$WORK/stats.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
print("   frames %d, dropped %d, path %s" % (s["frames_out"], sum(s["dropped"].values()), s["video_path"]))
PY
}
ffmpeg_() {
  timed ffmpeg ffmpeg -v error -y -re -i "$WORK/cam.nut" \
    -vf "hflip,drawtext=fontfile=$FONT:text='%{localtime\:%Y-%m-%d %H\\\\\:%M\\\\\:%S}':fontsize=32:x=16:y=16:fontcolor=white" \
    -c:v libx264 -preset veryfast -crf 23 -g 60 -bf 0 -pix_fmt yuv420p "$WORK/ffmpeg.mp4"
  echo "   frames $(ffprobe -v error -count_frames -select_streams v -show_entries stream=nb_read_frames -of csv=p=0 "$WORK/ffmpeg.mp4")"
}
echo "$ROUNDS rounds, alternating (CPU seconds are what counts: both run on the wall clock):"
for round in $(seq "$ROUNDS"); do
  echo " round $round:"
  if [ -n "$CAMFX_B" ]; then
    if ((round % 2)); then camfx; camfx camfx-b "$CAMFX_B"; ffmpeg_; else ffmpeg_; camfx camfx-b "$CAMFX_B"; camfx; fi
  elif ((round % 2)); then camfx; ffmpeg_; else ffmpeg_; camfx; fi
done
for name in camfx ${CAMFX_B:+camfx-b}; do
  paste "$WORK/$name.cpu" "$WORK/ffmpeg.cpu" | awk -v name="$name" '
    { n++; if ($1 < $2) k++; a += $1; b += $2 }
    END { printf "%s used less CPU in %d of %d rounds; mean %.1f s against %.1f s (%+.1f %%)\n", name, k, n, a / n, b / n, 100 * (a / b - 1) }'
done
