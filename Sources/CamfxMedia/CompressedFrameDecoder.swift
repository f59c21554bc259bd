import CFFmpeg
import CamfxCore
import CamfxPixelFormats

/// Decodes Motion-JPEG frames (a camera's) with libavcodec's `mjpeg` decoder, rejecting
/// corrupt frames instead of passing on half-grey images, into either format the
/// pipeline negotiated: yuv420p through camfx's own range conversion
/// (`FullRangeYUVLayout`, for the usual 4:2:0 and 4:2:2 JPEGs), or BGRA through
/// libswscale (JPEG range and matrix).
public final class MJPEGDecoder {
  private let context: FFmpegCodecContext
  private let packet: FFmpegPacket
  private let frame: FFmpegFrame
  /// Made on first use, for the format asked for; the yuv420p one only for JPEGs that
  /// are neither 4:2:0 nor 4:2:2 (grey, 4:4:4).
  private var toBGRA: Swscale?
  private var toYUV420: Swscale?

  /// - Throws: `FFmpegError` when libavcodec has no MJPEG decoder or cannot open it.
  public init() throws(FFmpegError) {
    guard let codec = avcodec_find_decoder(AV_CODEC_ID_MJPEG) else {
      throw FFmpegError.invalid("opening the MJPEG decoder", "this FFmpeg has none")
    }
    context = try FFmpegCodecContext(codec: codec)
    // Report damaged data as an error rather than concealing it.
    context.pointer.pointee.err_recognition |= AV_EF_EXPLODE | AV_EF_BITSTREAM | AV_EF_BUFFER
    context.pointer.pointee.thread_count = 1
    try check(avcodec_open2(context.pointer, codec, nil), "opening the MJPEG decoder")
    packet = try FFmpegPacket()
    frame = try FFmpegFrame()
  }

  /// Decodes one JPEG image of exactly `destination`'s size into it.
  /// - Returns: `false` when the data is not a complete, valid JPEG of that size (the
  ///   caller drops and counts the frame).
  public func decode(_ jpeg: UnsafeRawBufferPointer, into destination: PixelBuffer) -> Bool {
    guard let decoded = decode(jpeg, width: destination.width, height: destination.height) else { return false }
    defer { av_frame_unref(decoded) }
    let scaler =
      toBGRA
      ?? Swscale(
        width: destination.width, height: destination.height, format: AV_PIX_FMT_BGRA,
        flags: Int32(SWS_BILINEAR | SWS_ACCURATE_RND))
    toBGRA = scaler
    return (try? scaler.convert(decoded, to: destination)) != nil
  }

  /// Decodes one JPEG image of exactly `destination`'s size into its yuv420p planes.
  /// - Returns: `false` as above.
  public func decode(_ jpeg: UnsafeRawBufferPointer, into destination: YUV420Picture) -> Bool {
    guard let decoded = decode(jpeg, width: destination.width, height: destination.height) else { return false }
    defer { av_frame_unref(decoded) }
    if let layout = FullRangeYUVLayout(decoded.pointee) {
      layout.convert(to: destination)
      return true
    }
    let scaler = toYUV420 ?? Swscale(width: destination.width, height: destination.height, format: AV_PIX_FMT_YUV420P)
    toYUV420 = scaler
    return (try? scaler.convert(decoded, to: destination)) != nil
  }

  /// The decoded picture (unref it after use), or nil for a corrupt or wrong-sized one.
  private func decode(_ jpeg: UnsafeRawBufferPointer, width: Int, height: Int) -> UnsafeMutablePointer<AVFrame>? {
    guard let data = jpeg.baseAddress, jpeg.count > 0 else { return nil }
    let p = packet.pointer, f = frame.pointer
    // The bytes as they are (a driver's buffer): a packet without a buffer of its own is
    // copied by avcodec_send_packet into a padded one, so no copy of camfx's is needed.
    p.pointee.data = UnsafeMutablePointer(mutating: data.assumingMemoryBound(to: UInt8.self))
    p.pointee.size = Int32(jpeg.count)
    defer {
      p.pointee.data = nil
      p.pointee.size = 0
    }
    guard avcodec_send_packet(context.pointer, p) >= 0, avcodec_receive_frame(context.pointer, f) >= 0 else {
      avcodec_flush_buffers(context.pointer)
      return nil
    }
    let d = f.pointee
    guard d.decode_error_flags == 0, d.flags & AV_FRAME_FLAG_CORRUPT == 0, Int(d.width) == width, Int(d.height) == height
    else {
      av_frame_unref(f)
      return nil
    }
    return f
  }
}

extension FullRangeYUVLayout {
  /// The layout of a decoded full-range 4:2:0 or 4:2:2 picture (what JPEGs decode to),
  /// else nil.
  init?(_ f: AVFrame) {
    guard case .fullRange(let chromaRows)? = YUV420Route(f), let y = f.data.0, let u = f.data.1, let v = f.data.2,
      f.linesize.0 > 0, f.linesize.1 > 0, f.linesize.1 == f.linesize.2
    else { return nil }
    self.init(
      luma: y, lumaBytesPerRow: Int(f.linesize.0), cb: u, cr: v, chromaBytesPerRow: Int(f.linesize.1), chromaRows: chromaRows)
  }
}
