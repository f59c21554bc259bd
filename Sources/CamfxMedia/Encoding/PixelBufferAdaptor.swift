import CFFmpeg
import CamfxCore
import CamfxFFmpeg
import CamfxFrames
import CamfxPixelFormats

/// Turns BGRA `PixelBuffer`s into yuv420p `AVFrame`s for the video encoder, like
/// `AVAssetWriterInputPixelBufferAdaptor`.
///
/// The frames come from a small pool made once, so the steady state allocates
/// nothing. An encoder may keep a reference to a frame it was sent (libavcodec
/// ref-counts frame buffers), so a pooled frame is only written again when
/// `av_frame_is_writable` says nobody else holds it; if every frame is still held, the
/// next one is made writable with `av_frame_make_writable`, which gives it fresh
/// buffers instead of overwriting what the encoder still reads.
///
/// The conversion is `BGRAToYUV420.convert`, camfx's own fixed-point SIMD kernel.
public final class PixelBufferAdaptor {
  public let width: Int
  public let height: Int
  private let frames: [FFmpegFrame]
  private var next = 0

  /// - Parameters:
  ///   - width, height: the size of every buffer that will be converted.
  ///   - capacity: pooled frames; a few more than the encoder holds at once.
  /// - Throws: `FFmpegError` when the frames cannot be allocated.
  public init(width: Int, height: Int, capacity: Int = 4) throws(FFmpegError) {
    precondition(width > 0 && height > 0 && capacity > 0)
    self.width = width
    self.height = height
    var frames: [FFmpegFrame] = []
    for _ in 0..<capacity {
      frames.append(try FFmpegFrame(width: width, height: height, format: AV_PIX_FMT_YUV420P))
    }
    self.frames = frames
  }

  /// Converts `buffer` into a pooled yuv420p frame and returns that frame.
  ///
  /// The frame stays owned by the adaptor; it is valid until it is handed out again
  /// (after `capacity` more calls), and its `pts` is left for the caller to set.
  /// - Throws: `FFmpegError` if the size differs or a frame cannot be made writable.
  public func convert(_ buffer: PixelBuffer) throws(FFmpegError) -> UnsafeMutablePointer<AVFrame> {
    guard buffer.width == width, buffer.height == height else {
      throw FFmpegError.invalid(
        "append video frame", "frame is \(buffer.geometry) but the video track is \(width)x\(height)")
    }
    let frame = try writableFrame()
    let f = frame.pointee
    buffer.withUnsafeBytes { src in
      BGRAToYUV420.convert(
        source: src, sourceBytesPerRow: buffer.bytesPerRow, width: width, height: height,
        y: f.data.0!, yStride: Int(f.linesize.0),
        u: f.data.1!, uStride: Int(f.linesize.1),
        v: f.data.2!, vStride: Int(f.linesize.2))
    }
    return frame
  }

  private func writableFrame() throws(FFmpegError) -> UnsafeMutablePointer<AVFrame> {
    for k in 0..<frames.count {
      let i = (next + k) % frames.count
      if av_frame_is_writable(frames[i].pointer) != 0 {
        next = (i + 1) % frames.count
        return frames[i].pointer
      }
    }
    // Every frame is still referenced by the encoder: give the next one new buffers.
    let f = frames[next].pointer
    next = (next + 1) % frames.count
    try check(av_frame_make_writable(f), "getting a writable picture")
    return f
  }
}
