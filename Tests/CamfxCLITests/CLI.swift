import Foundation
import XCTest

/// Runs the built `camfx` executable and captures what it printed, for tests of
/// commands as a user types them (`snapshot`, `filters`, `record`, `bench`, ...).
///
///     let result = try CLI.run(["snapshot", "-o", "out.png"], in: dir)
///     XCTAssertEqual(result.status, 0)
///     XCTAssertEqual(result.stderr, "")
///
/// The binary is the one `swift build --build-tests` put next to the test bundle
/// (override with `CAMFX_BIN`). Output goes through temporary files, not pipes, so a
/// chatty child can never block on a full pipe.
enum CLI {
  struct Result: CustomStringConvertible {
    /// Exit status, or 128 + signal number if the process was killed by a signal.
    var status: Int32
    var stdout: String
    var stderr: String
    /// True when the process ended by a signal (a crash, or the timeout's kill).
    var wasSignalled: Bool

    var description: String { "status \(status)\nstdout: \(stdout)\nstderr: \(stderr)" }
  }

  /// `args` with `--source testsrc` added to a `record` (also the default command) or
  /// `snapshot` that names no source or input.
  static func withTestSource(_ args: [String]) -> [String] {
    let command = args.first.map { $0.hasPrefix("-") ? "record" : $0 } ?? "record"
    let named = ["--source", "--input", "--help", "-h", "--version"]
    guard ["record", "snapshot"].contains(command), !args.contains(where: named.contains) else { return args }
    return args + ["--source", "testsrc"]
  }

  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  /// The `camfx` executable under test.
  static var executable: URL {
    get throws {
      if let path = ProcessInfo.processInfo.environment["CAMFX_BIN"] { return URL(fileURLWithPath: path) }
      // The test bundle (camfxPackageTests.xctest) sits in the build products folder.
      let bundleDir = Bundle.main.bundleURL.pathExtension == "xctest"
        ? Bundle.main.bundleURL.deletingLastPathComponent() : Bundle.main.bundleURL
      for dir in [bundleDir, URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()] {
        let candidate = dir.appendingPathComponent("camfx")
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
      }
      throw Failure(description: "camfx binary not found next to \(bundleDir.path); run `swift build --build-tests` first")
    }
  }

  /// Starts `camfx args...` in `dir` in the background, its stderr going to the file
  /// `stderr` there, stdin and stdout to /dev/null.
  static func start(
    _ args: [String], in dir: URL, stderr: String = "stderr.txt", stdout: String? = nil, environment: [String: String] = [:]
  ) throws -> Process {
    let process = Process()
    process.executableURL = try executable
    process.arguments = withTestSource(args)
    process.currentDirectoryURL = dir
    if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
    let errPath = dir.appendingPathComponent(stderr).path
    _ = FileManager.default.createFile(atPath: errPath, contents: nil)
    process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
    if let stdout {
      let outPath = dir.appendingPathComponent(stdout).path
      _ = FileManager.default.createFile(atPath: outPath, contents: nil)
      process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
    } else {
      process.standardOutput = FileHandle.nullDevice
    }
    process.standardInput = FileHandle.nullDevice
    try process.run()
    return process
  }

  /// Runs `camfx args...` in `dir` (default: the current directory) and waits for it.
  ///
  /// - Parameters:
  ///   - environment: extra variables, added to this process's environment.
  ///   - unprivileged: run as user `nobody` when the tests run as root (so permission
  ///     checks apply); a no-op for other users.
  ///   - timeout: a hang guard, not a measurement: the child is killed after this many
  ///     seconds and the result has `wasSignalled` set.
  ///   - defaultSource: leave the source to camfx. Otherwise a `record` or `snapshot`
  ///     that names no source gets `--source testsrc`: the default source depends on the
  ///     machine's cameras (and says so on stderr when there is none), which
  ///     `SourceTests` checks on its own.
  static func run(
    _ args: [String], in dir: URL? = nil, environment: [String: String] = [:], unprivileged: Bool = false,
    timeout: TimeInterval = 120, defaultSource: Bool = false
  ) throws -> Result {
    let args = defaultSource ? args : withTestSource(args)
    let binary = try executable
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("camfx-cli-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: scratch) }
    let outURL = scratch.appendingPathComponent("stdout"), errURL = scratch.appendingPathComponent("stderr")
    _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
    _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
    if unprivileged && geteuid() == 0 {
      // nobody must be able to write its own output files.
      chmod(scratch.path, 0o777); chmod(outURL.path, 0o666); chmod(errURL.path, 0o666)
    }

    let process = Process()
    if unprivileged && geteuid() == 0 {
      // A copy in the scratch folder, since the build folder may sit under a home
      // directory that `nobody` cannot enter.
      let copy = scratch.appendingPathComponent("camfx")
      try FileManager.default.copyItem(at: binary, to: copy)
      chmod(copy.path, 0o755)
      process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
      process.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", copy.path] + args
    } else {
      process.executableURL = binary
      process.arguments = args
    }
    if let dir { process.currentDirectoryURL = dir }
    var env = ProcessInfo.processInfo.environment
    env.merge(environment) { $1 }
    process.environment = env
    process.standardInput = FileHandle.nullDevice
    let outHandle = try FileHandle(forWritingTo: outURL), errHandle = try FileHandle(forWritingTo: errURL)
    process.standardOutput = outHandle
    process.standardError = errHandle
    try process.run()
    try? outHandle.close()
    try? errHandle.close()

    let deadline = Date().addingTimeInterval(timeout)
    while process.isRunning {
      if Date() > deadline {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        break
      }
      usleep(10_000)
    }
    process.waitUntilExit()
    let signalled = process.terminationReason == .uncaughtSignal
    return Result(
      status: signalled ? 128 + process.terminationStatus : process.terminationStatus,
      stdout: (try? String(contentsOf: outURL, encoding: .utf8)) ?? "",
      stderr: (try? String(contentsOf: errURL, encoding: .utf8)) ?? "",
      wasSignalled: signalled)
  }
}

/// A fresh empty directory per test, removed afterwards.
class CLITestCase: XCTestCase {
  var dir: URL!

  override func setUpWithError() throws {
    dir = FileManager.default.temporaryDirectory.appendingPathComponent("camfx-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
  }

  override func tearDownWithError() throws {
    if let dir {
      chmod(dir.path, 0o755)
      try? FileManager.default.removeItem(at: dir)
    }
  }

  func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

  /// Waits until a recording started with `CLI.start` has created `name` (its first
  /// packet reached the file): from then on its signal handlers are in place, and its
  /// clock runs. A debug build on a busy machine can take a second or more to get there.
  func waitForFile(_ name: String, seconds: Double = 20, file: StaticString = #filePath, line: UInt = #line) {
    waitUntil("\(name) exists", seconds: seconds, file: file, line: line) { FileManager.default.fileExists(atPath: path(name)) }
  }

  /// Asks `condition` every `interval` seconds until it holds. Fails the test (and returns
  /// false) when `seconds` pass first, or when `process` is given and has ended: what it
  /// waited for will not come.
  @discardableResult
  func waitUntil(
    _ what: @autoclosure () -> String, seconds: Double = 20, interval: Double = 0.02, while process: Process? = nil,
    file: StaticString = #filePath, line: UInt = #line, _ condition: () -> Bool
  ) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while !condition() {
      if let process, !process.isRunning {
        XCTFail("camfx ended before \(what())", file: file, line: line)
        return false
      }
      guard Date() < deadline else {
        XCTFail("not within \(seconds) s: \(what())", file: file, line: line)
        return false
      }
      usleep(UInt32(interval * 1e6))
    }
    return true
  }

  /// Interrupts `process` twice, as a user's two Ctrl-Cs: the first SIGINT, then
  /// `between` seconds later (the process still ending, `ending` says how) the second.
  /// Returns the seconds from the second to the exit (a process still running after
  /// `limit` is killed, and the time is then above `limit`).
  func secondsToStopAfterASecondInterrupt(
    _ process: Process, between: Double, ending: String, limit: Double = 20, file: StaticString = #filePath,
    line: UInt = #line
  ) -> Double {
    kill(process.processIdentifier, SIGINT)
    usleep(UInt32(between * 1e6))
    XCTAssertTrue(process.isRunning, ending, file: file, line: line)
    let second = Date()
    kill(process.processIdentifier, SIGINT)
    while process.isRunning && Date().timeIntervalSince(second) < limit { usleep(20_000) }
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    process.waitUntilExit()
    return Date().timeIntervalSince(second)
  }

  /// The names in the test directory (hidden ones included), sorted.
  func listing(_ sub: String = "") throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: sub.isEmpty ? dir.path : path(sub)).sorted()
  }

  /// Asserts that a command failed cleanly: non-zero status, no signal, nothing on
  /// stdout, exactly one stderr line `expected` (or one starting with
  /// `expectedPrefix`), and no files left behind in the test directory besides `keep`.
  func assertFails(
    _ args: [String], stderr expected: String? = nil, prefix expectedPrefix: String? = nil, status: Int32 = 1,
    keep: [String] = [], unprivileged: Bool = false, file: StaticString = #filePath, line: UInt = #line
  ) throws {
    let result = try CLI.run(args, in: dir, unprivileged: unprivileged)
    XCTAssertEqual(result.status, status, "\(args): \(result)", file: file, line: line)
    XCTAssertFalse(result.wasSignalled, "\(args) crashed: \(result)", file: file, line: line)
    XCTAssertEqual(result.stdout, "", file: file, line: line)
    let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false)
    XCTAssertEqual(lines.count, 2, "one line on stderr: \(result.stderr)", file: file, line: line)
    if let expected { XCTAssertEqual(result.stderr, expected + "\n", file: file, line: line) }
    if let expectedPrefix {
      XCTAssertTrue(result.stderr.hasPrefix(expectedPrefix), "\(result.stderr) should start with \(expectedPrefix)", file: file, line: line)
    }
    XCTAssertFalse(result.stderr.contains("Fatal error"), file: file, line: line)
    XCTAssertEqual(try listing(), keep.sorted(), "files left behind by \(args)", file: file, line: line)
  }

  /// What `signalWhileWriting` saw.
  struct SignalledRun {
    var reason: Process.TerminationReason
    var status: Int32
    var stderr: String
    /// Seconds from the last signal sent to the end of the process.
    var secondsAfterLastSignal: Double = 0
  }

  /// Starts camfx with `args` in the test directory, waits until its hidden temporary
  /// output exists (`ready` decides, given the file's size), then `settle` seconds
  /// more, sends `signal` and waits for it to end (killing it after two minutes).
  func signalWhileWriting(
    _ args: [String], signal: Int32, settle: UInt32 = 0, watching: String? = nil, againAfter: [useconds_t] = [],
    ready: @escaping (Int) -> Bool = { _ in true }, file: StaticString = #filePath, line: UInt = #line
  ) throws -> SignalledRun {
    let process = Process()
    process.executableURL = try CLI.executable
    process.arguments = CLI.withTestSource(args)
    process.currentDirectoryURL = dir
    let errPath = path("stderr.txt")
    XCTAssertTrue(FileManager.default.createFile(atPath: errPath, contents: nil))
    process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    let deadline = Date().addingTimeInterval(120)
    func writing() -> Bool {
      ((try? listing()) ?? []).contains { name in
        (watching.map { name == $0 } ?? name.hasPrefix(".camfx-")) && ready((try? FileManager.default.attributesOfItem(atPath: path(name))[.size] as? Int) ?? 0)
      }
    }
    while !writing() && process.isRunning && Date() < deadline { usleep(5_000) }
    sleep(settle)
    XCTAssertTrue(process.isRunning, "\(args) ended before it could be signalled", file: file, line: line)
    kill(process.processIdentifier, signal)
    var lastSignal = Date()
    for gap in againAfter {
      usleep(gap)
      kill(process.processIdentifier, signal)
      lastSignal = Date()
    }
    while process.isRunning && Date() < deadline { usleep(20_000) }
    let ended = Date()
    if process.isRunning { process.terminate() }
    process.waitUntilExit()
    let stderr = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
    return SignalledRun(
      reason: process.terminationReason, status: process.terminationStatus, stderr: stderr,
      secondsAfterLastSignal: ended.timeIntervalSince(lastSignal))
  }
}
