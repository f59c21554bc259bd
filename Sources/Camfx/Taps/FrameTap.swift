import CamfxFrames
import CamfxMedia

/// Sees each filtered frame on its way to the encoder, on the writer stage's thread:
/// where a still (`StillCapture`) or a preview takes its picture while the recording
/// goes on, as `AVCapturePhotoOutput` does beside a movie output.
///
/// `wantsFrame` is asked for every frame, so it must be cheap (an atomic load);
/// `take` must copy what it keeps and return quickly: the frame goes on to the encoder
/// and back to its pool, and the writer stage waits while `take` runs.
public protocol FrameTap: AnyObject, Sendable {
  var wantsFrame: Bool { get }
  func take(_ frame: VideoFrame)
}
