import CamfxCore
import CamfxFrames
import CamfxMedia
import CamfxPNG

/// A PNG image as a video source (`--source photo.png`): the same picture every
/// frame, timestamps advancing by 1/`frameRate`. The image is read once; each frame
/// is a copy in a pool buffer, since filters work in place.
///
///     camfx snapshot --source photo.png --filter grayscale -o gray.png
public final class PNGImageSource: MediaSource {
  public let path: String
  public let geometry: FrameGeometry
  public let frameRate: Int
  public let isLive: Bool
  public var frameDuration: MediaTime? { MediaTime(value: 1, timescale: Int32(frameRate)) }
  /// The decoded image (straight-alpha BGRA).
  public let image: PixelBuffer
  public let pool: PixelBufferPool
  /// Frames a live source skipped because the caller asked for them too late.
  public var framesSkippedLate: Int { frames.skippedLate }
  /// Frames a live source dropped because every pool buffer was still in use.
  public var framesDroppedOutOfBuffers: Int { frames.droppedOutOfBuffers }

  private var frames: GeneratedFrames

  /// Reads the image.
  /// - Parameters:
  ///   - frameCount: frames before `nextFrame()` returns `nil`; `nil` for endless.
  /// - Throws: `PNGError` when the file cannot be read.
  public init(path: String, frameRate: Int = 30, live: Bool = false, frameCount: Int64? = nil, poolCapacity: Int = 8) throws {
    precondition(frameRate > 0 && frameRate <= Int(Int32.max), "frame rate must be positive")
    self.path = path
    self.image = try PNGFile.read(path: path)
    self.geometry = image.geometry
    self.frameRate = frameRate
    self.isLive = live
    self.pool = PixelBufferPool(geometry: image.geometry, capacity: poolCapacity)
    self.frames = GeneratedFrames(count: frameCount, frameRate: frameRate, live: live)
  }

  /// As a `MediaSource`: the next BGRA frame (no sound).
  public func nextSample() throws -> MediaSample<PCMBuffer>? {
    try nextFrame().map { .video(.bgra($0)) }
  }

  public func nextFrame() throws -> PixelBuffer? {
    guard let (_, buffer) = frames.next(from: pool) else { return nil }
    buffer.copyPixels(from: image)
    return buffer
  }
}
