import CamfxCore
import CamfxFrames
import CamfxMedia
import CamfxPNG
import CamfxPixelFormats
import Synchronization

/// The picture of each event: the first filtered frame after its trigger, or the frame
/// at the motion's peak, written as a PNG beside its clip (`clip.mp4` → `clip.png`).
/// The tap stage only copies the frame; the PNG is written on the event recorder's
/// thread (`EventJobs`), in the order asked (the trigger's picture before the peak's
/// that replaces it).
final class EventPictureTap: FrameTap, @unchecked Sendable {
  // @unchecked Sendable: the wanted paths are under a Mutex, the count is atomic, and
  // the jobs queue is Sendable.
  private let wanted = Mutex<[String]>([])
  private let pending = Atomic<Int>(0)
  private let jobs: EventJobs
  private let report: @Sendable (String) -> Void

  init(jobs: EventJobs, report: @escaping @Sendable (String) -> Void) {
    self.jobs = jobs
    self.report = report
  }

  /// Asks for the next frame as a PNG at `path` (any thread).
  func request(path: String) {
    wanted.withLock { $0.append(path) }
    pending.add(1, ordering: .releasing)
  }

  var wantsFrame: Bool { pending.load(ordering: .acquiring) > 0 }

  func take(_ frame: VideoFrame) {
    let paths = wanted.withLock { list -> [String] in
      defer { list.removeAll() }
      return list
    }
    pending.subtract(paths.count, ordering: .releasing)
    guard !paths.isEmpty else { return }
    let copy = StillCapture.copy(frame)
    jobs.add { [self] in
      for path in paths { write(copy, to: path) }
    }
  }

  /// Writes `picture` as a PNG at `path`, now, on the calling thread (the recorder's).
  func write(_ picture: PixelBuffer, to path: String) {
    do {
      let file = try OutputFile(path: path, overwrite: true)
      try file.write { temporary in try PNGFile.write(picture, to: temporary, alpha: false) }
    } catch {
      report("warning: the event's picture '\(path)' was not written: \(error)")
    }
  }
}
