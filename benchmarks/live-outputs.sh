#!/usr/bin/env bash
# The live outputs' costs (issue 13), 720p30 from the test pattern on the wall clock:
#   1. the preview: CPU of a recording with one client on /stream.mjpeg (15 fps) against
#      none;
#   2. one encode to three outputs (a file, RTMP into nginx, HLS) against three camfx
#      runs with one output each (summed);
#   3. latency from capture to a player on loopback, over RTMP (nginx-rtmp) and SRT
#      (the player listens, camfx calls), with x264's default tune and with
#      --tune zerolatency: the player is ffprobe printing each frame's timestamp as it
#      decodes it; a frame's latency is its arrival (wall clock) less its capture time
#      (the recording's first_frame_epoch plus the frame's timestamp from the first).
# Each run is ROUNDS times, alternating; CPU is user + sys of the camfx processes. Needs
# nginx with libnginx-mod-rtmp, ffmpeg/ffprobe, curl and python3 (scripts/setup.sh
# --test installs them). Run on an otherwise idle machine.
#
#   bash benchmarks/live-outputs.sh                  # 20 s runs, 2 rounds
#   SECONDS_PER_RUN=10 ROUNDS=3 bash benchmarks/live-outputs.sh
#   PARTS=3 bash benchmarks/live-outputs.sh          # the latency only
set -euo pipefail
cd "$(dirname "$0")/.."
CAMFX=${CAMFX:-$PWD/.build/release/camfx}
ROUNDS=${ROUNDS:-2}
RUN=${SECONDS_PER_RUN:-20}
PARTS=${PARTS:-123}
WORK=$(mktemp -d "${BENCH_DIR:-/tmp}/camfx-live-outputs.XXXXXX")
NGINX_PID=""
cleanup() {
  [ -n "$NGINX_PID" ] && kill "$NGINX_PID" 2>/dev/null || true
  jobs -p | xargs -r kill 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

[ -x "$CAMFX" ] || { echo "no $CAMFX: run make release first" >&2; exit 1; }
for tool in nginx ffprobe curl python3; do command -v $tool >/dev/null || { echo "$tool is not installed" >&2; exit 1; }; done
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
cpu_of() { awk '{ printf "%.2f", $2 + $3 }' "$1"; }
source_args=(--source testsrc --size 1280x720 --fps 30 --quiet)

# nginx-rtmp on a free port, live only (no recording).
RTMP_PORT=$(free_port)
mkdir -p "$WORK/nginx"
cat >"$WORK/nginx/nginx.conf" <<EOF
load_module /usr/lib/nginx/modules/ngx_rtmp_module.so;
user root;
daemon off;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/error.log;
events { worker_connections 64; }
rtmp { server { listen 127.0.0.1:$RTMP_PORT; application live { live on; } } }
EOF
nginx -c "$WORK/nginx/nginx.conf" -p "$WORK/nginx" &
NGINX_PID=$!
sleep 0.5
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); runs of ${RUN} s, ${ROUNDS} rounds"

[[ $PARTS == *1* ]] && echo "1. preview cost (720p30 recording to a file)"
[[ $PARTS == *1* ]] && for round in $(seq "$ROUNDS"); do
  /usr/bin/time -o "$WORK/t" -f "%e %U %S" "$CAMFX" record "${source_args[@]}" --duration "${RUN}s" -y \
    -o "$WORK/plain.mp4" --stats-json "$WORK/plain.json" 2>/dev/null
  printf '  no viewer     cpu %6s s  dropped %s\n' "$(cpu_of "$WORK/t")" "$(python3 -c "import json;print(json.load(open('$WORK/plain.json'))['dropped'])")"
  PORT=$(free_port)
  /usr/bin/time -o "$WORK/t" -f "%e %U %S" "$CAMFX" record "${source_args[@]}" --duration "${RUN}s" -y \
    -o "$WORK/viewed.mp4" --stats-json "$WORK/viewed.json" --preview "127.0.0.1:$PORT" 2>/dev/null &
  camfx_pid=$!
  for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$PORT/state" && break; sleep 0.1; done
  curl -s -o "$WORK/stream.mjpeg" "http://127.0.0.1:$PORT/stream.mjpeg" || true
  wait "$camfx_pid"
  jpegs=$(python3 -c "print(open('$WORK/stream.mjpeg','rb').read().count(b'\xff\xd8\xff'))")
  printf '  one viewer    cpu %6s s  dropped %s  (%s JPEGs, %s bytes to the viewer)\n' "$(cpu_of "$WORK/t")" \
    "$(python3 -c "import json;print(json.load(open('$WORK/viewed.json'))['dropped'])")" "$jpegs" "$(stat -c %s "$WORK/stream.mjpeg")"
done

[[ $PARTS == *2* ]] && echo "2. one encode to three outputs against three runs (file, RTMP, HLS)"
[[ $PARTS == *2* ]] && for round in $(seq "$ROUNDS"); do
  mkdir -p "$WORK/hls1" "$WORK/hls2"
  /usr/bin/time -o "$WORK/t" -f "%e %U %S" "$CAMFX" record "${source_args[@]}" --duration "${RUN}s" -y \
    -o "$WORK/one.mp4" -o "rtmp://127.0.0.1:$RTMP_PORT/live/one" -o "$WORK/hls1/index.m3u8" 2>/dev/null
  printf '  one encode    cpu %6s s\n' "$(cpu_of "$WORK/t")"
  /usr/bin/time -o "$WORK/t1" -f "%e %U %S" "$CAMFX" record "${source_args[@]}" --duration "${RUN}s" -y -o "$WORK/a.mp4" 2>/dev/null &
  p1=$!
  /usr/bin/time -o "$WORK/t2" -f "%e %U %S" "$CAMFX" record "${source_args[@]}" --duration "${RUN}s" -y \
    -o "rtmp://127.0.0.1:$RTMP_PORT/live/two" 2>/dev/null &
  p2=$!
  /usr/bin/time -o "$WORK/t3" -f "%e %U %S" "$CAMFX" record "${source_args[@]}" --duration "${RUN}s" -y \
    -o "$WORK/hls2/index.m3u8" 2>/dev/null &
  p3=$!
  wait $p1 $p2 $p3
  printf '  three runs    cpu %6s s (file %s, RTMP %s, HLS %s)\n' \
    "$(echo "$(cpu_of "$WORK/t1") + $(cpu_of "$WORK/t2") + $(cpu_of "$WORK/t3")" | bc)" \
    "$(cpu_of "$WORK/t1")" "$(cpu_of "$WORK/t2")" "$(cpu_of "$WORK/t3")"
  rm -rf "$WORK/hls1" "$WORK/hls2"
done

# Stamps each line of the player's output with the time it arrived.
cat >"$WORK/stamp.py" <<'EOF'
import sys, time
for line in sys.stdin:
    line = line.strip()
    if line and line[0].isdigit():
        print(f"{time.time():.6f} {line}", flush=True)
EOF
cat >"$WORK/latency.py" <<'EOF'
import json, sys
stats, arrivals = sys.argv[1], sys.argv[2]
epoch = json.load(open(stats))["first_frame_epoch"]
rows = [line.split() for line in open(arrivals) if len(line.split()) == 2]
if not rows:
    print("no frames arrived"); sys.exit(0)
# camfx's FLV and MPEG-TS timestamps start at 0 with the first frame it captured (a
# player that joins later, at a keyframe, sees the same timeline).
first_pts = float(rows[0][1].rstrip(","))
lat = sorted((float(t) - (epoch + float(p.rstrip(",")))) * 1000 for t, p in rows if float(p.rstrip(",")) >= 3)
if not lat:
    print("too few frames"); sys.exit(0)
print(f"{len(rows)} frames from {first_pts:.2f} s; after 3 s: median {lat[len(lat)//2]:.0f} ms, p95 {lat[int(len(lat)*0.95)]:.0f} ms")
EOF
player_flags=(-v error -fflags nobuffer -flags low_delay -probesize 32 -analyzeduration 0 -select_streams v
  -show_entries frame=pts_time -of csv=p=0)

# One latency run: the player reads PLAY_URL (started first, so that it is waiting),
# camfx writes to OUT_URL with the tune; prints the figures on a line labelled LABEL.
latency() {
  local label=$1 play_url=$2 out_url=$3; shift 3
  (stdbuf -oL ffprobe "${player_flags[@]}" "$play_url" 2>/dev/null | python3 "$WORK/stamp.py" >"$WORK/arrivals.txt") &
  local player=$!
  sleep 1
  "$CAMFX" record "${source_args[@]}" "$@" --duration "${RUN}s" -y --stats-json "$WORK/latency.json" -o "$out_url" 2>/dev/null
  sleep 1; pkill -f "ffprobe.*${play_url%%\?*}" 2>/dev/null || true; wait $player 2>/dev/null || true
  printf '  %-17s %s\n' "$label" "$(python3 "$WORK/latency.py" "$WORK/latency.json" "$WORK/arrivals.txt")"
}

[[ $PARTS == *3* ]] && echo "3. latency, capture to player (frames after the first 3 s)"
[[ $PARTS == *3* ]] && for round in $(seq "$ROUNDS"); do
  for tune in default zerolatency; do
    tune_args=(); [ "$tune" = zerolatency ] && tune_args=(--tune zerolatency)
    # RTMP: the player subscribes first; nginx holds it until camfx publishes.
    url="rtmp://127.0.0.1:$RTMP_PORT/live/lat$round$tune"
    latency "RTMP $tune" "$url" "$url" "${tune_args[@]}"
    # SRT: the player listens (latency 120 ms, SRT's default), camfx calls it.
    SRT_PORT=$(free_port)
    latency "SRT  $tune" "srt://127.0.0.1:$SRT_PORT?mode=listener" "srt://127.0.0.1:$SRT_PORT?mode=caller" "${tune_args[@]}"
  done
done
