import CFFmpeg

/// A failed FFmpeg call: the negative `AVERROR` code, what camfx was doing, and
/// FFmpeg's own text for the code (`av_strerror`).
///
/// `description` is one line for users that names the file, option or value and the
/// cause, never an FFmpeg function: `writing 'out/x.mp4' failed: No space left on
/// device`, or camfx's own sentence (`summary`), e.g. `cannot open 'x.mp4': No such file
/// or directory`, `'x.wav' has no video stream`.
public struct FFmpegError: Error, CustomStringConvertible, Sendable, Equatable {
  /// The negative error code, as returned by the C call (`AVERROR(EINVAL)`, `AVERROR_EOF`, ...).
  public let code: Int32
  /// What failed, in a user's words, with its subject when useful (a path, a codec
  /// name): `writing 'x.mp4'`, `opening video encoder 'libx265'`.
  public let operation: String
  /// FFmpeg's text for `code` (`av_strerror`), or a more precise message when camfx
  /// itself detected the problem (for example a non-increasing timestamp).
  public let message: String
  /// The whole line when "operation failed: message" would not say it well.
  public let summary: String?

  /// Builds an error for `code`, reading FFmpeg's text for it.
  public init(code: Int32, operation: String) {
    self.init(code: code, operation: operation, message: FFmpegError.text(for: code))
  }

  /// Builds an error with camfx's own message (the code is usually `AVERROR(EINVAL)`).
  public init(code: Int32, operation: String, message: String) {
    self.code = code
    self.operation = operation
    self.message = message
    self.summary = nil
  }

  /// Builds an error whose `description` is `summary`; `message` is FFmpeg's text for
  /// `code` unless given.
  public init(code: Int32, operation: String, message: String? = nil, summary: String) {
    self.code = code
    self.operation = operation
    self.message = message ?? FFmpegError.text(for: code)
    self.summary = summary
  }

  /// `cannot <operation>: <message>`, e.g. `cannot open 'x.mp4': No such file or directory`.
  package static func cannot(_ operation: String, code: Int32, message: String? = nil) -> FFmpegError {
    let text = message ?? FFmpegError.text(for: code)
    return FFmpegError(code: code, operation: operation, message: text, summary: "cannot \(operation): \(text)")
  }

  /// An `AVERROR(EINVAL)` error with a camfx message: for invalid input detected before or
  /// after a C call (wrong frame size, non-increasing timestamps, ...).
  package static func invalid(_ operation: String, _ message: String) -> FFmpegError {
    FFmpegError(code: camfx_averror(EINVAL), operation: operation, message: message)
  }

  public var description: String { summary ?? "\(operation) failed: \(message)" }

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
/// `operation` is what a user reads: `check(r, "reading '\(path)'")`.
@discardableResult
package func check(_ result: Int32, _ operation: @autoclosure () -> String) throws(FFmpegError) -> Int32 {
  if result < 0 { throw FFmpegError(code: result, operation: operation()) }
  return result
}

/// `check`, worded `cannot <operation>: <FFmpeg's text>`.
@discardableResult
package func check(_ result: Int32, cannot operation: @autoclosure () -> String) throws(FFmpegError) -> Int32 {
  if result < 0 { throw FFmpegError.cannot(operation(), code: result) }
  return result
}
