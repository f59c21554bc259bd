import CamfxCore
import CamfxMedia

/// One thing the source stage takes from its input.
public enum RecordingSample<Audio: Sendable>: Sendable {
  /// A video frame from the input's own pool: BGRA, or yuv420p from an input that was
  /// asked for them (`YUV420RecordingInput`), for the filter stage's `YUV420FramePass`.
  case video(VideoFrame)
  /// A block of audio from the same file or device (a movie's sound track).
  case audio(Audio)
  /// A live input could not deliver a frame (no free buffer); the stage counts it.
  case dropped(DropReason)
}

/// What the source stage of a `RecordingSession` reads: a video source, and for a movie
/// file its sound track too, demultiplexed on the same thread. One protocol for every
/// input and every wrapper around one (timelapse, pacing, reconnecting): what an input
/// cannot do has a default here, and a wrapper (`RecordingInputWrapper`) passes on
/// everything it does not change.
///
/// Like `VideoSource`, a *live* input (camera, real-time test pattern) never waits for
/// the pipeline: the session drops its frames when the next stage is full. A file input
/// is read as fast as the pipeline takes it and nothing is dropped.
public protocol RecordingInput<Audio>: AnyObject {
  associatedtype Audio: Sendable
  /// The size of every video frame.
  var geometry: FrameGeometry { get }
  /// The nominal frame duration (1/fps), if the input has one.
  var frameDuration: MediaTime? { get }
  /// True for a camera or real-time generator.
  var isLive: Bool { get }
  /// True when `nextSample()` may return `.audio` (a movie file with a sound track).
  var hasAudio: Bool { get }
  /// The pixel format of the input's pictures, by FFmpeg's name (see `VideoSource`).
  /// Default: `bgra`.
  var pixelFormatName: String { get }
  /// True when the input can hand its pictures on as yuv420p frames (a movie's decoded
  /// ones unconverted, a camera's YUYV or NV12 converted straight to them), for a
  /// session whose filter stage takes them. Default: false.
  var canDeliverYUV420Frames: Bool { get }
  /// From now on, deliver `.video(.yuv420)` samples where the picture allows it.
  /// Called once, before the first sample, and only when `canDeliverYUV420Frames`.
  func deliverYUV420Frames() throws
  /// The next sample, or `nil` at the end of input. Called on the source stage's thread.
  /// - Throws: an I/O error that ends the recording (the file is still finished).
  func nextSample() throws -> RecordingSample<Audio>?
  /// Ends a `nextSample()` that may wait for a long time (a camera that went away):
  /// called from another thread when the session is asked to stop. Default: nothing
  /// (an input whose every call returns soon).
  func interrupt()
  /// The times the camera was gone and came back, for `--stats-json`; nil for inputs
  /// that are not a reconnecting camera. Default: nil.
  var cameraGaps: [CameraGap]? { get }
}

extension RecordingInput {
  public var pixelFormatName: String { "bgra" }
  public var canDeliverYUV420Frames: Bool { false }
  public func deliverYUV420Frames() throws {
    preconditionFailure("\(Self.self) cannot deliver yuv420p frames")
  }
  public func interrupt() {}
  public var cameraGaps: [CameraGap]? { nil }
}

/// An input made of another (`inner`) that changes some of what it says or does —
/// which frames it hands on, when, with what timestamps — and passes everything else on
/// as it is: its defaults forward every requirement to `inner`, so a wrapper cannot
/// forget one (an interrupt, the yuv420p ability, the camera's gaps).
public protocol RecordingInputWrapper: RecordingInput {
  var inner: any RecordingInput<Audio> { get }
}

extension RecordingInputWrapper {
  public var geometry: FrameGeometry { inner.geometry }
  public var frameDuration: MediaTime? { inner.frameDuration }
  public var isLive: Bool { inner.isLive }
  public var hasAudio: Bool { inner.hasAudio }
  public var pixelFormatName: String { inner.pixelFormatName }
  public var canDeliverYUV420Frames: Bool { inner.canDeliverYUV420Frames }
  public func deliverYUV420Frames() throws { try inner.deliverYUV420Frames() }
  public func nextSample() throws -> RecordingSample<Audio>? { try inner.nextSample() }
  public func interrupt() { inner.interrupt() }
  public var cameraGaps: [CameraGap]? { inner.cameraGaps }
}

/// A `VideoSource` (no sound of its own) as a recording input. The drops the source
/// counts itself are reported to the session as `.dropped`.
public final class VideoSourceInput<Audio: Sendable>: RecordingInput {
  public let source: any VideoSource
  private var reportedLate = 0
  private var reportedOutOfBuffers = 0
  private var reportedCorrupt = 0
  /// The frame taken from the source while drops it counted were still to be reported
  /// (`.some(nil)` at the end).
  private var pending: VideoFrame??

  public init(_ source: any VideoSource, audio: Audio.Type = Audio.self) {
    self.source = source
  }

  public var geometry: FrameGeometry { source.geometry }
  public var frameDuration: MediaTime? { source.frameDuration }
  public var isLive: Bool { source.isLive }
  public var hasAudio: Bool { false }
  public var pixelFormatName: String { source.pixelFormatName }
  public var canDeliverYUV420Frames: Bool { source.canDeliverYUV420Frames }
  public func deliverYUV420Frames() throws { try source.deliverYUV420Frames() }

  public func nextSample() throws -> RecordingSample<Audio>? {
    if pending == nil { pending = .some(try source.nextVideoFrame()) }
    // Drops the source counted while producing the pending frame come first.
    if source.framesSkippedLate > reportedLate {
      reportedLate += 1
      return .dropped(.late)
    }
    if source.framesDroppedOutOfBuffers > reportedOutOfBuffers {
      reportedOutOfBuffers += 1
      return .dropped(.outOfBuffers)
    }
    if source.framesCorrupt > reportedCorrupt {
      reportedCorrupt += 1
      return .dropped(.corrupt)
    }
    let frame = pending!
    pending = nil
    guard let frame else { return nil }
    return .video(frame)
  }
}
