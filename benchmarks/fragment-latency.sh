#!/usr/bin/env bash
# How far behind the camera a crash-safe file is: a live 640x360 recording with sound
# (testsrc, as the kill -9 test records) is watched every 3 ms for SECONDS seconds; for
# each fragment, the media time it ends at and when its last byte reached the file,
# both counted from the file's first byte. The difference is what a kill -9 loses
# beyond the fragment itself: the encoder's delay (x264's lookahead and B-frames) and
# the pipeline's. Printed for the default encoder settings and for --tune zerolatency.
#
#   bash benchmarks/fragment-latency.sh
#   CAMFX=.build/debug/camfx SECONDS_EACH=10 bash benchmarks/fragment-latency.sh
set -euo pipefail
cd "$(dirname "$0")/.."
CAMFX=${CAMFX:-.build/release/camfx}
SECONDS_EACH=${SECONDS_EACH:-7}
[ -x "$CAMFX" ] || { echo "no $CAMFX: run make release first" >&2; exit 1; }
WORK=$(mktemp -d /tmp/camfx-fragment-latency.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for settings in "" "--tune zerolatency"; do
  echo "settings: ${settings:-default}"
  # shellcheck disable=SC2086
  python3 - "$CAMFX" "$WORK/k.mp4" "$SECONDS_EACH" $settings <<'PY'
import os, struct, subprocess, sys, time
camfx, movie, seconds, extra = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4:]
if os.path.exists(movie): os.remove(movie)
process = subprocess.Popen([camfx, "record", "--source", "testsrc", "--size", "640x360", "--audio", "sine", "-o", movie] + extra,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
while not (os.path.exists(movie) and os.path.getsize(movie) > 0):
    if process.poll() is not None: sys.exit("camfx record ended before writing")
    time.sleep(0.002)
first = time.monotonic()
growth, last = [], 0
while time.monotonic() - first < seconds:
    size = os.path.getsize(movie)
    if size != last: growth.append((time.monotonic() - first, size)); last = size
    time.sleep(0.003)
process.kill(); process.wait()
data = open(movie, "rb").read()
ends, offset = [], 0
while offset + 8 <= len(data):
    size, kind = struct.unpack(">I4s", data[offset:offset + 8])
    if size < 8: break
    if kind == b"mdat": ends.append(offset + size)
    offset += size
probe = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v", "-show_entries", "packet=pts_time,pos",
                        "-of", "csv=p=0", movie], capture_output=True, text=True, check=True).stdout
packets = [(float(t), int(p)) for t, p in (line.split(",") for line in probe.split() if "," in line)]
behind = []
for end in ends:
    arrived = next((t for t, size in growth if size >= end), None)
    media = max((t for t, position in packets if position < end), default=0) + 1 / 30
    if arrived is None: continue
    behind.append(arrived - media)
    print("  fragment ending at %.3f s of media reached the file at %.3f s: %.3f s behind" % (media, arrived, arrived - media))
if behind: print("  behind: min %.3f, mean %.3f, max %.3f s" % (min(behind), sum(behind) / len(behind), max(behind)))
PY
done
