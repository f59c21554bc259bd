#!/usr/bin/env bash
# Builds v4l2loopback (a V4L2 device that plays back what a writer feeds it: the test
# guest's compressed-stream "cameras") for the guest kernel, from Debian's
# v4l2loopback-dkms source, without installing that package or going through DKMS (which
# builds for the running kernel, not the guest's):
#   apt-get download v4l2loopback-dkms; dpkg-deb -x; make -C /lib/modules/KVER/build M=SRC modules
# The module is built in a temporary directory and cached, debug info stripped, as
#   ${XDG_CACHE_HOME:-$HOME/.cache}/camfx/v4l2loopback-VERSION-KVER.ko
# (VERSION: the Debian package version apt offers), so guest runs after the first one
# neither download nor compile (the build itself takes a few seconds).
# Usage: build-v4l2loopback.sh KVER OUT.ko
# Fails with one line on stderr naming what is missing: the kernel headers for KVER
# (linux-headers-KVER, which `bash scripts/setup.sh --test` installs), make or gcc, or
# the package download.
set -euo pipefail
(($# == 2)) || { echo "usage: build-v4l2loopback.sh KVER OUT.ko" >&2; exit 2; }
kver="$1"; out="$2"
say() { echo "guest: v4l2loopback: $*" >&2; }

cache="${XDG_CACHE_HOME:-$HOME/.cache}/camfx"
# The candidate version from apt's local lists (no network); when apt knows none (lists
# never fetched), the newest module already cached for this kernel will do.
version="$(apt-cache policy v4l2loopback-dkms 2>/dev/null | awk '$1 == "Candidate:" { print $2 }' || true)"
[[ "$version" == "(none)" ]] && version=""
if [[ -z "$version" ]]; then
  cached="$(ls -1 "$cache"/v4l2loopback-*-"$kver".ko 2>/dev/null | sort -V | tail -n 1 || true)"
  if [[ -n "$cached" ]]; then cp "$cached" "$out"; exit 0; fi
  say "apt knows no v4l2loopback-dkms package (run apt-get update; Debian 12 has 0.12.7)"; exit 1
fi
cached="$cache/v4l2loopback-${version//[:\/]/_}-$kver.ko"
if [[ -s "$cached" ]]; then cp "$cached" "$out"; exit 0; fi

build="/lib/modules/$kver/build"
[[ -f "$build/Makefile" ]] || { say "no kernel headers for $kver at $build (install linux-headers-$kver: bash scripts/setup.sh --test)"; exit 1; }
for tool in make gcc strip; do
  command -v "$tool" >/dev/null || { say "$tool not found (bash scripts/setup.sh --test installs it)"; exit 1; }
done

tmp="$(mktemp -d "${TMPDIR:-/tmp}/camfx-v4l2loopback.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
# apt, run as root, downloads as the _apt user when it can write the directory, and
# warns otherwise.
chmod 755 "$tmp"
mkdir -m 777 "$tmp/deb"
if ! (cd "$tmp/deb" && apt-get download -q "v4l2loopback-dkms=$version") >"$tmp/download.log" 2>&1; then
  say "apt-get download v4l2loopback-dkms=$version failed: $(grep -E '^(E|Err):' "$tmp/download.log" | head -n 1 || tail -n 1 "$tmp/download.log")"
  exit 1
fi
deb="$(ls "$tmp"/deb/*.deb 2>/dev/null | head -n 1)"
[[ -n "$deb" ]] || { say "apt-get download v4l2loopback-dkms=$version left no .deb"; exit 1; }
dpkg-deb -x "$deb" "$tmp/x"
src="$(ls -d "$tmp"/x/usr/src/v4l2loopback-* 2>/dev/null | head -n 1)"
[[ -n "$src" && -f "$src/v4l2loopback.c" ]] || { say "$(basename "$deb") has no usr/src/v4l2loopback-*/v4l2loopback.c"; exit 1; }
if ! make -C "$build" M="$src" modules >"$tmp/build.log" 2>&1; then
  say "building $(basename "$src") for $kver failed: $(grep -m 1 -E 'error|Error' "$tmp/build.log" || tail -n 1 "$tmp/build.log")"
  exit 1
fi
strip --strip-debug -o "$tmp/v4l2loopback.ko" "$src/v4l2loopback.ko"
# Made for this kernel? (a wrong build tree would fail only at insmod time in the guest)
vermagic="$(modinfo -F vermagic "$tmp/v4l2loopback.ko" 2>/dev/null || true)"
[[ "$vermagic" == "$kver "* ]] || { say "the module built for '$vermagic', not $kver"; exit 1; }
mkdir -p "$cache"
cp "$tmp/v4l2loopback.ko" "$cached.$$"
mv -f "$cached.$$" "$cached"
cp "$cached" "$out"
