import CFFmpeg

/// A failed FFmpeg call: the negative `AVERROR` code, the function (or step) that
/// returned it, and FFmpeg's own text for the code (`av_strerror`).
///
/// `description` is one line for users, e.g.
/// `avio_open 'out/x.mp4' failed: No such file or directory`.
public struct FFmpegError: Error, CustomStringConvertible, Sendable, Equatable {
  /// The negative error code, as returned by the C call (`AVERROR(EINVAL)`, `AVERROR_EOF`, ...).
  public let code: Int32
  /// The C function or step that failed, with its subject when useful (a path, a codec name).
  public let operation: String
  /// FFmpeg's text for `code` (`av_strerror`), or a more precise message when camfx
  /// itself detected the problem (for example a non-increasing timestamp).
  public let message: String

  /// Builds an error for `code`, reading FFmpeg's text for it.
  public init(code: Int32, operation: String) {
    self.code = code
    self.operation = operation
    self.message = FFmpegError.text(for: code)
  }

  /// Builds an error with camfx's own message (the code is usually `AVERROR(EINVAL)`).
  public init(code: Int32, operation: String, message: String) {
    self.code = code
    self.operation = operation
    self.message = message
  }

  /// An `AVERROR(EINVAL)` error with a camfx message: for invalid input detected before or
  /// after a C call (wrong frame size, non-increasing timestamps, ...).
  static func invalid(_ operation: String, _ message: String) -> FFmpegError {
    FFmpegError(code: camfx_averror(EINVAL), operation: operation, message: message)
  }

  public var description: String { "\(operation) failed: \(message)" }

  /// `av_strerror`'s text for `code`.
  public static func text(for code: Int32) -> String {
    var buffer = [CChar](repeating: 0, count: Int(CAMFX_AV_ERROR_MAX_STRING_SIZE))
    if av_strerror(code, &buffer, buffer.count) < 0 {
      return "unknown FFmpeg error \(code)"
    }
    let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
    return String(decoding: bytes, as: UTF8.self)
  }
}

/// Throws `FFmpegError` when a C call returned a negative code; returns the value otherwise.
@discardableResult
func check(_ result: Int32, _ operation: @autoclosure () -> String) throws(FFmpegError) -> Int32 {
  if result < 0 { throw FFmpegError(code: result, operation: operation()) }
  return result
}
