import CamfxCore
import CamfxMedia

/// A video frame on its way between the recording stages: a BGRA `PixelBuffer`, or, in
/// a transcode with a `YUV420FramePass`, a yuv420p picture (decoded, before the filter
/// stage; ready for the encoder, after it).
enum StageFrame: Sendable {
  case bgra(PixelBuffer)
  case yuv420(YUV420Frame)
}
