#!/usr/bin/env bash
# The recording targets, measured side by side (issue 3):
#   1. transcode: `camfx record --input` against the ffmpeg command line doing the same
#      work (H.264 decode, a horizontal flip, then also a PNG overlay; libx264 veryfast
#      CRF 23, GOP 60, no B-frames; AAC), alternating ROUNDS times on one 1080p30 clip;
#   2. live: testsrc 1920x1080 at 30 fps with watermark,grayscale,mirror at veryfast for
#      LIVE_SECONDS, and the frames it dropped.
# Wall clock is what users feel; user+sys CPU seconds are printed too, since on a shared
# machine they move less than the wall clock does. Run on an otherwise idle machine.
#
#   bash benchmarks/record-vs-ffmpeg.sh            # or: make bench-record
#   ROUNDS=5 LIVE_SECONDS=0 bash benchmarks/record-vs-ffmpeg.sh   # transcode only
set -euo pipefail
cd "$(dirname "$0")/.."
CAMFX=${CAMFX:-.build/release/camfx}
ROUNDS=${ROUNDS:-3}
CLIP_SECONDS=${CLIP_SECONDS:-10}
LIVE_SECONDS=${LIVE_SECONDS:-60}
WORK=$(mktemp -d /tmp/camfx-record-bench.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

[ -x "$CAMFX" ] || { echo "no $CAMFX: run make release first" >&2; exit 1; }
command -v ffmpeg >/dev/null || { echo "ffmpeg is not installed (apt-get install ffmpeg)" >&2; exit 1; }

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "making a ${CLIP_SECONDS} s 1920x1080 30 fps H.264 + AAC clip (testsrc2 + sine) and a 256x64 mark"
ffmpeg -v error -f lavfi -i "testsrc2=size=1920x1080:rate=30:duration=$CLIP_SECONDS" \
  -f lavfi -i "sine=f=440:duration=$CLIP_SECONDS" -c:v libx264 -preset veryfast -crf 20 -g 60 -bf 0 \
  -pix_fmt yuv420p -c:a aac -shortest "$WORK/in.mp4"
ffmpeg -v error -f lavfi -i "color=c=red@0.5:s=256x64,format=rgba" -frames:v 1 "$WORK/mark.png"

# timed NAME COMMAND...: prints "NAME wall user+sys" and appends the wall time to NAME's list.
timed() {
  local name=$1; shift
  /usr/bin/time -o "$WORK/time" -f "%e %U %S" "$@" >/dev/null 2>&1
  read -r wall user sys <"$WORK/time"
  printf '  %-9s wall %6.2f s   cpu %6.2f s\n' "$name" "$wall" "$(echo "$user + $sys" | bc)"
  echo "$wall" >>"$WORK/$name.wall"
  echo "$user + $sys" | bc >>"$WORK/$name.cpu"
}
# rounds A B: "k of N rounds, mean wall ±x %, mean CPU ±y %" for A against B, round by round.
rounds() {
  paste "$WORK/$1.wall" "$WORK/$2.wall" "$WORK/$1.cpu" "$WORK/$2.cpu" | awk '
    { n++; if ($1 < $2) k++; wa += $1; wb += $2; ca += $3; cb += $4 }
    END { printf "camfx faster in %d of %d rounds; mean wall %+.1f %%, mean CPU %+.1f %%", k, n, 100 * (wa / wb - 1), 100 * (ca / cb - 1) }'
}
median() { sort -n "$1" | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

frames() { ffprobe -v error -count_frames -select_streams v -show_entries stream=nb_read_frames -of csv=p=0 "$1"; }
# Both sides at their best, on the decoded yuv420p planes: ffmpeg's hflip and overlay
# (its default; the overlay's format=rgb would add two full-frame swscale conversions),
# camfx's mirror and watermark (YUV420VideoFilter). The plain mirror's output is
# byte-identical on both sides, so x264 does exactly the same work.
x264=(-c:v libx264 -preset veryfast -crf 23 -g 60 -bf 0 -c:a aac)
camfx-m() {
  timed camfx-m "$CAMFX" record --input "$WORK/in.mp4" --filter mirror \
    --x264-preset veryfast --crf 23 --gop 60 --quiet -y -o "$WORK/camfx-m.mp4"
}
ffmpeg-m() { timed ffmpeg-m ffmpeg -v error -y -i "$WORK/in.mp4" -vf hflip "${x264[@]}" "$WORK/ffmpeg-m.mp4"; }
camfx-mw() {
  timed camfx-mw "$CAMFX" record --input "$WORK/in.mp4" --filter mirror,watermark=image="$WORK/mark.png" \
    --x264-preset veryfast --crf 23 --gop 60 --quiet -y -o "$WORK/camfx-mw.mp4"
}
ffmpeg-mw() {
  timed ffmpeg-mw ffmpeg -v error -y -i "$WORK/in.mp4" -i "$WORK/mark.png" \
    -filter_complex "[0:v]hflip[f];[f][1:v]overlay=W-w-16:H-h-16" "${x264[@]}" "$WORK/ffmpeg-mw.mp4"
}
# Which side goes first swaps every round, so that neither always follows the other.
echo "transcode, $ROUNDS rounds, alternating:"
for round in $(seq "$ROUNDS"); do
  for pair in m mw; do
    case $pair in
      m) echo " round $round: --filter mirror vs -vf hflip" ;;
      mw) echo " round $round: --filter mirror,watermark vs hflip,overlay" ;;
    esac
    if ((round % 2)); then "camfx-$pair"; "ffmpeg-$pair"; else "ffmpeg-$pair"; "camfx-$pair"; fi
  done
done
for pair in m mw; do
  echo "median wall ($pair): camfx $(median "$WORK/camfx-$pair.wall") s, ffmpeg $(median "$WORK/ffmpeg-$pair.wall") s;" \
    "frames: camfx $(frames "$WORK/camfx-$pair.mp4"), ffmpeg $(frames "$WORK/ffmpeg-$pair.mp4")"
  echo "  $(rounds "camfx-$pair" "ffmpeg-$pair")"
done

if [ "$LIVE_SECONDS" -gt 0 ]; then
  echo "live testsrc 1920x1080@30 with watermark,grayscale,mirror, veryfast, ${LIVE_SECONDS} s:"
  "$CAMFX" record --size 1920x1080 --fps 30 --duration "${LIVE_SECONDS}s" --filter watermark,grayscale,mirror \
    --x264-preset veryfast --quiet --stats-json "$WORK/live.json" -y -o "$WORK/live.mp4" 2>&1 | sed 's/^/  /'
  python3 - "$WORK/live.json" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
d = s["dropped"]
print(f"  written {s['frames_out']}, dropped {sum(d.values())} (late {d['late']}, out-of-buffers {d['out-of-buffers']});"
      f" filter busy {s['busy_seconds']['filter']:.1f} s, writer busy {s['busy_seconds']['writer']:.1f} s")
EOF
fi
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
