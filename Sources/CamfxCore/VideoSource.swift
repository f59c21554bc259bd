/// Where frames come from: the test pattern, a PNG, a movie file or a camera.
///
/// Each source owns the pool its frames come from and stamps them with its own clock.
/// Live sources (cameras, a real-time test pattern) never wait for the pipeline: when
/// no buffer is free they drop the frame and count it. File sources apply back-pressure.
public protocol VideoSource: AnyObject {
  /// The size of every frame this source delivers.
  var geometry: FrameGeometry { get }
  /// The nominal frame duration (1/fps), if the source has one.
  var frameDuration: MediaTime? { get }
  /// True for a camera or a real-time generator: frames arrive on their own clock.
  var isLive: Bool { get }
  /// The pixel format the source's pictures come in, by FFmpeg's name (`yuyv422`,
  /// `nv12`, `yuv420p`, `mjpeg`, ...; `bgra` for sources that make BGRA themselves),
  /// for the description of the path a recording takes.
  var pixelFormatName: String { get }

  /// The next frame, or `nil` at the end of input.
  /// - Throws: an I/O error that ends the stream (camera unplugged, corrupt file).
  func nextFrame() throws -> PixelBuffer?
}

extension VideoSource {
  public var pixelFormatName: String { "bgra" }
}
