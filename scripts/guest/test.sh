#!/usr/bin/env bash
# camfx against real kernel drivers: boots a qemu guest with vivid (camera), snd-aloop
# (sound card) and v4l2loopback (cameras fed MJPEG and H.264), runs in-guest.sh there
# with this checkout's camfx build, then decodes what it recorded with check-outputs.sh.
# Part of `make test`.
#
#   scripts/guest/test.sh            builds .build/release/camfx; CAMFX=path/to/camfx
#                                    uses that binary instead
#   GUEST_TESTS=0 make test          skips it (prints a SKIP line), e.g. for a quick run
#   GUEST_KEEP=DIR                   keeps the guest's files in DIR for a look
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
if [[ "${GUEST_TESTS:-1}" == 0 ]]; then
  echo "SKIP tests against real drivers in a qemu guest (GUEST_TESTS=0)"
  exit 0
fi
if [[ -z "${CAMFX:-}" ]]; then
  # Release: under TCG the guest runs ~30x slower than the host, and a debug build cannot
  # keep up with a live camera (it records a fraction of a second in minutes). For any
  # x86-64 (qemu's CPU has no AVX2), with the flags of `make release CPU=x86-64`, so that
  # scripts/check-install.sh, which installs that build, reuses it instead of building again.
  echo "guest tests: make release CPU=x86-64"
  make -s -C "$repo" release CPU=x86-64 SWIFT="${SWIFT:-swift}" >/dev/null
  CAMFX="$repo/.build/release/camfx"
fi
camfx="$(realpath "$CAMFX")"
[[ -x "$camfx" ]] || { echo "guest tests: no camfx binary at $camfx" >&2; exit 1; }

# Which camfx features this build has, from its --help (camfx's capture features land
# one by one; scenarios for missing ones are skipped, not failed).
# has_help 'SUBCOMMAND' OPTION...: camfx SUBCOMMAND --help works and mentions each OPTION.
# The usage line must name the subcommand: an unknown one would show the default
# subcommand's (record's) help.
has_help() {
  local help
  help="$("$camfx" $1 --help 2>&1)" || return 1
  grep -q "camfx $1" <<<"$help" || return 1
  shift
  for o in "$@"; do grep -q -e "$o" <<<"$help" || return 1; done
}
# Options that only exist once the camera / microphone code is wired in: a `--source`
# alone is not enough (testsrc and PNG sources have it too).
features=()
has_help devices --json && features+=(devices)
has_help snapshot --input-format && features+=(snapshot-camera)
has_help snapshot --control && features+=(snapshot-control)
has_help controls --source && features+=(controls)
has_help record --input-format && features+=(record-camera)
has_help record "hw:" && features+=(record-alsa)
has_help record --sample-rate && features+=(record-sample-rate)
has_help record --channels && features+=(record-channels)
# Several cameras in one process: record --source A --source B with --layout, and the
# YAML file's `camfx run` (SIGHUP reloads it).
has_help record --layout && features+=(record-several)
has_help run --check && features+=(run)
# The capture module's XCTest cases that need real devices, when the build has them.
xctest="$(dirname "$camfx")/camfxPackageTests.xctest"
[[ -x "$xctest" ]] || xctest="$repo/.build/debug/camfxPackageTests.xctest"
# (the listing is read whole: grep -q closing the pipe early would fail it under pipefail)
if [[ -x "$xctest" ]] && [[ "$("$xctest" --list-tests 2>/dev/null || true)" == *RealDeviceTests* ]]; then
  features+=(xctest)
else
  xctest=""
fi
echo "guest tests: camfx features: ${features[*]:-none}"

work="$(mktemp -d "${TMPDIR:-/tmp}/camfx-guest-test.XXXXXX")"
trap 'rm -rf "$work"' EXIT
# 440 Hz, 48 kHz mono S16, the format the guest's loopback is played with, for 3 minutes:
# longer than any one recording there (the unplugged one runs for a minute or more while
# two more camfx start beside it). When the player stops, the loopback's capture end
# stalls, and camfx fills the rest of the recording with silence.
ffmpeg -v error -f lavfi -i "sine=frequency=440:sample_rate=48000" -t 180 -ac 1 \
  -c:a pcm_s16le "$work/tone.wav"

# The v4l2loopback devices' feeds, made here at the host's speed (~5 s for both; one
# geq pass, split into the two encoders): 640x480, 25 fps, 12 s of testsrc2 with each
# frame's number N in its top 48 rows as 16 cells of 40 px, cell i white (235) when bit i
# of N is set, else black (16), chroma neutral; frame_match.py reads the code back.
#   feed.mjpeg  raw MJPEG (-q:v 3, ~24 kB a frame)
#   feed.h264   raw Annex B H.264 (x264, constrained baseline: no B-frames), an IDR every
#               25 frames with SPS/PPS repeated before each (repeat-headers), so a reader
#               that joins anywhere can start at the next keyframe
code="lum='if(lt(Y,48),if(mod(floor(N/pow(2,floor(X/40))),2),235,16),lum(X,Y))'"
code="$code:cb='if(lt(Y/SH,48),128,cb(X,Y))':cr='if(lt(Y/SH,48),128,cr(X,Y))'"
ffmpeg -v error -f lavfi -i "testsrc2=s=640x480:r=25:d=12" \
  -filter_complex "[0:v]format=yuv420p,geq=$code,split=2[mjpeg][h264]" \
  -map '[mjpeg]' -c:v mjpeg -q:v 3 -f mjpeg "$work/feed.mjpeg" \
  -map '[h264]' -c:v libx264 -profile:v baseline -bf 0 -g 25 -keyint_min 25 -sc_threshold 0 \
    -x264-params repeat-headers=1 -f h264 "$work/feed.h264"
# v4l2loopback is built for the guest kernel on this host (build-initramfs.sh builds it
# again from the cache); when it cannot be, the guest boots without it and its checks fail
# with this reason.
guest_env=()
if ! loopback_error="$("$here/build-v4l2loopback.sh" "$("$here/guest-kernel.sh")" "$work/v4l2loopback.ko" 2>&1)"; then
  guest_env+=(--env V4L2LOOPBACK_ERROR="$loopback_error")
fi
rm -f "$work/v4l2loopback.ko"

# The ENOSPC injector for the USB-bandwidth scenario (a C library, built here).
guest_files=(--file "$work/tone.wav" --file "$work/feed.mjpeg" --file "$work/feed.h264")
if gcc -shared -fPIC -O2 -o "$work/usb-bandwidth-full.so" "$here/usb-bandwidth-full.c" -ldl; then
  guest_files+=(--file "$work/usb-bandwidth-full.so")
fi

cd "$repo"
guest_status=0
# A run takes 5-8 minutes under TCG; on a host busy with other jobs it has taken longer.
"$here/run-in-guest.sh" --timeout 900 "${guest_files[@]}" --out "$work/out" "${guest_env[@]}" \
  --env CAMFX="$camfx" --env GUEST_SCRIPTS="$here" \
  --env CAMFX_FEATURES="${features[*]:-}" --env CAMFX_XCTEST="$xctest" "$here/in-guest.sh" || guest_status=$?
host_status=0
sh "$here/check-outputs.sh" "$work/out" "$work" || host_status=$?
if [[ -n "${GUEST_KEEP:-}" ]]; then
  mkdir -p "$GUEST_KEEP" && cp -r "$work/out/." "$GUEST_KEEP/"
  echo "guest tests: kept the guest's files in $GUEST_KEEP"
fi
if ((guest_status || host_status)); then
  echo "guest tests: FAILED (guest part exit $guest_status, host part exit $host_status)" >&2
  exit 1
fi
echo "guest tests: passed"
