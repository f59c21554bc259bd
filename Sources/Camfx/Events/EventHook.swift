import CamfxCore
import Foundation

/// A program run when an event clip starts or ends (`--on-event-start`,
/// `--on-event-end`): without a shell (the words of the command are its arguments, with
/// '…' and "…" quoting and nothing expanded), with the event in its environment, on a
/// thread of its own, in a process group of its own with only its standard files open,
/// and stopped with everything it started after `timeout` seconds. A hook that fails,
/// hangs or cannot start is reported as a warning; the recording goes on. Each run is
/// counted in a `DispatchGroup` until it has ended, so that the recording can wait for
/// the hooks still running when it ends (the last clip's end hook) before camfx exits.
///
/// The environment: the event's `CAMFX_EVENT_*` variables (`EventRecorder.hookEnvironment`
/// lists them), each meaning the same in both hooks.
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
  /// `running` until it has ended (`HookProcess`: its own process group, only its
  /// standard files open). The hook and what it leaves running in the background
  /// (`sh -c 'upload … &'`) get `timeout` seconds in all; then the whole group is
  /// stopped (SIGTERM, SIGKILL a second later), so that camfx never waits longer.
  func run(_ environment: [String: String], in running: DispatchGroup, report: @escaping @Sendable (String) -> Void) {
    let arguments = arguments, timeout = timeout
    running.enter()
    do {
      try NamedThread("camfx.hook") {
        defer { running.leave() }
        let name = URL(fileURLWithPath: arguments[0]).lastPathComponent
        let variables = ProcessInfo.processInfo.environment.merging(environment) { $1 }.map { "\($0.key)=\($0.value)" }
        let process: HookProcess
        do {
          process = try HookProcess(arguments: arguments, environment: variables)
        } catch {
          report("warning: hook \(name) did not start: \(error)")
          return
        }
        let seconds = RecordingStatusLine.fixed(timeout, timeout == timeout.rounded() ? 0 : 1)
        if !process.wait(until: MonotonicClock.seconds() + timeout) {
          let programRan = !process.reap()
          process.stopGroup()
          report(
            programRan
              ? "warning: hook \(name) took longer than \(seconds) s (--hook-timeout) and was stopped"
              : "warning: hook \(name) left processes running after \(seconds) s (--hook-timeout); they were stopped")
          if programRan { return }
        }
        guard let status = process.waitStatus else { return }
        if status & 0x7f != 0 {
          report("warning: hook \(name) was killed by signal \(status & 0x7f)")
        } else if (status >> 8) & 0xff != 0 {
          report("warning: hook \(name) exited with status \((status >> 8) & 0xff)")
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
