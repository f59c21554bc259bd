import CamfxCore
import CamfxFFmpeg
import CamfxFrames
@testable import Camfx
@testable import CamfxMedia
import Foundation
import XCTest

final class MovieReaderTests: XCTestCase {
  /// 2 s of testsrc2 at 320x240, 25 fps, with a 440 Hz tone, made by the ffmpeg tool.
  private func makeInput(_ dir: TemporaryDirectory, name: String = "in.mp4", extra: [String] = []) throws -> String {
    let path = dir.file(name)
    _ = try runTool("ffmpeg", [
      "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-f", "lavfi", "-i", "sine=f=440:sample_rate=44100",
      "-t", "2", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac",
    ] + extra + [path])
    return path
  }

  func testReadsEveryFrameWithItsTimestampAndTheAudio() throws {
    let dir = try TemporaryDirectory()
    let path = try makeInput(dir)
    let expectedPTS = try XCTUnwrap(probe(path)["video"]).packetPTS.sorted()
    XCTAssertEqual(expectedPTS.count, 50)
    let reader = try MovieReader(path: path, audio: AudioOutputSettings(sampleRate: 48_000, channels: 2))
    XCTAssertEqual(reader.geometry, FrameGeometry(width: 320, height: 240))
    XCTAssertEqual(reader.frameDuration, MediaTime(value: 1, timescale: 25))
    XCTAssertEqual(reader.videoCodecName, "h264")
    XCTAssertEqual(reader.audioCodecName, "aac")
    XCTAssertFalse(reader.isLive)
    XCTAssertEqual(reader.videoStartTime, .zero)
    var times: [MediaTime] = []
    var audio: [Int16] = []
    var audioStart: MediaTime?
    while let sample = try reader.nextSample() {
      switch sample {
      case .video(.bgra(let frame)):
        XCTAssertEqual(frame.geometry, reader.geometry)
        times.append(frame.presentationTime)
      case .audio(let pcm):
        XCTAssertEqual(pcm.sampleRate, 48_000)
        XCTAssertEqual(pcm.channels, 2)
        if audioStart == nil { audioStart = pcm.presentationTime }
        audio += pcm.samples
      case .video(.yuv420):
        XCTFail("a yuv420p frame from a reader that was not asked for them")
      }
    }
    XCTAssertNil(try reader.nextSample(), "stays at the end")
    XCTAssertEqual(times.count, 50)
    XCTAssertEqual(times.map(\.seconds), expectedPTS.map { $0 }, "timestamps preserved")
    XCTAssertEqual(zip(times, times.dropFirst()).filter { $0.0 >= $0.1 }.count, 0, "strictly increasing")
    // Audio: about 2 s at 48 kHz stereo, dominated by 440 Hz.
    XCTAssertEqual(Double(audio.count / 2) / 48_000, 2.0, accuracy: 0.05)
    XCTAssertEqual(try XCTUnwrap(audioStart).seconds, 0, accuracy: 0.05)
    let left = audio.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
    let middle = left[left.count / 4..<left.count * 3 / 4]
    XCTAssertGreaterThan(goertzel(middle, frequency: 440, rate: 48_000), 100 * goertzel(middle, frequency: 660, rate: 48_000))
  }

  func testFramesMatchTheFFmpegToolsDecode() throws {
    let dir = try TemporaryDirectory()
    let path = try makeInput(dir)
    let reference = try runTool("ffmpeg", ["-v", "error", "-i", path, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "bgra", "-"])
    XCTAssertEqual(reference.count, 320 * 240 * 4)
    let reader = try MovieReader(path: path)
    let frame = try XCTUnwrap(reader.nextFrame())
    var total = 0, worst = 0
    for y in 0..<240 {
      for x in 0..<320 {
        let p = frame[x, y], i = (y * 320 + x) * 4
        for (a, b) in [(p.b, reference[i]), (p.g, reference[i + 1]), (p.r, reference[i + 2])] {
          let d = abs(Int(a) - Int(b))
          total += d
          worst = max(worst, d)
        }
      }
    }
    // Both are libswscale's YUV→RGB; only the chroma upsampling filter may differ.
    XCTAssertLessThan(Double(total) / Double(320 * 240 * 3), 2.0)
    XCTAssertEqual(frame[0, 0].a, 255)
  }

  func testVideoSourceKeepsAudioAside() throws {
    let dir = try TemporaryDirectory()
    let path = try makeInput(dir)
    let reader = try MovieReader(path: path, audio: AudioOutputSettings())
    XCTAssertEqual(reader.audioSampleRate, 44_100)
    XCTAssertEqual(reader.audioChannels, 1)
    var frames = 0, audioFrames = 0
    while let _ = try reader.nextFrame() {
      frames += 1
      audioFrames += reader.takeAudio().reduce(0) { $0 + $1.frameCount }
    }
    audioFrames += reader.takeAudio().reduce(0) { $0 + $1.frameCount }
    XCTAssertEqual(frames, 50)
    XCTAssertEqual(Double(audioFrames) / 44_100, 2.0, accuracy: 0.05)
  }

  func testTranscodeKeepsFramesTimestampsAndAudio() throws {
    let dir = try TemporaryDirectory()
    let input = try makeInput(dir)
    let inPTS = try XCTUnwrap(probe(input)["video"]).packetPTS.sorted()
    for name in ["out.mp4", "out.mkv"] {
      let output = dir.file(name)
      let reader = try MovieReader(path: input, audio: AudioOutputSettings(sampleRate: 48_000, channels: 2))
      var video = VideoSettings(geometry: reader.geometry)
      video.fps = 25
      video.preset = "ultrafast"
      let writer = try MovieWriter(path: output, settings: MovieSettings(video: video, audio: AudioSettings()))
      if let start = reader.videoStartTime { writer.startSession(atSourceTime: start) }
      while let sample = try reader.nextSample() {
        switch sample {
        case .video(.bgra(let frame)): try writer.append(frame)
        case .video(.yuv420(let picture)): try writer.append(picture)
        case .audio(let pcm): try writer.append(audio: pcm)
        }
      }
      try writer.finish()
      let outInfo = try probe(output)
      let vout = try XCTUnwrap(outInfo["video"], name)
      XCTAssertEqual(vout.frames, 50, name)
      var outPTS = vout.packetPTS.sorted()
      if name.hasSuffix(".mkv") {
        // Matroska cannot store the AAC encoder's negative priming timestamps, so
        // libavformat shifts the whole file by them (as the ffmpeg tool does too).
        let shift = try XCTUnwrap(outPTS.first)
        XCTAssertEqual(shift, 1024.0 / 48_000, accuracy: 0.002, name)
        outPTS = outPTS.map { $0 - shift }
      }
      for (o, i) in zip(outPTS, inPTS) { XCTAssertEqual(o, i, accuracy: 0.0011, name) }
      let aout = try XCTUnwrap(outInfo["audio"], name)
      XCTAssertEqual(aout.duration, vout.duration, accuracy: 0.05, name)
    }
  }

  func testErrorsForMissingCorruptAndVideolessInput() throws {
    let dir = try TemporaryDirectory()
    func message(_ path: String) -> String {
      do {
        _ = try MovieReader(path: path)
        return "no error"
      } catch { return "\(error)" }
    }
    let missing = dir.file("missing.mp4")
    XCTAssertEqual(message(missing), "cannot open '\(missing)': No such file or directory")
    let corrupt = dir.file("corrupt.mp4")
    try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919 >> 3) }).write(to: URL(fileURLWithPath: corrupt))
    XCTAssertEqual(message(corrupt), "cannot open '\(corrupt)': Invalid data found when processing input")
    let tone = dir.file("tone.m4a")
    _ = try runTool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=f=440", "-t", "0.5", "-c:a", "aac", tone])
    XCTAssertEqual(message(tone), "'\(tone)' has no video stream")
    let directory = dir.path
    XCTAssertEqual(message(directory), "cannot open '\(directory)': Is a directory")
  }

  func testTruncatedFileDeliversWhatIsThereOrFailsCleanly() throws {
    let dir = try TemporaryDirectory()
    let path = try makeInput(dir, name: "whole.mkv")
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    let cut = dir.file("cut.mkv")
    try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: cut))
    let reader = try MovieReader(path: cut)
    var frames = 0
    do {
      while try reader.nextFrame() != nil { frames += 1 }
    } catch let error as FFmpegError {
      XCTAssertTrue(error.description.contains("'\(cut)'"), "\(error)")
    }
    XCTAssertGreaterThan(frames, 0)
    XCTAssertLessThan(frames, 50)
  }

  func testKeepingEveryFrameDoesNotHang() throws {
    let dir = try TemporaryDirectory()
    let path = dir.file("short.mp4")
    _ = try runTool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=64x48:rate=25", "-frames:v", "6", path])
    let reader = try MovieReader(path: path, poolCapacity: 2)
    var kept: [PixelBuffer] = []
    while let frame = try reader.nextFrame() { kept.append(frame) }
    XCTAssertEqual(kept.count, 6)
    XCTAssertEqual(kept.map(\.presentationTime.seconds), [0, 0.04, 0.08, 0.12, 0.16, 0.2])
  }

  /// A file whose stream information cannot be found (fuzz/FuzzMovie's find): a clean
  /// error, not a double free.
  func testAFileWithoutStreamInfoIsAnErrorNotACrash() throws {
    let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("Fixtures/stream-info-fails.mp4").path
    XCTAssertThrowsError(try MovieReader(path: fixture, audio: AudioOutputSettings(), poolCapacity: 4)) { error in
      XCTAssertTrue("\(error)".contains("stream-info-fails.mp4"), "\(error)")
    }
  }
}

final class CreationTimeParsingTests: XCTestCase {
  func testISO8601AsMuxersWriteIt() {
    XCTAssertEqual(MovieReader.parseISO8601("2021-03-04T05:06:07.000000Z"), 1_614_834_367)
    XCTAssertEqual(MovieReader.parseISO8601("2021-03-04 05:06:07.5Z"), 1_614_834_367.5)
    XCTAssertEqual(MovieReader.parseISO8601("1970-01-01T00:00:00Z"), 0)
    XCTAssertNil(MovieReader.parseISO8601("2021-13-04T05:06:07Z"))
    XCTAssertNil(MovieReader.parseISO8601("yesterday"))
  }
}
