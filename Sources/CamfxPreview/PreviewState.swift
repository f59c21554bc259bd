import Camfx
import CamfxMedia
import Foundation
import Synchronization

/// The figures `/state` serves and the preview page shows, from a running session:
///
///     {"elapsed_seconds": 12.5, "frames": 375, "frames_in": 375, "fps": 30.0, "dropped": 0,
///      "bytes": 1234567, "bitrate": 790123, "viewers": 1, "outputs": [...]}
///
/// `fps` is measured between two calls (at most once a second apart is best).
public final class PreviewState: Sendable {
  struct Figures: Codable {
    var elapsedSeconds: Double
    var frames: Int
    var framesIn: Int
    var fps: Double
    var dropped: Int
    var bytes: Int64
    var bitrate: Double
    var viewers: Int
    var outputs: [OutputReport]
    enum CodingKeys: String, CodingKey {
      case elapsedSeconds = "elapsed_seconds", frames, framesIn = "frames_in", fps, dropped, bytes, bitrate, viewers
      case outputs
    }
  }

  private let statistics: RecordingStatistics
  private let started = MonotonicClock.nanoseconds()
  private let outputs: @Sendable () -> [OutputReport]
  private let viewers: @Sendable () -> Int
  private let last = Mutex<(frames: Int, nanoseconds: Int64, fps: Double)>((0, 0, 0))

  public init(
    statistics: RecordingStatistics, viewers: @escaping @Sendable () -> Int,
    outputs: @escaping @Sendable () -> [OutputReport] = { [] }
  ) {
    self.statistics = statistics
    self.viewers = viewers
    self.outputs = outputs
  }

  public func json() -> [UInt8] {
    let snapshot = statistics.snapshot
    let now = MonotonicClock.nanoseconds()
    let elapsed = Double(now - started) / 1e9
    let fps = last.withLock { last -> Double in
      let interval = Double(now - last.nanoseconds) / 1e9
      if interval >= 0.4 {
        last.fps = last.nanoseconds == 0 ? 0 : Double(snapshot.framesWritten - last.frames) / interval
        last.frames = snapshot.framesWritten
        last.nanoseconds = now
      }
      return last.fps
    }
    let figures = Figures(
      elapsedSeconds: elapsed, frames: snapshot.framesWritten, framesIn: snapshot.framesIn, fps: fps,
      dropped: snapshot.dropped, bytes: snapshot.bytesWritten,
      bitrate: elapsed > 0 ? Double(snapshot.bytesWritten) * 8 / elapsed : 0, viewers: viewers(), outputs: outputs())
    return Array((try? JSONEncoder().encode(figures)) ?? Data("{}".utf8))
  }
}
