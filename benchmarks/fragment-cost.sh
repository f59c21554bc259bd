#!/usr/bin/env bash
# What crash safety costs (issue 11), measured side by side:
#   1. the 10 s 1080p30 transcode of record-vs-ffmpeg.sh (mirror, veryfast, CRF 23, GOP 60)
#      written fragmented (the default: a fragment a second, each fdatasync'ed, then the
#      in-place finish) against --fragment 1h (one fragment for the whole clip, written at the end), in
#      alternating rounds: wall and CPU seconds, and the fdatasync and finish times;
#   2. the in-place finish of a 1-hour recording (320x240 at 30 fps, sound): index_seconds;
#   3. live 1080p30 with --segment 10s for LIVE_SECONDS (default 60): frames dropped.
#
#   bash benchmarks/fragment-cost.sh
#   ROUNDS=3 HOUR=0 LIVE_SECONDS=0 bash benchmarks/fragment-cost.sh
set -euo pipefail
cd "$(dirname "$0")/.."
CAMFX=${CAMFX:-.build/release/camfx}
ROUNDS=${ROUNDS:-8}
HOUR=${HOUR:-1}
LIVE_SECONDS=${LIVE_SECONDS:-60}
WORK=$(mktemp -d /tmp/camfx-fragment-bench.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
[ -x "$CAMFX" ] || { echo "no $CAMFX: run make release first" >&2; exit 1; }
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); work in $WORK ($(df -h --output=fstype,avail "$WORK" | tail -1))"
ffmpeg -v error -f lavfi -i "testsrc2=size=1920x1080:rate=30:duration=10" -f lavfi -i "sine=f=440:duration=10" \
  -c:v libx264 -preset veryfast -crf 20 -g 60 -bf 0 -pix_fmt yuv420p -c:a aac -shortest "$WORK/in.mp4"

json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d.get(sys.argv[2]))" "$1" "$2"; }
run() {  # run NAME EXTRA...: one transcode, appending "wall cpu" to NAME.txt
  local name=$1; shift
  /usr/bin/time -o "$WORK/time" -f "%e %U %S" "$CAMFX" record --input "$WORK/in.mp4" --filter mirror \
    --x264-preset veryfast --crf 23 --gop 60 --quiet -y --stats-json "$WORK/$name.json" "$@" -o "$WORK/$name.mp4" 2>/dev/null
  read -r wall user sys <"$WORK/time"
  echo "$wall $(echo "$user + $sys" | bc)" >>"$WORK/$name.txt"
  printf '  %-11s wall %6.2f s  cpu %6.2f s  fdatasync %s s in %s calls  finish %s s\n' "$name" "$wall" \
    "$(echo "$user + $sys" | bc)" "$(json "$WORK/$name.json" sync_seconds)" "$(json "$WORK/$name.json" syncs)" \
    "$(json "$WORK/$name.json" index_seconds)"
}
echo "1. transcode, $ROUNDS alternating rounds (fragmented = the default)"
for r in $(seq 1 "$ROUNDS"); do
  if (( r % 2 )); then run fragmented; run plain --fragment 1h; else run plain --fragment 1h; run fragmented; fi
done
paste "$WORK/fragmented.txt" "$WORK/plain.txt" | awk '
  { n++; wf += $1; wp += $3; cf += $2; cp += $4; if ($2 < $4) k++ }
  END { printf "   fragmented / plain: mean wall %+.2f %%, mean CPU %+.2f %% (fragmented used less CPU in %d of %d rounds)\n",
        100 * (wf / wp - 1), 100 * (cf / cp - 1), k, n }'
cmp <(ffmpeg -v error -i "$WORK/fragmented.mp4" -f framemd5 - 2>&1) <(ffmpeg -v error -i "$WORK/plain.mp4" -f framemd5 - 2>&1) \
  && echo "   the two movies decode to the same frames, timestamps and sound"

if [ "$HOUR" = 1 ]; then
  echo "2. a 1-hour recording (320x240, 30 fps, sine), flat out, then its in-place finish"
  /usr/bin/time -f "   recorded in %e s" "$CAMFX" record --size 320x240 --fps 30 --duration 1h --no-realtime --audio sine \
    --x264-preset ultrafast --quiet --stats-json "$WORK/hour.json" -o "$WORK/hour.mp4"
  echo "   $(ls -l "$WORK/hour.mp4" | awk '{print $5}') bytes; the finish (index of $(json "$WORK/hour.json" frames_out) frames) took $(json "$WORK/hour.json" index_seconds) s"
  ffprobe -v error -show_entries format=duration -of csv=p=0 "$WORK/hour.mp4" | sed 's/^/   duration as ffprobe reads it: /'
fi

if [ "$LIVE_SECONDS" -gt 0 ]; then
  echo "3. live 1920x1080 at 30 fps with --segment 10s for $LIVE_SECONDS s (veryfast)"
  mkdir -p "$WORK/live"
  "$CAMFX" record --size 1920x1080 --fps 30 --audio sine --segment 10s --duration "${LIVE_SECONDS}s" --quiet \
    --stats-json "$WORK/live.json" -o "$WORK/live/seg.mp4"
  python3 - "$WORK/live.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
print(f"   frames in {s['frames_in']}, written {s['frames_out']}, dropped {s['dropped']}, segments {len(s['segments'])}")
PY
fi
