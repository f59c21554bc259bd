import CamfxCore
import CamfxFrames
import CamfxMedia
import CamfxPNG
import CamfxPixelFormats
import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Writes the next filtered frame as a PNG when asked (`camfx record` asks on SIGUSR1),
/// without disturbing the recording: the tap stage only copies the frame (a yuv420p
/// one is converted to BGRA on the way); the PNG is encoded and written on a queue of
/// its own, under a temporary name until it is complete (`OutputFile`).
///
/// Names come from a strftime pattern in local time, `still-%Y%m%d-%H%M%S.png`; a name
/// that exists gets `-1`, `-2`, ... before its extension, so no still replaces another.
public final class StillCapture: FrameTap, @unchecked Sendable {
  // @unchecked Sendable: `names` is only touched on `queue`; the request flag is atomic.
  private let requested = Atomic<Int>(0)
  private let queue = DispatchQueue(label: "camfx.stills")
  private var names: SegmentNames
  private let report: @Sendable (String) -> Void
  private let written = Atomic<Int>(0)

  /// - Parameters:
  ///   - pattern: the file name, with strftime fields or without.
  ///   - report: told the name of each still written, or why it failed, as one line.
  public init(pattern: String, report: @escaping @Sendable (String) -> Void) {
    names = SegmentNames(pattern: pattern, overwrite: false)
    self.report = report
  }

  /// Asks for a still of the next frame (safe from any thread, a signal handler's queue included).
  public func request() { requested.add(1, ordering: .releasing) }

  /// Stills written so far.
  public var count: Int { written.load(ordering: .acquiring) }

  /// Waits until every still asked for so far is written.
  public func waitUntilWritten() { queue.sync {} }

  public var wantsFrame: Bool { requested.load(ordering: .acquiring) > 0 }

  public func take(_ frame: VideoFrame) {
    // A still for each request: the frames asked for before this one was taken may
    // outnumber the requests left (one request, two frames marked), and those get none.
    guard requested.load(ordering: .acquiring) > 0 else { return }
    requested.subtract(1, ordering: .releasing)
    let copy = Self.copy(frame)
    let now = time(nil)
    queue.async { [self] in
      let name = names.next(at: now)
      do {
        let file = try OutputFile(path: name, overwrite: false)
        try file.write { path in try PNGFile.write(copy, to: path, alpha: false) }
        written.add(1, ordering: .releasing)
        report("still saved to \(name)")
      } catch {
        report("no still written: \(error)")
      }
    }
  }

  /// A BGRA copy of `frame` that outlives it (a yuv420p one converted on the way),
  /// made in `reusing` when that is a buffer of the frame's size nobody else holds.
  static func copy(_ frame: VideoFrame, reusing: PixelBuffer? = nil) -> PixelBuffer {
    let geometry = frame.geometry
    var copy = reusing.flatMap { $0.geometry == geometry ? $0 : nil }
      ?? PixelBuffer(width: geometry.width, height: geometry.height)
    copy.presentationTime = frame.presentationTime
    switch frame {
    case .bgra(let buffer):
      buffer.withUnsafeBytes { source in
        copy.withUnsafeMutableBytes { destination in
          for row in 0..<buffer.height {
            (destination + row * copy.bytesPerRow).copyMemory(
              from: source + row * buffer.bytesPerRow, byteCount: buffer.width * 4)
          }
        }
      }
    case .yuv420(let picture):
      PixelConverter.convertI420(picture.picture, to: copy)
    }
    return copy
  }
}
