import CFFmpeg
import CamfxCore
import CamfxFFmpeg

/// A yuv420p (I420) picture lent out by a `YUV420FramePool`: what a decoder produced,
/// or what the pipeline made for the encoder, travelling between stages the way a
/// `PixelBuffer` does.
///
/// A transcode whose filters work on yuv420p, or are row-local, never lays out whole
/// BGRA frames: the reader hands the decoded picture on as it is, the filter stage
/// filters it into another `YUV420Frame` (straight on the planes, or band by band
/// through BGRA), and the movie writer encodes that without a conversion of its own
/// (see `FramePath`).
///
/// Like a `PixelBuffer`, a copy is another view of the same picture, and the picture
/// goes back to its pool when the last copy is gone.
///
/// `@unchecked Sendable`: the AVFrame behind it is written only by whoever holds it
/// alone — whoever acquired it from the pool, before handing it on, or a stage it was
/// handed to that may write it (`ownsItsPicture`); the writer gives it to the encoder,
/// and the pool reuses it only when no copy is left.
public struct YUV420Frame: @unchecked Sendable {
  let slot: YUV420FrameSlot
  /// When this frame should be shown, on the source's clock.
  public var presentationTime: MediaTime
  /// True when the source already ran the chain it was given to filter while converting
  /// (`MediaSource.filterWhileConverting`) on this picture, band by band.
  public var filteredWhileConverting = false

  init(slot: YUV420FrameSlot, presentationTime: MediaTime) {
    self.slot = slot
    self.presentationTime = presentationTime
  }

  /// A picture of its own, outside any pool, that whoever holds it writes in place (a
  /// composition's still fitted once, a movie's picture turned upright).
  /// - Throws: `FFmpegError` when the picture cannot be allocated.
  public init(geometry: FrameGeometry, presentationTime: MediaTime = .zero) throws(FFmpegError) {
    let frame = try FFmpegFrame(width: geometry.width, height: geometry.height, format: AV_PIX_FMT_YUV420P)
    self.init(slot: YUV420FrameSlot(frame: frame, isOwned: true), presentationTime: presentationTime)
  }

  package var avFrame: UnsafeMutablePointer<AVFrame> { slot.frame.pointer }

  /// True for a picture its producer wrote into a frame of an `.owned` pool (a camera's
  /// or a file's pixels converted to yuv420p, a rendered composition): the stage it is
  /// handed to may write it in place, since the producer keeps nothing of it and the
  /// pool gives a picture still held by an encoder fresh buffers before it is written
  /// again. False for a decoder's picture taken by reference, which the decoder may
  /// still read to decode the pictures after it.
  public var ownsItsPicture: Bool { slot.isOwned }
  public var width: Int { Int(avFrame.pointee.width) }
  public var height: Int { Int(avFrame.pointee.height) }
  public var geometry: FrameGeometry { FrameGeometry(width: width, height: height) }

  /// The Y plane: `height` rows of `width` bytes, `yStride` bytes apart.
  public var y: UnsafeMutablePointer<UInt8> { avFrame.pointee.data.0! }
  public var yStride: Int { Int(avFrame.pointee.linesize.0) }
  /// The U (Cb) plane: `(height + 1) / 2` rows of `(width + 1) / 2` bytes.
  public var u: UnsafeMutablePointer<UInt8> { avFrame.pointee.data.1! }
  public var uStride: Int { Int(avFrame.pointee.linesize.1) }
  /// The V (Cr) plane, like U.
  public var v: UnsafeMutablePointer<UInt8> { avFrame.pointee.data.2! }
  public var vStride: Int { Int(avFrame.pointee.linesize.2) }

  /// The planes as a filter sees them (`YUV420VideoFilter`).
  public var picture: YUV420Picture {
    YUV420Picture(
      width: width, height: height, y: y, yStride: yStride, u: u, uStride: uStride, v: v, vStride: vStride,
      presentationTime: presentationTime)
  }
}

/// One reusable AVFrame of a `YUV420FramePool`.
final class YUV420FrameSlot {
  let frame: FFmpegFrame
  /// From an `.owned` pool (see `YUV420Frame.ownsItsPicture`).
  let isOwned: Bool
  init(frame: FFmpegFrame, isOwned: Bool) {
    self.frame = frame
    self.isOwned = isOwned
  }
}
