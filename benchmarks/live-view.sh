#!/usr/bin/env bash
# The live view measured (benchmarks/live-view.py does the work, with Python's standard
# library): latency from capture to the screen in headless Chromium, as the page reads
# it from each fragment's capture stamp, with and without sound (median, 95th percentile, and with
# DRIFT_MINUTES=10 the first minute against the last), and the CPU of camfx over
# LIVE_SECONDS of 720p30 with 0, 1 and 16 live viewers (sockets that read and discard)
# beside 1 and 16 MJPEG viewers, ROUNDS alternating rounds.
#
#   make release && bash benchmarks/live-view.sh
#   LIVE_SECONDS=20 ROUNDS=1 bash benchmarks/live-view.sh
#   DRIFT_MINUTES=10 ROUNDS=0 bash benchmarks/live-view.sh     # latency over 10 minutes only
set -euo pipefail
cd "$(dirname "$0")/.."
export CAMFX=${CAMFX:-.build/release/camfx}
[ -x "$CAMFX" ] || { echo "no $CAMFX: run make release first" >&2; exit 1; }
exec python3 benchmarks/live-view.py
