import CamfxCore
import CamfxFrames
import CamfxMosaic
import CamfxPixelFormats
import Synchronization

/// One camera's way into a `Mosaic`: a tap on that camera's recording that hands each
/// filtered frame over as the camera's newest picture.
///
/// It copies the picture into a small pool of its own rather than keep the camera's
/// frame: the camera's pool is sized for its own rings, and a frame the mosaic held on
/// to would be one fewer there (a live camera drops frames when its pool runs dry).
/// When all three copies are in use (the mosaic is composing from one, holds the
/// newest, and the next was being written), the frame is skipped and counted: the
/// camera never waits for the mosaic.
public final class MosaicFeed: FrameTap {
  public let camera: String
  private let board: MosaicBoard
  private let pool: YUV420FramePool
  private let skipped = Atomic<Int>(0)
  private let handedOver = Atomic<Int>(0)

  /// - Parameters:
  ///   - geometry: the camera's filtered frames' size (`RecordingPipeline.outputGeometry`).
  /// - Throws: `MosaicError` for a camera the mosaic does not have, `FFmpegError` when
  ///   the copies cannot be allocated.
  public convenience init(camera: String, into mosaic: Mosaic, geometry: FrameGeometry) throws {
    guard mosaic.cameras.contains(camera) else {
      throw MosaicError(
        layout: mosaic.layout.text(cameras: mosaic.cameras), subject: "camera '\(camera)'",
        reason: "no such camera (cameras: \(mosaic.cameras.joined(separator: ", ")))")
    }
    try self.init(camera: camera, board: MosaicBoard(mosaic), geometry: geometry)
  }

  /// A feed into whichever mosaic `board` shows (none, or one without this camera:
  /// the feed takes no frames).
  /// - Throws: `FFmpegError` when the copies cannot be allocated.
  public init(camera: String, board: MosaicBoard, geometry: FrameGeometry) throws {
    self.camera = camera
    self.board = board
    pool = try YUV420FramePool(geometry: geometry, capacity: 3, kind: .owned)
  }

  public var wantsFrame: Bool { board.shows(camera: camera) }

  /// Frames handed to the mosaic, and frames skipped because every copy was in use.
  public var figures: (handedOver: Int, skipped: Int) {
    (handedOver.load(ordering: .relaxed), skipped.load(ordering: .relaxed))
  }

  public func take(_ frame: VideoFrame) {
    guard frame.geometry == pool.geometry,
      let copy = try? pool.acquire(presentationTime: frame.presentationTime, shouldStop: { true })
    else {
      skipped.add(1, ordering: .relaxed)
      return
    }
    switch frame {
    case .yuv420(let picture): picture.picture.copyPixels(to: copy.picture)
    case .bgra(let buffer): BGRAToYUV420.convert(buffer, into: copy.picture)
    }
    if board.update(camera: camera, frame: copy) { handedOver.add(1, ordering: .relaxed) }
  }
}

/// The mosaic the cameras' feeds draw into, which may be replaced while they record (a
/// `camfx run` reload that changes the layout): a feed made once for a camera's
/// recording feeds whichever mosaic the board shows, and none while it shows none.
public final class MosaicBoard: Sendable {
  private let current: Mutex<Mosaic?>

  public init(_ mosaic: Mosaic? = nil) {
    current = Mutex(mosaic)
  }

  /// From now on the feeds draw into `mosaic` (nil: into none).
  public func show(_ mosaic: Mosaic?) { current.withLock { $0 = mosaic } }

  /// True when the mosaic shown has `camera`.
  public func shows(camera: String) -> Bool { current.withLock { $0?.cameras.contains(camera) ?? false } }

  /// Hands `frame` to the mosaic shown, if it has `camera`; true when it did.
  func update(camera: String, frame: YUV420Frame) -> Bool {
    guard let mosaic = current.withLock({ $0 }), mosaic.cameras.contains(camera) else { return false }
    do {
      try mosaic.update(camera: camera, frame: frame)
      return true
    } catch {
      return false
    }
  }
}
