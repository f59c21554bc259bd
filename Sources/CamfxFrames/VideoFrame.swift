import CamfxCore

/// One video frame in whichever format the pipeline negotiated for it: the sample type
/// sources, filter stages and sinks share.
///
/// - `bgra`: a `PixelBuffer` (8-bit B, G, R, A), what every filter can work on.
/// - `yuv420`: a yuv420p picture (BT.601 limited range) in an `AVFrame` an encoder
///   takes by reference: a decoded movie's picture as it is, a camera's YUYV or NV12
///   frame converted straight to it, or a filter stage's output for the encoder.
///
/// Both go back to their pools by themselves when the last reference goes away.
public enum VideoFrame: Sendable {
  case bgra(PixelBuffer)
  case yuv420(YUV420Frame)

  public var presentationTime: MediaTime {
    switch self {
    case .bgra(let buffer): return buffer.presentationTime
    case .yuv420(let frame): return frame.presentationTime
    }
  }

  public var geometry: FrameGeometry {
    switch self {
    case .bgra(let buffer): return buffer.geometry
    case .yuv420(let frame): return frame.geometry
    }
  }
}
