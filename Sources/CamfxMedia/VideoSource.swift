import CamfxCore

/// Where frames come from: the test pattern, a PNG, a movie file or a camera. One
/// protocol for every source: what a source cannot do has a default here.
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
  /// for the description of the path a recording takes. Default: `bgra`.
  var pixelFormatName: String { get }

  /// The next frame as BGRA, or `nil` at the end of input.
  /// - Throws: an I/O error that ends the stream (camera unplugged, corrupt file).
  func nextFrame() throws -> PixelBuffer?

  /// True when the source's format has a direct conversion to yuv420p (a camera's YUYV
  /// or NV12, a movie's decoded pictures), for a pipeline whose filters and encoder
  /// all take yuv420p. Default: false.
  var canDeliverYUV420Frames: Bool { get }
  /// From now on, `nextVideoFrame()` gives yuv420p frames.
  /// - Precondition: `canDeliverYUV420Frames`.
  func deliverYUV420Frames() throws
  /// The next frame in the format asked for (BGRA until `deliverYUV420Frames()`).
  /// Default: `nextFrame()`'s.
  func nextVideoFrame() throws -> VideoFrame?

  /// Frames a live source skipped because they were taken too late (the consumer fell
  /// behind, a camera's driver dropped them). Default: 0.
  var framesSkippedLate: Int { get }
  /// Frames a live source dropped because every buffer of its pool was in use.
  /// Default: 0.
  var framesDroppedOutOfBuffers: Int { get }
  /// Frames dropped because they were damaged (a camera's MJPEG or H.264). Default: 0.
  var framesCorrupt: Int { get }
}

extension VideoSource {
  public var pixelFormatName: String { "bgra" }
  public var canDeliverYUV420Frames: Bool { false }
  public func deliverYUV420Frames() throws {
    preconditionFailure("\(Self.self) cannot deliver yuv420p frames")
  }
  public func nextVideoFrame() throws -> VideoFrame? { try nextFrame().map { .bgra($0) } }
  public var framesSkippedLate: Int { 0 }
  public var framesDroppedOutOfBuffers: Int { 0 }
  public var framesCorrupt: Int { 0 }
}
