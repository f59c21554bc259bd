import CamfxCore
import CamfxFrames
import CamfxMedia
import CamfxPNG
import CamfxPixelFormats

/// The pictures of one composition item at the render size: a movie's frames (turned
/// upright, scaled to fit, centred on the background) chosen by timestamp, or a still
/// fitted once.
final class ItemPictures {
  private let renderSize: FrameGeometry
  private var fit: Fit
  private let movie: MovieFrames?
  private let yuv420: Bool
  /// The fitted picture (a still's, or the last movie frame's), in the render format.
  private let fittedBGRA: PixelBuffer?
  private let fittedYUV: YUV420Frame?

  /// - Parameter poolCapacity: decoded frames that may be in flight downstream.
  init(_ placement: CompositionTimeline.Placement, video: VideoComposition, yuv420: Bool, poolCapacity: Int) throws {
    let size = video.renderSize
    renderSize = size
    self.yuv420 = yuv420
    fit = Fit(width: size.width, height: size.height, method: video.scaleMethod, color: video.background)
    switch placement.item.asset {
    case .still(let path):
      movie = nil
      let image = try PNGFile.read(path: path)
      _ = try fit.configure(input: image.geometry)
      var fitted = PixelBuffer(width: size.width, height: size.height)
      fit.process(image, into: &fitted)
      Self.flatten(fitted, on: video.background)
      if yuv420 {
        let picture = try YUV420Frame(geometry: size)
        BGRAToYUV420.convert(fitted, into: picture.picture)
        fittedYUV = picture
        fittedBGRA = nil
      } else {
        fittedBGRA = fitted
        fittedYUV = nil
      }
    case .movie(let path):
      let frames = try MovieFrames(path: path, start: placement.sourceStart, yuv420: yuv420, poolCapacity: poolCapacity)
      _ = try fit.configure(input: frames.uprightGeometry)
      movie = frames
      let sameSize = frames.uprightGeometry == size
      fittedBGRA = yuv420 || sameSize ? nil : PixelBuffer(width: size.width, height: size.height)
      fittedYUV = yuv420 && !sameSize ? try YUV420Frame(geometry: size) : nil
    }
  }

  /// The picture `local` into the item (the first frame at or after the cut's start
  /// until a later one is due), in the render format; valid until the next call. A movie
  /// with no frame after the cut's start shows nothing (nil).
  func picture(at local: MediaTime) throws -> VideoFrame? {
    guard let movie else {
      if let fittedYUV { return .yuv420(fittedYUV) }
      return fittedBGRA.map { .bgra($0) }
    }
    guard let frame = try movie.frame(at: local) else { return nil }
    let changed = movie.takeChanged()
    // A movie of the render size needs no fitting: its own frame is the picture.
    switch frame {
    case .bgra(let buffer):
      guard var fitted = fittedBGRA else { return frame }
      if changed { fit.process(buffer, into: &fitted) }
      return .bgra(fitted)
    case .yuv420(let upright):
      guard let fitted = fittedYUV else { return frame }
      if changed { fit.process(yuv420: upright.picture, into: fitted.picture) }
      return .yuv420(fitted)
    }
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

/// A movie's frames from a cut's start on, turned upright: the one showing at a time,
/// as BGRA or as yuv420p (the reader's own frame when it needs no turn).
final class MovieFrames {
  private let reader: MovieReader
  private let origin: MediaTime
  private let start: MediaTime
  private let yuv420: Bool
  private var rotate: Rotate?
  private var uprightBGRA: PixelBuffer?
  private var uprightYUV: YUV420Frame?
  /// A BGRA frame (a format the reader does not hand on as yuv420p) in yuv420p.
  private var convertedYUV: YUV420Frame?
  /// The frame showing now, and the next one decoded (`nil` at the end).
  private var current: VideoFrame?
  private var next: VideoFrame?
  private var ended = false
  private var changed = false

  /// The size of the frames after the display matrix's turn.
  let uprightGeometry: FrameGeometry

  init(path: String, start: MediaTime, yuv420: Bool, poolCapacity: Int) throws {
    reader = try MovieReader(path: path, audio: nil, poolCapacity: poolCapacity)
    reader.deliversYUV420Frames = yuv420
    self.yuv420 = yuv420
    origin = reader.videoStartTime ?? .zero
    self.start = start
    if start > .zero { try reader.seek(to: start) }
    if let angle = Rotate.Angle(rawValue: reader.displayRotation), angle.rawValue != 0 {
      var r = Rotate(angle: angle)
      uprightGeometry = try r.configure(input: reader.geometry)
      rotate = r
    } else {
      uprightGeometry = reader.geometry
    }
  }

  /// The frame showing `local` after the cut's start: the latest with a timestamp at or
  /// before it, never one from before the start (the first one at or after it stands in
  /// until then); `nil` for a movie with no frame after the start.
  func frame(at local: MediaTime) throws -> VideoFrame? {
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
    return try upright(current)
  }

  /// True once after the frame `frame(at:)` returns has changed.
  func takeChanged() -> Bool {
    defer { changed = false }
    return changed
  }

  /// `frame` in the render format, turned upright (converted and turned only when it changed).
  private func upright(_ frame: VideoFrame) throws -> VideoFrame {
    switch (frame, yuv420) {
    case (.bgra(let buffer), false):
      guard let rotate else { return frame }
      let g = uprightGeometry
      var turned = uprightBGRA ?? PixelBuffer(width: g.width, height: g.height)
      uprightBGRA = turned
      if changed { rotate.process(buffer, into: &turned) }
      return .bgra(turned)
    case (.yuv420(let decoded), true):
      return rotate == nil ? frame : .yuv420(try turn(decoded))
    case (.bgra(let buffer), true):
      let converted = try convertedYUV ?? YUV420Frame(geometry: buffer.geometry)
      convertedYUV = converted
      if changed { BGRAToYUV420.convert(buffer, into: converted.picture) }
      return .yuv420(try turn(converted))
    case (.yuv420, false):
      preconditionFailure("the reader hands on yuv420p frames only when asked to")
    }
  }

  private func turn(_ frame: YUV420Frame) throws -> YUV420Frame {
    guard let rotate else { return frame }
    let turned = try uprightYUV ?? YUV420Frame(geometry: uprightGeometry)
    uprightYUV = turned
    if changed { rotate.process(yuv420: frame.picture, into: turned.picture) }
    return turned
  }

  private func nextKeptFrame() throws -> VideoFrame? {
    while let sample = try reader.nextSample() {
      guard case .video(let frame) = sample else { continue }
      if frame.presentationTime - origin >= start { return frame }
    }
    return nil
  }
}
