import CamfxCore
import CamfxFrames
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
  private var pacer: FramePacer
  private let interrupted = Atomic<Bool>(false)
  private let wakeUp = WakeSignal()

  public init(_ inner: any MediaSource<Audio>) {
    self.inner = inner
    pacer = FramePacer(frameDuration: inner.frameDuration)
  }

  public var isLive: Bool { true }

  public func interrupt() {
    interrupted.store(true, ordering: .releasing)
    wakeUp.notify()
    inner.interrupt()
  }

  public func nextSample() throws -> MediaSample<Audio>? {
    let sample = try inner.nextSample()
    if case .video(let frame) = sample {
      pacer.waitForFrame(at: frame.presentationTime, wakeUp: wakeUp) { interrupted.load(ordering: .acquiring) }
    }
    return interrupted.load(ordering: .acquiring) ? nil : sample
  }
}
