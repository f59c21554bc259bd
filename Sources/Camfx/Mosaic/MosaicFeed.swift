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
  private let mosaic: Mosaic
  private let pool: YUV420FramePool
  private let skipped = Atomic<Int>(0)
  private let handedOver = Atomic<Int>(0)

  /// - Parameters:
  ///   - geometry: the camera's filtered frames' size (`RecordingPipeline.outputGeometry`).
  /// - Throws: `MosaicError` for a camera the mosaic does not have, `FFmpegError` when
  ///   the copies cannot be allocated.
  public init(camera: String, into mosaic: Mosaic, geometry: FrameGeometry) throws {
    guard mosaic.cameras.contains(camera) else {
      throw MosaicError(
        layout: mosaic.layout.text(cameras: mosaic.cameras), subject: "camera '\(camera)'",
        reason: "no such camera (cameras: \(mosaic.cameras.joined(separator: ", ")))")
    }
    self.camera = camera
    self.mosaic = mosaic
    pool = try YUV420FramePool(geometry: geometry, capacity: 3, kind: .owned)
  }

  public var wantsFrame: Bool { true }

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
    // The name was checked when the feed was made.
    try? mosaic.update(camera: camera, frame: copy)
    handedOver.add(1, ordering: .relaxed)
  }
}
