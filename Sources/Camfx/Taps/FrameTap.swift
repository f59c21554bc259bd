import CamfxFrames
import CamfxMedia

/// Sees the filtered frames beside the encoder, on the recording's tap stage (a thread
/// of its own, `RecordingSession`): where a still (`StillCapture`) or a preview takes
/// its picture and the motion detector looks while the recording goes on, as
/// `AVCapturePhotoOutput` does beside a movie output.
///
/// `wantsFrame` is asked once for every frame, on the filter stage, so it must be cheap
/// (an atomic load); `take` then gets the frames it wanted, on the tap stage, in order.
/// The frame is the encoder's own picture, shared by reference: `take` must copy what
/// it keeps and never write to it. A slow `take` never slows the recording: behind a
/// live input the taps miss frames instead (counted), behind stored media the pipeline
/// waits.
public protocol FrameTap: AnyObject, Sendable {
  var wantsFrame: Bool { get }
  func take(_ frame: VideoFrame)
}
