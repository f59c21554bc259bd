#!/bin/sh
# The host half of the tests against real drivers: decodes what the guest half
# (in-guest.sh) recorded, at the host's full speed. A file the guest did not make was
# already reported there (FAIL or SKIP), so it is skipped here.
# Usage: check-outputs.sh DIR
GUEST_SCRIPTS="$(cd "$(dirname "$0")" && pwd)"
. "$GUEST_SCRIPTS/lib.sh"
dir="$1"

# made FILE WHAT: true when the guest made FILE, else a SKIP line.
made() {
  [ -s "$dir/$1" ] && return 0
  skip "$2" "$1 was not made in the guest"
  return 1
}
# stream FILE TYPE KEY: one field of the first stream of TYPE (video|audio), via ffprobe.
stream() {
  ffprobe -v error -select_streams "${2%${2#?}}:0" -show_entries "stream=$3" \
    -of default=nw=1:nk=1 "$dir/$1" | head -n 1
}
duration() {
  ffprobe -v error -select_streams "${2%${2#?}}:0" -show_entries stream=duration \
    -of default=nw=1:nk=1 "$dir/$1" | head -n 1
}

echo "== what the guest recorded, decoded on the host"
made ffmpeg-yuyv.png "ffmpeg's frame from vivid" &&
  check "ffmpeg's frame from vivid shows the 75% colour bars" media_check bars "$dir/ffmpeg-yuyv.png"
made arecord.wav "arecord from the loopback" &&
  check_eq "arecord's dominant frequency (Hz)" 440 media_check tone "$dir/arecord.wav" 0.5 1

if made devices.json "camfx devices --json"; then
  check "camfx devices --json lists /dev/video0 with YUYV and NV12 at 640x480, and the loopback" \
    python3 - "$dir/devices.json" <<'PY'
import json, sys
# Schema-agnostic: every string and number anywhere in the document.
def walk(v):
    if isinstance(v, dict):
        for k, x in v.items():
            yield str(k); yield from walk(x)
    elif isinstance(v, list):
        for x in v: yield from walk(x)
    else:
        yield str(v)
words = " ".join(walk(json.load(open(sys.argv[1])))).lower()
missing = [w for w in ("/dev/video0", "vivid", "yuyv", "nv12", "640", "480", "loopback") if w not in words]
if missing:
    sys.exit("missing: " + ", ".join(missing))
PY
fi

made snapshot.png "camfx snapshot from /dev/video0" && {
  check_eq "camfx snapshot size" "640x480" sh -c \
    'ffprobe -v error -show_entries stream=width,height -of csv=s=x:p=0 "$0"' "$dir/snapshot.png"
  check "camfx snapshot shows the 75% colour bars" media_check bars "$dir/snapshot.png"
}
made snapshot-hflip.png "camfx snapshot --control horizontal_flip=1" &&
  check "with horizontal_flip=1 the bars are mirrored" \
    media_check bars "$dir/snapshot-hflip.png" --mirrored

# start FILE TYPE: when the first stream of TYPE starts in the file (s).
start() {
  ffprobe -v error -select_streams "${2%${2#?}}:0" -show_entries stream=start_time \
    -of default=nw=1:nk=1 "$dir/$1" | head -n 1
}
# Tolerances: --duration is cut on the driver's timestamps, so the video lasts the
# duration exactly unless the driver itself skipped the last frame (0.04 s at vivid's
# 25 fps), hence 0.1 s; audio is cut at the video's end on the same clock, so the tracks
# may differ by an AAC frame and rounding, well within 0.1 s; and audio starts with the
# first frame (the microphone starts before the camera streams).
for fmt in yuyv nv12; do
  f="record-$fmt.mp4"
  case $fmt in yuyv) look="--mirrored" filter=mirror ;; nv12) look="--gray" filter=grayscale ;; esac
  made "$f" "camfx record from $fmt" || continue
  check_eq "$f video codec" h264 stream "$f" video codec_name
  check_eq "$f size" 640x480 sh -c \
    'ffprobe -v error -select_streams v:0 -show_entries stream=width,height -of csv=s=x:p=0 "$0"' "$dir/$f"
  check_eq "$f audio codec" aac stream "$f" audio codec_name
  v="$(duration "$f" video)"; a="$(duration "$f" audio)"
  check_near "$f video duration (s)" 3 0.1 "$v"
  check_near "$f audio duration (s) against video's" "$v" 0.1 "$a"
  check_near "$f audio start (s) against video's" "$(start "$f" video)" 0.05 "$(start "$f" audio)"
  check_eq "$f audio's dominant frequency (Hz)" 440 media_check tone "$dir/$f" 1 1
  check "$f shows the bars through --filter $filter" media_check bars "$dir/$f" --at 1.5 $look
  check "$f decodes without errors, timestamps increasing" media_check decodes "$dir/$f"
  # Format negotiation: the camera's own format goes straight to yuv420p, no BGRA.
  case $fmt in yuyv) path="yuyv422 → yuv420p → mirror → encoder" ;; nv12) path="nv12 → yuv420p → grayscale → encoder" ;; esac
  check_eq "record-$fmt.json video path, frames through BGRA" "$path, 0" python3 -c \
    'import json, sys; s = json.load(open(sys.argv[1])); print(s["video_path"] + ", " + str(s["bgra_frames"]))' \
    "$dir/record-$fmt.json"
done

if made record-long.mp4 "camfx record 20 s for A/V drift"; then
  f=record-long.mp4
  v="$(duration "$f" video)"; a="$(duration "$f" audio)"
  check_near "$f video duration (s)" 20 0.1 "$v"
  check_near "$f audio duration (s) against video's (A/V drift over 20 s)" "$v" 0.1 "$a"
  check_near "$f audio start (s) against video's" "$(start "$f" video)" 0.05 "$(start "$f" audio)"
  check_eq "$f audio's dominant frequency (Hz)" 440 media_check tone "$dir/$f" 1 1
  echo "A/V drift over $v s of video: audio $(awk -v a="$a" -v v="$v" 'BEGIN { printf "%+.3f", a - v }') s"
fi

if made record-term.mp4 "camfx record stopped by SIGTERM"; then
  check "the recording stopped by SIGTERM decodes to the end without errors" media_check decodes "$dir/record-term.mp4"
  v="$(duration record-term.mp4 video)"; a="$(duration record-term.mp4 audio)"
  check_near "the recording stopped by SIGTERM: audio duration (s) against its video's ($v s)" "$v" 0.1 "$a"
fi

if made record-cut.mp4 "camfx record when the camera is unplugged and comes back"; then
  check_eq "the reconnected recording's video codec" h264 stream record-cut.mp4 video codec_name
  check "the reconnected recording decodes to the end without errors" \
    media_check decodes "$dir/record-cut.mp4"
  check "the reconnected recording holds frames from before and after the camera was gone" \
    media_check gap "$dir/record-cut.mp4" 3 1 2
fi

if made record-gone.mp4 "camfx record when the camera stays away"; then
  check "the recording whose camera stayed away decodes to the end without errors" \
    media_check decodes "$dir/record-gone.mp4"
fi

summary
