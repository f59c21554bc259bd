import CamfxCore

/// When a recording stops by itself. The first limit reached wins; with none, it runs
/// to the end of input or until SIGINT/SIGTERM.
public struct RecordingLimits: Sendable, Equatable {
  /// Stop before the first frame whose timestamp is this far after the first frame's
  /// (`--duration 10s`: 300 frames at 30 fps).
  public var duration: MediaTime?
  /// Stop after this many frames were accepted into the pipeline (`--frames N`).
  public var frames: Int?
  /// Stop once the output has reached this many bytes (`--max-size 50M`). The frames
  /// already in the pipeline are still written, so the file ends slightly larger.
  public var bytes: Int64?
  /// True when `frames` stands for the duration (a timelapse keeps one frame per
  /// interval of it), so that reaching it is reported as the duration.
  var framesAreTheDuration = false

  public init(duration: MediaTime? = nil, frames: Int? = nil, bytes: Int64? = nil) {
    self.duration = duration
    self.frames = frames
    self.bytes = bytes
  }
}

/// Why a recording ended.
public enum StopReason: String, Sendable, Codable {
  case duration
  case frames
  case maxSize = "max-size"
  /// The free space on the output's disk reached `--min-free` with nothing left to delete.
  case minFree = "min-free"
  case endOfInput = "end-of-input"
  /// Every output ended on its own (a pipe whose reader left, an output that failed).
  case outputsEnded = "outputs-ended"
  /// SIGINT or SIGTERM, or `RecordingSession.stop()`.
  case interrupted
  /// A stage failed; see `RecordingSummary.error`.
  case failed
}
