import CamfxFrames

/// A filtered frame on its way to the tap stage, with the taps that asked for it: each
/// tap's `wantsFrame` is asked once per frame, on the filter stage, and the tap stage
/// gives the frame to those that said yes (bit `i` of `taps`: `RecordingSession.taps[i]`).
struct TappedFrame: Sendable {
  let frame: YUV420Frame
  let taps: UInt64

  /// The most taps a session takes: one bit each.
  static let maximumTaps = 64
}
