import CFFmpeg
import CamfxCore
import CamfxPixelFormats

/// Owns one libswscale context (`sws_getCachedContext` / `sws_freeContext`) converting
/// between two pixel formats at one size.
///
/// camfx uses it for the pictures its own converters do not take: decoded movies and
/// JPEGs to BGRA (`MovieReader`, `CompressedFrameDecoder`), 4:4:4 or grey JPEGs to yuv420p; and
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
        "scaling pictures",
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

  private typealias Planes<Pointer> = (Pointer?, Pointer?, Pointer?, Pointer?)
  private typealias Strides = (Int32, Int32, Int32, Int32)

  /// A decoded picture's planes, straight from its AVFrame.
  private func convert(
    _ frame: UnsafePointer<AVFrame>, destination: Planes<UnsafeMutablePointer<UInt8>>, strides: Strides
  ) throws(FFmpegError) {
    let f = frame.pointee
    try prepare(
      sourceWidth: Int(f.width), sourceHeight: Int(f.height), sourceFormat: AVPixelFormat(rawValue: f.format),
      colorspace: f.colorspace, fullRange: f.color_range == AVCOL_RANGE_JPEG)
    let d = f.data, l = f.linesize
    try scale(
      source: (UnsafePointer(d.0), UnsafePointer(d.1), UnsafePointer(d.2), UnsafePointer(d.3)),
      sourceStrides: (l.0, l.1, l.2, l.3), destination: destination, destinationStrides: strides)
  }

  /// One `sws_scale` call on plane tuples (no arrays: this runs per frame).
  private func scale(
    source: Planes<UnsafePointer<UInt8>>, sourceStrides: Strides, destination: Planes<UnsafeMutablePointer<UInt8>>,
    destinationStrides: Strides
  ) throws(FFmpegError) {
    guard let context else { throw FFmpegError.invalid("scaling a picture", "Swscale.prepare was not called") }
    var source = source, sourceStrides = sourceStrides, destination = destination, destinationStrides = destinationStrides
    let rows = withUnsafePointer(to: &source) { source in
      withUnsafePointer(to: &sourceStrides) { sourceStride in
        withUnsafePointer(to: &destination) { target in
          withUnsafePointer(to: &destinationStrides) { targetStride in
            sws_scale(
              context, UnsafeRawPointer(source).assumingMemoryBound(to: UnsafePointer<UInt8>?.self),
              UnsafeRawPointer(sourceStride).assumingMemoryBound(to: Int32.self), 0, Int32(sourceHeight),
              UnsafeRawPointer(target).assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self),
              UnsafeRawPointer(targetStride).assumingMemoryBound(to: Int32.self))
          }
        }
      }
    }
    if rows < 0 { throw FFmpegError(code: rows, operation: "scaling a picture") }
    if Int(rows) != height { throw FFmpegError.invalid("scaling a picture", "converted \(rows) of \(height) rows") }
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
        source: (UnsafePointer(src), nil, nil, nil), sourceStrides: (Int32(buffer.bytesPerRow), 0, 0, 0),
        destination: (planes.y, planes.u, planes.v, nil),
        destinationStrides: (Int32(planes.yStride), Int32(planes.uStride), Int32(planes.vStride), 0))
    }
  }

  package static func name(_ format: AVPixelFormat) -> String {
    av_get_pix_fmt_name(format).map { String(cString: $0) } ?? "format \(format.rawValue)"
  }
}
