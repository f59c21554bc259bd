import Camfx
import CamfxCore
import CamfxFFmpeg
import CamfxFrames
import CamfxMedia
import Foundation
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// Crash-safe movie files: fragments while writing, the in-place finish, repair after a
/// crash, full disks, and the files a recording must never replace.
final class MovieFileOutputTests: XCTestCase {
  /// Writes `count` pattern frames (30 fps) with a 440 Hz tone; `midway` sees the file
  /// as it is on disk after `midwayFrame` frames have been written (what a crash would
  /// leave).
  @discardableResult
  func record(
    _ path: String, count: Int, fragment: Double = 1, bframes: Int = 0, crf: Double = 23, audio: Bool = true,
    midwayFrame: Int? = nil, midway: (String) throws -> Void = { _ in }
  ) throws -> MovieWriter {
    var video = VideoSettings(width: 320, height: 240)
    video.preset = "ultrafast"
    video.bframes = bframes
    video.rateControl = .crf(crf)
    let writer = try MovieWriter(
      path: path, settings: MovieSettings(video: video, audio: audio ? AudioSettings() : nil),
      file: MovieFileOutput.Options(fragmentInterval: fragment))
    writer.startSession(atSourceTime: .zero)
    let drawn = (0..<8).map { patternFrame(width: 320, height: 240, index: $0 * 7) }
    var sine = try SineAudioSource(frequency: 440, sampleRate: 48_000, channels: 2)
    for i in 0..<count {
      var frame = drawn[i % drawn.count]
      frame.presentationTime = MediaTime(value: Int64(i), timescale: 30)
      try writer.append(frame)
      if audio, let pcm = sine.nextBuffer(upTo: MediaTime(value: Int64(i + 1), timescale: 30)) {
        try writer.append(audio: pcm)
      }
      if i + 1 == midwayFrame {
        // The file's worker writes behind the appends: wait until it has all but the
        // last few frames (the encoder's delay) before looking at the disk.
        let deadline = Date().addingTimeInterval(10)
        while writer.recordedOutputs[0].videoPacketsWritten < i + 1 - 10, Date() < deadline { usleep(5_000) }
        try midway(path)
      }
    }
    try writer.finish()
    return writer
  }

  /// ffmpeg's per-frame checksums and timestamps of every stream (`-f framemd5`).
  private func frameChecksums(_ path: String) throws -> [String] {
    let text = String(decoding: try runTool("ffmpeg", ["-v", "error", "-i", path, "-f", "framemd5", "-"]), as: UTF8.self)
    return text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map(String.init)
  }

  /// What ffmpeg prints at `-v error` while decoding the whole file (nothing when clean).
  private func decodeErrors(_ path: String) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
    process.arguments = ["-v", "error", "-i", path, "-f", "null", "-"]
    let err = Pipe()
    process.standardError = err
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return process.terminationStatus == 0 ? text : "exit \(process.terminationStatus): \(text)"
  }

  func testCleanFinishIsARegularMP4EqualToAnUnfragmentedRecording() throws {
    let dir = try TemporaryDirectory()
    for bframes in [0, 2] {
      let fragmented = dir.file("frag-\(bframes).mp4")
      let plain = dir.file("plain-\(bframes).mp4")
      try record(fragmented, count: 100, bframes: bframes)
      try record(plain, count: 100, fragment: 0, bframes: bframes)
      XCTAssertEqual(try topLevelBoxes(fragmented), ["ftyp", "free", "mdat", "moov"], "bframes \(bframes)")
      XCTAssertFalse(try topLevelBoxes(plain).contains("moof"))
      // Same frames, same timestamps, same audio: ffmpeg decodes both the same.
      let a = try frameChecksums(fragmented)
      XCTAssertEqual(a.count, 100 + 157, "bframes \(bframes)")
      XCTAssertEqual(a, try frameChecksums(plain), "bframes \(bframes)")
      let info = try probe(fragmented)
      XCTAssertEqual(try XCTUnwrap(info["video"]).duration, 100.0 / 30, accuracy: 0.001)
      XCTAssertEqual(try XCTUnwrap(info["audio"]).duration, try XCTUnwrap(probe(plain)["audio"]).duration, accuracy: 0.0001)
      XCTAssertEqual(try decodeErrors(fragmented), "")
    }
  }

  func testAFileCutAnywhereFinishesToItsLastCompleteFragment() throws {
    let dir = try TemporaryDirectory()
    let path = dir.file("live.mp4")
    let snapshot = dir.file("crashed.mp4")
    // The file as a crash after 100 frames (3 s) would leave it.
    try record(path, count: 150, midwayFrame: 100) { path in
      try FileManager.default.copyItem(atPath: path, toPath: snapshot)
    }
    let complete = try frameChecksums(path)
    let crashed = try XCTUnwrap(FileManager.default.contents(atPath: snapshot))
    XCTAssertTrue(try topLevelBoxes(snapshot).contains("moof"))
    // It plays as it is (fragmented), without errors.
    XCTAssertEqual(try decodeErrors(snapshot), "")
    var generator = SystemRandomNumberGenerator()
    let cuts = [crashed.count] + (0..<6).map { _ in Int.random(in: 1500..<crashed.count, using: &generator) }
    for cut in cuts {
      let copy = dir.file("cut-\(cut).mp4")
      FileManager.default.createFile(atPath: copy, contents: crashed.prefix(cut))
      let report: FragmentedMovieFinisher.Report
      do {
        report = try FragmentedMovieFinisher.finish(path: copy)
      } catch {
        // Cut inside the first fragment: nothing to keep, and the file is left as it was.
        XCTAssertTrue("\(error)".hasPrefix("it holds no complete fragment"), "cut at \(cut): \(error)")
        XCTAssertEqual(FileManager.default.contents(atPath: copy), crashed.prefix(cut), "cut at \(cut)")
        continue
      }
      XCTAssertFalse(report.wasFinished)
      XCTAssertEqual(try topLevelBoxes(copy), ["ftyp", "free", "mdat", "moov"], "cut at \(cut)")
      XCTAssertEqual(try decodeErrors(copy), "", "cut at \(cut)")
      // What is kept is the recording's beginning, frame for frame (video and audio).
      let kept = try frameChecksums(copy)
      let videoKept = kept.filter { $0.hasPrefix("0,") }
      XCTAssertEqual(videoKept, Array(complete.filter { $0.hasPrefix("0,") }.prefix(videoKept.count)), "cut at \(cut)")
      if cut == crashed.count {
        // Fragments of 1 s: at least 2 s of the 3.3 s written so far were complete.
        XCTAssertGreaterThanOrEqual(videoKept.count, 60)
        XCTAssertEqual(report.cutBytes, 0)
        XCTAssertEqual(report.trackKinds, ["video", "audio"])
      }
      // Finishing twice changes nothing.
      XCTAssertTrue(try FragmentedMovieFinisher.finish(path: copy).wasFinished)
    }
  }

  /// Frames with a hole in their timestamps (a camera that was gone for a while) keep
  /// it: the finished file has the same gap as an unfragmented one.
  func testAGapInTheTimestampsStaysAGap() throws {
    let dir = try TemporaryDirectory()
    var video = VideoSettings(width: 160, height: 120)
    video.preset = "ultrafast"
    for fragment in [1.0, 0] {
      let path = dir.file("gap-\(fragment).mp4")
      let writer = try MovieWriter(
        path: path, settings: MovieSettings(video: video), file: MovieFileOutput.Options(fragmentInterval: fragment))
      for i in Array(0..<45) + Array(200..<245) {
        try writer.append(patternFrame(width: 160, height: 120, index: i))
      }
      try writer.finish()
      let pts = try XCTUnwrap(probe(path)["video"]).packetPTS.sorted()
      XCTAssertEqual(pts.count, 90)
      XCTAssertEqual(pts[45] - pts[44], 156.0 / 30, accuracy: 0.001, "fragment \(fragment)")
      XCTAssertEqual(pts.last ?? 0, 244.0 / 30, accuracy: 0.001, "fragment \(fragment)")
    }
  }

  /// B-frames on timelines no grid describes: a gap that is no whole number of frames
  /// (the pictures across it have offsets of the gap's length), and a camera's jitter.
  /// The finished file keeps every frame at its time and ends a frame after the last;
  /// a repair of the file as a crash left it keeps every picture it holds at its time
  /// and re-derives nothing (there was no damage).
  func testBFramesAcrossAGapOrJitterNeedNoRepair() throws {
    let dir = try TemporaryDirectory()
    var video = VideoSettings(width: 160, height: 120)
    video.preset = "ultrafast"
    video.bframes = 2
    // A camera's jitter, the same every run: -3 ... +3 ms, from a linear congruence.
    var state: UInt64 = 7
    func jitter() -> Double {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Double(Int(state >> 33 % 7) - 3) / 1000
    }
    let timelines: [(String, [Double])] = [
      ("gap", (0..<60).map { Double($0) / 30 } + (60..<120).map { Double($0) / 30 + 2.512 }),
      ("jitter", (0..<120).map { Double($0) / 30 + jitter() }),
    ]
    for (name, times) in timelines {
      let path = dir.file("\(name).mp4")
      let snapshot = dir.file("\(name)-crashed.mp4")
      let writer = try MovieWriter(path: path, settings: MovieSettings(video: video), file: MovieFileOutput.Options())
      for (i, time) in times.enumerated() {
        var frame = patternFrame(width: 160, height: 120, index: i)
        frame.presentationTime = MediaTime(value: Int64((time * 90_000).rounded()), timescale: 90_000)
        try writer.append(frame)
      }
      let deadline = Date().addingTimeInterval(10)
      while writer.recordedOutputs[0].videoPacketsWritten < 100, Date() < deadline { usleep(5_000) }
      try FileManager.default.copyItem(atPath: path, toPath: snapshot)
      try writer.finish()
      let finished = try XCTUnwrap(probe(path)["video"]).packetPTS.sorted()
      XCTAssertEqual(finished.count, 120, name)
      for (pts, time) in zip(finished, times) { XCTAssertEqual(pts, time, accuracy: 0.001, name) }
      let duration = try runTool("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", path])
      let seconds = Double(String(decoding: duration, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
      XCTAssertLessThanOrEqual(seconds, (times.last ?? 0) + 1.0 / 30 + 0.005, name)
      let report = try FragmentedMovieFinisher.finish(path: snapshot)
      XCTAssertTrue(report.keptEverythingIntact, "\(name): \(report.losses)")
      XCTAssertEqual(report.repairs, [], name)
      // The crash left the first pictures in decode order, each at its time.
      let repaired = try XCTUnwrap(probe(snapshot)["video"]).packetPTS
      XCTAssertGreaterThanOrEqual(repaired.count, 90, name)
      for pts in repaired { XCTAssertTrue(finished.contains { abs($0 - pts) < 0.0005 }, "\(name): \(pts)") }
    }
  }

  /// Repair reads whatever a crash or a bad disk left: corrupted boxes make it refuse
  /// or cut, never crash; a finished file that lost its index is finished again.
  func testRepairSurvivesCorruptionAndALostIndex() throws {
    let dir = try TemporaryDirectory()
    let path = dir.file("rec.mp4")
    let snapshot = dir.file("crashed.mp4")
    try record(path, count: 100, midwayFrame: 80) { path in
      try FileManager.default.copyItem(atPath: path, toPath: snapshot)
    }
    let crashed = try XCTUnwrap(FileManager.default.contents(atPath: snapshot))
    var generator = SystemRandomNumberGenerator()
    for round in 0..<60 {
      var bytes = crashed
      for _ in 0..<4 {
        // Mostly in the boxes camfx reads (the first 8 kB: marker, moov, first moof).
        let at = round % 3 == 0 ? Int.random(in: 0..<bytes.count, using: &generator) : Int.random(in: 24..<8192, using: &generator)
        bytes[at] = UInt8.random(in: 0...255, using: &generator)
      }
      let copy = dir.file("corrupt-\(round).mp4")
      FileManager.default.createFile(atPath: copy, contents: bytes)
      do {
        _ = try FragmentedMovieFinisher.finish(path: copy)
      } catch {
        XCTAssertTrue(error is MP4FormatError, "\(error)")
      }
    }
    // A finished file whose final index is gone: the fragments are read again.
    let finished = try XCTUnwrap(FileManager.default.contents(atPath: path))
    let moovAt = try XCTUnwrap(finished.indices.reversed().first { i in
      i + 8 <= finished.count && finished[(i + 4)..<(i + 8)].elementsEqual("moov".utf8)
    }) - 0
    let lost = dir.file("lost.mp4")
    FileManager.default.createFile(atPath: lost, contents: finished.prefix(moovAt))
    let report = try FragmentedMovieFinisher.finish(path: lost)
    XCTAssertFalse(report.wasFinished)
    XCTAssertEqual(try frameChecksums(lost), try frameChecksums(path))
  }

  func testRepairRefusesAFileCamfxDidNotWriteFragmented() throws {
    let dir = try TemporaryDirectory()
    let plain = dir.file("plain.mp4")
    try record(plain, count: 10, fragment: 0, audio: false)
    let before = try XCTUnwrap(FileManager.default.contents(atPath: plain))
    XCTAssertThrowsError(try FragmentedMovieFinisher.finish(path: plain)) { error in
      XCTAssertEqual("\(error)", "not a fragmented MP4 written by camfx")
    }
    XCTAssertEqual(FileManager.default.contents(atPath: plain), before)
  }

  func testFaststartPutsTheIndexFirstAfterTheInPlaceFinish() throws {
    let dir = try TemporaryDirectory()
    let path = dir.file("fast.mp4")
    var video = VideoSettings(width: 320, height: 240)
    video.preset = "ultrafast"
    let writer = try MovieWriter(
      path: path, settings: MovieSettings(video: video, audio: AudioSettings()),
      file: MovieFileOutput.Options(faststart: true))
    for i in 0..<45 { try writer.append(patternFrame(width: 320, height: 240, index: i)) }
    try writer.finish()
    XCTAssertEqual(try topLevelBoxes(path), ["ftyp", "moov", "free", "mdat"])
    XCTAssertEqual(try decodeErrors(path), "")
    XCTAssertEqual(try XCTUnwrap(probe(path)["video"]).frames, 45)
  }

  func testCancelKeepsAndFinishesWhatWasWritten() throws {
    let dir = try TemporaryDirectory()
    let path = dir.file("cancelled.mp4")
    var video = VideoSettings(width: 160, height: 120)
    video.preset = "ultrafast"
    let writer = try MovieWriter(path: path, settings: MovieSettings(video: video))
    for i in 0..<40 { try writer.append(patternFrame(width: 160, height: 120, index: i)) }
    writer.cancel()
    XCTAssertEqual(writer.status, .cancelled)
    XCTAssertEqual(try topLevelBoxes(path), ["ftyp", "free", "mdat", "moov"])
    XCTAssertGreaterThan(try XCTUnwrap(probe(path)["video"]).frames, 0)
    XCTAssertThrowsError(try writer.finish())

    // Cancelled before any packet: no file at all.
    let never = dir.file("never.mp4")
    let idle = try MovieWriter(path: never, settings: MovieSettings(video: video))
    idle.cancel()
    XCTAssertFalse(FileManager.default.fileExists(atPath: never))
  }

  func testAFIFOOrDeviceIsRefusedAndNeverReplaced() throws {
    let dir = try TemporaryDirectory()
    let fifo = dir.file("pipe.mp4")
    XCTAssertEqual(mkfifo(fifo, 0o644), 0)
    var video = VideoSettings(width: 64, height: 64)
    video.preset = "ultrafast"
    for overwrite in [false, true] {
      let writer = try MovieWriter(
        path: fifo, settings: MovieSettings(video: video), file: MovieFileOutput.Options(overwrite: overwrite))
      XCTAssertThrowsError(try {
        for i in 0..<5 { try writer.append(patternFrame(width: 64, height: 64, index: i)) }
        try writer.finish()
      }()) { error in
        XCTAssertEqual("\(error)", "open '\(fifo)' failed: not a regular file (camfx writes movies only to regular files)")
      }
      var st = stat()
      XCTAssertEqual(lstat(fifo, &st), 0)
      XCTAssertEqual(st.st_mode & S_IFMT, S_IFIFO)
    }
  }

  func testFullDiskKeepsEveryCompleteFragmentAndSaysSo() throws {
    let dir = try TemporaryDirectory()
    let mountPoint = dir.file("small")
    try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
    guard mountTmpfs(at: mountPoint, size: "320k") else {
      throw XCTSkip("cannot mount a tmpfs here (not root?)")
    }
    defer { _ = umount2(mountPoint, Int32(MNT_DETACH)) }
    let path = mountPoint + "/full.mp4"
    var thrown: Error?
    do {
      try record(path, count: 900, crf: 18)
    } catch { thrown = error }
    let error = try XCTUnwrap(thrown as? FFmpegError)
    XCTAssertEqual("\(error)", "writing '\(path)' failed: disk full; kept everything up to the last complete fragment")
    // The file plays, holds whole fragments of 1 s, and was finished in place.
    XCTAssertEqual(try decodeErrors(path), "")
    let frames = try XCTUnwrap(probe(path)["video"]).frames
    XCTAssertGreaterThanOrEqual(frames, 30)
    XCTAssertLessThan(frames, 900)
    XCTAssertFalse(try topLevelBoxes(path).contains("moof"), "finished in place when the index fits")
  }

  private func mountTmpfs(at path: String, size: String) -> Bool {
    mount("tmpfs", path, "tmpfs", 0, "size=\(size)") == 0
  }
}
