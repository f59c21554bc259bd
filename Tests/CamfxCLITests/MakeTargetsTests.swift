import Foundation
import XCTest

/// Every `make` target the README names exists, and every `swift build`, `swift run` and
/// `swift test` line it runs has flags the package manager takes: a flag change (the
/// release flags' `--static-swift-stdlib`, which `swift run` refuses) cannot break one
/// silently. Nothing is built: `make -n` prints each target's commands, and each swift
/// command runs with a product that does not exist, so it ends right after its flags are
/// read (exit 64 and "Unknown option" when one is not taken).
final class MakeTargetsTests: XCTestCase {
  private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardized

  private func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.currentDirectoryURL = root
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return (process.terminationStatus, output)
  }

  func testEveryReadmeMakeTargetRunsCommandsTheToolsTake() throws {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/make") else { throw XCTSkip("make is not installed") }
    let swift = ["/opt/swift/usr/bin/swift", "/usr/bin/swift"].first { FileManager.default.isExecutableFile(atPath: $0) }
    guard let swift else { throw XCTSkip("swift is not at /opt/swift/usr/bin") }
    let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
    // The README's code: indented blocks, and `spans` (every other piece between
    // backticks), where `make test` or `FUZZ_SECONDS=600 make fuzz` starts a command.
    var code: [Substring] = []
    for line in readme.split(separator: "\n") {
      if line.hasPrefix("    ") { code.append(line.drop { $0 == " " }) }
      code += line.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
    }
    let targets = Set(code.compactMap { $0.prefixMatch(of: /(?:[A-Z_]+=\S+ +)*make ([a-z][a-z-]*)/).map { String($0.output.1) } })
    XCTAssertTrue(targets.isSuperset(of: ["run", "test", "release", "bench", "bench-peers", "install", "fuzz"]), "\(targets)")
    var commands: Set<[String]> = []
    for target in targets.sorted() {
      let dry = try run("/usr/bin/make", ["-n", target, "SWIFT=swift"])
      XCTAssertEqual(dry.status, 0, "make -n \(target): \(dry.output)")
      // (A quote ends one too: a quoted word holds no flag of its own.)
      for match in dry.output.matches(of: /swift (build|run|test)([^;&|\n'"]*)/) {
        var words = ([String(match.output.1)] + match.output.2.split(separator: " ").map(String.init)).filter { !$0.isEmpty }
        // A test selection ('A|B|C') is no flag, and its bars end the match.
        if let filter = words.firstIndex(of: "--filter") { words.removeSubrange(filter...) }
        commands.insert(words)
      }
    }
    XCTAssertTrue(commands.contains { $0.first == "run" }, "no swift run among \(commands)")
    for words in commands.sorted(by: { $0.joined(separator: " ") < $1.joined(separator: " ") }) {
      var arguments = words
      switch words[0] {
      case "run": arguments[arguments.count - 1] = "camfx-no-such-product"  // the product is the last word
      case "build": arguments += ["--product", "camfx-no-such-product"]
      default: arguments.insert("list", at: 1)  // lists the tests of a bundle built already, if any
      }
      // Under `swift test`, which holds the build folder's lock for the whole run, these
      // would wait for it forever; they build nothing.
      arguments.insert("--ignore-lock", at: words[0] == "test" ? 2 : 1)
      let result = try run(swift, arguments)
      XCTAssertFalse(
        result.status == 64 || result.output.contains("Unknown option"),
        "swift \(words.joined(separator: " ")) is refused: \(result.output)")
    }
  }
}
