import CamfxCore
import Foundation

/// A program run when an event clip starts or ends (`--on-event-start`,
/// `--on-event-end`): without a shell (the words of the command are its arguments, with
/// '…' and "…" quoting and nothing expanded), with the event in its environment, on a
/// thread of its own, and killed after `timeout` seconds. A hook that fails, hangs or
/// cannot start is reported as a warning; the recording goes on. Each run is counted in
/// a `DispatchGroup` until it has ended, so that the recording can wait for the hooks
/// still running when it ends (the last clip's end hook) before camfx exits.
///
/// The environment: `CAMFX_EVENT` (`start` or `end`), `CAMFX_EVENT_PATH` (the clip),
/// `CAMFX_EVENT_SIDECAR` (its JSON, at the end), `CAMFX_EVENT_START` and
/// `CAMFX_EVENT_END` (seconds into the recording; the end only at the end),
/// `CAMFX_EVENT_TRIGGER` (`http`, `signal`, `api` ...), `CAMFX_EVENT_SCORE` (the peak
/// score, empty without a detector).
public struct EventHook: Sendable, Equatable {
  /// The program and its arguments.
  public let arguments: [String]
  public let timeout: Double

  /// - Throws: `RecordingOptionError` for an empty command, unbalanced quotes, or a
  ///   program that is not found or not executable (`option` names the option).
  public init(command: String, timeout: Double = 30, option: String) throws {
    let words = try Self.split(command, option: option)
    guard let program = words.first else { throw RecordingOptionError("\(option) needs a command") }
    guard let resolved = Self.resolve(program) else {
      throw RecordingOptionError("\(option): '\(program)' is not an executable program (the command runs without a shell)")
    }
    arguments = [resolved] + words.dropFirst()
    self.timeout = timeout
  }

  /// Runs the hook with `environment` added to camfx's own, on a thread of its own, in
  /// `running` until it has ended.
  func run(_ environment: [String: String], in running: DispatchGroup, report: @escaping @Sendable (String) -> Void) {
    let arguments = arguments, timeout = timeout
    running.enter()
    do {
      try NamedThread("camfx.hook") {
        defer { running.leave() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardInput = FileHandle.nullDevice
        // What a hook prints goes with camfx's messages, never into `-o -`'s stream.
        process.standardOutput = FileHandle.standardError
        let name = URL(fileURLWithPath: arguments[0]).lastPathComponent
        do {
          try process.run()
        } catch {
          report("warning: hook \(name) did not start: \(error.localizedDescription)")
          return
        }
        let deadline = MonotonicClock.seconds() + timeout
        while process.isRunning && MonotonicClock.seconds() < deadline { MonotonicClock.sleep(seconds: 0.05) }
        if process.isRunning {
          kill(process.processIdentifier, SIGKILL)
          process.waitUntilExit()
          report("warning: hook \(name) took longer than \(Int(timeout)) s and was stopped")
          return
        }
        if process.terminationStatus != 0 {
          report("warning: hook \(name) exited with status \(process.terminationStatus)")
        }
      }.detach()
    } catch {
      running.leave()
      report("warning: hook did not start: \(error)")
    }
  }

  /// The words of `command`: split at spaces, with '…' and "…" keeping spaces.
  static func split(_ command: String, option: String) throws -> [String] {
    var words: [String] = []
    var word = ""
    var inWord = false
    var quote: Character? = nil
    for c in command {
      if let q = quote {
        if c == q { quote = nil } else { word.append(c) }
      } else if c == "'" || c == "\"" {
        quote = c
        inWord = true
      } else if c == " " || c == "\t" {
        if inWord { words.append(word) }
        word = ""
        inWord = false
      } else {
        word.append(c)
        inWord = true
      }
    }
    if quote != nil { throw RecordingOptionError("\(option): unbalanced quotes in '\(command)'") }
    if inWord { words.append(word) }
    return words
  }

  /// `program` as a path: itself when it holds a slash, else the first match on PATH.
  static func resolve(_ program: String) -> String? {
    if program.contains("/") { return access(program, X_OK) == 0 ? program : nil }
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
    for dir in path.split(separator: ":") {
      let candidate = "\(dir)/\(program)"
      if access(candidate, X_OK) == 0 { return candidate }
    }
    return nil
  }
}
