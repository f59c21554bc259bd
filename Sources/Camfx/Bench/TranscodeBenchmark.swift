import CamfxFrames
#if canImport(Glibc)
import Glibc
#endif
import CamfxCore
import CamfxMedia
import Foundation

/// `camfx bench`'s end-to-end row: a clip transcoded by the whole recording pipeline,
/// as `camfx record --input clip.mp4 --filter mirror,watermark -o out.mp4` would —
/// H.264 decoding, the filters on the decoded yuv420p planes (`FramePath`) and
/// libx264 (preset veryfast, CRF 23, no B-frames), each on its own thread.
///
/// Unlike the other rows it uses every core, and it reports the whole run's frames per
/// second (best and median are the same). The clip is made first, untimed, from the test
/// pattern, in a temporary folder that is removed afterwards.
public struct TranscodeBenchmark {
  /// The row's name in the table and for `--filter`.
  public static let name = "transcode"

  public var size: FrameGeometry
  /// Frames in the clip (at 30 frames/s).
  public var frames: Int
  /// The filter chain the transcode runs.
  public var filters = "mirror,watermark"

  public init(size: FrameGeometry, frames: Int) {
    precondition(frames > 0)
    self.size = size
    self.frames = frames
  }

  /// The encoder settings of both the clip and the transcode.
  func videoSettings(_ geometry: FrameGeometry) -> VideoSettings {
    var video = VideoSettings(geometry: geometry)
    video.preset = "veryfast"
    video.rateControl = .crf(23)
    video.fps = 30
    return video
  }

  /// Makes the clip, times the transcode, checks every frame came out.
  /// - Throws: `BenchError` if a folder cannot be made or frames went missing; the
  ///   pipeline's own errors otherwise.
  public func run() throws -> BenchResult {
    let folder = try Self.makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let clip = folder + "/clip.mp4"
    try makeClip(at: clip)

    let reader = try MovieReader(path: clip, audio: nil, poolCapacity: RecordingBuffering.file.poolCapacity)
    var chain = try FilterRegistry.builtin.makeChain([filters])
    let output = try chain.configure(input: reader.geometry)
    let writer = try MovieWriter(path: folder + "/out.mp4", settings: MovieSettings(video: videoSettings(output)))
    let session = try RecordingSession<PCMBuffer>(
      input: reader, chain: chain, sink: MovieWriterSink(writer: writer), buffering: .file)

    let start = MonotonicClock.seconds()
    session.start()
    let summary = session.waitUntilFinished()
    let seconds = MonotonicClock.seconds() - start
    if let error = summary.error { throw BenchError(operation: "transcode: \(error)", code: -1) }
    guard summary.framesOut == frames else {
      throw BenchError(operation: "transcode wrote \(summary.framesOut) of \(frames) frames", code: -1)
    }
    let perFrame = seconds / Double(frames)
    return BenchResult(
      name: Self.name, size: size, bytesPerFrame: size.pixelCount * 4, frames: frames,
      bestSeconds: perFrame, medianSeconds: perFrame, memcpyFramesPerSecond: nil)
  }

  /// Writes `frames` test-pattern frames to `path` with the same encoder settings.
  func makeClip(at path: String) throws {
    let source = TestPatternSource(geometry: size, frameRate: 30, frameCount: Int64(frames), poolCapacity: 2)
    let writer = try MovieWriter(path: path, settings: MovieSettings(video: videoSettings(size)))
    do {
      while let frame = try source.nextFrame() { _ = try writer.append(frame) }
      try writer.finish()
    } catch {
      writer.cancel()
      throw error
    }
  }

  static func makeTemporaryFolder() throws -> String {
    var template = Array((NSTemporaryDirectory() + "/camfx-bench-XXXXXX").utf8CString)
    guard let made = mkdtemp(&template) else { throw BenchError(operation: "mkdtemp", code: errno) }
    return String(cString: made)
  }
}
