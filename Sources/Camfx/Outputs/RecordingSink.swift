import CamfxCore
import CamfxFrames
import CamfxMedia

/// Where the writer stage of a `RecordingSession` puts what it drains from the rings:
/// a movie writer (an `AVAssetWriter` with its pixel buffer adaptor), or a test sink.
///
/// All calls come from the writer stage's thread, in this order: any number of appends
/// (video in presentation order; audio in its own order), then `finish()` — or
/// `cancel()` after a failure.
public protocol RecordingSink<Audio>: AnyObject {
  associatedtype Audio: Sendable
  /// Encodes one filtered yuv420p picture. The sink may hand `frame` to an encoder by
  /// reference: its pool gives a picture still held fresh buffers before reusing it.
  func appendVideo(_ frame: YUV420Frame) throws
  /// Encodes one block of audio.
  func appendAudio(_ audio: Audio) throws
  /// Flushes the encoders and finishes the file so that it plays to the end.
  func finish() throws
  /// Stops at once after a failure or a second interrupt, keeping (and finishing, where
  /// it can) what was already written.
  func cancel()
  /// Bytes written to the outputs so far (for the status line).
  var bytesWritten: Int64 { get }
  /// Bytes of the largest output so far: `--max-size` holds each file to its limit,
  /// not the files together.
  var largestOutputBytes: Int64 { get }
  /// Set when the sink wants the recording to end cleanly: free space below
  /// `--min-free` (`.minFree`), or every output has ended (`.outputsEnded`).
  var stopRequest: StopReason? { get }
  /// The video the finished output holds (frames, seconds), when the sink knows it:
  /// fewer frames than were appended if it stopped muxing at `--max-size`.
  var videoKept: (frames: Int, seconds: Double)? { get }
}

extension RecordingSink {
  public var largestOutputBytes: Int64 { bytesWritten }
  public var stopRequest: StopReason? { nil }
  public var videoKept: (frames: Int, seconds: Double)? { nil }
}
