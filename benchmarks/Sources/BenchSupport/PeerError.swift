import CPeers

/// A peer library call that failed, with the operation and the library's own code.
public struct PeerError: Error, CustomStringConvertible {
  /// The call that failed, e.g. `"ARGBGray"` or `"avfilter_graph_config"`.
  public let operation: String
  /// The library's return code (libyuv: -1; FFmpeg: an AVERROR).
  public let code: Int32
  /// FFmpeg's text for the code, or a reason of our own.
  public let message: String

  public init(operation: String, code: Int32, message: String? = nil) {
    self.operation = operation
    self.code = code
    if let message {
      self.message = message
    } else {
      var text = [CChar](repeating: 0, count: 128)
      camfx_peer_strerror(code, &text, text.count)
      self.message = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
  }

  public var description: String { "\(operation) failed (\(code)): \(message)" }

  /// Throws when `code` is negative.
  @inline(__always)
  static func check(_ code: Int32, _ operation: @autoclosure () -> String) throws(PeerError) {
    if code < 0 { throw PeerError(operation: operation(), code: code) }
  }
}
