import CFFmpeg
import CamfxCore
import CamfxFFmpeg

/// A fixed set of reusable `YUV420Frame`s of one size, the planar twin of
/// `PixelBufferPool`: a frame comes back by itself when the last `YUV420Frame` viewing
/// it goes away, and acquiring or releasing allocates nothing of camfx's own.
///
/// Two kinds, by where the pictures come from:
/// - `.owned`: each frame has picture buffers of its own (`av_frame_get_buffer`), made
///   once, for the pipeline to write into. If an encoder still holds a reference to a
///   frame's buffers when it comes round again, it gets fresh ones
///   (`av_frame_make_writable`) instead of overwriting what the encoder reads.
/// - `.decoded`: the frames are empty shells that take over a decoder's output by
///   reference (`adopt`), so a decoded picture crosses stages without a copy.
///
/// `@unchecked Sendable`: a slot's AVFrame is touched only by the thread that acquired
/// it while nobody else holds it (`ReusableObjects` hands out only unheld slots).
public final class YUV420FramePool: @unchecked Sendable {
  public enum Kind: Sendable {
    case owned, decoded
  }

  public let geometry: FrameGeometry
  public let kind: Kind
  private let slots: ReusableObjects<YUV420FrameSlot>

  /// - Throws: `FFmpegError` when the frames cannot be allocated.
  public init(geometry: FrameGeometry, capacity: Int, kind: Kind) throws(FFmpegError) {
    precondition(capacity > 0)
    self.geometry = geometry
    self.kind = kind
    var made: [YUV420FrameSlot] = []
    for _ in 0..<capacity {
      let frame: FFmpegFrame
      switch kind {
      case .owned: frame = try FFmpegFrame(width: geometry.width, height: geometry.height, format: AV_PIX_FMT_YUV420P)
      case .decoded: frame = try FFmpegFrame()
      }
      made.append(YUV420FrameSlot(frame: frame, isOwned: kind == .owned))
    }
    slots = ReusableObjects(made)
  }

  /// An `.owned` frame to write a picture into, waiting for one to come back if all
  /// are out. Returns nil only if `shouldStop` turns true while waiting.
  /// - Throws: `FFmpegError` if fresh buffers are needed and cannot be allocated.
  public func acquire(presentationTime: MediaTime, shouldStop: () -> Bool = { false }) throws(FFmpegError) -> YUV420Frame? {
    precondition(kind == .owned, "acquire() is for pools that own their pictures")
    guard let slot = slots.take(shouldStop: shouldStop) else { return nil }
    try check(av_frame_make_writable(slot.frame.pointer), "getting a writable picture")
    return YUV420Frame(slot: slot, presentationTime: presentationTime)
  }

  /// Takes over `decoded`'s picture by reference (leaving `decoded` empty) into a free
  /// `.decoded` frame, waiting for one to come back if all are out. Returns nil only if
  /// `shouldStop` turns true while waiting (`decoded` is then untouched).
  /// - Precondition: `decoded` is a yuv420p picture of the pool's size.
  public func adopt(
    _ decoded: UnsafeMutablePointer<AVFrame>, presentationTime: MediaTime, shouldStop: () -> Bool = { false }
  ) -> YUV420Frame? {
    precondition(kind == .decoded, "adopt() is for pools of decoded pictures")
    precondition(
      decoded.pointee.format == AV_PIX_FMT_YUV420P.rawValue && Int(decoded.pointee.width) == geometry.width
        && Int(decoded.pointee.height) == geometry.height, "not a yuv420p picture of \(geometry)")
    guard let slot = slots.take(shouldStop: shouldStop) else { return nil }
    // Drops the reference to the picture this slot carried last time (the decoder can
    // reuse that buffer now), then takes the new one.
    av_frame_unref(slot.frame.pointer)
    av_frame_move_ref(slot.frame.pointer, decoded)
    return YUV420Frame(slot: slot, presentationTime: presentationTime)
  }
}
