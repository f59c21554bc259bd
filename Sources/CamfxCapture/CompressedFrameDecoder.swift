import CFFmpeg
import CamfxCore
import CamfxFFmpeg
import CamfxFrames
import CamfxPixelFormats

/// Decodes a camera's compressed frames with libavcodec — Motion-JPEG (each frame a
/// picture of its own) or H.264 (frames that build on earlier ones) — rejecting
/// damaged frames instead of passing on half-grey or smeared pictures, into either
/// format the pipeline negotiated: yuv420p (camfx's own copy or range conversion for
/// the usual 4:2:0 and 4:2:2 pictures) or BGRA through libswscale.
///
/// JPEGs bound for yuv420p go through libjpeg-turbo first (`TurboJPEGPlaneDecoder`:
/// straight into the picture's planes, faster than libavcodec's decoder: the README has
/// the figures);
/// what it does not take, or warns about, is decoded by libavcodec as before.
///
/// An H.264 stream is decoded from its first keyframe on; after a damaged frame, the
/// frames that follow depend on it, so they are rejected too until the next keyframe.
public final class CompressedFrameDecoder {
  public enum Codec: Sendable {
    case mjpeg, h264
  }

  /// What became of one compressed frame.
  public enum Outcome: Equatable, Sendable {
    /// A picture of the destination's size was written.
    case decoded
    /// Damaged data, the wrong size, or (H.264) a frame that depends on a damaged one:
    /// the caller drops and counts it.
    case corrupt
    /// H.264 before the stream's first keyframe: nothing to show yet, and nothing lost
    /// (the recording starts at the keyframe).
    case waitingForKeyframe
  }

  public let codec: Codec
  private let context: FFmpegCodecContext
  private let packet: FFmpegPacket
  private let frame: FFmpegFrame
  /// Made on first use, for the format asked for; the yuv420p one only for pictures
  /// camfx does not convert itself (grey or 4:4:4 JPEGs, BT.709 H.264).
  private var toBGRA: Swscale?
  private var toYUV420: Swscale?
  /// H.264: true until a keyframe (again, after a damaged frame).
  private var needsKeyframe: Bool
  /// True once a frame was decoded: frames skipped while waiting for a keyframe after
  /// that are losses (`.corrupt`), not the stream's start.
  private var hasDecoded = false
  /// MJPEG to yuv420p: libjpeg-turbo, unless asked not to.
  private let turboJPEG: TurboJPEGPlaneDecoder?
  /// Frames `decode(_:into:)` had libjpeg-turbo decode (the rest went to libavcodec).
  public private(set) var framesDecodedByTurboJPEG = 0

  /// - Parameter turboJPEG: MJPEG frames bound for yuv420p are decoded by libjpeg-turbo
  ///   where it can (false: by libavcodec only, as `camfx bench` compares them).
  /// - Throws: `FFmpegError` when libavcodec has no such decoder or cannot open it.
  public init(codec: Codec = .mjpeg, turboJPEG: Bool = true) throws(FFmpegError) {
    self.turboJPEG = codec == .mjpeg && turboJPEG ? TurboJPEGPlaneDecoder() : nil
    let (id, name) = codec == .mjpeg ? (AV_CODEC_ID_MJPEG, "MJPEG") : (AV_CODEC_ID_H264, "H.264")
    guard let decoder = avcodec_find_decoder(id) else {
      throw FFmpegError.invalid("opening the \(name) decoder", "this FFmpeg has none")
    }
    self.codec = codec
    needsKeyframe = codec == .h264
    context = try FFmpegCodecContext(codec: decoder)
    // Report damaged data as an error rather than concealing it.
    context.pointer.pointee.err_recognition |= AV_EF_EXPLODE | AV_EF_BITSTREAM | AV_EF_BUFFER
    // One thread and low delay: each frame comes out of the call it went into (frame
    // threads would hold frames back, and the frame's time is the camera's).
    context.pointer.pointee.thread_count = 1
    context.pointer.pointee.flags |= AV_CODEC_FLAG_LOW_DELAY
    try check(avcodec_open2(context.pointer, decoder, nil), "opening the \(name) decoder")
    packet = try FFmpegPacket()
    frame = try FFmpegFrame()
  }

  /// True when `bytes` can be a whole frame of `codec` as a camera sends it: a JPEG from
  /// its SOI to its EOI marker (drivers may pad the buffer with zeros after it), an
  /// H.264 access unit that begins with a start code. What a camera hands over is
  /// untrusted: a buffer cut short or stale is dropped before it reaches the decoder.
  public static func isWholeFrame(_ bytes: UnsafeRawBufferPointer, codec: Codec) -> Bool {
    if codec == .h264 { return H264Bitstream.startsWithStartCode(bytes) }
    guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return false }
    var end = bytes.count
    while end > 2, bytes[end - 1] == 0 { end -= 1 }
    return end >= 4 && bytes[end - 2] == 0xFF && bytes[end - 1] == 0xD9
  }

  /// Decodes one frame of exactly `destination`'s size into it.
  public func decode(_ bytes: UnsafeRawBufferPointer, into destination: PixelBuffer) -> Outcome {
    let outcome = decode(bytes, width: destination.width, height: destination.height)
    guard outcome == .decoded else { return outcome }
    return copyPicture(into: destination) ? .decoded : .corrupt
  }

  /// Decodes one frame of exactly `destination`'s size into its yuv420p planes.
  /// - Parameter chain: row-local filters (`FilterChain.runsOnYUV420Bands`) run on each
  ///   band of the picture while it is in the cache, as the YUYV and NV12 cameras' do.
  public func decode(
    _ bytes: UnsafeRawBufferPointer, into destination: YUV420Picture, filteringBandsWith chain: FilterChain? = nil
  ) -> Outcome {
    if let turboJPEG, turboJPEG.decode(bytes, into: destination, filteringBandsWith: chain) == .decoded {
      // Nothing of an earlier frame is left for copyPicture.
      av_frame_unref(frame.pointer)
      framesDecodedByTurboJPEG += 1
      return .decoded
    }
    let outcome = decode(bytes, width: destination.width, height: destination.height)
    guard outcome == .decoded else { return outcome }
    guard copyPicture(into: destination) else { return .corrupt }
    if let chain { destination.forEachBand { band, firstRow in chain.process(yuv420Band: band, firstRow: firstRow) } }
    return .decoded
  }

  /// Decodes one frame, which must be `width`×`height`, and keeps its picture for
  /// `copyPicture(into:)` until the next call. An H.264 frame is decoded even when there
  /// is nowhere to put its picture (every pooled frame in use): the frames after it
  /// refer to it.
  public func decode(_ bytes: UnsafeRawBufferPointer, width: Int, height: Int) -> Outcome {
    av_frame_unref(frame.pointer)
    guard let data = bytes.baseAddress, bytes.count > 0 else { return .corrupt }
    if codec == .h264 && needsKeyframe {
      guard H264Bitstream.isKeyframe(bytes) else {
        // Parameter sets the camera sends on their own are kept for the keyframe.
        if H264Bitstream.hasParameterSets(bytes) { _ = send(data, count: bytes.count) }
        return hasDecoded ? .corrupt : .waitingForKeyframe
      }
    }
    let f = frame.pointer
    guard send(data, count: bytes.count), avcodec_receive_frame(context.pointer, f) >= 0 else { return rejected() }
    let d = f.pointee
    guard d.decode_error_flags == 0, d.flags & AV_FRAME_FLAG_CORRUPT == 0, Int(d.width) == width, Int(d.height) == height
    else {
      av_frame_unref(f)
      return rejected()
    }
    needsKeyframe = false
    hasDecoded = true
    return .decoded
  }

  /// Converts the picture the last `decode` made to BGRA; false when there is none.
  public func copyPicture(into destination: PixelBuffer) -> Bool {
    let decoded = frame.pointer
    guard decoded.pointee.data.0 != nil else { return false }
    let scaler =
      toBGRA
      ?? Swscale(
        width: destination.width, height: destination.height, format: AV_PIX_FMT_BGRA,
        flags: Int32(SWS_BILINEAR | SWS_ACCURATE_RND))
    toBGRA = scaler
    return (try? scaler.convert(decoded, to: destination)) != nil
  }

  /// Copies or converts the picture the last `decode` made to yuv420p; false when there
  /// is none.
  public func copyPicture(into destination: YUV420Picture) -> Bool {
    let f = frame.pointer.pointee
    guard f.data.0 != nil else { return false }
    if let layout = FullRangeYUVLayout(f) {
      layout.convert(to: destination)
      return true
    }
    if YUV420Route(f) == .asIs, let y = f.data.0, let u = f.data.1, let v = f.data.2, f.linesize.0 > 0,
      f.linesize.1 > 0, f.linesize.1 == f.linesize.2
    {
      YUVSourceLayout.i420(
        luma: y, lumaBytesPerRow: Int(f.linesize.0), cb: u, cr: v, chromaBytesPerRow: Int(f.linesize.1)
      ).convert(to: destination)
      return true
    }
    let scaler = toYUV420 ?? Swscale(width: destination.width, height: destination.height, format: AV_PIX_FMT_YUV420P)
    toYUV420 = scaler
    return (try? scaler.convert(frame.pointer, to: destination)) != nil
  }

  /// Frames were lost before the next one (a gap in the driver's sequence, a frame the
  /// driver or camfx dropped): H.264 waits for the next keyframe, as after damage.
  public func framesWereLost() {
    if codec == .h264 && hasDecoded { needsKeyframe = true }
  }

  /// Hands the bytes to the decoder as they are (a driver's buffer): a packet without a
  /// buffer of its own is copied by avcodec_send_packet into a padded one.
  private func send(_ data: UnsafeRawPointer, count: Int) -> Bool {
    let p = packet.pointer
    p.pointee.data = UnsafeMutablePointer(mutating: data.assumingMemoryBound(to: UInt8.self))
    p.pointee.size = Int32(count)
    defer {
      p.pointee.data = nil
      p.pointee.size = 0
    }
    return avcodec_send_packet(context.pointer, p) >= 0
  }

  /// A damaged frame: MJPEG starts afresh with the next one; H.264 waits for the next
  /// keyframe, since the frames until then refer to this one.
  private func rejected() -> Outcome {
    avcodec_flush_buffers(context.pointer)
    if codec == .h264 { needsKeyframe = true }
    return .corrupt
  }
}
