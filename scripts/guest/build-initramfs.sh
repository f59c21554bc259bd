#!/usr/bin/env bash
# Builds the test guest's initramfs: busybox, /init (init.sh) and the kernel modules the
# guest needs, in load order, as `modprobe --show-depends` lists them:
#   virtio_pci 9pnet_virtio 9p   to mount the host's root and the exchange share
#   vivid                        V4L2 test cameras: two instances, one webcam-type
#                                capture node each, /dev/video0 and /dev/video1
#   snd-aloop                    ALSA loopback sound card
#   v4l2loopback                 two loopback video devices, /dev/video10 and /dev/video11,
#                                that the guest feeds MJPEG and H.264 into (after videodev,
#                                which vivid loads). Not part of Debian's kernel: built by
#                                build-v4l2loopback.sh (cached). When it cannot be built the
#                                initramfs goes without it, with a warning: the guest boots
#                                and the vivid/snd-aloop tests run, the loopback ones fail.
# Usage: build-initramfs.sh KVER OUT.cpio.gz
set -euo pipefail
kver="$1"; out="$2"
here="$(cd "$(dirname "$0")" && pwd)"
busybox=/bin/busybox
[[ -x "$busybox" ]] || { echo "guest: $busybox not found (install busybox-static)" >&2; exit 1; }
if ldd "$busybox" >/dev/null 2>&1; then
  echo "guest: $busybox is dynamically linked; install busybox-static" >&2; exit 1
fi

# vivid: two instances (several cameras in one camfx), each a video capture node only
# with one webcam input (75% colour bars); the per-instance parameters are
# comma-separated. Each instance is a camera of its own: its own controls, and its own
# disconnect control, which unplugs that instance alone.
declare -A params=(
  [vivid]="n_devs=2 node_types=0x1,0x1 num_inputs=1,1 input_types=0x0,0x0"
)

root="$(mktemp -d "${TMPDIR:-/tmp}/camfx-initramfs.XXXXXX")"
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,modules,proc,sys,dev,host,hosttmp,exchange}
cp "$busybox" "$root/bin/busybox"
cp "$here/init.sh" "$root/init"
chmod 755 "$root/init" "$root/bin/busybox"

# `modprobe --show-depends` prints "insmod PATH [params]" per module, dependencies first;
# shared dependencies repeat, so keep the first occurrence only.
: > "$root/modules.list"
declare -A seen=()
while read -r cmd path _; do
  [[ "$cmd" == insmod ]] || continue
  [[ -n "${seen[$path]:-}" ]] && continue
  seen[$path]=1
  base="$(basename "$path")"
  case "$base" in
    *.ko)     cp "$path" "$root/modules/$base" ;;
    *.ko.xz)  base="${base%.xz}";  xz -dc "$path" > "$root/modules/$base" ;;
    *.ko.zst) base="${base%.zst}"; zstd -qdc "$path" > "$root/modules/$base" ;;
    *.ko.gz)  base="${base%.gz}";  gzip -dc "$path" > "$root/modules/$base" ;;
    *) echo "guest: unexpected module file $path" >&2; exit 1 ;;
  esac
  name="${base%.ko}"; name="${name//-/_}"
  echo "$base ${params[$name]:-}" >> "$root/modules.list"
done < <(modprobe -S "$kver" -a --show-depends virtio_pci 9pnet_virtio 9p vivid snd-aloop)
for m in virtio_pci.ko 9p.ko vivid.ko snd-aloop.ko; do
  grep -q "^$m" "$root/modules.list" || { echo "guest: module $m missing for kernel $kver" >&2; exit 1; }
done
# v4l2loopback 0.12.7 (module parameters, per device where comma-separated):
#   video_nr=10,11        /dev/video10 and /dev/video11, clear of vivid's /dev/video0-1
#   exclusive_caps=1,1    a device announces only OUTPUT until a writer has written its
#                         first frame, then only CAPTURE, as a real camera (Chrome and
#                         others ignore devices that claim both)
#   card_label=...        the V4L2 card names (one parameter, quoted, labels split at
#                         commas; init.sh's insmod rejoins the words split at spaces)
#   max_buffers=8         the ring a writer writes round (default 2). A reader that falls
#                         more than 2 frames behind skips to the newest whatever the
#                         size; a bigger ring only keeps the writer from overwriting the
#                         buffer a reader still holds. 8 x 640x480x4 bytes per device.
if "$here/build-v4l2loopback.sh" "$kver" "$root/modules/v4l2loopback.ko"; then
  deps="$(modinfo -F depends "$root/modules/v4l2loopback.ko")"
  for d in ${deps//,/ }; do
    grep -q "^$d.ko" "$root/modules.list" || { echo "guest: v4l2loopback needs $d, which is not loaded before it" >&2; exit 1; }
  done
  echo 'v4l2loopback.ko devices=2 video_nr=10,11 exclusive_caps=1,1 max_buffers=8 card_label="camfx MJPEG feed,camfx H264 feed"' \
    >> "$root/modules.list"
else
  echo "guest: booting without v4l2loopback: the loopback tests will fail" >&2
fi
(cd "$root" && find . | cpio -o -H newc --quiet) | gzip -1 > "$out"
