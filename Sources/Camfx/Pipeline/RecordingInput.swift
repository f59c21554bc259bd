import CamfxCore
import CamfxMedia

/// One thing the source stage takes from its input.
public enum RecordingSample<Audio: Sendable>: Sendable {
  /// A video frame, in a buffer from the input's own pool.
  case video(PixelBuffer)
  /// A decoded yuv420p picture, unconverted: only from an input that was asked for
  /// them (`YUV420RecordingInput`), for the filter stage's `YUV420FramePass`.
  case yuv420Video(YUV420Frame)
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
  /// The next sample, or `nil` at the end of input. Called on the source stage's thread.
  /// - Throws: an I/O error that ends the recording (the file is still finished).
  func nextSample() throws -> RecordingSample<Audio>?
}

/// An input that can hand its decoded pictures on as yuv420p frames, unconverted, for
/// a session whose filter stage has a `YUV420FramePass`.
public protocol YUV420RecordingInput: AnyObject {
  /// From now on, deliver `.yuv420Video` samples where the picture allows it.
  func deliverYUV420Frames()
}

/// A `VideoSource` (no sound of its own) as a recording input. When the source counts
/// its own drops (`LiveDropCounting`), they are reported to the session as `.dropped`.
public final class VideoSourceInput<Audio: Sendable>: RecordingInput {
  public let source: any VideoSource
  private let dropCounting: (any LiveDropCounting)?
  private var reportedLate = 0
  private var reportedOutOfBuffers = 0
  private var pending: PixelBuffer??

  public init(_ source: any VideoSource, audio: Audio.Type = Audio.self) {
    self.source = source
    self.dropCounting = source as? any LiveDropCounting
  }

  public var geometry: FrameGeometry { source.geometry }
  public var frameDuration: MediaTime? { source.frameDuration }
  public var isLive: Bool { source.isLive }
  public var hasAudio: Bool { false }

  public func nextSample() throws -> RecordingSample<Audio>? {
    if pending == nil { pending = .some(try source.nextFrame()) }
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
    }
    let frame = pending!
    pending = nil
    guard let frame else { return nil }
    return .video(frame)
  }
}
