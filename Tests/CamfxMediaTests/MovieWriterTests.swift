import Camfx
import CamfxCore
import CamfxMedia
import Foundation
import XCTest

final class MovieWriterTests: XCTestCase {
  /// Writes `count` pattern frames at 30 fps and returns the path.
  private func writePattern(
    _ dir: TemporaryDirectory, name: String, count: Int = 60, width: Int = 640, height: Int = 360,
    audio: AudioSettings? = nil, faststart: Bool = false
  ) throws -> String {
    let path = dir.file(name)
    var video = VideoSettings(width: width, height: height)
    video.preset = "ultrafast"
    let writer = try MovieWriter(
      path: path, settings: MovieSettings(video: video, audio: audio), file: MovieFileOutput.Options(faststart: faststart))
    XCTAssertEqual(writer.status, .unknown)
    try writer.startWriting()
    XCTAssertEqual(writer.status, .writing)
    writer.startSession(atSourceTime: .zero)
    // Frames are expensive to draw in a debug build: draw a few and restamp them.
    let drawn = (0..<4).map { patternFrame(width: width, height: height, index: $0) }
    var sine = try SineAudioSource(frequency: 440, sampleRate: audio?.sampleRate ?? 48_000, channels: 2)
    for i in 0..<count {
      var frame = drawn[i % drawn.count]
      frame.presentationTime = MediaTime(value: Int64(i), timescale: 30)
      XCTAssertTrue(try writer.append(frame))
      if audio != nil, let pcm = sine.nextBuffer(upTo: MediaTime(value: Int64(i + 1), timescale: 30)) {
        try writer.append(audio: pcm)
      }
    }
    try writer.finish()
    XCTAssertEqual(writer.status, .completed)
    XCTAssertEqual(writer.videoFramesAppended, count)
    return path
  }

  func testWritesH264WithEveryFrameAndItsTimestamps() throws {
    let dir = try TemporaryDirectory()
    let path = try writePattern(dir, name: "pattern.mp4")
    let info = try probe(path)
    let v = try XCTUnwrap(info["video"])
    XCTAssertEqual(v.codec, "h264")
    XCTAssertEqual(v.width, 640)
    XCTAssertEqual(v.height, 360)
    XCTAssertEqual(v.frames, 60)
    XCTAssertNil(info["audio"])
    let pts = v.packetPTS.sorted()
    XCTAssertEqual(pts.count, 60)
    for (i, t) in pts.enumerated() {
      XCTAssertEqual(t, Double(i) / 30, accuracy: 0.001, "frame \(i)")
    }
    XCTAssertEqual(v.duration, 2.0, accuracy: 1.0 / 30)
  }

  func testDecodedPixelsMatchTheSourceColours() throws {
    let dir = try TemporaryDirectory()
    let path = try writePattern(dir, name: "colours.mp4", count: 8)
    let frames = try decodeYUV(path, width: 640, height: 360)
    XCTAssertEqual(frames.count, 8)
    for (index, frame) in frames.enumerated() {
      let grey = 40 + ((index % 4) * 3) % 180
      let colours = quadrantColours + [(grey, grey, grey)]
      for (q, c) in colours.enumerated() {
        // Centre of each quadrant.
        let x = (q % 2 == 0 ? 160 : 480), y = (q < 2 ? 90 : 270)
        let expected = referenceYUV(r: c.r, g: c.g, b: c.b)
        let Y = Double(frame[y * 640 + x])
        let U = Double(frame[640 * 360 + (y / 2) * 320 + x / 2])
        let V = Double(frame[640 * 360 * 5 / 4 + (y / 2) * 320 + x / 2])
        XCTAssertEqual(Y, expected.y, accuracy: 4, "frame \(index) quadrant \(q) Y")
        XCTAssertEqual(U, expected.u, accuracy: 4, "frame \(index) quadrant \(q) U")
        XCTAssertEqual(V, expected.v, accuracy: 4, "frame \(index) quadrant \(q) V")
      }
    }
  }

  func testMovAndMatroskaContainers() throws {
    let dir = try TemporaryDirectory()
    for name in ["clip.mov", "clip.mkv"] {
      let path = try writePattern(dir, name: name, count: 30, width: 320, height: 180)
      let info = try probe(path)
      let v = try XCTUnwrap(info["video"], name)
      XCTAssertEqual(v.codec, "h264", name)
      XCTAssertEqual(v.frames, 30, name)
      XCTAssertEqual(v.packetPTS.sorted().last ?? -1, 29.0 / 30, accuracy: 0.002, name)
    }
    let format = try runTool("ffprobe", ["-v", "error", "-show_entries", "format=format_name", "-of", "default=noprint_wrappers=1:nokey=1", dir.file("clip.mkv")])
    XCTAssertEqual(String(decoding: format, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines), "matroska,webm")
  }

  func testFaststartPutsTheIndexBeforeTheMedia() throws {
    let dir = try TemporaryDirectory()
    let plain = try topLevelBoxes(try writePattern(dir, name: "plain.mp4", count: 10, width: 320, height: 180))
    let fast = try topLevelBoxes(try writePattern(dir, name: "fast.mp4", count: 10, width: 320, height: 180, faststart: true))
    let plainMoov = try XCTUnwrap(plain.firstIndex(of: "moov")), plainMdat = try XCTUnwrap(plain.firstIndex(of: "mdat"))
    let fastMoov = try XCTUnwrap(fast.firstIndex(of: "moov")), fastMdat = try XCTUnwrap(fast.firstIndex(of: "mdat"))
    XCTAssertGreaterThan(plainMoov, plainMdat, "\(plain)")
    XCTAssertLessThan(fastMoov, fastMdat, "\(fast)")
  }

  func testSineAudioTrackMatchesVideoAndIs440Hz() throws {
    let dir = try TemporaryDirectory()
    let path = try writePattern(dir, name: "tone.mp4", count: 60, width: 320, height: 180, audio: AudioSettings())
    let info = try probe(path)
    let v = try XCTUnwrap(info["video"]), a = try XCTUnwrap(info["audio"])
    XCTAssertEqual(a.codec, "aac")
    XCTAssertEqual(a.sampleRate, 48_000)
    XCTAssertEqual(a.channels, 2)
    XCTAssertEqual(a.duration, v.duration, accuracy: 0.05)
    let samples = try decodeAudio(path, rate: 48_000)
    XCTAssertEqual(Double(samples.count) / 48_000, 2.0, accuracy: 0.05)
    let middle = samples[samples.count / 4..<samples.count * 3 / 4]
    let tone = goertzel(middle, frequency: 440, rate: 48_000)
    for other in [220.0, 330, 400, 480, 550, 880, 1000] {
      XCTAssertGreaterThan(tone, 100 * goertzel(middle, frequency: other, rate: 48_000), "440 Hz vs \(other) Hz")
    }
  }

  func testTimestampsAreRescaledNotInvented() throws {
    // Frames at 1/25 s stamped in microseconds, session starting at 10 s.
    let dir = try TemporaryDirectory()
    let path = dir.file("micro.mkv")
    var video = VideoSettings(width: 160, height: 120)
    video.fps = 25
    video.preset = "ultrafast"
    let writer = try MovieWriter(path: path, settings: MovieSettings(video: video))
    writer.startSession(atSourceTime: MediaTime(value: 10_000_000, timescale: 1_000_000))
    let frame = patternFrame(width: 160, height: 120, index: 0)
    // An irregular gap (frame 3 missing) must stay in the file.
    for i in [0, 1, 2, 4, 5] {
      var f = frame
      f.presentationTime = MediaTime(value: 10_000_000 + Int64(i) * 40_000, timescale: 1_000_000)
      try writer.append(f)
    }
    // A frame before the session start is skipped, not written.
    var early = frame
    early.presentationTime = MediaTime(value: 9_000_000, timescale: 1_000_000)
    XCTAssertFalse(try writer.append(early))
    try writer.finish()
    let pts = try XCTUnwrap(probe(path)["video"]).packetPTS.sorted()
    XCTAssertEqual(pts, [0, 0.04, 0.08, 0.16, 0.2])
  }

  func testNonIncreasingTimestampOrWrongSizeIsRefusedButWritingContinues() throws {
    let dir = try TemporaryDirectory()
    let path = dir.file("refuse.mp4")
    var video = VideoSettings(width: 160, height: 120)
    video.preset = "ultrafast"
    let writer = try MovieWriter(path: path, settings: MovieSettings(video: video))
    let frame = patternFrame(width: 160, height: 120, index: 0)
    try writer.append(frame)
    XCTAssertThrowsError(try writer.append(frame)) { error in
      XCTAssertTrue("\(error)".contains("is not after the previous frame"), "\(error)")
    }
    XCTAssertThrowsError(try writer.append(PixelBuffer(width: 162, height: 120, presentationTime: MediaTime(value: 5, timescale: 30)))) {
      XCTAssertTrue("\($0)".contains("frame is 162x120 but the video track is 160x120"), "\($0)")
    }
    XCTAssertEqual(writer.status, .writing)
    var next = frame
    next.presentationTime = MediaTime(value: 1, timescale: 30)
    try writer.append(next)
    try writer.finish()
    XCTAssertEqual(try XCTUnwrap(probe(path)["video"]).frames, 2)
  }

  func testWriterDroppedWhileWritingKeepsAFinishedFile() throws {
    let dir = try TemporaryDirectory()
    let path = dir.file("dropped.mp4")
    do {
      var video = VideoSettings(width: 64, height: 64)
      video.preset = "ultrafast"
      let writer = try MovieWriter(path: path, settings: MovieSettings(video: video))
      for i in 0..<30 { try writer.append(patternFrame(width: 64, height: 64, index: i)) }
    }
    XCTAssertEqual(try topLevelBoxes(path), ["ftyp", "free", "mdat", "moov"])
    XCTAssertGreaterThan(try XCTUnwrap(probe(path)["video"]).frames, 0)
  }

  func testOutputInMissingDirectoryFailsAtTheFirstPacketNamingTheFile() throws {
    let path = "/nonexistent-camfx-dir/out.mp4"
    var video = VideoSettings(width: 64, height: 64)
    video.preset = "ultrafast"
    let writer = try MovieWriter(path: path, settings: MovieSettings(video: video))
    try writer.startWriting()
    XCTAssertThrowsError(try {
      for i in 0..<10 { try writer.append(patternFrame(width: 64, height: 64, index: i)) }
      try writer.finish()
    }()) { error in
      XCTAssertEqual("\(error)", "open '/nonexistent-camfx-dir/out.mp4' failed: No such file or directory")
    }
    guard case .failed(let e) = writer.status else { return XCTFail("status \(writer.status)") }
    XCTAssertEqual(e.operation, "open '/nonexistent-camfx-dir/out.mp4'")
    XCTAssertFalse(FileManager.default.fileExists(atPath: path))
  }

  func testVideoAndAudioFromTwoThreads() throws {
    let dir = try TemporaryDirectory()
    let path = dir.file("threads.mp4")
    var video = VideoSettings(width: 160, height: 120)
    video.preset = "ultrafast"
    let writer = try MovieWriter(path: path, settings: MovieSettings(video: video, audio: AudioSettings()))
    writer.startSession(atSourceTime: .zero)
    let frame = patternFrame(width: 160, height: 120, index: 0)
    let audioThread = Thread {
      var sine = try! SineAudioSource(frequency: 440)
      for _ in 0..<100 { try! writer.append(audio: sine.nextBuffer(frameCount: 960)) }  // 2 s
    }
    audioThread.start()
    for i in 0..<60 {
      var f = frame
      f.presentationTime = MediaTime(value: Int64(i), timescale: 30)
      try writer.append(f)
    }
    while !audioThread.isFinished { usleep(1000) }
    try writer.finish()
    let info = try probe(path)
    XCTAssertEqual(try XCTUnwrap(info["video"]).frames, 60)
    XCTAssertEqual(try XCTUnwrap(info["audio"]).duration, 2.0, accuracy: 0.05)
  }

  func testBytesWrittenGrows() throws {
    let dir = try TemporaryDirectory()
    var video = VideoSettings(width: 160, height: 120)
    video.preset = "ultrafast"
    video.rateControl = .crf(0)
    let writer = try MovieWriter(path: dir.file("size.mkv"), settings: MovieSettings(video: video))
    XCTAssertEqual(writer.bytesWritten, 0)
    for i in 0..<30 { try writer.append(patternFrame(width: 160, height: 120, index: i)) }
    // The file output writes on its own worker, so the figure grows a little after the
    // appends return: wait for it rather than read it once (the CI once read 0 here).
    let deadline = Date().addingTimeInterval(10)
    while writer.bytesWritten == 0, Date() < deadline { usleep(10_000) }
    let whileRecording = writer.bytesWritten
    XCTAssertGreaterThan(whileRecording, 0)
    try writer.finish()
    let onDisk = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: dir.file("size.mkv"))[.size] as? Int64)
    XCTAssertGreaterThanOrEqual(writer.bytesWritten, whileRecording)
    XCTAssertEqual(writer.bytesWritten, onDisk, "the figure equals the finished file")
  }
}
