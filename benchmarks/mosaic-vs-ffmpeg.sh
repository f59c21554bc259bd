#!/usr/bin/env bash
# Several cameras in one process (issue 36), side by side with one ffmpeg doing the same
# work, from camera-like inputs: a YUYV rawvideo movie played on the wall clock (camfx
# takes a movie --source or input: as a camera; ffmpeg -re), every encode with the same
# x264 settings (veryfast, CRF 23, GOP 60, no B-frames: camfx's live defaults).
#
#   two:  two 720p30 inputs, each into its own file, and a 2560x720 hstack of both into a
#         third (camfx run with a mosaic:; ffmpeg with two inputs, split and xstack)
#   grid: four 720p30 inputs in a 1280x720 grid, one file (camfx record --layout grid;
#         ffmpeg's xstack with each input scaled to a quarter)
#
# Prints per run: wall, CPU (user + sys) and peak RSS (/usr/bin/time), the threads at
# the middle of the run, and camfx's frames and drops (each recording's summary line);
# then camfx's CPU and RSS against ffmpeg's over the rounds.
#
#   bash benchmarks/mosaic-vs-ffmpeg.sh                    # 30 s each, 2 rounds, both cases
#   LIVE_SECONDS=60 ROUNDS=1 CASES=grid bash benchmarks/mosaic-vs-ffmpeg.sh
set -euo pipefail
cd "$(dirname "$0")/.."
CAMFX=${CAMFX:-.build/release/camfx}
ROUNDS=${ROUNDS:-2}
LIVE_SECONDS=${LIVE_SECONDS:-30}
CASES=${CASES:-two grid}
# One 720p YUYV movie serves every input (the page cache holds it once: 55 MB a second).
WORK=$(mktemp -d "${BENCH_DIR:-/dev/shm}/camfx-mosaic.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
X264=(-c:v libx264 -preset veryfast -crf 23 -g 60 -bf 0 -pix_fmt yuv420p)

[ -x "$CAMFX" ] || { echo "no $CAMFX: run make release first" >&2; exit 1; }
command -v ffmpeg >/dev/null || { echo "ffmpeg is not installed (apt-get install ffmpeg)" >&2; exit 1; }
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "making $((LIVE_SECONDS + 5)) s of 1280x720 30 fps YUYV in $WORK"
ffmpeg -v error -f lavfi -i "testsrc2=size=1280x720:rate=30:duration=$((LIVE_SECONDS + 5))" \
  -pix_fmt yuyv422 -c:v rawvideo "$WORK/cam.nut"

# timed NAME COMMAND...: runs it until SIGINT at LIVE_SECONDS (both finish their files
# on it), counting its threads halfway.
timed() {
  local name=$1; shift
  sleep 3
  /usr/bin/time -o "$WORK/time" -f "%e %U %S %M" "$@" >"$WORK/$name.out" 2>&1 &
  local timer=$!
  sleep $((LIVE_SECONDS / 2))
  local pid; pid=$(pgrep -P "$timer" | head -n 1 || true)
  local threads; threads=$(ls "/proc/$pid/task" 2>/dev/null | wc -l)
  sleep $((LIVE_SECONDS - LIVE_SECONDS / 2))
  kill -INT "$pid" 2>/dev/null || true
  wait "$timer" || true
  # (the last line: ffmpeg stopped by SIGINT exits 255, which time says on a line first)
  read -r wall user sys rss < <(tail -n 1 "$WORK/time")
  local cpu; cpu=$(echo "$user + $sys" | bc)
  printf '  %-13s wall %6.2f s   cpu %6.2f s   peak RSS %4d MB   %3d threads\n' "$name" "$wall" "$cpu" $((rss / 1024)) "$threads"
  echo "$cpu $rss" >>"$WORK/$name.cpu"
}

camfx_two() {
  cat >"$WORK/cams.yml" <<YML
cameras:
  a: {input: $WORK/cam.nut, realtime: true, y: true, output: $WORK/camfx-a.mp4}
  b: {input: $WORK/cam.nut, realtime: true, y: true, output: $WORK/camfx-b.mp4}
mosaic: {layout: hstack, size: 2560x720, output: $WORK/camfx-m-$RANDOM.mp4}
YML
  timed camfx-two "$CAMFX" run --quiet "$WORK/cams.yml"
  grep -E "recorded" "$WORK/camfx-two.out" | sed 's/^/     /; s/ to [^ ]*: [0-9.]* [kM]B, [0-9.]* [kM]bit\/s,/:/'
}
ffmpeg_two() {
  timed ffmpeg-two ffmpeg -v error -y -re -i "$WORK/cam.nut" -re -i "$WORK/cam.nut" -filter_complex \
    "[0:v]format=yuv420p,split[a][a2];[1:v]format=yuv420p,split[b][b2];[a2][b2]xstack=inputs=2:layout=0_0|w0_0[m]" \
    -map "[a]" "${X264[@]}" "$WORK/ffmpeg-a.mp4" -map "[b]" "${X264[@]}" "$WORK/ffmpeg-b.mp4" \
    -map "[m]" "${X264[@]}" "$WORK/ffmpeg-m.mp4"
  for f in a b m; do
    echo "     $f: $(ffprobe -v error -count_frames -select_streams v -show_entries stream=nb_read_frames,width -of csv=p=0 "$WORK/ffmpeg-$f.mp4") (width, frames)"
  done
}
camfx_grid() {
  timed camfx-grid "$CAMFX" record --quiet --source "$WORK/cam.nut" --source "$WORK/cam.nut" --source "$WORK/cam.nut" \
    --source "$WORK/cam.nut" --layout grid --mosaic-size 1280x720 -y -o "$WORK/camfx-grid.mp4"
  sed 's/^/     /; s/ to [^ ]*: [0-9.]* [kM]B, [0-9.]* [kM]bit\/s,/:/' "$WORK/camfx-grid.out" | grep recorded || true
}
ffmpeg_grid() {
  local inputs=() scaled="" names=""
  for i in 0 1 2 3; do
    inputs+=(-re -i "$WORK/cam.nut")
    scaled+="[$i:v]format=yuv420p,scale=640:360[s$i];"
    names+="[s$i]"
  done
  timed ffmpeg-grid ffmpeg -v error -y "${inputs[@]}" -filter_complex \
    "${scaled}${names}xstack=inputs=4:layout=0_0|w0_0|0_h0|w0_h0[m]" -map "[m]" "${X264[@]}" "$WORK/ffmpeg-grid.mp4"
  echo "     $(ffprobe -v error -count_frames -select_streams v -show_entries stream=nb_read_frames,width -of csv=p=0 "$WORK/ffmpeg-grid.mp4") (width, frames)"
}

for case in $CASES; do
  echo "$case: $ROUNDS rounds of $LIVE_SECONDS s, alternating"
  for round in $(seq "$ROUNDS"); do
    if ((round % 2)); then "camfx_$case"; "ffmpeg_$case"; else "ffmpeg_$case"; "camfx_$case"; fi
  done
  paste "$WORK/camfx-$case.cpu" "$WORK/ffmpeg-$case.cpu" | awk -v name="$case" '
    { n++; a += $1; b += $3; if ($2 > ar) ar = $2; if ($4 > br) br = $4 }
    END { printf "%s: camfx CPU mean %.2f s against ffmpeg %.2f s (%.2fx); peak RSS %d MB against %d MB\n", name, a / n, b / n, a / b, ar / 1024, br / 1024 }'
done
