import CamfxCore
import CamfxMedia
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A file source played on the wall clock (`--input FILE --realtime`, as ffmpeg's `-re`):
/// each video frame is handed on when it is due — the first at once, frame `t` seconds
/// into the file `t` seconds later — and the session treats the source as live, as it
/// would a camera: frames the pipeline cannot take in time are dropped and counted.
/// Sound is handed on as it is demultiplexed, between the frames. A way to rehearse a
/// camera setup (its formats, its filters, a machine's speed) from a recording.
///
/// A stop ends the wait for the next frame at once, however far off it is (a source's
/// timestamps may jump ahead by minutes).
public final class PacedSource<Audio: Sendable>: MediaSourceWrapper, @unchecked Sendable {
  public let inner: any MediaSource<Audio>
  /// Monotonic nanoseconds and the frame time of the first frame.
  private var origin: (clock: Int64, time: MediaTime)?
  private let interrupted = Atomic<Bool>(false)
  private let wakeUp = WakeSignal()

  public init(_ inner: any MediaSource<Audio>) {
    self.inner = inner
  }

  public var isLive: Bool { true }

  public func interrupt() {
    interrupted.store(true, ordering: .releasing)
    wakeUp.notify()
    inner.interrupt()
  }

  public func nextSample() throws -> MediaSample<Audio>? {
    let sample = try inner.nextSample()
    if case .video(let frame) = sample { wait(until: frame.presentationTime) }
    return interrupted.load(ordering: .acquiring) ? nil : sample
  }

  /// Sleeps until the frame at `time` is due (absolute deadlines: no drift), or a stop.
  private func wait(until time: MediaTime) {
    guard let origin else {
      self.origin = (MonotonicClock.nanoseconds(), time)
      return
    }
    let due = origin.clock + (time - origin.time).converted(to: 1_000_000_000).value
    while !interrupted.load(ordering: .acquiring) {
      let left = due - MonotonicClock.nanoseconds()
      if left <= 0 { return }
      wakeUp.wait(timeoutNanoseconds: Int(min(left, 1_000_000_000))) { interrupted.load(ordering: .acquiring) }
    }
  }
}
