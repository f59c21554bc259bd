import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif

/// How `camfx` reports an error that ends a command: exactly one line on stderr,
///
///     camfx: error: filter 'crop', key 'width', value 'abc': expected an integer
///     camfx: error: unexpected argument 'sparkle' (see camfx --help)
///
/// Usage errors from swift-argument-parser (an unknown option, a missing or bad value)
/// exit with its status, 64; every other error — `FilterError`, `PNGError`,
/// `OutputFileError`, `SourceError`, `FFmpegError`, ... — with 1 (`failureStatus`).
/// `--help` and `--version` keep swift-argument-parser's output.
enum CommandLineError {
  static let failureStatus: Int32 = 1

  /// The one line printed for `error` (without the trailing newline).
  static func message(for error: any Error) -> String {
    let text = String(describing: error).split(whereSeparator: \.isNewline).joined(separator: " ")
    return "camfx: error: \(text)"
  }

  /// True for errors swift-argument-parser formats itself. Some are internal types
  /// (`--help` runs a built-in command whose `run()` throws `CommandError`), so the
  /// test is the error type's module.
  static func isArgumentParserError(_ error: any Error) -> Bool {
    error is ExitCode || error is CleanExit || error is ValidationError
      || String(reflecting: type(of: error)).hasPrefix("ArgumentParser.")
  }

  /// Prints `error` and exits. Never returns.
  static func exit(with error: any Error) -> Never {
    guard isArgumentParserError(error) else { exit(line: message(for: error), status: failureStatus) }
    let code = CamfxCommand.exitCode(for: error)
    // --help, --version and other clean exits print what the parser prints.
    if code == .success || error is CleanExit { CamfxCommand.exit(withError: error) }
    exit(line: usageMessage(CamfxCommand.message(for: error)), status: code.rawValue)
  }

  /// The parser's message as one camfx line: "Error: Unexpected argument 'x'" →
  /// "camfx: error: unexpected argument 'x' (see camfx --help)".
  static func usageMessage(_ parserMessage: String) -> String {
    var text = String(parserMessage.split(whereSeparator: \.isNewline).first ?? "")
    if text.hasPrefix("Error: ") { text.removeFirst("Error: ".count) }
    if let first = text.first, first.isUppercase, text.dropFirst().first?.isLowercase == true {
      text = first.lowercased() + text.dropFirst()
    }
    return "camfx: error: \(text) (see camfx --help)"
  }

  private static func exit(line text: String, status: Int32) -> Never {
    let line = Array((text + "\n").utf8)
    _ = line.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
    Glibc.exit(status)
  }
}
