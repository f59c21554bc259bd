#!/bin/sh
# The host half of the tests against real drivers: decodes what the guest half
# (in-guest.sh) recorded, at the host's full speed. A file the guest did not make was
# already reported there (FAIL or SKIP), so it is skipped here.
# Usage: check-outputs.sh DIR [FEEDS]
#   FEEDS: the directory with the v4l2loopback feeds (feed.mjpeg, feed.h264) the guest was
#   given; captures from the loopback devices are compared with them (default: DIR).
GUEST_SCRIPTS="$(cd "$(dirname "$0")" && pwd)"
. "$GUEST_SCRIPTS/lib.sh"
dir="$1"
feeds="${2:-$1}"
frame_match() { python3 "$GUEST_SCRIPTS/frame_match.py" "$@"; }
# check_shows WHAT COMMAND...: like check, with the command's last line in the PASS line.
check_shows() {
  what="$1"; shift
  if "$@" >"$log" 2>&1; then
    pass "$what: $(tail -n 1 "$log")"
  else
    fail "$what" "$(tail -n 3 "$log" | tr '\n' ' ')(exit $?)"
  fi
}

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
  check "camfx devices --json lists /dev/video0 and /dev/video1 with YUYV and NV12 at 640x480, and the loopback" \
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
missing = [w for w in ("/dev/video0", "/dev/video1", "vivid", "yuyv", "nv12", "640", "480", "loopback") if w not in words]
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

# v4l2loopback, fed by ffmpeg in the guest: ffmpeg's stream copies from the devices hold
# the feeds' frames in order (a reader more than 2 frames behind skips to the newest but
# one), the H.264 one byte for byte from a keyframe; v4l2-ctl's buffer log shows one
# buffer per packet the feeder wrote. The first buffer a new reader gets is left out
# (--skip 1): v4l2loopback's VIDIOC_REQBUFS resets every buffer's bytesused to the full
# 1228800 bytes, and the device does not keep a buffer a reader holds from the writer,
# so the first packet has been seen as 1228800 bytes holding the picture of the packet
# after it (that frame then twice: ffmpeg holds it while probing), or as one frame's data
# followed by stale bytes of older frames.
# buffers_match LOG FEED: the bytesused of each buffer in v4l2-ctl's --verbose LOG is the
# size of FEED's packet with the buffer's sequence number (the device counts writes from 0;
# the feeder starts at packet 0 and loops), bar the first buffer, which may be a stale one
# (sequence 0, 1228800 bytes; see above).
buffers_match() {
  awk -v sizes="$(ffprobe -v error -show_entries packet=size -of csv=p=0 "$2" | tr '\n' ' ')" '
    BEGIN { n = split(sizes, size, " ") }
    $1 == "cap" && $2 == "dqbuf:" {
      seq = $5; used = $7; buffers++
      if (index($0, "(")) flags = flags " " substr($0, index($0, "("))
      if (used != size[seq % n + 1]) {
        if (buffers == 1) { first = "first buffer stale (seq " seq ", " used " bytes), "; next }
        printf "buffer %d (seq %d) has %d bytes, packet %d of the feed %d\n", buffers, seq, used, seq % n, size[seq % n + 1]
        bad = 1; exit 1
      }
      if (last != "" && seq > last + 1) dropped += seq - last - 1
      last = seq; matched++
    }
    END {
      if (bad) exit 1
      if (!matched) { print "no buffers in the log"; exit 1 }
      printf "%s%d buffers = feed packets %d..%d by sequence number, %d skipped; buffer flags:%s\n", first, matched, last - matched - dropped + 1, last, dropped, flags == "" ? " none (no KEYFRAME, timestamp type unknown)" : flags
    }' "$1"
}
for stream in mjpeg h264; do
  f="loopback-$stream.mkv"
  made "$f" "ffmpeg's capture from the $stream-fed loopback device" || continue
  if [ ! -f "$feeds/feed.$stream" ]; then
    fail "$f against the feed" "no $feeds/feed.$stream to compare with"
    continue
  fi
  if [ $stream = mjpeg ]; then
    check_shows "$f: the feed's frames in order, unchanged" \
      frame_match match "$dir/$f" "$feeds/feed.mjpeg" --skip 1 --looped
  else
    check_shows "$f: the feed's H.264, byte for byte from a keyframe" \
      frame_match packets "$dir/$f" "$feeds/feed.h264" --skip 1 --looped
  fi
  made "loopback-$stream-buffers.txt" "v4l2-ctl's buffers from the $stream-fed loopback device" &&
    check_shows "v4l2-ctl's buffers from the $stream-fed loopback: one packet each" \
      buffers_match "$dir/loopback-$stream-buffers.txt" "$feeds/feed.$stream"
done

# camfx's recordings from the loopback devices (no --skip: camfx drops the stale first
# buffer itself). Each decodes without errors; the copy holds the feed's H.264 byte for
# byte from a keyframe; the decoded ones hold the feed's frames in order, none repeated,
# through their filter (mirror: compared mirrored back; grayscale keeps the luma compared).
if made camera-h264-copy.mp4 "camfx record --video-codec copy from the H.264 camera"; then
  check_shows "camera-h264-copy.mp4 decodes without errors" media_check decodes "$dir/camera-h264-copy.mp4"
  check_shows "camera-h264-copy.mp4: the camera's H.264 byte for byte, from a keyframe" \
    frame_match packets "$dir/camera-h264-copy.mp4" "$feeds/feed.h264" --looped
fi
if made camera-h264.mp4 "camfx record from the H.264 camera, decoded"; then
  check_shows "camera-h264.mp4 decodes without errors" media_check decodes "$dir/camera-h264.mp4"
  check_shows "camera-h264.mp4: the camera's frames in order, none repeated, through grayscale" \
    frame_match match "$dir/camera-h264.mp4" "$feeds/feed.h264" --looped
fi
if made camera-mjpeg.mp4 "camfx record from the MJPEG camera, decoded"; then
  check_shows "camera-mjpeg.mp4 decodes without errors" media_check decodes "$dir/camera-mjpeg.mp4"
  check_shows "camera-mjpeg.mp4: the camera's frames in order, none repeated, through mirror" \
    frame_match match "$dir/camera-mjpeg.mp4" "$feeds/feed.mjpeg" --looped --mirrored
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

# Several cameras in one camfx (in-guest.sh): vivid's /dev/video0 with its bars as they
# are, /dev/video1 with them mirrored (its horizontal_flip), 320x180 at 10 fps each.
# The mosaic's sound comes from the loopback: its frames are stamped on CLOCK_MONOTONIC,
# as a camera's are, and the microphone's sound is cut to them (when they were stamped
# n/fps from 0, the sound was all silence, "N s of audio went missing").
# frames FILE: how many video frames FILE decodes to.
frames() { media_check frames "$dir/$1"; }
# check_frames WHAT FILE SECONDS: FILE holds SECONDS of frames at 10 a second, all but a
# few: a TCG guest may fall behind now and then (a camera's driver then skips a frame, the
# mosaic's clock one it could not make in time), by less than a tenth here; and at most
# one more (a camera's 41st frame, stamped by its driver a few ms short of 4 s, is
# within --duration 4s; the mosaic's own clock makes exactly 40).
check_frames() {
  n="$(frames "$2")" least=$(($3 * 9)) most=$(($3 * 10 + 1))
  if [ -n "$n" ] && [ "$n" -le "$most" ] && [ "$n" -ge "$least" ]; then
    pass "$1: $n frames (want $least..$most)"
  else
    fail "$1" "$n frames, want $least..$most"
  fi
}
size() {
  ffprobe -v error -select_streams v:0 -show_entries stream=width,height -of csv=s=x:p=0 "$dir/$1"
}
if made several-mosaic.mp4 "camfx record --layout hstack of two cameras"; then
  f=several-mosaic.mp4
  check_eq "$f size (two 320x180 cameras side by side)" 640x180 size "$f"
  check_shows "$f decodes without errors, timestamps increasing" media_check decodes "$dir/$f"
  v="$(duration "$f" video)"; a="$(duration "$f" audio)"
  check_near "$f video duration (s)" 4 0.1 "$v"
  check_frames "$f frame count" "$f" 4
  # (--starting 1: the mosaic starts with its cameras, and shows a camera's card until
  # its first picture comes; a frame or two in this guest.)
  check_shows "$f: video0's bars in the left half, video1's mirrored in the right, in every frame" \
    media_check cells "$dir/$f" 2 bars mirrored --starting 1
  check "$f at 2 s: the left half is video0's bars (vivid's colours)" \
    media_check bars "$dir/$f" --at 2 --crop 320:180:0:0
  check "$f at 2 s: the right half is video1's bars, mirrored" \
    media_check bars "$dir/$f" --at 2 --crop 320:180:320:0 --mirrored
  check_eq "$f audio codec" aac stream "$f" audio codec_name
  check_near "$f audio duration (s) against video's" "$v" 0.1 "$a"
  check_eq "$f audio's dominant frequency (Hz)" 440 media_check tone "$dir/$f" 1 1
fi
for cam in video0 video1; do
  f="several-$cam.mp4"
  made "$f" "camfx record --source /dev/video0 --source /dev/video1 -o A -o B: $cam's file" || continue
  case $cam in video0) look=bars ;; video1) look=mirrored ;; esac
  check_eq "$f size" 320x180 size "$f"
  check_shows "$f decodes without errors, timestamps increasing" media_check decodes "$dir/$f"
  # (± a frame and a half: the 41st frame, see check_frames, makes it 4.1 s)
  check_near "$f video duration (s)" 4 0.15 "$(duration "$f" video)"
  check_frames "$f frame count" "$f" 4
  check_shows "$f: $cam's own picture ($look) in every frame" media_check cells "$dir/$f" 1 "$look"
done
if made several-cut.mp4 "camfx record --layout hstack with /dev/video1 unplugged and back"; then
  f=several-cut.mp4
  check_shows "$f decodes to the end without errors" media_check decodes "$dir/$f"
  # The camera was away for 6 s or more: a hole of a second would be plain; frames the
  # mosaic's clock could not make in time leave holes of a frame or two.
  check_shows "$f: the mosaic's frames come without a hole while video1 is away (none 0.5 s apart)" \
    media_check steady "$dir/$f" 0.5
  # video1's half: its picture, its card for most of the 6 s and more it was away (the
  # card comes after 2 s without a picture), its picture again for the seconds recorded
  # after it came back; video0's half: its picture in every frame.
  check_shows "$f: video0's bars on the left in every frame; on the right video1's, then its card, then its bars again" \
    media_check cells "$dir/$f" 2 bars "mirrored,card>=3,mirrored>=2" --starting 1
  v="$(duration "$f" video)"; a="$(duration "$f" audio)"
  check_near "$f audio duration (s) against video's" "$v" 0.1 "$a"
  check_eq "$f audio's dominant frequency (Hz)" 440 media_check tone "$dir/$f" 1 1
  # (and after video1 came back: the sound went on through the unplug)
  check_eq "$f audio's dominant frequency 2 s before its end (Hz)" 440 \
    media_check tone "$dir/$f" "$(awk -v v="$v" 'BEGIN { print v - 2 }')" 1
fi
# The same, each camera into its own file: video0's goes on without a hole, video1's
# goes on in the same file after its gap. (A camera's frames are its driver's: on a busy
# host the guest's vivid skips a few now and then, 0.37 s apart at most so far; video1
# was away for 5 s and more.)
if made several-cut-video0.mp4 "camfx record -o A -o B with /dev/video1 unplugged: video0's file"; then
  f=several-cut-video0.mp4
  check_shows "$f decodes to the end without errors" media_check decodes "$dir/$f"
  check_shows "$f: video0's frames come without a hole while video1 is away (none 1 s apart)" \
    media_check steady "$dir/$f" 1
  check_shows "$f: video0's bars in every frame" media_check cells "$dir/$f" 1 bars
fi
if made several-cut-video1.mp4 "camfx record -o A -o B with /dev/video1 unplugged: video1's file"; then
  f=several-cut-video1.mp4
  check_shows "$f decodes to the end without errors" media_check decodes "$dir/$f"
  check_shows "$f holds frames from before and after video1 was gone, in the same file" \
    media_check gap "$dir/$f" 3 1 2
  check_shows "$f: video1's mirrored bars in every frame" media_check cells "$dir/$f" 1 mirrored
fi

# camfx run (in-guest.sh): video0 from the start, video1 added to the YAML file and
# started by SIGHUP some seconds later. video0's file goes on through the reload without
# a hole; video1's holds its own picture from its start; each file's creation_time is its
# start (that of a camera added by a reload, the reload's).
if made run-video0.mp4 "camfx run: video0's file"; then
  f=run-video0.mp4
  check_shows "$f decodes without errors" media_check decodes "$dir/$f"
  # (1 s: see several-cut-video0.mp4 above)
  check_shows "$f: video0's frames come without a hole through the reload (none 1 s apart)" \
    media_check steady "$dir/$f" 1
  check_shows "$f: video0's bars in every frame" media_check cells "$dir/$f" 1 bars
fi
if made run-video1.mp4 "camfx run: video1's file, started by SIGHUP"; then
  f=run-video1.mp4
  check_shows "$f decodes without errors" media_check decodes "$dir/$f"
  check_shows "$f: video1's mirrored bars in every frame" media_check cells "$dir/$f" 1 mirrored
  if [ -s "$dir/run-video0.mp4" ]; then
    d0="$(duration run-video0.mp4 video)" d1="$(duration "$f" video)"
    # (3 s at least: the reload came 3 s after video0's file was there)
    if awk -v a="$d0" -v b="$d1" 'BEGIN { exit !(b >= 2 && a - b >= 3) }'; then
      pass "$f started at the reload: $d1 s of video, video0's $d0 s"
    else
      fail "$f started at the reload (2 s or more of video, 3 s or more less than video0's)" "video1 $d1 s, video0 $d0 s"
    fi
    check_shows "$f's creation_time is after video0's (its own start)" sh -c \
      'a="$(ffprobe -v error -show_entries format_tags=creation_time -of default=nw=1:nk=1 "$0")"
       b="$(ffprobe -v error -show_entries format_tags=creation_time -of default=nw=1:nk=1 "$1")"
       echo "video0 $a, video1 $b"; [ -n "$a" ] && [ -n "$b" ] && [ "$b" \> "$a" ]' "$dir/run-video0.mp4" "$dir/$f"
  fi
fi

# camfx run with both cameras and an hstack mosaic whose sound is video0's microphone,
# opened once: the tone in video0's file and in the mosaic's, each as long as its video.
if made run-av-mosaic.mp4 "camfx run: the mosaic with video0's microphone"; then
  f=run-av-mosaic.mp4
  check_eq "$f size (two 320x180 cameras side by side)" 640x180 size "$f"
  check_shows "$f decodes without errors, timestamps increasing" media_check decodes "$dir/$f"
  check_shows "$f: video0's bars in the left half, video1's mirrored in the right, in every frame" \
    media_check cells "$dir/$f" 2 bars mirrored --starting 1
  v="$(duration "$f" video)"; a="$(duration "$f" audio)"
  check_near "$f audio duration (s) against video's" "$v" 0.15 "$a"
  check_eq "$f audio's dominant frequency (Hz)" 440 media_check tone "$dir/$f" 1 1
fi
if made run-av-video0.mp4 "camfx run: video0's file, with its microphone"; then
  f=run-av-video0.mp4
  check_shows "$f: video0's bars in every frame" media_check cells "$dir/$f" 1 bars
  v="$(duration "$f" video)"; a="$(duration "$f" audio)"
  check_near "$f audio duration (s) against video's" "$v" 0.15 "$a"
  check_eq "$f audio's dominant frequency (Hz)" 440 media_check tone "$dir/$f" 1 1
fi
if made run-av-video1.mp4 "camfx run: video1's file beside the mosaic"; then
  check_shows "run-av-video1.mp4: video1's mirrored bars in every frame" media_check cells "$dir/run-av-video1.mp4" 1 mirrored
fi

summary
