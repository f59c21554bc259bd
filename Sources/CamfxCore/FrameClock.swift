/// What a frame's timestamp means on the calendar, for filters that show the capture
/// time (`text`, `timestamp`): the local wall clock at a live source's first frame, a
/// movie's creation time, or nothing but the timestamp itself.
public enum FrameClock: Sendable, Equatable {
  /// The wall clock when the first frame is filtered, plus each frame's timestamp since
  /// (a camera, the test pattern).
  case wallClockAtFirstFrame
  /// A known moment (seconds since the Unix epoch) at timestamp `time`: a movie's
  /// creation time and its first frame's timestamp.
  case origin(epochSeconds: Double, at: MediaTime)
  /// No calendar time: the timestamp counts from 00:00:00 (shown in UTC).
  case timestampOnly
}

/// A filter that shows the capture time and so needs to know what timestamps mean.
public protocol ClockedVideoFilter: VideoFilter {
  /// Sets the clock, before the first frame (the default is `.wallClockAtFirstFrame`).
  mutating func setClock(_ clock: FrameClock)
}
