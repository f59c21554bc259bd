#!/usr/bin/env bash
# Builds Debian's libpng (the version camfx links) as a static library instrumented for
# libFuzzer, into fuzz/.build/libpng/libpng16.a, so that FuzzPNG sees coverage inside
# libpng and not only in camfx's few lines around it (uninstrumented, the target found
# 64 coverage features and stopped there). fuzz/Package.swift links it ahead of the
# system's libpng. The source comes from Debian's archive through a private apt
# configuration: the machine's sources lists are left as they are.
set -euo pipefail
cd "$(dirname "$0")"
out=.build/libpng
[[ -f "$out/libpng16.a" ]] && exit 0
work=$(mktemp -d /tmp/camfx-libpng.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/sources.d"
# The machine's Debian sources as source (deb-src) entries; the security archive is
# left out (the registry here does not serve its sources; bookworm-updates has the
# same fixes).
for f in /etc/apt/sources.list.d/*.sources; do
  [[ -f "$f" ]] || continue
  awk 'BEGIN { RS = ""; ORS = "\n\n" } !/security/' "$f" | sed 's/^Types: deb$/Types: deb-src/' >"$work/sources.d/$(basename "$f")"
done
apt_options=(-o "Dir::Etc::sourceparts=$work/sources.d" -o "Dir::Etc::sourcelist=/dev/null" -o "Dir::State::Lists=$work/lists")
apt-get "${apt_options[@]}" update -qq 2>/dev/null
(cd "$work" && apt-get "${apt_options[@]}" source --download-only libpng1.6 -qq 2>/dev/null)
# Unpacked with Debian's patches (its CVE fixes) applied.
dpkg-source --no-check -x "$work"/libpng1.6_*.dsc "$work/src" >/dev/null
src="$work/src"
version=$(basename "$work"/libpng1.6_*.dsc .dsc)
cp "$src/scripts/pnglibconf.h.prebuilt" "$src/pnglibconf.h"
mkdir -p "$out"
objects=()
for f in png pngerror pngget pngmem pngpread pngread pngrio pngrtran pngrutil pngset pngtrans pngwio pngwrite pngwtran pngwutil; do
  "${CLANG:-/opt/swift/usr/bin/clang}" -O1 -g -fPIC -fsanitize=fuzzer-no-link,address \
    -DPNG_ARM_NEON_OPT=0 -DPNG_INTEL_SSE_OPT=0 -I"$src" -c "$src/$f.c" -o "$work/$f.o"
  objects+=("$work/$f.o")
done
ar rcs "$out/libpng16.a" "${objects[@]}"
echo "fuzz: built an instrumented $version into fuzz/$out"
