import CamfxCore

/// A sound made on the recording's own clock (`--audio sine=440`): the session's audio
/// stage asks it for blocks that end no later than the video recorded so far, so audio
/// and video start together and end together.
public protocol AudioGenerator<Audio>: AnyObject {
  associatedtype Audio: Sendable
  /// Called once, on the audio stage's thread, with the first video frame's timestamp:
  /// the first sample is stamped with it.
  func start(at time: MediaTime)
  /// The next block of samples, none of them at or after `end`; `nil` when the sound
  /// has reached `end` already.
  func nextChunk(until end: MediaTime) throws -> Audio?
}
