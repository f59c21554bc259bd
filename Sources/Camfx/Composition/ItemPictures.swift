import CamfxCore
import CamfxMedia
import CamfxPNG

/// The pictures of one composition item at the render size: a movie's frames (turned
/// upright, scaled to fit, centred on the background) chosen by timestamp, or a still
/// fitted once.
final class ItemPictures {
  private let fitted: PixelBuffer
  private let background: BGRA
  private var fit: Fit
  private let movie: MovieFrames?

  /// - Parameter start: where the cut starts in the movie (frames before it are skipped).
  init(_ placement: CompositionTimeline.Placement, video: VideoComposition) throws {
    let size = video.renderSize
    fitted = PixelBuffer(width: size.width, height: size.height)
    background = video.background
    fit = Fit(width: size.width, height: size.height, method: video.scaleMethod, color: video.background)
    switch placement.item.asset {
    case .still(let path):
      movie = nil
      let image = try PNGFile.read(path: path)
      _ = try fit.configure(input: image.geometry)
      var destination = fitted
      fit.process(image, into: &destination)
      Self.flatten(destination, on: video.background)
    case .movie(let path):
      let frames = try MovieFrames(path: path, start: placement.sourceStart)
      _ = try fit.configure(input: frames.uprightGeometry)
      movie = frames
      fitted.fill(video.background)
    }
  }

  /// The picture `local` into the item (its first frame at or after the cut's start
  /// until a later one is due): a buffer this object keeps, valid until the next call.
  func picture(at local: MediaTime) throws -> PixelBuffer {
    guard let movie else { return fitted }
    if let frame = try movie.frame(at: local), movie.takeChanged() {
      var destination = fitted
      fit.process(frame, into: &destination)
    }
    return fitted
  }

  /// Composites a still's transparent pixels over the background, once.
  private static func flatten(_ buffer: PixelBuffer, on color: BGRA) {
    buffer.withUnsafeMutableBytes { raw in
      for y in 0..<buffer.height {
        let row = (raw + buffer.offset + y * buffer.bytesPerRow).assumingMemoryBound(to: UInt8.self)
        for x in 0..<buffer.width {
          let p = row + 4 * x
          let a = Int(p[3])
          guard a < 255 else { continue }
          p[0] = UInt8((Int(p[0]) * a + Int(color.b) * (255 - a) + 127) / 255)
          p[1] = UInt8((Int(p[1]) * a + Int(color.g) * (255 - a) + 127) / 255)
          p[2] = UInt8((Int(p[2]) * a + Int(color.r) * (255 - a) + 127) / 255)
          p[3] = 255
        }
      }
    }
  }
}

/// A movie's frames from a cut's start on, turned upright: the one showing at a time.
final class MovieFrames {
  private let reader: MovieReader
  private let origin: MediaTime
  private let start: MediaTime
  private var rotate: Rotate?
  private var upright: PixelBuffer?
  /// The frame showing now, and the next one decoded (`nil` at the end).
  private var current: PixelBuffer?
  private var next: PixelBuffer?
  private var ended = false
  private var changed = false

  /// The size of the frames after the display matrix's turn.
  let uprightGeometry: FrameGeometry

  init(path: String, start: MediaTime) throws {
    reader = try MovieReader(path: path, audio: nil, poolCapacity: 4)
    origin = reader.videoStartTime ?? .zero
    self.start = start
    if start > .zero { try reader.seek(to: start) }
    if let angle = Rotate.Angle(rawValue: reader.displayRotation), angle.rawValue != 0 {
      var r = Rotate(angle: angle)
      let g = try r.configure(input: reader.geometry)
      rotate = r
      upright = PixelBuffer(width: g.width, height: g.height)
      uprightGeometry = g
    } else {
      uprightGeometry = reader.geometry
    }
  }

  /// The frame showing `local` after the cut's start: the latest with a timestamp at or
  /// before it, never one from before the start (the first one at or after it stands in
  /// until then); `nil` for a movie with no frame after the start.
  func frame(at local: MediaTime) throws -> PixelBuffer? {
    let target = start + local
    if current == nil {
      current = try nextKeptFrame()
      changed = true
    }
    while true {
      if next == nil && !ended {
        next = try nextKeptFrame()
        if next == nil { ended = true }
      }
      guard let n = next, n.presentationTime - origin <= target else { break }
      current = n
      next = nil
      changed = true
    }
    guard let current else { return nil }
    guard let rotate, var upright else { return current }
    if changed { rotate.process(current, into: &upright) }
    return upright
  }

  /// True once after the frame `frame(at:)` returns has changed.
  func takeChanged() -> Bool {
    defer { changed = false }
    return changed
  }

  private func nextKeptFrame() throws -> PixelBuffer? {
    while let frame = try reader.nextFrame() {
      if frame.presentationTime - origin >= start { return frame }
    }
    return nil
  }
}
