import CTurboJPEG
import CamfxCore
import CamfxPixelFormats

/// Decodes a camera's JPEG straight into a yuv420p picture with libjpeg-turbo's
/// TurboJPEG API (`tjDecompressToYUVPlanes`: the JPEG's own planes, no colour
/// conversion), then maps JPEG's full range to the pipeline's in place. 4:2:0 JPEGs are
/// decoded into the picture's own planes; 4:2:2 ones (most USB webcams') have their
/// luma decoded into the picture and their chroma into two planes of this decoder's,
/// whose row pairs are averaged into the picture's (`FullRangeYUVLayout`).
///
/// Anything else (grey, 4:4:4, 4:4:0, 4:1:1, CMYK), and any JPEG TurboJPEG warns about
/// (data cut short, which it would fill with grey, or corrupt data), is left to
/// libavcodec, whose error checks decide whether the frame is damaged.
final class TurboJPEGPlaneDecoder {
  enum Outcome: Equatable {
    /// The picture holds the frame, in the pipeline's range.
    case decoded
    /// Not decoded here: libavcodec's turn (a layout TurboJPEG is not used for, a
    /// warning, an error, or the wrong size, which libavcodec reports as damage).
    case notDecoded
  }

  private let handle: tjhandle
  /// The plane pointers and strides handed to TurboJPEG, made once: a frame's decode
  /// allocates nothing.
  private let planes = UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>.allocate(capacity: 3)
  private let strides = UnsafeMutablePointer<Int32>.allocate(capacity: 3)
  /// 4:2:2 chroma, full height: Cb then Cr, `chromaWidth` × `chromaHeight` each.
  private var chroma: UnsafeMutablePointer<UInt8>?
  private var chromaWidth = 0
  private var chromaHeight = 0

  /// Nil when TurboJPEG cannot make a decompressor (out of memory).
  init?() {
    guard let handle = tjInitDecompress() else { return nil }
    self.handle = handle
  }

  deinit {
    tjDestroy(handle)
    chroma?.deallocate()
    planes.deallocate()
    strides.deallocate()
  }

  /// - Parameter chain: row-local filters run on each band as it is converted (nil: none).
  func decode(_ bytes: UnsafeRawBufferPointer, into picture: YUV420Picture, filteringBandsWith chain: FilterChain? = nil)
    -> Outcome
  {
    guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count > 0 else { return .notDecoded }
    var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
    guard tjDecompressHeader3(handle, base, UInt(bytes.count), &width, &height, &subsampling, &colorspace) == 0,
      Int(width) == picture.width, Int(height) == picture.height, colorspace == Int32(TJCS_YCbCr.rawValue)
    else { return .notDecoded }
    let layout: FullRangeYUVLayout
    switch subsampling {
    case Int32(TJSAMP_420.rawValue):
      guard picture.uStride == picture.vStride else { return .notDecoded }
      layout = FullRangeYUVLayout(
        luma: picture.y, lumaBytesPerRow: picture.yStride, cb: picture.u, cr: picture.v,
        chromaBytesPerRow: picture.uStride, chromaRows: .half)
    case Int32(TJSAMP_422.rawValue):
      let (cb, cr, stride) = chromaPlanes(width: picture.chromaWidth, height: picture.height)
      layout = FullRangeYUVLayout(
        luma: picture.y, lumaBytesPerRow: picture.yStride, cb: cb, cr: cr, chromaBytesPerRow: stride,
        chromaRows: .full)
    default:
      return .notDecoded
    }
    // TurboJPEG writes the planes the layout then reads (in place).
    planes[0] = UnsafeMutablePointer(mutating: layout.luma.assumingMemoryBound(to: UInt8.self))
    planes[1] = UnsafeMutablePointer(mutating: layout.cb.assumingMemoryBound(to: UInt8.self))
    planes[2] = UnsafeMutablePointer(mutating: layout.cr.assumingMemoryBound(to: UInt8.self))
    strides[0] = Int32(layout.lumaBytesPerRow)
    strides[1] = Int32(layout.chromaBytesPerRow)
    strides[2] = Int32(layout.chromaBytesPerRow)
    let result = tjDecompressToYUVPlanes(handle, base, UInt(bytes.count), planes, width, strides, height, 0)
    // -1 with a warning still wrote a whole picture, but one TurboJPEG doubts (grey where
    // the data ran out, say): libavcodec decides.
    guard result == 0 else { return .notDecoded }
    // In place: each row is read before it is written.
    if let chain { layout.convert(to: picture, filteringBandsWith: chain) } else { layout.convert(to: picture) }
    return .decoded
  }

  /// This decoder's 4:2:2 chroma planes, made (or grown) for `width` × `height`.
  private func chromaPlanes(width: Int, height: Int) -> (UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>, Int) {
    // Rows 64-byte aligned, so that TurboJPEG's and the conversion's loads stay in lines.
    let stride = (width + 63) & ~63
    if chroma == nil || stride != chromaWidth || height != chromaHeight {
      chroma?.deallocate()
      let raw = UnsafeMutableRawPointer.allocate(byteCount: 2 * stride * height, alignment: 64)
      chroma = raw.bindMemory(to: UInt8.self, capacity: 2 * stride * height)
      chromaWidth = stride
      chromaHeight = height
    }
    return (chroma!, chroma! + stride * height, stride)
  }
}
