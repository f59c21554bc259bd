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
/// file its sound track too, demultiplexed on the same thread.
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
  var pixelFormatName: String { get }
  /// The next sample, or `nil` at the end of input. Called on the source stage's thread.
  /// - Throws: an I/O error that ends the recording (the file is still finished).
  func nextSample() throws -> RecordingSample<Audio>?
}

extension RecordingInput {
  public var pixelFormatName: String { "bgra" }
}

/// An input that can hand its pictures on as yuv420p frames (a movie's decoded ones
/// unconverted, a camera's YUYV or NV12 converted straight to them), for a session
/// whose filter stage has a `YUV420FramePass`.
public protocol YUV420RecordingInput: AnyObject {
  /// True when this input can deliver yuv420p frames.
  var canDeliverYUV420Frames: Bool { get }
  /// From now on, deliver `.video(.yuv420)` samples where the picture allows it.
  func deliverYUV420Frames() throws
}

/// A `VideoSource` (no sound of its own) as a recording input. When the source counts
/// its own drops (`LiveDropCounting`), they are reported to the session as `.dropped`.
public final class VideoSourceInput<Audio: Sendable>: RecordingInput, YUV420RecordingInput {
  public let source: any VideoSource
  private let dropCounting: (any LiveDropCounting)?
  private var reportedLate = 0
  private var reportedOutOfBuffers = 0
  private var reportedCorrupt = 0
  private var pending: VideoFrame??
  /// The source as one that delivers yuv420p, once asked to.
  private var yuv420Source: (any YUV420VideoSource)?

  public init(_ source: any VideoSource, audio: Audio.Type = Audio.self) {
    self.source = source
    self.dropCounting = source as? any LiveDropCounting
  }

  public var geometry: FrameGeometry { source.geometry }
  public var frameDuration: MediaTime? { source.frameDuration }
  public var isLive: Bool { source.isLive }
  public var hasAudio: Bool { false }
  public var pixelFormatName: String { source.pixelFormatName }

  public var canDeliverYUV420Frames: Bool { (source as? any YUV420VideoSource)?.canDeliverYUV420Frames ?? false }

  public func deliverYUV420Frames() throws {
    guard let capable = source as? any YUV420VideoSource, capable.canDeliverYUV420Frames else {
      preconditionFailure("the source cannot deliver yuv420p frames")
    }
    try capable.deliverYUV420Frames()
    yuv420Source = capable
  }

  public func nextSample() throws -> RecordingSample<Audio>? {
    if pending == nil { pending = .some(try yuv420Source?.nextVideoFrame() ?? source.nextFrame().map { .bgra($0) }) }
    // Drops the source counted while producing the pending frame come first.
    if let counter = dropCounting {
      if counter.framesSkippedLate > reportedLate {
        reportedLate += 1
        return .dropped(.late)
      }
      if counter.framesDroppedOutOfBuffers > reportedOutOfBuffers {
        reportedOutOfBuffers += 1
        return .dropped(.outOfBuffers)
      }
      if counter.framesCorrupt > reportedCorrupt {
        reportedCorrupt += 1
        return .dropped(.corrupt)
      }
    }
    let frame = pending!
    pending = nil
    guard let frame else { return nil }
    return .video(frame)
  }
}
