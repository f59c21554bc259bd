# The guest half of the tests against real drivers; scripts/guest/test.sh boots the guest
# with run-in-guest.sh and runs this inside it, then checks the files it leaves in
# $GUEST_OUT on the host (check-outputs.sh), where decoding is ~30x faster than under TCG.
#
# Here: drive the drivers — stock tools first (ffmpeg, arecord: they prove the guest
# itself), then camfx — and check what only the guest can see: exit statuses, messages,
# listings. camfx features that have not landed yet are skipped (SKIP lines); test.sh
# detects them from camfx's --help and passes CAMFX_FEATURES. Needs CAMFX (the binary),
# GUEST_SCRIPTS (this directory),
# $GUEST_IN/tone.wav (440 Hz, 48 kHz, mono, S16, long enough for every recording), and
# $GUEST_IN/feed.mjpeg and feed.h264 (the v4l2loopback feeds, see start_feed); optionally
# V4L2LOOPBACK_ERROR, why the host could not build v4l2loopback (its checks fail with it).
. "$GUEST_SCRIPTS/lib.sh"
out="$GUEST_OUT"
tone="$GUEST_IN/tone.wav"
# The loopback's capture end takes the playback end's format: both 48 kHz mono S16.
rate=48000 channels=1

# Plays the tone into the loopback's playback end until stop_tone. Returns once the
# playback stream runs (starting aplay takes seconds under TCG on a busy host), so a
# recording never begins with silence.
start_tone() {
  aplay -D hw:Loopback,0,0 "$tone" 2>>"$out/aplay.log" &
  player=$!
  waited=0
  until grep -q RUNNING /proc/asound/Loopback/pcm0p/sub*/status 2>/dev/null; do
    if [ "$waited" -ge 120 ] || ! kill -0 "$player" 2>/dev/null; then
      echo "the tone did not start playing into hw:Loopback,0,0 (see aplay.log)"
      return 1
    fi
    sleep 0.5; waited=$((waited + 1))
  done
}
stop_tone() {
  kill "$player" 2>/dev/null
  wait "$player" 2>/dev/null
}

# The v4l2loopback "cameras" (build-initramfs.sh): /dev/video10 ("camfx MJPEG feed") and
# /dev/video11 ("camfx H264 feed") play back what a writer feeds them. With
# exclusive_caps=1 an idle one is an output device (no capture capability, no capture
# format: not a camera) until a writer has written its first frame; from then on it is a
# capture device with exactly the writer's format (MJPG or H264, 640x480, one frame size,
# one frame interval), until the writer and every reader have closed it. sysfs shows it:
# /sys/class/video4linux/video10/name is the card label, .../format is empty while idle and
# e.g. "MJPG:640x480@25" while fed. The feeds ($GUEST_IN/feed.mjpeg, feed.h264; test.sh
# makes them: 640x480, 25 fps, 12 s, each frame's number coded into its top 48 rows) are
# checked in recordings on the host with frame_match.py (codes, match, packets).
feed_mjpeg="$GUEST_IN/feed.mjpeg" feed_h264="$GUEST_IN/feed.h264"
# loopback_missing: prints why the loopback scenarios cannot run (and returns 0), or
# returns 1 when the devices and feeds are there.
loopback_missing() {
  if [ -c /dev/video10 ] && [ -c /dev/video11 ] && [ -f "$feed_mjpeg" ] && [ -f "$feed_h264" ]; then
    return 1
  fi
  if [ ! -d /sys/module/v4l2loopback ]; then
    echo "v4l2loopback is not loaded: ${V4L2LOOPBACK_ERROR:-its insmod failed (see the guest console) or build-initramfs.sh could not build it}"
  elif [ ! -c /dev/video10 ] || [ ! -c /dev/video11 ]; then
    echo "v4l2loopback is loaded but /dev/video10 or /dev/video11 is missing: $(ls /dev/video* | tr '\n' ' ')"
  else
    echo "no feeds: $feed_mjpeg or $feed_h264 is missing (test.sh makes them)"
  fi
}
# start_feed DEVICE FILE [loop]: plays FILE (a raw .mjpeg or Annex B .h264 feed) into the
# loopback DEVICE in the background at its own rate (ffmpeg -re, 25 fps, packets copied:
# each packet is one write(), which the device hands readers as one buffer), FILE's 12 s
# once or, with `loop`, over and over until stop_feed (ffmpeg's -stream_loop cannot seek
# a raw H.264 file; the file is piped in again and again instead, which also keeps the
# frame timing seamless). Returns once DEVICE offers its capture format (ffmpeg starts in
# 2-3 s under TCG): readers may open it then. Fails with one line when it does not. The
# device's fps (what VIDIOC_G_PARM and ENUM_FRAMEINTERVALS say) is set to the feed's 25;
# ffmpeg's v4l2 output sets none and the device would say 30. $feed_ready_s: how long it
# took. The feeder's stderr goes to $GUEST_OUT/feed-videoN.log.
feeders=""
start_feed() {
  feed_dev="$1" feed_file="$2" feed_sys="/sys/class/video4linux/${1#/dev/}"
  case "$feed_file" in
    *.mjpeg) feed_fmt=mjpeg feed_fourcc=MJPG ;;
    *.h264) feed_fmt=h264 feed_fourcc=H264 ;;
    *) echo "start_feed: $feed_file is neither a .mjpeg nor a .h264 feed"; return 1 ;;
  esac
  [ -f "$feed_file" ] || { echo "start_feed: no feed $feed_file"; return 1; }
  [ -e "$feed_sys/format" ] || { echo "start_feed: $feed_dev is not a v4l2loopback device"; return 1; }
  echo @25/1 > "$feed_sys/format" || { echo "start_feed: cannot set $feed_dev's fps"; return 1; }
  feed_log="$out/feed-${feed_dev#/dev/}.log"
  feed_t0="$(cut -d' ' -f1 /proc/uptime)"
  if [ "${3:-}" = loop ]; then
    sh -c 'while cat "$0"; do :; done' "$feed_file" |
      ffmpeg -nostdin -v error -re -f "$feed_fmt" -framerate 25 -i - -c copy -f v4l2 "$feed_dev" \
        >/dev/null 2>>"$feed_log" &
  else
    ffmpeg -nostdin -v error -re -f "$feed_fmt" -framerate 25 -i "$feed_file" -c copy -f v4l2 "$feed_dev" \
      >/dev/null 2>>"$feed_log" &
  fi
  feed_pid=$!   # of ffmpeg (the last command of a pipeline); the cat loop ends with it
  feeders="$feeders $feed_dev=$feed_pid"
  feed_waited=0
  until grep -q . "$feed_sys/format" 2>/dev/null; do
    if [ "$feed_waited" -ge 600 ] || ! kill -0 "$feed_pid" 2>/dev/null; then
      echo "start_feed: $feed_dev got no frame from ffmpeg within $((feed_waited / 10)) s: $(tail -n 2 "$feed_log" | tr '\n' ' ')"
      return 1
    fi
    sleep 0.1; feed_waited=$((feed_waited + 1))
  done
  feed_ready_s="$(awk -v a="$feed_t0" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%.1f", b - a }')"
  case "$(cat "$feed_sys/format")" in
    "$feed_fourcc:640x480@25") echo "$feed_dev is $feed_fourcc:640x480@25 after $feed_ready_s s" ;;
    *) echo "start_feed: $feed_dev is $(cat "$feed_sys/format"), not $feed_fourcc:640x480@25 (another format left over from a reader that still holds it?)"; return 1 ;;
  esac
}
# stop_feed [DEVICE]: stops DEVICE's feed (every feed, without DEVICE) and waits for the
# feeder to exit. The device keeps its format while a reader still has it open (the
# reader then waits for frames forever: v4l2loopback's timeout control is 0); once the
# last one closes it goes back to being an idle output device.
stop_feed() {
  feed_keep=""
  for f in $feeders; do
    if [ -z "${1:-}" ] || [ "${f%=*}" = "$1" ]; then
      kill "${f#*=}" 2>/dev/null
      wait "${f#*=}" 2>/dev/null
    else
      feed_keep="$feed_keep $f"
    fi
  done
  feeders="$feed_keep"
}
# has FEATURE: test.sh found FEATURE in camfx's --help on the host (each camfx start
# costs seconds under TCG, so the guest does not ask).
has() {
  case " $CAMFX_FEATURES " in *" $1 "*) return 0 ;; *) return 1 ;; esac
}

echo "== the guest's drivers, with stock tools"
check "vivid is /dev/video0" \
  sh -c 'test -c /dev/video0 && grep -q vivid /sys/class/video4linux/video0/name'
# (build-initramfs.sh: two instances, for several cameras in one camfx)
check "vivid's second instance is /dev/video1" \
  sh -c 'test -c /dev/video1 && grep -q vivid /sys/class/video4linux/video1/name'
check "snd-aloop is a sound card" grep -q Loopback /proc/asound/cards
check "ffmpeg grabs a 640x480 YUYV frame from /dev/video0" \
  ffmpeg -v error -y -f v4l2 -input_format yuyv422 -video_size 640x480 -i /dev/video0 \
    -frames:v 1 "$out/ffmpeg-yuyv.png"
check "aplay plays a 440 Hz tone into the loopback's playback end" start_tone
check "arecord records 2 s from the loopback's capture end" \
  arecord -q -D hw:Loopback,1,0 -f S16_LE -r "$rate" -c "$channels" -d 2 "$out/arecord.wav"
stop_tone

echo "== camfx ($CAMFX)"
if has devices; then
  check "camfx devices" timeout -k 10 60 sh -c '"$0" devices > "$1"' "$CAMFX" "$out/devices.txt"
  check_lists "camfx devices" "$out/devices.txt" /dev/video0 /dev/video1 vivid YUYV NV12 640x480 Loopback
  check "camfx devices --json" timeout -k 10 60 sh -c '"$0" devices --json > "$1"' "$CAMFX" "$out/devices.json"
else
  skip "camfx devices" "not in this build (camfx devices --help fails)"
fi

if has snapshot-camera; then
  check "camfx snapshot --source /dev/video0 --size 640x480" \
    timeout -k 10 60 "$CAMFX" snapshot --source /dev/video0 --size 640x480 -o "$out/snapshot.png"
else
  skip "camfx snapshot --source /dev/video0" "not in this build (snapshot has no --input-format)"
fi

# record_audio_options: --sample-rate/--channels when record has them, so camfx asks ALSA
# for exactly the loopback's format.
record_audio_options=""
has record-sample-rate && record_audio_options="--sample-rate $rate"
has record-channels && record_audio_options="$record_audio_options --channels $channels"
# Recordings from the camera use x264's ultrafast preset: under TCG the encoder runs
# about 30x slower than on the host (the default preset takes ~0.7 s a frame there), and
# what is tested here is the capture path, not x264. The timeouts are generous because
# starting camfx alone takes 10-30 s in this guest.
record_options="--x264-preset ultrafast --quiet"
if has record-camera && has record-alsa; then
  for fmt in yuyv nv12; do
    case $fmt in yuyv) filter=mirror ;; nv12) filter=grayscale ;; esac
    start_tone
    check "camfx record 3 s, $fmt, --filter $filter, audio from hw:Loopback,1,0" \
      timeout -k 10 240 "$CAMFX" record --source /dev/video0 --input-format "$fmt" --size 640x480 \
        --filter "$filter" --audio hw:Loopback,1,0 $record_audio_options --duration 3s $record_options \
        --stats-json "$out/record-$fmt.json" -o "$out/record-$fmt.mp4"
    cp "$log" "$out/record-$fmt.log"
    stop_tone
  done
  # A/V drift over the longest recording this guest affords: check-outputs.sh compares
  # the tracks' durations (audio is laid end to end from its first sample, so a
  # microphone clock running apart from the camera's shows up there; audio that went
  # missing is replaced by silence, which camfx reports on stderr).
  start_tone
  check "camfx record 20 s at 320x180 with audio, for A/V drift" \
    timeout -k 10 300 "$CAMFX" record --source /dev/video0 --input-format yuyv --size 320x180 \
      --audio hw:Loopback,1,0 $record_audio_options --duration 20s $record_options \
      --stats-json "$out/record-long.json" -o "$out/record-long.mp4"
  cp "$log" "$out/record-long.log"
  echo "INFO the 20 s recording said: $(tr '\n' ' ' < "$out/record-long.log")"
  stop_tone

  # SIGTERM (what `timeout` and service managers send) ends a recording cleanly: the
  # file is finished and camfx exits 0. (A record that hung in the audio stage once
  # ignored it.)
  # (No `timeout` wrapper: the signal must reach camfx itself, and timeout's -k would
  # SIGKILL it 10 s into the drain; the waits below bound it instead.)
  start_tone
  "$CAMFX" record --source /dev/video0 --size 320x180 --audio hw:Loopback,1,0 \
    $record_audio_options --duration 120s $record_options -o "$out/record-term.mp4" 2>"$out/record-term.err" &
  recorder=$!
  # The hidden temporary file appears just before the session starts; give the camera
  # a few seconds to stream into it (or until the muxer's first 32 kB block is out).
  waited=0
  while [ -z "$(find "$out" -name '*record-term.mp4')" ] && [ "$waited" -lt 120 ] \
      && kill -0 "$recorder" 2>/dev/null; do
    sleep 1; waited=$((waited + 1))
  done
  waited=0
  while [ -z "$(find "$out" -name '*record-term.mp4' -size +32k)" ] && [ "$waited" -lt 10 ] \
      && kill -0 "$recorder" 2>/dev/null; do
    sleep 1; waited=$((waited + 1))
  done
  kill -TERM "$recorder" 2>/dev/null
  waited=0
  while kill -0 "$recorder" 2>/dev/null && [ "$waited" -lt 240 ]; do
    sleep 1; waited=$((waited + 1))
  done
  kill -KILL "$recorder" 2>/dev/null
  wait "$recorder"; status=$?
  stop_tone
  if [ "$status" -eq 0 ] && grep -q "stopped by interrupted" "$out/record-term.err"; then
    pass "SIGTERM ends camfx record cleanly, $waited s after it: $(tail -n 1 "$out/record-term.err")"
  else
    fail "SIGTERM ends camfx record cleanly" "exit $status: $(tail -n 2 "$out/record-term.err" | tr '\n' ' ')"
  fi
else
  skip "camfx record from /dev/video0 with loopback audio" \
    "not in this build (record --help lacks --input-format or an hw: audio device)"
fi

# Permission denied: as an unprivileged user (devtmpfs makes the nodes root-only 0600
# here; on a desktop the video and audio groups grant access), with the group named.
if has snapshot-camera && setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$CAMFX" 2>/dev/null; then
  as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
  as_nobody timeout -k 10 60 "$CAMFX" snapshot --source /dev/video0 -o /tmp/nobody.png 2>"$out/denied-camera.err"
  status=$?
  check_refused "camfx snapshot as a user without access to /dev/video0" "$status" "$out/denied-camera.err" \
    "permission denied.*'video' group"
  if has record-alsa; then
    as_nobody timeout -k 10 60 "$CAMFX" record --source testsrc --audio hw:Loopback,1,0 $record_audio_options \
      --duration 1s -o /tmp/nobody.mp4 2>"$out/denied-microphone.err"
    status=$?
    check_refused "camfx record --audio hw:Loopback,1,0 as a user without access to the sound card" "$status" \
      "$out/denied-microphone.err" "permission denied.*'audio' group"
  fi
else
  skip "permission denied" "no camera snapshot in this build, or camfx is not executable by nobody"
fi

# The capture module's own XCTest cases against the real devices (they skip elsewhere).
if [ -n "${CAMFX_XCTEST:-}" ]; then
  check "aplay plays the tone" start_tone
  check "swift tests RealDeviceTests against vivid and snd-aloop" \
    env CAMFX_TEST_CAMERA=/dev/video0 CAMFX_TEST_MICROPHONE=hw:Loopback,1,0 \
      timeout -k 10 240 "$CAMFX_XCTEST" CamfxCaptureTests.RealDeviceTests
  cp "$log" "$out/real-device-tests.log"
  stop_tone
else
  skip "swift tests RealDeviceTests" "not in this build"
fi

if has controls && has snapshot-control; then
  check "camfx controls --source /dev/video0" \
    timeout -k 10 60 sh -c '"$0" controls --source /dev/video0 > "$1"' "$CAMFX" "$out/controls.txt"
  check_lists "camfx controls" "$out/controls.txt" brightness horizontal_flip
  check "camfx snapshot --control horizontal_flip=1" \
    timeout -k 10 60 "$CAMFX" snapshot --source /dev/video0 --size 640x480 --control horizontal_flip=1 \
      -o "$out/snapshot-hflip.png"
  # Controls stay set in the driver after camfx exits; put it back for what follows.
  v4l2-ctl -d /dev/video0 -c horizontal_flip=0
else
  skip "camfx controls and --control" "not in this build (no controls --source or snapshot --control)"
fi

# v4l2loopback with stock tools: compressed streams fed in (ffmpeg) and captured back
# (ffmpeg, v4l2-ctl); check-outputs.sh compares what came back with the feeds.
echo "== v4l2loopback, fed MJPEG and H.264, with stock tools"
if why="$(loopback_missing)"; then
  fail "v4l2loopback devices /dev/video10 and /dev/video11" "$why"
else
  check "v4l2loopback: /dev/video10 is 'camfx MJPEG feed', /dev/video11 'camfx H264 feed'" \
    sh -c 'test "$(cat /sys/class/video4linux/video10/name)" = "camfx MJPEG feed" &&
      test "$(cat /sys/class/video4linux/video11/name)" = "camfx H264 feed"'
  check "an idle loopback device is an output device without a capture format" \
    sh -c '! grep -q . /sys/class/video4linux/video10/format &&
      v4l2-ctl -d /dev/video10 --info | sed -n "/Device Caps/,\$p" | grep -q "Video Output"'
  # Each device is fed once, in a loop, for these checks and camfx's below: v4l2loopback
  # 0.12.7 gives a device back its output side only when a writer that used
  # VIDIOC_STREAMON closes it, and ffmpeg writes with write(): once such a writer has
  # gone, the next VIDIOC_QUERYCAP on the idle device (camfx devices does one) leaves it
  # with no capabilities at all, and the next writer's VIDIOC_G_FMT fails (EINVAL).
  fed=""
  for stream in mjpeg h264; do
    case $stream in
      mjpeg) dev=/dev/video10 file="$feed_mjpeg" ;;
      h264) dev=/dev/video11 file="$feed_h264" ;;
    esac
    if step "start_feed $dev $(basename "$file") loop" start_feed "$dev" "$file" loop; then
      fed="$fed $dev"
      echo "INFO $(tail -n 1 "$log")"
      # What a reader sees of each buffer (check-outputs.sh: one buffer = one packet).
      # 8 buffers: a reader asking for fewer than the device has shrinks its ring for good.
      check "v4l2-ctl streams 30 buffers from $dev" \
        sh -c 'v4l2-ctl -d "$0" --stream-mmap=8 --stream-count=30 --verbose >"$1" 2>&1' \
          "$dev" "$out/loopback-$stream-buffers.txt"
      # (timeout: a reader whose writer died waits for frames forever)
      check "ffmpeg captures 60 $stream frames from $dev, copied" \
        timeout -k 5 60 ffmpeg -nostdin -v error -y -f v4l2 -i "$dev" -frames:v 60 -c copy \
          "$out/loopback-$stream.mkv"
    fi
  done
fi

# camfx and compressed cameras: the v4l2loopback devices fed as above, now read by camfx.
# Each feed loops (a recording starts 10-30 s after camfx does under TCG). The files are
# compared with the feeds on the host (check-outputs.sh, frame_match.py): the H.264 copy
# byte for byte from a keyframe, the decoded recordings frame by frame (in order, none
# repeated, pixels within re-encoding tolerance). No --skip there: camfx itself drops
# v4l2loopback's stale first buffer (a compressed frame that fills its whole buffer).
echo "== camfx and compressed cameras (v4l2loopback)"
if ! has record-camera; then
  skip "camfx and compressed cameras" "no camera recording in this build"
elif why="$(loopback_missing)"; then
  fail "camfx and compressed cameras (v4l2loopback)" "$why"
else
  case "$fed" in
    *video11*)
      if has devices; then
        check "camfx devices while /dev/video10 and /dev/video11 are fed" \
          timeout -k 10 60 sh -c '"$0" devices > "$1"' "$CAMFX" "$out/devices-fed.txt"
        check_lists "camfx devices" "$out/devices-fed.txt" "/dev/video11: camfx H264 feed" \
          "H264 (H.264), --input-format h264" "/dev/video10: camfx MJPEG feed" "--input-format mjpeg"
      fi
      check "camfx record --video-codec copy from the H.264 camera (4 s)" \
        timeout -k 10 120 "$CAMFX" record --source /dev/video11 --video-codec copy --duration 4s --quiet \
          --stats-json "$out/camera-h264-copy.json" -o "$out/camera-h264-copy.mp4"
      check "camfx record --input-format h264 --filter grayscale from the H.264 camera (4 s, decoded)" \
        timeout -k 10 180 "$CAMFX" record --source /dev/video11 --input-format h264 --filter grayscale --audio none \
          --duration 4s $record_options --stats-json "$out/camera-h264.json" -o "$out/camera-h264.mp4" ;;
    *) fail "camfx and the H.264 camera" "/dev/video11 is not fed (see start_feed above)" ;;
  esac
  case "$fed" in
    *video10*)
      check "camfx record --input-format mjpeg --filter mirror from the MJPEG camera (4 s, decoded)" \
        timeout -k 10 180 "$CAMFX" record --source /dev/video10 --input-format mjpeg --filter mirror --audio none \
          --duration 4s $record_options --stats-json "$out/camera-mjpeg.json" -o "$out/camera-mjpeg.mp4" ;;
    *) fail "camfx and the MJPEG camera" "/dev/video10 is not fed (see start_feed above)" ;;
  esac
fi
if [ -n "$fed" ]; then
  stop_feed
  for dev in $fed; do
    check "$dev has no capture format once its writer and readers are gone" \
      sh -c '! grep -q . "/sys/class/video4linux/${0#/dev/}/format"' "$dev"
  done
fi

# Last: a recording that the camera is unplugged from. vivid's disconnect control acts
# as a USB unplug: /dev/video0 goes away and comes back only once every open handle to
# it is closed. A second process holding it open keeps the camera away for as long as
# it likes: 6 s for a camera that comes back (camfx waits, --reconnect-timeout 30s by
# default, and goes on in the same file), longer than --reconnect-timeout 3s for one
# that stays away (camfx finishes the file and exits non-zero). While the first records,
# a second camfx on the same camera and microphone must be told they are busy.
wait_for_frames() {  # wait_for_frames NAME: frames reach $out/NAME (fragments of 1 s), or $recorder ended
  waited=0
  while [ -z "$(find "$out" -name "$1" -size +32k)" ] \
      && [ "$waited" -lt 120 ] && kill -0 "$recorder" 2>/dev/null; do
    sleep 1; waited=$((waited + 1))
  done
}
hold_camera() {  # hold_camera SECONDS [DEVICE]: keeps DEVICE (/dev/video0) open that long, in the background
  hold_device="${2:-/dev/video0}"
  # (exec: the sleep that holds the device is $holder itself, so that `kill "$holder"`
  # lets the camera come back at once; a child sleep would keep it to the end.)
  sh -c 'exec 3<"$1"; exec sleep "$0"' "$1" "$hold_device" &
  holder=$!
  # Only once the holder has the device open may it be unplugged: a disconnect before
  # that lets the camera come back as soon as camfx closes it (a gap of 0.1 s, seen in CI).
  tries=0
  until [ "$(readlink "/proc/$holder/fd/3" 2>/dev/null)" = "$hold_device" ] || [ "$tries" -ge 100 ]; do
    sleep 0.05; tries=$((tries + 1))
  done
}
# A USB bus without bandwidth for the stream: VIDIOC_STREAMON fails with ENOSPC (injected
# by an LD_PRELOAD library, usb-bandwidth-full.c: no driver here returns it). One line
# that names the cause, the size, format and rate, and what helps; no file left.
if has record-camera && [ -f "$GUEST_IN/usb-bandwidth-full.so" ]; then
  LD_PRELOAD="$GUEST_IN/usb-bandwidth-full.so" timeout -k 10 120 "$CAMFX" record --source /dev/video0 \
    --input-format yuyv --size 640x480 --fps 25 --audio none --duration 2s $record_options -o "$out/no-bandwidth.mp4" \
    2>"$out/no-bandwidth.err"
  status=$?
  check_refused "camfx record when the USB bus has no bandwidth left (ENOSPC at VIDIOC_STREAMON)" "$status" \
    "$out/no-bandwidth.err" "^camfx: error: camera /dev/video0 cannot start: its USB bus has no bandwidth left for 640x480 YUYV at [0-9.]+ fps \\(about [0-9]+ Mbit/s uncompressed.*--input-format mjpeg.*smaller --size or --fps.*another USB controller"
  if [ "$(grep -c . "$out/no-bandwidth.err")" -eq 1 ] && [ ! -e "$out/no-bandwidth.mp4" ]; then
    pass "the USB bandwidth error is one line and leaves no file"
  else
    fail "the USB bandwidth error is one line and leaves no file" "$(tr '\n' ' ' < "$out/no-bandwidth.err"); $(ls "$out" | grep no-bandwidth | tr '\n' ' ')"
  fi
else
  skip "USB bandwidth error" "no camera recording in this build, or no usb-bandwidth-full.so"
fi

if has record-camera; then
  audio="--audio none"
  has record-alsa && audio="--audio hw:Loopback,1,0 $record_audio_options"
  start_tone
  timeout -k 10 300 "$CAMFX" record --source /dev/video0 --size 320x180 $audio \
    --duration 120s $record_options -o "$out/record-cut.mp4" 2>"$out/record-cut.err" &
  recorder=$!
  wait_for_frames record-cut.mp4
  if has snapshot-camera; then
    timeout -k 10 60 "$CAMFX" snapshot --source /dev/video0 -o "$out/busy.png" 2>"$out/busy-camera.err"
    status=$?
    check_refused "camfx snapshot while camfx records from /dev/video0" "$status" "$out/busy-camera.err" \
      "camera /dev/video0 is busy"
  fi
  if has record-alsa; then
    timeout -k 10 60 "$CAMFX" record --source testsrc --audio hw:Loopback,1,0 $record_audio_options \
      --duration 1s -o "$out/busy.mp4" 2>"$out/busy-microphone.err"
    status=$?
    check_refused "camfx record --audio hw:Loopback,1,0 while camfx records from it" "$status" \
      "$out/busy-microphone.err" "hw:Loopback,1,0 is busy"
  fi
  if kill -0 "$recorder" 2>/dev/null; then
    pass "camfx record is still recording when the camera is unplugged"
  else
    fail "camfx record is still recording when the camera is unplugged" "it ended already: $(tail -n 2 "$out/record-cut.err" | tr '\n' ' ')"
  fi
  hold_camera 6
  check "vivid's disconnect control unplugs the camera mid-record" \
    v4l2-ctl -d /dev/video0 -c disconnect=1
  # Record a while after the camera came back, then stop as a user would.
  waited=0
  until grep -q "is back after a gap" "$out/record-cut.err" 2>/dev/null \
      || [ "$waited" -ge 60 ] || ! kill -0 "$recorder" 2>/dev/null; do
    sleep 1; waited=$((waited + 1))
  done
  sleep 6
  # To camfx itself: `timeout` would pass a SIGINT on twice (to its child and to its
  # process group), and a second Ctrl-C means "stop at once".
  pkill -INT -P "$recorder" 2>/dev/null
  wait "$recorder"; status=$?
  wait "$holder" 2>/dev/null
  stop_tone
  if [ "$status" -eq 0 ]; then
    pass "camfx record goes on after the camera came back and finishes on Ctrl-C (exit 0)"
  else
    fail "camfx record goes on after the camera came back" "exit status $status: $(tail -n 2 "$out/record-cut.err" | tr '\n' ' ')"
  fi
  message="$(sed 's|[^ ]*record-cut[^ ]*|OUT|g' "$out/record-cut.err")"
  if printf '%s\n' "$message" | grep -q "camera /dev/video0 was disconnected; waiting up to 30 s" \
      && printf '%s\n' "$message" | grep -q "camera /dev/video0 is back after a gap of"; then
    pass "camfx says the camera went away and came back: $(printf '%s' "$message" | grep 'is back' | tail -n 1)"
  else
    fail "camfx says the camera went away and came back" "stderr was: $(printf '%s' "$message" | tail -n 3 | tr '\n' ' ')"
  fi

  # A camera that does not come back within --reconnect-timeout.
  timeout -k 10 300 "$CAMFX" record --source /dev/video0 --size 320x180 --audio none --reconnect-timeout 3s \
    --duration 120s $record_options -o "$out/record-gone.mp4" 2>"$out/record-gone.err" &
  recorder=$!
  wait_for_frames record-gone.mp4
  hold_camera 15
  check "vivid's disconnect control unplugs the camera again" v4l2-ctl -d /dev/video0 -c disconnect=1
  wait "$recorder"; status=$?
  kill "$holder" 2>/dev/null
  wait "$holder" 2>/dev/null
  if [ "$status" -ge 1 ] && [ "$status" -lt 124 ]; then
    pass "camfx record exits non-zero ($status) when the camera stays away"
  else
    fail "camfx record exits non-zero when the camera stays away" "exit status $status"
  fi
  # The output's own name must not make the message match.
  message="$(sed 's|[^ ]*record-gone[^ ]*|OUT|g' "$out/record-gone.err")"
  if printf '%s\n' "$message" | grep -q -i -E 'disconnected.*did not come back within 3'; then
    pass "the error says the camera went away for good: $(printf '%s' "$message" | grep -i 'did not come back' | tail -n 1)"
  else
    fail "the error says the camera went away for good" "stderr was: $(printf '%s' "$message" | tail -n 3 | tr '\n' ' ')"
  fi

  # (vivid comes back once the last handle to the camera above is closed.)
  waited=0
  until v4l2-ctl -d /dev/video0 --info >/dev/null 2>&1 || [ "$waited" -ge 60 ]; do
    sleep 0.5; waited=$((waited + 1))
  done
  # A timelapse of a camera that is unplugged, stopped with Ctrl-C while camfx waits for
  # it (--reconnect-timeout 60s): the stop reaches the waiting camera input through the
  # timelapse (it used not to, and camfx waited for the camera), camfx exits 0 within
  # 5 s, and --stats-json has the gap, from the last frame to the stop.
  timeout -k 10 300 "$CAMFX" record --source /dev/video0 --size 320x180 --audio none --timelapse 0.5s --fps 10 \
    --reconnect-timeout 60s --duration 120s $record_options --stats-json "$out/timelapse-gone.json" \
    -o "$out/timelapse-gone.mp4" 2>"$out/timelapse-gone.err" &
  recorder=$!
  # Streaming once camfx holds the camera open; a few frames later, unplug it.
  waited=0
  until ls -l /proc/$(pgrep -P "$recorder" | head -n 1)/fd 2>/dev/null | grep -q /dev/video0 \
      || [ "$waited" -ge 120 ] || ! kill -0 "$recorder" 2>/dev/null; do
    sleep 0.5; waited=$((waited + 1))
  done
  sleep 5
  hold_camera 40
  check "vivid's disconnect control unplugs the camera of a timelapse" v4l2-ctl -d /dev/video0 -c disconnect=1
  waited=0
  until grep -q "was disconnected" "$out/timelapse-gone.err" 2>/dev/null \
      || [ "$waited" -ge 60 ] || ! kill -0 "$recorder" 2>/dev/null; do
    sleep 0.5; waited=$((waited + 1))
  done
  stop_at="$(cut -d' ' -f1 /proc/uptime)"
  pkill -INT -P "$recorder" 2>/dev/null
  wait "$recorder"; status=$?
  took="$(awk -v a="$stop_at" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%.1f", b - a }')"
  kill "$holder" 2>/dev/null
  wait "$holder" 2>/dev/null
  if [ "$status" -eq 0 ] && awk -v t="$took" 'BEGIN { exit !(t <= 5) }'; then
    pass "a timelapse waiting for its unplugged camera ends on Ctrl-C: exit 0 after $took s"
  else
    fail "a timelapse waiting for its unplugged camera ends on Ctrl-C within 5 s" "exit $status after $took s: $(tail -n 2 "$out/timelapse-gone.err" | tr '\n' ' ')"
  fi
  check "the timelapse's --stats-json has the camera's gap" python3 -c '
import json, sys
gaps = json.load(open(sys.argv[1])).get("camera_gaps") or []
# One gap, from the last frame before the unplug to the stop (0.5 s or so after it).
if len(gaps) != 1 or not 0 < gaps[0]["seconds"] < 30: sys.exit("camera_gaps is %r" % gaps)
print(gaps)' "$out/timelapse-gone.json"
else
  skip "unplugging the camera mid-record" "not in this build (record has no --input-format)"
fi

# Several cameras in one camfx: vivid's two instances, /dev/video0 and /dev/video1, told
# apart by the second's horizontal_flip (a control of the driver's: it stays set from one
# open to the next, and through vivid's unplug and reconnect), so that check-outputs.sh
# knows whose picture is where: the 75% bars as they are from video0, mirrored from
# video1. Both show only vivid's counters (osd_text_mode=1, two lines at the top): at
# 320x180 its full overlay covers the rows where the bars are checked. 320x180 at 10 fps
# (each camera's, and the mosaic's own rate): two cameras and a 640x180 mosaic that a TCG
# guest keeps up with, in short recordings.
echo "== several cameras in one camfx (vivid's /dev/video0 and /dev/video1)"
if has record-several; then
  # (vivid comes back once the last handle to the camera above is closed.)
  waited=0
  until v4l2-ctl -d /dev/video0 --info >/dev/null 2>&1 || [ "$waited" -ge 60 ]; do
    sleep 0.5; waited=$((waited + 1))
  done
  check "vivid's /dev/video1 flipped (horizontal_flip=1), both cameras with only vivid's counters on screen" \
    sh -c 'v4l2-ctl -d /dev/video1 -c horizontal_flip=1 && v4l2-ctl -d /dev/video0 -c horizontal_flip=0 &&
      v4l2-ctl -d /dev/video0 -c osd_text_mode=1 && v4l2-ctl -d /dev/video1 -c osd_text_mode=1'
  several_audio="--audio none"
  has record-alsa && several_audio="--audio hw:Loopback,1,0 $record_audio_options"
  several_options="--size 320x180 --fps 10 $record_options"

  # (a) Both cameras in one picture with the microphone's sound, then each into its own
  # file (there, with no sound: one microphone cannot be opened twice).
  start_tone
  check "camfx record --source /dev/video0 --source /dev/video1 --layout hstack $several_audio (4 s)" \
    timeout -k 10 240 "$CAMFX" record --source /dev/video0 --source /dev/video1 --layout hstack $several_audio \
      --duration 4s $several_options --stats-json "$out/several-mosaic.json" -o "$out/several-mosaic.mp4"
  cp "$log" "$out/several-mosaic.log"
  stop_tone
  check "camfx record --source /dev/video0 --source /dev/video1 -o A -o B: each camera into its own file (4 s)" \
    timeout -k 10 240 "$CAMFX" record --source /dev/video0 --source /dev/video1 --audio none \
      --duration 4s $several_options -o "$out/several-video0.mp4" -o "$out/several-video1.mp4"
  cp "$log" "$out/several-each.log"

  # (b) /dev/video1 unplugged for a while, then back: from the mosaic, and from a
  # recording of each camera into its own file. check-outputs.sh checks the pictures:
  # video0's half (its file) has its bars in every frame and no hole in its frames'
  # times; video1's half shows its card while it is gone and its bars again, its file a
  # gap and frames after it.
  # unplug_video1 NAME FILE ARGS...: camfx record of both cameras with ARGS (the layout,
  # the sound, the outputs), in the background, its stderr in $out/NAME.err; 4 s after
  # camfx has /dev/video1 open and FILE is there (wait_for_frames would wait for 32 kB,
  # 5-10 s of these small pictures), /dev/video1 is unplugged and kept away for 6 s
  # (hold_camera; longer than the 2 s after which a mosaic's cell shows the card), and
  # camfx is stopped with Ctrl-C 3 s after it says the camera is back.
  unplug_video1() {
    name="$1" first="$2"; shift 2
    # (vivid brings video1 back once the last handle to it is closed.)
    waited=0
    until v4l2-ctl -d /dev/video1 --info >/dev/null 2>&1 || [ "$waited" -ge 60 ]; do
      sleep 0.5; waited=$((waited + 1))
    done
    start_tone
    timeout -k 10 300 "$CAMFX" record --source /dev/video0 --source /dev/video1 "$@" \
      --duration 120s $several_options 2>"$out/$name.err" &
    recorder=$!
    holder=""
    waited=0
    until { ls -l /proc/$(pgrep -P "$recorder" | head -n 1)/fd 2>/dev/null | grep -q /dev/video1 &&
        [ -n "$(find "$out" -name "*$first")" ]; } || [ "$waited" -ge 240 ] || ! kill -0 "$recorder" 2>/dev/null; do
      sleep 0.5; waited=$((waited + 1))
    done
    sleep 4
    if kill -0 "$recorder" 2>/dev/null; then
      hold_camera 6 /dev/video1
      # The other instance stays: /dev/video0 still opens while video1 is gone.
      check "$name: vivid's disconnect control unplugs /dev/video1 alone, mid-record" \
        sh -c 'v4l2-ctl -d /dev/video1 -c disconnect=1 && ! v4l2-ctl -d /dev/video1 --info >/dev/null 2>&1 &&
          v4l2-ctl -d /dev/video0 --info >/dev/null'
      waited=0
      until grep -q "camera /dev/video1 is back after a gap" "$out/$name.err" 2>/dev/null \
          || [ "$waited" -ge 60 ] || ! kill -0 "$recorder" 2>/dev/null; do
        sleep 1; waited=$((waited + 1))
      done
      sleep 3
      # (To camfx itself, as for the single camera above.)
      pkill -INT -P "$recorder" 2>/dev/null
    else
      fail "$name: camfx record with two cameras is still recording when one is unplugged" \
        "it ended already: $(tail -n 2 "$out/$name.err" | tr '\n' ' ')"
    fi
    wait "$recorder"; status=$?
    [ -n "$holder" ] && { kill "$holder" 2>/dev/null; wait "$holder" 2>/dev/null; }
    stop_tone
    if [ "$status" -eq 0 ]; then
      pass "$name: camfx record with two cameras goes on while one is unplugged and finishes on Ctrl-C (exit 0)"
    else
      fail "$name: camfx record with two cameras goes on while one is unplugged" \
        "exit status $status: $(tail -n 2 "$out/$name.err" | tr '\n' ' ')"
    fi
    # (The outputs' names must not make the messages match.)
    message="$(sed "s|$out/[^ ]*|OUT|g" "$out/$name.err")"
    if printf '%s\n' "$message" | grep -q "^camfx: video1: camera /dev/video1 was disconnected; waiting up to 30 s" \
        && printf '%s\n' "$message" | grep -q "^camfx: video1: camera /dev/video1 is back after a gap of" \
        && ! printf '%s\n' "$message" | grep -q "camera /dev/video0"; then
      pass "$name: camfx says video1 went away and came back, and nothing of video0's camera: $(printf '%s' "$message" | grep 'is back' | tail -n 1)"
    else
      fail "$name: camfx says video1 went away and came back, and nothing of video0's camera" \
        "stderr was: $(printf '%s' "$message" | tail -n 4 | tr '\n' ' ')"
    fi
  }
  unplug_video1 several-cut several-cut.mp4 --layout hstack $several_audio \
    --stats-json "$out/several-cut.json" -o "$out/several-cut.mp4"
  unplug_video1 several-cut-each several-cut-video0.mp4 --audio none \
    -o "$out/several-cut-video0.mp4" -o "$out/several-cut-video1.mp4"
  # (c) camfx run: the cameras in a YAML file, which SIGHUP reloads. It starts with
  # video0 alone; a few seconds in, video1 is added to the file and camfx is sent SIGHUP:
  # video1 starts into its own file, and video0's (check-outputs.sh) goes on without a
  # hole. Stopped with Ctrl-C a few seconds after video1 started.
  if has run; then
    yml="$out/run-cams.yml"
    run_camera() {  # run_camera NAME DEVICE: the YAML of one camera, as the record options above
      printf '  %s:\n    source: %s\n    size: 320x180\n    fps: 10\n    x264-preset: ultrafast\n    audio: none\n    output: %s\n' \
        "$1" "$2" "$out/run-$1.mp4"
    }
    # camfx_has DEVICE FILE: camfx (the child of $recorder) has DEVICE open, and FILE is there.
    camfx_has() {
      ls -l /proc/$(pgrep -P "$recorder" | head -n 1)/fd 2>/dev/null | grep -q "$1" && [ -n "$(find "$out" -name "*$2")" ]
    }
    { echo "cameras:"; run_camera video0 /dev/video0; } > "$yml"
    waited=0
    until v4l2-ctl -d /dev/video1 --info >/dev/null 2>&1 || [ "$waited" -ge 60 ]; do
      sleep 0.5; waited=$((waited + 1))
    done
    timeout -k 10 300 "$CAMFX" run --quiet "$yml" 2>"$out/run.err" &
    recorder=$!
    waited=0
    until camfx_has /dev/video0 run-video0.mp4 || [ "$waited" -ge 240 ] || ! kill -0 "$recorder" 2>/dev/null; do
      sleep 0.5; waited=$((waited + 1))
    done
    sleep 3
    run_camera video1 /dev/video1 >> "$yml"
    pkill -HUP -P "$recorder" 2>/dev/null
    waited=0
    until camfx_has /dev/video1 run-video1.mp4 || [ "$waited" -ge 240 ] || ! kill -0 "$recorder" 2>/dev/null; do
      sleep 0.5; waited=$((waited + 1))
    done
    sleep 4
    pkill -INT -P "$recorder" 2>/dev/null
    wait "$recorder"; status=$?
    message="$(sed "s|$out/[^ ]*|OUT|g" "$out/run.err")"
    if [ "$status" -eq 0 ] && printf '%s\n' "$message" | grep -q "^camfx: reloaded OUT 1 added, 0 restarted, 0 removed, 1 unchanged"; then
      pass "camfx run: SIGHUP with video1 added to the file starts it; Ctrl-C finishes both (exit 0): $(printf '%s' "$message" | grep reloaded)"
    else
      fail "camfx run: SIGHUP with video1 added to the file starts it, Ctrl-C finishes both" \
        "exit $status: $(printf '%s' "$message" | tail -n 4 | tr '\n' ' ')"
    fi
    # (d) camfx run with both cameras and an hstack mosaic whose sound is video0's
    # microphone (the loopback), opened once and heard by both video0's file and the
    # mosaic. check-outputs.sh checks the three files: sizes, pictures, and the tone in
    # video0's file and in the mosaic's.
    if has record-alsa; then
      waited=0
      until { v4l2-ctl -d /dev/video0 --info && v4l2-ctl -d /dev/video1 --info; } >/dev/null 2>&1 || [ "$waited" -ge 60 ]; do
        sleep 0.5; waited=$((waited + 1))
      done
      {
        echo "cameras:"
        printf '  video0:\n    source: /dev/video0\n    size: 320x180\n    fps: 10\n    x264-preset: ultrafast\n'
        printf '    audio: hw:Loopback,1,0\n'
        [ -n "$record_audio_options" ] && printf '    %s: %s\n' $(printf '%s' "$record_audio_options" | sed 's/--//g')
        printf '    output: %s\n' "$out/run-av-video0.mp4"
        run_camera video1 /dev/video1 | sed "s|run-video1.mp4|run-av-video1.mp4|"
        printf 'mosaic:\n  layout: hstack\n  audio: video0\n  output: %s\n' "$out/run-av-mosaic.mp4"
      } > "$out/run-av.yml"
      start_tone
      timeout -k 10 300 "$CAMFX" run --quiet "$out/run-av.yml" 2>"$out/run-av.err" &
      recorder=$!
      waited=0
      until camfx_has /dev/video1 run-av-mosaic.mp4 || [ "$waited" -ge 240 ] || ! kill -0 "$recorder" 2>/dev/null; do
        sleep 0.5; waited=$((waited + 1))
      done
      sleep 6
      pkill -INT -P "$recorder" 2>/dev/null
      wait "$recorder"; status=$?
      stop_tone
      if [ "$status" -eq 0 ]; then
        pass "camfx run: two cameras and a mosaic with video0's microphone, finished by Ctrl-C (exit 0)"
      else
        fail "camfx run: two cameras and a mosaic with video0's microphone, finished by Ctrl-C" \
          "exit $status: $(sed "s|$out/[^ ]*|OUT|g" "$out/run-av.err" | tail -n 4 | tr '\n' ' ')"
      fi
    else
      skip "camfx run: a mosaic with a camera's microphone" "no loopback sound card in this guest"
    fi
  else
    skip "camfx run: SIGHUP with a camera added to the YAML file starts it, the other camera's file has no gap" \
      "camfx run is not in this build: the run scenarios come when it lands"
  fi
  # Back as the scenarios before found the cameras.
  v4l2-ctl -d /dev/video1 -c horizontal_flip=0,osd_text_mode=0 2>/dev/null
  v4l2-ctl -d /dev/video0 -c osd_text_mode=0 2>/dev/null
else
  skip "several cameras in one camfx" "not in this build (record has no --layout)"
fi

summary
