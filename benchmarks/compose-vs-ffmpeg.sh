#!/usr/bin/env bash
# camfx compose against the ffmpeg commands that make the same movies (issue 14), with
# the same x264 settings (veryfast, CRF 23, GOP 60, no B-frames) and AAC 128 kbit/s,
# alternating ROUNDS times; prints wall time, CPU (user + sys) and peak RSS of each run:
#   1. two 10 s 1080p30 clips with a 1 s cross-fade: camfx --transition fade=1s against
#      ffmpeg's xfade=transition=fade + acrossfade;
#   2. ten 10 s clips joined with no transition: camfx against ffmpeg's concat demuxer,
#      re-encoding.
# Run on an otherwise idle machine.
#
#   bash benchmarks/compose-vs-ffmpeg.sh            # 2 rounds
#   ROUNDS=3 CLIP_SECONDS=5 bash benchmarks/compose-vs-ffmpeg.sh
set -euo pipefail
cd "$(dirname "$0")/.."
CAMFX=${CAMFX:-$PWD/.build/release/camfx}
ROUNDS=${ROUNDS:-2}
CLIP_SECONDS=${CLIP_SECONDS:-10}
WORK=$(mktemp -d "${BENCH_DIR:-/tmp}/camfx-compose.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

[ -x "$CAMFX" ] || { echo "no $CAMFX: run make release first" >&2; exit 1; }
command -v ffmpeg >/dev/null || { echo "ffmpeg is not installed (apt-get install ffmpeg)" >&2; exit 1; }
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "making 10 clips of ${CLIP_SECONDS} s, 1920x1080 30 fps with a tone, in $WORK"
for i in 0 1 2 3 4 5 6 7 8 9; do
  ffmpeg -v error -f lavfi -i "testsrc2=size=1920x1080:rate=30:duration=$CLIP_SECONDS" \
    -f lavfi -i "sine=f=$((300 + 100 * i)):duration=$CLIP_SECONDS" \
    -c:v libx264 -preset ultrafast -crf 18 -c:a aac -shortest "$WORK/c$i.mp4"
  echo "file '$WORK/c$i.mp4'" >>"$WORK/list.txt"
done
x264=(-c:v libx264 -preset veryfast -crf 23 -bf 0 -g 60 -pix_fmt yuv420p -c:a aac -b:a 128k)
offset=$((CLIP_SECONDS - 1))

timed() {
  local name=$1; shift
  /usr/bin/time -o "$WORK/time" -f "%e %U %S %M" "$@" >"$WORK/$name.out" 2>&1 || { cat "$WORK/$name.out"; exit 1; }
  read -r wall user sys rss <"$WORK/time"
  printf '  %-14s wall %6.2f s   cpu %6.2f s   peak RSS %5d MB\n' "$name" "$wall" "$(echo "$user + $sys" | bc)" $((rss / 1024))
}

echo "1. cross-fade: two clips, fade=1s (${ROUNDS} rounds)"
for round in $(seq "$ROUNDS"); do
  timed camfx "$CAMFX" compose "$WORK/c0.mp4" "$WORK/c1.mp4" --transition fade=1s \
    --x264-preset veryfast --crf 23 --quiet -y -o "$WORK/camfx-fade.mp4"
  timed ffmpeg ffmpeg -v error -y -i "$WORK/c0.mp4" -i "$WORK/c1.mp4" -filter_complex \
    "[0:v][1:v]xfade=transition=fade:duration=1:offset=$offset[v];[0:a][1:a]acrossfade=d=1[a]" \
    -map "[v]" -map "[a]" "${x264[@]}" "$WORK/ffmpeg-fade.mp4"
done
echo "   frames: camfx $(ffprobe -v error -count_frames -select_streams v -show_entries stream=nb_read_frames -of csv=p=0 "$WORK/camfx-fade.mp4"), ffmpeg $(ffprobe -v error -count_frames -select_streams v -show_entries stream=nb_read_frames -of csv=p=0 "$WORK/ffmpeg-fade.mp4")"

echo "2. join: ten clips, no transition (${ROUNDS} rounds)"
for round in $(seq "$ROUNDS"); do
  timed camfx "$CAMFX" compose "$WORK"/c{0,1,2,3,4,5,6,7,8,9}.mp4 --x264-preset veryfast --crf 23 --quiet -y -o "$WORK/camfx-join.mp4"
  timed ffmpeg-concat ffmpeg -v error -y -f concat -safe 0 -i "$WORK/list.txt" "${x264[@]}" "$WORK/ffmpeg-join.mp4"
done
echo "   frames: camfx $(ffprobe -v error -count_frames -select_streams v -show_entries stream=nb_read_frames -of csv=p=0 "$WORK/camfx-join.mp4"), ffmpeg $(ffprobe -v error -count_frames -select_streams v -show_entries stream=nb_read_frames -of csv=p=0 "$WORK/ffmpeg-join.mp4")"
