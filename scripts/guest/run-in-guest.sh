#!/usr/bin/env bash
# Runs a shell script inside a qemu guest that has real kernel drivers the host lacks:
# vivid (two V4L2 test cameras, /dev/video0 and /dev/video1), snd-aloop (an ALSA loopback
# card) and v4l2loopback (/dev/video10 and /dev/video11: video devices that play back what
# a writer feeds them; built on the host by build-v4l2loopback.sh, left out with a warning
# when it cannot be built).
#
#   scripts/guest/run-in-guest.sh [--timeout SECONDS] [--env NAME=VALUE]... [--file PATH]...
#                                 [--out DIR] SCRIPT
#
# The guest sees the host's whole root read-only (so the host's camfx build, Swift
# runtime, ffmpeg and python3 run there unchanged) with fresh /dev, /proc, /sys, /tmp
# and /run of its own. SCRIPT runs with /bin/sh from the directory this was started in,
# as root, with GUEST_OUT=/tmp/guest/out: files written there are copied to --out DIR;
# each --file is copied in beforehand as $GUEST_IN/NAME (GUEST_IN=/tmp/guest/in).
# The script's stdout and stderr come back as this command's own, and its exit status
# becomes this command's. A guest that hangs is killed after the timeout (default 600 s)
# and fails the run with the tail of its console log.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
timeout_s=600
out_dir=""
envs=()
files=()
usage() { sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while (($#)); do
  case "$1" in
    --timeout) timeout_s="${2:?}"; shift 2 ;;
    --env) envs+=("${2:?}"); shift 2 ;;
    --out) out_dir="${2:?}"; shift 2 ;;
    --file) files+=("${2:?}"); shift 2 ;;
    -h|--help) usage ;;
    --*) echo "run-in-guest: unknown option $1" >&2; usage ;;
    *) break ;;
  esac
done
(($# == 1)) || usage
script="$1"
[[ -f "$script" ]] || { echo "run-in-guest: no such script: $script" >&2; exit 2; }
[[ "$timeout_s" =~ ^[0-9]+$ ]] || { echo "run-in-guest: --timeout wants whole seconds, got $timeout_s" >&2; exit 2; }
qemu="$(command -v qemu-system-x86_64 || true)"
[[ -n "$qemu" ]] || { echo "run-in-guest: qemu-system-x86_64 not found (bash scripts/setup.sh --test installs it)" >&2; exit 2; }
kver="$("$here/guest-kernel.sh")"

started=$(date +%s.%N)
work="$(mktemp -d "${TMPDIR:-/tmp}/camfx-guest.XXXXXX")"
qemu_pid=""
cleanup() {
  [[ -n "$qemu_pid" ]] && kill "$qemu_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

exchange="$work/exchange"
mkdir -p "$exchange/out" "$exchange/in"
chmod 777 "$exchange" "$exchange/out"
for f in "${files[@]}"; do
  [[ -f "$f" ]] || { echo "run-in-guest: no such file: $f" >&2; exit 2; }
  cp "$f" "$exchange/in/"
done
cp "$script" "$exchange/script.sh"
{
  printf 'export GUEST_SCRIPT_NAME=%q\n' "$(basename "$script")"
  printf 'export GUEST_DIR=%q\n' "$PWD"
  # The script's own limit; the host's is larger so a script timeout is still reported.
  printf 'export GUEST_TIMEOUT=%q\n' "$timeout_s"
  for e in "${envs[@]}"; do
    [[ "$e" =~ ^[A-Za-z_][A-Za-z0-9_]*= ]] || { echo "run-in-guest: --env wants NAME=VALUE, got $e" >&2; exit 2; }
    printf 'export %s=%q\n' "${e%%=*}" "${e#*=}"
  done
} > "$exchange/env"
"$here/build-initramfs.sh" "$kver" "$work/initramfs.cpio.gz"

# TCG by default: /dev/kvm on the CI machines opens but a KVM guest hangs in the BIOS
# (nested virtualisation without the CPU features). GUEST_ACCEL=kvm opts in where it works.
accel=(-accel "${GUEST_ACCEL:-tcg}")
console="$work/console.log"
timeout --kill-after=10 "$((timeout_s + 120))" "$qemu" \
  "${accel[@]}" -m 2048 -smp 2 -nographic -no-reboot \
  -kernel "/boot/vmlinuz-$kver" -initrd "$work/initramfs.cpio.gz" \
  -append "console=ttyS0 panic=-1 quiet loglevel=4" \
  -fsdev local,id=host,path=/,security_model=none,readonly=on,multidevs=remap \
  -device virtio-9p-pci,fsdev=host,mount_tag=host \
  -fsdev local,id=exchange,path="$exchange",security_model=none \
  -device virtio-9p-pci,fsdev=exchange,mount_tag=exchange \
  </dev/null >"$console" 2>&1 &
qemu_pid=$!
qemu_status=0
wait "$qemu_pid" || qemu_status=$?
qemu_pid=""
finished=$(date +%s.%N)

[[ -f "$exchange/stdout" ]] && cat "$exchange/stdout"
[[ -f "$exchange/stderr" ]] && cat "$exchange/stderr" >&2
if [[ -n "$out_dir" ]]; then
  mkdir -p "$out_dir"
  cp -r "$exchange/out/." "$out_dir/"
fi
boot="$(cat "$exchange/boot-seconds" 2>/dev/null || echo '?')"
total="$(awk -v a="$started" -v b="$finished" 'BEGIN { printf "%.1f", b - a }')"
echo "run-in-guest: kernel $kver (${accel[1]}), guest ready after ${boot} s, whole run ${total} s" >&2

fail() {
  echo "run-in-guest: $*" >&2
  echo "---- guest console (last 40 lines) ----" >&2
  tail -n 40 "$console" | tr -d '\r' >&2
  echo "----" >&2
  exit 1
}
if [[ ! -f "$exchange/status" ]]; then
  if ((qemu_status == 124 || qemu_status == 137)); then
    fail "the guest did not finish within $((timeout_s + 120)) s and was killed"
  fi
  fail "the guest did not report an exit status (qemu exited with $qemu_status)"
fi
status="$(cat "$exchange/status")"
if [[ "$status" == 124 ]]; then
  fail "$(basename "$script") did not finish within $timeout_s s in the guest"
fi
[[ "$status" =~ ^[0-9]+$ ]] || fail "the guest reported a malformed status: $status"
exit "$status"
