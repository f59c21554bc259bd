#!/usr/bin/env bash
# Builds the test guest's initramfs: busybox, /init (init.sh) and the kernel modules the
# guest needs, in load order, as `modprobe --show-depends` lists them:
#   virtio_pci 9pnet_virtio 9p   to mount the host's root and the exchange share
#   vivid                        V4L2 test camera: one webcam-type capture node
#   snd-aloop                    ALSA loopback sound card
# Usage: build-initramfs.sh KVER OUT.cpio.gz
set -euo pipefail
kver="$1"; out="$2"
here="$(cd "$(dirname "$0")" && pwd)"
busybox=/bin/busybox
[[ -x "$busybox" ]] || { echo "guest: $busybox not found (install busybox-static)" >&2; exit 1; }
if ldd "$busybox" >/dev/null 2>&1; then
  echo "guest: $busybox is dynamically linked; install busybox-static" >&2; exit 1
fi

# vivid: one device, video capture node only, one webcam input (75% colour bars).
declare -A params=(
  [vivid]="n_devs=1 node_types=0x1 num_inputs=1 input_types=0x0"
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
(cd "$root" && find . | cpio -o -H newc --quiet) | gzip -1 > "$out"
