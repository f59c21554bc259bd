import Camfx
import Foundation
import CamfxCore
import CamfxMedia
import CamfxPNG
import CamfxPixelFormats
import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The preview's view of the pipeline: a `FrameTap` that takes a filtered frame only
/// when someone wants one (an MJPEG viewer, at most `framesPerSecond`; a snapshot), and
/// turns it into JPEG or PNG on the recording's tap stage, which is already off the
/// encoder's path: a preview costs no thread of its own. A preview nobody watches costs
/// an atomic load per frame.
///
///     tap stage ──take()──▶ copy (for the boxes) ──▶ JPEG ──▶ viewers
///                                              └──▶ JPEG/PNG snapshot
public final class PreviewTap: FrameTap, @unchecked Sendable {
  // @unchecked Sendable: the encoder and the working copy are used by `take` only, on
  // the tap stage; the rest is atomics and Mutexes.

  public enum SnapshotFormat: Sendable { case jpeg, png }
  public typealias SnapshotCompletion = @Sendable (Result<[UInt8], PreviewError>) -> Void

  public let geometry: FrameGeometry
  public let framesPerSecond: Double
  /// How long a snapshot waits for a frame before it fails.
  public let snapshotTimeout: Double
  /// Called on the tap stage with every JPEG made for the viewers; it must not block.
  public var onJPEG: (@Sendable ([UInt8]) -> Void)?
  /// Boxes to outline on the viewers' pictures (the motion detector's), after the
  /// snapshots were answered: snapshots stay the recorded frames.
  public var boxes: (@Sendable () -> [PixelRectangle])?

  private let viewerCount = Atomic<Int>(0)
  private let snapshotsWanted = Atomic<Int>(0)
  private let lastTaken = Atomic<Int64>(0)
  private let intervalNanoseconds: Int64
  private let snapshots = Mutex<SnapshotRequests>(SnapshotRequests())
  private let stopped = Atomic<Bool>(false)
  private let jpegFrames = Atomic<Int>(0)
  private var encoder: JPEGEncoder?
  private var working = CopiedFrame()

  /// - Parameters:
  ///   - geometry: the size of the filtered frames.
  ///   - framesPerSecond: at most this many JPEGs a second for the viewers.
  ///   - snapshotTimeout: seconds a snapshot waits for a frame before it fails.
  public init(geometry: FrameGeometry, framesPerSecond: Double, snapshotTimeout: Double = 3) {
    self.geometry = geometry
    self.framesPerSecond = framesPerSecond
    self.snapshotTimeout = snapshotTimeout
    intervalNanoseconds = Int64(1e9 / max(framesPerSecond, 0.1))
  }

  /// Makes the JPEG encoder; call before the first frame.
  public func start() throws(PreviewError) {
    encoder = try JPEGEncoder(width: geometry.width, height: geometry.height)
  }

  /// Ends the preview: pending snapshots fail, and frames are no longer taken.
  public func stop() {
    stopped.store(true, ordering: .releasing)
    for request in snapshots.withLock({ $0.removeAll() }) {
      request.completion(.failure(PreviewError("the preview has stopped")))
    }
  }

  /// JPEGs made for viewers so far.
  public var viewerFrames: Int { jpegFrames.load(ordering: .relaxed) }

  /// Viewers of the MJPEG stream come and go.
  public func viewerJoined() { viewerCount.add(1, ordering: .relaxed) }
  public func viewerLeft() { viewerCount.subtract(1, ordering: .relaxed) }
  public var viewers: Int { viewerCount.load(ordering: .relaxed) }

  /// Asks for a still of the next filtered frame, at full size; `completion` runs on
  /// the tap stage, or with an error if no frame comes within `snapshotTimeout`.
  public func snapshot(_ format: SnapshotFormat, completion: @escaping SnapshotCompletion) {
    guard !stopped.load(ordering: .acquiring) else {
      completion(.failure(PreviewError("the preview has stopped")))
      return
    }
    // The flag changes under the lock that holds the requests, so a timeout that empties
    // the list cannot clear the flag of a request added meanwhile.
    let id = snapshots.withLock { requests in
      snapshotsWanted.add(1, ordering: .releasing)
      return requests.add(format, completion)
    }
    DispatchQueue.global().asyncAfter(deadline: .now() + snapshotTimeout) { [self] in
      // Only this request's own time is up: another asked later still has its own.
      let expired = snapshots.withLock { requests in
        let expired = requests.remove(id)
        if expired != nil && requests.waiting.isEmpty { snapshotsWanted.store(0, ordering: .releasing) }
        return expired
      }
      guard let expired else { return }
      expired.completion(.failure(PreviewError("no frame came within \(String(format: "%g", snapshotTimeout)) s")))
    }
  }

  // MARK: FrameTap (tap stage)

  public var wantsFrame: Bool {
    if stopped.load(ordering: .acquiring) { return false }
    if snapshotsWanted.load(ordering: .acquiring) > 0 { return true }
    guard viewerCount.load(ordering: .relaxed) > 0 else { return false }
    return MonotonicClock.nanoseconds() - lastTaken.load(ordering: .relaxed) >= intervalNanoseconds
  }

  public func take(_ frame: VideoFrame) {
    guard !stopped.load(ordering: .acquiring), let encoder else { return }
    lastTaken.store(MonotonicClock.nanoseconds(), ordering: .relaxed)
    let forSnapshot = snapshotsWanted.exchange(0, ordering: .acquiringAndReleasing) > 0
    // A copy: the frame is the encoder's, and the viewers' boxes are drawn on the copy.
    working.copy(frame)
    if forSnapshot { answerSnapshots(encoder) }
    if let boxes { working.outline(boxes()) }
    if viewerCount.load(ordering: .relaxed) > 0, let onJPEG, let jpeg = try? working.jpeg(encoder) {
      jpegFrames.add(1, ordering: .relaxed)
      onJPEG(jpeg)
    }
  }

  private func answerSnapshots(_ encoder: JPEGEncoder) {
    var jpeg: Result<[UInt8], PreviewError>?
    var png: Result<[UInt8], PreviewError>?
    for request in snapshots.withLock({ $0.removeAll() }) {
      switch request.format {
      case .jpeg:
        if jpeg == nil { jpeg = Result { () throws(PreviewError) in try working.jpeg(encoder) } }
        request.completion(jpeg!)
      case .png:
        if png == nil { png = working.png() }
        request.completion(png!)
      }
    }
  }
}

/// The snapshots waiting for a frame, each with a number its timeout finds it by.
struct SnapshotRequests {
  struct Request {
    let id: UInt64
    let format: PreviewTap.SnapshotFormat
    let completion: PreviewTap.SnapshotCompletion
  }
  private(set) var waiting: [Request] = []
  private var nextID: UInt64 = 0

  mutating func add(_ format: PreviewTap.SnapshotFormat, _ completion: @escaping PreviewTap.SnapshotCompletion) -> UInt64 {
    nextID += 1
    waiting.append(Request(id: nextID, format: format, completion: completion))
    return nextID
  }

  /// The request numbered `id` if it is still waiting.
  mutating func remove(_ id: UInt64) -> Request? {
    guard let index = waiting.firstIndex(where: { $0.id == id }) else { return nil }
    return waiting.remove(at: index)
  }

  mutating func removeAll() -> [Request] {
    defer { waiting.removeAll() }
    return waiting
  }
}

/// A filtered frame copied out of its pool: yuv420p planes or BGRA, with storage kept
/// from one copy to the next (no allocation once the first frame was copied).
struct CopiedFrame {
  private var planes: [[UInt8]] = []
  private var width = 0
  private var height = 0
  private var bgra: PixelBuffer?
  private var isYUV = false

  mutating func copy(_ frame: VideoFrame) {
    switch frame {
    case .yuv420(let source):
      isYUV = true
      let w = source.width, h = source.height
      let cw = (w + 1) / 2, ch = (h + 1) / 2
      if width != w || height != h || planes.count != 3 {
        planes = [[UInt8](repeating: 0, count: w * h), [UInt8](repeating: 0, count: cw * ch), [UInt8](repeating: 0, count: cw * ch)]
      }
      width = w
      height = h
      Self.copyPlane(source.y, stride: source.yStride, width: w, height: h, into: &planes[0])
      Self.copyPlane(source.u, stride: source.uStride, width: cw, height: ch, into: &planes[1])
      Self.copyPlane(source.v, stride: source.vStride, width: cw, height: ch, into: &planes[2])
    case .bgra(let source):
      isYUV = false
      if bgra?.width != source.width || bgra?.height != source.height {
        bgra = PixelBuffer(width: source.width, height: source.height)
      }
      let copy = bgra!
      width = source.width
      height = source.height
      source.withUnsafeBytes { src in
        copy.withUnsafeMutableBytes { dst in
          for row in 0..<source.height {
            (dst + row * copy.bytesPerRow).copyMemory(from: src + row * source.bytesPerRow, byteCount: source.width * 4)
          }
        }
      }
    }
  }

  private static func copyPlane(
    _ source: UnsafeMutablePointer<UInt8>, stride: Int, width: Int, height: Int, into plane: inout [UInt8]
  ) {
    plane.withUnsafeMutableBufferPointer { out in
      for row in 0..<height {
        (out.baseAddress! + row * width).update(from: source + row * stride, count: width)
      }
    }
  }

  /// Draws each box's outline, 2 pixels wide, in red.
  mutating func outline(_ boxes: [PixelRectangle]) {
    for box in boxes where box.width > 0 && box.height > 0 {
      let x0 = max(0, min(width - 1, box.x)), y0 = max(0, min(height - 1, box.y))
      let x1 = max(0, min(width - 1, box.x + box.width - 1)), y1 = max(0, min(height - 1, box.y + box.height - 1))
      for y in y0...y1 {
        for x in x0...x1 where x - x0 < 2 || x1 - x < 2 || y - y0 < 2 || y1 - y < 2 { paintRed(x, y) }
      }
    }
  }

  /// One pixel red: BT.601 limited-range (81, 90, 240) on the planes, or BGRA red.
  private mutating func paintRed(_ x: Int, _ y: Int) {
    if !isYUV, let bgra {
      bgra.withUnsafeMutableBytes { base in
        let p = base.assumingMemoryBound(to: UInt8.self) + y * bgra.bytesPerRow + x * 4
        p[0] = 0
        p[1] = 0
        p[2] = 255
      }
      return
    }
    planes[0][y * width + x] = 81
    let cw = (width + 1) / 2
    planes[1][(y / 2) * cw + x / 2] = 90
    planes[2][(y / 2) * cw + x / 2] = 240
  }

  func jpeg(_ encoder: JPEGEncoder) throws(PreviewError) -> [UInt8] {
    if !isYUV, let bgra { return try encoder.encode(bgra) }
    return try planes[0].withUnsafeBufferPointer { (y) throws(PreviewError) in
      try planes[1].withUnsafeBufferPointer { (u) throws(PreviewError) in
        try planes[2].withUnsafeBufferPointer { (v) throws(PreviewError) in
          // The encoder only reads the planes.
          let cw = (width + 1) / 2
          let picture = YUV420Picture(
            width: width, height: height, y: UnsafeMutablePointer(mutating: y.baseAddress!), yStride: width,
            u: UnsafeMutablePointer(mutating: u.baseAddress!), uStride: cw,
            v: UnsafeMutablePointer(mutating: v.baseAddress!), vStride: cw, presentationTime: .zero)
          return try encoder.encode(picture)
        }
      }
    }
  }

  /// The frame as a PNG (RGB), converted from yuv420p exactly as a still is.
  func png() -> Result<[UInt8], PreviewError> {
    let frame: PixelBuffer
    if !isYUV, let bgra {
      frame = bgra
    } else {
      frame = PixelBuffer(width: width, height: height)
      planes[0].withUnsafeBytes { y in
        planes[1].withUnsafeBytes { u in
          planes[2].withUnsafeBytes { v in
            PixelConverter.convertI420(
              luma: y.baseAddress!, lumaBytesPerRow: width, cb: u.baseAddress!, cr: v.baseAddress!,
              chromaBytesPerRow: (width + 1) / 2, to: frame)
          }
        }
      }
    }
    do {
      return .success(try PNGFile.encode(frame))
    } catch {
      return .failure(PreviewError("PNG encoding failed: \(error)"))
    }
  }
}
