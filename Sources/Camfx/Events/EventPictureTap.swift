import CamfxCore
import CamfxFrames
import CamfxMedia
import CamfxPNG
import CamfxPixelFormats
import Synchronization

/// The picture of each event: the first filtered frame after its trigger, or the frame
/// at the motion's peak, written as a PNG beside its clip (`clip.mp4` → `clip.png`).
/// One thread writes them all, in the order asked (the trigger's picture before the
/// peak's that replaces it), so that the tap stage only copies the frame; `finish`
/// waits until every picture asked for is written.
final class EventPictureTap: FrameTap, @unchecked Sendable {
  // @unchecked Sendable: the wanted paths and the pictures to write are under Mutexes;
  // the count is atomic; the PNG thread is started and joined under `writing`.
  private let wanted = Mutex<[String]>([])
  private let pending = Atomic<Int>(0)
  private let report: @Sendable (String) -> Void
  private struct Writing {
    var queue: [(picture: PixelBuffer, path: String)] = []
    var thread: NamedThread?
    var finishing = false
    /// Pictures asked for and written so far, for `write(…, wait: true)`.
    var asked = 0
    var written = 0
  }
  private let writing = Mutex(Writing())
  private let work = WakeSignal()
  private let done = WakeSignal()

  init(report: @escaping @Sendable (String) -> Void) { self.report = report }

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
    for path in paths { write(copy, to: path) }
  }

  /// Writes `picture` as a PNG at `path`, after the pictures asked for before it;
  /// with `wait`, returns once it is written.
  func write(_ picture: PixelBuffer, to path: String, wait: Bool = false) {
    var ticket = 0
    let failure = writing.withLock { w -> String? in
      w.queue.append((picture, path))
      w.asked += 1
      ticket = w.asked
      guard w.thread == nil else { return nil }
      do {
        w.thread = try NamedThread("camfx.eventpng") { [self] in run() }
        return nil
      } catch {
        w.queue.removeAll()
        return "warning: the event's picture '\(path)' was not written: \(error)"
      }
    }
    if let failure { report(failure) }
    work.notify()
    guard wait, failure == nil else { return }
    while writing.withLock({ $0.written < ticket && $0.thread != nil }) {
      done.wait(timeoutNanoseconds: 50_000_000) { writing.withLock { $0.written >= ticket } }
    }
  }

  /// Waits until every picture asked for is written, and stops the thread.
  func finish() {
    let thread = writing.withLock { w -> NamedThread? in
      w.finishing = true
      defer { w.thread = nil }
      return w.thread
    }
    work.notify()
    thread?.join()
  }

  private func run() {
    while true {
      let next = writing.withLock { w -> (picture: PixelBuffer, path: String)?? in
        if !w.queue.isEmpty { return w.queue.removeFirst() }
        return w.finishing ? .some(nil) : nil
      }
      switch next {
      case .some(.some(let item)):
        do {
          let file = try OutputFile(path: item.path, overwrite: true)
          try file.write { temporary in try PNGFile.write(item.picture, to: temporary, alpha: false) }
        } catch {
          report("warning: the event's picture '\(item.path)' was not written: \(error)")
        }
        writing.withLock { $0.written += 1 }
        done.notify()
      case .some(.none):
        return
      case .none:
        work.wait(timeoutNanoseconds: 200_000_000) { writing.withLock { !$0.queue.isEmpty || $0.finishing } }
      }
    }
  }
}
