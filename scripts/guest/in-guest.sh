# The guest half of the tests against real drivers; scripts/guest/test.sh boots the guest
# with run-in-guest.sh and runs this inside it, then checks the files it leaves in
# $GUEST_OUT on the host (check-outputs.sh), where decoding is ~30x faster than under TCG.
#
# Here: drive the drivers — stock tools first (ffmpeg, arecord: they prove the guest
# itself), then camfx — and check what only the guest can see: exit statuses, messages,
# listings. camfx features that have not landed yet are skipped (SKIP lines); test.sh
# detects them from camfx's --help and passes CAMFX_FEATURES. Needs CAMFX (the binary),
# GUEST_SCRIPTS (this directory), and
# $GUEST_IN/tone.wav (440 Hz, 48 kHz, mono, S16, long enough for every recording).
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
# has FEATURE: test.sh found FEATURE in camfx's --help on the host (each camfx start
# costs seconds under TCG, so the guest does not ask).
has() {
  case " $CAMFX_FEATURES " in *" $1 "*) return 0 ;; *) return 1 ;; esac
}

echo "== the guest's drivers, with stock tools"
check "vivid is /dev/video0" \
  sh -c 'test -c /dev/video0 && grep -q vivid /sys/class/video4linux/video0/name'
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
  check_lists "camfx devices" "$out/devices.txt" /dev/video0 vivid YUYV NV12 640x480 Loopback
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
hold_camera() {  # hold_camera SECONDS: keeps /dev/video0 open that long, in the background
  sh -c 'exec 3</dev/video0; sleep "$0"' "$1" &
  holder=$!
  # Only once the holder has the device open may it be unplugged: a disconnect before
  # that lets the camera come back as soon as camfx closes it (a gap of 0.1 s, seen in CI).
  tries=0
  until [ "$(readlink "/proc/$holder/fd/3" 2>/dev/null)" = /dev/video0 ] || [ "$tries" -ge 100 ]; do
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
    "$out/no-bandwidth.err" "camera /dev/video0 cannot start: its USB bus has no bandwidth left for 640x480 YUYV at [0-9.]+ fps \\(about [0-9]+ Mbit/s uncompressed.*--input-format mjpeg.*smaller --size or --fps.*another USB controller"
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
else
  skip "unplugging the camera mid-record" "not in this build (record has no --input-format)"
fi

summary
