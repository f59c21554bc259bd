import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif

/// How `camfx` reports an error that ends a command.
///
/// swift-argument-parser's own errors (usage, `--help`, `ExitCode`) keep its format.
/// Every other error — `FilterError`, `PNGError`, `OutputFileError`, `SourceError`,
/// `GeometryError`, `FFmpegError`, ... — is printed as exactly one line on stderr,
///
///     camfx: error: filter 'crop', key 'width', value 'abc': expected an integer
///
/// and the process exits with status 1 (`failureStatus`).
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
    if isArgumentParserError(error) { CamfxCommand.exit(withError: error) }
    let line = Array((message(for: error) + "\n").utf8)
    _ = line.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
    Glibc.exit(failureStatus)
  }
}
