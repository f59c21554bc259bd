import Camfx
import CPeers

/// A libavfilter graph on BGRA frames, fed through `buffer` and drained through
/// `buffersink` (one frame in, one frame out), single-threaded; freed in `deinit`.
///
/// The description labels its pads `[in]`, `[out]` and, with a mark, `[mark]`:
///
///     FilterGraph("[in]hflip[out]", geometry: g)
///     FilterGraph("[in][mark]overlay=x=W-w-16:y=H-h-16:format=rgb[out]", geometry: g, mark: logo)
public final class FilterGraph {
  private let graph: OpaquePointer
  public let description: String

  /// - Throws: `PeerError` naming the step of graph set-up that failed.
  public init(
    _ description: String, geometry: FrameGeometry, format: camfx_peer_format = CAMFX_PEER_BGRA, mark: PixelBuffer? = nil
  ) throws(PeerError) {
    var error = [CChar](repeating: 0, count: 256)
    let made: OpaquePointer?
    if let mark {
      made = mark.withUnsafeBytes { m in
        camfx_avf_create_format(
          description, Int32(geometry.width), Int32(geometry.height), format,
          m.assumingMemoryBound(to: UInt8.self), Int32(mark.bytesPerRow), Int32(mark.width), Int32(mark.height),
          &error, error.count)
      }
    } else {
      made = camfx_avf_create_format(
        description, Int32(geometry.width), Int32(geometry.height), format, nil, 0, 0, 0, &error, error.count)
    }
    guard let made else {
      let text = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
      throw PeerError(operation: "libavfilter graph '\(description)'", code: -1, message: text)
    }
    self.graph = made
    self.description = description
  }

  deinit { camfx_avf_free(graph) }

  /// Runs one frame through the graph; the result is released at once unless `copyOut`
  /// is given (then its pixels are copied there, for checking).
  /// - Returns: the size of the result.
  @discardableResult
  public func run(_ frame: PixelBuffer, copyOut: PixelBuffer? = nil) throws(PeerError) -> FrameGeometry {
    var width: Int32 = 0, height: Int32 = 0
    let code = frame.withUnsafeMutableBytes { f in
      if let copyOut {
        copyOut.withUnsafeMutableBytes { out in
          camfx_avf_run(graph, f.assumingMemoryBound(to: UInt8.self), Int32(frame.bytesPerRow),
                        out.assumingMemoryBound(to: UInt8.self), Int32(copyOut.bytesPerRow), &width, &height)
        }
      } else {
        camfx_avf_run(graph, f.assumingMemoryBound(to: UInt8.self), Int32(frame.bytesPerRow), nil, 0, &width, &height)
      }
    }
    try PeerError.check(code, "libavfilter '\(description)'")
    return FrameGeometry(width: Int(width), height: Int(height))
  }

  /// Runs one yuv420p picture through a graph made with `format: CAMFX_PEER_YUV420P`;
  /// the result is released at once.
  @discardableResult
  public func run(_ picture: PlanarImage) throws(PeerError) -> FrameGeometry {
    var width: Int32 = 0, height: Int32 = 0
    let planes: [UnsafeMutablePointer<UInt8>?] = picture.planes.map { $0.baseAddress }
    let strides = picture.strides.map { Int32($0) }
    let code = planes.withUnsafeBufferPointer { p in
      strides.withUnsafeBufferPointer { s in camfx_avf_run_planes(graph, p.baseAddress, s.baseAddress, &width, &height) }
    }
    try PeerError.check(code, "libavfilter '\(description)'")
    return FrameGeometry(width: Int(width), height: Int(height))
  }
}
