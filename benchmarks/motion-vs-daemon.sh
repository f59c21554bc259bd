#!/usr/bin/env bash
# camfx's motion detector against Debian's `motion` daemon (4.5.1) on the same made-up
# movies (SIZE, default 320x240, 30 fps, 14 s, H.264 with a keyframe a second):
#   box    a still, noisy gradient (luma 60 + x/8 + y/8, Gaussian noise sigma 3) with a
#          48x48 white box at y=96 from 6 s to 9 s, moving right 60 px/s from x=40;
#   noise  the gradient and its noise only;
#   step   the gradient, everything 40 levels brighter from 5 s (a light switch);
#   ramp   the gradient growing 80 levels brighter, evenly, from 2 s to 12 s.
# Prints, per movie, the events each found, when they start (seconds into the movie) and
# the CPU seconds (user + sys) each took. camfx runs `camfx motion FILE --json` with its
# defaults, as fast as it goes. motion reads the movie itself (netcam_url file://...,
# its ffmpeg-based netcam) at its framerate, so in real time: it runs with its own
# defaults (threshold 1500 pixels, noise_tune on, no despeckle, no light-switch check)
# and event_gap 1, and is stopped when it reaches the end of the file (it would loop).
# Its event starts are the wall-clock seconds from the log's "Camera ... connected" to
# "Motion detected - starting event", each line time-stamped as it lands in the log.
# motion's noise_tune starts high and settles over several seconds (on these movies at
# about 43 luma levels: see setup_mode's "Changes: N - noise level: L" lines), so a
# change smaller than that counts for nothing; MOTION_CONF adds config lines to try
# others. Installs motion with apt-get when missing (Debian's package also enables
# motion.service, which on a host with systemd starts it on /dev/video0 with
# /etc/motion/motion.conf); nothing leaves the machine.
#
#   bash benchmarks/motion-vs-daemon.sh
#   SIZE=640x480 bash benchmarks/motion-vs-daemon.sh
#   CAMFX=.build/debug/camfx MOVIES="box step" bash benchmarks/motion-vs-daemon.sh
#   MOTION_CONF=$'noise_tune off\nnoise_level 32' MOVIES=step bash benchmarks/motion-vs-daemon.sh
set -euo pipefail
cd "$(dirname "$0")/.."
# The release build when it has `motion --json` (it may be older than the debug one).
has_motion() { [ -x "$1" ] && "$1" motion --help 2>/dev/null | grep -q -- --json; }
if [ -z "${CAMFX:-}" ]; then
  CAMFX=.build/release/camfx
  has_motion "$CAMFX" || { [ ! -x "$CAMFX" ] || echo "($CAMFX has no 'motion --json': an older build)"; CAMFX=.build/debug/camfx; }
fi
SIZE=${SIZE:-320x240}
MOVIES=${MOVIES:-box noise step ramp}
MOTION_CONF=${MOTION_CONF:-}   # more lines for motion's config, e.g. "noise_tune off"
has_motion "$CAMFX" || { echo "no $CAMFX with 'motion --json': run make release first" >&2; exit 1; }
command -v ffmpeg >/dev/null || { echo "ffmpeg is not installed (apt-get install ffmpeg)" >&2; exit 1; }
if ! command -v motion >/dev/null; then
  echo "installing motion (apt-get install motion)"
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends motion >/dev/null
fi
WORK=$(mktemp -d "${BENCH_DIR:-/tmp}/camfx-motion.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
W=${SIZE%x*} H=${SIZE#*x}

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "camfx: $CAMFX$(case $CAMFX in *debug*) echo " (a debug build: slower than release)";; esac)"
echo "motion: $(motion -h 2>&1 | sed -n 's/^motion Version \([^,]*\),.*/\1/p' | head -1) ($(command -v motion))"
echo "making 14 s movies of $SIZE at 30 fps in $WORK: $MOVIES"
cat >"$WORK/make.py" <<'PY'
import sys, numpy as np
kind, w, h = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
fps, seconds, s = 30, 14, w / 320          # s scales the box for sizes other than 320x240
rng = np.random.default_rng(1)
y, x = np.mgrid[0:h, 0:w]
base = 60 + x / 8 / s + y / 8 / s
out = sys.stdout.buffer
for i in range(fps * seconds):
    t = i / fps
    f = base + rng.normal(0, 3, (h, w))
    if kind == "step" and t >= 5: f += 40
    if kind == "ramp": f += 80 * min(max((t - 2) / 10, 0), 1)
    if kind == "box" and 6 <= t < 9:
        bx, by, side = round((40 + 60 * (t - 6)) * s), round(96 * s), round(48 * s)
        f[by:by + side, bx:bx + side] = 220
    out.write(np.clip(np.rint(f), 0, 255).astype(np.uint8).tobytes())
PY
for m in $MOVIES; do
  python3 "$WORK/make.py" "$m" "$W" "$H" | ffmpeg -v error -f rawvideo -pix_fmt gray -s "$SIZE" -r 30 -i - \
    -pix_fmt yuv420p -c:v libx264 -g 30 -preset veryfast "$WORK/$m.mp4"
done

# camfx: prints "EVENTS STARTS CPU" (STARTS comma-separated, - for none).
camfx_run() {
  /usr/bin/time -o "$WORK/time" -f "%U %S" "$CAMFX" motion "$WORK/$1.mp4" --json >"$WORK/$1.json" 2>"$WORK/$1.camfx.err" \
    || { cat "$WORK/$1.camfx.err" >&2; exit 1; }
  read -r user sys <"$WORK/time"
  python3 - "$WORK/$1.json" "$user" "$sys" <<'PY'
import json, sys
e = json.load(open(sys.argv[1]))
print(len(e), ",".join("%.2f" % x["start"] for x in e) or "-", "%.2f" % (float(sys.argv[2]) + float(sys.argv[3])))
PY
}

# motion: runs the daemon in the foreground on one movie, watching its log; prints
# "EVENTS STARTS CPU PASS" (PASS: wall seconds from connecting to the end of the file).
motion_run() {
  local dir=$WORK/motion-$1
  mkdir -p "$dir"
  cat >"$dir/motion.conf" <<EOF
daemon off
setup_mode off
log_level 7
target_dir $dir
netcam_url file://$WORK/$1.mp4
netcam_params capture_rate=30
width $W
height $H
framerate 30
threshold 1500
noise_tune on
event_gap 1
picture_output off
movie_output off
webcontrol_port 0
stream_port 0
$MOTION_CONF
EOF
  python3 - "$dir" <<'PY'
import os, re, signal, subprocess, sys, time
d = sys.argv[1]
log = os.path.join(d, "motion.log")
p = subprocess.Popen(["motion", "-n", "-c", os.path.join(d, "motion.conf"), "-l", log],
                     stdout=open(os.path.join(d, "stdout"), "w"), stderr=subprocess.STDOUT)
t0 = eof = None; starts = []; buf = ""; pos = 0
deadline = time.monotonic() + 40
try:
    while eof is None and time.monotonic() < deadline and p.poll() is None:
        time.sleep(0.01)
        if not os.path.exists(log): continue
        with open(log) as f:
            f.seek(pos); chunk = f.read(); pos = f.tell()
        now = time.monotonic(); buf += chunk
        *lines, buf = buf.split("\n")
        for line in lines:
            if t0 is None and re.search(r"netcam_rtsp_connect: .*connected", line): t0 = now
            elif t0 is not None and "Motion detected - starting event" in line: starts.append(now - t0)
            elif t0 is not None and "av_read_frame: End of file" in line: eof = now; break
finally:
    if p.poll() is None: p.send_signal(signal.SIGTERM)
    try:
        _, status, ru = os.wait4(p.pid, 0)
    except ChildProcessError:     # already reaped by poll(): no rusage left to read
        ru = None
if t0 is None or eof is None:
    sys.stderr.write("motion did not %s; the end of its log (%s):\n" % ("connect" if t0 is None else "reach the end of the movie", log))
    sys.stderr.write("".join(open(log).readlines()[-15:]) if os.path.exists(log) else "(no log)\n")
    sys.exit(1)
print(len(starts), ",".join("%.2f" % s for s in starts) or "-", "%.2f" % (ru.ru_utime + ru.ru_stime) if ru else "n/a",
      "%.2f" % (eof - t0))
PY
}

printf '%-6s | %-6s %-22s %7s | %-6s %-22s %7s %6s\n' movie camfx "starts (s)" "cpu s" motion "starts (s)" "cpu s" "pass s"
for m in $MOVIES; do
  c=$(camfx_run "$m") && o=$(motion_run "$m") || exit 1
  read -r ce cs cc <<<"$c"
  read -r me ms mc mp <<<"$o"
  printf '%-6s | %-6s %-22s %7s | %-6s %-22s %7s %6s\n' "$m" "$ce" "$cs" "$cc" "$me" "$ms" "$mc" "$mp"
done
echo "(motion's starts: wall seconds after it connected to the file; 'pass s' is how long it took to reach the"
echo " end of the 14 s movie. camfx's: the movie's own timestamps. motion's threshold is 1500 changed pixels,"
echo " $(awk -v n=$((W * H)) 'BEGIN { printf "%.2f", 150000 / n }')% of a $SIZE picture; camfx's default area is 0.5%.)"
