import Camfx
import Foundation
import Synchronization
import XCTest

/// A kind of source and a kind of output of a program's own, each plugged in by one
/// type and one line in its registry, parsed from the text a user would give and
/// recorded through the public API alone.
final class OwnSourceAndOutputKindTests: XCTestCase {
  /// `/dev/ramp/N`: N frames of a colour ramp. Under /dev/ so that only being tried
  /// before the built-in kinds keeps it from being taken for a camera.
  struct RampSpec: LiveSourceSpec {
    let frames: Int
    static func parse(_ text: String) throws -> RampSpec? {
      guard text.hasPrefix("/dev/ramp/") else { return nil }
      guard let frames = Int(text.dropFirst("/dev/ramp/".count)), frames > 0 else {
        throw SourceError(source: text, reason: "expected /dev/ramp/FRAMES")
      }
      return RampSpec(frames: frames)
    }
    var description: String { "/dev/ramp/\(frames)" }
    func open(_ request: LiveSourceRequest) throws -> OpenedLiveSource {
      OpenedLiveSource(source: Ramp(frames: frames, poolCapacity: request.poolCapacity), framesPerSecond: 30)
    }
  }

  final class Ramp: MediaSource {
    let geometry = FrameGeometry(width: 160, height: 120)
    let frameDuration: MediaTime? = MediaTime(value: 1, timescale: 30)
    let isLive = false
    let frames: Int
    let pool: PixelBufferPool
    var n: Int64 = 0
    init(frames: Int, poolCapacity: Int) {
      self.frames = frames
      pool = PixelBufferPool(geometry: geometry, capacity: poolCapacity)
    }
    func nextSample() throws -> MediaSample<PCMBuffer>? {
      guard n < frames, let frame = pool.acquire(presentationTime: MediaTime(value: n, timescale: 30)) else { return nil }
      frame.fill(BGRA(r: UInt8(n % 256), g: 40, b: 220))
      n += 1
      return .video(.bgra(frame))
    }
  }

  /// `keyframes:NAME`: counts the video packets and keyframes it is sent.
  struct KeyframeCountTarget: OutputTarget {
    let name: String
    let counter: KeyframeCounter
    static func parse(_ name: String, _ options: OutputTargetOptions) throws -> KeyframeCountTarget? {
      guard name.hasPrefix("keyframes:") else { return nil }
      return KeyframeCountTarget(name: name, counter: KeyframeCounter())
    }
    var displayName: String { name }
    var identity: String { name }
    func makeOutput(_ options: OutputMakingOptions) throws -> any MovieOutput { counter }
  }

  final class KeyframeCounter: MovieOutput, Sendable {
    let packets = Atomic<Int>(0), keyframes = Atomic<Int>(0)
    func prepare(streams: [EncodedStream]) {}
    func write(_ packet: EncodedPacket) {
      guard packet.stream.kind == .video else { return }
      packets.add(1, ordering: .relaxed)
      if packet.isKeyframe { keyframes.add(1, ordering: .relaxed) }
    }
    func finish() {}
    func cancel() {}
    var bytesWritten: Int64 { 0 }
    var videoPacketsWritten: Int { packets.load(ordering: .relaxed) }
    var videoEndSeconds: Double { 0 }
    var report: OutputReport {
      OutputReport(name: "keyframes", kind: "count", state: .writing, bytes: 0, videoFrames: videoPacketsWritten)
    }
  }

  func testAProgramsOwnKindsOfSourceAndOutputAreParsedAndRecorded() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("camfx-kinds-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let movie = directory.appendingPathComponent("ramp.mp4").path

    let sources = SourceRegistry.builtin.registering(RampSpec.self)
    let spec = try sources.parse("/dev/ramp/90")
    XCTAssertTrue(spec.spec is RampSpec)
    XCTAssertEqual(spec.description, "/dev/ramp/90")
    // Without the registration the same text is a camera's, as before.
    XCTAssertTrue(try SourceRegistry.builtin.parse("/dev/ramp/90").spec is CameraSpec)
    XCTAssertThrowsError(try sources.parse("/dev/ramp/none")) { error in
      XCTAssertEqual("\(error)", "source '/dev/ramp/none': expected /dev/ramp/FRAMES")
    }

    let outputs = OutputRegistry.builtin.registering(KeyframeCountTarget.self)
    var recording = RecordingPipeline.Configuration(source: .live(spec))
    recording.outputs = try RecordingOutputPlan(names: [movie, "keyframes:main"], registry: outputs)
    XCTAssertEqual(recording.outputs?.files, [movie])
    recording.video.preset = "ultrafast"
    recording.video.gop = 30
    let summary = try RecordingPipeline(recording).run()
    XCTAssertNil(summary.error)
    XCTAssertEqual(summary.framesOut, 90)

    let probed = try ffprobe(["-select_streams", "v:0", "-count_frames", "-show_entries", "stream=nb_read_frames,width,height", movie])
    XCTAssertEqual(probed["nb_read_frames"], "90")
    XCTAssertEqual(probed["width"], "160")
    XCTAssertEqual(probed["height"], "120")
    let counter = try XCTUnwrap(recording.outputs?.targets.last as? KeyframeCountTarget).counter
    XCTAssertEqual(counter.packets.load(ordering: .relaxed), 90)
    // One keyframe every 30 frames, as the file has them.
    let keyframes = String(decoding: try runTool("ffprobe", [
      "-v", "error", "-select_streams", "v", "-show_entries", "packet=flags", "-of", "csv=p=0", movie,
    ]), as: UTF8.self).split(separator: "\n").filter { $0.hasPrefix("K") }.count
    XCTAssertEqual(keyframes, 3)
    XCTAssertEqual(counter.keyframes.load(ordering: .relaxed), keyframes)
  }

  func testOneOutputBySpellingsOfEveryKindIsRefused() throws {
    let outputs = OutputRegistry.builtin.registering(KeyframeCountTarget.self)
    XCTAssertThrowsError(try RecordingOutputPlan(names: ["keyframes:a", "keyframes:a"], registry: outputs)) { error in
      XCTAssertEqual("\(error)", "-o keyframes:a is given twice")
    }
    let directory = FileManager.default.temporaryDirectory.path
    XCTAssertThrowsError(try RecordingOutputPlan(names: ["\(directory)/a.mp4", "\(directory)/./a.mp4"])) { error in
      XCTAssertEqual("\(error)", "-o \(directory)/a.mp4 and -o \(directory)/./a.mp4 are the same file")
    }
  }
}
