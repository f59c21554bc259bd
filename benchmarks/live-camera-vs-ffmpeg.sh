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
#   SIZE=1280x720 bash benchmarks/live-camera-vs-ffmpeg.sh       # 720p30
#   PERF=1 bash benchmarks/live-camera-vs-ffmpeg.sh              # and where the CPU went
#                       # (perf record of one more run each, split by library: libx264,
#                       # the kernel, and the rest)
#   CAMFX_B=.build-other/release/camfx bash benchmarks/live-camera-vs-ffmpeg.sh
#                       # also a second camfx build each round (camfx-b): two builds A/B
set -euo pipefail
cd "$(dirname "$0")/.."
CAMFX=${CAMFX:-.build/release/camfx}
CAMFX_B=${CAMFX_B:-}
ROUNDS=${ROUNDS:-2}
LIVE_SECONDS=${LIVE_SECONDS:-60}
SIZE=${SIZE:-1920x1080}
PERF=${PERF:-}
# The raw movie is large (1920 × 1080 × 2 bytes × 30 fps: 124 MB a second), so it lives
# in RAM when /dev/shm can hold it.
WORK=$(mktemp -d "${BENCH_DIR:-/dev/shm}/camfx-live.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
FONT=/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf

[ -x "$CAMFX" ] || { echo "no $CAMFX: run make release first" >&2; exit 1; }
[ -z "$CAMFX_B" ] || [ -x "$CAMFX_B" ] || { echo "no $CAMFX_B (CAMFX_B)" >&2; exit 1; }
command -v ffmpeg >/dev/null || { echo "ffmpeg is not installed (apt-get install ffmpeg)" >&2; exit 1; }

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "making ${LIVE_SECONDS} s of $SIZE 30 fps YUYV (rawvideo in NUT) in $WORK"
ffmpeg -v error -f lavfi -i "testsrc2=size=$SIZE:rate=30:duration=$LIVE_SECONDS" \
  -pix_fmt yuyv422 -c:v rawvideo "$WORK/cam.nut"

# The same work on both sides: a left-right mirror and the time in the corner.
FFMPEG_FILTERS="hflip,drawtext=fontfile=$FONT:text='%{localtime\:%Y-%m-%d %H\\\\\:%M\\\\\:%S}':fontsize=32:x=16:y=16:fontcolor=white"
CAMFX_FILTERS=(--filter mirror --filter timestamp=size=32)

# Each run starts after the same 3 s pause. This machine's balloon reports free memory
# to the host (virtio free page reporting, 2 s after it was freed), so a process that
# starts late gets 2 MB blocks the host must back afresh, and the kernel's zeroing of
# x264's huge pages costs 0.2–0.3 s more (clear_page_erms: 3 % of the samples against
# 0.2 %). Without the pause, whoever ran after ffprobe's count paid it and the other
# did not.
timed() {
  local name=$1; shift
  sleep 3
  /usr/bin/time -o "$WORK/time" -f "%e %U %S %M" "$@" >"$WORK/$name.out" 2>&1
  read -r wall user sys rss <"$WORK/time"
  local cpu; cpu=$(echo "$user + $sys" | bc)
  printf '  %-7s wall %6.2f s   cpu %6.2f s (sys %5.2f)   peak RSS %4d MB' "$name" "$wall" "$cpu" "$sys" $((rss / 1024))
  echo "$cpu $sys $rss" >>"$WORK/$name.cpu"
}
camfx() {  # camfx [NAME BINARY]
  local name=${1:-camfx} binary=${2:-$CAMFX}
  timed "$name" "$binary" record --input "$WORK/cam.nut" --realtime "${CAMFX_FILTERS[@]}" \
    --x264-preset veryfast --crf 23 --gop 60 --quiet -v --stats-json "$WORK/stats.json" -y -o "$WORK/camfx.mp4"
  python3 - "$WORK/stats.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
print("   frames %d, dropped %d, path %s" % (s["frames_out"], sum(s["dropped"].values()), s["video_path"]))
PY
}
ffmpeg_() {
  timed ffmpeg ffmpeg -v error -y -re -i "$WORK/cam.nut" \
    -vf "$FFMPEG_FILTERS" \
    -c:v libx264 -preset veryfast -crf 23 -g 60 -bf 0 -pix_fmt yuv420p "$WORK/ffmpeg.mp4"
  echo "   frames $(ffprobe -v error -count_frames -select_streams v -show_entries stream=nb_read_frames -of csv=p=0 "$WORK/ffmpeg.mp4")"
}
# Not counted: 5 s of each first (the files and libraries in the page cache).
echo "warming up (not counted): 5 s of each"
"$CAMFX" record --input "$WORK/cam.nut" --realtime --duration 5s "${CAMFX_FILTERS[@]}" \
  --x264-preset veryfast --crf 23 --gop 60 --quiet -y -o "$WORK/camfx.mp4" >/dev/null 2>&1
ffmpeg -v error -y -re -t 5 -i "$WORK/cam.nut" -vf "$FFMPEG_FILTERS" \
  -c:v libx264 -preset veryfast -crf 23 -g 60 -bf 0 -pix_fmt yuv420p "$WORK/ffmpeg.mp4"
echo "$ROUNDS rounds, alternating (CPU seconds are what counts: both run on the wall clock):"
for round in $(seq "$ROUNDS"); do
  echo " round $round:"
  if [ -n "$CAMFX_B" ]; then
    if ((round % 2)); then camfx; camfx camfx-b "$CAMFX_B"; ffmpeg_; else ffmpeg_; camfx camfx-b "$CAMFX_B"; camfx; fi
  elif ((round % 2)); then camfx; ffmpeg_; else ffmpeg_; camfx; fi
done
for name in camfx ${CAMFX_B:+camfx-b}; do
  paste "$WORK/$name.cpu" "$WORK/ffmpeg.cpu" | awk -v name="$name" '
    { n++; if ($1 < $4) k++; a += $1; b += $4; as += $2; bs += $5; if ($3 > ar) ar = $3; if ($6 > br) br = $6 }
    END {
      printf "%s used less CPU in %d of %d rounds; mean %.2f s against %.2f s (%.2fx)\n", name, k, n, a / n, b / n, a / b
      printf "%s system time: mean %.2f s against %.2f s (%.2fx); peak RSS %d MB against %d MB\n", name, as / n, bs / n, as / bs, ar / 1024, br / 1024
    }'
done

# Where the CPU went: one more run of each under perf, by library. "Outside libx264" is
# what the two do besides encoding: reading, converting, filtering, muxing, the kernel.
if [ -n "$PERF" ]; then
  command -v perf >/dev/null || { echo "PERF=1 needs perf (apt-get install linux-perf)" >&2; exit 1; }
  split() {  # split NAME: samples in libx264, the kernel and the rest
    perf report -i "$WORK/$1.perf" --no-children --sort dso --stdio -g none -F sample,dso 2>/dev/null | awk -v name="$1" '
      /^#/ || NF < 2 { next }
      { total += $1; if ($2 ~ /libx264/) x += $1; else if ($2 ~ /kernel/) k += $1; else o += $1 }
      END { printf "  %-7s %6d samples: libx264 %6d, outside libx264 %6d (kernel %5d, the rest %5d)\n", name, total, x, k + o, k, o
            print k + o, o > "/dev/stderr" }' 2>"$WORK/$1.outside"
  }
  echo "perf, one run each:"
  sleep 3
  perf record -q -g -o "$WORK/camfx.perf" -- "$CAMFX" record --input "$WORK/cam.nut" --realtime "${CAMFX_FILTERS[@]}" \
    --x264-preset veryfast --crf 23 --gop 60 --quiet -y -o "$WORK/camfx.mp4" >/dev/null 2>&1
  sleep 3
  perf record -q -g -o "$WORK/ffmpeg.perf" -- ffmpeg -v error -y -re -i "$WORK/cam.nut" \
    -vf "$FFMPEG_FILTERS" \
    -c:v libx264 -preset veryfast -crf 23 -g 60 -bf 0 -pix_fmt yuv420p "$WORK/ffmpeg.mp4" >/dev/null 2>&1
  split camfx
  split ffmpeg
  read -r camfx_outside camfx_rest <"$WORK/camfx.outside"
  read -r ffmpeg_outside ffmpeg_rest <"$WORK/ffmpeg.outside"
  echo "camfx outside libx264: $(echo "scale=2; $camfx_outside / $ffmpeg_outside" | bc)x ffmpeg's;" \
    "in user space alone (the kernel's part is mostly both reading the file): $(echo "scale=2; $camfx_rest / $ffmpeg_rest" | bc)x"
  for name in camfx ffmpeg; do
    echo "  $name, the top of outside libx264:"
    perf report -i "$WORK/$name.perf" --no-children --sort dso,sym --stdio -g none -F overhead,dso,sym 2>/dev/null \
      | awk '!/^#/ && NF > 2 && !/libx264/' | sort -rn | awk 'NR <= 8' | sed 's/^/    /'
  done
fi
