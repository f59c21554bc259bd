#!/usr/bin/env bash
# A long live recording, as a service would run it (issue 11): testsrc 1280x720 at 30 fps
# with --segment 1m --keep 5 for SOAK_SECONDS (default 1 h), sampling the recorder's
# RSS, open file descriptors and status once a minute, then checking every kept segment
# and the A/V drift of the last one. Expected: RSS at the end within 5 MB of RSS after
# the first 5 minutes, 0 drops, fds flat, every kept segment plays, drift under a frame.
#
#   bash benchmarks/soak.sh                    # 1 h
#   SOAK_SECONDS=600 bash benchmarks/soak.sh   # 10 min
set -euo pipefail
cd "$(dirname "$0")/.."
CAMFX=${CAMFX:-.build/release/camfx}
SOAK_SECONDS=${SOAK_SECONDS:-3600}
SAMPLE_SECONDS=${SAMPLE_SECONDS:-60}
WORK=${SOAK_DIR:-$(mktemp -d /tmp/camfx-soak.XXXXXX)}
[ -x "$CAMFX" ] || { echo "no $CAMFX: run make release first" >&2; exit 1; }
mkdir -p "$WORK"
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); $SOAK_SECONDS s into $WORK"

"$CAMFX" record --size 1280x720 --fps 30 --audio sine --x264-preset veryfast --segment 1m --keep 5 \
  --duration "${SOAK_SECONDS}s" --stats-json "$WORK/stats.json" -o "$WORK/soak.mp4" 2>"$WORK/stderr.txt" &
pid=$!
printf '%8s %10s %5s %10s\n' "seconds" "rss_kB" "fds" "segments"
start=$(date +%s)
rss5=""
while kill -0 "$pid" 2>/dev/null; do
  now=$(( $(date +%s) - start ))
  rss=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
  fds=$(ls "/proc/$pid/fd" 2>/dev/null | wc -l)
  segs=$(ls "$WORK" | grep -c '^soak-.*\.mp4$' || true)
  printf '%8d %10s %5s %10s\n' "$now" "$rss" "$fds" "$segs" | tee -a "$WORK/samples.txt"
  if [ -z "$rss5" ] && [ "$now" -ge 300 ]; then rss5=$rss; fi
  sleep "$SAMPLE_SECONDS"
done
wait "$pid" || { echo "camfx exited non-zero:"; cat "$WORK/stderr.txt"; exit 1; }
tail -n 1 "$WORK/stderr.txt"

last_rss=$(awk 'END {print $2}' "$WORK/samples.txt")
echo "RSS after 5 min: ${rss5:-n/a} kB, at the end: $last_rss kB${rss5:+ (change $(( last_rss - rss5 )) kB)}"
echo "fds: $(awk '{print $3}' "$WORK/samples.txt" | sort -n | uniq | tr '\n' ' ')(distinct counts seen)"
python3 - "$WORK/stats.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
print(f"frames in {s['frames_in']}, out {s['frames_out']}, dropped {s['dropped']}, stop {s['stop_reason']}")
kept = [g for g in s.get('segments', []) if g['kept']]
print(f"segments made {len(s.get('segments', []))}, kept {len(kept)}: " + ", ".join(g['name'].split('/')[-1] for g in kept))
PY
bad=0
for f in "$WORK"/soak-*.mp4; do
  errors=$(ffmpeg -v error -i "$f" -f null - 2>&1 | wc -l)
  # (A here-string ends with a newline; `read` fails at an unterminated last line.)
  read -r v a <<<"$(ffprobe -v error -show_entries stream=duration -of csv=p=0 "$f" | tr '\n' ' ')"
  awk -v f="$(basename "$f")" -v v="$v" -v a="$a" -v e="$errors" \
    'BEGIN { printf "%s: video %.3f s, audio %.3f s, drift %+.3f s, decode errors %d\n", f, v, a, a - v, e }'
  [ "$errors" -eq 0 ] || bad=1
done
[ "$bad" -eq 0 ] && echo "every kept segment plays"
[ -n "${SOAK_DIR:-}" ] || rm -rf "$WORK"
