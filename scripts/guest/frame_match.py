#!/usr/bin/env python3
"""Which frames of a coded test feed a recording holds, and whether they are intact.

The feeds (made by test.sh, fed into the guest's v4l2loopback devices) are ffmpeg's
testsrc2 with frame number N written into the top 48 rows of each frame as a 16-bit code:
16 cells 1/16 of the width each, cell i (from the left) white when bit i of N is set,
black otherwise. testsrc2 moves every frame, so the rest of the picture tells frames
apart too.

  frame_match.py codes FILE [--mirrored]
      prints the code of each decoded frame of FILE (--mirrored: the picture was flipped
      left-right; it is flipped back first)
  frame_match.py match RECORDING FEED [--mirrored] [--tolerance T] [--looped] [--skip N]
      every frame of RECORDING is a frame of FEED: its code is a frame index of FEED, the
      codes strictly increase (frames in order, none twice; frames may be skipped), and its
      picture below the code band matches that FEED frame: the mean absolute difference of
      each 16x16 block of the 160x120 gray pictures at most T (default %(tolerance)s; see
      TOLERANCE).
      --looped: FEED was played in a loop, the codes may wrap around to 0.
      --skip N: RECORDING's first N frames are left out (a capture that kept the stale
      first buffer v4l2loopback hands a new reader).
  frame_match.py packets RECORDING FEED.h264 [--looped] [--skip N]
      RECORDING's H.264 (as Annex B, via ffmpeg's h264_mp4toannexb) is FEED's, unchanged:
      its NAL units are byte for byte a contiguous run of FEED's, and the run starts at an
      access unit with an IDR picture (a keyframe). Normalised on both sides first:
      access unit delimiters and filler data are dropped (a muxer may add or drop them);
      a parameter set (SPS/PPS) equal to one already seen since the last slice is dropped,
      and the SPS/PPS before a picture are put ahead of its other non-slice NAL units (the
      SEI x264 writes into its first access unit only): h264_mp4toannexb puts the avcC's
      SPS/PPS right before an IDR slice that arrives without them in its packet, and a
      recorder may or may not keep the feed's in-band copies. --looped: the run may wrap
      from FEED's end to its start (a feed played in a loop). --skip N: RECORDING's first
      N access units are left out, and then those before its next keyframe.

Decoding is ffmpeg's (every frame, -fps_mode passthrough: none dropped or duplicated), to
gray 160x120; the rest is pure Python. Exit status 0 when the check passes, with a
one-line summary; 1 with a one-line reason otherwise.
"""
import subprocess
import sys

# One-line failures and tool runs, as the other checker makes them (same directory).
from media_check import die, run

W, H = 160, 120          # the size frames are compared at
BAND = 14                # rows of that size to leave out: the 48-row code band (12 rows)
                         # and what scaling blurs of its edge
# How far a recorded frame may be from the feed frame its code names: the largest mean
# absolute difference (0-255 gray) over the 16x16 blocks (8 apart) of the 160x120 pictures
# below the band. Blocks, not the whole picture: testsrc2 changes only a band and a few
# small shapes from one frame to the next (the whole-picture mean moves by as little as
# 1.7 between neighbours, against 0.5 for a re-encode), and a torn or half-decoded frame
# is wrong in one region too. Measured on test.sh's feeds: the same frame after one more
# lossy encode is at most 2.6 apart (MJPEG feed vs H.264 feed 1.8; x264 ultrafast crf 23 /
# crf 32 of the MJPEG feed 0.6 / 2.6; MJPEG q 10 of the H.264 feed 1.9), neighbouring
# frames at least 18.6 (median 42); a frame torn between two, 63.
TOLERANCE = 10.0

__doc__ = __doc__ % {"tolerance": TOLERANCE}


def gray_frames(path, mirrored=False):
    """Every video frame of path as W*H gray bytes, in decoding (presentation) order."""
    vf = ("hflip," if mirrored else "") + f"scale={W}:{H},format=gray"
    raw = run(["ffmpeg", "-v", "error", "-i", path, "-map", "0:v:0", "-vf", vf,
               "-fps_mode", "passthrough", "-f", "rawvideo", "-"])
    n = W * H
    if len(raw) % n:
        die(f"{path}: decoded {len(raw)} bytes, not a whole number of {W}x{H} frames")
    frames = [raw[i:i + n] for i in range(0, len(raw), n)]
    if not frames:
        die(f"{path}: no video frames decoded")
    return frames


def code(frame):
    """The 16-bit code in the band: the middle of each cell, thresholded at 128."""
    y = 6 * W   # row 24 of 480, in the middle of the band
    value = 0
    for i in range(16):
        x = (2 * i + 1) * W // 32
        if frame[y + x] >= 128:
            value |= 1 << i
    return value


def diff(a, b):
    """The largest mean absolute difference of a 16x16 block below the code band."""
    rows, cols = (H - BAND) // 8, W // 8
    cells = []   # sums of absolute differences over 8x8 cells
    for r in range(rows):
        o = (BAND + 8 * r) * W
        d = [abs(x - y) for x, y in zip(a[o:o + 8 * W], b[o:o + 8 * W])]
        line = [0] * cols
        for y in range(8):
            row = d[y * W:(y + 1) * W]
            for c in range(cols):
                line[c] += sum(row[8 * c:8 * c + 8])
        cells.append(line)
    return max(cells[r][c] + cells[r][c + 1] + cells[r + 1][c] + cells[r + 1][c + 1]
               for r in range(rows - 1) for c in range(cols - 1)) / 256


def options(args, flags, valued=()):
    pos, opts = [], {}
    while args:
        a = args.pop(0)
        if a in flags:
            opts[a] = True
        elif a in valued and args:
            opts[a] = args.pop(0)
        elif a.startswith("--"):
            die(f"unknown option {a}")
        else:
            pos.append(a)
    return pos, opts


def cmd_codes(args):
    pos, opts = options(args, {"--mirrored"})
    if len(pos) != 1:
        die("usage: frame_match.py codes FILE [--mirrored]")
    print(" ".join(str(code(f)) for f in gray_frames(pos[0], "--mirrored" in opts)))


def feed_frames(path):
    frames = gray_frames(path)
    for i, f in enumerate(frames):
        if code(f) != i:
            die(f"{path}: frame {i} carries code {code(f)}: not a coded feed")
    return frames


def cmd_match(args):
    pos, opts = options(args, {"--mirrored", "--looped"}, {"--tolerance", "--skip"})
    if len(pos) != 2:
        die("usage: frame_match.py match RECORDING FEED [--mirrored] [--tolerance T] [--looped] [--skip N]")
    rec_path, feed_path = pos
    tolerance = float(opts.get("--tolerance", TOLERANCE))
    looped = "--looped" in opts
    skip = int(opts.get("--skip", 0))
    feed = feed_frames(feed_path)
    rec = gray_frames(rec_path, "--mirrored" in opts)
    if skip:
        if len(rec) <= skip:
            die(f"{rec_path}: {len(rec)} frames, none left after skipping {skip}")
        rec = rec[skip:]
    n = len(feed)
    codes = [code(f) for f in rec]
    skipped = gaps = wraps = 0
    for i, c in enumerate(codes):
        if c >= n:
            die(f"{rec_path}: frame {i + skip} carries code {c}, the feed has frames 0..{n - 1} "
                f"(codes so far: {codes[max(0, i - 3):i + 1]})")
        if i == 0:
            continue
        step = c - codes[i - 1]
        if looped and step < 0 and step + n <= n // 2:
            step += n
            wraps += 1
        if step <= 0:
            what = "twice in a row" if step == 0 else "after a later one"
            die(f"{rec_path}: frame {i + skip} is feed frame {c} {what} "
                f"(codes around it: {codes[max(0, i - 3):i + 3]})")
        if step > 1:
            skipped += step - 1
            gaps += 1
    worst, worst_at = -1.0, 0
    for i, (f, c) in enumerate(zip(rec, codes)):
        d = diff(f, feed[c])
        if d > worst:
            worst, worst_at = d, i
        if d > tolerance:
            near = ", ".join(f"{k}: {diff(f, feed[k]):.1f}" for k in (c - 1, c + 1) if 0 <= k < n)
            die(f"{rec_path}: frame {i + skip} carries code {c} but its picture differs from feed frame "
                f"{c} by {d:.2f} (tolerance {tolerance}; neighbours {near})")
    wrapped = f", wrapped {wraps}x" if looped else ""
    wrapped += f" (after the {skip} left out)" if skip else ""
    print(f"{len(rec)} frames = feed frames {codes[0]}..{codes[-1]} in order{wrapped}, "
          f"{skipped} skipped in {gaps} gaps, worst difference {worst:.2f} "
          f"(frame {worst_at + skip}, tolerance {tolerance})")


# --- H.264 packets -------------------------------------------------------------------
SLICE, IDR, SEI, SPS, PPS, AUD, FILLER = 1, 5, 6, 7, 8, 9, 12


def nal_units(data):
    """Annex B byte stream -> NAL units (without start codes and trailing zero bytes)."""
    units = []
    i = data.find(b"\x00\x00\x01")
    while i >= 0:
        start = i + 3
        j = data.find(b"\x00\x00\x01", start)
        units.append(data[start:j if j >= 0 else len(data)].rstrip(b"\x00"))
        i = j
    return [u for u in units if u]


def kind(u):
    return u[0] & 0x1F


def normalise(units):
    """Drops AUDs and filler data and repeated parameter sets; puts the SPS and PPS before
    the other NAL units (SEI) that come before a picture's first slice."""
    out, pending, seen = [], [], set()
    for u in units:
        t = kind(u)
        if t in (AUD, FILLER):
            continue
        if 1 <= t <= 5:
            pending.sort(key=lambda p: {SPS: 0, PPS: 1}.get(kind(p), 2))
            out += pending
            out.append(u)
            pending, seen = [], set()
        elif t in (SPS, PPS) and u in seen:
            continue
        else:
            seen.add(u)
            pending.append(u)
    return out + pending


def access_units(units):
    """Index of the first NAL of each access unit: a new one starts at a non-slice NAL
    (SPS, PPS, SEI) after a slice, or at a slice that begins a picture
    (first_mb_in_slice 0, the leading bit of its header) after a slice."""
    starts, after_slice = [], True
    for i, u in enumerate(units):
        t = kind(u)
        is_slice = 1 <= t <= 5
        if after_slice and (not is_slice or (len(u) > 1 and u[1] & 0x80)):
            starts.append(i)
        after_slice = is_slice
    return starts


def describe(u):
    names = {SLICE: "slice", IDR: "IDR slice", SEI: "SEI", SPS: "SPS", PPS: "PPS"}
    return f"{names.get(kind(u), 'NAL type %d' % kind(u))} of {len(u)} bytes"


def cmd_packets(args):
    pos, opts = options(args, {"--looped"}, {"--skip"})
    if len(pos) != 2:
        die("usage: frame_match.py packets RECORDING FEED.h264 [--looped] [--skip N]")
    rec_path, feed_path = pos
    looped = "--looped" in opts
    skip = int(opts.get("--skip", 0))
    with open(feed_path, "rb") as f:
        feed = normalise(nal_units(f.read()))
    # -copyinkf: ffmpeg's stream copy drops what comes before the first keyframe otherwise.
    rec = normalise(nal_units(run(["ffmpeg", "-v", "error", "-i", rec_path, "-map", "0:v:0",
                                   "-c", "copy", "-copyinkf", "-bsf:v", "h264_mp4toannexb",
                                   "-f", "h264", "-"])))
    if not rec:
        die(f"{rec_path}: no H.264 NAL units")
    left_out = ""
    if skip:
        starts = access_units(rec)
        keyframes = [i for a, i in enumerate(starts) if a >= skip and any(
            kind(u) == IDR for u in rec[i:starts[a + 1] if a + 1 < len(starts) else len(rec)])]
        if not keyframes:
            die(f"{rec_path}: no keyframe after its first {skip} access units")
        left_out = f" (after {starts.index(keyframes[0])} access units left out)"
        rec = rec[keyframes[0]:]
    if not feed:
        die(f"{feed_path}: no H.264 NAL units")
    n = len(feed)
    feed_aus = access_units(feed)
    au_of = {}
    for a, s in enumerate(feed_aus):
        end = feed_aus[a + 1] if a + 1 < len(feed_aus) else n
        for k in range(s, end):
            au_of[k] = a
    # Where the run can start: feed NALs equal to the recording's first; the longest
    # match decides (several candidates: an SPS/PPS is at every keyframe).
    best_k, best_len = None, -1
    for k in (k for k, u in enumerate(feed) if u == rec[0]):
        m = 0
        while m < len(rec):
            j = k + m
            if j >= n:
                if not looped:
                    break
                j %= n
            if feed[j] != rec[m]:
                break
            m += 1
        if m > best_len:
            best_k, best_len = k, m
        if m == len(rec):
            break
    if best_k is None:
        die(f"{rec_path}: its first NAL unit ({describe(rec[0])}) is nowhere in {feed_path}")
    if best_len < len(rec):
        m = best_len
        j = (best_k + m) % n if looped else best_k + m
        got = describe(rec[m])
        want = describe(feed[j]) if j < n else "the end of the feed"
        die(f"{rec_path}: NAL unit {m} of {len(rec)} ({got}, in recorded access unit "
            f"{len(access_units(rec[:m + 1])) - 1}) differs from the feed's ({want}, feed access "
            f"unit {au_of.get(j, '-')}); the {m} before it match feed NALs from access unit {au_of[best_k]}")
    first_au = au_of[best_k]
    if feed_aus[first_au] != best_k:
        die(f"{rec_path}: starts in the middle of feed access unit {first_au} (with a {describe(rec[0])})")
    end = feed_aus[first_au + 1] if first_au + 1 < len(feed_aus) else n
    if not any(kind(u) == IDR for u in feed[best_k:end]):
        die(f"{rec_path}: starts at feed access unit {first_au}, which is not a keyframe "
            f"(no IDR slice; the keyframe before it is access unit "
            f"{max((a for a, s in enumerate(feed_aus[:first_au]) if any(kind(u) == IDR for u in feed[s:feed_aus[a + 1]])), default='-')})")
    rec_aus = len(access_units(rec))
    keyframes = sum(1 for u in rec if kind(u) == IDR)
    last_au = au_of[(best_k + len(rec) - 1) % n]
    wrapped = " (wrapping round)" if best_k + len(rec) > n else ""
    print(f"{len(rec)} NAL units in {rec_aus} access units ({keyframes} keyframes) = feed access units "
          f"{first_au}..{last_au}{wrapped} of {len(feed_aus)}, byte for byte, starting at a keyframe{left_out}")


def main():
    commands = {"codes": cmd_codes, "match": cmd_match, "packets": cmd_packets}
    if len(sys.argv) < 2 or sys.argv[1] not in commands:
        die(__doc__.strip())
    commands[sys.argv[1]](sys.argv[2:])


if __name__ == "__main__":
    main()
