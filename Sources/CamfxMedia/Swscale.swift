import CFFmpeg
import CamfxCore
import CamfxPixelFormats

/// Owns one libswscale context (`sws_getCachedContext` / `sws_freeContext`) converting
/// between two pixel formats at one size.
///
/// camfx uses it for the pictures its own converters do not take: decoded movies and
/// JPEGs to BGRA (`MovieReader`, `MJPEGDecoder`), 4:4:4 or grey JPEGs to yuv420p; and
/// as the reference ("oracle") its own `BGRAToYUV420` kernel is tested and benchmarked
/// against.
public final class Swscale {
  private var context: OpaquePointer?
  public private(set) var sourceWidth = 0, sourceHeight = 0
  public private(set) var sourceFormat = AV_PIX_FMT_NONE
  public let width: Int, height: Int
  public let format: AVPixelFormat
  public let flags: Int32

  /// A converter to `width × height` in `format`; the source side is set per call.
  public init(width: Int, height: Int, format: AVPixelFormat, flags: Int32 = Int32(SWS_BILINEAR)) {
    self.width = width
    self.height = height
    self.format = format
    self.flags = flags
  }

  deinit { sws_freeContext(context) }

  /// Makes sure the context converts from this source; recreated only when it changes.
  /// - Parameter colorspace: the source's `AVColorSpace` (BT.709 for HD files), so YUV
  ///   sources are converted with their own matrix; BT.601 otherwise.
  public func prepare(
    sourceWidth: Int, sourceHeight: Int, sourceFormat: AVPixelFormat,
    colorspace: AVColorSpace = AVCOL_SPC_UNSPECIFIED, fullRange: Bool = false
  ) throws(FFmpegError) {
    if context != nil, sourceWidth == self.sourceWidth, sourceHeight == self.sourceHeight, sourceFormat == self.sourceFormat {
      return
    }
    context = sws_getCachedContext(
      context, Int32(sourceWidth), Int32(sourceHeight), sourceFormat,
      Int32(width), Int32(height), format, flags, nil, nil, nil)
    guard let context else {
      throw FFmpegError.invalid(
        "sws_getCachedContext",
        "cannot convert \(sourceWidth)x\(sourceHeight) \(Self.name(sourceFormat)) to \(width)x\(height) \(Self.name(format))")
    }
    self.sourceWidth = sourceWidth
    self.sourceHeight = sourceHeight
    self.sourceFormat = sourceFormat
    if colorspace == AVCOL_SPC_BT709 || fullRange {
      let matrix = colorspace == AVCOL_SPC_BT709 ? SWS_CS_ITU709 : SWS_CS_DEFAULT
      // Brightness 0, contrast and saturation 1.0 in 16.16 fixed point. It returns -1
      // only for YUV→YUV or RGB→RGB contexts, where the defaults are what we want.
      _ = sws_setColorspaceDetails(
        context, sws_getCoefficients(matrix), fullRange ? 1 : 0, sws_getCoefficients(SWS_CS_DEFAULT), 0, 0, 1 << 16, 1 << 16)
    }
  }

  /// Converts one picture given as plane pointers and strides (up to 4 planes).
  public func scale(
    source: [UnsafePointer<UInt8>?], sourceStrides: [Int32],
    destination: [UnsafeMutablePointer<UInt8>?], destinationStrides: [Int32]
  ) throws(FFmpegError) {
    guard let context else { throw FFmpegError.invalid("sws_scale", "Swscale.prepare was not called") }
    let src = source + Array(repeating: nil, count: 4 - source.count)
    let srcStrides = sourceStrides + Array(repeating: 0, count: 4 - sourceStrides.count)
    let dst = destination + Array(repeating: nil, count: 4 - destination.count)
    let dstStrides = destinationStrides + Array(repeating: 0, count: 4 - destinationStrides.count)
    let rows = sws_scale(context, src, srcStrides, 0, Int32(sourceHeight), dst, dstStrides)
    if rows < 0 { throw FFmpegError(code: rows, operation: "sws_scale") }
  }

  /// Converts a decoded picture (any format, colour space and range libswscale knows)
  /// into a BGRA buffer of this converter's size. Allocates nothing once prepared.
  public func convert(_ frame: UnsafePointer<AVFrame>, to buffer: PixelBuffer) throws(FFmpegError) {
    precondition(format == AV_PIX_FMT_BGRA && width == buffer.width && height == buffer.height)
    let base = (buffer.storage.baseAddress + buffer.offset).assumingMemoryBound(to: UInt8.self)
    try withExtendedLifetime(buffer) { () throws(FFmpegError) in
      try convert(frame, destination: (base, nil, nil, nil), strides: (Int32(buffer.bytesPerRow), 0, 0, 0))
    }
  }

  /// Converts a decoded picture into yuv420p planes of this converter's size.
  public func convert(_ frame: UnsafePointer<AVFrame>, to picture: YUV420Picture) throws(FFmpegError) {
    precondition(format == AV_PIX_FMT_YUV420P && width == picture.width && height == picture.height)
    try convert(
      frame, destination: (picture.y, picture.u, picture.v, nil),
      strides: (Int32(picture.yStride), Int32(picture.uStride), Int32(picture.vStride), 0))
  }

  private typealias Planes = (UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt8>?)

  /// The frame's planes straight from its AVFrame (no arrays: this runs per frame).
  private func convert(
    _ frame: UnsafePointer<AVFrame>, destination: Planes, strides: (Int32, Int32, Int32, Int32)
  ) throws(FFmpegError) {
    let f = frame.pointee
    try prepare(
      sourceWidth: Int(f.width), sourceHeight: Int(f.height), sourceFormat: AVPixelFormat(rawValue: f.format),
      colorspace: f.colorspace, fullRange: f.color_range == AVCOL_RANGE_JPEG)
    var destination = destination, strides = strides, sourcePlanes = f.data, sourceStrides = f.linesize
    let rows = withUnsafePointer(to: &sourcePlanes) { source in
      withUnsafePointer(to: &sourceStrides) { sourceStride in
        withUnsafePointer(to: &destination) { target in
          withUnsafePointer(to: &strides) { targetStride in
            sws_scale(
              context, UnsafeRawPointer(source).assumingMemoryBound(to: UnsafePointer<UInt8>?.self),
              UnsafeRawPointer(sourceStride).assumingMemoryBound(to: Int32.self), 0, f.height,
              UnsafeRawPointer(target).assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self),
              UnsafeRawPointer(targetStride).assumingMemoryBound(to: Int32.self))
          }
        }
      }
    }
    if rows < 0 { throw FFmpegError(code: rows, operation: "sws_scale") }
    if Int(rows) != height { throw FFmpegError.invalid("sws_scale", "converted \(rows) of \(height) rows") }
  }

  /// Converts a BGRA `PixelBuffer` into I420 `planes` with libswscale (the reference
  /// for `BGRAToYUV420`).
  public func convert(_ buffer: PixelBuffer, into planes: YUV420Planes) throws(FFmpegError) {
    precondition(format == AV_PIX_FMT_YUV420P && width == planes.width && height == planes.height)
    try prepare(sourceWidth: buffer.width, sourceHeight: buffer.height, sourceFormat: AV_PIX_FMT_BGRA)
    // The storage outlives this call (`buffer` holds it); pixel (0, 0) is at `offset`.
    let src = (buffer.storage.baseAddress + buffer.offset).assumingMemoryBound(to: UInt8.self)
    try withExtendedLifetime(buffer) { () throws(FFmpegError) in
      try scale(
        source: [UnsafePointer(src)], sourceStrides: [Int32(buffer.bytesPerRow)],
        destination: [planes.y, planes.u, planes.v],
        destinationStrides: [Int32(planes.yStride), Int32(planes.uStride), Int32(planes.vStride)])
    }
  }

  static func name(_ format: AVPixelFormat) -> String {
    av_get_pix_fmt_name(format).map { String(cString: $0) } ?? "format \(format.rawValue)"
  }
}
