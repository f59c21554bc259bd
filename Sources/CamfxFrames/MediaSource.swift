import CamfxCore

/// One thing a source yields, in its own order.
public enum MediaSample<Audio: Sendable>: Sendable {
  /// A video frame from the source's own pool, stamped on its clock: BGRA, or yuv420p
  /// once the source was asked for it (`deliverYUV420Frames()`).
  case video(VideoFrame)
  /// A block of the source's own sound (a movie's sound track).
  case audio(Audio)
}

/// Where a recording's frames (and a movie's sound) come from: a camera, the test
/// pattern, a PNG, a movie file, a composition, or a source of a program's own — and
/// every wrapper around one (timelapse, pacing, reconnecting). One protocol for all of
/// them: a source describes itself once, and what it cannot do has a default here, so a
/// source of one's own implements only `geometry`, `frameDuration`, `isLive` and
/// `nextSample()`; a wrapper (`MediaSourceWrapper`) passes on everything it does not
/// change.
///
/// Each source owns the pool its frames come from and stamps them with its own clock.
/// A *live* source (a camera, a real-time test pattern) never waits for the pipeline:
/// when no buffer is free it drops the frame and counts it, and the session drops the
/// frames it cannot take in time. A file source is read as fast as the pipeline takes
/// it, and nothing is dropped.
public protocol MediaSource<Audio>: AnyObject {
  associatedtype Audio: Sendable = PCMBuffer
  /// The size of every video frame.
  var geometry: FrameGeometry { get }
  /// The nominal frame duration (1/fps), if the source has one.
  var frameDuration: MediaTime? { get }
  /// True for a camera or a real-time generator: frames arrive on their own clock.
  var isLive: Bool { get }
  /// True when `nextSample()` may return `.audio` (a movie with a sound track).
  /// Default: false.
  var hasAudio: Bool { get }
  /// The pixel format the source's pictures come in, by FFmpeg's name (`yuyv422`,
  /// `nv12`, `yuv420p`, `mjpeg`, ...; `bgra` for sources that make BGRA themselves),
  /// for the description of the path a recording takes. Default: `bgra`.
  var pixelFormatName: String { get }
  /// True when the source can hand its pictures on as yuv420p (a camera's YUYV or
  /// NV12 converted straight to it, a movie's decoded pictures as they are); every
  /// source delivers BGRA until asked. Default: false.
  var canDeliverYUV420Frames: Bool { get }
  /// From now on, deliver yuv420p frames where the picture allows it. Called once,
  /// before the first sample, and only when `canDeliverYUV420Frames`.
  func deliverYUV420Frames() throws
  /// Row-local filters that run in place on bands of yuv420p pictures
  /// (`FilterChain.runsOnYUV420Bands`), the first ones of the recording's chain: a
  /// source that converts its pictures itself (a camera's YUYV or NV12) may run them on
  /// each band of rows as soon as it has converted it, while the band is still in the
  /// core's cache, and mark those frames `filteredWhileConverting`; the pipeline runs
  /// them on every other frame. Called once, after `deliverYUV420Frames()` and before
  /// the first sample. Default: ignored (the pipeline runs them).
  func filterWhileConverting(_ chain: FilterChain)
  /// The next frame or block of sound, or `nil` at the end. Called on one thread.
  /// - Throws: an I/O error that ends the recording (what was recorded is kept).
  func nextSample() throws -> MediaSample<Audio>?
  /// Ends a `nextSample()` that may wait for a long time (a camera that went away):
  /// called from another thread when the recording is asked to stop. Default: nothing
  /// (a source whose every call returns soon).
  func interrupt()
  /// The times the camera was gone and came back, for `--stats-json`, from a source
  /// that knows them (a reconnecting camera). Default: nil, and the recording finds a
  /// live source's gaps in its timestamps itself (`GapDetector`).
  var cameraGaps: [CameraGap]? { get }
  /// Frames a live source skipped because they were taken too late (the consumer fell
  /// behind, a camera's driver dropped them), so far. Default: 0.
  var framesSkippedLate: Int { get }
  /// Frames a live source dropped because every buffer of its pool was in use.
  /// Default: 0.
  var framesDroppedOutOfBuffers: Int { get }
  /// Frames dropped because they were damaged (a camera's MJPEG or H.264). Default: 0.
  var framesCorrupt: Int { get }
}

extension MediaSource {
  public var hasAudio: Bool { false }
  public var pixelFormatName: String { "bgra" }
  public var canDeliverYUV420Frames: Bool { false }
  public func deliverYUV420Frames() throws {
    preconditionFailure("\(Self.self) cannot deliver yuv420p frames")
  }
  public func filterWhileConverting(_ chain: FilterChain) {}
  public func interrupt() {}
  public var cameraGaps: [CameraGap]? { nil }
  public var framesSkippedLate: Int { 0 }
  public var framesDroppedOutOfBuffers: Int { 0 }
  public var framesCorrupt: Int { 0 }

}

/// A source made of another (`inner`) that changes some of what it says or does —
/// which frames it hands on, when, with what timestamps — and passes everything else on
/// as it is: its defaults forward every requirement to `inner`, so a wrapper cannot
/// forget one (an interrupt, the yuv420p ability, the camera's gaps, the drops).
public protocol MediaSourceWrapper: MediaSource {
  var inner: any MediaSource<Audio> { get }
}

extension MediaSourceWrapper {
  public var geometry: FrameGeometry { inner.geometry }
  public var frameDuration: MediaTime? { inner.frameDuration }
  public var isLive: Bool { inner.isLive }
  public var hasAudio: Bool { inner.hasAudio }
  public var pixelFormatName: String { inner.pixelFormatName }
  public var canDeliverYUV420Frames: Bool { inner.canDeliverYUV420Frames }
  public func deliverYUV420Frames() throws { try inner.deliverYUV420Frames() }
  public func filterWhileConverting(_ chain: FilterChain) { inner.filterWhileConverting(chain) }
  public func nextSample() throws -> MediaSample<Audio>? { try inner.nextSample() }
  public func interrupt() { inner.interrupt() }
  public var cameraGaps: [CameraGap]? { inner.cameraGaps }
  public var framesSkippedLate: Int { inner.framesSkippedLate }
  public var framesDroppedOutOfBuffers: Int { inner.framesDroppedOutOfBuffers }
  public var framesCorrupt: Int { inner.framesCorrupt }
}
