import Camfx
import CamfxCapture

/// A compressed frame as a camera hands it over (its bytes are the device's, so
/// untrusted): the first byte picks MJPEG (even) or H.264 (odd), the rest is the
/// frame. What the camera path runs on it — the whole-frame check, the H.264 bitstream
/// scan, decoding into a 64x48 picture of both kinds — may refuse it, never crash.
func fuzzCameraFrame(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  guard let data, size > 0 else { return 0 }
  let codec: CompressedFrameDecoder.Codec = data[0] % 2 == 0 ? .mjpeg : .h264
  let bytes = UnsafeRawBufferPointer(start: data + 1, count: size - 1)
  _ = CompressedFrameDecoder.isWholeFrame(bytes, codec: codec)
  _ = H264Bitstream.isKeyframe(bytes)
  _ = H264Bitstream.parameterSets(in: bytes)
  guard let decoder = codec == .mjpeg ? CameraFrameDecoders.mjpeg : CameraFrameDecoders.h264 else { return 0 }
  _ = decoder.decode(bytes, into: CameraFrameDecoders.picture.picture)
  _ = decoder.decode(bytes, into: CameraFrameDecoders.bgra)
  return 0
}

/// Made once: a decoder keeps state between frames, as a camera's does.
enum CameraFrameDecoders {
  nonisolated(unsafe) static let mjpeg = try? CompressedFrameDecoder(codec: .mjpeg)
  nonisolated(unsafe) static let h264 = try? CompressedFrameDecoder(codec: .h264)
  nonisolated(unsafe) static let picture = YUV420Planes(width: 64, height: 48)
  nonisolated(unsafe) static let bgra = PixelBuffer(width: 64, height: 48)
}
