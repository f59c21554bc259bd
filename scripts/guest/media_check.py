#!/usr/bin/env python3
"""Measurements on media files for the guest tests, decoded with ffmpeg/ffprobe.

Pure Python (no numpy): the guest runs the host's /usr/bin/python3 under TCG, so every
loop here is kept to a few hundred thousand steps.

  media_check.py pixel FILE X Y...           RGB of the pixel at each X,Y of the first frame
  media_check.py bars FILE [--at S] [--mirrored] [--gray] [--crop W:H:X:Y]
                                             checks vivid's 75% colour bars (in the frame
                                             at S seconds; mirrored left-right; as luma;
                                             in the W x H part at X,Y: one camera's cell
                                             of a mosaic)
  media_check.py tone FILE [START [LENGTH]]  dominant audio frequency in Hz
  media_check.py streams FILE                codec/size/duration of each stream as JSON
  media_check.py frames FILE                 number of decoded video frames
  media_check.py decodes FILE                decodes every frame: no errors, video
                                             timestamps strictly increasing; prints counts
  media_check.py gap FILE MIN_GAP MIN_BEFORE MIN_AFTER
                                             the video has a hole of at least MIN_GAP s with
                                             at least MIN_BEFORE s of frames before it and
                                             MIN_AFTER s after it (a camera that came back)
  media_check.py steady FILE MAX_GAP         the video has no hole: no two frames in a row
                                             more than MAX_GAP s apart (the opposite of gap)
  media_check.py cells FILE N TIMELINE... [--starting S]
                                             what each of the N side-by-side cells of a
                                             mosaic (an hstack) shows in every frame, in
                                             order: TIMELINE per cell, left to right, is
                                             LOOK[>=S],LOOK[>=S]...: runs of frames of each
                                             LOOK (bars, mirrored: vivid's 75% bars as
                                             they are or flipped; card: the mosaic's "no
                                             signal" card) in that order, each at least S
                                             seconds long; any other picture fails.
                                             --starting S: a cell may show its card for up
                                             to S s first (its camera's first picture had
                                             not come yet)

Exit status 0 when the measurement was made (and for `bars`, when the bars match),
1 with a one-line reason otherwise.
"""
import json
import math
import struct
import subprocess
import sys

# vivid's 75% colour bars, left to right, in 8 equal columns (RGB, full range).
BARS = [
    ("white", (191, 191, 191)), ("yellow", (191, 191, 0)), ("cyan", (0, 191, 191)),
    ("green", (0, 191, 0)), ("magenta", (191, 0, 191)), ("red", (191, 0, 0)),
    ("blue", (0, 0, 191)), ("black", (0, 0, 0)),
]
# BARS is also their order of brightness, in BT.601 and BT.709 luma alike.
# YUV 4:2:2/4:2:0 with limited range and chroma subsampling moves values by a few steps.
TOLERANCE = 24


def die(msg):
    print(msg, file=sys.stderr)
    sys.exit(1)


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        lines = p.stderr.decode(errors="replace").strip().splitlines()
        die(f"{' '.join(cmd)} failed: {lines[-1] if lines else 'exit %d' % p.returncode}")
    return p.stdout


def streams(path):
    out = run(["ffprobe", "-v", "error", "-show_streams", "-show_format", "-of", "json", path])
    return json.loads(out)


def video_size(path):
    info = streams(path)
    video = [s for s in info["streams"] if s.get("codec_type") == "video"]
    if not video:
        die(f"{path}: no video stream")
    return int(video[0]["width"]), int(video[0]["height"])


def first_frame_rgb(path, at=None, crop=None):
    """The frame at `at` seconds (the first by default) as RGB bytes; with crop
    (W:H:X:Y) only that part of it."""
    w, h = video_size(path)
    vf = []
    if crop is not None:
        cw, ch, cx, cy = (int(v) for v in crop.split(":"))
        if cw <= 0 or ch <= 0 or cx < 0 or cy < 0 or cx + cw > w or cy + ch > h:
            die(f"{path}: crop {crop} is outside its {w}x{h} picture")
        vf, w, h = ["-vf", f"crop={crop}"], cw, ch
    seek = ["-ss", str(at)] if at is not None else []
    raw = run(["ffmpeg", "-v", "error"] + seek + ["-i", path] + vf + ["-frames:v", "1",
               "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
    if len(raw) < w * h * 3:
        die(f"{path}: decoded {len(raw)} bytes at {at or 0} s, expected {w * h * 3}")
    return w, h, raw


def pixel(w, raw, x, y):
    i = (y * w + x) * 3
    return tuple(raw[i:i + 3])


def cmd_pixel(args):
    w, h, raw = first_frame_rgb(args[0])
    for xy in args[1:]:
        x, y = (int(v) for v in xy.split(","))
        if not (0 <= x < w and 0 <= y < h):
            die(f"pixel {x},{y} is outside {w}x{h}")
        print("%d,%d %d %d %d" % ((x, y) + pixel(w, raw, x, y)))


def cmd_bars(args):
    """Samples the middle of each bar on three rows below vivid's text overlay."""
    path, at, mirrored, gray, crop = args[0], None, False, False, None
    rest = args[1:]
    while rest:
        opt = rest.pop(0)
        if opt == "--at" and rest:
            at = float(rest.pop(0))
        elif opt == "--crop" and rest:
            crop = rest.pop(0)
        elif opt == "--mirrored":
            mirrored = True
        elif opt == "--gray":
            gray = True
        else:
            die(f"bars: unknown option {opt}")
    w, h, raw = first_frame_rgb(path, at, crop)
    bars = list(reversed(BARS)) if mirrored else BARS
    bar_w = w / 8
    bad = []
    if gray:
        # A grayscale filter may weigh R, G, B as BT.601 or BT.709; both put the bars in
        # the same order of brightness (white, yellow, cyan, green, magenta, red, blue,
        # black), so check that each bar is gray and the order of their levels.
        levels = []
        for i, (name, _) in enumerate(bars):
            x = int(bar_w * i + bar_w / 2)
            r, g, b = pixel(w, raw, x, h // 2)
            print(f"bar {i} {name:7} at x={x}: {(r, g, b)}")
            if max(r, g, b) - min(r, g, b) > 10:
                bad.append(f"{name} at {x},{h // 2} is not gray: {(r, g, b)}")
            levels.append(g)
        order = sorted(range(8), key=lambda i: -levels[i])
        want = [[n for n, _ in bars].index(n) for n, _ in BARS]
        if order != want or min(abs(levels[a] - levels[b]) for a, b in zip(order, order[1:])) < 5:
            bad.append("gray levels out of order: " + ", ".join(
                f"{bars[i][0]}={levels[i]}" for i in range(8)))
    for i, (name, want) in enumerate([] if gray else bars):
        x = int(bar_w * i + bar_w / 2)
        for y in (h // 2, h * 2 // 3, h - 2 - h // 10):
            got = pixel(w, raw, x, y)
            ok = all(abs(g - e) <= TOLERANCE for g, e in zip(got, want))
            if y == h // 2:
                print(f"bar {i} {name:7} at x={x}: {got} want {want} {'ok' if ok else 'WRONG'}")
            if not ok:
                bad.append(f"{name} at {x},{y} is {got}")
    if bad:
        die(f"{path}: colour bars wrong: " + "; ".join(bad[:4]))


def mono_samples(path, start, length, rate):
    raw = run(["ffmpeg", "-v", "error", "-ss", str(start), "-t", str(length), "-i", path,
               "-vn", "-ac", "1", "-ar", str(rate), "-f", "s16le", "-acodec", "pcm_s16le", "-"])
    n = len(raw) // 2
    return struct.unpack("<%dh" % n, raw[: n * 2])


def goertzel_power(samples, freq, rate):
    coeff = 2 * math.cos(2 * math.pi * freq / rate)
    s1 = s2 = 0.0
    for x in samples:
        s1, s2 = x + coeff * s1 - s2, s1
    return s1 * s1 + s2 * s2 - coeff * s1 * s2


def cmd_tone(args):
    """The median of each 0.1 s window's strongest frequency (100-2000 Hz in 20 Hz steps),
    of those not silent, so a glitch in one window (an underrun under a loaded TCG
    guest) cannot decide it;
    then 1 Hz steps near it over the whole span."""
    path = args[0]
    start = float(args[1]) if len(args) > 1 else 0.5
    length = float(args[2]) if len(args) > 2 else 1.0
    rate = 8000
    samples = mono_samples(path, start, length, rate)
    if len(samples) < rate // 10:
        die(f"{path}: only {len(samples)} audio samples from {start} s")
    peak = max(abs(s) for s in samples)
    if peak < 300:
        die(f"{path}: audio is silent from {start} s (peak {peak})")
    step = rate // 10
    windows = [samples[i:i + step] for i in range(0, len(samples) - step + 1, step)]
    windows = [w for w in windows if max(abs(s) for s in w) >= 300] or windows
    strongest = sorted(
        max(range(100, 2001, 20), key=lambda f: goertzel_power(w, f, rate)) for w in windows)
    coarse = strongest[len(strongest) // 2]
    span = samples[: rate // 2]
    fine = max(range(coarse - 20, coarse + 21), key=lambda f: goertzel_power(span, f, rate))
    if strongest[0] != strongest[-1]:
        print(f"{path}: strongest frequency per 0.1 s window: {strongest}", file=sys.stderr)
    print(fine)


def cmd_streams(args):
    info = streams(args[0])
    out = []
    for s in info["streams"]:
        d = {"type": s.get("codec_type"), "codec": s.get("codec_name"),
             "duration": float(s.get("duration", "nan"))}
        if s.get("codec_type") == "video":
            d.update(width=s.get("width"), height=s.get("height"), pix_fmt=s.get("pix_fmt"))
        if s.get("codec_type") == "audio":
            d.update(sample_rate=int(s.get("sample_rate", 0)), channels=s.get("channels"))
        out.append(d)
    print(json.dumps(out))


def cmd_frames(args):
    out = run(["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0",
               "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", args[0]])
    print(out.decode().strip())


def cmd_decodes(args):
    path = args[0]
    p = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "frame=media_type,pts_time",
                        "-of", "csv=p=0", path], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    errors = p.stderr.decode(errors="replace").strip().splitlines()
    if p.returncode != 0 or errors:
        die(f"{path}: decoding failed: " + " | ".join(errors[:3] or [f"exit {p.returncode}"]))
    video, audio, last = 0, 0, None
    for line in p.stdout.decode().splitlines():
        kind, _, pts = line.partition(",")
        pts = pts.strip(",")
        if kind == "audio":
            audio += 1
        elif kind == "video":
            video += 1
            t = float(pts) if pts not in ("", "N/A") else None
            if t is None or (last is not None and t <= last):
                die(f"{path}: video frame {video} has timestamp {pts!r} after {last}")
            last = t
    if video == 0:
        die(f"{path}: no video frames decoded")
    print(f"{video} video frames, {audio} audio frames, last video frame at {last} s")


def cmd_gap(args):
    path, min_gap, min_before, min_after = args[0], float(args[1]), float(args[2]), float(args[3])
    out = run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time",
               "-of", "csv=p=0", path])
    times = sorted(float(t) for t in out.decode().split() if t.strip() not in ("", "N/A"))
    if len(times) < 2:
        die(f"{path}: fewer than two video frames")
    gap, at = max((b - a, i) for i, (a, b) in enumerate(zip(times, times[1:])))
    before, after = times[at] - times[0], times[-1] - times[at + 1]
    print(f"largest gap {gap:.2f} s after {before:.2f} s of video, then {after:.2f} s more")
    if gap < min_gap or before < min_before or after < min_after:
        die(f"{path}: expected a gap of at least {min_gap} s with {min_before} s before and {min_after} s after")


def video_times(path):
    """The presentation times of the video's frames, in order (from the packets: no decoding)."""
    out = run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time",
               "-of", "csv=p=0", path])
    return sorted(float(t.strip(",")) for t in out.decode().split() if t.strip(",") not in ("", "N/A"))


def cmd_steady(args):
    path, max_gap = args[0], float(args[1])
    times = video_times(path)
    if len(times) < 2:
        die(f"{path}: fewer than two video frames")
    gap, at = max((b - a, i) for i, (a, b) in enumerate(zip(times, times[1:])))
    span = times[-1] - times[0]
    print(f"{len(times)} frames from {times[0]:.2f} to {times[-1]:.2f} s ({(len(times) - 1) / span:.2f} a second), "
          f"largest interval {gap:.3f} s after the frame at {times[at]:.2f} s")
    if gap > max_gap:
        die(f"{path}: frames {times[at]:.3f} and {times[at + 1]:.3f} s are {gap:.3f} s apart, more than {max_gap} s")


# The mosaic's "no signal" card: luma 49 (BT.601 limited range), RGB 38,38,38, with the
# camera's name and "no signal" in white, centred.
CARD = (38, 38, 38)
CARD_TOLERANCE = 12


def close(got, want, tolerance):
    return all(abs(g - e) <= tolerance for g, e in zip(got, want))


def cell_look(raw, w, h, x0, cw):
    """What the cell of width cw at x0 of an RGB frame shows: 'bars' or 'mirrored'
    (vivid's 75% bars, sampled as `bars` does), 'card' (uniform card grey everywhere but
    in the middle half of its height, where there are white letters, centred), else '?'."""
    def px(x, y):
        i = (y * w + x0 + x) * 3
        return raw[i], raw[i + 1], raw[i + 2]
    rows = (h // 2, h * 2 // 3, h - 2 - h // 10)
    for look, bars in (("bars", BARS), ("mirrored", BARS[::-1])):
        if all(close(px(int(cw * (2 * i + 1) / 16), y), colour, TOLERANCE)
               for i, (_, colour) in enumerate(bars) for y in rows):
            return look
    # Every third pixel, bar a margin of 4 where the neighbouring cell's colours bleed
    # in through 4:2:0 chroma and the encoder's blocks.
    bright = []
    for y in range(4, h - 4, 3):
        band = h // 4 <= y < h * 3 // 4
        for x in range(4, cw - 4, 3):
            p = px(x, y)
            if close(p, CARD, CARD_TOLERANCE):
                continue
            if not band:
                return "?"
            if min(p) >= 150:
                bright.append(x)
    if len(bright) >= 10 and abs(sum(bright) / len(bright) - cw / 2) <= cw / 8:
        return "card"
    return "?"


def cmd_cells(args):
    if len(args) < 3:
        die("usage: media_check.py cells FILE N TIMELINE...")
    starting = 0.0
    if "--starting" in args:
        i = args.index("--starting")
        starting = float(args[i + 1])
        del args[i:i + 2]
    path, n, timelines = args[0], int(args[1]), args[2:]
    if len(timelines) != n:
        die(f"cells: {n} cells but {len(timelines)} timelines")
    expected = []
    for timeline in timelines:
        runs = []
        for part in timeline.split(","):
            look, _, least = part.partition(">=")
            if look not in ("bars", "mirrored", "card"):
                die(f"cells: unknown look {look!r} (bars, mirrored, card)")
            runs.append((look, float(least or 0)))
        expected.append(runs)
    w, h = video_size(path)
    cw = w // n
    times = video_times(path)
    raw = run(["ffmpeg", "-v", "error", "-i", path, "-map", "0:v:0", "-fps_mode", "passthrough",
               "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
    size = w * h * 3
    if len(raw) != size * len(times):
        die(f"{path}: decoded {len(raw) / size:.1f} frames of {w}x{h}, its packets say {len(times)}")
    step = sorted(b - a for a, b in zip(times, times[1:]))[len(times) // 2] if len(times) > 1 else 0
    bad = []
    lines = []
    for c, runs in enumerate(expected):
        name = f"cell {c + 1} of {n}" if n > 2 else ("left", "right")[c] if n == 2 else "the picture"
        seen = []   # [look, first frame, frames]
        for f in range(len(times)):
            look = cell_look(raw[f * size:(f + 1) * size], w, h, c * cw, cw)
            if look == "?":
                i = (h // 2 * w + c * cw + cw // 2) * 3
                bad.append(f"{name}: frame {f} at {times[f]:.2f} s shows neither bars nor the card "
                           f"(RGB {tuple(raw[f * size + i:f * size + i + 3])} at its centre)")
                break
            if seen and seen[-1][0] == look:
                seen[-1][2] += 1
            else:
                seen.append([look, f, 1])
        spans = []
        for look, first, count in seen:
            end = times[first + count] if first + count < len(times) else times[-1] + step
            spans.append((look, times[first], end))
        lines.append(f"{name}: " + ", ".join(f"{look} {a:.1f}-{b:.1f} s" for look, a, b in spans))
        if bad:
            break
        if spans and spans[0][0] == "card" and runs[0][0] != "card":
            look, a, b = spans.pop(0)
            if b - a > starting:
                bad.append(f"{name}: starts with the card for {b - a:.2f} s, want at most {starting} s "
                           f"before its camera's first picture")
                continue
        if [look for look, _, _ in spans] != [look for look, _ in runs]:
            bad.append(f"{name}: shows {' then '.join(look for look, _, _ in spans)}, "
                       f"want {' then '.join(look for look, _ in runs)}")
            continue
        for (look, a, b), (_, least) in zip(spans, runs):
            if b - a < least:
                bad.append(f"{name}: {look} for {b - a:.2f} s from {a:.2f} s, want at least {least} s")
    print(f"{len(times)} frames; " + "; ".join(lines))
    if bad:
        die(f"{path}: " + "; ".join(bad))


def main():
    if len(sys.argv) < 3:
        die(__doc__.strip())
    commands = {"pixel": cmd_pixel, "bars": cmd_bars, "tone": cmd_tone,
                "streams": cmd_streams, "frames": cmd_frames, "decodes": cmd_decodes,
                "gap": cmd_gap, "steady": cmd_steady, "cells": cmd_cells}
    fn = commands.get(sys.argv[1])
    if fn is None:
        die(f"unknown measurement {sys.argv[1]!r}; known: {', '.join(commands)}")
    fn(sys.argv[2:])


if __name__ == "__main__":
    main()
