import Camfx
import CamfxMedia
import Foundation
import XCTest

/// The session writing a real movie: the frames and the generated tone reach the file
/// with their timestamps (checked with ffprobe, which decodes what was written).
final class MovieWriterSinkTests: XCTestCase {
  private var directory: URL!
  /// The movie each test writes, in a folder of its own.
  private var path: String { directory.appendingPathComponent("out.mp4").path }

  override func setUpWithError() throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent("camfx-sink-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  }

  override func tearDownWithError() throws {
    try? FileManager.default.removeItem(at: directory)
  }

  func testSessionWritesEveryFrameAndAToneOfTheSameLength() throws {

    let input = CountingInput(geometry: FrameGeometry(width: 64, height: 48), live: false, total: 45)
    var video = VideoSettings(width: 32, height: 48)
    video.preset = "ultrafast"
    let audio = AudioSettings(sampleRate: 48_000, channels: 1)
    let writer = try MovieWriter(path: path, settings: MovieSettings(video: video, audio: audio))
    let generator = SineToneGenerator(try SineAudioSource(frequency: 440, sampleRate: 48_000, channels: 1))
    let session = try RecordingSession<PCMBuffer>(
      input: CountingVideoSource(input), chain: configuredChain([LeftHalf()], for: input.geometry),
      generator: generator, sink: MovieWriterSink(writer: writer))
    session.start()
    let summary = session.waitUntilFinished()
    XCTAssertNil(summary.error)
    XCTAssertEqual(summary.framesOut, 45)
    XCTAssertEqual(writer.status, .completed)
    XCTAssertEqual(summary.bytes, Int64(try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int))

    let video0 = try ffprobe(["-select_streams", "v:0", "-count_frames", "-show_entries",
      "stream=codec_name,width,height,nb_read_frames,duration", path])
    XCTAssertEqual(video0["codec_name"], "h264")
    XCTAssertEqual(video0["width"], "32")
    XCTAssertEqual(video0["height"], "48")
    XCTAssertEqual(video0["nb_read_frames"], "45")
    let videoDuration = try XCTUnwrap(Double(video0["duration"] ?? ""))
    XCTAssertEqual(videoDuration, 1.5, accuracy: 1.0 / 30)
    let audio0 = try ffprobe(["-select_streams", "a:0", "-show_entries", "stream=codec_name,duration", path])
    XCTAssertEqual(audio0["codec_name"], "aac")
    let audioDuration = try XCTUnwrap(Double(audio0["duration"] ?? ""))
    XCTAssertEqual(audioDuration, videoDuration, accuracy: 0.05)
  }

  /// A microphone unplugged mid-recording (its generator throws): the sound ends there,
  /// the video goes on to its end, and the summary says why the sound stopped.
  func testSoundThatFailsEndsTheAudioTrackButNotTheRecording() throws {

    let input = CountingInput(geometry: FrameGeometry(width: 64, height: 48), live: false, total: 90)
    var video = VideoSettings(width: 64, height: 48)
    video.preset = "ultrafast"
    let writer = try MovieWriter(path: path, settings: MovieSettings(video: video, audio: AudioSettings(sampleRate: 48_000, channels: 1)))
    let generator = try UnpluggedMicrophone(after: 1.0)
    let session = try RecordingSession<PCMBuffer>(
      input: CountingVideoSource(input), chain: configuredChain([], for: input.geometry),
      generator: generator, sink: MovieWriterSink(writer: writer))
    session.start()
    let summary = session.waitUntilFinished()
    XCTAssertNil(summary.error)
    XCTAssertEqual(summary.stopReason, .endOfInput)
    XCTAssertEqual(summary.framesOut, 90, "every frame, after the sound stopped too")
    let soundError = try XCTUnwrap(summary.soundError)
    XCTAssertTrue(soundError.hasPrefix("the sound stopped at 1."), soundError)
    XCTAssertTrue(soundError.hasSuffix(": the device was unplugged"), soundError)
    let video0 = try ffprobe(["-select_streams", "v:0", "-count_frames", "-show_entries", "stream=nb_read_frames", path])
    XCTAssertEqual(video0["nb_read_frames"], "90")
    let audio0 = try ffprobe(["-select_streams", "a:0", "-show_entries", "stream=duration", path])
    XCTAssertEqual(try XCTUnwrap(Double(audio0["duration"] ?? "")), 1.0, accuracy: 0.1, "the sound up to the unplug")
  }
}

/// A tone that fails once it has given `after` seconds, as an unplugged microphone does.
final class UnpluggedMicrophone: AudioGenerator {
  struct Unplugged: Error, CustomStringConvertible { var description: String { "the device was unplugged" } }
  private let tone: SineToneGenerator
  private let after: MediaTime
  private var start = MediaTime.zero

  init(after seconds: Double) throws {
    tone = SineToneGenerator(try SineAudioSource(frequency: 440, sampleRate: 48_000, channels: 1))
    after = MediaTime(value: Int64(seconds * 1000), timescale: 1000)
  }

  func start(at time: MediaTime) {
    start = time
    tone.start(at: time)
  }

  func nextChunk(until end: MediaTime) throws -> PCMBuffer? {
    // Sound up to the unplug, however far the video is ahead; then the failure.
    let unplugged = start + after
    if let block = try tone.nextChunk(until: end < unplugged ? end : unplugged) { return block }
    if end > unplugged { throw Unplugged() }
    return nil
  }
}

/// `CountingInput`'s frames from a source with the session's `PCMBuffer` sound type.
final class CountingVideoSource: MediaSource {
  let inner: CountingInput
  init(_ inner: CountingInput) { self.inner = inner }
  var geometry: FrameGeometry { inner.geometry }
  var frameDuration: MediaTime? { inner.frameDuration }
  var isLive: Bool { inner.isLive }
  var framesDroppedOutOfBuffers: Int { inner.framesDroppedOutOfBuffers }
  func nextSample() throws -> MediaSample<PCMBuffer>? {
    while let sample = try inner.nextSample() {
      if case .video(let frame) = sample { return .video(frame) }
    }
    return nil
  }
}

/// Runs ffprobe and returns the `key=value` lines of its default output.
func ffprobe(_ arguments: [String]) throws -> [String: String] {
  let data = try runTool("ffprobe", ["-v", "error", "-of", "default=noprint_wrappers=1"] + arguments)
  var result: [String: String] = [:]
  for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
    let parts = line.split(separator: "=", maxSplits: 1)
    if parts.count == 2 { result[String(parts[0])] = String(parts[1]) }
  }
  return result
}

/// Runs `/usr/bin/<tool>` and returns its standard output; throws on a non-zero exit.
/// (Standard error is not captured: the tools run with `-v error`.)
func runTool(_ tool: String, _ arguments: [String]) throws -> Data {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/usr/bin/" + tool)
  process.arguments = arguments
  let pipe = Pipe()
  process.standardOutput = pipe
  try process.run()
  let data = pipe.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  guard process.terminationStatus == 0 else {
    throw RecordingSessionError("\(tool) \(arguments.joined(separator: " ")) exited with \(process.terminationStatus)")
  }
  return data
}
